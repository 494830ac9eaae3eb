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
//! The best partition maximises Σ pIC by the dynamic programme
//! `best(h, i, j) = max { pIC(h, i, j); Σ_c best(c, i, j);
//! max_k best(h, i, k) + best(h, k+1, j) }`, computed as lpaggreg does: the last block `c..=j`
//! of `h`'s time partition is either one part of `h` or split among `h`'s
//! children, so `best(h, i, j) = max_c best(h, i, c−1) + A(h, c, j)` with
//! `A = max(pIC(h, c, j), Σ_children best(child, c, j))` — the same
//! partitions, O(N³/6) per node. Ties go to fewer parts
//! ([`super::criterion`]). Nodes of one depth are independent and run in
//! parallel, deepest first.
//!
//! Cost: qualities `nodes · N²/2 · categories` logarithms (the per-node
//! slice sums come bottom-up from the children); the DP `nodes · N³/6` per
//! `p`; memory about 30 bytes per node and interval. Ocelotl advises
//! N ≤ 30; [`MAX_NODE_INTERVALS`] bounds `nodes · N(N+1)/2`.

use rayon::prelude::*;

use crate::error::{Error, Result};

use super::criterion::{xlog2x, Criterion, Part, Partition};
use super::cube::Cube;
use super::hierarchy::Hierarchy;
use super::temporal::tri;

/// Largest `nodes · N(N+1)/2` of a spatiotemporal aggregation (≈ 1.2 GB).
pub const MAX_NODE_INTERVALS: usize = 40_000_000;

/// Qualities of every (node, interval) of a cube under a hierarchy.
#[derive(Debug, Clone)]
pub struct SpatioTemporalQualities {
    n: usize,
    pub hierarchy: Hierarchy,
    /// Per node, triangular over intervals.
    gain: Vec<Vec<f64>>,
    loss: Vec<Vec<f64>>,
}

/// The DP of one node at one `p`.
struct NodeDp {
    val: Vec<f64>,
    parts: Vec<u32>,
    /// First slice of the last block of `best(h, i, j)`.
    cut: Vec<u32>,
    /// Whether `A(h, c, j)` is one part of `h` (else split among children).
    agg: Vec<bool>,
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
        // Per node: slice sums per category [t][u], and per slice Σ v, Σ v log2 v.
        let mut sums = vec![vec![0.0; n * u]; h];
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
                        sums[id][t * u + c] += v;
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
            let (a, b) = sums.split_at_mut(id);
            for (x, y) in a[p].iter_mut().zip(&b[0]) {
                *x += y;
            }
            let (a, b) = tot.split_at_mut(id);
            for (x, y) in a[p].iter_mut().zip(&b[0]) {
                *x += y;
            }
            let (a, b) = ent.split_at_mut(id);
            for (x, y) in a[p].iter_mut().zip(&b[0]) {
                *x += y;
            }
        }
        let q: Vec<(Vec<f64>, Vec<f64>)> = (0..h)
            .into_par_iter()
            .map(|id| {
                let size = hierarchy.nodes[id].lines.len() as f64;
                let (s, tt, ee) = (&sums[id], &tot[id], &ent[id]);
                let mut g = Vec::with_capacity(intervals);
                let mut lo = Vec::with_capacity(intervals);
                let mut run = vec![0.0; u];
                for i in 0..n {
                    run.iter_mut().for_each(|r| *r = 0.0);
                    let (mut t_acc, mut e_acc) = (0.0, 0.0);
                    for j in i..n {
                        let mut x = 0.0;
                        for (r, &v) in run.iter_mut().zip(&s[j * u..(j + 1) * u]) {
                            *r += v;
                            x += xlog2x(*r);
                        }
                        t_acc += tt[j];
                        e_acc += ee[j];
                        let gain = x - e_acc;
                        let loss = (size * (j - i + 1) as f64).log2() * t_acc - gain;
                        g.push(gain);
                        lo.push(loss);
                    }
                }
                (g, lo)
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
        let crit = Criterion::new(p, self.scale());
        let nodes = &self.hierarchy.nodes;
        let mut dp: Vec<Option<NodeDp>> = (0..nodes.len()).map(|_| None).collect();
        for level in self.hierarchy.levels() {
            let done: Vec<(usize, NodeDp)> = level
                .par_iter()
                .map(|&h| (h, self.node_dp(h, &crit, &dp)))
                .collect();
            for (h, d) in done {
                dp[h] = Some(d);
            }
        }
        let mut parts = Vec::new();
        if self.n > 0 {
            self.collect(0, 0, self.n - 1, &dp, &mut parts);
        }
        parts.sort_by_key(|p| (p.node, p.first));
        Partition::from_parts(parts)
    }

    fn node_dp(&self, h: usize, crit: &Criterion, dp: &[Option<NodeDp>]) -> NodeDp {
        let n = self.n;
        let m = n * (n + 1) / 2;
        let kids: Vec<&NodeDp> = self.hierarchy.nodes[h]
            .children
            .iter()
            .filter_map(|&c| dp[c].as_ref())
            .collect();
        // A(c, j): one part of h, or the children's best.
        let mut a_val = vec![0.0; m];
        let mut a_parts = vec![0u32; m];
        let mut agg = vec![true; m];
        for k in 0..m {
            let mut v = crit.pic(self.gain[h][k], self.loss[h][k]);
            let mut np = 1u32;
            if !kids.is_empty() {
                let cv: f64 = kids.iter().map(|d| d.val[k]).sum();
                let cp: u32 = kids.iter().map(|d| d.parts[k]).sum();
                if crit.better(cv, cp, v, np) {
                    (v, np) = (cv, cp);
                    agg[k] = false;
                }
            }
            a_val[k] = v;
            a_parts[k] = np;
        }
        let mut val = vec![0.0; m];
        let mut parts = vec![0u32; m];
        let mut cut = vec![0u32; m];
        for i in 0..n {
            for j in i..n {
                // c == i: the whole interval is one block.
                let k = tri(n, i, j);
                let (mut bv, mut bp, mut bc) = (a_val[k], a_parts[k], i);
                for c in i + 1..=j {
                    let left = tri(n, i, c - 1);
                    let right = tri(n, c, j);
                    let v = val[left] + a_val[right];
                    let np = parts[left] + a_parts[right];
                    if crit.better(v, np, bv, bp) {
                        (bv, bp, bc) = (v, np, c);
                    }
                }
                val[k] = bv;
                parts[k] = bp;
                cut[k] = bc as u32;
            }
        }
        NodeDp {
            val,
            parts,
            cut,
            agg,
        }
    }

    fn collect(&self, h: usize, i: usize, j: usize, dp: &[Option<NodeDp>], out: &mut Vec<Part>) {
        let Some(d) = dp[h].as_ref() else {
            return;
        };
        let c = d.cut[tri(self.n, i, j)] as usize;
        if c > i {
            self.collect(h, i, c - 1, dp, out);
        }
        if d.agg[tri(self.n, c, j)] {
            let (gain, loss) = self.quality(h, c, j);
            out.push(Part {
                node: Some(h),
                first: c,
                last: j,
                gain,
                loss,
            });
        } else {
            for &ch in &self.hierarchy.nodes[h].children {
                self.collect(ch, c, j, dp, out);
            }
        }
    }
}
