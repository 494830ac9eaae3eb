//! The two inner loops of the aggregations, written so the compiler
//! vectorises them, and compiled twice on x86-64 (baseline SSE2, and
//! AVX2 + FMA chosen at run time): all the time of an overview past the
//! cube is spent here.
//!
//! * [`add_interval_xlog2x`]: for one series `x[0..n]` (one cell's values
//!   per slice), add `f(Σ_{t=i..j} x[t])` with `f(v) = v log2 v` to the
//!   qualities of every interval `i..=j`. Running sums per start `i` are
//!   updated for each end `j` across all `i` at once (a contiguous loop), and
//!   a zero value of `x[j]` costs no logarithm (the sums did not change).
//!   This is `N²/2` logarithms per non-zero series: 3.5·10⁷ for Ocelotl's LU
//!   case (700 lines × 10 categories × 100 slices).
//! * [`segment_cols`]: the best segmentation of every interval of slices
//!   given the value of each block, the spatiotemporal programme's inner
//!   loops (`N³/6` steps per hierarchy node and `p`), vectorised over the
//!   starts of the intervals: sixteen starts' candidates stay in registers
//!   while one column is folded, a broadcast add and a `max` per step, no
//!   load or store of the candidates and no dependency between lanes.
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
        unsafe fn $avx($($a: $t),*) $(-> $r)? {
            $avx_body
        }

        $(#[$m])*
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx512f,avx2,fma")]
        unsafe fn $avx512($($a: $t),*) $(-> $r)? {
            $avx512_body
        }
    };
}

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

/// Rows of one tile of [`segment_cols`]: the interval starts whose values
/// are kept in registers while a column is computed.
pub(crate) const TILE: usize = 16;

/// Columns at the start of a tile whose upper 8 lanes are `-inf`: the
/// folds of [`segment_cols`] read a tile's own columns from its first, and
/// `val(i, c)` is `-inf` for `c < i`, so column `i0 + t` holds values only
/// in lanes `0..=t`. The vector folds skip the upper 8 lanes there (an
/// eighth of the fold's work at N = 100; `max` with `-inf` changes
/// nothing) but for AVX2's one-column fold, run at most once a tile.
const HEAD: usize = 8;

multiversion! {
    /// The best segmentation value of every interval: `val(i, j) = max(a(i,
    /// j), max_{c in i+1..=j} val(i, c-1) + a(c, j))` for all `i <= j < n`.
    ///
    /// `a` is square and column-major: `a(i, j)` at `j * np + i`, `np` a
    /// multiple of [`TILE`] at least `n`, `-inf` where `i > j`. The values
    /// come out tile-major: `val(i, j)` at `((i / TILE) * n + j) * TILE + i %
    /// TILE` (`-inf` where `j >= i` rounded down to a tile `> i`; the
    /// columns left of a tile's first start are left as they are).
    ///
    /// Pull order, vectorised over starts: rows `i` of one tile are
    /// independent of every other row, so a tile's column `j` is one
    /// register block of [`TILE`] candidates, folded over `c` with a
    /// broadcast add and a `max` (no load or store of the candidates inside
    /// the loop); column `c − 1` of the tile is final before column `j`
    /// needs it. Lanes where `c <= i` read `val(i, c−1) = -inf` and change
    /// nothing, so no lane needs a mask.
    fn segment_cols / segment_cols_avx2 / segment_cols_avx512 (
        a: &[f64], n: usize, np: usize, val: &mut [f64]
    ) => segment_cols_impl(a, n, np, val, fold_scalar, fold2_scalar, |_, _, _| {}),
        cols_with!(fold_avx2, fold2_avx2, a, n, np, val, |_, _, _| {}),
        cols_with!(fold_avx512, fold2_avx512, a, n, np, val, |_, _, _| {})
}

/// [`segment_cols_impl`] with one build's folds (`unsafe` calls: expand it
/// only in the function of the build whose CPU features they need).
macro_rules! cols_with {
    ($fold:ident, $fold2:ident, $a:expr, $n:expr, $np:expr, $val:expr, $out:expr) => {
        segment_cols_impl(
            $a,
            $n,
            $np,
            $val,
            // SAFETY: expanded only in the build of the folds' CPU features.
            |acc, b, v| unsafe { $fold(acc, b, v) },
            // SAFETY: as above.
            |acc0, acc1, b0, b1, v| unsafe { $fold2(acc0, acc1, b0, b1, v) },
            $out,
        )
    };
}
use cols_with;

multiversion! {
    /// [`segment_cols`] of a leaf, whose values are only needed summed into
    /// its parent's square and, for the first row, kept: each tile's
    /// column goes into `parent` (a square of `a`'s layout) as it is made,
    /// copied there for a parent's first child (`first`) and added for the
    /// others, and `row[j] = val(0, j)`. The same values as
    /// [`segment_cols`], summed as they are made instead of read back from
    /// `val` afterwards.
    #[allow(clippy::too_many_arguments)]
    fn segment_leaf / segment_leaf_avx2 / segment_leaf_avx512 (
        a: &[f64], n: usize, np: usize, val: &mut [f64], parent: &mut [f64], first: bool,
        row: &mut [f64], ahead: [&[f64]; 2]
    ) => segment_cols_impl(
            a, n, np, val, fold_scalar, fold2_scalar,
            leaf_out(parent, row, n, np, first, ahead),
        ),
        cols_with!(fold_avx2, fold2_avx2, a, n, np, val, leaf_out(parent, row, n, np, first, ahead)),
        cols_with!(fold_avx512, fold2_avx512, a, n, np, val, leaf_out(parent, row, n, np, first, ahead))
}

/// [`segment_leaf`]'s output: each tile's column to [`put_tile`], counted.
#[inline(always)]
fn leaf_out<'a>(
    parent: &'a mut [f64],
    row: &'a mut [f64],
    n: usize,
    np: usize,
    first: bool,
    ahead: [&'a [f64]; 2],
) -> impl FnMut(usize, usize, &[f64; TILE]) + 'a {
    assert!(
        parent.len() >= np * n && row.len() >= n,
        "segment_leaf: {n} slices"
    );
    let mut q = 0;
    move |i0, j, x| put_tile(parent, row, np, i0, j, x, first, ahead, &mut q)
}

/// [`segment_leaf`]'s output of one tile's column (`i0`, `j`), the `q`-th;
/// and two more cache lines of each of `ahead` asked for in L2.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn put_tile(
    parent: &mut [f64],
    row: &mut [f64],
    np: usize,
    i0: usize,
    j: usize,
    x: &[f64; TILE],
    first: bool,
    ahead: [&[f64]; 2],
    q: &mut usize,
) {
    for a in ahead {
        for k in [2 * *q, 2 * *q + 1] {
            if let Some(line) = a.get(k * 8) {
                prefetch_l2(line);
            }
        }
    }
    *q += 1;
    let dst: &mut [f64; TILE] = (&mut parent[j * np + i0..j * np + i0 + TILE])
        .try_into()
        .expect("a tile");
    if first {
        *dst = *x;
    } else {
        for (d, y) in dst.iter_mut().zip(x) {
            *d += y;
        }
    }
    if i0 == 0 {
        row[j] = x[0];
    }
}

/// `acc[k] = max(acc[k], max_t v[t][k] + b[t])` over the columns `v` (each
/// [`TILE`] values, `v.len() == TILE * b.len()`).
#[inline(always)]
fn fold_scalar(acc: &mut [f64; TILE], b: &[f64], v: &[f64]) {
    for (t, &bt) in b.iter().enumerate() {
        let col = &v[t * TILE..(t + 1) * TILE];
        for k in 0..TILE {
            let x = col[k] + bt;
            acc[k] = if x > acc[k] { x } else { acc[k] };
        }
    }
}

/// [`fold_scalar`] with AVX2: the [`TILE`] candidates in four registers,
/// two sets of them (even and odd `t`) so that consecutive `max`es do not
/// wait on each other.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn fold_avx2(acc: &mut [f64; TILE], b: &[f64], v: &[f64]) {
    use std::arch::x86_64::*;
    assert!(v.len() >= b.len() * TILE);
    let m = b.len();
    let p = v.as_ptr();
    // SAFETY: every load reads v[t * TILE..(t + 1) * TILE] with t < m
    // (asserted above) or acc's own TILE values.
    unsafe {
        let mut e = [
            _mm256_loadu_pd(acc.as_ptr()),
            _mm256_loadu_pd(acc.as_ptr().add(4)),
            _mm256_loadu_pd(acc.as_ptr().add(8)),
            _mm256_loadu_pd(acc.as_ptr().add(12)),
        ];
        let mut o = [_mm256_set1_pd(f64::NEG_INFINITY); 4];
        let mut t = 0;
        while t + 2 <= m {
            let b0 = _mm256_set1_pd(*b.get_unchecked(t));
            let b1 = _mm256_set1_pd(*b.get_unchecked(t + 1));
            let c0 = p.add(t * TILE);
            let c1 = p.add((t + 1) * TILE);
            for (k, (ek, ok)) in e.iter_mut().zip(o.iter_mut()).enumerate() {
                *ek = _mm256_max_pd(*ek, _mm256_add_pd(_mm256_loadu_pd(c0.add(4 * k)), b0));
                *ok = _mm256_max_pd(*ok, _mm256_add_pd(_mm256_loadu_pd(c1.add(4 * k)), b1));
            }
            t += 2;
        }
        if t < m {
            let b0 = _mm256_set1_pd(*b.get_unchecked(t));
            let c0 = p.add(t * TILE);
            for (k, ek) in e.iter_mut().enumerate() {
                *ek = _mm256_max_pd(*ek, _mm256_add_pd(_mm256_loadu_pd(c0.add(4 * k)), b0));
            }
        }
        for (k, (ek, ok)) in e.iter().zip(&o).enumerate() {
            _mm256_storeu_pd(acc.as_mut_ptr().add(4 * k), _mm256_max_pd(*ek, *ok));
        }
    }
}

/// [`fold_scalar`] with AVX-512: the [`TILE`] candidates in two registers,
/// two sets of them as in [`fold_avx2`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn fold_avx512(acc: &mut [f64; TILE], b: &[f64], v: &[f64]) {
    use std::arch::x86_64::*;
    assert!(v.len() >= b.len() * TILE);
    let m = b.len();
    let p = v.as_ptr();
    // SAFETY: as in fold_avx2.
    unsafe {
        let mut e0 = _mm512_loadu_pd(acc.as_ptr());
        let mut e1 = _mm512_loadu_pd(acc.as_ptr().add(8));
        let mut o0 = _mm512_set1_pd(f64::NEG_INFINITY);
        let mut o1 = o0;
        let mut t = 0;
        // The tile's first 8 columns: the upper lanes are -inf ([`HEAD`]).
        let head = m.min(HEAD);
        while t + 2 <= head {
            let b0 = _mm512_set1_pd(*b.get_unchecked(t));
            let b1 = _mm512_set1_pd(*b.get_unchecked(t + 1));
            e0 = _mm512_max_pd(e0, _mm512_add_pd(_mm512_loadu_pd(p.add(t * TILE)), b0));
            o0 = _mm512_max_pd(
                o0,
                _mm512_add_pd(_mm512_loadu_pd(p.add((t + 1) * TILE)), b1),
            );
            t += 2;
        }
        if t < head {
            let b0 = _mm512_set1_pd(*b.get_unchecked(t));
            e0 = _mm512_max_pd(e0, _mm512_add_pd(_mm512_loadu_pd(p.add(t * TILE)), b0));
            t += 1;
        }
        while t + 2 <= m {
            let b0 = _mm512_set1_pd(*b.get_unchecked(t));
            let b1 = _mm512_set1_pd(*b.get_unchecked(t + 1));
            let c0 = p.add(t * TILE);
            let c1 = p.add((t + 1) * TILE);
            e0 = _mm512_max_pd(e0, _mm512_add_pd(_mm512_loadu_pd(c0), b0));
            e1 = _mm512_max_pd(e1, _mm512_add_pd(_mm512_loadu_pd(c0.add(8)), b0));
            o0 = _mm512_max_pd(o0, _mm512_add_pd(_mm512_loadu_pd(c1), b1));
            o1 = _mm512_max_pd(o1, _mm512_add_pd(_mm512_loadu_pd(c1.add(8)), b1));
            t += 2;
        }
        if t < m {
            let b0 = _mm512_set1_pd(*b.get_unchecked(t));
            let c0 = p.add(t * TILE);
            e0 = _mm512_max_pd(e0, _mm512_add_pd(_mm512_loadu_pd(c0), b0));
            e1 = _mm512_max_pd(e1, _mm512_add_pd(_mm512_loadu_pd(c0.add(8)), b0));
        }
        _mm512_storeu_pd(acc.as_mut_ptr(), _mm512_max_pd(e0, o0));
        _mm512_storeu_pd(acc.as_mut_ptr().add(8), _mm512_max_pd(e1, o1));
    }
}

/// [`fold_scalar`] for two columns at once: `acc0` with the broadcasts
/// `b0`, `acc1` with `b1`, over the same columns `v` (each loaded once for
/// both).
#[inline(always)]
fn fold2_scalar(acc0: &mut [f64; TILE], acc1: &mut [f64; TILE], b0: &[f64], b1: &[f64], v: &[f64]) {
    fold_scalar(acc0, b0, v);
    fold_scalar(acc1, b1, v);
}

/// [`fold2_scalar`] with AVX2: each column's [`TILE`] candidates in four
/// registers, each loaded column used by both.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn fold2_avx2(
    acc0: &mut [f64; TILE],
    acc1: &mut [f64; TILE],
    b0: &[f64],
    b1: &[f64],
    v: &[f64],
) {
    use std::arch::x86_64::*;
    let m = b0.len();
    assert!(b1.len() == m && v.len() >= m * TILE);
    let p = v.as_ptr();
    // SAFETY: every load reads v[t * TILE..(t + 1) * TILE] with t < m
    // (asserted above), b0[t], b1[t], or the accumulators' own values.
    unsafe {
        let mut e = [_mm256_setzero_pd(); 4];
        let mut f = [_mm256_setzero_pd(); 4];
        for k in 0..4 {
            e[k] = _mm256_loadu_pd(acc0.as_ptr().add(4 * k));
            f[k] = _mm256_loadu_pd(acc1.as_ptr().add(4 * k));
        }
        // The tile's first 8 columns: the upper two registers are -inf
        // ([`HEAD`]).
        let head = m.min(HEAD);
        for t in 0..head {
            let x = _mm256_set1_pd(*b0.get_unchecked(t));
            let y = _mm256_set1_pd(*b1.get_unchecked(t));
            let c = p.add(t * TILE);
            for k in 0..2 {
                let w = _mm256_loadu_pd(c.add(4 * k));
                e[k] = _mm256_max_pd(e[k], _mm256_add_pd(w, x));
                f[k] = _mm256_max_pd(f[k], _mm256_add_pd(w, y));
            }
        }
        for t in head..m {
            let x = _mm256_set1_pd(*b0.get_unchecked(t));
            let y = _mm256_set1_pd(*b1.get_unchecked(t));
            let c = p.add(t * TILE);
            for k in 0..4 {
                let w = _mm256_loadu_pd(c.add(4 * k));
                e[k] = _mm256_max_pd(e[k], _mm256_add_pd(w, x));
                f[k] = _mm256_max_pd(f[k], _mm256_add_pd(w, y));
            }
        }
        for k in 0..4 {
            _mm256_storeu_pd(acc0.as_mut_ptr().add(4 * k), e[k]);
            _mm256_storeu_pd(acc1.as_mut_ptr().add(4 * k), f[k]);
        }
    }
}

/// [`fold2_scalar`] with AVX-512: each column's candidates in two
/// registers, two sets of them (even and odd `t`) as in [`fold_avx512`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn fold2_avx512(
    acc0: &mut [f64; TILE],
    acc1: &mut [f64; TILE],
    b0: &[f64],
    b1: &[f64],
    v: &[f64],
) {
    use std::arch::x86_64::*;
    let m = b0.len();
    assert!(b1.len() == m && v.len() >= m * TILE);
    let p = v.as_ptr();
    // SAFETY: as in fold2_avx2.
    unsafe {
        let ninf = _mm512_set1_pd(f64::NEG_INFINITY);
        let mut e0 = _mm512_loadu_pd(acc0.as_ptr());
        let mut e1 = _mm512_loadu_pd(acc0.as_ptr().add(8));
        let mut f0 = _mm512_loadu_pd(acc1.as_ptr());
        let mut f1 = _mm512_loadu_pd(acc1.as_ptr().add(8));
        let (mut g0, mut g1, mut h0, mut h1) = (ninf, ninf, ninf, ninf);
        let mut t = 0;
        // The tile's first 8 columns: the upper lanes are -inf ([`HEAD`]).
        let head = m.min(HEAD);
        while t + 2 <= head {
            let x0 = _mm512_set1_pd(*b0.get_unchecked(t));
            let y0 = _mm512_set1_pd(*b1.get_unchecked(t));
            let x1 = _mm512_set1_pd(*b0.get_unchecked(t + 1));
            let y1 = _mm512_set1_pd(*b1.get_unchecked(t + 1));
            let v0 = _mm512_loadu_pd(p.add(t * TILE));
            let w0 = _mm512_loadu_pd(p.add((t + 1) * TILE));
            e0 = _mm512_max_pd(e0, _mm512_add_pd(v0, x0));
            f0 = _mm512_max_pd(f0, _mm512_add_pd(v0, y0));
            g0 = _mm512_max_pd(g0, _mm512_add_pd(w0, x1));
            h0 = _mm512_max_pd(h0, _mm512_add_pd(w0, y1));
            t += 2;
        }
        if t < head {
            let x0 = _mm512_set1_pd(*b0.get_unchecked(t));
            let y0 = _mm512_set1_pd(*b1.get_unchecked(t));
            let v0 = _mm512_loadu_pd(p.add(t * TILE));
            e0 = _mm512_max_pd(e0, _mm512_add_pd(v0, x0));
            f0 = _mm512_max_pd(f0, _mm512_add_pd(v0, y0));
            t += 1;
        }
        while t + 2 <= m {
            let x0 = _mm512_set1_pd(*b0.get_unchecked(t));
            let y0 = _mm512_set1_pd(*b1.get_unchecked(t));
            let x1 = _mm512_set1_pd(*b0.get_unchecked(t + 1));
            let y1 = _mm512_set1_pd(*b1.get_unchecked(t + 1));
            let c0 = p.add(t * TILE);
            let c1 = p.add((t + 1) * TILE);
            let (v0, v1) = (_mm512_loadu_pd(c0), _mm512_loadu_pd(c0.add(8)));
            let (w0, w1) = (_mm512_loadu_pd(c1), _mm512_loadu_pd(c1.add(8)));
            e0 = _mm512_max_pd(e0, _mm512_add_pd(v0, x0));
            e1 = _mm512_max_pd(e1, _mm512_add_pd(v1, x0));
            f0 = _mm512_max_pd(f0, _mm512_add_pd(v0, y0));
            f1 = _mm512_max_pd(f1, _mm512_add_pd(v1, y0));
            g0 = _mm512_max_pd(g0, _mm512_add_pd(w0, x1));
            g1 = _mm512_max_pd(g1, _mm512_add_pd(w1, x1));
            h0 = _mm512_max_pd(h0, _mm512_add_pd(w0, y1));
            h1 = _mm512_max_pd(h1, _mm512_add_pd(w1, y1));
            t += 2;
        }
        if t < m {
            let x0 = _mm512_set1_pd(*b0.get_unchecked(t));
            let y0 = _mm512_set1_pd(*b1.get_unchecked(t));
            let c0 = p.add(t * TILE);
            let (v0, v1) = (_mm512_loadu_pd(c0), _mm512_loadu_pd(c0.add(8)));
            e0 = _mm512_max_pd(e0, _mm512_add_pd(v0, x0));
            e1 = _mm512_max_pd(e1, _mm512_add_pd(v1, x0));
            f0 = _mm512_max_pd(f0, _mm512_add_pd(v0, y0));
            f1 = _mm512_max_pd(f1, _mm512_add_pd(v1, y0));
        }
        _mm512_storeu_pd(acc0.as_mut_ptr(), _mm512_max_pd(e0, g0));
        _mm512_storeu_pd(acc0.as_mut_ptr().add(8), _mm512_max_pd(e1, g1));
        _mm512_storeu_pd(acc1.as_mut_ptr(), _mm512_max_pd(f0, h0));
        _mm512_storeu_pd(acc1.as_mut_ptr().add(8), _mm512_max_pd(f1, h1));
    }
}

#[inline(always)]
fn segment_cols_impl(
    a: &[f64],
    n: usize,
    np: usize,
    val: &mut [f64],
    fold: impl Fn(&mut [f64; TILE], &[f64], &[f64]),
    fold2: impl Fn(&mut [f64; TILE], &mut [f64; TILE], &[f64], &[f64], &[f64]),
    mut out: impl FnMut(usize, usize, &[f64; TILE]),
) {
    let tiles = n.div_ceil(TILE);
    assert!(
        np.is_multiple_of(TILE) && np >= n && a.len() >= np * n && val.len() >= tiles * n * TILE,
        "segment_cols: {n} slices in squares of {np}"
    );
    for (t, tile) in val.chunks_exact_mut(n * TILE).take(tiles).enumerate() {
        let i0 = t * TILE;
        // Columns left of the tile's first start hold no interval and are
        // neither read nor written.
        // Two columns at a time (each loaded column serves both), the
        // second's last step (c = j + 1, column j) once the first is done.
        let mut j = i0;
        while j + 1 < n {
            let (c0, c1) = (&a[j * np..(j + 1) * np], &a[(j + 1) * np..(j + 2) * np]);
            let mut acc0 = [0.0; TILE];
            let mut acc1 = [0.0; TILE];
            acc0.copy_from_slice(&c0[i0..i0 + TILE]);
            acc1.copy_from_slice(&c1[i0..i0 + TILE]);
            let (done, rest) = tile.split_at_mut(j * TILE);
            let v = &done[i0 * TILE..];
            fold2(&mut acc0, &mut acc1, &c0[i0 + 1..=j], &c1[i0 + 1..=j], v);
            rest[..TILE].copy_from_slice(&acc0);
            let b = c1[j + 1];
            for (y, x) in acc1.iter_mut().zip(&acc0) {
                let x = x + b;
                *y = if x > *y { x } else { *y };
            }
            rest[TILE..2 * TILE].copy_from_slice(&acc1);
            out(i0, j, &acc0);
            out(i0, j + 1, &acc1);
            j += 2;
        }
        if j < n {
            let col = &a[j * np..(j + 1) * np];
            let mut acc = [0.0; TILE];
            acc.copy_from_slice(&col[i0..i0 + TILE]);
            // c = i0+1..=j: broadcasts a(c, j), columns c-1 = i0..j.
            let (done, rest) = tile.split_at_mut(j * TILE);
            fold(&mut acc, &col[i0 + 1..=j], &done[i0 * TILE..]);
            rest[..TILE].copy_from_slice(&acc);
            out(i0, j, &acc);
        }
    }
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

/// Rows of one chunk of [`block_square`]: a column is written in whole
/// chunks, its rows past the diagonal set to `-inf`.
pub(crate) const CHUNK: usize = 8;

/// What a node's losses are made of: `loss(i, j) = log2(|h|·(j − i + 1)) ·
/// (tot[j + 1] − tot[i]) − gain(i, j)`, as
/// [`gain_loss`](super::temporal::gain_loss) computes them (the same
/// operations, so the same bits). The spatiotemporal programme computes
/// them where it needs them instead of reading a stored triangle: that
/// halves its qualities (16 → 8 bytes a node-interval, 65 → 32 MB in the LU
/// case), which are read from memory at every batch of the p-curve: the
/// loss's load stalled [`block_square`] as much as the gain's, and a
/// one-shot CLI curve's process took 190 MB, now 158.
#[derive(Debug, Clone, Default)]
pub(crate) struct LossOf {
    /// Prefix sums of the node's values per slice (`n + 1`), then
    /// [`CHUNK`] of padding.
    pub tot: Vec<f64>,
    /// `lg[m] = log2(|h|·(n − m))` for `m < n` (the log sizes reversed,
    /// so that a column's are contiguous: `(i, j)` at `n − 1 − j + i`),
    /// then [`CHUNK`] of padding.
    pub lg: Vec<f64>,
}

impl LossOf {
    /// The recipe of a node `size` lines tall over `n` slices whose values
    /// per slice have the prefix sums `tot` (`n + 1`).
    pub fn new(mut tot: Vec<f64>, n: usize, size: f64) -> LossOf {
        let mut lg: Vec<f64> = (1..=n)
            .rev()
            .map(|len| (size * len as f64).log2())
            .collect();
        lg.resize(n + CHUNK, 0.0);
        tot.resize(n + 1 + CHUNK, 0.0);
        LossOf { tot, lg }
    }

    fn slices(&self) -> usize {
        self.lg.len() - CHUNK
    }

    /// The loss of `(i, j)` whose gain is `g`.
    #[inline(always)]
    pub fn loss(&self, i: usize, j: usize, g: f64) -> f64 {
        let n = self.slices();
        self.lg[n - 1 - j + i] * (self.tot[j + 1] - self.tot[i]) - g
    }

    /// Column `j`'s `tot[j + 1]` and its rows' `lg` and `tot` from row 0,
    /// `w` of each.
    #[inline(always)]
    fn col(&self, j: usize, w: usize) -> (f64, &[f64], &[f64]) {
        let n = self.slices();
        (self.tot[j + 1], &self.lg[n - 1 - j..][..w], &self.tot[..w])
    }
}

multiversion! {
    /// The block values of every column of a node, into the programme's
    /// square (`a(i, j)` at `j * np + i`, [`segment_cols`]): rows `i <= j`
    /// get `x = max(x, v)` (or `x = v` when `!kids`) with `v = p·gain −
    /// q·loss − cost` (the loss computed, [`LossOf`]), the criterion's value of one part (`pqc = [p, 1 −
    /// p, cost]`, computed as [`super::criterion::Criterion::value`] does,
    /// bit for bit), rows
    /// past `j` up to the end of the column's last [`CHUNK`] `-inf` (with
    /// `kids` they already are, and stay). Whole chunks only, so no scalar
    /// tails: `gain` is end-major and padded with [`CHUNK`]
    /// values past `end_tri(n)`; `np` is a multiple of [`CHUNK`].
    fn block_square / block_square_avx2 / block_square_avx512 (
        a: &mut [f64], gain: &[f64], loss: &LossOf, n: usize, np: usize, pqc: [f64; 3], kids: bool
    ) => block_square_impl(a, gain, loss, n, np, pqc, kids, block_chunk_scalar),
        block_square_impl(a, gain, loss, n, np, pqc, kids, |x, g, l, pqc, live, kids| {
            // SAFETY: this is the AVX2 build, run only on CPUs that have it.
            unsafe { block_chunk_avx2(x, g, l, pqc, live, kids) }
        }),
        block_square_impl(a, gain, loss, n, np, pqc, kids, |x, g, l, pqc, live, kids| {
            // SAFETY: this is the AVX-512 build, run only on CPUs that have it.
            unsafe { block_chunk_avx512(x, g, l, pqc, live, kids) }
        })
}

/// One chunk's loss operands ([`LossOf`]): `tot[j + 1]`, and per row its
/// `lg` and `tot`.
type LossChunk<'a> = (f64, &'a [f64; CHUNK], &'a [f64; CHUNK]);

/// One chunk of [`block_square`]: its first `live` rows valued, the rest
/// `-inf`.
#[inline(always)]
fn block_chunk_scalar(
    x: &mut [f64; CHUNK],
    g: &[f64; CHUNK],
    (tj, lg, t): LossChunk,
    [p, q, cost]: [f64; 3],
    live: usize,
    kids: bool,
) {
    for k in 0..CHUNK {
        let l = lg[k] * (tj - t[k]) - g[k];
        let v = p * g[k] - q * l - cost;
        let v = if k < live { v } else { f64::NEG_INFINITY };
        x[k] = if kids && x[k] > v { x[k] } else { v };
    }
}

/// [`block_chunk_scalar`] with AVX2, two registers: `max(x, v)` is `x > v
/// ? x : v` (`vmaxpd`'s rule), the same bits.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn block_chunk_avx2(
    x: &mut [f64; CHUNK],
    g: &[f64; CHUNK],
    (tj, lg, t): LossChunk,
    [p, q, cost]: [f64; 3],
    live: usize,
    kids: bool,
) {
    use std::arch::x86_64::*;
    let (pv, qv, cv) = (_mm256_set1_pd(p), _mm256_set1_pd(q), _mm256_set1_pd(cost));
    let ninf = _mm256_set1_pd(f64::NEG_INFINITY);
    let lv = _mm256_set1_pd(live as f64);
    let tjv = _mm256_set1_pd(tj);
    for h in 0..2 {
        // SAFETY: each array holds CHUNK = 8 values; h * 4 + 4 <= 8.
        unsafe {
            let o = h * 4;
            let gv = _mm256_loadu_pd(g.as_ptr().add(o));
            let s = _mm256_sub_pd(tjv, _mm256_loadu_pd(t.as_ptr().add(o)));
            let lo = _mm256_sub_pd(_mm256_mul_pd(_mm256_loadu_pd(lg.as_ptr().add(o)), s), gv);
            let v = _mm256_sub_pd(
                _mm256_sub_pd(_mm256_mul_pd(pv, gv), _mm256_mul_pd(qv, lo)),
                cv,
            );
            let idx = _mm256_set_pd(o as f64 + 3.0, o as f64 + 2.0, o as f64 + 1.0, o as f64);
            let v = _mm256_blendv_pd(ninf, v, _mm256_cmp_pd::<_CMP_LT_OQ>(idx, lv));
            let r = if kids {
                _mm256_max_pd(_mm256_loadu_pd(x.as_ptr().add(o)), v)
            } else {
                v
            };
            _mm256_storeu_pd(x.as_mut_ptr().add(o), r);
        }
    }
}

/// [`block_chunk_scalar`] with AVX-512: one register, the dead rows by a
/// mask.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn block_chunk_avx512(
    x: &mut [f64; CHUNK],
    g: &[f64; CHUNK],
    (tj, lg, t): LossChunk,
    [p, q, cost]: [f64; 3],
    live: usize,
    kids: bool,
) {
    use std::arch::x86_64::*;
    let mask: __mmask8 = if live >= CHUNK {
        0xff
    } else {
        ((1u32 << live) - 1) as u8
    };
    // SAFETY: each array holds CHUNK = 8 values, one register.
    unsafe {
        let gv = _mm512_loadu_pd(g.as_ptr());
        let s = _mm512_sub_pd(_mm512_set1_pd(tj), _mm512_loadu_pd(t.as_ptr()));
        let lo = _mm512_sub_pd(_mm512_mul_pd(_mm512_loadu_pd(lg.as_ptr()), s), gv);
        let v = _mm512_sub_pd(
            _mm512_sub_pd(
                _mm512_mul_pd(_mm512_set1_pd(p), gv),
                _mm512_mul_pd(_mm512_set1_pd(q), lo),
            ),
            _mm512_set1_pd(cost),
        );
        let v = _mm512_mask_blend_pd(mask, _mm512_set1_pd(f64::NEG_INFINITY), v);
        let r = if kids {
            _mm512_max_pd(_mm512_loadu_pd(x.as_ptr()), v)
        } else {
            v
        };
        _mm512_storeu_pd(x.as_mut_ptr(), r);
    }
}

#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn block_square_impl(
    a: &mut [f64],
    gain: &[f64],
    loss: &LossOf,
    n: usize,
    np: usize,
    pqc: [f64; 3],
    kids: bool,
    chunk: impl Fn(&mut [f64; CHUNK], &[f64; CHUNK], LossChunk, [f64; 3], usize, bool),
) {
    assert!(
        np.is_multiple_of(CHUNK)
            && np >= n
            && a.len() >= np * n
            && gain.len() >= end_tri(n) + CHUNK
            && loss.slices() == n
            && loss.tot.len() == n + 1 + CHUNK,
        "block_square: {n} slices in squares of {np}"
    );
    for j in 0..n {
        let (r, len) = (end_tri(j), j + 1);
        let w = len.div_ceil(CHUNK) * CHUNK;
        let col = &mut a[j * np..j * np + w];
        let g = &gain[r..r + w];
        let (tj, lg, t) = loss.col(j, w);
        let chunks = col
            .chunks_exact_mut(CHUNK)
            .zip(g.chunks_exact(CHUNK))
            .zip(lg.chunks_exact(CHUNK).zip(t.chunks_exact(CHUNK)));
        // Whole chunks with every row live (the mask a constant), then the
        // last one.
        let full = len / CHUNK;
        for (c, ((x, g), (lg, t))) in chunks.enumerate() {
            let x: &mut [f64; CHUNK] = x.try_into().expect("a chunk");
            let g: &[f64; CHUNK] = g.try_into().expect("a chunk");
            let lg: &[f64; CHUNK] = lg.try_into().expect("a chunk");
            let t: &[f64; CHUNK] = t.try_into().expect("a chunk");
            if c < full {
                chunk(x, g, (tj, lg, t), pqc, CHUNK, kids);
            } else {
                chunk(x, g, (tj, lg, t), pqc, len - c * CHUNK, kids);
            }
        }
    }
}

multiversion! {
    /// One start's values of the programme of a node without children:
    /// `row[e − i] = best(i, e)` for `e = i..=j`, by the recurrence of
    /// [`segment_cols`] for the one start, each block value computed as
    /// [`block_square`] does (`pqc`: its `p`, `q` and `cost`) — so the
    /// same candidates, each one addition, and the same values. `gain` and
    /// `loss` are end-major. For the reconstruction of a leaf's parts.
    fn segment_row / segment_row_avx2 / segment_row_avx512 (
        gain: &[f64], loss: &LossOf, i: usize, j: usize, pqc: [f64; 3], row: &mut Vec<f64>
    ) => segment_row_impl(gain, loss, i, j, pqc, row),
        segment_row_impl(gain, loss, i, j, pqc, row),
        segment_row_impl(gain, loss, i, j, pqc, row)
}

#[inline(always)]
fn segment_row_impl(
    gain: &[f64],
    loss: &LossOf,
    i: usize,
    j: usize,
    [p, q, cost]: [f64; 3],
    row: &mut Vec<f64>,
) {
    row.clear();
    for e in i..=j {
        let r = end_tri(e);
        let g = &gain[r + i..=r + e];
        let (te, lg, t) = loss.col(e, e + 1);
        let (lg, t) = (&lg[i..=e], &t[i..=e]);
        let whole = p * g[0] - q * (lg[0] * (te - t[0]) - g[0]) - cost;
        // Blocks c..=e after best(i, c − 1): row[c − 1 − i] + a(c, e).
        let len = e - i;
        let (g, lg, t, b) = (&g[1..=len], &lg[1..=len], &t[1..=len], &row[..len]);
        let mut m = [f64::NEG_INFINITY; 8];
        let (gc, lc, tc, bc) = (
            g.chunks_exact(8),
            lg.chunks_exact(8),
            t.chunks_exact(8),
            b.chunks_exact(8),
        );
        let (gr, lr, tr, br) = (
            gc.remainder(),
            lc.remainder(),
            tc.remainder(),
            bc.remainder(),
        );
        for (((g, lg), t), b) in gc.zip(lc).zip(tc).zip(bc) {
            for k in 0..8 {
                let l = lg[k] * (te - t[k]) - g[k];
                let v = b[k] + (p * g[k] - q * l - cost);
                m[k] = if v > m[k] { v } else { m[k] };
            }
        }
        for (k, (((g, lg), t), b)) in gr.iter().zip(lr).zip(tr).zip(br).enumerate() {
            let l = lg * (te - t) - g;
            let v = b + (p * g - q * l - cost);
            m[k] = if v > m[k] { v } else { m[k] };
        }
        let m = m
            .iter()
            .fold(f64::NEG_INFINITY, |a, &b| if b > a { b } else { a });
        row.push(if m > whole { m } else { whole });
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
