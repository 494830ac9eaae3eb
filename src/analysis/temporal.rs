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
//! `E` and `Σ V` from prefix sums over slices, and `Σ_c V_c log2 V_c` one
//! cell at a time by `kernel::add_interval_xlog2x` (running sums of the cell's
//! values for every start at once, one logarithm per non-zero value and
//! interval: `N²/2 · lines · categories` for the LU case of the paper,
//! 3.5·10⁷), in parallel over blocks of interval ends. Qualities are
//! stored end-major (interval `i..=j` at `end_tri(j) + i`), the order the
//! dynamic programme reads them. [`TemporalQualities::best`] is the
//! programme `best[j] = max_i best[i−1] + pIC(i..j) − part_cost` (ties to
//! fewer parts, [`super::criterion`]), a vectorised `max` per `j`.

use rayon::prelude::*;

use crate::error::{Error, Result};

use super::criterion::{Criterion, Part, Partition};
use super::cube::Cube;
use super::kernel::{add_interval_xlog2x, end_tri, max_plus, xlog2x, IntervalScratch};

/// Largest slice count of a temporal aggregation (memory grows as slices²).
pub const MAX_TEMPORAL_SLICES: usize = 5000;

/// Gain and loss of every interval of slices (module docs).
#[derive(Debug, Clone)]
pub struct TemporalQualities {
    n: usize,
    /// End-major: interval `(i, j)` at `end_tri(j) + i`.
    gain: Vec<f64>,
    loss: Vec<f64>,
}

/// Rows `0..n` of an end-major triangle cut into at most `blocks` runs of
/// about equal area: `[0, .., n]`.
pub(crate) fn row_blocks(n: usize, blocks: usize) -> Vec<usize> {
    let total = end_tri(n) as f64;
    let mut edges = vec![0];
    for b in 1..blocks.max(1) {
        // Row r ends at area (r+1)(r+2)/2: the first row past b/blocks of it.
        let want = total * b as f64 / blocks as f64;
        let r = ((2.0 * want).sqrt() as usize).min(n);
        if r > *edges.last().unwrap_or(&0) && r < n {
            edges.push(r);
        }
    }
    edges.push(n);
    edges
}

/// Gain and loss, end-major, of intervals whose `Σ V log2 V` over the cells
/// is `x`, with per-slice prefix sums of the values (`tot`) and of their
/// `v log2 v` (`ent`), for parts `size` lines tall.
pub(crate) fn gain_loss(x: Vec<f64>, tot: &[f64], ent: &[f64], size: f64) -> (Vec<f64>, Vec<f64>) {
    let n = tot.len() - 1;
    let gain = gain_of(x, ent);
    let mut loss = vec![0.0; gain.len()];
    // log2 |X| per interval length (one libm call per length, not per
    // interval: the same values).
    let log_size: Vec<f64> = (1..=n).map(|len| (size * len as f64).log2()).collect();
    for j in 0..n {
        let row = end_tri(j);
        for i in 0..=j {
            loss[row + i] = log_size[j - i] * (tot[j + 1] - tot[i]) - gain[row + i];
        }
    }
    (gain, loss)
}

/// The gains of [`gain_loss`] alone: `x` less the intervals' `Σ v log2 v`.
pub(crate) fn gain_of(x: Vec<f64>, ent: &[f64]) -> Vec<f64> {
    let n = ent.len() - 1;
    let mut gain = x;
    for j in 0..n {
        let row = end_tri(j);
        for i in 0..=j {
            gain[row + i] -= ent[j + 1] - ent[i];
        }
    }
    gain
}

impl TemporalQualities {
    pub fn new(cube: &Cube) -> Result<TemporalQualities> {
        let n = cube.grid.n;
        if n > MAX_TEMPORAL_SLICES {
            return Err(Error::InvalidArgument(format!(
                "temporal aggregation of {n} slices: at most {MAX_TEMPORAL_SLICES} (its cost grows as slices²·cells)"
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
        // Each cell's series over the slices (cells zero in every slice
        // never count: left out), with its prefix sums.
        let mut live = vec![false; cells];
        for k in 0..n {
            for (l, v) in live.iter_mut().zip(cube.slice_row(k)) {
                *l |= *v != 0.0;
            }
        }
        let live: Vec<usize> = (0..cells).filter(|&c| live[c]).collect();
        let mut series = vec![0.0; live.len() * n];
        let mut prefix = vec![0.0; live.len() * (n + 1)];
        for k in 0..n {
            let row = cube.slice_row(k);
            for (s, &c) in live.iter().enumerate() {
                series[s * n + k] = row[c];
                prefix[s * (n + 1) + k + 1] = prefix[s * (n + 1) + k] + row[c];
            }
        }
        let mut x = vec![0.0; end_tri(n)];
        // Blocks of rows, a fixed number (the sums do not depend on the
        // thread count), each written by one task.
        let edges = row_blocks(n, 16);
        let mut slabs = Vec::with_capacity(edges.len());
        let mut rest: &mut [f64] = &mut x;
        for w in edges.windows(2) {
            let (mine, tail) = rest.split_at_mut(end_tri(w[1]) - end_tri(w[0]));
            slabs.push((w[0], w[1], mine));
            rest = tail;
        }
        slabs.into_par_iter().for_each(|(j0, j1, out)| {
            let mut scratch = IntervalScratch::default();
            for s in 0..live.len() {
                add_interval_xlog2x(
                    &series[s * n..(s + 1) * n],
                    &prefix[s * (n + 1)..(s + 1) * (n + 1)],
                    j0,
                    j1,
                    out,
                    &mut scratch,
                );
            }
        });
        let (gain, loss) = gain_loss(x, &tot, &ent, 1.0);
        Ok(TemporalQualities { n, gain, loss })
    }

    pub fn slices(&self) -> usize {
        self.n
    }

    /// Gain and loss of slices `i..=j`.
    pub fn quality(&self, i: usize, j: usize) -> (f64, f64) {
        let k = end_tri(j) + i;
        (self.gain[k], self.loss[k])
    }

    /// Gain + loss of the one-part partition (the part cost's scale).
    pub fn scale(&self) -> f64 {
        let (g, l) = self.quality(0, self.n - 1);
        g + l
    }

    /// The best partition for `p` (ties to fewer parts).
    pub fn best(&self, p: f64) -> Partition {
        let n = self.n;
        let crit = Criterion::new(p, self.scale());
        // val[j + 1]: the best partition of slices 0..=j; w: the value of
        // each last part i..=j.
        let mut val = vec![0.0; n + 1];
        let mut w = vec![0.0; n];
        let weights = |j: usize, w: &mut [f64]| {
            let row = end_tri(j);
            for (i, x) in w[..=j].iter_mut().enumerate() {
                *x = crit.value(self.gain[row + i], self.loss[row + i]);
            }
        };
        for j in 0..n {
            weights(j, &mut w);
            val[j + 1] = max_plus(&val[..=j], &w[..=j]);
        }
        // Back from the end: the first start whose sum makes the maximum
        // (the same additions, so the same bits).
        let mut out = Vec::new();
        let mut j = n;
        while j > 0 {
            weights(j - 1, &mut w);
            let i = (0..j)
                .find(|&i| val[i] + w[i] == val[j])
                .unwrap_or_else(|| argmax(&val[..j], &w[..j]));
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

/// Position of the largest `a[k] + b[k]` (the first one); 0 when empty.
pub(crate) fn argmax(a: &[f64], b: &[f64]) -> usize {
    let mut best = (0, f64::NEG_INFINITY);
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        if x + y > best.1 {
            best = (k, x + y);
        }
    }
    best.0
}
