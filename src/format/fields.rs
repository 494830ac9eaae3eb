//! The field streams of a compressed node: a reversible pre-pass that lets
//! zlib see what a node's bytes mean (the SLOG-2 draft's "static bit-widths
//! per field", §6.3, at byte granularity).
//!
//! zlib alone gets a node to about half its size: a record interleaves a
//! small category, a line ID, a vertex count and two 8-byte times whose
//! low bytes are noise, and LZ77 finds few repeats in that. The pre-pass
//! walks the node's grammar (records, stubs, shadows) once and sends each
//! field to a stream of its own, coded so that its values are small:
//!
//! * a record's first vertex time as the difference of its bit pattern from
//!   the previous record's (records are stored by start time, so the
//!   difference is small and positive), every other vertex time as the
//!   difference from the vertex before it (a state's duration);
//! * a line ID other than the first as the difference from the first (0
//!   for a state), signed values zig-zag coded (small magnitudes, small
//!   numbers);
//! * each numeric stream stored as *byte planes* (all the low bytes, then
//!   all the next bytes …) up to the widest value it holds: planes of
//!   leading zeros vanish, constant planes cost zlib nothing, and the noisy
//!   low planes of the times sit together — and are kept out of zlib
//!   altogether (a plane whose byte histogram is nearly flat is stored as
//!   it is: deflating it would cost time on both sides for no gain).
//!
//! Differences are taken on bit patterns with wrapping arithmetic, so every
//! double (NaN payloads, negative zero, infinities) comes back bit for bit.
//!
//! # One walk, two directions
//!
//! The grammar is written once ([`walk_drawables`], [`walk_stubs`]) against
//! [`Fields`], and run by [`Split`] (plain bytes in, streams out) or by
//! [`Join`] (streams in, plain bytes out); each field read by the walk is
//! both "the value" and "what decides the rest of the walk", so the two
//! directions cannot disagree on the layout. Anything [`Split`] cannot walk
//! (a block that is not valid SLOG-2) is not compressed this way: the
//! writer falls back to zlib on the raw bytes. [`Join`] stops at once when
//! a stream runs out or the output would pass the size the node declares.

use crate::error::{Error, Result};

/// A stream of the pre-pass: every field of one kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum S {
    Count = 0,
    Tag,
    Cat,
    Ilen,
    Nv,
    T0,
    Tk,
    L0,
    Lk,
    Box0,
    Box1,
    Wide,
    Nw,
    Wcat,
    Wincl,
    Wexcl,
    Wcnt,
    Depth,
    Xpos,
    /// Raw bytes: info payloads.
    Info,
}

pub(crate) const NUMERIC: usize = S::Info as usize;

#[inline(always)]
fn zz(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

#[inline(always)]
fn unzz(u: u64) -> i64 {
    ((u >> 1) as i64) ^ -((u & 1) as i64)
}

/// The fields of a node part, in one direction or the other. Each method
/// moves one field and returns its value (as stored in the plain block).
pub(crate) trait Fields {
    fn u8(&mut self, s: S) -> Result<u8>;
    fn i16(&mut self, s: S) -> Result<i16>;
    fn i32(&mut self, s: S) -> Result<i32>;
    /// An i32 coded as its difference from `base`.
    fn i32_from(&mut self, s: S, base: i32) -> Result<i32>;
    /// A 64-bit field (a time's bit pattern, a count) coded as its
    /// difference from `base`.
    fn u64_from(&mut self, s: S, base: u64) -> Result<u64>;
    /// `n` raw bytes.
    fn bytes(&mut self, n: usize) -> Result<()>;
}

/// Walk state: the predictions.
#[derive(Default)]
struct Prev {
    first_time: u64,
    box_start: u64,
}

/// A primitive record (no tag) or a shadow's leading fields (category,
/// info, vertices). Inlined into the part walks so that a [`Join`]'s
/// cursors live in registers, not behind a pointer reloaded after every
/// byte it writes.
#[inline(always)]
fn walk_prim(f: &mut impl Fields, prev: &mut Prev) -> Result<i16> {
    f.i32(S::Cat)?;
    let ilen = f.i16(S::Ilen)?;
    if ilen > 0 {
        f.bytes(ilen as usize)?;
    }
    let nv = f.i16(S::Nv)?;
    if nv > 0 {
        let mut t = f.u64_from(S::T0, prev.first_time)?;
        prev.first_time = t;
        let l0 = f.i32(S::L0)?;
        for _ in 1..nv as usize {
            t = f.u64_from(S::Tk, t)?;
            f.i32_from(S::Lk, l0)?;
        }
    }
    Ok(nv)
}

/// The drawables part of a node block: both lists of records (spec §7.1).
#[inline]
pub(crate) fn walk_drawables(f: &mut impl Fields) -> Result<()> {
    let mut prev = Prev::default();
    for _ in 0..2 {
        let n = f.i32(S::Count)?;
        for _ in 0..n.max(0) {
            match f.u8(S::Tag)? {
                0 => {
                    walk_prim(f, &mut prev)?;
                }
                1 => {
                    f.i32(S::Cat)?;
                    let ilen = f.i16(S::Ilen)?;
                    f.bytes(ilen.max(0) as usize)?;
                    let m = f.i16(S::Nv)?;
                    for _ in 0..m.max(0) {
                        walk_prim(f, &mut prev)?;
                    }
                }
                t => return Err(Error::malformed("tree node", 0, format!("tag {t}"))),
            }
        }
    }
    Ok(())
}

/// The stubs part of a node block: the stub count, then each stub's header
/// and shadows (spec §7.4, §7.5).
#[inline]
pub(crate) fn walk_stubs(f: &mut impl Fields) -> Result<()> {
    let mut prev = Prev::default();
    let ns = f.i32(S::Count)?;
    for _ in 0..ns.max(0) {
        let start = f.u64_from(S::Box0, prev.box_start)?;
        f.u64_from(S::Box1, start)?;
        f.i16(S::Depth)?;
        f.i32(S::Xpos)?;
        f.u64_from(S::Wide, 0)?;
        f.i32(S::Count)?;
        for _ in 0..2 {
            let n = f.i32(S::Count)?;
            for _ in 0..n.max(0) {
                walk_prim(f, &mut prev)?;
                let start = f.u64_from(S::Box0, prev.box_start)?;
                prev.box_start = start;
                f.u64_from(S::Box1, start)?;
                f.u64_from(S::Wide, 0)?;
                let nw = f.i32(S::Nw)?;
                for _ in 0..nw.max(0) {
                    f.i32(S::Wcat)?;
                    f.i32(S::Wincl)?;
                    f.i32(S::Wexcl)?;
                    f.u64_from(S::Wcnt, 0)?;
                }
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Plain -> streams

/// The values of the numeric streams, one vector per stream (kept by the
/// writer from part to part, for their memory).
pub(crate) type Values = [Vec<u64>; NUMERIC];

/// Splits a plain part into streams (the writer's direction).
pub(crate) struct Split<'a> {
    plain: &'a [u8],
    pos: usize,
    values: Values,
    info: Vec<u8>,
}

/// The plain part ended inside a field: not a block this pre-pass can
/// code (the caller falls back to plain zlib).
fn short() -> Error {
    Error::malformed(
        "tree node",
        0,
        "not a node part the field pre-pass can walk",
    )
}

impl<'a> Split<'a> {
    pub fn new(plain: &'a [u8], values: Values) -> Split<'a> {
        let mut values = values;
        for v in &mut values {
            v.clear();
        }
        Split {
            plain,
            pos: 0,
            values,
            info: Vec::new(),
        }
    }

    #[inline(always)]
    fn take<const N: usize>(&mut self) -> Result<[u8; N]> {
        let b = self.plain.get(self.pos..self.pos + N).ok_or_else(short)?;
        self.pos += N;
        let mut a = [0u8; N];
        a.copy_from_slice(b);
        Ok(a)
    }

    #[inline(always)]
    fn push(&mut self, s: S, v: u64) {
        self.values[s as usize].push(v);
    }

    /// Serialise the streams (when the walk consumed the whole part):
    /// per stream a count, a byte width and which of its planes are noise,
    /// then the planes that are not — these go to `out`, for zlib — and the
    /// info bytes last; the noise planes go to `raw`, stored as they are
    /// (zlib would spend time on them for nothing). Returns the value
    /// vectors for reuse.
    pub fn finish(self, out: &mut Vec<u8>, raw: &mut Vec<u8>) -> Result<Values> {
        if self.pos != self.plain.len() {
            return Err(short());
        }
        let mut plane = Vec::new();
        for v in &self.values {
            let width = v
                .iter()
                .fold(0u64, |a, &x| a | x)
                .checked_ilog2()
                .map_or(0, |b| b as usize / 8 + 1);
            put_varint(out, v.len() as u64);
            out.push(width as u8);
            let mask_at = out.len();
            out.push(0);
            for k in 0..width {
                plane.clear();
                plane.extend(v.iter().map(|&x| (x >> (8 * k)) as u8));
                if is_noise(&plane) {
                    out[mask_at] |= 1 << k;
                    raw.extend_from_slice(&plane);
                } else {
                    out.extend_from_slice(&plane);
                }
            }
        }
        put_varint(out, self.info.len() as u64);
        out.extend_from_slice(&self.info);
        Ok(self.values)
    }
}

impl Fields for Split<'_> {
    #[inline(always)]
    fn u8(&mut self, s: S) -> Result<u8> {
        let [b] = self.take::<1>()?;
        self.push(s, b as u64);
        Ok(b)
    }
    #[inline(always)]
    fn i16(&mut self, s: S) -> Result<i16> {
        let v = i16::from_be_bytes(self.take()?);
        self.push(s, zz(v as i64));
        Ok(v)
    }
    #[inline(always)]
    fn i32(&mut self, s: S) -> Result<i32> {
        let v = i32::from_be_bytes(self.take()?);
        self.push(s, zz(v as i64));
        Ok(v)
    }
    #[inline(always)]
    fn i32_from(&mut self, s: S, base: i32) -> Result<i32> {
        let v = i32::from_be_bytes(self.take()?);
        self.push(s, zz(v.wrapping_sub(base) as i64));
        Ok(v)
    }
    #[inline(always)]
    fn u64_from(&mut self, s: S, base: u64) -> Result<u64> {
        let v = u64::from_be_bytes(self.take()?);
        self.push(s, zz(v.wrapping_sub(base) as i64));
        Ok(v)
    }
    #[inline(always)]
    fn bytes(&mut self, n: usize) -> Result<()> {
        let b = self.plain.get(self.pos..self.pos + n).ok_or_else(short)?;
        self.info.extend_from_slice(b);
        self.pos += n;
        Ok(())
    }
}

/// A plane of at least 256 bytes whose byte histogram is nearly flat (an
/// order-0 entropy above 7.5 bits): the low bytes of times, random payloads.
fn is_noise(plane: &[u8]) -> bool {
    if plane.len() < 256 {
        return false;
    }
    let mut counts = [0u32; 256];
    for &b in plane {
        counts[b as usize] += 1;
    }
    // Entropy is at most log2 of the distinct values: fewer than 2^7.5
    // (182) cannot be noise, and need no logarithms.
    if counts.iter().filter(|&&c| c > 0).count() < 182 {
        return false;
    }
    // H = log2 n - (1/n) Σ c log2 c, with c log2 c from a table for the
    // small counts a flat histogram has (a logarithm per bucket was 4 % of
    // a compressed write).
    let n = plane.len() as f64;
    let table = c_log2_c();
    let sum: f64 = counts
        .iter()
        .map(|&c| match table.get(c as usize) {
            Some(&x) => x,
            None => c as f64 * (c as f64).log2(),
        })
        .sum();
    n.log2() - sum / n > 7.5
}

/// `c log2 c` for the counts below 1024 (0 for 0).
fn c_log2_c() -> &'static [f64; 1024] {
    static TABLE: std::sync::OnceLock<[f64; 1024]> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = [0.0; 1024];
        for (c, x) in t.iter_mut().enumerate().skip(1) {
            *x = c as f64 * (c as f64).log2();
        }
        t
    })
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

// ---------------------------------------------------------------------------
// Streams -> plain

/// Joins streams back into the plain part (the reader's direction),
/// writing into `out`, a buffer of exactly the bytes the part declares.
/// The byte planes are turned back into values once, stream by stream
/// ([`Join::values`]: tight loops the compiler vectorises), so the walk
/// takes each field with one load; each field is one bounds check on its
/// stream and one on the output (which is also the "no more than declared"
/// check).
pub(crate) struct Join<'a> {
    /// Per stream: the values not yet taken.
    next: [&'a [u64]; NUMERIC],
    info: &'a [u8],
    out: &'a mut [u8],
    /// Bytes of `out` written.
    pos: usize,
}

/// A damaged stream directory or stream (the caller names the node).
#[cold]
fn bad(detail: &str) -> Error {
    Error::malformed("compressed tree node", 0, detail.to_string())
}

#[cold]
fn ran_out() -> Error {
    bad("a field stream ends before the node's records")
}

#[cold]
fn overflow() -> Error {
    bad("inflates beyond its declared size")
}

#[cold]
fn out_of_range() -> Error {
    bad("field out of range")
}

fn varint(streams: &[u8], pos: &mut usize) -> Result<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *streams
            .get(*pos)
            .ok_or_else(|| bad("stream directory cut short"))?;
        *pos += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Ok(v);
        }
    }
    Err(bad("stream length too long"))
}

/// Append the values of one stream of `n` values, `width` byte planes
/// (`planes` back to back, lowest first), to `values`.
fn join_planes(values: &mut Vec<u64>, planes: &[&[u8]]) {
    let Some(first) = planes.first() else {
        return;
    };
    let at = values.len();
    values.extend(first.iter().map(|&b| u64::from(b)));
    let v = &mut values[at..];
    for (k, plane) in planes.iter().enumerate().skip(1) {
        let shift = 8 * k as u32;
        for (v, &b) in v.iter_mut().zip(plane.iter()) {
            *v |= u64::from(b) << shift;
        }
    }
}

impl<'a> Join<'a> {
    /// Read the stream directory of `streams` and the values of its
    /// numeric streams (the noise planes from `raw`) into `values` (cleared
    /// first); returns the stream bounds in `values` and the info bytes.
    /// `room`: the plain bytes the part declares (a stream cannot hold more
    /// values than that: each is at least one plain byte).
    pub fn values(
        streams: &'a [u8],
        raw: &[u8],
        room: usize,
        values: &mut Vec<u64>,
    ) -> Result<([usize; NUMERIC + 1], &'a [u8])> {
        let mut raw_at = 0usize;
        let mut pos = 0usize;
        values.clear();
        let mut bounds = [0usize; NUMERIC + 1];
        for i in 0..NUMERIC {
            let n = varint(streams, &mut pos)?;
            let (width, mask) = match streams.get(pos..pos + 2) {
                Some(&[w, m]) => (w as usize, m),
                _ => return Err(bad("stream directory cut short")),
            };
            pos += 2;
            if width > 8 {
                return Err(bad("stream width above 8 bytes"));
            }
            let n = usize::try_from(n)
                .ok()
                .filter(|&n| n <= room)
                .ok_or_else(|| bad("stream longer than the node"))?;
            if width == 0 {
                values.resize(values.len() + n, 0);
            }
            let mut planes: [&[u8]; 8] = [&[]; 8];
            for (k, plane) in planes.iter_mut().enumerate().take(width) {
                *plane = if mask & (1 << k) != 0 {
                    let p = raw
                        .get(raw_at..raw_at + n)
                        .ok_or_else(|| bad("stored planes shorter than the node"))?;
                    raw_at += n;
                    p
                } else {
                    let p = streams
                        .get(pos..pos + n)
                        .ok_or_else(|| bad("stream longer than the node"))?;
                    pos += n;
                    p
                };
            }
            join_planes(values, &planes[..width]);
            bounds[i + 1] = values.len();
        }
        let n = varint(streams, &mut pos)?;
        let info = usize::try_from(n)
            .ok()
            .and_then(|n| streams.get(pos..pos.checked_add(n)?))
            .ok_or_else(|| bad("info stream longer than the node"))?;
        if pos + info.len() != streams.len() || raw_at != raw.len() {
            return Err(bad("bytes after the last stream"));
        }
        Ok((bounds, info))
    }

    /// A join of the streams `values` (bounds from [`Join::values`]) and
    /// `info` into `out`.
    pub fn new(
        values: &'a [u64],
        bounds: &[usize; NUMERIC + 1],
        info: &'a [u8],
        out: &'a mut [u8],
    ) -> Join<'a> {
        let mut next: [&[u64]; NUMERIC] = [&[]; NUMERIC];
        for (i, s) in next.iter_mut().enumerate() {
            *s = &values[bounds[i]..bounds[i + 1]];
        }
        Join {
            next,
            info,
            out,
            pos: 0,
        }
    }

    /// Every stream used up (a damaged node may declare more values than
    /// its walk reads); returns the bytes written.
    pub fn finish(self) -> Result<usize> {
        if !(self.next.iter().all(|s| s.is_empty()) && self.info.is_empty()) {
            return Err(bad("streams hold more fields than the node's records"));
        }
        Ok(self.pos)
    }

    #[inline(always)]
    fn value(&mut self, s: S) -> Result<u64> {
        let slot = &mut self.next[s as usize];
        let (&v, rest) = slot.split_first().ok_or_else(ran_out)?;
        *slot = rest;
        Ok(v)
    }

    #[inline(always)]
    fn put<const N: usize>(&mut self, b: [u8; N]) -> Result<()> {
        let end = self.pos + N;
        self.out
            .get_mut(self.pos..end)
            .ok_or_else(overflow)?
            .copy_from_slice(&b);
        self.pos = end;
        Ok(())
    }
}

impl Fields for Join<'_> {
    #[inline(always)]
    fn u8(&mut self, s: S) -> Result<u8> {
        let b = u8::try_from(self.value(s)?).map_err(|_| out_of_range())?;
        self.put([b])?;
        Ok(b)
    }
    #[inline(always)]
    fn i16(&mut self, s: S) -> Result<i16> {
        let v = i16::try_from(unzz(self.value(s)?)).map_err(|_| out_of_range())?;
        self.put(v.to_be_bytes())?;
        Ok(v)
    }
    #[inline(always)]
    fn i32(&mut self, s: S) -> Result<i32> {
        let v = i32::try_from(unzz(self.value(s)?)).map_err(|_| out_of_range())?;
        self.put(v.to_be_bytes())?;
        Ok(v)
    }
    #[inline(always)]
    fn i32_from(&mut self, s: S, base: i32) -> Result<i32> {
        let d = i32::try_from(unzz(self.value(s)?)).map_err(|_| out_of_range())?;
        let v = base.wrapping_add(d);
        self.put(v.to_be_bytes())?;
        Ok(v)
    }
    #[inline(always)]
    fn u64_from(&mut self, s: S, base: u64) -> Result<u64> {
        let v = base.wrapping_add(unzz(self.value(s)?) as u64);
        self.put(v.to_be_bytes())?;
        Ok(v)
    }
    #[inline(always)]
    fn bytes(&mut self, n: usize) -> Result<()> {
        if n > self.info.len() {
            return Err(bad("the info stream ends before the node's payloads"));
        }
        let (b, rest) = self.info.split_at(n);
        self.info = rest;
        let end = self.pos + n;
        self.out
            .get_mut(self.pos..end)
            .ok_or_else(overflow)?
            .copy_from_slice(b);
        self.pos = end;
        Ok(())
    }
}
