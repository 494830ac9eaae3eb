//! Parallel parsing of large sample-format text files.
//!
//! Why: the converter parses and places drawables in the tree on the
//! caller's thread while the writer's threads build shadows and write nodes;
//! the busiest thread sets the pace. On machines with more cores than that,
//! splitting the parse over worker threads takes it off the critical path.
//! (On two cores it costs more CPU than it saves, so it is not the default
//! there; BENCHMARKS.md.)
//!
//! It gives exactly what [`TextSource`](crate::trace::text::TextSource) gives — the same records, errors and
//! line numbers — because only work that does not depend on earlier lines is
//! done out of order:
//! - a reader thread cuts the file into chunks of whole lines, extended so
//!   that a composite's member lines stay with its header, and numbers them
//!   (each chunk knows the number of its first line);
//! - worker threads parse chunks with the text parser in chunk mode (`text::ChunkParser`), which
//!   records info text (`< … >`) instead of encoding it, because the category
//!   label it needs may be defined in an earlier chunk;
//! - the consumer (`next_record`, on the caller's thread) takes the chunks in
//!   file order, defines categories and encodes info as it goes, and reports
//!   a chunk's error only after the records before it.
//!
//! Memory is bounded by a fixed pool of chunk buffers that circulates between
//! the threads; the conversion's memory stays flat with the trace length.
//! After an error the source is finished: later calls return an error.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crate::error::{Error, Result};
use crate::model::InfoBytes;
use crate::trace::text::{composite_member_count, ChunkParser, DeferredInfo, InfoFormats};
use crate::trace::{Record, TraceSource};

/// How to parse in parallel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParallelOptions {
    /// Parser threads (at least 1).
    pub workers: usize,
    /// Target chunk size in bytes (chunks end at a line end, later if a
    /// composite or a long line needs it).
    pub chunk_bytes: usize,
}

impl Default for ParallelOptions {
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        ParallelOptions {
            workers: cores.clamp(1, 4),
            chunk_bytes: 256 * 1024,
        }
    }
}

/// Buffers that go round: text, records, their line numbers, deferred info.
type Buffers = (Vec<u8>, Vec<Record>, Vec<usize>, Vec<DeferredInfo>);

struct Work {
    seq: u64,
    first_line: usize,
    bufs: Buffers,
}

struct ChunkResult {
    seq: u64,
    bufs: Buffers,
    /// The chunk's first error; deferred info of the record it stopped in
    /// has record index `bufs.1.len()` (encoded first: it comes earlier).
    error: Option<Error>,
    /// The end marker after the last chunk.
    end: bool,
    /// Lines that were no record, and the first of them.
    skipped: (u64, usize),
}

impl ChunkResult {
    fn failed(seq: u64, e: Error) -> Self {
        ChunkResult {
            seq,
            bufs: Default::default(),
            error: Some(e),
            end: false,
            skipped: (0, 0),
        }
    }
}

/// A sample-format text file parsed by worker threads (see the module docs).
pub struct ParallelTextSource {
    name: String,
    channels: Option<(Receiver<ChunkResult>, SyncSender<Buffers>)>,
    /// Results that arrived before their turn.
    pending: BTreeMap<u64, ChunkResult>,
    next_seq: u64,
    formats: InfoFormats,
    /// Line numbers of the records last handed over by `next_records`.
    lines: Vec<usize>,
    /// An error to report after the records handed over before it.
    stashed: Option<Error>,
    /// `next_record`: the rest of the current batch, reversed.
    single: Vec<Record>,
    single_lines: Vec<usize>,
    record_line: usize,
    bytes_done: u64,
    total_bytes: Option<u64>,
    /// Lines that were no record so far (chunks in file order), the first.
    skipped: (u64, usize),
    done: bool,
    failed: bool,
    threads: Vec<JoinHandle<()>>,
}

impl ParallelTextSource {
    pub fn open(path: &Path, opts: ParallelOptions) -> Result<Self> {
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        let total = file.metadata().ok().map(|m| m.len());
        let name = path.display().to_string();
        let mut s = Self::from_read(&name, file, path.to_path_buf(), opts)?;
        s.total_bytes = total;
        Ok(s)
    }

    /// Parse any reader (`path` names it in I/O errors).
    pub fn from_read(
        name: &str,
        src: impl Read + Send + 'static,
        path: PathBuf,
        opts: ParallelOptions,
    ) -> Result<Self> {
        let workers = opts.workers.max(1);
        let chunk = opts.chunk_bytes.max(1);
        // Chunks in flight: enough that the consumer rarely waits for a
        // parser, few enough to keep memory flat (about 0.6 MB each).
        let pool = workers + 4;
        let (work_tx, work_rx) = sync_channel::<Work>(workers);
        let (res_tx, res_rx) = sync_channel::<ChunkResult>(pool + 2);
        let (back_tx, back_rx) = sync_channel::<Buffers>(pool);
        let work_rx = Arc::new(Mutex::new(work_rx));
        let spawn_err = |e| Error::io(&path, e);
        let mut threads = Vec::new();
        for i in 0..workers {
            let rx = Arc::clone(&work_rx);
            let tx = res_tx.clone();
            let name = name.to_string();
            threads.push(
                std::thread::Builder::new()
                    .name(format!("slog2-parse-{i}"))
                    .spawn(move || parse_chunks(&name, &rx, &tx))
                    .map_err(spawn_err)?,
            );
        }
        let reader = Reader {
            src: Box::new(src),
            path: path.clone(),
            chunk,
            eof: false,
        };
        threads.push(
            std::thread::Builder::new()
                .name("slog2-read".into())
                .spawn(move || reader.run(pool, &work_tx, &res_tx, &back_rx))
                .map_err(spawn_err)?,
        );
        Ok(ParallelTextSource {
            name: name.to_string(),
            channels: Some((res_rx, back_tx)),
            pending: BTreeMap::new(),
            next_seq: 0,
            formats: InfoFormats::default(),
            lines: Vec::new(),
            stashed: None,
            single: Vec::new(),
            single_lines: Vec::new(),
            record_line: 0,
            bytes_done: 0,
            total_bytes: None,
            skipped: (0, 0),
            done: false,
            failed: false,
            threads,
        })
    }

    /// The next chunk in file order (blocking).
    fn next_chunk(&mut self) -> Result<ChunkResult> {
        loop {
            if let Some(c) = self.pending.remove(&self.next_seq) {
                self.next_seq += 1;
                return Ok(c);
            }
            let rx = &self
                .channels
                .as_ref()
                .ok_or_else(|| Error::Source("text source closed".into()))?
                .0;
            match rx.recv() {
                Ok(c) => {
                    self.pending.insert(c.seq, c);
                }
                Err(_) => {
                    return Err(Error::Source(
                        "a text parser thread stopped unexpectedly".into(),
                    ))
                }
            }
        }
    }

    /// Define categories and encode deferred info in file order; the
    /// records before the first failure stay, the error is returned.
    fn complete(&mut self, ch: &mut ChunkResult) -> Option<Error> {
        let (buf, recs, _, deferred) = &mut ch.bufs;
        let mut d = deferred.iter().peekable();
        for (i, rec) in recs.iter_mut().enumerate() {
            while let Some(di) = d.next_if(|di| di.record as usize == i) {
                match self.formats.encode(&self.name, buf, di) {
                    Ok(b) => place(rec, di.target, b),
                    Err(e) => {
                        recs.truncate(i);
                        return Some(e);
                    }
                }
            }
            if let Record::Category(c) = rec {
                self.formats.define(c);
            }
        }
        let e = ch.error.take()?;
        // Info of the record the parser stopped in comes before its error.
        for di in d {
            if let Err(e) = self.formats.encode(&self.name, buf, di) {
                return Some(e);
            }
        }
        Some(e)
    }
}

/// Put encoded info where it belongs in the record.
fn place(rec: &mut Record, target: u32, bytes: InfoBytes) {
    match (rec, target) {
        (Record::Primitive(p), 0) => p.primitive.info = bytes,
        (Record::Composite(c), 0) => c.composite.info = bytes,
        (Record::Composite(c), k) => {
            if let Some(m) = c.composite.members.get_mut(k as usize - 1) {
                m.info = bytes;
            }
        }
        _ => {}
    }
}

impl TraceSource for ParallelTextSource {
    fn skipped(&self) -> Option<String> {
        crate::trace::text::skipped_message(self.skipped.0, &self.name, self.skipped.1)
    }

    fn next_record(&mut self) -> Result<Option<Record>> {
        if self.single.is_empty() {
            let mut batch = Vec::new();
            self.next_records(&mut batch)?;
            batch.reverse();
            self.single = batch;
            self.single_lines.clear();
            self.single_lines.extend(self.lines.iter().rev());
        }
        let r = self.single.pop();
        if let Some(l) = self.single_lines.pop() {
            self.record_line = l;
        }
        Ok(r)
    }

    fn next_records(&mut self, out: &mut Vec<Record>) -> Result<()> {
        out.clear();
        if let Some(e) = self.stashed.take() {
            self.failed = true;
            return Err(e);
        }
        if self.failed {
            return Err(Error::Source(
                "the text source stopped at an earlier error".into(),
            ));
        }
        while !self.done {
            let mut ch = match self.next_chunk() {
                Ok(c) => c,
                Err(e) => {
                    self.failed = true;
                    return Err(e);
                }
            };
            if ch.end {
                self.done = true;
                break;
            }
            self.bytes_done += ch.bufs.0.len() as u64;
            if ch.skipped.0 > 0 {
                if self.skipped.0 == 0 {
                    self.skipped.1 = ch.skipped.1;
                }
                self.skipped.0 += ch.skipped.0;
            }
            let err = self.complete(&mut ch);
            let (_, recs, lines, _) = &mut ch.bufs;
            lines.truncate(recs.len());
            std::mem::swap(out, recs);
            std::mem::swap(&mut self.lines, lines);
            if let Some((_, back)) = &self.channels {
                let _ = back.try_send(ch.bufs);
            }
            if let Some(e) = err {
                if out.is_empty() {
                    self.failed = true;
                    return Err(e);
                }
                self.stashed = Some(e);
            }
            if let Some(l) = self.lines.last() {
                self.record_line = *l;
            }
            if !out.is_empty() {
                break;
            }
        }
        Ok(())
    }

    fn location(&self) -> String {
        format!("{}:{}", self.name, self.record_line)
    }

    fn location_of(&self, i: usize) -> String {
        match self.lines.get(i) {
            Some(l) => format!("{}:{}", self.name, l),
            None => self.location(),
        }
    }

    /// A composite's members are the lines right after its header line.
    fn member_location(&self, i: usize, member: usize) -> String {
        let line = self.lines.get(i).copied().unwrap_or(self.record_line);
        format!("{}:{}", self.name, line + 1 + member)
    }

    fn progress(&self) -> Option<f64> {
        self.total_bytes
            .filter(|t| *t > 0)
            .map(|t| (self.bytes_done as f64 / t as f64).min(1.0))
    }
}

impl Drop for ParallelTextSource {
    fn drop(&mut self) {
        // Closing the channels unblocks every thread (see `Reader::run`).
        self.channels = None;
        self.pending.clear();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// A worker: parse chunks until the work queue closes.
fn parse_chunks(name: &str, rx: &Mutex<Receiver<Work>>, tx: &SyncSender<ChunkResult>) {
    let mut parser = ChunkParser::new(name);
    loop {
        let work = match rx.lock() {
            Ok(g) => g.recv(),
            Err(p) => p.into_inner().recv(),
        };
        let Ok(w) = work else { return };
        let seq = w.seq;
        let run =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| parse_chunk(&mut parser, w)));
        let result = match run {
            Ok(r) => r,
            Err(_) => {
                parser = ChunkParser::new(name);
                ChunkResult::failed(
                    seq,
                    Error::Source(format!(
                        "internal error: the parser panicked in chunk {seq}"
                    )),
                )
            }
        };
        if tx.send(result).is_err() {
            return;
        }
    }
}

fn parse_chunk(parser: &mut ChunkParser, w: Work) -> ChunkResult {
    let (buf, mut recs, mut lines, mut deferred) = w.bufs;
    recs.clear();
    lines.clear();
    deferred.clear();
    let (buf, error) = parser.parse(buf, w.first_line, &mut recs, &mut lines, &mut deferred);
    ChunkResult {
        seq: w.seq,
        bufs: (buf, recs, lines, deferred),
        error,
        end: false,
        skipped: parser.skipped(),
    }
}

/// The reading thread: cuts the input into numbered chunks.
struct Reader {
    src: Box<dyn Read + Send>,
    path: PathBuf,
    chunk: usize,
    eof: bool,
}

impl Reader {
    fn run(
        mut self,
        pool: usize,
        work: &SyncSender<Work>,
        results: &SyncSender<ChunkResult>,
        back: &Receiver<Buffers>,
    ) {
        let mut allocated = 0;
        let mut carry: Vec<u8> = Vec::new();
        let mut seq = 0u64;
        let mut line = 1usize;
        loop {
            if self.eof && carry.is_empty() {
                break;
            }
            let mut bufs: Buffers = if allocated < pool {
                allocated += 1;
                (
                    Vec::with_capacity(self.chunk + self.chunk / 4),
                    Vec::new(),
                    Vec::new(),
                    Vec::new(),
                )
            } else {
                match back.recv() {
                    Ok(b) => b,
                    Err(_) => return,
                }
            };
            let buf = &mut bufs.0;
            buf.clear();
            buf.append(&mut carry);
            let cut = match self.cut(buf) {
                Ok(c) => c,
                Err(e) => {
                    let e = if crate::trace::text::LineTooLong::is(&e) {
                        // The same error as the sequential parser's.
                        Error::Parse {
                            loc: crate::error::TextLocation {
                                file: self.path.display().to_string(),
                                line: line + memchr::memchr_iter(b'\n', buf).count(),
                                column: 1,
                            },
                            detail: e.to_string(),
                        }
                    } else {
                        Error::io(&self.path, e)
                    };
                    let _ = results.send(ChunkResult::failed(seq, e));
                    return;
                }
            };
            carry.extend_from_slice(&buf[cut..]);
            buf.truncate(cut);
            if buf.is_empty() {
                break;
            }
            let mut lines = memchr::memchr_iter(b'\n', buf).count();
            if buf.last() != Some(&b'\n') {
                lines += 1;
            }
            let first_line = line;
            line += lines;
            if work
                .send(Work {
                    seq,
                    first_line,
                    bufs,
                })
                .is_err()
            {
                return;
            }
            seq += 1;
        }
        let _ = results.send(ChunkResult {
            seq,
            bufs: Default::default(),
            error: None,
            end: true,
            skipped: (0, 0),
        });
    }

    /// Read until `buf` holds at least `want` bytes or the input ends.
    fn fill(&mut self, buf: &mut Vec<u8>, want: usize) -> std::io::Result<()> {
        while buf.len() < want && !self.eof {
            let need = (want - buf.len()) as u64;
            // `read_to_end` reads into spare capacity without zeroing it.
            let n = loop {
                match (&mut self.src).take(need).read_to_end(buf) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                }
            };
            self.eof = n == 0;
        }
        Ok(())
    }

    /// Fill `buf` to a chunk and choose where it ends: after a line end, and
    /// after the member lines of a composite whose header is in the chunk.
    fn cut(&mut self, buf: &mut Vec<u8>) -> std::io::Result<usize> {
        self.fill(buf, self.chunk)?;
        let mut cut = loop {
            if let Some(i) = memchr::memrchr(b'\n', buf) {
                break i + 1;
            }
            if self.eof {
                return Ok(buf.len());
            }
            // A line longer than a chunk (held to the sequential
            // parser's limit).
            if buf.len() >= crate::trace::text::MAX_LINE {
                return Err(crate::trace::text::LineTooLong::io());
            }
            let want = buf.len() + self.chunk;
            self.fill(buf, want)?;
        };
        if self.eof && cut < buf.len() {
            // The last line has no line end.
            cut = buf.len();
        }
        self.whole_composite(buf, &mut cut)?;
        Ok(cut)
    }

    /// Move `cut` past the member lines of the last composite header before
    /// it (reading more if needed). The members end early at the first line
    /// that is not a `Primitive` line — included, so that the chunk's parser
    /// reports it exactly as a sequential parse would.
    fn whole_composite(&mut self, buf: &mut Vec<u8>, cut: &mut usize) -> std::io::Result<()> {
        let region = &buf[..*cut];
        let h = match memchr::memmem::rfind(region, b"\nComposite") {
            Some(i) => i + 1,
            None if region.starts_with(b"Composite") => 0,
            None => return Ok(()),
        };
        let Some(hend) = memchr::memchr(b'\n', &region[h..]).map(|k| h + k) else {
            return Ok(());
        };
        let header = &region[h..hend];
        let header = header.strip_suffix(b"\r").unwrap_or(header);
        let Some(n) = composite_member_count(header) else {
            return Ok(());
        };
        let mut p = hend + 1;
        let mut k = 0;
        while k < n {
            let end = loop {
                if let Some(j) = memchr::memchr(b'\n', &buf[p..]) {
                    break Some(p + j);
                }
                if self.eof {
                    break None;
                }
                if buf.len() - p >= crate::trace::text::MAX_LINE {
                    return Err(crate::trace::text::LineTooLong::io());
                }
                let want = buf.len() + self.chunk;
                self.fill(buf, want)?;
            };
            let Some(end) = end else {
                // The input ends inside the composite.
                *cut = buf.len();
                return Ok(());
            };
            let member = buf[p..end].starts_with(b"Primitive");
            p = end + 1;
            k += 1;
            if !member {
                break;
            }
        }
        *cut = (*cut).max(p);
        Ok(())
    }
}
