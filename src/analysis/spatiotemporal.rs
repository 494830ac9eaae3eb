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
//! The programme keeps `best(h, ·, ·)` of the inner nodes (end-major,
//! column `j` holding `i = 0..=j`). For the node at hand it builds `A(h,
//! ·, ·)` in a per-thread square (column-major, `-inf` below the diagonal;
//! `kernel::block_square` writes whole chunks of a column) and runs the
//! `max_c` as `kernel::segment_cols`: sixteen interval starts at a time,
//! their candidates held in registers while two columns are folded, a
//! broadcast add and a `max` per step (the earlier row-wise "push" kernel
//! loaded and stored its candidates every four rows; the p-curve of the LU
//! case took 3.8 CPU s with it, 2.3 with this one, both AVX2). A **leaf**
//! has no table: its programme runs inside its parent's task and its
//! values go into the parent's sums as the kernel makes them
//! (`kernel::segment_leaf`); only its first row is kept. The decisions (where
//! each block starts, whether it is one part) are not stored: the
//! reconstruction finds them again from the kept values by the same
//! additions, for the few cells the best partition goes through, and a
//! leaf's one row it needs by `kernel::segment_row` (the same candidates
//! and `max`, so the same values). The samples of a batch are
//! reconstructed together, one task per parent of leaves (the
//! `reconstruct` module).
//!
//! [`SpatioTemporalQualities::curve`] runs the samples of each round of the
//! bisection together (up to `BATCH`): a task takes one node and each of
//! its children in turn at every `p`, so the qualities of a node and its
//! leaves are read from memory once per batch, not once per sample (8
//! bytes per node-interval, 32 MB for the LU case: the L3's size). Tables, the
//! per-thread scratch buffers and the reconstruction's lists are reused
//! from one batch to the next (`Work`): made afresh, they cost a copy per
//! growth and, in a one-shot process, a page fault per 4 KB each time the
//! allocator gives freed pages back. Two ways to reuse values between the
//! samples (cells proved best over an interval of `p`) were measured and
//! dropped (BENCHMARKS.md, "Overview").
//!
//! Cost: qualities `nodes · N²/2 · categories` logarithms (one per non-zero
//! node-category-slice sum and interval; the per-node slice sums come
//! bottom-up from the children); the DP `nodes · N³/6` additions per `p`;
//! memory 8 bytes per node and interval for the qualities (the gains; the
//! losses are computed from them and two short per-node arrays,
//! `kernel::LossOf`) and 16 per inner node and interval per `p` of a batch.
//! Ocelotl advises N ≤ 30; [`MAX_NODE_INTERVALS`] bounds `nodes · N(N+1)/2`.

use std::sync::Mutex;

use rayon::prelude::*;

mod reconstruct;

use crate::error::{Error, Result};

use super::criterion::{curve_batched, CurvePoint};
use super::criterion::{Criterion, Part, Partition};
use super::cube::Cube;
use super::hierarchy::Hierarchy;
use super::kernel::{
    add_interval_xlog2x, add_to, block_square, end_tri, segment_cols, segment_leaf, xlog2x,
    IntervalScratch, LossOf, CHUNK, TILE,
};
use super::temporal::gain_of;

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
    a: Vec<Vec<f64>>,
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
    /// Per inner node, `best(c, 0, ·)` of each leaf child `c` (at `slot(c)
    /// · n`): the row the reconstruction needs of a leaf when the whole
    /// range (the finest partitions) splits into children.
    rows: Vec<Vec<f64>>,
}

/// What [`SpatioTemporalQualities::best_many`] keeps from one batch to the
/// next: the programme's tables and the reconstruction's lists.
///
/// The per-thread [`Scratch`]es too: a batch runs one programme per level
/// of the hierarchy, and buffers made afresh for each (some 100 KB per `p`
/// and square) are freed at the top of the heap, given back to the system
/// and faulted in again by the next level.
#[derive(Debug, Default)]
struct Work {
    tables: Vec<Tables>,
    recon: reconstruct::Buffers,
    scratch: Mutex<Vec<Scratch>>,
}

/// A [`Scratch`] lent from [`Work`]'s pool to one task of rayon's, given
/// back when the task is done.
struct Lent<'a>(Scratch, &'a Mutex<Vec<Scratch>>);

impl<'a> From<&'a Mutex<Vec<Scratch>>> for Lent<'a> {
    fn from(pool: &'a Mutex<Vec<Scratch>>) -> Lent<'a> {
        let s = pool.lock().ok().and_then(|mut p| p.pop());
        Lent(s.unwrap_or_default(), pool)
    }
}

impl Drop for Lent<'_> {
    fn drop(&mut self) {
        if let Ok(mut pool) = self.1.lock() {
            pool.push(std::mem::take(&mut self.0));
        }
    }
}

/// One node's tables at one `p` of a batch (index `b`), taken out of
/// [`Tables`] while its task fills them.
#[derive(Debug)]
struct NodeOut {
    b: usize,
    best: Vec<f64>,
    kids: Vec<f64>,
    rows: Vec<f64>,
}

/// Qualities of every (node, interval) of a cube under a hierarchy.
#[derive(Debug, Clone)]
pub struct SpatioTemporalQualities {
    n: usize,
    pub hierarchy: Hierarchy,
    /// Each node's index among its parent's children.
    slot: Vec<usize>,
    /// Per node, the gains, end-major over intervals (`(i, j)` at
    /// `end_tri(j) + i`), the order the programme reads them.
    gain: Vec<Vec<f64>>,
    /// Per node, what its losses are computed from ([`LossOf`]: they are
    /// not stored).
    loss: Vec<LossOf>,
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
        let q: Vec<(Vec<f64>, LossOf)> = (0..h)
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
                // Padded for the programme's whole chunks (`block_square`).
                let mut g = gain_of(x, &prefix(&ent[id]));
                g.resize(intervals + CHUNK, 0.0);
                (g, LossOf::new(prefix(&tot[id]), n, size))
            })
            .collect();
        let (gain, loss) = q.into_iter().unzip();
        let mut slot = vec![0; h];
        for node in &hierarchy.nodes {
            for (k, &c) in node.children.iter().enumerate() {
                slot[c] = k;
            }
        }
        Ok(SpatioTemporalQualities {
            n,
            hierarchy,
            slot,
            gain,
            loss,
        })
    }

    pub fn slices(&self) -> usize {
        self.n
    }

    /// Gain and loss of node `h` over slices `i..=j`.
    #[inline(always)]
    pub fn quality(&self, h: usize, i: usize, j: usize) -> (f64, f64) {
        let g = self.gain[h][end_tri(j) + i];
        (g, self.loss[h].loss(i, j, g))
    }

    /// Gain + loss of the one-part partition (root, all slices).
    pub fn scale(&self) -> f64 {
        let (g, l) = self.quality(0, 0, self.n - 1);
        g + l
    }

    /// The best partition for `p` (ties to fewer parts); parts ordered by
    /// node (pre-order), then time.
    pub fn best(&self, p: f64) -> Partition {
        let nodes = self.hierarchy.len();
        self.best_many(&[p], &mut Work::default(), |pieces| {
            reconstruct::partition_of(pieces, nodes)
        })
        .pop()
        .unwrap_or_default()
    }

    /// The p-curve ([`super::criterion::curve`]): the samples of each round
    /// of the bisection run `BATCH` at a time
    /// (`best_many`), in tables reused from one batch to
    /// the next.
    pub fn curve(&self, eps: f64) -> Vec<CurvePoint> {
        let mut work = Work::default();
        curve_batched(eps, |ps| {
            let mut out = Vec::with_capacity(ps.len());
            for batch in ps.chunks(BATCH) {
                let nodes = self.hierarchy.len();
                out.extend(self.best_many(batch, &mut work, |pieces| {
                    reconstruct::summary_of(pieces, nodes)
                }));
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
    /// and its leaves' are read from memory once for all of them. `work`
    /// holds one [`Tables`] per `p` (resized) and the buffers kept between
    /// batches. Each partition is handed to
    /// `finish` in the pieces the reconstruction found it in
    /// ([`reconstruct`]): [`reconstruct::partition_of`] lists its parts,
    /// [`reconstruct::summary_of`] only sums them (the curve).
    fn best_many<S: Send>(
        &self,
        ps: &[f64],
        work: &mut Work,
        finish: impl Fn(&[&[Part]]) -> S + Sync,
    ) -> Vec<S> {
        let Work {
            tables,
            recon,
            scratch,
        } = work;
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
            t.rows.resize_with(nodes.len(), Vec::new);
            // `best` and `kids` are written whole by the node's task, in
            // order (`node_dp`): only their room is made here, so that
            // their pages are first touched by the tasks, in parallel, and
            // not zeroed first by this thread.
            for (h, node) in nodes.iter().enumerate() {
                let k = node.children.len();
                let room = |v: &mut Vec<f64>, len: usize| {
                    v.clear();
                    v.reserve_exact(len);
                };
                room(&mut t.best[h], if self.stored(h) { m } else { 0 });
                room(&mut t.kids[h], if k == 0 { 0 } else { m });
                t.rows[h].resize(k * self.n, 0.0);
            }
        }
        for level in self.hierarchy.levels() {
            let level: Vec<usize> = level.into_iter().filter(|&h| self.stored(h)).collect();
            // A level too small to keep every thread busy (the root) runs
            // one task per node and `p`.
            let per_p = level.len() < 2 * rayon::current_num_threads();
            let mut tasks: Vec<(usize, Vec<NodeOut>)> = Vec::new();
            for &h in &level {
                let mut mine = Vec::new();
                for (b, t) in tables.iter_mut().enumerate() {
                    mine.push(NodeOut {
                        b,
                        best: std::mem::take(&mut t.best[h]),
                        kids: std::mem::take(&mut t.kids[h]),
                        rows: std::mem::take(&mut t.rows[h]),
                    });
                    if per_p {
                        tasks.push((h, std::mem::take(&mut mine)));
                    }
                }
                if !per_p {
                    tasks.push((h, mine));
                }
            }
            let done: &[Tables] = tables;
            tasks.par_iter_mut().for_each_init(
                || Lent::from(&*scratch),
                |s, (h, mine)| self.node_dp(*h, &crits, done, mine, &mut s.0),
            );
            for (h, mine) in tasks {
                for o in mine {
                    let t = &mut tables[o.b];
                    t.best[h] = o.best;
                    t.kids[h] = o.kids;
                    t.rows[h] = o.rows;
                }
            }
        }
        self.reconstruct(&crits, tables, recon, finish)
    }

    /// Node `h`'s programme at every `p` of its task (`mine`, indices into
    /// `crits` and `done`): `best(h, ·, ·)` (end-major), `Σ_children
    /// best(child, ·, ·)` and its leaf children's first rows, from the
    /// stored children's tables and the leaf children's values computed
    /// here. Child by child, each `p` in turn, so that a leaf's qualities
    /// are read once for all of them while its parent's sums (one square
    /// per `p`) are built.
    fn node_dp(
        &self,
        h: usize,
        crits: &[Criterion],
        done: &[Tables],
        mine: &mut [NodeOut],
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
        if s.a.len() < mine.len() {
            s.a.resize_with(mine.len(), Vec::new);
        }
        for a in &mut s.a {
            if a.len() != np * n {
                a.clear();
                a.resize(np * n, f64::NEG_INFINITY);
            }
        }
        let kids = &self.hierarchy.nodes[h].children;
        // The qualities a task reads next (the next child's, then the
        // node's own) are fetched into L2 while a leaf child's programmes
        // run, a piece per `p` (read cold, they stalled the block values).
        let pieces = mine.len();
        for (k, &c) in kids.iter().enumerate() {
            let next = kids.get(k + 1).copied().unwrap_or(h);
            let piece = |x: &[f64], b: usize| -> std::ops::Range<usize> {
                let len = x.len().div_ceil(pieces);
                (b * len).min(x.len())..((b + 1) * len).min(x.len())
            };
            for (o, a) in mine.iter_mut().zip(&mut s.a) {
                if self.stored(c) {
                    let best = &done[o.b].best[c];
                    for j in 0..n {
                        let (r, len) = (end_tri(j), j + 1);
                        let col = &mut a[j * np..j * np + len];
                        if k == 0 {
                            col.copy_from_slice(&best[r..r + len]);
                        } else {
                            add_to(col, &best[r..r + len]);
                        }
                    }
                    continue;
                }
                self.leaf_dp(c, &crits[o.b], &mut s.leaf_a);
                s.leaf_val.resize(tiles * n * TILE, 0.0);
                let row = &mut o.rows[k * n..(k + 1) * n];
                let g = &self.gain[next];
                let ahead = &g[piece(g, o.b % pieces)];
                segment_leaf(&s.leaf_a, n, np, &mut s.leaf_val, a, k == 0, row, ahead);
            }
        }
        for (o, a) in mine.iter_mut().zip(&mut s.a) {
            if !kids.is_empty() {
                o.kids.clear();
                for j in 0..n {
                    o.kids.extend_from_slice(&a[j * np..j * np + j + 1]);
                }
            }
            let crit = &crits[o.b];
            let pqc = [crit.p, 1.0 - crit.p, crit.part_cost];
            block_square(
                a,
                &self.gain[h],
                &self.loss[h],
                n,
                np,
                pqc,
                !kids.is_empty(),
            );
            s.val.resize(tiles * n * TILE, 0.0);
            segment_cols(a, n, np, &mut s.val);
            // End-major: column j's rows are tile t's rows i0..=j.
            o.best.clear();
            for j in 0..n {
                for t in 0..=j / TILE {
                    let i0 = t * TILE;
                    let len = (j + 1 - i0).min(TILE);
                    o.best
                        .extend_from_slice(&s.val[(t * n + j) * TILE..][..len]);
                }
            }
        }
    }

    /// A leaf's block values in the kernel's square `a` ([`segment_leaf`]
    /// makes its values from them).
    fn leaf_dp(&self, h: usize, crit: &Criterion, a: &mut Vec<f64>) {
        let n = self.n;
        let np = n.div_ceil(TILE) * TILE;
        if a.len() != np * n {
            a.clear();
            a.resize(np * n, f64::NEG_INFINITY);
        }
        let pqc = [crit.p, 1.0 - crit.p, crit.part_cost];
        block_square(a, &self.gain[h], &self.loss[h], n, np, pqc, false);
    }
}
