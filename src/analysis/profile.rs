//! The profile: per category, and per category × line, how many drawables
//! and how much time — pipit's `flat_profile`, Jumpshot's legend ratios,
//! for any window.
//!
//! * `count`: primitives of the category the [`Scope`](super::Scope)
//!   selects (a composite's members count as the states, arrows and events
//!   they are), plus the composites of a composite category — composites
//!   appear only in the `count` of their own category: their own box has no
//!   time and nests nothing.
//! * `inclusive`: the sum of their durations as the scope measures them
//!   (clipped to the window by default, whole with `clip = false`). Events
//!   have no duration; an arrow's duration is its box (send to receive).
//! * `exclusive`: for states, inclusive minus the time of the states nested
//!   directly in them on the same line ([`mod@super::nest`] defines the
//!   parent; the reference writer's rule), each measured by the same scope;
//!   for arrows and events, the inclusive time. With states that nest
//!   properly this is the time in which the state is the innermost one.
//! * `min`, `mean`, `max`: of the measured durations of the primitives
//!   counted (`mean = inclusive / timed`, `timed` = primitives counted; a
//!   composite category has none, its min/mean/max are NaN).
//!
//! Per line, a primitive goes to its first vertex's line (an arrow's
//! sender), a composite to its first member's line. The per-category rows
//! are the sums over lines, so both views always agree.
//!
//! Partial profiles of scopes that partition the drawables (time partitions
//! of a window, [`Scope::part`](super::Scope::part)) merge: counts, sums,
//! minima and maxima. A partition's exclusive time may be negative (a child
//! whose parent started in an earlier partition subtracts here); the sum of
//! the partitions is the exclusive time of the whole.

use super::keys::Table;

/// Accumulated values of one (line, category) cell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProfileCell {
    pub count: u64,
    /// Primitives among `count` (composites have no duration).
    pub timed: u64,
    pub inclusive: f64,
    pub exclusive: f64,
    pub min: f64,
    pub max: f64,
}

impl Default for ProfileCell {
    fn default() -> Self {
        ProfileCell {
            count: 0,
            timed: 0,
            inclusive: 0.0,
            exclusive: 0.0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
        }
    }
}

impl ProfileCell {
    /// Add one primitive of duration `d` (its exclusive part `x`).
    #[inline(always)]
    pub fn add(&mut self, d: f64, x: f64) {
        self.count += 1;
        self.timed += 1;
        self.inclusive += d;
        self.exclusive += x;
        // Plain comparisons (durations are never NaN here): f64::min/max
        // cost NaN checks on a path taken 10^8 times a second.
        if d < self.min {
            self.min = d;
        }
        if d > self.max {
            self.max = d;
        }
    }

    pub fn merge(&mut self, o: &ProfileCell) {
        self.count += o.count;
        self.timed += o.timed;
        self.inclusive += o.inclusive;
        self.exclusive += o.exclusive;
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
    }

    /// Whether the cell holds anything worth a row (a nested child may
    /// leave only a negative exclusive time in a partition).
    pub fn is_used(&self) -> bool {
        self.count > 0 || self.exclusive != 0.0
    }

    pub fn mean(&self) -> f64 {
        if self.timed == 0 {
            f64::NAN
        } else {
            self.inclusive / self.timed as f64
        }
    }

    /// `min` and `max` as NaN when no primitive was counted.
    pub fn min_or_nan(&self) -> f64 {
        if self.timed == 0 {
            f64::NAN
        } else {
            self.min
        }
    }

    pub fn max_or_nan(&self) -> f64 {
        if self.timed == 0 {
            f64::NAN
        } else {
            self.max
        }
    }
}

/// A row of a profile: per category (`line` None) or per line × category.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProfileRow {
    pub line: Option<i32>,
    pub category: i32,
    pub cell: ProfileCell,
}

/// The profile accumulator: cells by (line, category).
#[derive(Debug, Clone)]
pub(crate) struct ProfileAcc {
    pub table: Table<ProfileCell>,
}

impl ProfileAcc {
    pub fn merge(&mut self, o: ProfileAcc) {
        self.table.merge_with(o.table, |a, b| a.merge(&b));
    }

    /// The per line × category rows (used cells), by line then category.
    pub fn by_line(&self) -> Vec<ProfileRow> {
        self.table
            .cells(ProfileCell::is_used)
            .into_iter()
            .map(|(l, c, cell)| ProfileRow {
                line: Some(l),
                category: c,
                cell,
            })
            .collect()
    }
}

/// The per-category rows: `by_line` summed over lines, by category.
pub fn by_category(by_line: &[ProfileRow]) -> Vec<ProfileRow> {
    let mut m: std::collections::BTreeMap<i32, ProfileCell> = Default::default();
    for r in by_line {
        m.entry(r.category).or_default().merge(&r.cell);
    }
    m.into_iter()
        .map(|(category, cell)| ProfileRow {
            line: None,
            category,
            cell,
        })
        .collect()
}
