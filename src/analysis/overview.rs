//! The overview of a time range of a file, as every skin asks for it: the
//! cube (built, or rebinned from the cache), the aggregation at `p` (a
//! number, or `auto`), the p-curve, and what the pictures need (each
//! part's per-category values and mode, and for the spatiotemporal picture
//! the rectangles to draw at a given resolution, [`render_rects`]).
//! The CLI, the C ABI, the JNI natives and Python all call [`overview`].

use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::read::Slog2File;

use super::cache::{cache_dir, cached_cube, rebin, CACHE_SLICES};
use super::criterion::{auto_p, curve, CurvePoint, Partition};
use super::cube::{default_categories, default_lines, Cube, CubeSpec, Grid, Metric};
use super::hierarchy::Hierarchy;
use super::spatiotemporal::SpatioTemporalQualities;
use super::temporal::TemporalQualities;

/// Bisection threshold when none is given (Ocelotl's).
pub const DEFAULT_BISECT: f64 = 0.001;

/// `p`: a value in `[0, 1]`, or chosen on the p-curve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PChoice {
    Value(f64),
    Auto,
}

/// Where the cube comes from.
///
/// **The default, in every skin, is the cache** ([`CacheUse::Default`]: the
/// CLI without `--no-cache`, C with `no_cache = 0` — a zeroed parameter
/// struct —, Python `cache=True`, Java `Overview.Spec.cache(true)`): the
/// first overview of a file reads its drawables once into the cache, and
/// every later one, of any zoom and slice count, is rebinned from it in
/// milliseconds. A request whose slices are narrower than the cached ones
/// (a deep zoom) reads the drawables of its range instead, since a
/// proportional split would only spread the cached values evenly; so does
/// a file without a path (held in memory). [`Overview::exact`] says whether
/// the cube is exact; [`CacheUse::Off`] always reads the drawables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CacheUse {
    /// Read the drawables (exact).
    Off,
    /// The default cache directory ([`super::cache::cache_dir`]).
    Default,
    /// This directory.
    Dir(PathBuf),
}

impl Default for CacheUse {
    /// [`CacheUse::Default`]: the cache (see the type's docs).
    fn default() -> Self {
        CacheUse::Default
    }
}

/// What to compute.
#[derive(Debug, Clone, PartialEq)]
pub struct OverviewSpec {
    pub t0: Option<f64>,
    pub t1: Option<f64>,
    pub slices: usize,
    pub metric: Metric,
    /// `None`: temporal. `Some(h)`: spatiotemporal under hierarchy `h`
    /// (`None` inside: `fanout:8`; else a y-map title or `fanout:K`).
    pub spatiotemporal: Option<Option<String>>,
    pub p: PChoice,
    /// The p-curve's bisection threshold; the curve is computed when this
    /// is set or `p` is `Auto` (then with [`DEFAULT_BISECT`]).
    pub bisect: Option<f64>,
    pub cache: CacheUse,
}

impl OverviewSpec {
    /// `slices` slices of the file's whole range, the defaults otherwise.
    pub fn new(slices: usize) -> OverviewSpec {
        OverviewSpec {
            slices,
            ..OverviewSpec::default()
        }
    }
}

impl Default for OverviewSpec {
    /// The defaults of every skin: the whole range in 100 slices, durations,
    /// temporal, auto p, no curve beyond auto p's, the cache.
    fn default() -> Self {
        OverviewSpec {
            t0: None,
            t1: None,
            slices: 100,
            metric: Metric::Duration,
            spatiotemporal: None,
            p: PChoice::Auto,
            bisect: None,
            cache: CacheUse::default(),
        }
    }
}

/// An overview (module docs).
#[derive(Debug, Clone)]
pub struct Overview {
    pub cube: Cube,
    /// Whether the cube is exact: read from the drawables, or rebinned from
    /// the cache with every slice edge on a cached edge.
    pub exact: bool,
    /// Whether the cube came from the cache file (not from the drawables).
    pub from_cache: bool,
    /// The hierarchy (spatiotemporal only).
    pub hierarchy: Option<Hierarchy>,
    pub p: f64,
    pub partition: Partition,
    /// Per part, per category (cube order): the mean over the part — of
    /// `Σ_lines v` per slice (temporal, the height of its bar's layer), or
    /// of `v` per (line, slice) cell (spatiotemporal).
    pub values: Vec<Vec<f64>>,
    /// Per part, the category position with the largest value (`None` when
    /// all are 0).
    pub modes: Vec<Option<usize>>,
    pub curve: Vec<CurvePoint>,
    /// Wall seconds of each stage (for benchmarks).
    pub timings: Timings,
    /// The qualities, kept so that another `p` costs one DP ([`Overview::set_p`]).
    qualities: std::sync::Arc<Qualities>,
}

#[derive(Debug)]
enum Qualities {
    Temporal(TemporalQualities),
    SpatioTemporal(SpatioTemporalQualities),
}

impl Qualities {
    fn best(&self, p: f64) -> Partition {
        match self {
            Qualities::Temporal(q) => q.best(p),
            Qualities::SpatioTemporal(q) => q.best(p),
        }
    }

    fn curve(&self, eps: f64) -> Vec<CurvePoint> {
        match self {
            Qualities::Temporal(q) => curve(eps, |p| q.best(p)),
            Qualities::SpatioTemporal(q) => q.curve(eps),
        }
    }
}

impl Overview {
    /// The aggregation at another `p` (one DP over the kept qualities: what
    /// a viewer's p slider calls). The cube and the curve stay.
    pub fn set_p(&mut self, p: f64) -> Result<()> {
        if !(0.0..=1.0).contains(&p) {
            return Err(Error::InvalidArgument(format!("p = {p} is not in [0, 1]")));
        }
        self.partition = self.qualities.best(p);
        self.p = p;
        self.values = part_values(&self.cube, self.hierarchy.as_ref(), &self.partition);
        self.modes = self.values.iter().map(|v| mode(v)).collect();
        Ok(())
    }
}

/// Wall seconds of the stages of [`overview`].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Timings {
    /// The cube: built from the drawables, or read and rebinned from the cache.
    pub cube: f64,
    /// Qualities of every interval (and node).
    pub qualities: f64,
    /// The p-curve's bisection (each step a DP).
    pub curve: f64,
    /// The DP at the chosen p.
    pub best: f64,
}

/// Compute the overview of `spec` on `file` (module docs).
pub fn overview(file: &Slog2File, spec: &OverviewSpec) -> Result<Overview> {
    let total = file.total_time();
    let grid = Grid::new(
        spec.t0.unwrap_or(total.start),
        spec.t1.unwrap_or(total.end),
        spec.slices,
    )?;
    if let PChoice::Value(p) = spec.p {
        if !(0.0..=1.0).contains(&p) {
            return Err(Error::InvalidArgument(format!("p = {p} is not in [0, 1]")));
        }
    }
    let clock = std::time::Instant::now();
    let mut timings = Timings::default();
    let lap = |t: &mut f64, since: &mut std::time::Instant| {
        *t = since.elapsed().as_secs_f64();
        *since = std::time::Instant::now();
    };
    let mut since = clock;
    let lines = default_lines(file)?;
    let cats = default_categories(file, spec.metric);
    let dir = match &spec.cache {
        CacheUse::Off => None,
        CacheUse::Default => cache_dir(),
        CacheUse::Dir(d) => Some(d.clone()),
    };
    // Slices finer than the cached ones read the drawables (CacheUse docs);
    // as wide up to rounding (a range of 100.00003 s in 1,000 cached
    // slices, asked in slices of 0.1 s) still use the cache.
    let finer = grid.width() < (total.end - total.start) / CACHE_SLICES as f64 * (1.0 - 1e-6);
    let (cube, exact, from_cache) = if spec.cache == CacheUse::Off || finer || file.path().is_none()
    {
        let mut cs = CubeSpec::new(grid.n, spec.metric);
        cs.t0 = Some(grid.t0);
        cs.t1 = Some(grid.t1);
        cs.lines = Some(lines.clone());
        cs.categories = Some(cats.clone());
        (Cube::build(file, &cs)?, true, false)
    } else {
        let (fine, hit) = cached_cube(file, dir.as_deref(), spec.metric, &lines, &cats)?;
        let (c, exact) = rebin(&fine, grid)?;
        (c, exact, hit)
    };
    lap(&mut timings.cube, &mut since);
    let want_curve = spec.bisect.is_some() || spec.p == PChoice::Auto;
    let eps = spec.bisect.unwrap_or(DEFAULT_BISECT);
    let mut run = |q: &Qualities, timings: &mut Timings| {
        lap(&mut timings.qualities, &mut since);
        let cv = if want_curve { q.curve(eps) } else { Vec::new() };
        lap(&mut timings.curve, &mut since);
        let p = match spec.p {
            PChoice::Value(p) => p,
            PChoice::Auto => auto_p(&cv),
        };
        let part = q.best(p);
        lap(&mut timings.best, &mut since);
        (p, part, cv)
    };
    let (hierarchy, q) = match &spec.spatiotemporal {
        None => (None, Qualities::Temporal(TemporalQualities::new(&cube)?)),
        Some(h) => {
            let hier = Hierarchy::parse(h.as_deref(), file.ycoordmaps(), &cube.lines)?;
            let q = SpatioTemporalQualities::new(&cube, hier.clone())?;
            (Some(hier), Qualities::SpatioTemporal(q))
        }
    };
    let (p, partition, curve_pts) = run(&q, &mut timings);
    let values = part_values(&cube, hierarchy.as_ref(), &partition);
    let modes = values.iter().map(|v| mode(v)).collect();
    Ok(Overview {
        cube,
        exact,
        from_cache,
        hierarchy,
        p,
        partition,
        values,
        modes,
        curve: curve_pts,
        timings,
        qualities: std::sync::Arc::new(q),
    })
}

fn mode(v: &[f64]) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, &x) in v.iter().enumerate() {
        if x > 0.0 && best.is_none_or(|(_, b)| x > b) {
            best = Some((i, x));
        }
    }
    best.map(|b| b.0)
}

fn part_values(cube: &Cube, h: Option<&Hierarchy>, part: &Partition) -> Vec<Vec<f64>> {
    let u = cube.categories.len();
    part.parts
        .iter()
        .map(|p| {
            let mut v = vec![0.0; u];
            let lines: Vec<usize> = match (h, p.node) {
                (Some(h), Some(n)) => h.nodes[n].lines.clone(),
                _ => (0..cube.lines.len()).collect(),
            };
            for t in p.first..=p.last {
                let row = cube.slice_row(t);
                for &s in &lines {
                    for (a, b) in v.iter_mut().zip(&row[s * u..(s + 1) * u]) {
                        *a += b;
                    }
                }
            }
            let len = (p.last - p.first + 1) as f64;
            let div = if p.node.is_some() {
                len * lines.len() as f64
            } else {
                len
            };
            v.iter_mut().for_each(|x| *x /= div);
            v
        })
        .collect()
}

/// How a rectangle of the spatiotemporal picture is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum RectKind {
    /// One part.
    Plain = 0,
    /// Parts of a node too thin to draw, which share one time partition
    /// across the node's lines: drawn as the node, striped.
    Striped = 1,
    /// Parts of a node too thin to draw with different time partitions:
    /// drawn as the node over their time range, crossed.
    Crossed = 2,
}

/// One rectangle of the spatiotemporal picture: a hierarchy node's lines
/// over slices `first..=last`, coloured by `mode` (a category position).
#[derive(Debug, Clone, PartialEq)]
pub struct Rect {
    pub node: usize,
    pub first: usize,
    pub last: usize,
    pub mode: Option<usize>,
    pub kind: RectKind,
}

/// The rectangles of a spatiotemporal overview when a node needs at least
/// `min_lines` lines to be drawn on its own (e.g. the lines per pixel of
/// the picture): parts of thinner nodes are drawn together as one group
/// node — the nearest ancestor all of whose children are too thin (drawn
/// whole: it is tall enough), or, under a node with some child tall
/// enough, the topmost thin node — striped when the group's parts share
/// one time partition, crossed otherwise, coloured by the mode of their
/// cell-weighted values (Ocelotl's visual aggregation). Groups are
/// disjoint subtrees, so the rectangles tile lines × slices exactly once.
/// A temporal overview has no rectangles.
pub fn render_rects(ov: &Overview, min_lines: f64) -> Vec<Rect> {
    let Some(h) = &ov.hierarchy else {
        return Vec::new();
    };
    let thin = |n: usize| (h.nodes[n].lines.len() as f64) < min_lines;
    // The group of a thin node (doc above).
    let top_thin = |mut n: usize| {
        while let Some(p) = h.nodes[n].parent {
            if thin(p) {
                n = p;
                continue;
            }
            if h.nodes[p].children.iter().all(|&c| thin(c)) {
                n = p;
            }
            break;
        }
        n
    };
    let mut out = Vec::new();
    let mut groups: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for (i, p) in ov.partition.parts.iter().enumerate() {
        let n = p.node.unwrap_or(0);
        if !thin(n) || h.nodes[n].parent.is_none() {
            out.push(Rect {
                node: n,
                first: p.first,
                last: p.last,
                mode: ov.modes[i],
                kind: RectKind::Plain,
            });
        } else {
            groups.entry(top_thin(n)).or_default().push(i);
        }
    }
    let u = ov.cube.categories.len();
    for (a, parts) in groups {
        let weighted = |idx: &[usize]| {
            let mut v = vec![0.0; u];
            for &i in idx {
                let p = &ov.partition.parts[i];
                let w = (h.nodes[p.node.unwrap_or(0)].lines.len() * (p.last - p.first + 1)) as f64;
                for (x, y) in v.iter_mut().zip(&ov.values[i]) {
                    *x += w * y;
                }
            }
            mode(&v)
        };
        if parts.iter().all(|&i| ov.partition.parts[i].node == Some(a)) {
            for &i in &parts {
                let p = &ov.partition.parts[i];
                out.push(Rect {
                    node: a,
                    first: p.first,
                    last: p.last,
                    mode: ov.modes[i],
                    kind: RectKind::Plain,
                });
            }
            continue;
        }
        // Shared time partition: every line of `a` is cut at the same slices.
        let mut spans: Vec<(usize, usize)> = parts
            .iter()
            .map(|&i| (ov.partition.parts[i].first, ov.partition.parts[i].last))
            .collect();
        spans.sort_unstable();
        spans.dedup();
        let shared = spans.windows(2).all(|w| w[0].1 < w[1].0)
            && h.nodes[a].lines.iter().all(|&line| {
                let mine: Vec<(usize, usize)> = {
                    let mut m: Vec<(usize, usize)> = parts
                        .iter()
                        .map(|&i| &ov.partition.parts[i])
                        .filter(|p| h.nodes[p.node.unwrap_or(0)].lines.contains(&line))
                        .map(|p| (p.first, p.last))
                        .collect();
                    m.sort_unstable();
                    m
                };
                mine == spans
            });
        // Striped: one rectangle per shared span; crossed: one per run of
        // covered slices.
        let (ranges, kind) = if shared {
            (spans, RectKind::Striped)
        } else {
            let mut runs: Vec<(usize, usize)> = Vec::new();
            for (f, l) in spans {
                match runs.last_mut() {
                    Some(r) if f <= r.1 + 1 => r.1 = r.1.max(l),
                    _ => runs.push((f, l)),
                }
            }
            (runs, RectKind::Crossed)
        };
        for (first, last) in ranges {
            let idx: Vec<usize> = parts
                .iter()
                .copied()
                .filter(|&i| {
                    let p = &ov.partition.parts[i];
                    p.first >= first && p.last <= last
                })
                .collect();
            out.push(Rect {
                node: a,
                first,
                last,
                mode: weighted(&idx),
                kind,
            });
        }
    }
    out.sort_by_key(|r| (r.node, r.first));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::YCoordMap;

    /// A cube of `lines` lines over a 3-level y-map with groups of mixed
    /// sizes (so some nodes are thin and their siblings are not), values
    /// from a fixed pseudo-random sequence with runs (so parts form).
    fn mixed() -> (Cube, Hierarchy) {
        let lines: Vec<i32> = (0..13).collect();
        // machine = l / 7; within it, group sizes 1, 2, 4 (and 1, 5).
        let group = |l: i32| match l {
            0 => 0,
            1 | 2 => 1,
            3..=6 => 2,
            7 => 3,
            _ => 4,
        };
        let map = YCoordMap {
            title: "M".into(),
            column_labels: vec!["machine".into(), "group".into()],
            rows: lines.iter().map(|&l| (l, vec![l / 7, group(l)])).collect(),
            methods: vec![],
        };
        let h = Hierarchy::from_ymap(&map, &lines).unwrap();
        let g = Grid::new(0.0, 12.0, 12).unwrap();
        let mut c = Cube::zeros(g, Metric::Duration, lines, vec![0, 1, 2]).unwrap();
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for (k, v) in c.data_mut().iter_mut().enumerate() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let phase = (k / 39) % 3; // slice-major rows of 13 x 3
            *v = if (x % 3) as usize == phase {
                1.0 + (x % 5) as f64
            } else {
                (x % 2) as f64 * 0.1
            };
        }
        (c, h)
    }

    #[test]
    fn rects_tile_lines_and_slices_at_any_resolution() {
        let (cube, h) = mixed();
        let q = SpatioTemporalQualities::new(&cube, h.clone()).unwrap();
        let (order, first_row) = h.rows();
        let mut kinds = [0usize; 3];
        for p in [0.0, 0.05, 0.2, 0.4, 0.7, 1.0] {
            let partition = q.best(p);
            let values = part_values(&cube, Some(&h), &partition);
            let modes = values.iter().map(|v| mode(v)).collect();
            let ov = Overview {
                cube: cube.clone(),
                exact: true,
                from_cache: false,
                hierarchy: Some(h.clone()),
                p,
                partition,
                values,
                modes,
                curve: Vec::new(),
                timings: Timings::default(),
                qualities: std::sync::Arc::new(Qualities::SpatioTemporal(q.clone())),
            };
            for min_lines in [0.5, 1.0, 1.5, 2.5, 4.5, 6.0, 13.5] {
                let rects = render_rects(&ov, min_lines);
                let mut cover = vec![0u32; order.len() * 12];
                for r in &rects {
                    kinds[r.kind as usize] += 1;
                    let n = &h.nodes[r.node];
                    for row in first_row[r.node]..first_row[r.node] + n.lines.len() {
                        for t in r.first..=r.last {
                            cover[row * 12 + t] += 1;
                        }
                    }
                }
                assert!(
                    cover.iter().all(|&c| c == 1),
                    "p {p}, {min_lines} lines: {rects:?}"
                );
                if min_lines <= 1.0 {
                    assert_eq!(rects.len(), ov.partition.parts.len());
                    assert!(rects.iter().all(|r| r.kind == RectKind::Plain));
                }
            }
        }
        assert!(
            kinds[1] + kinds[2] > 0,
            "some visual aggregation happened: {kinds:?}"
        );
    }
}
