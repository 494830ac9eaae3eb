//! The drawables part joined and keyed in one walk: what a window query
//! needs of a compressed node (its 2.0.6 bytes and the [`RecordKey`] of
//! every record, i.e. [`scan_node`](crate::format::scan_node)'s layout).
//!
//! A cold jump on a compressed file used to join a leaf's ~2,000 records
//! into plain bytes ([`Join`], a stream cursor moved per field) and then
//! walk those bytes again to key them. Here the primitives — nearly every
//! record — are joined straight from the value arrays with one index per
//! group of streams that move together (tag; category, info length and
//! vertex count; first vertex; later vertices), kept in registers, and
//! keyed from the values they were written from. A composite, or anything
//! unusual, is joined by [`Join`]'s own walk ([`walk_record`]) and keyed
//! afterwards from its bytes by the caller.
//!
//! This is a fast path only: [`join_drawables_keyed`] returns `None` for
//! anything it does not accept exactly as [`Join`] and
//! [`scan_node`](crate::format::scan_node) would (a count or field out of
//! range, a primitive without vertices, streams not used up, a size other than the declared one), and the caller then
//! takes the checked path, which gives the result or the error. A unit test
//! holds it to that path on random and damaged parts.

use std::mem::MaybeUninit;

use super::{walk_record, Join, Prev, NUMERIC, S};
use crate::format::RecordKey;
use crate::model::TimeBox;

/// Records of a drawables list, at least (a tag, a category, an info
/// length and a vertex count): what `scan_node` checks a list's count
/// against.
const MIN_RECORD: usize = 9;

/// The keys of a drawables part joined by [`join_drawables_keyed`].
#[derive(Debug, Default)]
pub(crate) struct Keyed {
    /// Per list (nestless, nestable), one key per record; offsets from the
    /// start of the buffer joined into.
    pub lists: [Vec<crate::format::RecordKey>; 2],
    /// Records joined but not keyed (composites): (list, index). Their
    /// keys hold the record's offset and length; the caller keys them
    /// from the joined bytes.
    pub later: Vec<(usize, usize)>,
}

/// Append the drawables part — exactly `plain` bytes — to `out` from the
/// values and info stream of [`Join::values`], and key its records;
/// `None` when the checked path must decide (module docs). `out` holds the
/// node header already (offsets count from its start).
#[inline(never)]
pub(crate) fn join_drawables_keyed(
    values: &[u64],
    bounds: &[usize; NUMERIC + 1],
    info: &[u8],
    out: &mut Vec<u8>,
    plain: usize,
) -> Option<Keyed> {
    let head = out.len();
    let limit = head.checked_add(plain)?;
    out.reserve_exact(plain);
    // Written in the vector's spare room, front to back, and counted in
    // only when every byte up to `limit` is written (no zero-fill first).
    let dst = &mut out.spare_capacity_mut()[..plain];
    let mut pos = 0usize;
    let st = |s: S| &values[bounds[s as usize]..bounds[s as usize + 1]];
    // The drawables grammar uses these streams only.
    let used = [
        S::Count,
        S::Tag,
        S::Cat,
        S::Ilen,
        S::Nv,
        S::T0,
        S::Tk,
        S::L0,
        S::Lk,
    ];
    if (0..NUMERIC).any(|i| !used.iter().any(|&s| s as usize == i) && bounds[i] != bounds[i + 1]) {
        return None;
    }
    let (count, tag) = (st(S::Count), st(S::Tag));
    let (cat, ilen, nv) = (st(S::Cat), st(S::Ilen), st(S::Nv));
    let (t0, l0, tk, lk) = (st(S::T0), st(S::L0), st(S::Tk), st(S::Lk));
    // Streams that move together: one index each, bounded by the shorter.
    let np = cat.len().min(ilen.len()).min(nv.len());
    let n0 = t0.len().min(l0.len());
    let nk = tk.len().min(lk.len());
    let (mut ic, mut it, mut ip, mut i0, mut ik, mut inf) = (0, 0, 0, 0, 0, 0);
    let mut first_time = 0u64;
    let mut keyed = Keyed::default();
    let mut scratch: Vec<u8> = Vec::new();
    for list in 0..2 {
        let n = i32::try_from(*count.get(ic)? as i64).ok()?;
        ic += 1;
        put(dst, &mut pos, &n.to_be_bytes())?;
        // `scan_node`'s check of a count against the bytes left.
        if n < 0 || (n as usize).saturating_mul(MIN_RECORD) > plain - pos {
            return None;
        }
        let mut keys = Vec::with_capacity(n as usize);
        for idx in 0..n as usize {
            let at = head + pos;
            if *tag.get(it)? == 0 && ip < np {
                let c = i32::try_from(cat[ip] as i64).ok()?;
                let ilv = i16::try_from(ilen[ip] as i64).ok()?;
                let m = i16::try_from(nv[ip] as i64).ok()?;
                if m < 1 {
                    return None;
                }
                // (A negative info length holds no bytes, as for `scan_node`.)
                let (il, m) = (ilv.max(0) as usize, m as usize);
                let size = 9 + il + 12 * m;
                if size > plain - pos || i0 >= n0 || m - 1 > nk - ik || il > info.len() - inf {
                    return None;
                }
                it += 1;
                ip += 1;
                let t = first_time.wrapping_add(t0[i0]);
                first_time = t;
                let first = i32::try_from(l0[i0] as i64).ok()?;
                i0 += 1;
                let mut tbox = TimeBox::EMPTY;
                tbox.widen(f64::from_bits(t));
                let last;
                if ilv == 0 && m == 2 {
                    // A state (or an arrow without info): 33 bytes, fixed
                    // offsets.
                    let t1 = t.wrapping_add(tk[ik]);
                    let l1 = first.wrapping_add(i32::try_from(lk[ik] as i64).ok()?);
                    ik += 1;
                    tbox.widen(f64::from_bits(t1));
                    last = l1;
                    let mut rec = [0u8; 33];
                    rec[1..5].copy_from_slice(&c.to_be_bytes());
                    rec[5..9].copy_from_slice(&[0, 0, 0, 2]);
                    rec[9..17].copy_from_slice(&t.to_be_bytes());
                    rec[17..21].copy_from_slice(&first.to_be_bytes());
                    rec[21..29].copy_from_slice(&t1.to_be_bytes());
                    rec[29..].copy_from_slice(&l1.to_be_bytes());
                    put(dst, &mut pos, &rec)?;
                } else {
                    let mut rec = [0u8; 7];
                    rec[1..5].copy_from_slice(&c.to_be_bytes());
                    rec[5..].copy_from_slice(&ilv.to_be_bytes());
                    put(dst, &mut pos, &rec)?;
                    if il > 0 {
                        put(dst, &mut pos, &info[inf..inf + il])?;
                        inf += il;
                    }
                    if m == 2 {
                        // An arrow with its info: the vertices at once.
                        let t1 = t.wrapping_add(tk[ik]);
                        let l1 = first.wrapping_add(i32::try_from(lk[ik] as i64).ok()?);
                        ik += 1;
                        tbox.widen(f64::from_bits(t1));
                        last = l1;
                        let mut rec = [0u8; 26];
                        rec[..2].copy_from_slice(&[0, 2]);
                        rec[2..10].copy_from_slice(&t.to_be_bytes());
                        rec[10..14].copy_from_slice(&first.to_be_bytes());
                        rec[14..22].copy_from_slice(&t1.to_be_bytes());
                        rec[22..].copy_from_slice(&l1.to_be_bytes());
                        put(dst, &mut pos, &rec)?;
                    } else {
                        put(dst, &mut pos, &(m as i16).to_be_bytes())?;
                        put(dst, &mut pos, &t.to_be_bytes())?;
                        put(dst, &mut pos, &first.to_be_bytes())?;
                        let (mut tt, mut l) = (t, first);
                        for k in ik..ik + m - 1 {
                            tt = tt.wrapping_add(tk[k]);
                            l = first.wrapping_add(i32::try_from(lk[k] as i64).ok()?);
                            tbox.widen(f64::from_bits(tt));
                            put(dst, &mut pos, &tt.to_be_bytes())?;
                            put(dst, &mut pos, &l.to_be_bytes())?;
                        }
                        ik += m - 1;
                        last = l;
                    }
                }
                keys.push(RecordKey {
                    start: tbox.start,
                    end: tbox.end,
                    category: c,
                    first_line: first,
                    last_line: last,
                    offset: u32::try_from(at).ok()?,
                    len: size as u32,
                });
                continue;
            }
            // Anything else: [`Join`]'s own walk, into scratch room.
            if scratch.is_empty() {
                scratch.resize(plain, 0);
            }
            let room = plain - pos;
            let mut next: [&[u64]; NUMERIC] = [&[]; NUMERIC];
            let moved = [
                (S::Count, ic),
                (S::Tag, it),
                (S::Cat, ip),
                (S::Ilen, ip),
                (S::Nv, ip),
                (S::T0, i0),
                (S::L0, i0),
                (S::Tk, ik),
                (S::Lk, ik),
            ];
            for (s, i) in moved {
                next[s as usize] = st(s).get(i..)?;
            }
            let mut j = Join {
                next,
                info: &info[inf..],
                out: &mut scratch[..room],
                pos: 0,
            };
            let mut prev = Prev {
                first_time,
                box_start: 0,
            };
            walk_record(&mut j, &mut prev).ok()?;
            first_time = prev.first_time;
            let taken = |s: S| st(s).len() - j.next[s as usize].len();
            let (a, b, c) = (taken(S::Cat), taken(S::Ilen), taken(S::Nv));
            let (d, e) = (taken(S::T0), taken(S::L0));
            let (f, g) = (taken(S::Tk), taken(S::Lk));
            if a != b || b != c || d != e || f != g || taken(S::Count) != ic {
                return None;
            }
            (it, ip, i0, ik) = (taken(S::Tag), a, d, f);
            inf = info.len() - j.info.len();
            let written = j.pos;
            put(dst, &mut pos, &scratch[..written])?;
            keys.push(RecordKey {
                start: 0.0,
                end: 0.0,
                category: 0,
                first_line: 0,
                last_line: 0,
                offset: u32::try_from(at).ok()?,
                len: u32::try_from(written).ok()?,
            });
            keyed.later.push((list, idx));
        }
        keyed.lists[list] = keys;
    }
    let all_used = ic == count.len()
        && it == tag.len()
        && [cat.len(), ilen.len(), nv.len()] == [ip; 3]
        && [t0.len(), l0.len()] == [i0; 2]
        && [tk.len(), lk.len()] == [ik; 2]
        && inf == info.len();
    if !(all_used && pos == plain) {
        return None;
    }
    // SAFETY: `put` wrote `dst` (the `plain` bytes of spare room after
    // `head`) front to back without a gap, up to `pos`, which is `plain`.
    unsafe { out.set_len(limit) };
    Some(keyed)
}

/// Write `b` at `*pos` of `dst` and move past it; `None` past the end.
#[inline(always)]
fn put(dst: &mut [MaybeUninit<u8>], pos: &mut usize, b: &[u8]) -> Option<()> {
    let end = pos.checked_add(b.len())?;
    for (d, &s) in dst.get_mut(*pos..end)?.iter_mut().zip(b) {
        d.write(s);
    }
    *pos = end;
    Some(())
}
