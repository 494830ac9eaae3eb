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
//!   altogether (a plane whose byte histogram is flat enough is stored as
//!   it is: deflating it would cost time on both sides for no gain);
//! * a plane that is constant or nearly so (at most one byte in 32 differs
//!   from its last byte) as its *exceptions*: that byte, then the position
//!   gap and value of each byte that differs. deflate would take a run of
//!   equal bytes one byte at a time, each a hash-table update waiting on
//!   the one before — a third of an MPE-style log's conversion time — for
//!   no fewer bytes.
//!
//! The stream directory, per numeric stream: its value count (varint), its
//! width in bytes, the mask of its noise planes, and — when the width
//! byte has [`SPARSE_FLAG`] set, as every stream with planes written since
//! the sparse planes has — the mask of its sparse planes; then its planes,
//! lowest first (noise planes in the stored part, sparse ones coded as
//! above). Files written before read unchanged (no flag); builds before
//! the flag refuse a file that has it ("stream width above 8 bytes", a
//! format error naming the node), never misread it.
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
//! directions cannot disagree on the layout. The two record kinds nearly
//! every field belongs to — a primitive ([`walk_prim`]) and a shadow's
//! tail ([`walk_shadow_tail`]) — are also moved a record at a time
//! ([`Fields::prim`], [`Fields::shadow_tail`]): the record's size is known
//! from its counts, so its plain bytes take one bounds check instead of one
//! per field. Those two moves are the only code written per direction; a
//! unit test holds them to the field-by-field definitions (same streams,
//! same bytes, the same refusals on every cut and damaged stream). Zig-zag
//! coding is done stream by stream ([`Split::finish`], [`Join::values`]),
//! not field by field. Anything [`Split`] cannot walk
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

/// A signed value pushed by [`Split`], before [`Split::finish`] zig-zag
/// codes it.
#[inline(always)]
fn raw(v: i64) -> u64 {
    v as u64
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

    /// A whole primitive record ([`walk_prim`]); returns its vertex count.
    /// [`Split`] and [`Join`] move it at once (one bounds check on the
    /// plain bytes per record instead of one per field); `walk_prim` is
    /// the definition they must agree with (tested).
    fn prim(&mut self, prev: &mut Prev) -> Result<i16>
    where
        Self: Sized,
    {
        walk_prim(self, prev)
    }

    /// A shadow's fields after its primitive ([`walk_shadow_tail`]), at
    /// once likewise.
    fn shadow_tail(&mut self, prev: &mut Prev) -> Result<()>
    where
        Self: Sized,
    {
        walk_shadow_tail(self, prev)
    }
}

/// Walk state: the predictions.
#[derive(Default)]
pub(crate) struct Prev {
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
            walk_record(f, &mut prev)?;
        }
    }
    Ok(())
}

/// One record of a drawables list, its tag first: a primitive or a
/// composite (its header, then its members).
#[inline(always)]
fn walk_record(f: &mut impl Fields, prev: &mut Prev) -> Result<()> {
    match f.u8(S::Tag)? {
        0 => {
            f.prim(prev)?;
        }
        1 => {
            f.i32(S::Cat)?;
            let ilen = f.i16(S::Ilen)?;
            f.bytes(ilen.max(0) as usize)?;
            let m = f.i16(S::Nv)?;
            for _ in 0..m.max(0) {
                f.prim(prev)?;
            }
        }
        t => return Err(Error::malformed("tree node", 0, format!("tag {t}"))),
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
                f.prim(&mut prev)?;
                f.shadow_tail(&mut prev)?;
            }
        }
    }
    Ok(())
}

/// A shadow's fields after its leading primitive: its time box, its
/// drawable count, its per-category windows (spec §7.5).
#[inline(always)]
fn walk_shadow_tail(f: &mut impl Fields, prev: &mut Prev) -> Result<()> {
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
    Ok(())
}

/// Bytes of a primitive record with `ilen` info bytes and `nv` vertices
/// (negative counts hold nothing): category, info length, info, vertex
/// count, then per vertex a time and a line ID.
#[inline(always)]
fn prim_size(ilen: i16, nv: i16) -> usize {
    8 + ilen.max(0) as usize + 12 * nv.max(0) as usize
}

/// Bytes of a shadow's tail with `nw` windows.
#[inline(always)]
fn shadow_tail_size(nw: i32) -> usize {
    (nw.max(0) as usize).saturating_mul(20).saturating_add(28)
}

#[inline(always)]
fn be_i16(b: &[u8], at: usize) -> i16 {
    i16::from_be_bytes([b[at], b[at + 1]])
}

#[inline(always)]
fn be_i32(b: &[u8], at: usize) -> i32 {
    let mut a = [0; 4];
    a.copy_from_slice(&b[at..at + 4]);
    i32::from_be_bytes(a)
}

#[inline(always)]
fn be_u64(b: &[u8], at: usize) -> u64 {
    let mut a = [0; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_be_bytes(a)
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

    /// Push a field's value (signed values as they are: [`Split::finish`]
    /// zig-zag codes them).
    #[inline(always)]
    fn push(&mut self, s: S, v: u64) {
        self.values[s as usize].push(v);
    }

    /// Serialise the streams (when the walk consumed the whole part):
    /// per stream a count, a byte width and which of its planes are noise,
    /// then the planes that are not — these go to `out`, for zlib — and the
    /// info bytes last; the noise planes go to `raw`, stored as they are
    /// (zlib would spend time on them for nothing); `noise` is the cut in
    /// bits per byte (`planes::noise_bits`). Returns the value
    /// vectors for reuse.
    pub fn finish(mut self, out: &mut Vec<u8>, raw: &mut Vec<u8>, noise: f64) -> Result<Values> {
        if self.pos != self.plain.len() {
            return Err(short());
        }
        let mut scratch = Vec::new();
        for (i, v) in self.values.iter_mut().enumerate() {
            // Zig-zag coded here, stream by stream (in the loop that finds
            // the widest value and the bits that vary), not field by field
            // in the walk; tags are stored as they are.
            let (all, same) = if i == S::Tag as usize {
                v.iter().fold((0u64, !0u64), |(a, s), &x| (a | x, s & x))
            } else {
                v.iter_mut().fold((0u64, !0u64), |(a, s), x| {
                    *x = zz(*x as i64);
                    (a | *x, s & *x)
                })
            };
            let width = all.checked_ilog2().map_or(0, |b| b as usize / 8 + 1);
            put_varint(out, v.len() as u64);
            // Every stream with planes has the second mask (sparse).
            out.push(width as u8 | if width > 0 { SPARSE_FLAG } else { 0 });
            let mask_at = out.len();
            out.push(0);
            if width > 0 {
                out.push(0);
            }
            for k in 0..width {
                // Straight into `out`; moved to `raw` if it is noise, or
                // coded as its exceptions if it is nearly constant. Only a
                // plane with 7 or 8 varying bits can be noise: one with
                // fewer (at most 64 distinct bytes) is left to deflate even
                // above the fast cut — in an MPE-style log such planes
                // repeat patterns LZ77 finds though their order-0 entropy
                // is above 5 bits (storing them: 0.038x -> 0.054x).
                let at = out.len();
                out.resize(at + v.len(), 0);
                split_plane(&mut out[at..], v, k);
                let varying = ((all ^ same) >> (8 * k)) as u8;
                if sparse(out, at, varying == 0, &mut scratch) {
                    out[mask_at + 1] |= 1 << k;
                } else if varying.count_ones() >= 7 && is_noise(&out[at..], noise) {
                    out[mask_at] |= 1 << k;
                    raw.extend_from_slice(&out[at..]);
                    out.truncate(at);
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
    fn prim(&mut self, prev: &mut Prev) -> Result<i16> {
        let p = &self.plain[self.pos..];
        let head = p.get(..6).ok_or_else(short)?;
        let (cat, ilen) = (be_i32(head, 0), be_i16(head, 4));
        let il = ilen.max(0) as usize;
        let nv = be_i16(p.get(6 + il..8 + il).ok_or_else(short)?, 0);
        let rec = p.get(..prim_size(ilen, nv)).ok_or_else(short)?;
        self.push(S::Cat, raw(cat as i64));
        self.push(S::Ilen, raw(ilen as i64));
        if il > 0 {
            self.info.extend_from_slice(&rec[6..6 + il]);
        }
        self.push(S::Nv, raw(nv as i64));
        if let Some((first, more)) = rec[8 + il..].split_first_chunk::<12>() {
            let mut t = be_u64(first, 0);
            let l0 = be_i32(first, 8);
            self.push(S::T0, raw(t.wrapping_sub(prev.first_time) as i64));
            prev.first_time = t;
            self.push(S::L0, raw(l0 as i64));
            for v in more.chunks_exact(12) {
                let tk = be_u64(v, 0);
                self.push(S::Tk, raw(tk.wrapping_sub(t) as i64));
                t = tk;
                self.push(S::Lk, raw(be_i32(v, 8).wrapping_sub(l0) as i64));
            }
        }
        self.pos += rec.len();
        Ok(nv)
    }

    #[inline(always)]
    fn shadow_tail(&mut self, prev: &mut Prev) -> Result<()> {
        let p = &self.plain[self.pos..];
        let head = p.get(..28).ok_or_else(short)?;
        let nw = be_i32(head, 24);
        let rec = p.get(..shadow_tail_size(nw)).ok_or_else(short)?;
        let start = be_u64(rec, 0);
        self.push(S::Box0, raw(start.wrapping_sub(prev.box_start) as i64));
        prev.box_start = start;
        self.push(S::Box1, raw(be_u64(rec, 8).wrapping_sub(start) as i64));
        self.push(S::Wide, raw(be_u64(rec, 16) as i64));
        self.push(S::Nw, raw(nw as i64));
        for w in rec[28..].chunks_exact(20) {
            self.push(S::Wcat, raw(be_i32(w, 0) as i64));
            self.push(S::Wincl, raw(be_i32(w, 4) as i64));
            self.push(S::Wexcl, raw(be_i32(w, 8) as i64));
            self.push(S::Wcnt, raw(be_u64(w, 12) as i64));
        }
        self.pos += rec.len();
        Ok(())
    }

    #[inline(always)]
    fn u8(&mut self, s: S) -> Result<u8> {
        let [b] = self.take::<1>()?;
        self.push(s, b as u64);
        Ok(b)
    }
    #[inline(always)]
    fn i16(&mut self, s: S) -> Result<i16> {
        let v = i16::from_be_bytes(self.take()?);
        self.push(s, raw(v as i64));
        Ok(v)
    }
    #[inline(always)]
    fn i32(&mut self, s: S) -> Result<i32> {
        let v = i32::from_be_bytes(self.take()?);
        self.push(s, raw(v as i64));
        Ok(v)
    }
    #[inline(always)]
    fn i32_from(&mut self, s: S, base: i32) -> Result<i32> {
        let v = i32::from_be_bytes(self.take()?);
        self.push(s, raw(v.wrapping_sub(base) as i64));
        Ok(v)
    }
    #[inline(always)]
    fn u64_from(&mut self, s: S, base: u64) -> Result<u64> {
        let v = u64::from_be_bytes(self.take()?);
        self.push(s, raw(v.wrapping_sub(base) as i64));
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

// ---------------------------------------------------------------------------
// Streams -> plain

/// Joins streams back into the plain part (the reader's direction),
/// writing into `out`, a buffer of exactly the bytes the part declares.
/// The byte planes are turned back into values once, stream by stream
/// ([`Join::values`]: tight loops the compiler vectorises, zig-zag decoded
/// there too), so the walk takes each field with one load; each field is
/// one bounds check on its stream, and each record one on the output
/// (which is also the "no more than declared" check).
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

/// The next value of a stream.
#[inline(always)]
fn next_value(slot: &mut &[u64]) -> Result<u64> {
    let (&v, rest) = slot.split_first().ok_or_else(ran_out)?;
    *slot = rest;
    Ok(v)
}

/// The next `k` values of a stream.
#[inline(always)]
fn next_values<'a>(slot: &mut &'a [u64], k: usize) -> Result<&'a [u64]> {
    let all: &'a [u64] = slot;
    if all.len() < k {
        return Err(ran_out());
    }
    let (v, rest) = all.split_at(k);
    *slot = rest;
    Ok(v)
}

/// A value of a numeric stream as [`Join::values`] leaves it: zig-zag
/// decoded already (but for [`S::Tag`]'s, stored as they are).
#[inline(always)]
fn dec(v: u64) -> i64 {
    v as i64
}

/// A value as the field type it must fit.
#[inline(always)]
fn small<T: TryFrom<i64>>(u: u64) -> Result<T> {
    T::try_from(dec(u)).map_err(|_| out_of_range())
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
        let mut filled: Vec<u8> = Vec::new();
        values.clear();
        let mut bounds = [0usize; NUMERIC + 1];
        for i in 0..NUMERIC {
            let n = varint(streams, &mut pos)?;
            let (w, mask) = match streams.get(pos..pos + 2) {
                Some(&[w, m]) => (w, m),
                _ => return Err(bad("stream directory cut short")),
            };
            pos += 2;
            let sparse = if w & SPARSE_FLAG != 0 {
                let m = *streams
                    .get(pos)
                    .ok_or_else(|| bad("stream directory cut short"))?;
                pos += 1;
                m
            } else {
                0
            };
            let width = (w & !SPARSE_FLAG) as usize;
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
            // Where each plane is, in order: the sparse ones are filled in
            // (into `filled`, which the slices below then borrow).
            filled.clear();
            let mut at = [(0u8, 0usize); 8];
            for (k, a) in at.iter_mut().enumerate().take(width) {
                *a = if sparse & (1 << k) != 0 {
                    let f = filled.len();
                    fill_sparse(streams, &mut pos, n, &mut filled)?;
                    (2, f)
                } else if mask & (1 << k) != 0 {
                    if raw.len() < raw_at.saturating_add(n) {
                        return Err(bad("stored planes shorter than the node"));
                    }
                    raw_at += n;
                    (1, raw_at - n)
                } else {
                    if streams.len() < pos.saturating_add(n) {
                        return Err(bad("stream longer than the node"));
                    }
                    pos += n;
                    (0, pos - n)
                };
            }
            let mut planes: [&[u8]; 8] = [&[]; 8];
            for (plane, &(src, o)) in planes.iter_mut().zip(&at).take(width) {
                let from: &[u8] = match src {
                    0 => streams,
                    1 => raw,
                    _ => &filled,
                };
                *plane = &from[o..o + n];
            }
            // Zig-zag decoded here, stream by stream, rather than field by
            // field in the walk (tags are stored as they are).
            if i == S::Tag as usize {
                join_planes::<false>(values, &planes[..width]);
            } else {
                join_planes::<true>(values, &planes[..width]);
            }
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

    /// [`Fields::prim`] for the record nearly every state and arrow is:
    /// no info, two vertices (32 bytes, every offset fixed).
    #[inline(always)]
    fn state_or_arrow(&mut self, prev: &mut Prev, cat: i32) -> Result<()> {
        let end = self.pos + 32;
        let rec: &mut [u8; 32] = self
            .out
            .get_mut(self.pos..end)
            .and_then(|r| r.try_into().ok())
            .ok_or_else(overflow)?;
        let t0 = prev
            .first_time
            .wrapping_add(next_value(&mut self.next[S::T0 as usize])?);
        prev.first_time = t0;
        let l0 = small::<i32>(next_value(&mut self.next[S::L0 as usize])?)?;
        let t1 = t0.wrapping_add(next_value(&mut self.next[S::Tk as usize])?);
        let l1 = l0.wrapping_add(small::<i32>(next_value(&mut self.next[S::Lk as usize])?)?);
        rec[..4].copy_from_slice(&cat.to_be_bytes());
        rec[4..8].copy_from_slice(&[0, 0, 0, 2]);
        rec[8..16].copy_from_slice(&t0.to_be_bytes());
        rec[16..20].copy_from_slice(&l0.to_be_bytes());
        rec[20..28].copy_from_slice(&t1.to_be_bytes());
        rec[28..].copy_from_slice(&l1.to_be_bytes());
        self.pos = end;
        Ok(())
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
        next_value(&mut self.next[s as usize])
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
    fn prim(&mut self, prev: &mut Prev) -> Result<i16> {
        let cat = small::<i32>(self.value(S::Cat)?)?;
        let ilen = small::<i16>(self.value(S::Ilen)?)?;
        let nv = small::<i16>(self.value(S::Nv)?)?;
        if ilen == 0 && nv == 2 {
            return self.state_or_arrow(prev, cat).map(|()| nv);
        }
        let end = self.pos.saturating_add(prim_size(ilen, nv));
        let rec = self.out.get_mut(self.pos..end).ok_or_else(overflow)?;
        let il = ilen.max(0) as usize;
        if il > self.info.len() {
            return Err(bad("the info stream ends before the node's payloads"));
        }
        let (info, rest) = self.info.split_at(il);
        self.info = rest;
        let (head, verts) = rec.split_at_mut(8 + il);
        head[..4].copy_from_slice(&cat.to_be_bytes());
        head[4..6].copy_from_slice(&ilen.to_be_bytes());
        if il > 0 {
            // (Most records have no info: no call to copy nothing.)
            head[6..6 + il].copy_from_slice(info);
        }
        head[6 + il..].copy_from_slice(&nv.to_be_bytes());
        if let Some((first, more)) = verts.split_first_chunk_mut::<12>() {
            let mut t = prev
                .first_time
                .wrapping_add(dec(next_value(&mut self.next[S::T0 as usize])?) as u64);
            prev.first_time = t;
            let l0 = small::<i32>(next_value(&mut self.next[S::L0 as usize])?)?;
            first[..8].copy_from_slice(&t.to_be_bytes());
            first[8..].copy_from_slice(&l0.to_be_bytes());
            let k = more.len() / 12;
            let tk = next_values(&mut self.next[S::Tk as usize], k)?;
            let lk = next_values(&mut self.next[S::Lk as usize], k)?;
            for ((v, &dt), &dl) in more.chunks_exact_mut(12).zip(tk).zip(lk) {
                t = t.wrapping_add(dec(dt) as u64);
                let l = l0.wrapping_add(small::<i32>(dl)?);
                v[..8].copy_from_slice(&t.to_be_bytes());
                v[8..].copy_from_slice(&l.to_be_bytes());
            }
        }
        self.pos = end;
        Ok(nv)
    }

    #[inline(always)]
    fn shadow_tail(&mut self, prev: &mut Prev) -> Result<()> {
        let d0 = self.value(S::Box0)?;
        let d1 = self.value(S::Box1)?;
        let wide = self.value(S::Wide)?;
        let nw = small::<i32>(self.value(S::Nw)?)?;
        let end = self.pos.saturating_add(shadow_tail_size(nw));
        let rec = self.out.get_mut(self.pos..end).ok_or_else(overflow)?;
        let start = prev.box_start.wrapping_add(dec(d0) as u64);
        prev.box_start = start;
        let (head, windows) = rec.split_at_mut(28);
        head[..8].copy_from_slice(&start.to_be_bytes());
        head[8..16].copy_from_slice(&start.wrapping_add(dec(d1) as u64).to_be_bytes());
        head[16..24].copy_from_slice(&(dec(wide) as u64).to_be_bytes());
        head[24..].copy_from_slice(&nw.to_be_bytes());
        let k = windows.len() / 20;
        let cat = next_values(&mut self.next[S::Wcat as usize], k)?;
        let incl = next_values(&mut self.next[S::Wincl as usize], k)?;
        let excl = next_values(&mut self.next[S::Wexcl as usize], k)?;
        let cnt = next_values(&mut self.next[S::Wcnt as usize], k)?;
        for (i, w) in windows.chunks_exact_mut(20).enumerate() {
            w[..4].copy_from_slice(&small::<i32>(cat[i])?.to_be_bytes());
            w[4..8].copy_from_slice(&small::<i32>(incl[i])?.to_be_bytes());
            w[8..12].copy_from_slice(&small::<i32>(excl[i])?.to_be_bytes());
            w[12..].copy_from_slice(&(dec(cnt[i]) as u64).to_be_bytes());
        }
        self.pos = end;
        Ok(())
    }

    #[inline(always)]
    fn u8(&mut self, s: S) -> Result<u8> {
        let b = u8::try_from(self.value(s)?).map_err(|_| out_of_range())?;
        self.put([b])?;
        Ok(b)
    }
    #[inline(always)]
    fn i16(&mut self, s: S) -> Result<i16> {
        let v = i16::try_from(dec(self.value(s)?)).map_err(|_| out_of_range())?;
        self.put(v.to_be_bytes())?;
        Ok(v)
    }
    #[inline(always)]
    fn i32(&mut self, s: S) -> Result<i32> {
        let v = i32::try_from(dec(self.value(s)?)).map_err(|_| out_of_range())?;
        self.put(v.to_be_bytes())?;
        Ok(v)
    }
    #[inline(always)]
    fn i32_from(&mut self, s: S, base: i32) -> Result<i32> {
        let d = i32::try_from(dec(self.value(s)?)).map_err(|_| out_of_range())?;
        let v = base.wrapping_add(d);
        self.put(v.to_be_bytes())?;
        Ok(v)
    }
    #[inline(always)]
    fn u64_from(&mut self, s: S, base: u64) -> Result<u64> {
        let v = base.wrapping_add(dec(self.value(s)?) as u64);
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

mod keyed;
mod planes;
pub(crate) use keyed::join_drawables_keyed;
pub(crate) use planes::noise_bits;
use planes::{
    fill_sparse, is_noise, join_planes, put_varint, sparse, split_plane, varint, SPARSE_FLAG,
};

#[cfg(test)]
mod tests;
