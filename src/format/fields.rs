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

const NUMERIC: usize = S::Info as usize;

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
/// info, vertices).
fn walk_prim(f: &mut impl Fields, prev: &mut Prev) -> Result<i16> {
    f.i32(S::Cat)?;
    let ilen = f.i16(S::Ilen)?;
    f.bytes(ilen.max(0) as usize)?;
    let nv = f.i16(S::Nv)?;
    let mut t = 0u64;
    let mut l0 = 0i32;
    for i in 0..nv.max(0) {
        if i == 0 {
            t = f.u64_from(S::T0, prev.first_time)?;
            prev.first_time = t;
            l0 = f.i32(S::L0)?;
        } else {
            t = f.u64_from(S::Tk, t)?;
            f.i32_from(S::Lk, l0)?;
        }
    }
    Ok(nv)
}

/// The drawables part of a node block: both lists of records (spec §7.1).
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

/// Splits a plain part into streams (the writer's direction).
pub(crate) struct Split<'a> {
    plain: &'a [u8],
    pos: usize,
    values: Vec<Vec<u64>>,
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
    pub fn new(plain: &'a [u8], values: Vec<Vec<u64>>) -> Split<'a> {
        let mut values = values;
        values.resize_with(NUMERIC, Vec::new);
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
    pub fn finish(self, out: &mut Vec<u8>, raw: &mut Vec<u8>) -> Result<Vec<Vec<u64>>> {
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
    fn u8(&mut self, s: S) -> Result<u8> {
        let [b] = self.take::<1>()?;
        self.push(s, b as u64);
        Ok(b)
    }
    fn i16(&mut self, s: S) -> Result<i16> {
        let v = i16::from_be_bytes(self.take()?);
        self.push(s, zz(v as i64));
        Ok(v)
    }
    fn i32(&mut self, s: S) -> Result<i32> {
        let v = i32::from_be_bytes(self.take()?);
        self.push(s, zz(v as i64));
        Ok(v)
    }
    fn i32_from(&mut self, s: S, base: i32) -> Result<i32> {
        let v = i32::from_be_bytes(self.take()?);
        self.push(s, zz(v.wrapping_sub(base) as i64));
        Ok(v)
    }
    fn u64_from(&mut self, s: S, base: u64) -> Result<u64> {
        let v = u64::from_be_bytes(self.take()?);
        self.push(s, zz(v.wrapping_sub(base) as i64));
        Ok(v)
    }
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
    let n = plane.len() as f64;
    let bits: f64 = counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.log2()
        })
        .sum();
    bits > 7.5
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
/// appending to `out` and never past `limit` bytes of it. The byte planes
/// are turned back into values once, stream by stream (tight loops), so the
/// walk takes each field with one load.
pub(crate) struct Join<'a> {
    /// Every numeric stream's values, back to back.
    values: Vec<u64>,
    /// Per stream: the next value and the end of its values.
    next: [(usize, usize); NUMERIC],
    info: &'a [u8],
    out: &'a mut Vec<u8>,
    limit: usize,
}

/// A damaged stream directory or stream (the caller names the node).
fn bad(detail: &str) -> Error {
    Error::malformed("compressed tree node", 0, detail.to_string())
}

thread_local! {
    /// The values of the last part joined on this thread (reused).
    static VALUES: std::cell::Cell<Vec<u64>> = const { std::cell::Cell::new(Vec::new()) };
}

impl<'a> Join<'a> {
    /// Read the stream directory of `streams` and their values (the noise
    /// planes from `raw`); the plain bytes go to `out`, at most `limit` of
    /// them.
    pub fn new(
        streams: &'a [u8],
        raw: &[u8],
        out: &'a mut Vec<u8>,
        limit: usize,
    ) -> Result<Join<'a>> {
        let mut raw_at = 0usize;
        let mut pos = 0usize;
        let varint = |pos: &mut usize| -> Result<u64> {
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
        };
        let mut values = VALUES.with(|v| v.take());
        values.clear();
        let mut next = [(0usize, 0usize); NUMERIC];
        for slot in &mut next {
            let n = varint(&mut pos)?;
            let width = *streams
                .get(pos)
                .ok_or_else(|| bad("stream directory cut short"))? as usize;
            let mask = *streams
                .get(pos + 1)
                .ok_or_else(|| bad("stream directory cut short"))?;
            pos += 2;
            if width > 8 {
                return Err(bad("stream width above 8 bytes"));
            }
            // A stream of width 0 holds no bytes; its count is bounded by
            // the output instead (each value is at least one plain byte).
            let n = usize::try_from(n)
                .ok()
                .filter(|&n| n <= limit.saturating_sub(out.len()))
                .ok_or_else(|| bad("stream longer than the node"))?;
            if n.checked_mul(width).is_none() {
                return Err(bad("stream longer than the node"));
            }
            let at = values.len();
            if width == 0 {
                values.resize(at + n, 0);
            }
            for k in 0..width {
                let plane = if mask & (1 << k) != 0 {
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
                if k == 0 {
                    values.extend(plane.iter().map(|&b| u64::from(b)));
                } else {
                    for (v, &b) in values[at..].iter_mut().zip(plane) {
                        *v |= u64::from(b) << (8 * k);
                    }
                }
            }
            *slot = (at, at + n);
        }
        let n = varint(&mut pos)?;
        let info = usize::try_from(n)
            .ok()
            .and_then(|n| streams.get(pos..pos.checked_add(n)?))
            .ok_or_else(|| bad("info stream longer than the node"))?;
        if pos + info.len() != streams.len() || raw_at != raw.len() {
            return Err(bad("bytes after the last stream"));
        }
        out.reserve(limit.saturating_sub(out.len()));
        Ok(Join {
            values,
            next,
            info,
            out,
            limit,
        })
    }

    /// Every stream used up (a damaged node may declare more values than
    /// its walk reads).
    pub fn finish(self) -> Result<()> {
        let done = self.next.iter().all(|&(a, b)| a == b) && self.info.is_empty();
        VALUES.with(|v| v.set(self.values));
        if !done {
            return Err(bad("streams hold more fields than the node's records"));
        }
        Ok(())
    }

    #[inline(always)]
    fn value(&mut self, s: S) -> Result<u64> {
        let (a, b) = &mut self.next[s as usize];
        if *a >= *b {
            return Err(bad("a field stream ends before the node's records"));
        }
        let v = self.values[*a];
        *a += 1;
        Ok(v)
    }

    #[inline(always)]
    fn put(&mut self, b: &[u8]) -> Result<()> {
        if self.out.len() + b.len() > self.limit {
            return Err(bad("inflates beyond its declared size"));
        }
        self.out.extend_from_slice(b);
        Ok(())
    }
}

impl Fields for Join<'_> {
    #[inline(always)]
    fn u8(&mut self, s: S) -> Result<u8> {
        let v = self.value(s)?;
        let b = u8::try_from(v).map_err(|_| bad("byte field out of range"))?;
        self.put(&[b])?;
        Ok(b)
    }
    #[inline(always)]
    fn i16(&mut self, s: S) -> Result<i16> {
        let v = i16::try_from(unzz(self.value(s)?)).map_err(|_| bad("i16 field out of range"))?;
        self.put(&v.to_be_bytes())?;
        Ok(v)
    }
    #[inline(always)]
    fn i32(&mut self, s: S) -> Result<i32> {
        let v = i32::try_from(unzz(self.value(s)?)).map_err(|_| bad("i32 field out of range"))?;
        self.put(&v.to_be_bytes())?;
        Ok(v)
    }
    #[inline(always)]
    fn i32_from(&mut self, s: S, base: i32) -> Result<i32> {
        let d = i32::try_from(unzz(self.value(s)?)).map_err(|_| bad("i32 field out of range"))?;
        let v = base.wrapping_add(d);
        self.put(&v.to_be_bytes())?;
        Ok(v)
    }
    #[inline(always)]
    fn u64_from(&mut self, s: S, base: u64) -> Result<u64> {
        let v = base.wrapping_add(unzz(self.value(s)?) as u64);
        self.put(&v.to_be_bytes())?;
        Ok(v)
    }
    #[inline(always)]
    fn bytes(&mut self, n: usize) -> Result<()> {
        if n > self.info.len() {
            return Err(bad("the info stream ends before the node's payloads"));
        }
        let (b, rest) = self.info.split_at(n);
        self.info = rest;
        self.put(b)
    }
}
