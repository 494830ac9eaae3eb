//! The block values the programme folds: one part's criterion value for
//! every interval of a node (`p·gain − (1 − p)·loss − cost`), written into
//! the fold's square ([`block_square`]) or, for the reconstruction, along
//! one start's row with its fold ([`segment_row`]); and what a node's losses
//! are made of ([`LossOf`]: they are computed, not stored).

use super::end_tri;
#[cfg(target_arch = "x86_64")]
use super::{avx2, avx512};

/// Rows of one chunk of [`block_square`]: a column is written in whole
/// chunks, its rows past the diagonal set to `-inf`.
pub(crate) const CHUNK: usize = 8;

/// What a node's losses are made of: `loss(i, j) = log2(|h|·(j − i + 1)) ·
/// (tot[j + 1] − tot[i]) − gain(i, j)`, as
/// [`gain_loss`](super::super::temporal::gain_loss) computes them (the same
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
    /// square (`a(i, j)` at `j * np + i`, [`segment_cols`](super::segment_cols)): rows `i <= j`
    /// get `x = max(x, v)` (or `x = v` when `!kids`) with `v = p·gain −
    /// q·loss − cost` (the loss computed, [`LossOf`]), the criterion's value of one part (`pqc = [p, 1 −
    /// p, cost]`, computed as [`Criterion::value`](super::super::criterion::Criterion::value) does,
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
pub(super) fn block_chunk_scalar(
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
pub(super) unsafe fn block_chunk_avx2(
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
pub(super) unsafe fn block_chunk_avx512(
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
pub(super) fn block_square_impl(
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
    /// [`segment_cols`](super::segment_cols) for the one start, each block value computed as
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
