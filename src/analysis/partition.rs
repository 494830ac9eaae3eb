//! The drawables of one time partition as rows: what a Dask task of
//! `slog2.dask.read` loads.
//!
//! A partition `[a, b)` holds the drawables whose box **starts** in it (and
//! intersects the scope's window): partitions that tile the time axis hold
//! each drawable exactly once, whatever crosses their edges — a state
//! running from one partition into the next belongs to the one where it
//! starts, whole. Each task reads only the tree nodes that can hold such
//! drawables ([`Select::StartingIn`](super::Select)), so no drawable is
//! decoded by two partitions' rows (nodes crossing an edge are walked by
//! both, each keeping its own drawables).
//!
//! Rows are [`Rows`] columns without info bytes: one row per primitive (a
//! composite's members are rows of their own, kind primitive, each in the
//! partition of its own start) and one per composite (kind composite,
//! `num_real` = its member count); `parent` is -1. Order: tree nodes in file
//! order, within a node as stored — not by time.

use crate::error::Result;
use crate::read::{Rows, Slog2File};

use super::fold::fold_seq;
use super::scope::Scope;
use super::walk::{CompositeRef, PrimitiveRef, Visitor};

/// Row kinds as in [`Rows`].
const PRIMITIVE: u8 = crate::read::ROW_PRIMITIVE;
const COMPOSITE: u8 = crate::read::ROW_COMPOSITE;

struct Sink<'a> {
    scope: Scope,
    rows: &'a mut Rows,
}

impl Sink<'_> {
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        kind: u8,
        category: i32,
        b: (f64, f64),
        v0: (f64, i32),
        v1: (f64, i32),
        n: i64,
    ) {
        let r = &mut *self.rows;
        r.kind.push(kind);
        r.category.push(category);
        r.start.push(b.0);
        r.end.push(b.1);
        r.time0.push(v0.0);
        r.line0.push(v0.1);
        r.time1.push(v1.0);
        r.line1.push(v1.1);
        r.parent.push(-1);
        r.num_real.push(n);
        r.info_offset.push(0);
    }
}

impl Visitor for Sink<'_> {
    fn primitive(&mut self, p: &PrimitiveRef<'_>) {
        if self.scope.selects(p.start, p.end) {
            self.push(
                PRIMITIVE,
                p.category,
                (p.start, p.end),
                (p.time0, p.line0),
                (p.time1, p.line1),
                1,
            );
        }
    }

    fn composite(&mut self, c: &CompositeRef<'_>) {
        if self.scope.selects(c.start, c.end) {
            self.push(
                COMPOSITE,
                c.category,
                (c.start, c.end),
                (c.start, c.line0),
                (c.end, c.line1),
                c.members as i64,
            );
        }
    }
}

/// The rows of the drawables `scope` selects (module docs).
pub fn partition_rows(file: &Slog2File, scope: &Scope) -> Result<Rows> {
    scope.check()?;
    let mut rows = Rows::default();
    fold_seq(
        file,
        scope.fold_range(),
        &mut Sink {
            scope: *scope,
            rows: &mut rows,
        },
    )?;
    Ok(rows)
}

/// `n + 1` edges cutting the time axis into `n` partitions of about equal
/// work — the bytes of the leaves whose middle lies in each — for
/// [`Scope::part`]: the first edge is -inf, the last +inf, the others
/// non-decreasing cut times (a partition may be empty). Every drawable
/// starts in exactly one partition.
pub fn partition_edges(file: &Slog2File, n: usize) -> Vec<f64> {
    let n = n.max(1);
    let mut leaves: Vec<(f64, f64)> = file
        .directory()
        .iter()
        .filter(|e| e.id.depth == 0 && !e.time_box.start.is_nan() && !e.time_box.end.is_nan())
        .map(|e| {
            (
                0.5 * (e.time_box.start + e.time_box.end),
                f64::from(e.ptr.size.max(0)),
            )
        })
        .collect();
    leaves.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total: f64 = leaves.iter().map(|l| l.1).sum();
    let mut edges = vec![f64::NEG_INFINITY];
    let (mut acc, mut k) = (0.0, 1);
    for w in leaves.windows(2) {
        acc += w[0].1;
        while k < n && total > 0.0 && acc >= total * k as f64 / n as f64 {
            // Cut between the two leaves' middles.
            edges.push(0.5 * (w[0].0 + w[1].0));
            k += 1;
        }
    }
    let last = leaves.last().map_or(0.0, |l| l.0);
    while edges.len() < n {
        edges.push(last);
    }
    edges.push(f64::INFINITY);
    edges
}
