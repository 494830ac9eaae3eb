//! The two parallel drivers of the record walk: [`fold`] for mergeable
//! accumulators, [`fold_parts`] for outputs split by time.

use rayon::prelude::*;

use crate::error::Result;
use crate::model::TimeBox;
use crate::read::Slog2File;

use super::walk::{chunks, nodes_for, walk_nodes, Range, Topologies, Visitor};

/// A partial result that can absorb another one computed over other
/// drawables: the merge of the partials of disjoint sets of drawables is
/// the result of their union, whatever the order of the merges (sums,
/// counts, minima and maxima, histograms on shared bins, sets).
///
/// The same value serves every scale: the threads of one [`fold`], the
/// time ranges of one file ([`Select::StartingIn`](super::Select) ranges
/// that tile the time axis), and many files (a Dask reduction of partials
/// computed by worker processes).
pub trait Accumulator: Visitor + Send {
    /// Absorb `other` (computed over drawables this one has not seen).
    fn merge(&mut self, other: Self);
}

/// Fold every drawable `range` selects into accumulators made by `init`,
/// in parallel over the tree nodes, and merge them into one.
///
/// Each drawable is stored in exactly one tree node, so walking each node
/// that may hold a selected drawable once visits each selected drawable
/// once: no de-duplication, whatever the partition of the work. The nodes
/// are split into runs of nearby blocks (a few MiB each, in file order, so
/// reads stay sequential) and rayon's workers fold runs into accumulators
/// from `init` — one per split of the work, a few per thread — merged
/// pairwise at the end. Memory is therefore a few accumulators per thread
/// plus one run of mapped pages per thread.
///
/// Errors: `range` empty or NaN is `InvalidArgument`; a damaged node gives
/// the codec's error (block and byte offset) and the fold stops.
pub fn fold<A, I>(file: &Slog2File, range: Range, init: I) -> Result<A>
where
    A: Accumulator,
    I: Fn() -> A + Sync + Send,
{
    range.check()?;
    let topo = Topologies::new(file);
    let nodes = nodes_for(file, &range);
    let runs = chunks(file, &nodes);
    runs.par_iter()
        .try_fold(&init, |mut acc, run| {
            walk_nodes(file, &nodes[run.clone()], &range, &topo, &mut acc)?;
            Ok(acc)
        })
        .try_reduce(&init, |mut a, b| {
            a.merge(b);
            Ok(a)
        })
}

/// [`fold`] on the calling thread into one visitor (no merging): for small
/// ranges, or callers that run their own parallelism (e.g. Dask tasks).
pub fn fold_seq<V: Visitor>(file: &Slog2File, range: Range, v: &mut V) -> Result<()> {
    range.check()?;
    let topo = Topologies::new(file);
    let nodes = nodes_for(file, &range);
    walk_nodes(file, &nodes, &range, &topo, v)
}

/// Walk, in parallel, one visitor per time part: each visitor gets every
/// drawable that intersects its part's closed box (so a drawable crossing
/// two parts is seen by both, and each visitor keeps only its share of it:
/// its part of a state's duration, the drawables starting in its part).
///
/// This is for results split by time, such as the slices of an overview
/// cube: each part writes its own slab of the output, so the output is
/// written once, in place, with no per-thread copy and no merge. The nodes
/// that cross a part's edges are walked by both parts (about one node per
/// tree level per edge), the rest once.
pub fn fold_parts<V: Visitor + Send>(file: &Slog2File, parts: &mut [(TimeBox, V)]) -> Result<()> {
    let topo = Topologies::new(file);
    parts.par_iter_mut().try_for_each(|(b, v)| {
        let range = Range::intersecting(b.start, b.end);
        range.check()?;
        let nodes = nodes_for(file, &range);
        walk_nodes(file, &nodes, &range, &topo, v)
    })
}
