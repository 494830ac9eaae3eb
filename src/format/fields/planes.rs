//! The byte planes of the field streams (`format::fields`): how a
//! stream's values become planes and back, and which planes are not
//! deflated.
//!
//! The writer cuts each numeric stream into byte planes ([`split_plane`])
//! and sends each plane one of three ways: a plane that is constant or
//! nearly so is coded by its exceptions ([`sparse`], undone by
//! [`fill_sparse`]); a plane whose bytes are close to uniform is noise
//! ([`is_noise`]), stored as it is beside the zlib stream; any other goes
//! to zlib. Both tests are cheap next to deflate, and each removes work
//! deflate does badly: walking runs one byte at a time, and coding bytes
//! it cannot shrink. The reader joins the planes back into values
//! ([`join_planes`]). The loops are written so that the compiler
//! vectorises them, with AVX2 copies chosen at run time.

use super::{bad, unzz};
use crate::error::Result;

/// A stream's width byte with this bit set is followed by a second mask:
/// its *sparse* planes (below).
pub(super) const SPARSE_FLAG: u8 = 0x80;

/// Code the plane at `out[at..]` as sparse if it is nearly constant
/// (`constant`: known to be): its last byte (the base), the count of bytes
/// that differ from it, then per such byte the gap since the one before
/// (varints) and the byte. Returns whether it did.
///
/// Why: deflate walks a run of equal bytes one byte at a time, each a
/// hash-table update that waits on the one before — in a conversion of an
/// MPE-style log, whose planes are mostly constant, that loop was a third
/// of the time — and the sparse form is as small. The reader fills the
/// plane back in (`Join::values`).
pub(super) fn sparse(out: &mut Vec<u8>, at: usize, constant: bool, scratch: &mut Vec<u8>) -> bool {
    let plane = &out[at..];
    let Some(&base) = plane.last() else {
        return false;
    };
    let limit = plane.len() / 32;
    scratch.clear();
    scratch.push(base);
    if constant {
        put_varint(scratch, 0);
    } else {
        // A quick look at the first bytes, then the whole count (a loop
        // the compiler vectorises).
        let head = &plane[..plane.len().min(64)];
        if head.iter().filter(|&&b| b != base).count() > 2 {
            return false;
        }
        let count = plane.iter().filter(|&&b| b != base).count();
        if count > limit {
            return false;
        }
        put_varint(scratch, count as u64);
        // The exceptions, eight bytes at a time: a word equal to the base
        // repeated holds none (most words of a sparse plane).
        let fill = u64::from_ne_bytes([base; 8]);
        let mut next = 0usize;
        let mut put = |from: usize, bytes: &[u8]| {
            for (k, &b) in bytes.iter().enumerate() {
                if b != base {
                    put_varint(scratch, (from + k - next) as u64);
                    scratch.push(b);
                    next = from + k + 1;
                }
            }
        };
        let mut words = plane.chunks_exact(8);
        let mut i = 0usize;
        for w in &mut words {
            let word = u64::from_ne_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
            if word != fill {
                put(i, w);
            }
            i += 8;
        }
        put(i, words.remainder());
    }
    out.truncate(at);
    out.extend_from_slice(scratch);
    true
}

/// Byte plane `k` (0: the lowest byte) of the values `v` into `out` (as long): a loop
/// the compiler vectorises (`extend` with a `map` did not: a byte at a
/// time, the pre-pass's largest loop).
pub(super) fn split_plane(out: &mut [u8], v: &[u64], k: usize) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked just above).
        return unsafe { split_plane_avx2(out, v, k) };
    }
    split_plane_any(out, v, k)
}

/// [`split_plane`] compiled for AVX2.
///
/// # Safety
/// Only on a CPU with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn split_plane_avx2(out: &mut [u8], v: &[u64], k: usize) {
    split_plane_any(out, v, k)
}

#[inline(always)]
fn split_plane_any(out: &mut [u8], v: &[u64], k: usize) {
    match k {
        0 => plane_of::<0>(out, v),
        1 => plane_of::<1>(out, v),
        2 => plane_of::<2>(out, v),
        3 => plane_of::<3>(out, v),
        4 => plane_of::<4>(out, v),
        5 => plane_of::<5>(out, v),
        6 => plane_of::<6>(out, v),
        _ => plane_of::<7>(out, v),
    }
}

/// Plane `K` (a constant: the shuffle the compiler vectorises with).
#[inline(always)]
fn plane_of<const K: u32>(out: &mut [u8], v: &[u64]) {
    let n = out.len().min(v.len());
    let (out, v) = (&mut out[..n], &v[..n]);
    let mut o = out.chunks_exact_mut(16);
    let mut x = v.chunks_exact(16);
    for (o, x) in (&mut o).zip(&mut x) {
        for j in 0..16 {
            o[j] = (x[j] >> (8 * K)) as u8;
        }
    }
    for (o, &x) in o.into_remainder().iter_mut().zip(x.remainder()) {
        *o = (x >> (8 * K)) as u8;
    }
}

/// A plane of at least 256 bytes whose byte histogram is flat enough (an
/// order-0 entropy above `bits`, [`noise_bits`] of the level): the low
/// bytes of times, random payloads.
pub(super) fn is_noise(plane: &[u8], bits: f64) -> bool {
    if plane.len() < 256 {
        return false;
    }
    // A first look: fewer than 32 distinct bytes among the first 256 is
    // far from flat (a flat plane shows ~160 there).
    let mut seen = [false; 256];
    for &b in &plane[..256] {
        seen[b as usize] = true;
    }
    if seen.iter().filter(|&&x| x).count() < 32 {
        return false;
    }
    // Four histograms, summed after: a run of equal bytes then costs four
    // independent increments, not a chain of increments of one counter
    // (each waiting on the last: in an MPE-style log's planes that chain
    // was most of the pre-pass's time).
    let mut four = [[0u32; 256]; 4];
    let mut chunks = plane.chunks_exact(4);
    for c in &mut chunks {
        four[0][c[0] as usize] += 1;
        four[1][c[1] as usize] += 1;
        four[2][c[2] as usize] += 1;
        four[3][c[3] as usize] += 1;
    }
    for &b in chunks.remainder() {
        four[0][b as usize] += 1;
    }
    let mut counts = four[0];
    for h in &four[1..] {
        for (c, &x) in counts.iter_mut().zip(h) {
            *c += x;
        }
    }
    // Entropy is at most log2 of the distinct values: no more than
    // 2^bits (32 or 90.5) cannot be noise, and need no logarithms.
    if counts.iter().filter(|&&c| c > 0).count() as f64 <= bits.exp2() {
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
    n.log2() - sum / n > bits
}

/// The order-0 entropy (bits per byte) above which a plane is stored
/// rather than deflated, at levels above the fastest. Measured (BENCHMARKS.md,
/// "Writing"): from 7.5 down to 6.5 the files get *smaller* (10M synthetic
/// 0.346 -> 0.342x, 1M text trace 15.90 -> 15.68 MB) and the writer cheaper
/// (callgrind, `bench write 300000 --compress`, -6 %): such a plane sits in
/// one deflate block with the skewed planes around it, and sharing their
/// Huffman codes costs more than its skew saves. Below 6.3 the files grow
/// again.
pub(super) const NOISE_BITS: f64 = 6.5;

/// The cut at the fastest level (the default): planes above 5 bits are
/// stored too. Measured on the 1M text trace: the compressed conversion
/// takes 10 % less CPU (farm-bench, 15 pairs: 0.276 -> 0.247 CPU-s) for
/// 0.8 % more bytes (15.63 -> 15.76 MB); the 10M synthetic stays 0.342x
/// (0.341x at 6.5), an MPE-style CLOG2 log 0.038x. Cuts of 4.5 and 4.0 save
/// no more CPU.
pub(super) const FAST_NOISE_BITS: f64 = 5.0;

/// The noise cut (see the two constants): `fast` at the fastest level.
pub(crate) fn noise_bits(fast: bool) -> f64 {
    if fast {
        FAST_NOISE_BITS
    } else {
        NOISE_BITS
    }
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

pub(super) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Append a sparse plane of `n` bytes, coded at `streams[*pos..]`
/// (`sparse`), to `out`; every exception must fall inside the plane.
pub(super) fn fill_sparse(
    streams: &[u8],
    pos: &mut usize,
    n: usize,
    out: &mut Vec<u8>,
) -> Result<()> {
    let base = *streams
        .get(*pos)
        .ok_or_else(|| bad("sparse plane cut short"))?;
    *pos += 1;
    let count = varint(streams, pos)?;
    if count > n as u64 {
        return Err(bad("sparse plane with more exceptions than bytes"));
    }
    let start = out.len();
    out.resize(start + n, base);
    let plane = &mut out[start..];
    let mut next = 0usize;
    for _ in 0..count {
        let gap = varint(streams, pos)?;
        let i = usize::try_from(gap)
            .ok()
            .and_then(|g| next.checked_add(g))
            .filter(|&i| i < n)
            .ok_or_else(|| bad("sparse plane exception beyond the plane"))?;
        plane[i] = *streams
            .get(*pos)
            .ok_or_else(|| bad("sparse plane cut short"))?;
        *pos += 1;
        next = i + 1;
    }
    Ok(())
}

pub(super) fn varint(streams: &[u8], pos: &mut usize) -> Result<u64> {
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
/// (`planes` back to back, lowest first), to `values`, zig-zag decoded
/// when `ZZ`: a pass per plane, each a loop the compiler vectorises (one
/// pass assembling each value from its bytes was 1.8 times the
/// instructions), the decoding folded into the last.
pub(super) fn join_planes<const ZZ: bool>(values: &mut Vec<u64>, planes: &[&[u8]]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked just above).
        return unsafe { join_planes_avx2::<ZZ>(values, planes) };
    }
    join_planes_any::<ZZ>(values, planes)
}

/// [`join_planes`] compiled for AVX2: four values per instruction where
/// the baseline (SSE2) widens bytes two at a time, in several steps.
///
/// # Safety
/// Only on a CPU with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn join_planes_avx2<const ZZ: bool>(values: &mut Vec<u64>, planes: &[&[u8]]) {
    join_planes_any::<ZZ>(values, planes)
}

#[inline(always)]
fn join_planes_any<const ZZ: bool>(values: &mut Vec<u64>, planes: &[&[u8]]) {
    let dec = |x: u64| if ZZ { unzz(x) as u64 } else { x };
    let Some((last, lower)) = planes.split_last() else {
        return;
    };
    let at = values.len();
    let Some((first, middle)) = lower.split_first() else {
        values.extend(last.iter().map(|&b| dec(u64::from(b))));
        return;
    };
    values.extend(first.iter().map(|&b| u64::from(b)));
    let v = &mut values[at..];
    for (k, plane) in middle.iter().enumerate() {
        let shift = 8 * (k + 1) as u32;
        for (v, &b) in v.iter_mut().zip(plane.iter()) {
            *v |= u64::from(b) << shift;
        }
    }
    let shift = 8 * lower.len() as u32;
    for (v, &b) in v.iter_mut().zip(last.iter()) {
        *v = dec(*v | u64::from(b) << shift);
    }
}
