//! Idle time per line: the time of the window a line spends in no state, and
//! the time it spends waiting (in states of a user's list of wait categories
//! such as `MPI_Wait*`, `MPI_Recv`, `MPI_Barrier`).
//!
//! * `busy` = the measured durations of the line's *top-level* states (those
//!   nested in no other: [`mod@super::nest`]); `no_state` = window length
//!   − `busy`. For states that nest properly (no two states on a line
//!   overlap without one containing the other — what MPI tracers write) this
//!   is exactly the time covered by no state; partially overlapping
//!   top-level states would count their overlap twice.
//! * `wait` = the measured durations of the line's states in a wait
//!   category whose parent is not in a wait category (a wait nested in a
//!   wait counts once).
//! * `idle` = `wait` when a wait list is given, else `no_state`.
//!
//! Wait categories are given by name, with `*` (any text) and `?` (one
//! character) as wildcards ([`glob`]). Partial results (time partitions)
//! merge by adding `busy` and `wait`; `no_state` is computed at the end
//! from the window length, so it is right however the work was split.

use std::collections::BTreeSet;

use crate::read::Slog2File;

/// Whether `name` matches `pattern` (`*` any text, `?` one character).
pub fn glob(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    let (mut i, mut j) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while j < n.len() {
        if i < p.len() && (p[i] == '?' || p[i] == n[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some(i);
            mark = j;
            i += 1;
        } else if let Some(s) = star {
            i = s + 1;
            mark += 1;
            j = mark;
        } else {
            return false;
        }
    }
    while i < p.len() && p[i] == '*' {
        i += 1;
    }
    i == p.len()
}

/// The indices of the categories whose names match any of `patterns`.
pub fn wait_categories(file: &Slog2File, patterns: &[String]) -> BTreeSet<i32> {
    file.categories()
        .iter()
        .filter(|c| !c.is_preview() && patterns.iter().any(|p| glob(p, &c.name)))
        .map(|c| c.index)
        .collect()
}

/// Per-line accumulated times.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct IdleCell {
    pub busy: f64,
    pub wait: f64,
}

/// One line's idle time (module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IdleRow {
    pub line: i32,
    pub no_state: f64,
    pub wait: f64,
    /// `wait` with a wait list, else `no_state`.
    pub idle: f64,
    /// `idle` / window length.
    pub fraction: f64,
}

/// The rows of every line in `lines` (ascending), given the accumulated
/// cells (by line) and the window length.
pub fn idle_rows(
    lines: &[i32],
    cell: impl Fn(i32) -> IdleCell,
    window: f64,
    with_wait: bool,
) -> Vec<IdleRow> {
    lines
        .iter()
        .map(|&line| {
            let c = cell(line);
            let no_state = window - c.busy;
            let idle = if with_wait { c.wait } else { no_state };
            IdleRow {
                line,
                no_state,
                wait: c.wait,
                idle,
                fraction: if window > 0.0 {
                    idle / window
                } else {
                    f64::NAN
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::glob;

    #[test]
    fn globs() {
        assert!(glob("MPI_Wait*", "MPI_Waitall"));
        assert!(glob("MPI_Wait*", "MPI_Wait"));
        assert!(!glob("MPI_Wait*", "MPI_Recv"));
        assert!(glob("MPI_?ecv", "MPI_Recv"));
        assert!(glob("*", ""));
        assert!(glob("*all", "MPI_Allreduce_all"));
        assert!(!glob("MPI_Barrier", "MPI_Barrier2"));
        assert!(glob("a*b*c", "aXXbYYc"));
    }
}
