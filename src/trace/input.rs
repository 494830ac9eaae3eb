//! Opening an input: one handle, sniffed once, never read twice.
//!
//! Every command that takes a trace (`convert`, `print`, the C `TRACE_Open`,
//! Python's `slog2.trace.open`, the JVM's `InputLog`) comes through [`open`]:
//!
//! 1. A directory is an OTF2 archive (it holds `traces.otf2`) or an error; a
//!    path that does not exist is an I/O error naming it (not "plugin
//!    missing" for a `*.otf2` name), before any reader is looked for.
//! 2. The file is opened **once**, and its first bytes are read from that
//!    handle. A pipe or a FIFO cannot be reopened or rewound, so whatever
//!    reader takes the input gets the sniffed bytes handed back in front of
//!    the rest of the stream ([`Input::into_reader`]). (Opening the path a
//!    second time lost the first record of a piped text trace and the first
//!    5 bytes of a piped CLOG2 log.)
//! 3. A gzip stream (`1f 8b`, whatever the file is called, on a pipe too) is
//!    decompressed as it is read (`flate2`'s multi-member decoder, as `zcat`
//!    reads concatenated members): no temporary file, memory bounded by the
//!    decoder's window. The format is then sniffed from the decompressed
//!    bytes.
//! 4. The format: SLOG-2 (its version string), CLOG2 (`CLOG-`), an OTF2
//!    anchor (a `.otf2` name or `OTF2` at byte 2, regular files only: an
//!    archive is many files), known binary formats and anything holding NUL
//!    bytes (an error that says what the file is, instead of the text
//!    parser's "no record" warnings), else the sample text format.
//!
//! What reads in place: a regular, uncompressed file ([`Input::in_place`])
//! may be memory-mapped (SLOG-2, CLOG2), reopened by path (the parallel text
//! parser, OTF2) and rewound (text checkpoints). Anything else streams.

use std::io::{Cursor, Read};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The formats [`open`] recognises.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// An SLOG-2 file (starts with its version string).
    Slog2,
    /// An MPE CLOG2 log (starts with `CLOG-`).
    Clog2,
    /// An OTF2 archive: its anchor file or its directory.
    Otf2,
    /// The slog2sdk sample text format (the default).
    Text,
}

/// How many bytes are sniffed at least (the longest magic: SLOG-2's 8).
const SNIFF_MIN: usize = 8;
/// At most this many bytes are looked at for NUL bytes: what the first
/// reads bring, without waiting for more from a slow pipe.
const SNIFF_MAX: usize = 4096;
/// Compressed bytes read at a time from a gzip input.
const GZ_READ: usize = 256 << 10;

/// An opened, sniffed input. See the module documentation.
pub struct Input {
    path: PathBuf,
    format: Format,
    regular: bool,
    gzip: bool,
    /// The sniffed bytes (decompressed when `gzip`), then the rest.
    reader: Stream,
}

/// What an [`Input`] reads from: its one handle (the sniffed bytes in
/// front), or the inflating thread's chunks.
pub(crate) enum Stream {
    Plain(Box<dyn Read + Send>),
    Inflating(Inflating),
}

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Input")
            .field("path", &self.path)
            .field("format", &self.format)
            .field("regular", &self.regular)
            .field("gzip", &self.gzip)
            .finish()
    }
}

impl Input {
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The path as messages name it.
    pub fn name(&self) -> String {
        self.path.display().to_string()
    }

    pub fn format(&self) -> Format {
        self.format
    }

    /// The input is gzip-compressed (and read through the decoder).
    pub fn gzip(&self) -> bool {
        self.gzip
    }

    /// A regular file read as it lies (not decompressed): it may be
    /// memory-mapped, reopened by its path and rewound.
    pub fn in_place(&self) -> bool {
        self.regular && !self.gzip
    }

    /// The whole (decompressed) stream from its first byte: the sniffed
    /// bytes, then the rest of the one handle that was opened.
    pub fn into_reader(self) -> Box<dyn Read + Send> {
        match self.reader {
            Stream::Plain(r) => r,
            Stream::Inflating(r) => Box::new(r),
        }
    }

    /// The same stream, a gzip one as the inflating thread's chunks
    /// (handed over, not copied: [`Inflating::refill`]).
    pub(crate) fn into_stream(self) -> Stream {
        self.reader
    }
}

/// A decompressor run on a thread of its own, a few chunks ahead of its
/// reader. Why: inflating is a third of a text conversion's work (a 186 MB
/// trace: 0.2 s of 0.33 s CPU) and the converter keeps about one of two
/// cores busy, so inflating beside the parser instead of in front of it
/// takes most of it off the wall clock (BENCHMARKS.md: gzip inputs). Memory:
/// [`Inflating::AHEAD`] + 2 chunks of [`Inflating::CHUNK`] bytes (queued,
/// being filled, being parsed).
///
/// The text parser takes the chunks themselves ([`Inflating::refill`]):
/// each is inflated [`Inflating::HEAD`] bytes in, so the start of a line cut
/// by the chunk's edge is copied in front of it and nothing else is copied
/// (copying every inflated byte into the parser's buffer was 8 % of the
/// parsing thread's instructions). Other readers copy out ([`Read`]).
pub(crate) struct Inflating {
    rx: std::sync::mpsc::Receiver<std::io::Result<Vec<u8>>>,
    /// Empty chunks go back for reuse.
    back: std::sync::mpsc::Sender<Vec<u8>>,
    /// The chunk [`Read`] copies from (its bytes from `HEAD` on).
    cur: Vec<u8>,
    pos: usize,
    done: bool,
    /// The inflating thread's CPU seconds so far (`f64` bits).
    cpu: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl Inflating {
    /// 4 MiB ahead in chunks of 256 KiB: the same CPU as 4 of 1 MiB,
    /// 1.7 MB less peak memory (BENCHMARKS.md: gzip inputs).
    const CHUNK: usize = 256 << 10;
    const AHEAD: usize = 16;
    /// Room in front of each chunk for the partial line before it (longer
    /// ones are joined by copying, as a line over a buffer's edge always was).
    pub(crate) const HEAD: usize = 4096;

    /// Inflate `src` on a new thread; `first` (bytes already read from
    /// it) comes first.
    fn start(first: Vec<u8>, src: Box<dyn Read + Send>) -> Inflating {
        Self::start_sized(first, src, Self::CHUNK)
    }

    pub(crate) fn start_sized(
        first: Vec<u8>,
        mut src: Box<dyn Read + Send>,
        chunk: usize,
    ) -> Inflating {
        let (tx, rx) = std::sync::mpsc::sync_channel::<std::io::Result<Vec<u8>>>(Self::AHEAD);
        let (back, spare) = std::sync::mpsc::channel::<Vec<u8>>();
        let mut first = Some(first);
        let mut made = 0;
        let cpu = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let cpu_out = std::sync::Arc::clone(&cpu);
        let spawned = std::thread::Builder::new()
            .name("inflate".into())
            .spawn(move || {
                run_in_gaps();
                loop {
                    // At most `AHEAD + 2` chunks: queued, filling, parsed. A
                    // reused chunk keeps its length: nothing to zero.
                    let mut buf = match spare.try_recv() {
                        Ok(b) => b,
                        Err(_) if made < Self::AHEAD + 2 => {
                            made += 1;
                            Vec::new()
                        }
                        Err(_) => match spare.recv() {
                            Ok(b) => b,
                            // The reader went away.
                            Err(_) => return,
                        },
                    };
                    buf.resize(Self::HEAD + chunk, 0);
                    let mut n = Self::HEAD;
                    if let Some(f) = first.take() {
                        // (At most `SNIFF_MAX` bytes, less than a chunk.)
                        buf.truncate(n);
                        buf.extend_from_slice(&f);
                        n = buf.len();
                        buf.resize(n.max(Self::HEAD + chunk), 0);
                    }
                    let r = loop {
                        if n == buf.len() {
                            break Ok(());
                        }
                        match src.read(&mut buf[n..]) {
                            Ok(0) => break Ok(()),
                            Ok(k) => n += k,
                            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                            Err(e) => break Err(e),
                        }
                    };
                    buf.truncate(n);
                    let secs = crate::cputime::thread_cpu_seconds();
                    cpu_out.store(secs.to_bits(), std::sync::atomic::Ordering::Relaxed);
                    // The bytes before an error come first; an empty chunk
                    // marks the end. The reader went away: stop.
                    let end = n == Self::HEAD;
                    if (!end || r.is_ok()) && tx.send(Ok(buf)).is_err() {
                        return;
                    }
                    if let Err(e) = r {
                        let _ = tx.send(Err(e));
                        return;
                    }
                    if end {
                        return;
                    }
                }
            });
        let rx = match spawned {
            Ok(_) => rx,
            Err(e) => {
                let (tx, rx) = std::sync::mpsc::sync_channel(1);
                let _ = tx.send(Err(e));
                rx
            }
        };
        Inflating {
            rx,
            back,
            cur: Vec::new(),
            pos: 0,
            done: false,
            cpu,
        }
    }

    /// CPU seconds the inflating thread has used (as of its last chunk).
    pub(crate) fn cpu_seconds(&self) -> f64 {
        f64::from_bits(self.cpu.load(std::sync::atomic::Ordering::Relaxed))
    }

    /// The next chunk (its bytes from `HEAD` on), `None` at the end.
    fn next(&mut self) -> std::io::Result<Option<Vec<u8>>> {
        if self.done {
            return Ok(None);
        }
        match self.rx.recv() {
            Ok(Ok(next)) if next.len() > Self::HEAD => Ok(Some(next)),
            Ok(Ok(_)) => {
                self.done = true;
                Ok(None)
            }
            Ok(Err(e)) => {
                self.done = true;
                Err(e)
            }
            // Gone without its end marker (it panicked): not a short input.
            Err(_) => {
                self.done = true;
                Err(std::io::Error::other("the inflating thread stopped"))
            }
        }
    }

    /// An emptied chunk goes back for reuse; one that grew far beyond a
    /// chunk (it held a long line) goes back as an empty one, to be made
    /// anew. (The reader's first, empty buffer is none of the thread's.)
    fn give_back(&self, mut buf: Vec<u8>) {
        if buf.capacity() == 0 {
            return;
        }
        if buf.capacity() > 2 * (Self::HEAD + Self::CHUNK) {
            buf = Vec::new();
        }
        let _ = self.back.send(buf);
    }

    /// Hand the next chunk over in place of `buf`, whose unread bytes
    /// `buf[*pos..*len]` (the start of a line) go in front of the new ones:
    /// afterwards `buf[*pos..*len]` holds them followed by the new bytes.
    /// Returns how many bytes are new (0 at the end: `buf` unchanged).
    pub(crate) fn refill(
        &mut self,
        buf: &mut Vec<u8>,
        pos: &mut usize,
        len: &mut usize,
    ) -> std::io::Result<usize> {
        // Bytes a `Read` call left in the current chunk come first.
        let mut next = if self.pos < self.cur.len() {
            let mut c = std::mem::take(&mut self.cur);
            c.drain(Self::HEAD..self.pos);
            self.pos = 0;
            c
        } else {
            match self.next()? {
                Some(c) => c,
                None => return Ok(0),
            }
        };
        let new = next.len() - Self::HEAD;
        let kept = *len - *pos;
        if kept <= Self::HEAD {
            let at = Self::HEAD - kept;
            next[at..Self::HEAD].copy_from_slice(&buf[*pos..*len]);
            let old = std::mem::replace(buf, next);
            self.give_back(old);
            *pos = at;
        } else {
            // A long partial line: join by copying.
            buf.truncate(*len);
            buf.drain(..*pos);
            buf.extend_from_slice(&next[Self::HEAD..]);
            self.give_back(next);
            *pos = 0;
        }
        *len = buf.len();
        Ok(new)
    }
}

impl Read for Inflating {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        while self.pos >= self.cur.len() {
            match self.next()? {
                Some(next) => {
                    let old = std::mem::replace(&mut self.cur, next);
                    self.give_back(old);
                    self.pos = Self::HEAD;
                }
                None => return Ok(0),
            }
        }
        let n = out.len().min(self.cur.len() - self.pos);
        out[..n].copy_from_slice(&self.cur[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// Let the inflating thread run in the gaps of the parsing thread, the one
/// that sets the conversion's pace: as `SCHED_BATCH` (Linux), it does not
/// preempt a running thread when a chunk frees up and it wakes (it has
/// 4 MiB of slack), but takes its turn at the next tick or on a core left
/// idle. Its share of the CPU is unchanged (same weight), so a busy machine
/// cannot starve it. Where this is unavailable nothing changes.
fn run_in_gaps() {
    #[cfg(target_os = "linux")]
    {
        let p = libc::sched_param { sched_priority: 0 };
        // SAFETY: pid 0 is the calling thread; `p` is a valid sched_param.
        // A failure leaves the thread as it was.
        let _ = unsafe { libc::sched_setscheduler(0, libc::SCHED_BATCH, &p) };
    }
}

/// Read until `buf` holds at least `min` bytes (or the stream ends), then
/// take whatever else the reads brought, up to `max`.
fn sniff(r: &mut dyn Read, min: usize, max: usize) -> std::io::Result<Vec<u8>> {
    let mut head = vec![0u8; max];
    let mut n = 0;
    while n < min {
        match r.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    head.truncate(n);
    Ok(head)
}

/// What a binary file that is no trace is, from its first bytes (for the
/// error message), or `None` when it may be text.
pub fn binary_kind(head: &[u8]) -> Option<&'static str> {
    const MAGICS: &[(&[u8], &str)] = &[
        (b"\x7fELF", "an ELF executable or library"),
        (b"PK\x03\x04", "a zip archive"),
        (b"BZh", "bzip2-compressed data (decompress it first: bzcat FILE | slog2 convert /dev/stdin -o OUT)"),
        (b"\xfd7zXZ\x00", "xz-compressed data (decompress it first: xzcat FILE | slog2 convert /dev/stdin -o OUT)"),
        (b"\x28\xb5\x2f\xfd", "zstd-compressed data (decompress it first: zstdcat FILE | slog2 convert /dev/stdin -o OUT)"),
        (b"%PDF", "a PDF document"),
        (b"\x89PNG", "a PNG image"),
    ];
    for (m, what) in MAGICS {
        if head.starts_with(m) {
            return Some(what);
        }
    }
    if head.contains(&0) {
        return Some("binary data (it holds NUL bytes), not a text trace");
    }
    None
}

fn not_a_trace(path: &Path, what: &str, head: &[u8]) -> Error {
    let shown: String = head
        .iter()
        .take(16)
        .flat_map(|c| c.escape_ascii())
        .map(char::from)
        .collect();
    Error::Unsupported(format!(
        "{} is {what}: no trace format slog2 reads (SLOG-2, CLOG2, OTF2, the sample text format, \
         gzip of these); it starts with \"{shown}\"",
        path.display()
    ))
}

/// Open `path` and sniff its format (see the module documentation).
pub fn open(path: &Path) -> Result<Input> {
    if path.is_dir() {
        if crate::trace::plugin::is_otf2(path) {
            return Ok(Input {
                path: path.to_path_buf(),
                format: Format::Otf2,
                regular: false,
                gzip: false,
                reader: Stream::Plain(Box::new(std::io::empty())),
            });
        }
        return Err(Error::io(
            path,
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "is a directory (and not an OTF2 archive: it holds no traces.otf2)",
            ),
        ));
    }
    let mut f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let regular = f.metadata().is_ok_and(|m| m.is_file());
    let head = sniff(&mut f, SNIFF_MIN, SNIFF_MAX).map_err(|e| Error::io(path, e))?;
    let raw: Box<dyn Read + Send> = Box::new(Cursor::new(head.clone()).chain(f));
    let (head, reader, gzip) = if head.starts_with(&[0x1f, 0x8b]) {
        // Compressed bytes in large reads: each inflate call then fills
        // most of a chunk, and the decoder copies its 32 KiB window once
        // per call (17 % more copying with flate2's 32 KiB default).
        let raw = std::io::BufReader::with_capacity(GZ_READ, raw);
        let mut dec: Box<dyn Read + Send> = Box::new(flate2::bufread::MultiGzDecoder::new(raw));
        let inner = sniff(&mut dec, SNIFF_MIN, SNIFF_MAX).map_err(|e| {
            Error::io(
                path,
                std::io::Error::new(e.kind(), format!("gzip stream: {e}")),
            )
        })?;
        (inner, dec, true)
    } else {
        (head, raw, false)
    };
    let format = if head.starts_with(crate::trace::slog2::MAGIC) {
        Format::Slog2
    } else if crate::trace::clog2::looks_like_bytes(&head) {
        Format::Clog2
    } else if head.len() >= 6 && &head[2..6] == b"OTF2"
        || (regular && !gzip && path.extension().is_some_and(|e| e == "otf2"))
    {
        if !regular || gzip {
            return Err(Error::Unsupported(format!(
                "{} is an OTF2 anchor file on a pipe or compressed: an OTF2 archive is many files; \
                 give the path of its anchor (.otf2) or of its directory",
                path.display()
            )));
        }
        Format::Otf2
    } else if let Some(what) = binary_kind(&head) {
        return Err(not_a_trace(path, what, &head));
    } else {
        Format::Text
    };
    // The sniffed bytes go back in front of the rest of the stream; a gzip
    // stream is inflated on a thread of its own, ahead of the parser.
    let reader = if gzip {
        Stream::Inflating(Inflating::start(head, reader))
    } else {
        Stream::Plain(reader)
    };
    Ok(Input {
        path: path.to_path_buf(),
        format,
        regular,
        gzip,
        reader,
    })
}

/// Print an input the way its reference printer does: an SLOG-2 file as
/// `slog2printserial`, a CLOG2 log as `clog2print` (from a pipe or gzip too).
/// Errors writing `w` are I/O errors naming `path`.
pub fn print(path: &Path, w: &mut dyn std::io::Write) -> Result<()> {
    let inp = open(path)?;
    let out = |e| Error::io(path, e);
    match inp.format() {
        Format::Clog2 => {
            let len = if inp.in_place() {
                std::fs::metadata(path).ok().map(|m| m.len())
            } else {
                None
            };
            crate::trace::clog2::print::print(inp.into_reader(), len, w)
        }
        Format::Slog2 => {
            let f = if inp.in_place() {
                crate::read::Slog2File::open(path)?
            } else {
                crate::read::Slog2File::read_from(inp.into_reader(), path)?
            };
            crate::read::print::print(&f, &mut *w).map_err(out)
        }
        Format::Text | Format::Otf2 => Err(Error::Unsupported(format!(
            "{} is {}: `print` shows SLOG-2 files and CLOG2 logs; convert it first (slog2 convert {} -o OUT.slog2)",
            path.display(),
            if inp.format() == Format::Text {
                "a text trace (or no trace at all)"
            } else {
                "an OTF2 archive"
            },
            path.display()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gz(bytes: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn sniffed_bytes_come_back_for_every_format() {
        let dir = tempfile::tempdir().unwrap();
        let cases: [(&[u8], Format); 3] = [
            (b"\x00\x0aSLOG 2.0.6 and more bytes", Format::Slog2),
            (b"CLOG-02.44 and more", Format::Clog2),
            (b"Category[ index=0 name=x ]\n", Format::Text),
        ];
        for (i, (bytes, fmt)) in cases.iter().enumerate() {
            for zipped in [false, true] {
                let p = dir.path().join(format!("f{i}{zipped}"));
                std::fs::write(&p, if zipped { gz(bytes) } else { bytes.to_vec() }).unwrap();
                let inp = open(&p).unwrap();
                assert_eq!(inp.format(), *fmt);
                assert_eq!(inp.gzip(), zipped);
                assert_eq!(inp.in_place(), !zipped);
                let mut all = Vec::new();
                inp.into_reader().read_to_end(&mut all).unwrap();
                assert_eq!(all, *bytes);
            }
        }
    }

    #[test]
    fn binary_files_say_what_they_are() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.out");
        std::fs::write(&p, b"\x7fELF\x02\x01\x01\x00rest").unwrap();
        let e = open(&p).unwrap_err().to_string();
        assert!(e.contains("an ELF executable"), "{e}");
        assert!(e.contains("a.out"), "{e}");
        std::fs::write(&p, b"abc\x00def").unwrap();
        let e = open(&p).unwrap_err().to_string();
        assert!(e.contains("NUL bytes"), "{e}");
    }

    #[test]
    fn missing_files_are_named_whatever_their_extension() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["missing.otf2", "missing.txt", "missing.clog2"] {
            let p = dir.path().join(name);
            let e = open(&p).unwrap_err();
            assert_eq!(e.kind(), crate::ErrorKind::Io);
            assert!(e.to_string().contains(name), "{e}");
            assert!(!e.to_string().contains("plugin"), "{e}");
        }
    }
}
