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
    add_interval_xlog2x, add_to, block_values, end_tri, max_plus, segment_cols, xlog2x,
    IntervalScratch, TILE,
};
use super::temporal::gain_loss;

/// Largest `nodes · N(N+1)/2` of a spatiotemporal aggregation (≈ 1 GB).
pub const MAX_NODE_INTERVALS: usize = 40_000_000;

/// Samples of the p-curve run together ([`SpatioTemporalQualities::curve`]):
/// each node's qualities (and its leaves') are read once for all of them
/// while they are in cache. Each keeps its inner nodes' tables (8 bytes ×
/// 2 per node-interval: 8 MB for the LU case), so this bounds that memory.
const BATCH: usize = 8;

/// Per-thread buffers of the programme: one node's block values and best
/// values in the kernel's layouts ([`segment_cols`]), and the same for a
/// leaf child computed inside its parent's task.
#[derive(Debug, Default)]
struct Scratch {
    a: Vec<f64>,
    val: Vec<f64>,
    leaf_a: Vec<f64>,
    leaf_val: Vec<f64>,
}

/// The programme's values at one `p`, kept for the reconstruction: per
/// stored node ([`SpatioTemporalQualities::stored`]) `best(h, ·, ·)` and
/// (inner nodes) `Σ_children best(child, ·, ·)`, both end-major; empty for
/// leaves, whose values are computed in their parent's task and found
/// again row by row when the reconstruction visits them.
#[derive(Debug, Default)]
struct Tables {
    best: Vec<Vec<f64>>,
    kids: Vec<Vec<f64>>,
}

/// `best(h, i, ·)` of one node and start `i`, as the reconstruction reads
/// it: from the node's table, or a row computed again (leaves).
enum Row<'a> {
    Table(&'a [f64]),
    Leaf(Vec<f64>),
}

impl Row<'_> {
    #[inline]
    fn at(&self, i: usize, j: usize) -> f64 {
        match self {
            Row::Table(t) => t[end_tri(j) + i],
            Row::Leaf(r) => r[j - i],
        }
    }
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
        self.best_many(&[p], &mut Vec::new())
            .pop()
            .unwrap_or_default()
    }

    /// The p-curve ([`super::criterion::curve`]): the samples of each round
    /// of the bisection run [`BATCH`] at a time
    /// ([`best_many`](Self::best_many)), in tables reused from one batch to
    /// the next.
    pub fn curve(&self, eps: f64) -> Vec<CurvePoint> {
        let mut tables = Vec::new();
        curve_batched(eps, |ps| {
            let mut out = Vec::with_capacity(ps.len());
            for batch in ps.chunks(BATCH) {
                out.extend(self.best_many(batch, &mut tables).iter().map(Summary::of));
            }
            out
        })
    }

    /// Whether node `h`'s values are kept in a table: inner nodes and a
    /// root. A leaf under a parent is computed inside its parent's task
    /// (its values go from the kernel's buffer into the parent's sums and
    /// never to memory).
    #[inline]
    fn stored(&self, h: usize) -> bool {
        let node = &self.hierarchy.nodes[h];
        !node.children.is_empty() || node.parent.is_none()
    }

    /// The best partitions at each of `ps`, computed together: one task per
    /// node does the programme at every `p` in turn, so that its qualities
    /// and its leaves' are read from memory once for all of them. `tables`
    /// holds one [`Tables`] per `p` (resized).
    fn best_many(&self, ps: &[f64], tables: &mut Vec<Tables>) -> Vec<Partition> {
        let scale = self.scale();
        let crits: Vec<Criterion> = ps.iter().map(|&p| Criterion::new(p, scale)).collect();
        let nodes = &self.hierarchy.nodes;
        let m = end_tri(self.n);
        if tables.len() < ps.len() {
            tables.resize_with(ps.len(), Tables::default);
        }
        let tables = &mut tables[..ps.len()];
        for t in tables.iter_mut() {
            t.best.resize_with(nodes.len(), Vec::new);
            t.kids.resize_with(nodes.len(), Vec::new);
            for (h, node) in nodes.iter().enumerate() {
                t.best[h].resize(if self.stored(h) { m } else { 0 }, 0.0);
                t.kids[h].resize(if node.children.is_empty() { 0 } else { m }, 0.0);
            }
        }
        type Mine = Vec<(usize, Vec<f64>, Vec<f64>)>;
        for level in self.hierarchy.levels() {
            let level: Vec<usize> = level.into_iter().filter(|&h| self.stored(h)).collect();
            // A level too small to keep every thread busy (the root) runs
            // one task per node and `p`.
            let per_p = level.len() < 2 * rayon::current_num_threads();
            let mut tasks: Vec<(usize, Mine)> = Vec::new();
            for &h in &level {
                let mut mine = Vec::new();
                for (b, t) in tables.iter_mut().enumerate() {
                    mine.push((
                        b,
                        std::mem::take(&mut t.best[h]),
                        std::mem::take(&mut t.kids[h]),
                    ));
                    if per_p {
                        tasks.push((h, std::mem::take(&mut mine)));
                    }
                }
                if !per_p {
                    tasks.push((h, mine));
                }
            }
            let done: &[Tables] = tables;
            tasks
                .par_iter_mut()
                .for_each_init(Scratch::default, |s, (h, mine)| {
                    for (b, val, sum) in mine.iter_mut() {
                        self.node_dp(*h, &crits[*b], &done[*b].best, val, sum, s);
                    }
                });
            for (h, mine) in tasks {
                for (b, v, k) in mine {
                    tables[b].best[h] = v;
                    tables[b].kids[h] = k;
                }
            }
        }
        let tables: &[Tables] = tables;
        crits
            .par_iter()
            .zip(tables)
            .map(|(crit, t)| {
                let mut parts = Vec::new();
                if self.n > 0 {
                    self.collect(0, 0, self.n - 1, crit, t, &mut parts);
                }
                Partition::from_parts(by_node_then_time(parts, nodes.len()))
            })
            .collect()
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

    /// `best(h, ·, ·)` into `val` (end-major) and `Σ_children best(child,
    /// ·, ·)` into `kid_sums`, from the stored children's tables and the
    /// leaf children's values computed here.
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
        let tiles = n.div_ceil(TILE);
        // A(h, ·, ·) in the kernel's square (column j: starts 0..np, -inf
        // past j, written once per buffer: every node overwrites the same
        // upper triangle, and a leaf's tiles hold -inf there too): the
        // children's sums, in the children's order (the sums' rounding),
        // then the max with one part.
        if s.a.len() != np * n {
            s.a.clear();
            s.a.resize(np * n, f64::NEG_INFINITY);
        }
        let kids = &self.hierarchy.nodes[h].children;
        for (k, &c) in kids.iter().enumerate() {
            if self.stored(c) {
                for j in 0..n {
                    let (r, len) = (end_tri(j), j + 1);
                    let col = &mut s.a[j * np..j * np + len];
                    let src = &best[c][r..r + len];
                    if k == 0 {
                        col.copy_from_slice(src);
                    } else {
                        add_to(col, src);
                    }
                }
                continue;
            }
            self.leaf_dp(c, crit, &mut s.leaf_a, &mut s.leaf_val);
            for t in 0..tiles {
                let i0 = t * TILE;
                for j in i0..n {
                    let src: &[f64; TILE] = s.leaf_val[(t * n + j) * TILE..][..TILE]
                        .try_into()
                        .expect("a tile's column");
                    let dst: &mut [f64; TILE] = (&mut s.a[j * np + i0..][..TILE])
                        .try_into()
                        .expect("a tile's rows");
                    if k == 0 {
                        *dst = *src;
                    } else {
                        for (d, x) in dst.iter_mut().zip(src) {
                            *d += x;
                        }
                    }
                }
            }
        }
        let (gain, loss) = (&self.gain[h], &self.loss[h]);
        let q = 1.0 - crit.p;
        for j in 0..n {
            let (r, len) = (end_tri(j), j + 1);
            let col = &mut s.a[j * np..j * np + len];
            if !kids.is_empty() {
                kid_sums[r..r + len].copy_from_slice(col);
            }
            let (g, l) = (&gain[r..r + len], &loss[r..r + len]);
            block_values(col, g, l, crit.p, q, crit.part_cost, !kids.is_empty());
        }
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

    /// A leaf's `best(h, ·, ·)` in the kernel's layout (tile-major, into
    /// `val`), its block values built in `a`.
    fn leaf_dp(&self, h: usize, crit: &Criterion, a: &mut Vec<f64>, val: &mut Vec<f64>) {
        let n = self.n;
        let np = n.div_ceil(TILE) * TILE;
        if a.len() != np * n {
            a.clear();
            a.resize(np * n, f64::NEG_INFINITY);
        }
        let (gain, loss) = (&self.gain[h], &self.loss[h]);
        let q = 1.0 - crit.p;
        for j in 0..n {
            let (r, len) = (end_tri(j), j + 1);
            let col = &mut a[j * np..j * np + len];
            let (g, l) = (&gain[r..r + len], &loss[r..r + len]);
            block_values(col, g, l, crit.p, q, crit.part_cost, false);
        }
        val.resize(n.div_ceil(TILE) * n * TILE, 0.0);
        segment_cols(a, n, np, val);
    }

    /// A leaf's `best(h, i, j')` for `j' = i..=j` (at `j' − i`), computed
    /// again for the reconstruction: the same candidates as the kernel's
    /// (one addition each) and `max`, so the same values.
    fn leaf_row(&self, h: usize, i: usize, j: usize, crit: &Criterion) -> Vec<f64> {
        let (gain, loss) = (&self.gain[h], &self.loss[h]);
        let q = 1.0 - crit.p;
        let mut row: Vec<f64> = Vec::with_capacity(j + 1 - i);
        let mut col = vec![0.0; j + 1 - i];
        for e in i..=j {
            let r = end_tri(e);
            let col = &mut col[..e + 1 - i];
            let (g, l) = (&gain[r + i..=r + e], &loss[r + i..=r + e]);
            block_values(col, g, l, crit.p, q, crit.part_cost, false);
            // Block c..=e after best(i, c − 1): row[c − 1 − i] + col[c − i].
            let m = max_plus(&row, &col[1..]);
            row.push(if m > col[0] { m } else { col[0] });
        }
        row
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
        let best = if self.stored(h) {
            Row::Table(&tables.best[h])
        } else {
            Row::Leaf(self.leaf_row(h, i, j, crit))
        };
        // Σ_children best(child, c, j), as the programme summed it.
        let sums = &tables.kids[h];
        let kid_sum = |c: usize, j: usize| -> Option<f64> {
            (!kids.is_empty()).then(|| sums[end_tri(j) + c])
        };
        loop {
            let target = best.at(i, j);
            // The block c..=j: c == i when one block makes the value.
            let (whole, _) = self.block(h, i, j, crit, kid_sum(i, j));
            let split = |c: usize| best.at(i, c - 1) + self.block(h, c, j, crit, kid_sum(c, j)).0;
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
