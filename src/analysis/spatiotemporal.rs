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
//! The programme keeps only `best(h, ·, ·)` per node (end-major, column
//! `j` holding `i = 0..=j`). For the node at hand it builds `A(h, ·, ·)` in
//! a per-thread square (column-major, `-inf` below the diagonal) and runs
//! the `max_c` as `kernel::segment_cols`: sixteen interval starts at a
//! time, their candidates held in registers while a column is folded, a
//! broadcast add and a `max` per step (the earlier row-wise "push" kernel
//! loaded and stored its candidates every four rows; the p-curve of the
//! LU case took 3.8 CPU s with it, 2.3 with this one, both AVX2). The
//! decisions (where each block starts,
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

use super::criterion::{curve_batched, CurvePoint, Summary};
use super::criterion::{Criterion, Part, Partition};
use super::cube::Cube;
use super::hierarchy::Hierarchy;
use super::kernel::{
    add_interval_xlog2x, add_to, block_values, end_tri, segment_cols, xlog2x, IntervalScratch, TILE,
};
use super::temporal::gain_loss;

/// Largest `nodes · N(N+1)/2` of a spatiotemporal aggregation (≈ 1 GB).
pub const MAX_NODE_INTERVALS: usize = 40_000_000;

/// Per-thread buffers of the programme: one node's block values and best
/// values in the kernel's layouts ([`segment_cols`]).
#[derive(Debug, Default)]
struct Scratch {
    a: Vec<f64>,
    val: Vec<f64>,
}

/// The programme's values, kept from one `p` to the next: per node
/// `best(h, ·, ·)` and (inner nodes) `Σ_children best(child, ·, ·)`, both
/// end-major, for the reconstruction.
#[derive(Debug, Default)]
struct Tables {
    best: Vec<Vec<f64>>,
    kids: Vec<Vec<f64>>,
}

/// Parts as `collect` emits them (each node's parts from the latest to the
/// earliest: ancestors' blocks are visited right to left) ordered by node,
/// then time: a counting sort by node of the reversed list, the order a
/// sort by `(node, first)` gives (the pair is unique in a partition).
fn by_node_then_time(parts: Vec<Part>, nodes: usize) -> Vec<Part> {
    let key = |p: &Part| p.node.unwrap_or(0).min(nodes.saturating_sub(1));
    let mut start = vec![0usize; nodes + 1];
    for p in &parts {
        start[key(p) + 1] += 1;
    }
    for h in 0..nodes {
        start[h + 1] += start[h];
    }
    let mut out = parts.clone();
    for p in parts.into_iter().rev() {
        let k = key(&p);
        out[start[k]] = p;
        start[k] += 1;
    }
    // The emission order above is the reconstruction's; should it ever
    // change, the plain sort keeps the result.
    if !out.is_sorted_by_key(|p| (p.node, p.first)) {
        out.sort_unstable_by_key(|p| (p.node, p.first));
    }
    out
}

/// Qualities of every (node, interval) of a cube under a hierarchy.
#[derive(Debug, Clone)]
pub struct SpatioTemporalQualities {
    n: usize,
    pub hierarchy: Hierarchy,
    /// Per node, end-major over intervals (`(i, j)` at `end_tri(j) + i`),
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
                gain_loss(x, &prefix(&tot[id]), &prefix(&ent[id]), size)
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
    #[inline]
    pub fn quality(&self, h: usize, i: usize, j: usize) -> (f64, f64) {
        let k = end_tri(j) + i;
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
        self.best_with(p, &mut Tables::default())
    }

    /// The p-curve ([`super::criterion::curve`]): one programme per
    /// sampled `p`, in tables reused from one to the next.
    pub fn curve(&self, eps: f64) -> Vec<CurvePoint> {
        // Two programmes side by side (each also parallel inside): the
        // reconstruction and the small top levels of one overlap the
        // other's work.
        let (mut t0, mut t1) = (Tables::default(), Tables::default());
        curve_batched(eps, |ps| {
            let mut out = Vec::with_capacity(ps.len());
            for pair in ps.chunks(2) {
                match *pair {
                    [a, b] => {
                        let (x, y) = rayon::join(
                            || Summary::of(&self.best_with(a, &mut t0)),
                            || Summary::of(&self.best_with(b, &mut t1)),
                        );
                        out.push(x);
                        out.push(y);
                    }
                    [a] => out.push(Summary::of(&self.best_with(a, &mut t0))),
                    _ => {}
                }
            }
            out
        })
    }

    /// [`best`](Self::best) in `tables` (resized).
    fn best_with(&self, p: f64, tables: &mut Tables) -> Partition {
        let crit = Criterion::new(p, self.scale());
        let nodes = &self.hierarchy.nodes;
        let m = end_tri(self.n);
        let Tables { best, kids } = tables;
        best.resize_with(nodes.len(), Vec::new);
        kids.resize_with(nodes.len(), Vec::new);
        for (h, node) in nodes.iter().enumerate() {
            best[h].resize(m, 0.0);
            kids[h].resize(if node.children.is_empty() { 0 } else { m }, 0.0);
        }
        for level in self.hierarchy.levels() {
            let mut mine: Vec<(usize, Vec<f64>, Vec<f64>)> = level
                .iter()
                .map(|&h| {
                    (
                        h,
                        std::mem::take(&mut best[h]),
                        std::mem::take(&mut kids[h]),
                    )
                })
                .collect();
            let done: &[Vec<f64>] = best;
            mine.par_iter_mut()
                .for_each_init(Scratch::default, |s, (h, val, sum)| {
                    self.node_dp(*h, &crit, done, val, sum, s)
                });
            for (h, v, k) in mine {
                best[h] = v;
                kids[h] = k;
            }
        }
        let mut parts = Vec::new();
        if self.n > 0 {
            self.collect(0, 0, self.n - 1, &crit, tables, &mut parts);
        }
        Partition::from_parts(by_node_then_time(parts, nodes.len()))
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

    /// `best(h, ·, ·)` into `val` (end-major), from the children's.
    fn node_dp(
        &self,
        h: usize,
        crit: &Criterion,
        best: &[Vec<f64>],
        val: &mut [f64],
        kid_sums: &mut [f64],
        s: &mut Scratch,
    ) {
        let n = self.n;
        let np = n.div_ceil(TILE) * TILE;
        // A(h, ·, ·) in the kernel's square (column j: starts 0..np, -inf
        // past j, written once per buffer: every node overwrites the same
        // upper triangle): the children's sums, then the max with one part.
        if s.a.len() != np * n {
            s.a.clear();
            s.a.resize(np * n, f64::NEG_INFINITY);
        }
        let kids = &self.hierarchy.nodes[h].children;
        let (gain, loss) = (&self.gain[h], &self.loss[h]);
        let q = 1.0 - crit.p;
        for j in 0..n {
            let (r, len) = (end_tri(j), j + 1);
            let col = &mut s.a[j * np..j * np + len];
            if let Some((first, rest)) = kids.split_first() {
                col.copy_from_slice(&best[*first][r..r + len]);
                for &c in rest {
                    add_to(col, &best[c][r..r + len]);
                }
                kid_sums[r..r + len].copy_from_slice(col);
            }
            let (g, l) = (&gain[r..r + len], &loss[r..r + len]);
            block_values(col, g, l, crit.p, q, crit.part_cost, !kids.is_empty());
        }
        let tiles = n.div_ceil(TILE);
        s.val.resize(tiles * n * TILE, 0.0);
        segment_cols(&s.a, n, np, &mut s.val);
        for t in 0..tiles {
            let i0 = t * TILE;
            for j in i0..n {
                let src: &[f64; TILE] = s.val[(t * n + j) * TILE..][..TILE]
                    .try_into()
                    .expect("a tile's column");
                let r = end_tri(j) + i0;
                let len = (j + 1 - i0).min(TILE);
                if len == TILE {
                    let dst: &mut [f64; TILE] =
                        (&mut val[r..r + TILE]).try_into().expect("a full column");
                    *dst = *src;
                } else {
                    val[r..r + len].copy_from_slice(&src[..len]);
                }
            }
        }
    }

    /// The parts of `best(h, i..=j)`'s partition, found again from the
    /// kept values: the block starts and kinds whose sums make each value.
    fn collect(
        &self,
        h: usize,
        i: usize,
        mut j: usize,
        crit: &Criterion,
        tables: &Tables,
        out: &mut Vec<Part>,
    ) {
        let kids = &self.hierarchy.nodes[h].children;
        let best = &tables.best;
        // Σ_children best(child, c, j), as the programme summed it.
        let sums = &tables.kids[h];
        let kid_sum = |c: usize, j: usize| -> Option<f64> {
            (!kids.is_empty()).then(|| sums[end_tri(j) + c])
        };
        loop {
            let target = best[h][end_tri(j) + i];
            // The block c..=j: c == i when one block makes the value.
            let (whole, _) = self.block(h, i, j, crit, kid_sum(i, j));
            let split =
                |c: usize| best[h][end_tri(c - 1) + i] + self.block(h, c, j, crit, kid_sum(c, j)).0;
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
                    self.collect(k, c, j, crit, tables, out);
                }
            }
            if c == i {
                return;
            }
            j = c - 1;
        }
    }
}
