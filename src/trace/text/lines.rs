//! Lines of the input inside one growable buffer, read in large chunks
//! (no per-line allocation); a seekable input can go back to a checkpoint.
//! A source that fills buffers of its own (the gzip inflating thread)
//! hands them over instead ([`Input::refill`]): the buffer is then its
//! chunk, with the partial line before it copied in front.

use std::io::Read;
use std::ops::Range;

/// A text trace's lines are shorter than this: 16 MiB. No record of the format
/// comes near it: a primitive holds at most 32,767 vertices (about 40
/// characters each with the longest shortest-round-trip double) and 32,767
/// info bytes (at most ~3 characters of text per byte), about 1.5 MB in
/// all; a category's name and label are at most 32,767 bytes each. The
/// limit is checked while the line is read, so a file without line ends
/// (`/dev/zero`, a binary file, a 1 GB record) stops at 16 MiB of memory
/// instead of growing with the input. Comment lines are held to it too, so
/// that both parsers (sequential and [`crate::trace::text_par`]) give the
/// same answer.
pub const MAX_LINE: usize = 16 << 20;

/// The error [`Lines::next`] gives for a line over [`MAX_LINE`] (the parser
/// turns it into a parse error at that line).
#[derive(Debug)]
pub(crate) struct LineTooLong;

impl std::fmt::Display for LineTooLong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the line is longer than {} MiB without a line end: no record of the text format is that long \
             (is this a text trace?)",
            MAX_LINE >> 20
        )
    }
}

impl std::error::Error for LineTooLong {}

impl LineTooLong {
    pub(crate) fn io() -> std::io::Error {
        std::io::Error::new(std::io::ErrorKind::InvalidData, LineTooLong)
    }

    /// Is `e` this error?
    pub(crate) fn is(e: &std::io::Error) -> bool {
        e.get_ref().is_some_and(|i| i.is::<LineTooLong>())
    }
}

/// Splits a reader into lines inside one growable buffer: a line is handed
/// out as a range of `buf`, valid until the next call. The unconsumed input
/// is also open to the whole-line fast path ([`window_line`]), which finds the
/// end of a line by parsing it, so most lines are never searched for their
/// newline.
pub(super) struct Lines {
    pub(super) src: Box<dyn Input>,
    /// Bytes read from `src` so far (tests check that a seek reads from
    /// the checkpoint, not from the start).
    pub(super) fetched: u64,
    pub(super) buf: Vec<u8>,
    /// Start of the unconsumed data.
    pub(super) pos: usize,
    /// End of the valid data.
    pub(super) len: usize,
    /// `buf[pos..scanned]` is known to hold no newline (a partial line).
    pub(super) scanned: usize,
    pub(super) eof: bool,
}

impl Lines {
    const CHUNK: usize = 1 << 18;

    pub(super) fn new(src: Box<dyn Input>) -> Self {
        Lines {
            src,
            fetched: 0,
            buf: vec![0; Self::CHUNK],
            pos: 0,
            len: 0,
            scanned: 0,
            eof: false,
        }
    }

    /// Lines of a buffer holding the whole input.
    pub(super) fn from_vec(buf: Vec<u8>) -> Self {
        Lines {
            src: Box::new(Plain(std::io::empty())),
            fetched: 0,
            len: buf.len(),
            buf,
            pos: 0,
            scanned: 0,
            eof: true,
        }
    }

    /// The unconsumed input in the buffer (whole lines and perhaps the
    /// start of one more).
    #[inline(always)]
    pub(super) fn rest(&self) -> &[u8] {
        &self.buf[self.pos..self.len]
    }

    /// The next line without its line end (`\n` or `\r\n`), and the bytes
    /// it used up.
    pub(super) fn next(&mut self) -> std::io::Result<Option<(Range<usize>, usize)>> {
        loop {
            let from = self.scanned.max(self.pos);
            let found = memchr::memchr(b'\n', &self.buf[from..self.len]).map(|k| from + k);
            let (nl, next) = match found {
                Some(nl) => (nl, nl + 1),
                None if self.eof => {
                    if self.pos == self.len {
                        return Ok(None);
                    }
                    // The last line, without a line end.
                    (self.len, self.len)
                }
                None => {
                    if self.len - self.pos >= MAX_LINE {
                        return Err(LineTooLong::io());
                    }
                    self.scanned = self.len;
                    self.fill()?;
                    continue;
                }
            };
            let st = self.pos;
            self.pos = next;
            let end = if nl > st && self.buf[nl - 1] == b'\r' {
                nl - 1
            } else {
                nl
            };
            return Ok(Some((st..end, next - st)));
        }
    }

    /// Move the partial line at `pos` to the front, grow the buffer if it
    /// is mostly full, and read more; or take the source's next buffer
    /// with the partial line in front ([`Input::refill`]).
    pub(super) fn fill(&mut self) -> std::io::Result<()> {
        let (old_pos, old_len) = (self.pos, self.len);
        if let Some(r) = self.src.refill(&mut self.buf, &mut self.pos, &mut self.len) {
            let n = r?;
            if n > 0 {
                self.scanned = self.pos + (self.scanned.max(old_pos) - old_pos);
            }
            debug_assert_eq!(self.len - self.pos, old_len - old_pos + n);
            self.fetched += n as u64;
            self.eof = n == 0;
            return Ok(());
        }
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.len, 0);
            self.len -= self.pos;
            self.scanned -= self.pos.min(self.scanned);
            self.pos = 0;
        }
        if self.buf.len() - self.len < Self::CHUNK / 2 {
            self.buf.resize(self.buf.len() * 2, 0);
        }
        let n = loop {
            match self.src.read(&mut self.buf[self.len..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        self.len += n;
        self.fetched += n as u64;
        self.eof = n == 0;
        Ok(())
    }

    /// Go on reading at byte `offset` of the input, with an empty buffer;
    /// `None` when the input cannot seek.
    pub(super) fn seek(&mut self, offset: u64) -> Option<std::io::Result<()>> {
        let r = self.src.seek_to(offset)?;
        self.pos = 0;
        self.len = 0;
        self.scanned = 0;
        self.eof = false;
        Some(r)
    }
}

/// What a [`TextSource`] reads from: any reader, and a seekable one (a file,
/// a buffer in memory) can also go back to a checkpoint.
pub(super) trait Input: Read + Send {
    /// A source that fills buffers of its own hands the next one over in
    /// place of `buf`, with `buf[*pos..*len]` (the partial line) in front
    /// of the new bytes; returns how many are new (0: the end). `None`: it
    /// cannot, [`Read`] from it instead.
    fn refill(
        &mut self,
        buf: &mut Vec<u8>,
        pos: &mut usize,
        len: &mut usize,
    ) -> Option<std::io::Result<usize>> {
        let _ = (buf, pos, len);
        None
    }
    /// CPU seconds of a thread of its own that fills the buffers.
    fn cpu_seconds(&self) -> Option<f64> {
        None
    }
    /// Go to byte `offset` from the start; `None` when it cannot.
    fn seek_to(&mut self, offset: u64) -> Option<std::io::Result<()>> {
        let _ = offset;
        None
    }
    fn can_seek(&self) -> bool {
        false
    }
}

/// A reader that cannot seek (a pipe, a stream).
pub(super) struct Plain<R>(pub R);

impl<R: Read> Read for Plain<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0.read(buf)
    }
}

impl<R: Read + Send> Input for Plain<R> {}

/// A gzip input inflated on a thread of its own: its chunks become the
/// parser's buffer in turn, instead of being copied into it.
pub(super) struct HandedOver(pub crate::trace::input::Inflating);

impl Read for HandedOver {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0.read(buf)
    }
}

impl Input for HandedOver {
    fn refill(
        &mut self,
        buf: &mut Vec<u8>,
        pos: &mut usize,
        len: &mut usize,
    ) -> Option<std::io::Result<usize>> {
        Some(self.0.refill(buf, pos, len))
    }
    fn cpu_seconds(&self) -> Option<f64> {
        Some(self.0.cpu_seconds())
    }
}

/// A reader that can seek (a regular file, a buffer in memory).
pub(super) struct Seekable<R>(pub R);

impl<R: Read> Read for Seekable<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0.read(buf)
    }
}

impl<R: Read + std::io::Seek + Send> Input for Seekable<R> {
    fn seek_to(&mut self, offset: u64) -> Option<std::io::Result<()>> {
        Some(self.0.seek(std::io::SeekFrom::Start(offset)).map(|_| ()))
    }
    fn can_seek(&self) -> bool {
        true
    }
}
