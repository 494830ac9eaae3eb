//! The spatiotemporal programme's fold: the best segmentation value of
//! every interval of slices given each block's value ([`segment_cols`]),
//! `N³/6` steps per hierarchy node and `p`, where most of an overview's
//! p-curve goes. Vectorised over the starts of the intervals: sixteen
//! starts' candidates stay in registers while a column is folded, a
//! broadcast add and a `max` per step, no load or store of the candidates
//! and no dependency between lanes. Its variants differ only in where a
//! tile's finished column goes: nowhere else ([`segment_cols`]), or into a
//! leaf's parent as it is made ([`segment_leaf`]).

use super::prefetch_l2;
#[cfg(target_arch = "x86_64")]
use super::{avx2, avx512};

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
        row: &mut [f64], ahead: &[f64]
    ) => segment_cols_impl(
            a, n, np, val, fold_scalar, fold2_scalar,
            leaf_out(parent, row, n, np, first, ahead),
        ),
        cols_with!(fold_avx2, fold2_avx2, a, n, np, val, leaf_out(parent, row, n, np, first, ahead)),
        cols_with!(fold_avx512, fold2_avx512, a, n, np, val, leaf_out(parent, row, n, np, first, ahead))
}

/// [`segment_leaf`]'s output of each tile's column (`i0`, `j`): copied or
/// added into `parent`, its first row's value into `row`; and, the `q`-th
/// such column, two more cache lines of `ahead` asked for in L2.
#[inline(always)]
fn leaf_out<'a>(
    parent: &'a mut [f64],
    row: &'a mut [f64],
    n: usize,
    np: usize,
    first: bool,
    ahead: &'a [f64],
) -> impl FnMut(usize, usize, &[f64; TILE]) + 'a {
    assert!(
        parent.len() >= np * n && row.len() >= n,
        "segment_leaf: {n} slices"
    );
    let mut q = 0;
    move |i0, j, x| {
        for k in [2 * q, 2 * q + 1] {
            if let Some(line) = ahead.get(k * 8) {
                prefetch_l2(line);
            }
        }
        q += 1;
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
}

/// `acc[k] = max(acc[k], max_t v[t][k] + b[t])` over the columns `v` (each
/// [`TILE`] values, `v.len() == TILE * b.len()`).
#[inline(always)]
pub(super) fn fold_scalar(acc: &mut [f64; TILE], b: &[f64], v: &[f64]) {
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
pub(super) unsafe fn fold_avx2(acc: &mut [f64; TILE], b: &[f64], v: &[f64]) {
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
pub(super) unsafe fn fold_avx512(acc: &mut [f64; TILE], b: &[f64], v: &[f64]) {
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
pub(super) fn fold2_scalar(
    acc0: &mut [f64; TILE],
    acc1: &mut [f64; TILE],
    b0: &[f64],
    b1: &[f64],
    v: &[f64],
) {
    fold_scalar(acc0, b0, v);
    fold_scalar(acc1, b1, v);
}

/// [`fold2_scalar`] with AVX2: each column's [`TILE`] candidates in four
/// registers, each loaded column used by both.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn fold2_avx2(
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
pub(super) unsafe fn fold2_avx512(
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
pub(super) fn segment_cols_impl(
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
