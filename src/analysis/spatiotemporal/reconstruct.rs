//! The reconstruction of the spatiotemporal programme's best partitions:
//! the parts of `best(root, 0..=N−1)` found again from the kept values
//! (the programme stores no decisions), top-down: for a node's interval,
//! the last block whose value makes the best value, then the blocks before
//! it; a block split among the children sends each child its interval.
//!
//! A leaf keeps no table, so a visit of a leaf over `i..=j` (`i > 0`)
//! computes the one row `best(leaf, i, ·)` again (`kernel::segment_row`),
//! reading the leaf's qualities of that triangle: short rows, each read
//! about one memory latency (a leaf's qualities are 80 KB in the LU case,
//! all leaves' 56 MB, more than the L3). So the samples of a batch are
//! reconstructed **together, node by node**, in three phases:
//!
//! 1. per `p`, from the root down to the *deferred* nodes (inner nodes,
//!    not the root, with a leaf child: the parents of the leaves), whose
//!    visits are only recorded;
//! 2. one task per deferred node runs its visits of every `p` in turn
//!    (each `p`'s in the order phase 1 made them), so that its leaves'
//!    qualities come from memory once for the batch, not once per `p`,
//!    and the work is spread over a hundred tasks, not one per `p` (the
//!    finest partitions cost most; a batch holds 1–8 samples);
//! 3. per `p`, the parts of both phases, ordered by node, then time
//!    ([`by_node_then_time`]): the same partition, summed in the same
//!    order, as a reconstruction in one piece. The curve needs only the
//!    sums and the number of parts ([`summary_of`]): a counting sort moves
//!    the parts' gains and losses into that order in a list kept per
//!    thread, without building the sorted list of parts.
//!
//! A leaf's blocks are searched in its own row of qualities
//! (`leaf_parts`): every block of a leaf is one part, so no children's
//! sums and no second look-up of the chosen block. The lists of all three
//! phases are kept from one batch to the next ([`Buffers`]): the finest
//! partitions have some 70,000 parts per `p`, and lists grown afresh per
//! batch cost copies and, in a fresh process, page faults.

use rayon::prelude::*;

use super::super::criterion::{Criterion, Part, Partition, Summary};
use super::super::kernel::{end_tri, segment_row};
use super::{SpatioTemporalQualities, Tables};

/// A visit of phase 1 (`(node, i, j)`), or of a deferred node's task
/// (`(index of p, i, j)`): the parts of `best(node, i..=j)` to find.
type Visit = (usize, usize, usize);

/// The reconstruction's lists, kept from one batch to the next (the
/// curve's): a batch of fine partitions fills some 10⁵ parts per `p`, and
/// lists grown afresh each batch cost their copies on growth and, in a
/// fresh process, a page fault per 4 KB.
#[derive(Debug, Default)]
pub(super) struct Buffers {
    /// Per `p`: phase 1's parts and its visits of the deferred nodes.
    first: Vec<(Vec<Part>, Vec<Visit>)>,
    /// Per node: its visits (phase 2), then per `p` the parts they found.
    second: Vec<(Vec<Visit>, Vec<Vec<Part>>)>,
}

/// Where the reconstruction puts what it finds.
struct Sink<'a> {
    parts: Vec<Part>,
    /// Phase 1: visits `(node, i, j)` of the deferred nodes, recorded
    /// instead of followed; `None` in phase 2.
    visits: Option<Vec<Visit>>,
    /// Per node, whether its visits are deferred (module docs).
    defer: &'a [bool],
    /// A leaf's row ([`segment_row`]).
    row: Vec<f64>,
}

/// The parts of `pieces` (as [`SpatioTemporalQualities::reconstruct`]
/// hands them over: each node's parts in one piece, latest first) in the
/// order of a sort by `(node, first)` (the pair is unique in a
/// partition): a counting sort by node of the reversed list, so no
/// comparison sort (it is kept as a fallback, should the emission order
/// ever change).
fn by_node_then_time<'a>(pieces: &[&'a [Part]], nodes: usize) -> Vec<&'a Part> {
    let key = |p: &Part| p.node.unwrap_or(0).min(nodes.saturating_sub(1));
    let mut start = vec![0usize; nodes + 1];
    for p in pieces.iter().flat_map(|s| s.iter()) {
        start[key(p) + 1] += 1;
    }
    for h in 0..nodes {
        start[h + 1] += start[h];
    }
    let Some(any) = pieces.iter().find_map(|s| s.first()) else {
        return Vec::new();
    };
    let mut out = vec![any; start[nodes]];
    for p in pieces.iter().rev().flat_map(|s| s.iter().rev()) {
        let k = key(p);
        out[start[k]] = p;
        start[k] += 1;
    }
    if !out.is_sorted_by_key(|p| (p.node, p.first)) {
        out.sort_unstable_by_key(|p| (p.node, p.first));
    }
    out
}

/// The best partition made of `pieces`, its parts ordered by node, then
/// time.
pub(super) fn partition_of(pieces: &[&[Part]], nodes: usize) -> Partition {
    if pieces.is_empty() {
        return Partition::default();
    }
    Partition::from_parts(
        by_node_then_time(pieces, nodes)
            .into_iter()
            .copied()
            .collect(),
    )
}

/// The curve's summary of the partition made of `pieces`: the sums of
/// [`partition_of`] (the same order, so the same bits) without building
/// its list of parts. The counting sort of [`by_node_then_time`] moves
/// each part's gain and loss (not a reference to the part) into a list
/// kept per thread (a batch's finest partitions have some 10⁵ parts: a
/// fresh list is fresh pages), checks the order as it goes, and sums the
/// list in order; any other order falls back to the sort.
pub(super) fn summary_of(pieces: &[&[Part]], nodes: usize) -> Summary {
    /// Per node: where its next part goes, and the start of its last;
    /// the parts' gains and losses in order.
    type Order = (Vec<usize>, Vec<usize>, Vec<[f64; 2]>);
    thread_local! {
        static ORDER: std::cell::RefCell<Order> = Default::default();
    }
    if pieces.is_empty() {
        return Summary::of(&Partition::default());
    }
    let sorted = ORDER.with_borrow_mut(|(start, last, order)| {
        start.clear();
        start.resize(nodes + 1, 0);
        for p in pieces.iter().flat_map(|s| s.iter()) {
            match p.node {
                Some(h) if h < nodes => start[h + 1] += 1,
                _ => return None,
            }
        }
        for h in 0..nodes {
            start[h + 1] += start[h];
        }
        last.clear();
        last.resize(nodes, 0);
        order.clear();
        order.resize(start[nodes], [0.0; 2]);
        for p in pieces.iter().rev().flat_map(|s| s.iter().rev()) {
            let h = p.node.unwrap_or(0);
            if p.first < last[h] {
                return None;
            }
            last[h] = p.first;
            order[start[h]] = [p.gain, p.loss];
            start[h] += 1;
        }
        Some(Summary {
            gain: order.iter().map(|p| p[0]).sum(),
            loss: order.iter().map(|p| p[1]).sum(),
            parts: order.len(),
        })
    });
    sorted.unwrap_or_else(|| {
        let order = by_node_then_time(pieces, nodes);
        Summary {
            gain: order.iter().map(|p| p.gain).sum(),
            loss: order.iter().map(|p| p.loss).sum(),
            parts: order.len(),
        }
    })
}

/// Where the last block of `best(·, i..=j)` = `target` starts: `i` when
/// one block (`whole`) makes the value, else the last start `c` whose
/// `split(c)` (`best(i, c − 1)` + the block `c..=j`) is the value, found
/// from the right (fine partitions end at once).
#[inline(always)]
fn block_start(i: usize, j: usize, whole: f64, target: f64, split: impl Fn(usize) -> f64) -> usize {
    if whole >= target {
        return i;
    }
    (i + 1..=j)
        .rev()
        .find(|&c| split(c) == target)
        .unwrap_or_else(|| {
            (i + 1..=j)
                .max_by(|&a, &b| split(a).total_cmp(&split(b)))
                .unwrap_or(j)
        })
}

impl SpatioTemporalQualities {
    /// The best partitions of the programmes whose values are in `tables`
    /// (one per criterion), in the three phases of the module docs, each
    /// handed to `finish` as its pieces: the parts of phase 1, then those
    /// of each deferred node (each node's parts in one piece, latest
    /// first); none when there are no slices.
    pub(super) fn reconstruct<S: Send>(
        &self,
        crits: &[Criterion],
        tables: &[Tables],
        buffers: &mut Buffers,
        finish: impl Fn(&[&[Part]]) -> S + Sync,
    ) -> Vec<S> {
        let nodes = &self.hierarchy.nodes;
        if self.n == 0 {
            return crits.iter().map(|_| finish(&[])).collect();
        }
        let defer: Vec<bool> = nodes
            .iter()
            .map(|node| {
                node.parent.is_some() && node.children.iter().any(|&c| nodes[c].children.is_empty())
            })
            .collect();
        let Buffers { first, second } = buffers;
        if first.len() < crits.len() {
            first.resize_with(crits.len(), Default::default);
        }
        let first = &mut first[..crits.len()];
        first
            .par_iter_mut()
            .zip(crits.par_iter().zip(tables))
            .for_each_init(Vec::new, |row, ((parts, visits), (crit, t))| {
                parts.clear();
                visits.clear();
                let mut sink = Sink {
                    parts: std::mem::take(parts),
                    visits: Some(std::mem::take(visits)),
                    defer: &defer,
                    row: std::mem::take(row),
                };
                self.collect(0, 0, self.n - 1, crit, t, &mut sink);
                (*parts, *visits, *row) = (sink.parts, sink.visits.unwrap_or_default(), sink.row);
            });
        // Each deferred node's visits: by `p`, each `p`'s in phase 1's order.
        second.resize_with(nodes.len(), Default::default);
        for (visits, _) in second.iter_mut() {
            visits.clear();
        }
        for (b, (_, visits)) in first.iter().enumerate() {
            for &(h, i, j) in visits {
                second[h].0.push((b, i, j));
            }
        }
        second
            .par_iter_mut()
            .enumerate()
            .filter(|(_, (visits, _))| !visits.is_empty())
            .for_each_init(Vec::new, |row, (h, (visits, out))| {
                if out.len() < crits.len() {
                    out.resize_with(crits.len(), Vec::new);
                }
                out.iter_mut().for_each(Vec::clear);
                let mut sink = Sink {
                    parts: Vec::new(),
                    visits: None,
                    defer: &defer,
                    row: std::mem::take(row),
                };
                for &(b, i, j) in visits.iter() {
                    std::mem::swap(&mut sink.parts, &mut out[b]);
                    self.collect(h, i, j, &crits[b], &tables[b], &mut sink);
                    std::mem::swap(&mut sink.parts, &mut out[b]);
                }
                *row = sink.row;
            });
        let second: &[(Vec<Visit>, Vec<Vec<Part>>)] = second;
        first
            .par_iter()
            .enumerate()
            .map(|(b, (parts, _))| {
                let pieces: Vec<&[Part]> = std::iter::once(&parts[..])
                    .chain(
                        second
                            .iter()
                            .filter(|(visits, _)| !visits.is_empty())
                            .map(|(_, out)| &out[b][..]),
                    )
                    .collect();
                finish(&pieces)
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

    /// The parts of `best(h, i..=j)`'s partition, found again from the
    /// kept values: the block starts and kinds whose sums make each value.
    fn collect(
        &self,
        h: usize,
        i: usize,
        j: usize,
        crit: &Criterion,
        tables: &Tables,
        sink: &mut Sink,
    ) {
        if let Some(visits) = &mut sink.visits {
            if sink.defer[h] {
                visits.push((h, i, j));
                return;
            }
        }
        let n = self.n;
        match self.hierarchy.nodes[h].parent {
            _ if self.stored(h) => {
                let best = &tables.best[h];
                self.collect_with(h, i, j, crit, tables, sink, |e| best[end_tri(e) + i]);
            }
            // A leaf's values: its first row as the programme kept it, or
            // the one row computed again.
            Some(up) if i == 0 => {
                let r = &tables.rows[up][self.slot[h] * n..][..=j];
                self.leaf_parts(h, i, j, crit, sink, |e| r[e]);
            }
            _ => {
                let pqc = [crit.p, 1.0 - crit.p, crit.part_cost];
                let mut r = std::mem::take(&mut sink.row);
                segment_row(&self.gain[h], &self.loss[h], i, j, pqc, &mut r);
                self.leaf_parts(h, i, j, crit, sink, |e| r[e - i]);
                sink.row = r;
            }
        }
    }

    /// [`collect_with`](Self::collect_with) for a leaf under a parent:
    /// every block is one part, so the search needs no children's sums
    /// and the block values are read from the leaf's row of qualities
    /// directly (the same values, the same first match from the right).
    fn leaf_parts(
        &self,
        h: usize,
        i: usize,
        mut j: usize,
        crit: &Criterion,
        sink: &mut Sink,
        best: impl Fn(usize) -> f64,
    ) {
        let (gain, loss) = (&self.gain[h], &self.loss[h]);
        loop {
            let r = end_tri(j);
            let g = &gain[r + i..=r + j];
            let l = |c: usize| loss.loss(c, j, g[c - i]);
            let target = best(j);
            let split = |c: usize| best(c - 1) + crit.value(g[c - i], l(c));
            let c = block_start(i, j, crit.value(g[0], l(i)), target, split);
            sink.parts.push(Part {
                node: Some(h),
                first: c,
                last: j,
                gain: g[c - i],
                loss: l(c),
            });
            if c == i {
                return;
            }
            j = c - 1;
        }
    }

    /// [`collect`](Self::collect) with `best(h, i, e)` as `best(e)`.
    #[allow(clippy::too_many_arguments)]
    fn collect_with(
        &self,
        h: usize,
        i: usize,
        mut j: usize,
        crit: &Criterion,
        tables: &Tables,
        sink: &mut Sink,
        best: impl Fn(usize) -> f64,
    ) {
        let kids = &self.hierarchy.nodes[h].children;
        // Σ_children best(child, c, j), as the programme summed it.
        let sums = &tables.kids[h];
        let kid_sum = |c: usize, j: usize| -> Option<f64> {
            (!kids.is_empty()).then(|| sums[end_tri(j) + c])
        };
        loop {
            let target = best(j);
            // The block c..=j: c == i when one block makes the value.
            let (whole, _) = self.block(h, i, j, crit, kid_sum(i, j));
            let split = |c: usize| best(c - 1) + self.block(h, c, j, crit, kid_sum(c, j)).0;
            let c = block_start(i, j, whole, target, split);
            let (_, one) = self.block(h, c, j, crit, kid_sum(c, j));
            if one {
                let (gain, loss) = self.quality(h, c, j);
                sink.parts.push(Part {
                    node: Some(h),
                    first: c,
                    last: j,
                    gain,
                    loss,
                });
            } else {
                for &k in kids {
                    self.collect(k, c, j, crit, tables, sink);
                }
            }
            if c == i {
                return;
            }
            j = c - 1;
        }
    }
}
