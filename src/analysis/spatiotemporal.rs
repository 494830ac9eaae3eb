//! Spatiotemporal aggregation (Ocelotl's, after Lamarche-Perrin and
//! Dosimont): parts are a node of a [`Hierarchy`] over the lines times an
//! interval of slices.
//!
//! For node `h` (with `|h|` leaf lines) and slices `i..=j`, each category
//! `u` is aggregated separately: its cells are the `(line of h, slice)`
//! pairs, `|X| = |h| · (j − i + 1)`, `V_u` their sum. Summed over the
//! categories, with `E = Σ v log2 v` over the part's microscopic cells:
//!
//! `gain(h, i, j) = Σ_u V_u log2 V_u − E` and
//! `loss(h, i, j) = log2(|h|·(j−i+1)) · Σ_u V_u − gain`.
//!
//! The best partition maximises Σ (pIC − part cost) by the dynamic
//! programme `best(h, i, j) = max { pIC(h, i, j); Σ_c best(c, i, j);
//! max_k best(h, i, k) + best(h, k+1, j) }`, computed as lpaggreg does: the
//! last block `c..=j` of `h`'s time partition is either one part of `h` or
//! split among `h`'s children, so `best(h, i, j) = max_c best(h, i, c−1) +
//! A(h, c, j)` with `A = max(pIC(h, c, j), Σ_children best(child, c, j))` —
//! the same partitions, O(N³/6) per node. Ties go to fewer parts
//! ([`super::criterion`]). Nodes of one depth are independent and run in
//! parallel, deepest first.
//!
//! The programme keeps only `best(h, ·, ·)` per node (start-major, row `i`
//! holding `j = i..N`) and builds `A(h, ·, ·)` of the node at hand in the
//! same layout: the `max_c` runs as `kernel::segment_all` (a vectorised add and
//! `max` along contiguous rows). The decisions (where each block starts,
//! whether it is one part) are not stored: the reconstruction finds them
//! again from the kept values by the same additions, for the few cells the
//! best partition goes through. [`SpatioTemporalQualities::curve`] reuses
//! the tables from one `p` to the next.
//!
//! Cost: qualities `nodes · N²/2 · categories` logarithms (one per non-zero
//! node-category-slice sum and interval; the per-node slice sums come
//! bottom-up from the children); the DP `nodes · N³/6` additions per `p`;
//! memory 16 bytes per node and interval for the qualities and 8 per `p`.
//! Ocelotl advises N ≤ 30; [`MAX_NODE_INTERVALS`] bounds `nodes · N(N+1)/2`.

use rayon::prelude::*;

use crate::error::{Error, Result};

use super::criterion::{curve_of, CurvePoint};
use super::criterion::{Criterion, Part, Partition};
use super::cube::Cube;
use super::hierarchy::Hierarchy;
use super::kernel::{add_interval_xlog2x, end_tri, segment_all, xlog2x, IntervalScratch};
use super::temporal::{gain_loss, tri};

/// Largest `nodes · N(N+1)/2` of a spatiotemporal aggregation (≈ 1 GB).
pub const MAX_NODE_INTERVALS: usize = 40_000_000;

/// An end-major triangle of `n` slices in start-major order.
fn start_major(v: &[f64], n: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(v.len());
    for i in 0..n {
        for j in i..n {
            out.push(v[end_tri(j) + i]);
        }
    }
    out
}

/// Qualities of every (node, interval) of a cube under a hierarchy.
#[derive(Debug, Clone)]
pub struct SpatioTemporalQualities {
    n: usize,
    pub hierarchy: Hierarchy,
    /// Per node, start-major over intervals (`(i, j)` at `tri(n, i, j)`),
    /// the order the programme reads them.
    gain: Vec<Vec<f64>>,
    loss: Vec<Vec<f64>>,
}

impl SpatioTemporalQualities {
    pub fn new(cube: &Cube, hierarchy: Hierarchy) -> Result<SpatioTemporalQualities> {
        let n = cube.grid.n;
        let h = hierarchy.len();
        let intervals = n * (n + 1) / 2;
        if h.saturating_mul(intervals) > MAX_NODE_INTERVALS {
            return Err(Error::InvalidArgument(format!(
                "spatiotemporal aggregation of {h} hierarchy nodes x {n} slices is too large \
                 ({} node-intervals, at most {MAX_NODE_INTERVALS}): use fewer slices (Ocelotl advises <= 30) \
                 or a smaller hierarchy",
                h.saturating_mul(intervals)
            )));
        }
        let u = cube.categories.len();
        // Per node: per category its series over the slices [u][t]; per
        // slice Σ v and Σ v log2 v.
        let mut sums = vec![vec![0.0; u * n]; h];
        let mut tot = vec![vec![0.0; n]; h];
        let mut ent = vec![vec![0.0; n]; h];
        for (id, node) in hierarchy.nodes.iter().enumerate() {
            if !node.children.is_empty() {
                continue;
            }
            for &line in &node.lines {
                for t in 0..n {
                    let row = &cube.slice_row(t)[line * u..(line + 1) * u];
                    for (c, &v) in row.iter().enumerate() {
                        sums[id][c * n + t] += v;
                        tot[id][t] += v;
                        ent[id][t] += xlog2x(v);
                    }
                }
            }
        }
        // Children come after their parent in pre-order: add bottom-up.
        for id in (1..h).rev() {
            let Some(p) = hierarchy.nodes[id].parent else {
                continue;
            };
            for v in [&mut sums, &mut tot, &mut ent] {
                let (a, b) = v.split_at_mut(id);
                for (x, y) in a[p].iter_mut().zip(&b[0]) {
                    *x += y;
                }
            }
        }
        let q: Vec<(Vec<f64>, Vec<f64>)> = (0..h)
            .into_par_iter()
            .map(|id| {
                let size = hierarchy.nodes[id].lines.len() as f64;
                let mut x = vec![0.0; intervals];
                let mut scratch = IntervalScratch::default();
                for series in sums[id].chunks_exact(n.max(1)) {
                    if series.iter().any(|&v| v != 0.0) {
                        add_interval_xlog2x(series, &[], 0, n, &mut x, &mut scratch);
                    }
                }
                let prefix = |v: &[f64]| {
                    let mut p = vec![0.0; n + 1];
                    for t in 0..n {
                        p[t + 1] = p[t] + v[t];
                    }
                    p
                };
                let (g, l) = gain_loss(x, &prefix(&tot[id]), &prefix(&ent[id]), size);
                (start_major(&g, n), start_major(&l, n))
            })
            .collect();
        let (gain, loss) = q.into_iter().unzip();
        Ok(SpatioTemporalQualities {
            n,
            hierarchy,
            gain,
            loss,
        })
    }

    pub fn slices(&self) -> usize {
        self.n
    }

    /// Gain and loss of node `h` over slices `i..=j`.
    pub fn quality(&self, h: usize, i: usize, j: usize) -> (f64, f64) {
        let k = tri(self.n, i, j);
        (self.gain[h][k], self.loss[h][k])
    }

    /// Gain + loss of the one-part partition (root, all slices).
    pub fn scale(&self) -> f64 {
        let (g, l) = self.quality(0, 0, self.n - 1);
        g + l
    }

    /// The best partition for `p` (ties to fewer parts); parts ordered by
    /// node (pre-order), then time.
    pub fn best(&self, p: f64) -> Partition {
        self.best_with(p, &mut Vec::new())
    }

    /// The p-curve ([`super::criterion::curve`]): one programme per
    /// sampled `p`, in tables reused from one to the next.
    pub fn curve(&self, eps: f64) -> Vec<CurvePoint> {
        let mut tables = Vec::new();
        curve_of(eps, |p| self.best_with(p, &mut tables))
    }

    /// [`best`](Self::best) in the tables `best` (one per node, resized).
    fn best_with(&self, p: f64, best: &mut Vec<Vec<f64>>) -> Partition {
        let crit = Criterion::new(p, self.scale());
        let nodes = &self.hierarchy.nodes;
        let m = end_tri(self.n);
        best.resize_with(nodes.len(), Vec::new);
        for t in best.iter_mut() {
            t.resize(m, 0.0);
        }
        for level in self.hierarchy.levels() {
            let mut mine: Vec<(usize, Vec<f64>)> = level
                .iter()
                .map(|&h| (h, std::mem::take(&mut best[h])))
                .collect();
            let done: &[Vec<f64>] = best;
            mine.par_iter_mut()
                .for_each(|(h, val)| self.node_dp(*h, &crit, done, val));
            for (h, v) in mine {
                best[h] = v;
            }
        }
        let mut parts = Vec::new();
        if self.n > 0 {
            self.collect(0, 0, self.n - 1, &crit, best, &mut parts);
        }
        parts.sort_by_key(|p| (p.node, p.first));
        Partition::from_parts(parts)
    }

    /// `Σ_children best(child, ·, ·)` into `sum`, start-major; false for a
    /// leaf.
    fn children_sum(&self, h: usize, best: &[Vec<f64>], sum: &mut [f64]) -> bool {
        let kids = &self.hierarchy.nodes[h].children;
        let Some((first, rest)) = kids.split_first() else {
            return false;
        };
        sum.copy_from_slice(&best[*first]);
        for &c in rest {
            for (a, b) in sum.iter_mut().zip(&best[c]) {
                *a += b;
            }
        }
        true
    }

    /// `A(h, c, j)` (module docs) and whether it is one part of `h`.
    #[inline]
    fn block(
        &self,
        h: usize,
        c: usize,
        j: usize,
        crit: &Criterion,
        kids: Option<f64>,
    ) -> (f64, bool) {
        let (g, l) = self.quality(h, c, j);
        let one = crit.value(g, l);
        match kids {
            Some(k) if k > one => (k, false),
            _ => (one, true),
        }
    }

    /// `best(h, ·, ·)` into `val` (start-major), from the children's.
    fn node_dp(&self, h: usize, crit: &Criterion, best: &[Vec<f64>], val: &mut [f64]) {
        let n = self.n;
        // A(h, ·, ·), start-major: first the children's sums, then the max
        // with one part of h.
        let mut a = vec![0.0; end_tri(n)];
        let kids = self.children_sum(h, best, &mut a);
        let (gain, loss) = (&self.gain[h], &self.loss[h]);
        if kids {
            for ((x, g), l) in a.iter_mut().zip(gain).zip(loss) {
                let one = crit.value(*g, *l);
                *x = if *x > one { *x } else { one };
            }
        } else {
            for ((x, g), l) in a.iter_mut().zip(gain).zip(loss) {
                *x = crit.value(*g, *l);
            }
        }
        segment_all(&a, n, val);
    }

    /// The parts of `best(h, i..=j)`'s partition, found again from the
    /// kept values: the block starts and kinds whose sums make each value.
    fn collect(
        &self,
        h: usize,
        i: usize,
        mut j: usize,
        crit: &Criterion,
        best: &[Vec<f64>],
        out: &mut Vec<Part>,
    ) {
        let n = self.n;
        let kids = &self.hierarchy.nodes[h].children;
        let kid_sum = |c: usize, j: usize| -> Option<f64> {
            (!kids.is_empty()).then(|| kids.iter().map(|&k| best[k][tri(n, c, j)]).sum())
        };
        loop {
            let target = best[h][tri(n, i, j)];
            // The block c..=j: c == i when one block makes the value.
            let (whole, _) = self.block(h, i, j, crit, kid_sum(i, j));
            let split =
                |c: usize| best[h][tri(n, i, c - 1)] + self.block(h, c, j, crit, kid_sum(c, j)).0;
            // Else the last block whose sum is the value (from the right:
            // fine partitions end at once).
            let c = if whole >= target {
                i
            } else {
                (i + 1..=j)
                    .rev()
                    .find(|&c| split(c) == target)
                    .unwrap_or_else(|| {
                        (i + 1..=j)
                            .max_by(|&a, &b| split(a).total_cmp(&split(b)))
                            .unwrap_or(j)
                    })
            };
            let (_, one) = self.block(h, c, j, crit, kid_sum(c, j));
            if one {
                let (gain, loss) = self.quality(h, c, j);
                out.push(Part {
                    node: Some(h),
                    first: c,
                    last: j,
                    gain,
                    loss,
                });
            } else {
                for &k in kids {
                    self.collect(k, c, j, crit, best, out);
                }
            }
            if c == i {
                return;
            }
            j = c - 1;
        }
    }
}
