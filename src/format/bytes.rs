//! Byte I/O: the only place that turns numbers into bytes and back.
//!
//! SLOG-2 is Java's `DataOutput` on disk (spec §1): big-endian fixed-width
//! integers and IEEE floats, packed, and strings as a signed 16-bit byte
//! count followed by the bytes. Two directions live here:
//!
//! * **Encoding** appends to a `Vec<u8>` with `to_be_bytes` (the std methods
//!   cover every width, so the `byteorder` crate would add nothing). NaN is
//!   written canonically, as Java writes it, so a file we write does not
//!   depend on which NaN a computation produced.
//! * **Decoding** goes through [`Decoder`], a cursor over one block that
//!   checks every read against the bytes left and reports failures with the
//!   *absolute* file offset (`base` + position) and the block's name. Counts
//!   read from a file are checked against what the remaining bytes can hold
//!   ([`Decoder::count`]) before anyone allocates for them.
//!
//! The `be_*` functions read at fixed offsets of a slice whose length the
//! caller has already checked once: the fast paths of the record walk
//! ([`super::record`]) use them to read a whole well-formed record after a
//! single bounds check.

use crate::error::{Error, Result};

/// Largest count a signed 16-bit length field can hold.
pub const MAX_I16: usize = i16::MAX as usize;

pub fn put_i8(out: &mut Vec<u8>, v: i8) {
    out.push(v as u8);
}
pub fn put_i16(out: &mut Vec<u8>, v: i16) {
    out.extend_from_slice(&v.to_be_bytes());
}
pub fn put_i32(out: &mut Vec<u8>, v: i32) {
    out.extend_from_slice(&v.to_be_bytes());
}
pub fn put_i64(out: &mut Vec<u8>, v: i64) {
    out.extend_from_slice(&v.to_be_bytes());
}

/// `v` big-endian, NaN canonical as Java writes it.
#[inline(always)]
pub(crate) fn f64_bytes(v: f64) -> [u8; 8] {
    if v.is_nan() {
        f64::from_bits(0x7ff8_0000_0000_0000)
    } else {
        v
    }
    .to_be_bytes()
}

/// `v` big-endian, NaN canonical as Java writes it.
#[inline(always)]
pub(crate) fn f32_bytes(v: f32) -> [u8; 4] {
    if v.is_nan() {
        f32::from_bits(0x7fc0_0000)
    } else {
        v
    }
    .to_be_bytes()
}

pub fn put_f32(out: &mut Vec<u8>, v: f32) {
    out.extend_from_slice(&f32_bytes(v));
}
pub fn put_f64(out: &mut Vec<u8>, v: f64) {
    out.extend_from_slice(&f64_bytes(v));
}
/// Java-style string. Callers guarantee `s.len() <= 32767` (checked by `check_len`).
pub fn put_str(out: &mut Vec<u8>, s: &str) {
    put_i16(out, s.len().min(MAX_I16) as i16);
    out.extend_from_slice(&s.as_bytes()[..s.len().min(MAX_I16)]);
}

/// Reject lengths that do not fit a signed 16-bit count (the reference casts
/// them silently and corrupts the file).
pub fn check_len(what: &str, len: usize) -> Result<()> {
    if len > MAX_I16 {
        return Err(Error::InvalidArgument(format!(
            "{what} has {len} elements/bytes; SLOG-2 2.0.6 stores at most {MAX_I16}"
        )));
    }
    Ok(())
}

// Fixed-offset reads of a slice the caller has checked.

#[inline(always)]
pub(crate) fn be_i32(b: &[u8], at: usize) -> i32 {
    i32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}
#[inline(always)]
pub(crate) fn be_i64(b: &[u8], at: usize) -> i64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    i64::from_be_bytes(a)
}
#[inline(always)]
pub(crate) fn be_f64(b: &[u8], at: usize) -> f64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    f64::from_be_bytes(a)
}

/// Bounds-checked big-endian reader over one block; `base` is the block's
/// absolute file offset (for error messages).
pub struct Decoder<'a> {
    pub(super) buf: &'a [u8],
    pub(super) pos: usize,
    base: u64,
    what: &'static str,
}

impl<'a> Decoder<'a> {
    pub fn new(buf: &'a [u8], base: u64, what: &'static str) -> Self {
        Decoder {
            buf,
            pos: 0,
            base,
            what,
        }
    }

    /// A decoder over `buf` positioned at `pos` (a resumed walk).
    pub(super) fn at(buf: &'a [u8], pos: usize, base: u64, what: &'static str) -> Self {
        Decoder {
            buf,
            pos,
            base,
            what,
        }
    }

    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// The block's absolute file offset.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// Bytes consumed so far.
    pub fn pos(&self) -> usize {
        self.pos
    }

    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// The bytes not consumed yet.
    pub fn rest(&self) -> &'a [u8] {
        &self.buf[self.pos..]
    }

    pub fn is_at_end(&self) -> bool {
        self.pos == self.buf.len()
    }

    pub fn set_what(&mut self, what: &'static str) {
        self.what = what;
    }

    pub fn malformed(&self, detail: impl Into<String>) -> Error {
        Error::malformed(self.what, self.offset(), detail)
    }

    /// The same as [`malformed`](Self::malformed), at the offset `at`.
    pub fn malformed_at(&self, at: u64, detail: impl Into<String>) -> Error {
        Error::malformed(self.what, at, detail)
    }

    fn truncated(&self, need: usize) -> Error {
        Error::Truncated {
            what: self.what,
            offset: self.offset(),
            need,
            have: self.remaining(),
        }
    }

    #[inline]
    fn take<const N: usize>(&mut self) -> Result<[u8; N]> {
        if self.remaining() < N {
            return Err(self.truncated(N));
        }
        let mut a = [0u8; N];
        a.copy_from_slice(&self.buf[self.pos..self.pos + N]);
        self.pos += N;
        Ok(a)
    }

    #[inline]
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.remaining() < n {
            return Err(self.truncated(n));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    pub fn skip(&mut self, n: usize) -> Result<()> {
        self.bytes(n).map(|_| ())
    }

    #[inline]
    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.take::<1>()?[0])
    }
    #[inline]
    pub fn i8(&mut self) -> Result<i8> {
        Ok(self.take::<1>()?[0] as i8)
    }
    #[inline]
    pub fn i16(&mut self) -> Result<i16> {
        Ok(i16::from_be_bytes(self.take()?))
    }
    #[inline]
    pub fn i32(&mut self) -> Result<i32> {
        Ok(i32::from_be_bytes(self.take()?))
    }
    #[inline]
    pub fn i64(&mut self) -> Result<i64> {
        Ok(i64::from_be_bytes(self.take()?))
    }
    #[inline]
    pub fn f32(&mut self) -> Result<f32> {
        Ok(f32::from_be_bytes(self.take()?))
    }
    #[inline]
    pub fn f64(&mut self) -> Result<f64> {
        Ok(f64::from_be_bytes(self.take()?))
    }

    /// A Java-style string; a count <= 0 is the empty string (no bytes follow).
    pub fn str(&mut self) -> Result<String> {
        let n = self.i16()?;
        if n <= 0 {
            return Ok(String::new());
        }
        Ok(String::from_utf8_lossy(self.bytes(n as usize)?).into_owned())
    }

    /// An info payload: an i16 length, then that many bytes (a length <= 0
    /// is no payload and no bytes, as the reference reads it).
    #[inline]
    pub fn info(&mut self) -> Result<&'a [u8]> {
        let n = self.i16()?;
        if n > 0 {
            self.bytes(n as usize)
        } else {
            Ok(&[])
        }
    }

    /// A non-negative i32 count whose elements need at least `min_elem` bytes each.
    pub fn count(&mut self, min_elem: usize) -> Result<usize> {
        let at = self.offset();
        let n = self.i32()?;
        self.check_count(n as i64, min_elem, at)
    }

    /// A non-negative i16 count.
    pub fn count16(&mut self, min_elem: usize) -> Result<usize> {
        let at = self.offset();
        let n = self.i16()?;
        self.check_count(n as i64, min_elem, at)
    }

    fn check_count(&self, n: i64, min_elem: usize, at: u64) -> Result<usize> {
        if n < 0 {
            return Err(self.malformed_at(at, format!("negative count {n}")));
        }
        let n = n as usize;
        if n.saturating_mul(min_elem) > self.remaining() {
            return Err(self.malformed_at(
                at,
                format!(
                    "count {n} does not fit the {} bytes left in the block",
                    self.remaining()
                ),
            ));
        }
        Ok(n)
    }

    pub fn expect_end(&self) -> Result<()> {
        if !self.is_at_end() {
            return Err(self.malformed(format!(
                "{} unread byte(s) at the end of the block",
                self.remaining()
            )));
        }
        Ok(())
    }
}
