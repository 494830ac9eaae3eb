//! Temporal aggregation (Ocelotl's, Dosimont et al. 2014): the slices of a
//! cube cut into intervals, each shown as one part.
//!
//! A part is an interval of slices `i..=j`; its cells are the `(line,
//! category)` pairs, each with the value `V_c = Σ_{t=i..j} v[line][t][c]`
//! over `|X| = j − i + 1` microscopic cells. With `E = Σ v log2 v` over the
//! part's microscopic cells:
//!
//! `gain(i, j) = Σ_c V_c log2 V_c − E` and `loss(i, j) = log2|X| · Σ_c V_c − gain`.
//!
//! [`TemporalQualities::new`] computes both for all `N(N+1)/2` intervals:
//! `E` and `Σ V` from prefix sums over slices, and `Σ_c V_c log2 V_c` by
//! running sums of the slice rows — one pass over the cube per start `i`,
//! parallel over `i`, one logarithm per non-empty cell and interval (the
//! cost that matters: `N²/2 · lines · categories` for the LU case of the
//! paper, 3.5·10⁷). [`TemporalQualities::best`] is the dynamic programme
//! `best[j] = max_i best[i−1] + pIC(i..j)` with ties to fewer parts
//! ([`super::criterion`]).

use rayon::prelude::*;

use crate::error::{Error, Result};

use super::criterion::{xlog2x, Criterion, Part, Partition};
use super::cube::Cube;

/// Largest slice count of a temporal aggregation (the DP is O(N³/6)).
pub const MAX_TEMPORAL_SLICES: usize = 5000;

/// Gain and loss of every interval of slices (module docs).
#[derive(Debug, Clone)]
pub struct TemporalQualities {
    n: usize,
    /// Triangular: interval `(i, j)` at [`tri`]`(n, i, j)`.
    gain: Vec<f64>,
    loss: Vec<f64>,
}

/// Index of interval `i..=j` in a triangular array of `n` slices.
#[inline(always)]
pub(crate) fn tri(n: usize, i: usize, j: usize) -> usize {
    i * (2 * n - i + 1) / 2 + (j - i)
}

impl TemporalQualities {
    pub fn new(cube: &Cube) -> Result<TemporalQualities> {
        let n = cube.grid.n;
        if n > MAX_TEMPORAL_SLICES {
            return Err(Error::InvalidArgument(format!(
                "temporal aggregation of {n} slices: at most {MAX_TEMPORAL_SLICES} (its cost grows as slices³)"
            )));
        }
        let cells = cube.lines.len() * cube.categories.len();
        // Per slice: Σ v and Σ v log2 v over its cells, as prefix sums.
        let mut tot = vec![0.0; n + 1];
        let mut ent = vec![0.0; n + 1];
        for k in 0..n {
            let row = cube.slice_row(k);
            tot[k + 1] = tot[k] + row.iter().sum::<f64>();
            ent[k + 1] = ent[k] + row.iter().map(|&v| xlog2x(v)).sum::<f64>();
        }
        // Cells that are zero in every slice never count: drop them.
        let live: Vec<usize> = (0..cells)
            .filter(|&c| (0..n).any(|k| cube.slice_row(k)[c] != 0.0))
            .collect();
        let rows: Vec<Vec<f64>> = (0..n)
            .map(|k| {
                let r = cube.slice_row(k);
                live.iter().map(|&c| r[c]).collect()
            })
            .collect();
        let per_start: Vec<(Vec<f64>, Vec<f64>)> = (0..n)
            .into_par_iter()
            .map(|i| {
                let mut run = vec![0.0; live.len()];
                let mut g = Vec::with_capacity(n - i);
                let mut l = Vec::with_capacity(n - i);
                for (j, row) in rows.iter().enumerate().skip(i) {
                    let mut s = 0.0;
                    for (r, &v) in run.iter_mut().zip(row) {
                        *r += v;
                        s += xlog2x(*r);
                    }
                    let gain = s - (ent[j + 1] - ent[i]);
                    let len = (j - i + 1) as f64;
                    let loss = len.log2() * (tot[j + 1] - tot[i]) - gain;
                    g.push(gain);
                    l.push(loss);
                }
                (g, l)
            })
            .collect();
        let mut gain = Vec::with_capacity(n * (n + 1) / 2);
        let mut loss = Vec::with_capacity(n * (n + 1) / 2);
        for (g, l) in per_start {
            gain.extend(g);
            loss.extend(l);
        }
        Ok(TemporalQualities { n, gain, loss })
    }

    pub fn slices(&self) -> usize {
        self.n
    }

    /// Gain and loss of slices `i..=j`.
    pub fn quality(&self, i: usize, j: usize) -> (f64, f64) {
        let k = tri(self.n, i, j);
        (self.gain[k], self.loss[k])
    }

    /// Gain + loss of the one-part partition (the tie tolerance's scale).
    pub fn scale(&self) -> f64 {
        let (g, l) = self.quality(0, self.n - 1);
        g + l
    }

    /// The best partition for `p` (ties to fewer parts).
    pub fn best(&self, p: f64) -> Partition {
        let n = self.n;
        let crit = Criterion::new(p, self.scale());
        // best[j + 1]: the best partition of slices 0..=j; from[j + 1] the
        // first slice of its last part.
        let mut val = vec![0.0; n + 1];
        let mut parts = vec![0u32; n + 1];
        let mut from = vec![0usize; n + 1];
        for j in 0..n {
            let (mut bv, mut bp, mut bi) = (f64::NEG_INFINITY, u32::MAX, 0);
            for i in 0..=j {
                let k = tri(n, i, j);
                let v = val[i] + crit.pic(self.gain[k], self.loss[k]);
                let np = parts[i] + 1;
                if bp == u32::MAX || crit.better(v, np, bv, bp) {
                    (bv, bp, bi) = (v, np, i);
                }
            }
            val[j + 1] = bv;
            parts[j + 1] = bp;
            from[j + 1] = bi;
        }
        let mut out = Vec::new();
        let mut j = n;
        while j > 0 {
            let i = from[j];
            let (gain, loss) = self.quality(i, j - 1);
            out.push(Part {
                node: None,
                first: i,
                last: j - 1,
                gain,
                loss,
            });
            j = i;
        }
        out.reverse();
        Partition::from_parts(out)
    }
}
