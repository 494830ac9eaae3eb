//! The inner loops of the aggregations, written so the compiler
//! vectorises them (or with intrinsics where it does not), and compiled
//! three times on x86-64 (baseline SSE2, AVX2 + FMA, AVX-512, chosen at
//! run time by `multiversion!`): all the time of an overview past the
//! cube is spent here.
//!
//! * [`add_interval_xlog2x`]: for one series `x[0..n]` (one cell's values
//!   per slice), add `f(Σ_{t=i..j} x[t])` with `f(v) = v log2 v` to the
//!   qualities of every interval `i..=j`. Running sums per start `i` are
//!   updated for each end `j` across all `i` at once (a contiguous loop), and
//!   a zero value of `x[j]` costs no logarithm (the sums did not change).
//!   This is `N²/2` logarithms per non-zero series: 3.5·10⁷ for Ocelotl's LU
//!   case (700 lines × 10 categories × 100 slices).
//! * [`segment_cols`] (module `fold`): the best segmentation of every
//!   interval of slices given the value of each block, the spatiotemporal
//!   programme's inner loops (`N³/6` steps per hierarchy node and `p`),
//!   vectorised over the starts of the intervals: sixteen starts'
//!   candidates stay in registers while one column is folded, a broadcast
//!   add and a `max` per step, no load or store of the candidates and no
//!   dependency between lanes.
//! * [`block_square`] (module `block`): the block values it folds, one
//!   part's criterion value per interval, the losses computed from the
//!   gains ([`LossOf`]); [`segment_row`], one start's row of both for the
//!   reconstruction.
//! * [`max_plus`]: `max_k a[k] + b[k]`, the temporal programme's inner loop.
//!
//! `log2` is computed here rather than by `f64::log2` (a libm call the
//! compiler cannot vectorise): the exponent from the bits, the mantissa
//! `m ∈ [√½, √2)` by `ln m = 2 atanh s`, `s = (m−1)/(m+1)`, `|s| ≤ 0.172`,
//! as a series in `s²` to `s¹⁹` (truncation below 10⁻¹⁷). The result is
//! within a few units in the last place of `f64::log2` (the unit test
//! checks 4 ulp), far below the aggregation's tie tolerance (10⁻¹¹ of the
//! problem's scale, [`super::criterion`]).

/// `2^54`, to lift subnormals into the normal range.
const TWO54: f64 = 18_014_398_509_481_984.0;
/// `1/(2k+1)`, `k = 0..10`: `atanh(s)/s = Σ s^{2k}/(2k+1)`.
const ATANH: [f64; 10] = [
    1.0,
    1.0 / 3.0,
    1.0 / 5.0,
    1.0 / 7.0,
    1.0 / 9.0,
    1.0 / 11.0,
    1.0 / 13.0,
    1.0 / 15.0,
    1.0 / 17.0,
    1.0 / 19.0,
];

#[inline(always)]
fn fma<const F: bool>(a: f64, b: f64, c: f64) -> f64 {
    if F {
        a.mul_add(b, c)
    } else {
        a * b + c
    }
}

/// `log2 x` for a positive finite `x` (branch-free: callers mask the rest).
#[inline(always)]
fn log2_pos<const F: bool>(x: f64) -> f64 {
    let sub = x < f64::MIN_POSITIVE;
    let x = if sub { x * TWO54 } else { x };
    let bits = x.to_bits();
    // The biased exponent as a float, without an integer conversion:
    // 2^52 + k has k in its low mantissa bits.
    let k = f64::from_bits((bits >> 52) | 0x4330_0000_0000_0000) - 4_503_599_627_370_496.0;
    let m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    let big = m > std::f64::consts::SQRT_2;
    let m = if big { m * 0.5 } else { m };
    let e = k - 1023.0 + if big { 1.0 } else { 0.0 } - if sub { 54.0 } else { 0.0 };
    let s = (m - 1.0) / (m + 1.0);
    let z = s * s;
    let mut q = ATANH[9];
    for c in ATANH[..9].iter().rev() {
        q = fma::<F>(q, z, *c);
    }
    fma::<F>(s * q, 2.0 * std::f64::consts::LOG2_E, e)
}

/// `x log2 x`, 0 for `x <= 0` (and for NaN).
#[inline(always)]
fn xlog2x_impl<const F: bool>(x: f64) -> f64 {
    let l = log2_pos::<F>(x);
    if x > 0.0 {
        x * l
    } else {
        0.0
    }
}

/// Whether this CPU runs the AVX2 + FMA versions.
#[inline]
fn avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether this CPU runs the AVX-512 versions (AVX2 + FMA checked too).
#[inline]
fn avx512() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx512f") && avx2()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// A kernel compiled three times: `$name` runs `$avx512_body` in `$avx512`
/// (built for AVX-512F + AVX2 + FMA: the same operations on twice the
/// lanes, so the same bits as `$avx`) or `$avx_body` in `$avx` (AVX2 + FMA)
/// when the CPU has them, else `$body` (the baseline build).
macro_rules! multiversion {
    ($(#[$m:meta])* fn $name:ident / $avx:ident / $avx512:ident ($($a:ident : $t:ty),*) $(-> $r:ty)?
        => $body:expr, $avx_body:expr, $avx512_body:expr) => {
        $(#[$m])*
        pub(crate) fn $name($($a: $t),*) $(-> $r)? {
            #[cfg(target_arch = "x86_64")]
            {
                if avx512() {
                    // SAFETY: the CPU has AVX-512F, AVX2 and FMA (checked above).
                    return unsafe { $avx512($($a),*) };
                }
                if avx2() {
                    // SAFETY: the CPU has AVX2 and FMA (checked above).
                    return unsafe { $avx($($a),*) };
                }
            }
            $body
        }

        $(#[$m])*
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2,fma")]
        pub(super) unsafe fn $avx($($a: $t),*) $(-> $r)? {
            $avx_body
        }

        $(#[$m])*
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx512f,avx2,fma")]
        pub(super) unsafe fn $avx512($($a: $t),*) $(-> $r)? {
            $avx512_body
        }
    };
}

mod block;
mod fold;

#[cfg(test)]
use block::{block_chunk_scalar, block_square_impl};
pub(crate) use block::{block_square, segment_row, LossOf, CHUNK};
#[cfg(all(test, target_arch = "x86_64"))]
use fold::segment_cols_avx2;
#[cfg(test)]
use fold::{fold2_scalar, fold_scalar, segment_cols_impl};
pub(crate) use fold::{segment_cols, segment_leaf, TILE};

multiversion! {
    /// `x log2 x`, 0 for `x <= 0`: the same function (bit for bit) the
    /// vector loops use on this CPU, so that a part of one cell gains exactly 0.
    fn xlog2x / xlog2x_avx2 / xlog2x_avx512 (x: f64) -> f64
        => xlog2x_impl::<false>(x), xlog2x_impl::<true>(x), xlog2x_impl::<true>(x)
}

/// Scratch of [`add_interval_xlog2x`]: running sums and their `x log2 x`
/// per start slice.
#[derive(Debug, Default, Clone)]
pub(crate) struct IntervalScratch {
    run: Vec<f64>,
    xl: Vec<f64>,
}

multiversion! {
    /// Add `xlog2x(Σ_{t=i..j} x[t])` to `out[end_tri(j) + i]` for every
    /// `j0 <= j < j1` and `i <= j` (rows `j0..j1` of an end-major triangle,
    /// `out` starting at row `j0`): module docs. `prefix` is the series'
    /// prefix sums (`prefix[t] = Σ_{s<t} x[s]`, `n + 1` entries), used to
    /// start at row `j0 > 0`.
    fn add_interval_xlog2x / add_interval_avx2 / add_interval_avx512 (
        x: &[f64], prefix: &[f64], j0: usize, j1: usize, out: &mut [f64], s: &mut IntervalScratch
    ) => add_interval::<false>(x, prefix, j0, j1, out, s),
        add_interval::<true>(x, prefix, j0, j1, out, s),
        add_interval::<true>(x, prefix, j0, j1, out, s)
}

#[inline(always)]
fn add_interval<const F: bool>(
    x: &[f64],
    prefix: &[f64],
    j0: usize,
    j1: usize,
    out: &mut [f64],
    s: &mut IntervalScratch,
) {
    let n = j1.min(x.len());
    s.run.clear();
    s.xl.clear();
    // Rows before j0: start from the prefix sums (exact for zero runs:
    // adding zeros leaves a prefix sum unchanged).
    for i in 0..j0.min(n) {
        let v = prefix[j0] - prefix[i];
        s.run.push(v);
        s.xl.push(xlog2x_impl::<F>(v));
    }
    let mut row = 0usize;
    for (j, &a) in x.iter().enumerate().take(n).skip(j0) {
        s.run.push(0.0);
        s.xl.push(0.0);
        if a != 0.0 {
            for (r, l) in s.run.iter_mut().zip(s.xl.iter_mut()) {
                *r += a;
                *l = xlog2x_impl::<F>(*r);
            }
        }
        let dst = &mut out[row..row + j + 1];
        for (d, l) in dst.iter_mut().zip(&s.xl) {
            *d += l;
        }
        row += j + 1;
    }
}

multiversion! {
    /// `max_k a[k] + b[k]` over the common length (`-inf` when empty).
    fn max_plus / max_plus_avx2 / max_plus_avx512 (a: &[f64], b: &[f64]) -> f64
        => max_plus_impl(a, b), max_plus_impl(a, b), max_plus_impl(a, b)
}

#[inline(always)]
fn max_plus_impl(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut m = [f64::NEG_INFINITY; 8];
    let (ac, bc) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ar, br) = (ac.remainder(), bc.remainder());
    for (x, y) in ac.zip(bc) {
        for l in 0..8 {
            let v = x[l] + y[l];
            m[l] = if v > m[l] { v } else { m[l] };
        }
    }
    for (l, (x, y)) in ar.iter().zip(br).enumerate() {
        let v = x + y;
        m[l] = if v > m[l] { v } else { m[l] };
    }
    m.iter()
        .fold(f64::NEG_INFINITY, |a, &b| if b > a { b } else { a })
}

multiversion! {
    /// `x[k] += y[k]` over the common length (a node's children's sums).
    fn add_to / add_to_avx2 / add_to_avx512 (x: &mut [f64], y: &[f64])
        => add_to_impl(x, y), add_to_impl(x, y), add_to_impl(x, y)
}

#[inline(always)]
fn add_to_impl(x: &mut [f64], y: &[f64]) {
    for (a, b) in x.iter_mut().zip(y) {
        *a += b;
    }
}

/// Ask for the cache line of `x` in L2 without waiting for it (a hint:
/// nothing on other CPUs).
#[inline(always)]
fn prefetch_l2(x: &f64) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing and faults on no address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T1 }>(
            (x as *const f64).cast(),
        )
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// Start of row `j` of an end-major triangle (`(i, j)` at
/// `end_tri(j) + i`, `i <= j`).
#[inline(always)]
pub(crate) fn end_tri(j: usize) -> usize {
    j * (j + 1) / 2
}

#[cfg(test)]
mod tests;
