//! The microscopic model of an overview: the cube `v[line][slice][category]`
//! of a time range cut into equal slices (Ocelotl's model, Dosimont et al.
//! 2014), built exactly by one pass over the drawables of the range.
//!
//! # Metrics
//!
//! * [`Metric::Duration`]: each state adds its overlap with slice `t` to its
//!   category on its line. Nested states count in full (a state inside
//!   another adds its own time; nothing is subtracted). Arrows and events
//!   have no duration. Categories: every state category of the file.
//! * [`Metric::Count`]: each primitive adds 1 to the slice where it starts
//!   (its box start), on its first vertex's line (an arrow's sender), if its
//!   start lies in the range. Categories: every category of the file.
//!
//! In both, a composite's members count as the states, arrows and events
//! they are; the composite's own box adds nothing. Primitives on a line or
//! in a category the cube does not hold are counted in
//! [`Cube::unmapped`], never silently dropped.
//!
//! # Slices
//!
//! `[t0, t1]` is cut into `n` slices of width `w = (t1 - t0) / n`; slice
//! `k` is `[t0 + k·w, t0 + (k+1)·w)`, the last one closed at `t1`
//! ([`Grid`]). Every rule above uses the same [`Grid::slice_of`] and
//! [`Grid::edge`], so the brute-force tests reproduce the cube bit for bit
//! in counts and to rounding in durations.
//!
//! # Memory layout and the build
//!
//! Cells are stored slice-major, `data[(slice · lines + line) · categories
//! + category]`: a slice is one contiguous row of `lines × categories`
//! values. This is what makes the build write the cube once, in place: the
//! slices are split into slabs of about equal work (bytes of the leaves
//! over them), and [`fold_parts`] walks one slab per task, each task
//! writing only its own rows — a state crossing slabs is seen by each and
//! each adds its own slices' share; a count goes to the slab of the start.
//! So memory is the cube plus one run of mapped pages per thread; no
//! per-thread copy of the cube, no merge pass. Each state costs O(slices it
//! crosses); the sum of that over a file is at most the drawables plus
//! `lines × slices × nesting depth`.
//!
//! [`Cube`] is also an [`Accumulator`]: `fold(file,
//! Range::starting_in(a, b), || cube.empty_like())` gives the cube of the
//! drawables starting in `[a, b)`, on the same grid, and such partials add
//! up to the whole cube (the Dask path).
//!
//! [`Cube::sum_over_lines`] is the slices × categories time profile.

use crate::error::{Error, Result};
use crate::model::{TimeText, Topology, YCoordMap};
use crate::read::Slog2File;

use super::fold::{fold, fold_parts, Accumulator};
use super::lookup::Lookup;
use super::walk::{PrimitiveRef, Range, Visitor};
use crate::model::TimeBox;

/// What a cube cell measures (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Metric {
    Duration,
    Count,
}

impl Metric {
    pub fn name(self) -> &'static str {
        match self {
            Metric::Duration => "duration",
            Metric::Count => "count",
        }
    }

    pub fn parse(s: &str) -> Result<Metric> {
        match s {
            "duration" => Ok(Metric::Duration),
            "count" => Ok(Metric::Count),
            _ => Err(Error::InvalidArgument(format!(
                "unknown metric {s:?} (expected duration or count)"
            ))),
        }
    }
}

/// `n` equal slices of `[t0, t1]` (module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grid {
    pub t0: f64,
    pub t1: f64,
    pub n: usize,
    w: f64,
}

impl Grid {
    /// `t0 < t1`, both finite, `n >= 1`.
    pub fn new(t0: f64, t1: f64, n: usize) -> Result<Grid> {
        if !(t0.is_finite() && t1.is_finite() && t0 < t1) {
            return Err(Error::InvalidArgument(format!(
                "time range [{}, {}] must be finite and non-empty: an overview or time profile \
                 cuts it into slices (a file or window of one instant has nothing to cut)",
                TimeText(t0),
                TimeText(t1)
            )));
        }
        if n == 0 {
            return Err(Error::InvalidArgument(
                "an overview needs at least 1 slice".into(),
            ));
        }
        Ok(Grid {
            t0,
            t1,
            n,
            w: (t1 - t0) / n as f64,
        })
    }

    /// Width of a slice.
    pub fn width(&self) -> f64 {
        self.w
    }

    /// Start of slice `k` (`edge(n) == t1`), non-decreasing in `k`.
    #[inline(always)]
    pub fn edge(&self, k: usize) -> f64 {
        if k >= self.n {
            self.t1
        } else {
            self.t0 + k as f64 * self.w
        }
    }

    /// The slice holding `t`, for `t0 <= t <= t1`: `edge(k) <= t <
    /// edge(k+1)` (the last slice also holds `t1`). `None` outside.
    #[inline(always)]
    pub fn slice_of(&self, t: f64) -> Option<usize> {
        if !(self.t0 <= t && t <= self.t1) {
            return None;
        }
        Some(self.clamp_slice(t))
    }

    /// [`slice_of`](Self::slice_of) for a `t` known to be in range.
    #[inline(always)]
    fn clamp_slice(&self, t: f64) -> usize {
        let mut k = (((t - self.t0) / self.w) as usize).min(self.n - 1);
        // The division can land one slice off an edge: settle on the edges.
        if k > 0 && t < self.edge(k) {
            k -= 1;
        } else if k + 1 < self.n && t >= self.edge(k + 1) {
            k += 1;
        }
        k
    }
}

/// What to build: the range (default: the file's whole time range), the
/// slice count, the metric, and optionally the lines and categories (in
/// cube order; default: module docs and [`default_lines`]).
#[derive(Debug, Clone, PartialEq)]
pub struct CubeSpec {
    pub t0: Option<f64>,
    pub t1: Option<f64>,
    pub slices: usize,
    pub metric: Metric,
    pub lines: Option<Vec<i32>>,
    pub categories: Option<Vec<i32>>,
}

impl CubeSpec {
    pub fn new(slices: usize, metric: Metric) -> CubeSpec {
        CubeSpec {
            t0: None,
            t1: None,
            slices,
            metric,
            lines: None,
            categories: None,
        }
    }
}

/// The lines of a file's cube: every line ID of its y-maps, ascending; a
/// file without y-maps gets the lines its drawables use (one pass).
pub fn default_lines(file: &Slog2File) -> Result<Vec<i32>> {
    let mut v: Vec<i32> = file
        .ycoordmaps()
        .iter()
        .flat_map(|m: &YCoordMap| m.rows.iter().map(|r| r.0))
        .collect();
    if v.is_empty() {
        v = fold(file, Range::all(), LineSet::default)?.0;
    }
    v.sort_unstable();
    v.dedup();
    Ok(v)
}

/// The categories of a file's cube for `metric`: ascending index, preview
/// categories (negative indices) left out.
pub fn default_categories(file: &Slog2File, metric: Metric) -> Vec<i32> {
    let mut v: Vec<i32> = file
        .categories()
        .iter()
        .filter(|c| !c.is_preview())
        .filter(|c| metric == Metric::Count || c.topology == Topology::State)
        .map(|c| c.index)
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

#[derive(Default)]
struct LineSet(Vec<i32>);

impl Visitor for LineSet {
    fn primitive(&mut self, p: &PrimitiveRef<'_>) {
        self.0.push(p.line0);
        self.0.push(p.line1);
    }
}

impl Accumulator for LineSet {
    fn merge(&mut self, mut other: Self) {
        self.0.append(&mut other.0);
        self.0.sort_unstable();
        self.0.dedup();
    }
}

/// The cube (module docs). `data` is slice-major.
#[derive(Debug, Clone)]
pub struct Cube {
    pub grid: Grid,
    pub metric: Metric,
    /// Line IDs in cube order.
    pub lines: Vec<i32>,
    /// Category indices in cube order.
    pub categories: Vec<i32>,
    /// `[slice][line][category]`.
    data: Vec<f64>,
    /// Primitives of the range on a line or in a category (of the metric's
    /// kind) the cube does not hold.
    pub unmapped: u64,
    index: Index,
}

/// Positions of line IDs and category indices in cube order.
#[derive(Debug, Clone)]
struct Index {
    line_pos: Lookup<u32>,
    cat_pos: Lookup<u32>,
}

impl PartialEq for Cube {
    fn eq(&self, o: &Cube) -> bool {
        self.grid == o.grid
            && self.metric == o.metric
            && self.lines == o.lines
            && self.categories == o.categories
            && self.data == o.data
            && self.unmapped == o.unmapped
    }
}

impl Cube {
    /// A cube of zeros (see [`build`](Self::build) for the defaults).
    pub fn zeros(
        grid: Grid,
        metric: Metric,
        lines: Vec<i32>,
        categories: Vec<i32>,
    ) -> Result<Cube> {
        let cells = grid
            .n
            .checked_mul(lines.len())
            .and_then(|c| c.checked_mul(categories.len()))
            .filter(|&c| c <= (1usize << 32))
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "a cube of {} slices x {} lines x {} categories is too large",
                    grid.n,
                    lines.len(),
                    categories.len()
                ))
            })?;
        let index = Index {
            line_pos: Lookup::new(lines.iter().enumerate().map(|(i, &l)| (l, i as u32))),
            cat_pos: Lookup::new(categories.iter().enumerate().map(|(i, &c)| (c, i as u32))),
        };
        Ok(Cube {
            grid,
            metric,
            lines,
            categories,
            data: vec![0.0; cells],
            unmapped: 0,
            index,
        })
    }

    /// A cube of zeros on the same grid, lines and categories (the
    /// `init` of a [`fold`] that builds partial cubes).
    pub fn empty_like(&self) -> Cube {
        Cube {
            grid: self.grid,
            metric: self.metric,
            lines: self.lines.clone(),
            categories: self.categories.clone(),
            data: vec![0.0; self.data.len()],
            unmapped: 0,
            index: self.index.clone(),
        }
    }

    fn adder<'a>(&'a self, lo: usize, hi: usize) -> AdderShape<'a> {
        AdderShape {
            grid: self.grid,
            metric: self.metric,
            index: &self.index,
            u: self.categories.len(),
            row: self.row_len(),
            lo,
            hi,
        }
    }

    /// Build the cube of `spec` from `file`: one parallel pass over the
    /// drawables intersecting the range (module docs).
    pub fn build(file: &Slog2File, spec: &CubeSpec) -> Result<Cube> {
        let total = file.total_time();
        let grid = Grid::new(
            spec.t0.unwrap_or(total.start),
            spec.t1.unwrap_or(total.end),
            spec.slices,
        )?;
        let lines = match &spec.lines {
            Some(l) => l.clone(),
            None => default_lines(file)?,
        };
        let cats = spec
            .categories
            .clone()
            .unwrap_or_else(|| default_categories(file, spec.metric));
        let mut cube = Cube::zeros(grid, spec.metric, lines, cats)?;
        cube.fill(file)?;
        Ok(cube)
    }

    /// Add the drawables of the grid's range to this cube, slab by slab in
    /// parallel.
    fn fill(&mut self, file: &Slog2File) -> Result<()> {
        let row = self.row_len();
        if row == 0 {
            return Ok(());
        }
        let slabs = plan_slabs(file, &self.grid, rayon::current_num_threads() * 4);
        let mut data = std::mem::take(&mut self.data);
        let shapes: Vec<AdderShape<'_>> =
            slabs.windows(2).map(|w| self.adder(w[0], w[1])).collect();
        let mut rest: &mut [f64] = &mut data;
        let mut parts = Vec::with_capacity(shapes.len());
        for shape in shapes {
            let (mine, tail) = rest.split_at_mut((shape.hi - shape.lo) * row);
            rest = tail;
            let b = TimeBox::new(self.grid.edge(shape.lo), self.grid.edge(shape.hi));
            parts.push((
                b,
                Adder {
                    shape,
                    data: mine,
                    unmapped: 0,
                },
            ));
        }
        let r = fold_parts(file, &mut parts);
        let unmapped = parts.iter().map(|p| p.1.unmapped).sum::<u64>();
        drop(parts);
        self.data = data;
        self.unmapped += unmapped;
        r
    }

    fn row_len(&self) -> usize {
        self.lines.len() * self.categories.len()
    }

    /// All cells, slice-major: `[slice][line][category]`.
    pub fn data(&self) -> &[f64] {
        &self.data
    }

    /// Mutable cells (slice-major), for callers that build cubes otherwise
    /// (the cache's rebinning, tests).
    pub fn data_mut(&mut self) -> &mut [f64] {
        &mut self.data
    }

    /// `v[line][slice][category]` by positions in cube order.
    pub fn get(&self, line: usize, slice: usize, category: usize) -> f64 {
        self.data[(slice * self.lines.len() + line) * self.categories.len() + category]
    }

    /// Slice `k`: `lines × categories` values, line-major.
    pub fn slice_row(&self, k: usize) -> &[f64] {
        let r = self.row_len();
        &self.data[k * r..(k + 1) * r]
    }

    /// The cells in the order `[line][slice][category]` (a copy).
    pub fn line_major(&self) -> Vec<f64> {
        let (l, n, u) = (self.lines.len(), self.grid.n, self.categories.len());
        let mut out = vec![0.0; self.data.len()];
        for k in 0..n {
            for s in 0..l {
                let src = &self.data[(k * l + s) * u..(k * l + s + 1) * u];
                out[(s * n + k) * u..(s * n + k + 1) * u].copy_from_slice(src);
            }
        }
        out
    }

    /// The time profile: `[slice][category]` sums over the lines.
    pub fn sum_over_lines(&self) -> Vec<f64> {
        let (l, u) = (self.lines.len(), self.categories.len());
        let mut out = vec![0.0; self.grid.n * u];
        for (k, o) in out.chunks_exact_mut(u.max(1)).enumerate().take(self.grid.n) {
            for s in 0..l {
                let src = &self.data[(k * l + s) * u..(k * l + s + 1) * u];
                for (a, b) in o.iter_mut().zip(src) {
                    *a += b;
                }
            }
        }
        out
    }

    /// Position of a line ID / category index in cube order.
    pub fn line_index(&self, line: i32) -> Option<usize> {
        self.index.line_pos.get(line).map(|i| i as usize)
    }

    pub fn category_index(&self, category: i32) -> Option<usize> {
        self.index.cat_pos.get(category).map(|i| i as usize)
    }
}

impl Visitor for Cube {
    #[inline]
    fn primitive(&mut self, p: &PrimitiveRef<'_>) {
        let shape = AdderShape {
            grid: self.grid,
            metric: self.metric,
            index: &self.index,
            u: self.categories.len(),
            row: self.lines.len() * self.categories.len(),
            lo: 0,
            hi: self.grid.n,
        };
        let mut a = Adder {
            shape,
            data: &mut self.data,
            unmapped: 0,
        };
        a.primitive(p);
        self.unmapped += a.unmapped;
    }
}

impl Accumulator for Cube {
    /// Cell-wise sum; both cubes must share grid, lines and categories.
    fn merge(&mut self, other: Cube) {
        assert!(
            self.grid == other.grid
                && self.lines == other.lines
                && self.categories == other.categories
                && self.metric == other.metric,
            "merging cubes of different shapes"
        );
        for (a, b) in self.data.iter_mut().zip(&other.data) {
            *a += b;
        }
        self.unmapped += other.unmapped;
    }
}

/// What an [`Adder`] needs of its cube, and its slab `lo..hi` of slices.
#[derive(Clone, Copy)]
struct AdderShape<'a> {
    grid: Grid,
    metric: Metric,
    index: &'a Index,
    u: usize,
    row: usize,
    lo: usize,
    hi: usize,
}

/// Adds primitives to the rows of slices `lo..hi` (module docs).
struct Adder<'a> {
    shape: AdderShape<'a>,
    /// Rows `lo..hi` of the cube.
    data: &'a mut [f64],
    unmapped: u64,
}

impl Visitor for Adder<'_> {
    #[inline(always)]
    fn primitive(&mut self, p: &PrimitiveRef<'_>) {
        let AdderShape {
            grid: ref g,
            metric,
            index,
            u,
            row,
            lo,
            hi,
        } = self.shape;
        if (metric == Metric::Duration && p.topology != Topology::State)
            || !(p.start <= g.t1 && g.t0 <= p.end)
        {
            return;
        }
        let (Some(lp), Some(cp)) = (index.line_pos.get(p.line0), index.cat_pos.get(p.category))
        else {
            // Counted once, by the slab holding the primitive's start (or
            // the first slab for a state starting before the range).
            let k = g.slice_of(p.start).unwrap_or(0);
            if lo <= k && k < hi {
                self.unmapped += 1;
            }
            return;
        };
        let cell = lp as usize * u + cp as usize;
        match metric {
            Metric::Count => {
                if let Some(k) = g.slice_of(p.start) {
                    if lo <= k && k < hi {
                        self.data[(k - lo) * row + cell] += 1.0;
                    }
                }
            }
            Metric::Duration => {
                let s = p.start.max(g.t0);
                let e = p.end.min(g.t1);
                if s >= e || s.is_nan() || e.is_nan() {
                    return;
                }
                let k0 = g.clamp_slice(s);
                let k1 = g.clamp_slice(e);
                if k0 == k1 {
                    if lo <= k0 && k0 < hi {
                        self.data[(k0 - lo) * row + cell] += e - s;
                    }
                    return;
                }
                for k in k0.max(lo)..=k1.min(hi.saturating_sub(1)) {
                    let ov = e.min(g.edge(k + 1)) - s.max(g.edge(k));
                    if ov > 0.0 {
                        self.data[(k - lo) * row + cell] += ov;
                    }
                }
            }
        }
    }
}

/// Slab edges `[0, .., n]` splitting the grid's slices into at most
/// `parts` runs of about equal work: the bytes of the leaves over them.
fn plan_slabs(file: &Slog2File, g: &Grid, parts: usize) -> Vec<usize> {
    let parts = parts.clamp(1, g.n);
    let mut w = vec![0f64; g.n];
    for e in file.directory() {
        if e.id.depth != 0 {
            continue;
        }
        let mid = 0.5 * (e.time_box.start + e.time_box.end);
        let k = if mid < g.t0 {
            Some(0)
        } else if mid > g.t1 {
            Some(g.n - 1)
        } else {
            g.slice_of(mid)
        };
        if let Some(k) = k {
            if e.time_box.overlaps(&TimeBox::new(g.t0, g.t1)) {
                w[k] += f64::from(e.ptr.size.max(0));
            }
        }
    }
    let total: f64 = w.iter().sum();
    let mut edges = vec![0usize];
    if total <= 0.0 || parts == 1 {
        for i in 1..parts {
            edges.push(i * g.n / parts);
        }
    } else {
        let mut acc = 0.0;
        let mut next = 1;
        for (k, x) in w.iter().enumerate() {
            acc += x;
            while next < parts && acc >= total * next as f64 / parts as f64 {
                if k + 1 > *edges.last().unwrap_or(&0) && k + 1 < g.n {
                    edges.push(k + 1);
                }
                next += 1;
            }
        }
    }
    edges.push(g.n);
    edges.dedup();
    edges
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_edges_and_slices_agree() {
        for &(t0, t1, n) in &[
            (0.0, 1.0, 10),
            (0.1, 0.7, 3),
            (-5.0, 1e9, 1000),
            (1e-9, 3e-9, 7),
        ] {
            let g = Grid::new(t0, t1, n).unwrap();
            assert_eq!(g.edge(0), t0);
            assert_eq!(g.edge(n), t1);
            for k in 0..n {
                assert!(g.edge(k) <= g.edge(k + 1));
                assert_eq!(g.slice_of(g.edge(k)), Some(k), "edge {k} of {t0}..{t1}/{n}");
            }
            assert_eq!(g.slice_of(t1), Some(n - 1));
            assert_eq!(g.slice_of(t0 - 1.0), None);
            assert_eq!(g.slice_of(f64::NAN), None);
        }
        assert!(Grid::new(1.0, 1.0, 3).is_err());
        assert!(Grid::new(0.0, 1.0, 0).is_err());
        assert!(Grid::new(0.0, f64::INFINITY, 3).is_err());
    }

    #[test]
    fn slabs_cover_every_slice_once() {
        let f = crate::read::Slog2File::from_bytes(
            std::fs::read(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../shared/fixtures/trace-sample/data.slog2"
            ))
            .unwrap(),
        )
        .unwrap();
        let tb = f.total_time();
        for n in [1, 2, 5, 100] {
            for parts in [1, 3, 8, 200] {
                let g = Grid::new(tb.start, tb.end, n).unwrap();
                let e = plan_slabs(&f, &g, parts);
                assert_eq!(e[0], 0);
                assert_eq!(*e.last().unwrap(), n);
                assert!(e.windows(2).all(|w| w[0] < w[1]), "{e:?}");
                assert!(e.len() - 1 <= parts.min(n));
            }
        }
    }
}
