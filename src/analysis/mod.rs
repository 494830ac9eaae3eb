//! Analyses of a file's drawables by one parallel pass: the engine of the
//! overview (Ocelotl's aggregation, issue #29) and of the statistics that
//! fold the drawables of a time range (profiles, communication matrix,
//! histograms of issue #30).
//!
//! # The fold
//!
//! An analysis is a [`Visitor`] — two methods that receive each selected
//! drawable as a borrowed record ([`PrimitiveRef`], [`CompositeRef`]:
//! category and its topology, info bytes, time box, first and last vertex,
//! the composite a member belongs to, and where the record lies) — and,
//! to run in parallel, an [`Accumulator`]: a visitor whose partial results
//! merge (`merge(&mut self, other)`).
//!
//! ```no_run
//! use slog2::analysis::{fold, Accumulator, PrimitiveRef, Range, Visitor};
//! use slog2::Topology;
//!
//! /// Time in each state category (whole states), and how many there are.
//! #[derive(Default)]
//! struct Profile(std::collections::BTreeMap<i32, (u64, f64)>);
//!
//! impl Visitor for Profile {
//!     fn primitive(&mut self, p: &PrimitiveRef<'_>) {
//!         if p.topology == Topology::State {
//!             let e = self.0.entry(p.category).or_default();
//!             e.0 += 1;
//!             e.1 += p.end - p.start;
//!         }
//!     }
//! }
//!
//! impl Accumulator for Profile {
//!     fn merge(&mut self, other: Profile) {
//!         for (c, (n, t)) in other.0 {
//!             let e = self.0.entry(c).or_default();
//!             e.0 += n;
//!             e.1 += t;
//!         }
//!     }
//! }
//!
//! # fn main() -> slog2::Result<()> {
//! let f = slog2::Slog2File::open("run.slog2")?;
//! let p = fold(&f, Range::intersecting(0.5, 1.5), Profile::default)?;
//! # Ok(()) }
//! ```
//!
//! * **Each drawable once.** A drawable is stored in exactly one tree node,
//!   so walking once each node whose time box can hold a selected drawable
//!   visits each selected drawable once, however the nodes are shared out.
//! * **Selection** ([`Range`], [`Select`]): the primitives whose own box
//!   intersects `[t0, t1]` (what a window shows; clip if you need to), or
//!   those starting in `[t0, t1)` — ranges that tile the time axis then see
//!   each drawable exactly once, so partials of a file's time partitions
//!   (Dask tasks) merge into the whole. A composite's members are selected
//!   each by its own box and come before the composite (selected by its box).
//! * **Order**: none across nodes. Within a node: arrows and events, then
//!   states and composites, in drawing order.
//! * **Speed.** Records are decoded in place by the codec's fast path and
//!   handed over on the stack: no row, no `Drawable`, no allocation per
//!   record. Nodes are walked in file order in runs of a few MiB whose
//!   pages are mapped in one call and dropped after (RSS: one run per
//!   thread). Keep `primitive` small and branch-light: it runs 10⁸ times.
//! * **Three drivers.** [`fold`] (parallel, merges accumulators: small
//!   results such as profiles, matrices, histograms), [`fold_seq`] (one
//!   thread, one visitor), [`fold_parts`] (parallel over time parts, one
//!   visitor per part: large results split by time, written in place, such
//!   as the [`Cube`]'s slices).
//!
//! # The cube
//!
//! [`Cube`] is the overview's microscopic model `v[line][slice][category]`
//! (metrics [`Metric::Duration`] and [`Metric::Count`]; see [`mod@cube`]).
//! [`Cube::sum_over_lines`] is the slices × categories time profile.
//!
//! # Statistics (issue #30)
//!
//! [`Stats`] (profile per category and per line × category, with exclusive
//! time; communication matrix; idle time; load imbalance) in one pass that
//! knows which state each state is nested in ([`mod@nest`]); [`histogram`]s
//! of durations and message sizes with the instances behind each bar;
//! [`TimeProfile`] (the cube summed over lines); [`compare`] of two runs;
//! [`partition_rows`] for Dask. All of them take a [`Scope`]: a window,
//! clipped or whole states, and optionally a time partition whose partial
//! results merge.
//! # The overview
//!
//! [`overview()`] is Ocelotl's aggregation on top of the cube: temporal
//! ([`temporal`]) or spatiotemporal over a [`Hierarchy`] of the lines
//! ([`spatiotemporal`]), with the criterion, ties, p-curve and `auto` p of
//! [`criterion`], from a cube built now or rebinned from the [`cache`].

pub mod cache;
pub mod criterion;
pub mod cube;
mod fold;
pub mod hierarchy;
mod kernel;
mod lookup;
pub mod overview;
pub mod spatiotemporal;
pub mod temporal;
mod walk;

// Statistics of issue #30.
pub mod comm;
pub mod compare;
pub mod histogram;
pub mod idle;
pub mod imbalance;
mod keys;
pub mod nest;
pub mod partition;
pub mod profile;
pub mod scope;
mod sparse;
pub mod stats;
mod sweep;
pub mod timeprofile;
pub use histogram::{Bins, Histogram, Instances, Measure, Spacing};
pub use partition::partition_rows;
pub use profile::{ProfileCell, ProfileRow};
pub use scope::Scope;
pub use stats::{Stats, StatsOptions};
pub use timeprofile::TimeProfile;

pub use criterion::{auto_p, curve, Criterion, CurvePoint, Part, Partition};
pub use cube::{default_categories, default_lines, Cube, CubeSpec, Grid, Metric};
pub use fold::{fold, fold_parts, fold_seq, Accumulator};
pub use hierarchy::{Hierarchy, HierarchyNode};
pub use overview::{
    overview, render_rects, CacheUse, Overview, OverviewSpec, PChoice, Rect, RectKind, Timings,
};
pub use spatiotemporal::SpatioTemporalQualities;
pub use temporal::TemporalQualities;
pub use walk::{CompositeRef, PrimitiveRef, Range, RecordAt, Select, Visitor};
