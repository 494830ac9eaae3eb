//! What a statistic covers: a time window, optionally one time partition of
//! it, and whether states are clipped to the window.
//!
//! Every statistic of issue #30 (profiles, communication matrix, histograms,
//! idle time) selects and measures drawables through one [`Scope`], so a
//! profile row and a histogram of the same category count the same
//! instances and add up to the same time.
//!
//! * **Window** `[t0, t1]` (closed): a drawable is in it when its time box
//!   intersects it — what a window query shows. Default: the file's whole
//!   time range ([`Scope::whole`]).
//! * **Duration** of a selected drawable: its box clipped to the window by
//!   default (`clip`), so the time of a window's profile is time spent
//!   *inside* the window and a state crossing an edge counts only its part;
//!   with `clip = false`, whole states (their full box). Arrows are measured
//!   the same way (send to receive as a box); events have no duration.
//! * **Partition** `[a, b)` (optional): of the selected drawables, only those
//!   whose box *starts* in `[a, b)`. Partitions that tile the time axis
//!   (`[-inf, a1)`, `[a1, a2)`, ..., `[ak, +inf)`) see every drawable of the
//!   window exactly once, each whole (a state crossing a partition edge
//!   belongs to the partition of its start and keeps its full, window-
//!   clipped duration there), so their partial results merge into the
//!   result of the whole window: the Dask path (`slog2.dask`).

use crate::error::{Error, Result};
use crate::read::Slog2File;

use super::walk::Range;

/// The drawables a statistic covers and how their time is measured (module
/// docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scope {
    /// The window, closed.
    pub t0: f64,
    pub t1: f64,
    /// Partition `[a, b)` of box starts (`None`: all of the window).
    pub part: Option<(f64, f64)>,
    /// Clip durations to the window (default); `false` = whole states.
    pub clip: bool,
}

impl Scope {
    /// The file's whole time range, clipped (a no-op: every drawable lies
    /// inside it), no partition.
    pub fn whole(file: &Slog2File) -> Scope {
        let tb = file.total_time();
        Scope::window(tb.start, tb.end)
    }

    /// The window `[t0, t1]`, clipped, no partition.
    pub fn window(t0: f64, t1: f64) -> Scope {
        Scope {
            t0,
            t1,
            part: None,
            clip: true,
        }
    }

    /// `t0`/`t1` default to the file's time range.
    pub fn of(file: &Slog2File, t0: Option<f64>, t1: Option<f64>) -> Scope {
        let tb = file.total_time();
        Scope::window(t0.unwrap_or(tb.start), t1.unwrap_or(tb.end))
    }

    /// This scope restricted to the drawables starting in `[a, b)`.
    pub fn part(self, a: f64, b: f64) -> Scope {
        Scope {
            part: Some((a, b)),
            ..self
        }
    }

    /// This scope with whole (`false`) or clipped (`true`) durations.
    pub fn clipped(self, clip: bool) -> Scope {
        Scope { clip, ..self }
    }

    /// Window length (`t1 - t0`).
    pub fn length(&self) -> f64 {
        self.t1 - self.t0
    }

    /// `InvalidArgument` for an empty or NaN window or partition.
    pub fn check(&self) -> Result<()> {
        if self.t0.is_nan() || self.t1.is_nan() || self.t0 > self.t1 {
            return Err(Error::InvalidArgument(format!(
                "time window [{}, {}] is empty or not a number",
                self.t0, self.t1
            )));
        }
        if let Some((a, b)) = self.part {
            if a.is_nan() || b.is_nan() || a > b {
                return Err(Error::InvalidArgument(format!(
                    "time partition [{a}, {b}) is empty or not a number"
                )));
            }
        }
        Ok(())
    }

    /// Whether a drawable with this box is selected.
    #[inline(always)]
    pub fn selects(&self, start: f64, end: f64) -> bool {
        start <= self.t1
            && self.t0 <= end
            && match self.part {
                None => true,
                Some((a, b)) => a <= start && start < b,
            }
    }

    /// The measured duration of a selected box (clipped or whole).
    #[inline(always)]
    pub fn duration(&self, start: f64, end: f64) -> f64 {
        if self.clip {
            let s = if start > self.t0 { start } else { self.t0 };
            let e = if end < self.t1 { end } else { self.t1 };
            let d = e - s;
            if d > 0.0 {
                d
            } else {
                0.0
            }
        } else {
            end - start
        }
    }

    /// Whether every drawable whose box lies inside `[start, end]` (a tree
    /// node's box) is selected and measured by its whole box: the box lies
    /// in the window and, with a partition `[a, b)`, every start in it does
    /// (`a <= start`, `end < b`). The leaf walk then skips
    /// [`selects`](Self::selects) and [`duration`](Self::duration) for the
    /// leaf's states — a partition's leaves as much as a whole window's.
    #[inline]
    pub(crate) fn selects_all_in(&self, start: f64, end: f64) -> bool {
        self.t0 <= start
            && end <= self.t1
            && match self.part {
                None => true,
                Some((a, b)) => a <= start && end < b,
            }
    }

    /// The fold range that holds every selected drawable (the visitor still
    /// checks [`selects`](Self::selects)).
    pub fn fold_range(&self) -> Range {
        match self.part {
            Some((a, b)) => Range::starting_in(a, b),
            None => Range::intersecting(self.t0, self.t1),
        }
    }

    /// Whether a tree node with this box can hold a selected drawable or a
    /// state containing one (containers intersect the window too, and start
    /// no later than what they contain).
    pub(crate) fn may_hold(&self, start: f64, end: f64) -> bool {
        start <= self.t1
            && self.t0 <= end
            && match self.part {
                None => true,
                Some((a, b)) => start < b && a <= end,
            }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_and_partitions() {
        let s = Scope::window(1.0, 3.0);
        assert!(s.selects(0.0, 1.0) && s.selects(3.0, 9.0) && !s.selects(3.5, 4.0));
        assert_eq!(s.duration(0.0, 2.0), 1.0);
        assert_eq!(s.clipped(false).duration(0.0, 2.0), 2.0);
        let p = s.part(2.0, 3.0);
        assert!(!p.selects(0.0, 2.5) && p.selects(2.0, 2.5) && !p.selects(3.0, 3.0));
        // A box wholly selected: inside the window and its starts inside [a, b).
        assert!(s.selects_all_in(1.0, 3.0) && !s.selects_all_in(0.5, 2.0));
        assert!(p.selects_all_in(2.0, 2.9) && !p.selects_all_in(2.0, 3.0));
        assert!(!p.selects_all_in(1.9, 2.5));
        let open = s.part(f64::NEG_INFINITY, f64::INFINITY);
        assert!(open.selects_all_in(1.0, 3.0) && !open.selects_all_in(1.0, 3.5));
        assert!(Scope::window(2.0, 1.0).check().is_err());
        assert!(s.part(2.0, f64::NAN).check().is_err());
    }
}
