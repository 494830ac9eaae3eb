//! [`TextSource`]: the sequential reader of a text trace, a
//! [`TraceSource`]. Info is encoded as it is read ([`Encode`]); batches
//! ([`TraceSource::next_records`]) go through the whole-line fast path
//! first. A seekable input (a regular file, a text in memory) gives
//! checkpoints: byte offset, line number, skipped-line count and the
//! categories defined so far.

use std::fs::File;
use std::io::{BufRead, Read};
use std::path::Path;

use super::fast::window_line;
use super::info::{Encode, InfoPlan};
use super::lines::{HandedOver, Input, Lines, Plain, Seekable};
use super::records::Parser;
use crate::error::{Error, Result};
use crate::trace::{Checkpoint, Record, TraceSource};

/// A trace in the sample text format.
pub struct TextSource {
    p: Parser,
    /// Each defined category's label, prepared for encoding info text
    /// (shared with the [`checkpoints`](TraceSource::checkpoint) taken since
    /// the last definition: copied on the next one only).
    infos: Encode,
    total_bytes: Option<u64>,
    /// `next_records`: line of each record handed over, and an error to
    /// report after them.
    batch_lines: Vec<usize>,
    stashed: Option<Error>,
}

/// Where a [`TextSource`] was between two records (see
/// [`TraceSource::checkpoint`]).
struct TextCheckpoint {
    offset: u64,
    line_no: usize,
    skipped_lines: u64,
    first_skipped: usize,
    formats: std::sync::Arc<rustc_hash::FxHashMap<i32, InfoPlan>>,
}

impl TextSource {
    /// Open a file.
    pub fn open(path: &Path) -> Result<Self> {
        let f = File::open(path).map_err(|e| Error::io(path, e))?;
        let meta = f.metadata().ok();
        let total = meta.as_ref().map(|m| m.len());
        // A regular file can go back to a checkpoint; a FIFO or a device
        // named by its path cannot.
        let input: Box<dyn Input> = if meta.is_some_and(|m| m.is_file()) {
            Box::new(Seekable(f))
        } else {
            Box::new(Plain(f))
        };
        let mut s = Self::with_input(&path.display().to_string(), input);
        s.total_bytes = total;
        Ok(s)
    }

    /// Read from any buffered reader; `name` is used in error messages and
    /// [`location`](TraceSource::location).
    pub fn from_reader(name: &str, r: impl BufRead + Send + 'static) -> Self {
        Self::from_read(name, r)
    }

    /// Read from any reader (it is read in large chunks, so it need not be
    /// buffered).
    pub fn from_read(name: &str, r: impl Read + Send + 'static) -> Self {
        Self::with_input(name, Box::new(Plain(r)))
    }

    /// Read a stream [`input::open`](crate::trace::input::open) opened:
    /// a gzip one takes the inflating thread's chunks as they come.
    pub(crate) fn from_stream(name: &str, s: crate::trace::input::Stream) -> Self {
        match s {
            crate::trace::input::Stream::Plain(r) => Self::from_read(name, r),
            crate::trace::input::Stream::Inflating(z) => {
                let mut s = Self::with_input(name, Box::new(HandedOver(z)));
                // Its buffers are the chunks: no buffer of its own.
                s.p.lines.buf = Vec::new();
                s
            }
        }
    }

    fn with_input(name: &str, input: Box<dyn Input>) -> Self {
        TextSource {
            p: Parser::new(name, Lines::new(input)),
            infos: Encode::default(),
            total_bytes: None,
            batch_lines: Vec::new(),
            stashed: None,
        }
    }

    /// Parse a text held in memory (tests, small inputs).
    pub fn from_str(name: &str, text: &str) -> Self {
        let mut s = Self::with_input(
            name,
            Box::new(Seekable(std::io::Cursor::new(text.as_bytes().to_vec()))),
        );
        s.total_bytes = Some(text.len() as u64);
        s
    }

    /// Bytes read from the input so far (a seek to a checkpoint reads on
    /// from there: this shows how much was read again).
    pub fn bytes_fetched(&self) -> u64 {
        self.p.lines.fetched
    }
}

impl TraceSource for TextSource {
    fn next_record(&mut self) -> Result<Option<Record>> {
        self.p.next_record(&mut self.infos)
    }

    /// `FILE:LINE` of the last record returned (a composite: its header line).
    fn location(&self) -> String {
        format!("{}:{}", self.p.name, self.p.record_line)
    }

    /// Up to 256 records at a time (a batch that stays in the first-level
    /// cache); an error comes after the records before it.
    fn next_records(&mut self, out: &mut Vec<Record>) -> Result<()> {
        out.clear();
        self.batch_lines.clear();
        if let Some(e) = self.stashed.take() {
            return Err(e);
        }
        let p = &mut self.p;
        while out.len() < 256 {
            // Usual primitive lines straight from the buffer.
            if let Some((prim, n)) = window_line(p.lines.rest(), &self.infos.0) {
                p.lines.pos += n;
                p.bytes_read += n as u64;
                p.line_no += 1;
                p.record_line = p.line_no;
                out.push(Record::Primitive(prim));
                self.batch_lines.push(p.line_no);
                continue;
            }
            // Other primitive lines, without the record dispatch of
            // `next_record`.
            if !p.next_line()? {
                break;
            }
            p.record_line = p.line_no;
            if p.lines.buf[p.cur.clone()].starts_with(b"Primitive") {
                match p.parse_primitive_line(&mut self.infos, 0) {
                    Ok(prim) => {
                        out.push(Record::Primitive(prim));
                        self.batch_lines.push(p.record_line);
                        continue;
                    }
                    Err(e) if out.is_empty() => return Err(*e),
                    Err(e) => {
                        self.stashed = Some(*e);
                        break;
                    }
                }
            }
            // Anything else: hand the line back to `next_record`.
            p.pending_line = true;
            match p.next_record(&mut self.infos) {
                Ok(Some(r)) => {
                    out.push(r);
                    self.batch_lines.push(p.record_line);
                }
                Ok(None) => break,
                Err(e) if out.is_empty() => return Err(e),
                Err(e) => {
                    self.stashed = Some(e);
                    break;
                }
            }
        }
        Ok(())
    }

    /// A gzip input: the inflating thread's CPU seconds.
    fn stage_cpu(&self) -> Vec<(&'static str, f64)> {
        self.p
            .lines
            .src
            .cpu_seconds()
            .map(|c| ("inflate", c))
            .into_iter()
            .collect()
    }

    fn skipped(&self) -> Option<String> {
        skipped_message(self.p.skipped_lines, &self.p.name, self.p.first_skipped)
    }

    fn location_of(&self, i: usize) -> String {
        match self.batch_lines.get(i) {
            Some(l) => format!("{}:{}", self.p.name, l),
            None => self.location(),
        }
    }

    /// Between [`next_record`](TraceSource::next_record) calls on a
    /// seekable input (a regular file, a text in memory): the byte offset
    /// and line number of the next line, the skipped-line count and the
    /// categories defined so far (shared, not copied). `None` for a pipe
    /// and in the middle of a [`next_records`](TraceSource::next_records) batch.
    fn checkpoint(&mut self) -> Option<Checkpoint> {
        if !self.p.lines.src.can_seek() || self.p.pending_line || self.stashed.is_some() {
            return None;
        }
        Some(Checkpoint::new(TextCheckpoint {
            offset: self.p.bytes_read,
            line_no: self.p.line_no,
            skipped_lines: self.p.skipped_lines,
            first_skipped: self.p.first_skipped,
            formats: self.infos.0.clone(),
        }))
    }

    /// Seek the file to the checkpoint's byte offset and restore the parser
    /// state it recorded: the records that follow are exactly those that
    /// followed when it was taken (categories defined later are forgotten,
    /// so info on them is an error again).
    fn restore(&mut self, cp: &Checkpoint) -> Result<()> {
        let cp = cp.get::<TextCheckpoint>().ok_or_else(|| {
            Error::InvalidArgument(format!("{}: not a checkpoint of a text trace", self.p.name))
        })?;
        let p = &mut self.p;
        match p.lines.seek(cp.offset) {
            None => {
                return Err(Error::Unsupported(format!(
                    "{}: cannot seek (not a regular file)",
                    p.name
                )))
            }
            Some(r) => r.map_err(|e| Error::io(&p.name, e))?,
        }
        p.cur = 0..0;
        p.line_no = cp.line_no;
        p.record_line = cp.line_no;
        p.bytes_read = cp.offset;
        p.skipped_lines = cp.skipped_lines;
        p.first_skipped = cp.first_skipped;
        p.pending_line = false;
        self.infos.0 = cp.formats.clone();
        self.stashed = None;
        self.batch_lines.clear();
        Ok(())
    }

    /// A composite's members are the lines right after its header line
    /// (nothing may come between them).
    fn member_location(&self, i: usize, member: usize) -> String {
        let line = self
            .batch_lines
            .get(i)
            .copied()
            .unwrap_or(self.p.record_line);
        format!("{}:{}", self.p.name, line + 1 + member)
    }

    /// Bytes read so far over the file size (when the size is known).
    fn progress(&self) -> Option<f64> {
        self.total_bytes
            .filter(|t| *t > 0)
            .map(|t| (self.p.bytes_read as f64 / t as f64).min(1.0))
    }
}

/// Read from any `Read` — kept for callers of the earlier free function.
pub fn from_read(name: &str, r: impl Read + Send + 'static) -> TextSource {
    TextSource::from_read(name, r)
}

/// The converter's warning for lines that are no record (the reference
/// skips them silently; we keep its leniency but say so). Shared by the
/// sequential and the parallel text sources.
pub(crate) fn skipped_message(n: u64, name: &str, first: usize) -> Option<String> {
    (n > 0).then(|| {
        format!(
            "{n} line(s) of {name} are no record and were skipped (first: line {first}; a mistyped keyword?)"
        )
    })
}

#[cfg(test)]
mod tests {
    //! A stream handed over in chunks ([`HandedOver`]: a gzip input) gives
    //! exactly what the same text read in one piece gives — records,
    //! locations, the first error — wherever the chunks' edges cut it,
    //! including lines longer than the room in front of a chunk.
    use super::*;
    use crate::trace::input::{Inflating, Stream};
    use proptest::prelude::*;

    type Outcome = (Vec<(Record, String)>, Option<String>);

    fn drain(s: &mut TextSource, batches: bool) -> Outcome {
        let mut out = Vec::new();
        let mut batch = Vec::new();
        loop {
            let r = if batches {
                s.next_records(&mut batch)
            } else {
                s.next_record().map(|r| {
                    batch.clear();
                    batch.extend(r);
                })
            };
            match r {
                Ok(()) if batch.is_empty() => return (out, None),
                Ok(()) => {
                    for (i, r) in batch.drain(..).enumerate() {
                        let loc = if batches {
                            s.location_of(i)
                        } else {
                            s.location()
                        };
                        out.push((r, loc));
                    }
                }
                Err(e) => return (out, Some(e.to_string())),
            }
        }
    }

    fn chunked(text: &[u8], first: usize, chunk: usize, batches: bool) -> Outcome {
        let first = first.min(text.len());
        let rest = std::io::Cursor::new(text[first..].to_vec());
        let z = Inflating::start_sized(text[..first].to_vec(), Box::new(rest), chunk);
        drain(
            &mut TextSource::from_stream("t.txt", Stream::Inflating(z)),
            batches,
        )
    }

    fn assert_same(text: &[u8], first: usize, chunk: usize) {
        let text_str = String::from_utf8(text.to_vec()).unwrap();
        for batches in [false, true] {
            let want = drain(&mut TextSource::from_str("t.txt", &text_str), batches);
            let got = chunked(text, first, chunk, batches);
            assert_eq!(got.1, want.1, "error (first {first}, chunk {chunk})");
            assert_eq!(got.0.len(), want.0.len(), "count (chunk {chunk})");
            for (k, (g, w)) in got.0.iter().zip(&want.0).enumerate() {
                assert_eq!(g, w, "record {k} (first {first}, chunk {chunk})");
            }
        }
    }

    const HEADER: &str =
        "Category[ index=0 name=a topo=State color=(1,2,3,255,true) width=1 < a=%d b=%d > ]\n\
        Category[ index=1 name=b topo=Arrow color=(1,2,3,255,true) width=1 ]\n";

    fn line() -> impl Strategy<Value = String> {
        let t = (0u32..1000).prop_map(|k| k as f64 / 1000.0);
        prop_oneof![
            20 => (t.clone(), 0i32..6).prop_map(|(t, l)| format!(
                "Primitive[ TimeBBox({t},{e}) Category=0 ({t}, {l}) ({e}, {l}) < a={l} b=2 > ]",
                e = t + 0.5
            )),
            // The general parser's spelling (two spaces) and many vertices:
            // lines past the room in front of a chunk.
            3 => (t.clone(), 1usize..400).prop_map(|(t, n)| {
                let mut s = format!("Primitive[  TimeBBox({t},{e}) Category=1", e = t + 1.0);
                for k in 0..n {
                    s.push_str(&format!(" ({t}, {k})"));
                }
                s + " ]"
            }),
            3 => (0usize..9000).prop_map(|n| format!("# {}", "c".repeat(n))),
            2 => Just(String::new()),
            1 => Just("Primitive[ TimeBBox(0.1,0.2) Category=0 (0.1, x) ]".to_string()),
            1 => Just("Primitve[ a mistyped keyword ]".to_string()),
        ]
    }

    fn trace() -> impl Strategy<Value = Vec<u8>> {
        (
            prop::collection::vec(line(), 0..60),
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(|(lines, crlf, last_nl)| {
                let sep = if crlf { "\r\n" } else { "\n" };
                let mut s = HEADER.replace('\n', sep);
                s.push_str(&lines.join(sep));
                if last_nl {
                    s.push_str(sep);
                }
                s.into_bytes()
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn chunks_handed_over_parse_like_one_piece(
            text in trace(),
            first in 0usize..300,
            chunk in prop_oneof![1usize..64, 64usize..5000, Just(1 << 20)],
        ) {
            assert_same(&text, first, chunk);
        }
    }

    #[test]
    fn a_line_over_the_limit_is_refused_across_chunks() {
        let mut text = b"# one\n".to_vec();
        text.extend(std::iter::repeat_n(b'x', crate::trace::text::MAX_LINE + 10));
        let (recs, err) = chunked(&text, 3, 1 << 20, true);
        assert!(recs.is_empty());
        let err = err.expect("a line over 16 MiB");
        assert!(
            err.contains("t.txt:2:1") && err.contains("longer than 16 MiB"),
            "{err}"
        );
    }
}
