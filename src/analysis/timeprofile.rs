//! The time profile: time in each state category per time slice, summed
//! over the lines (pipit's `time_profile`) — the overview cube
//! ([`Cube`], metric duration) summed over its lines with
//! [`Cube::sum_over_lines`], so the two never disagree.
//!
//! Slices are the cube's ([`Grid`]): `[t0, t1]` cut into `n` equal slices;
//! a state adds its overlap with each slice to its category (nested states
//! count in full, as inclusive time). States on lines the cube does not
//! hold (lines missing from a file's y-maps) are counted in `unmapped` and
//! add no time, as in the overview.
//!
//! A partition `[a, b)` of box starts gives a partial time profile on the
//! same grid (the cube's own [`Accumulator`](super::Accumulator)); partials
//! of partitions that tile the time axis add up to the whole.

use crate::error::Result;
use crate::read::Slog2File;

use super::cube::{default_categories, default_lines, Cube, CubeSpec, Grid, Metric};
use super::fold::fold;
use super::walk::Range;

/// Slices × categories of state time (module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct TimeProfile {
    pub grid: Grid,
    /// State category indices, in column order.
    pub categories: Vec<i32>,
    /// `[slice][category]`, seconds.
    pub values: Vec<f64>,
    /// States on lines the cube does not hold.
    pub unmapped: u64,
}

impl TimeProfile {
    /// The time profile of `[t0, t1]` (default: the file's range) in
    /// `slices` slices; with `part`, only the states starting in it.
    pub fn compute(
        file: &Slog2File,
        t0: Option<f64>,
        t1: Option<f64>,
        slices: usize,
        part: Option<(f64, f64)>,
    ) -> Result<TimeProfile> {
        let mut spec = CubeSpec::new(slices, Metric::Duration);
        spec.t0 = t0;
        spec.t1 = t1;
        let cube = match part {
            None => Cube::build(file, &spec)?,
            Some((a, b)) => {
                let tb = file.total_time();
                let grid = Grid::new(t0.unwrap_or(tb.start), t1.unwrap_or(tb.end), slices)?;
                let shape = Cube::zeros(
                    grid,
                    Metric::Duration,
                    default_lines(file)?,
                    default_categories(file, Metric::Duration),
                )?;
                let range = Range::starting_in(a, b);
                fold(file, range, || shape.empty_like())?
            }
        };
        Ok(TimeProfile {
            grid: cube.grid,
            values: cube.sum_over_lines(),
            categories: cube.categories.clone(),
            unmapped: cube.unmapped,
        })
    }

    /// Value of slice `k`, category column `c`.
    pub fn get(&self, k: usize, c: usize) -> f64 {
        self.values[k * self.categories.len() + c]
    }

    /// Add a partial profile on the same grid and categories.
    pub fn merge(&mut self, o: &TimeProfile) -> Result<()> {
        if self.grid != o.grid || self.categories != o.categories {
            return Err(crate::Error::InvalidArgument(
                "time profiles on different grids or categories do not merge".into(),
            ));
        }
        for (a, b) in self.values.iter_mut().zip(&o.values) {
            *a += b;
        }
        self.unmapped += o.unmapped;
        Ok(())
    }
}
