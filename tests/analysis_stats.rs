//! Property tests of the statistics (issue #30) against brute force on small
//! random traces written with small leaves (deep trees): nested states
//! (properly and partially overlapping, equal boxes), states crossing
//! leaves, windows and partition edges, composites, arrows backwards in
//! time, payloads with and without a size field, lines no y-map declares,
//! undefined categories. Every statistic is compared with its definition
//! computed from the drawables read back one by one — in both modes of the
//! nesting walk — and partial results of time partitions must merge into
//! the whole window's.

mod common;

use std::collections::BTreeMap;

use proptest::prelude::*;
use slog2::analysis::compare::compare_profiles;
use slog2::analysis::histogram::{auto_bins, histogram, instances, BinOf};
use slog2::analysis::imbalance::ImbalanceMetric;
use slog2::analysis::{
    partition_rows, Bins, Measure, ProfileCell, Scope, Spacing, Stats, StatsOptions, TimeProfile,
};
use slog2::*;

const S1: i32 = 1;
const S2: i32 = 2;
const MSG: i32 = 3;
const EV: i32 = 4;
const COMP: i32 = 5;
const ARROW_NOSIZE: i32 = 6;
const UNDEFINED: i32 = 7;

fn cats() -> Vec<Category> {
    let mut msg = Category::new(MSG, "M", Topology::Arrow, Color::rgba(7, 8, 9, 255), 3);
    msg.info = InfoFormat::parse("msg_tag=%d, msg_size=%d").unwrap();
    vec![
        Category::new(S1, "S1", Topology::State, Color::rgba(1, 2, 3, 255), 1),
        Category::new(
            S2,
            "MPI_Wait",
            Topology::State,
            Color::rgba(4, 5, 6, 255),
            1,
        ),
        msg,
        Category::new(EV, "E", Topology::Event, Color::rgba(9, 9, 9, 255), 5),
        Category::new(COMP, "C", Topology::State, Color::rgba(1, 1, 1, 255), 1),
        Category::new(
            ARROW_NOSIZE,
            "A",
            Topology::Arrow,
            Color::rgba(2, 2, 2, 255),
            3,
        ),
    ]
}

fn topo(c: i32) -> Topology {
    cats()
        .iter()
        .find(|x| x.index == c)
        .map_or(Topology::State, |x| x.topology)
}

fn payload(tag: i32, size: i32) -> InfoBytes {
    let mut v = InfoBytes::new();
    v.extend_from_slice(&tag.to_be_bytes());
    v.extend_from_slice(&size.to_be_bytes());
    v
}

fn drawable() -> impl Strategy<Value = Vec<Drawable>> {
    let t = || (0u32..1500).prop_map(|x| x as f64 / 32.0);
    let line = || 0i32..5;
    let state = (t(), 0u32..120, line(), prop_oneof![Just(S1), Just(S2)])
        .prop_map(|(s, d, l, c)| Primitive::state(c, l, s, s + d as f64 / 32.0));
    // A state with one or two states nested in it, on one line.
    let tower = (
        t(),
        2u32..200,
        line(),
        0u32..4,
        prop_oneof![Just(S1), Just(S2)],
    )
        .prop_map(|(s, d, l, k, c)| {
            let e = s + d as f64 / 32.0;
            let q = (e - s) / 4.0;
            vec![
                Primitive::state(S1, l, s, e),
                Primitive::state(c, l, s + q * (k as f64 % 2.0), e - q),
                Primitive::state(S2, l, s + q, s + 2.0 * q),
            ]
        });
    let long_state = (t(), line()).prop_map(|(s, l)| Primitive::state(S1, l, s / 8.0, s + 30.0));
    let arrow = (
        t(),
        0u32..80,
        line(),
        line(),
        any::<bool>(),
        -2i32..5000,
        any::<bool>(),
    )
        .prop_map(|(s, d, a, b, back, size, sized)| {
            let e = s + d as f64 / 32.0;
            let (t0, t1) = if back { (e, s) } else { (s, e) };
            let mut p = Primitive::arrow(if sized { MSG } else { ARROW_NOSIZE }, a, b, t0, t1);
            if sized {
                p.info = payload(7, size);
            }
            p
        });
    let event = (t(), line()).prop_map(|(s, l)| Primitive::event(EV, l, s));
    let stray = (t(), 0u32..50).prop_map(|(s, d)| Primitive::state(S1, 9, s, s + d as f64 / 32.0));
    let undefined = (t(), line()).prop_map(|(s, l)| Primitive::state(UNDEFINED, l, s, s + 1.0));
    let prim = prop_oneof![
        6 => state, 1 => long_state, 2 => arrow, 1 => event, 1 => stray, 1 => undefined
    ];
    let composite = proptest::collection::vec(prim.clone(), 1..5).prop_map(|members| {
        vec![Drawable::Composite(Composite {
            category: COMP,
            info: Default::default(),
            members,
        })]
    });
    prop_oneof![
        6 => prim.prop_map(|p| vec![Drawable::Primitive(p)]),
        2 => tower.prop_map(|v| v.into_iter().map(Drawable::Primitive).collect()),
        1 => composite,
    ]
}

fn write(
    groups: Vec<Vec<Drawable>>,
    leaf: i32,
    nc: i16,
) -> (tempfile::TempDir, std::path::PathBuf) {
    common::write_on_six_lines(groups.into_iter().flatten().collect(), cats(), leaf, nc)
}

/// A file written from `groups`, opened, and what the brute force needs of
/// it: its primitives, composites and each primitive's parent.
struct Written {
    _dir: tempfile::TempDir,
    f: Slog2File,
    prims: Vec<P>,
    comps: Vec<C>,
    parents: Vec<Option<usize>>,
}

fn written(groups: Vec<Vec<Drawable>>, leaf: i32, nc: i16) -> Written {
    let (_dir, path) = write(groups, leaf, nc);
    let f = Slog2File::open(&path).unwrap();
    let back: Vec<Drawable> = f.drawables().collect::<Result<_>>().unwrap();
    let (prims, comps) = flatten(&back);
    let parents = brute_parents(&prims);
    Written {
        _dir,
        f,
        prims,
        comps,
        parents,
    }
}

/// A primitive as the brute force sees it.
#[derive(Clone, Debug)]
struct P {
    cat: i32,
    start: f64,
    end: f64,
    line0: i32,
    line1: i32,
    info: Vec<u8>,
}

/// A composite: category, box, first member's line.
type C = (i32, f64, f64, i32);

fn flatten(back: &[Drawable]) -> (Vec<P>, Vec<C>) {
    let mut prims = Vec::new();
    let mut comps = Vec::new();
    for d in back {
        for p in d.primitives() {
            let b = p.time_box();
            prims.push(P {
                cat: p.category,
                start: b.start,
                end: b.end,
                line0: p.first_line(),
                line1: p.last_line(),
                info: p.info.to_vec(),
            });
        }
        if let Drawable::Composite(c) = d {
            let b = c.time_box();
            comps.push((c.category, b.start, b.end, c.members[0].first_line()));
        }
    }
    (prims, comps)
}

/// The parent of state `i` by definition: the last state on its line, in
/// drawing order, whose box contains its box.
fn brute_parents(prims: &[P]) -> Vec<Option<usize>> {
    let key = |i: usize| {
        let p = &prims[i];
        (p.start, -p.end, p.cat, p.line0, i)
    };
    let before = |a: usize, b: usize| key(a).partial_cmp(&key(b)) == Some(std::cmp::Ordering::Less);
    let states: Vec<usize> = (0..prims.len())
        .filter(|&i| topo(prims[i].cat) == Topology::State)
        .collect();
    let mut out = vec![None; prims.len()];
    for &i in &states {
        let s = &prims[i];
        let mut best: Option<usize> = None;
        for &j in &states {
            let p = &prims[j];
            if j != i
                && p.line0 == s.line0
                && p.start <= s.start
                && s.end <= p.end
                && before(j, i)
                && best.is_none_or(|b| before(b, j))
            {
                best = Some(j);
            }
        }
        out[i] = best;
    }
    out
}

fn size_of(p: &P) -> Option<i64> {
    if p.cat != MSG || p.info.len() < 8 {
        return None;
    }
    let v = i32::from_be_bytes(p.info[4..8].try_into().unwrap());
    (v >= 0).then_some(v as i64)
}

struct Brute {
    cells: BTreeMap<(i32, i32), ProfileCell>,
    comm: BTreeMap<(i32, i32, i32), (u64, u64, i64)>,
    busy: BTreeMap<i32, f64>,
    wait: BTreeMap<i32, f64>,
}

fn brute(
    prims: &[P],
    comps: &[(i32, f64, f64, i32)],
    parents: &[Option<usize>],
    sc: &Scope,
) -> Brute {
    let mut b = Brute {
        cells: BTreeMap::new(),
        comm: BTreeMap::new(),
        busy: BTreeMap::new(),
        wait: BTreeMap::new(),
    };
    for (i, p) in prims.iter().enumerate() {
        if !sc.selects(p.start, p.end) {
            continue;
        }
        let d = sc.duration(p.start, p.end);
        b.cells.entry((p.line0, p.cat)).or_default().add(d, d);
        match topo(p.cat) {
            Topology::State => {
                match parents[i] {
                    Some(j) => {
                        b.cells
                            .entry((p.line0, prims[j].cat))
                            .or_default()
                            .exclusive -= d
                    }
                    None => *b.busy.entry(p.line0).or_default() += d,
                }
                let in_wait = parents[i].is_some_and(|j| prims[j].cat == S2);
                if p.cat == S2 && !in_wait {
                    *b.wait.entry(p.line0).or_default() += d;
                }
            }
            Topology::Arrow => {
                let e = b.comm.entry((p.line0, p.line1, p.cat)).or_default();
                e.0 += 1;
                if let Some(s) = size_of(p) {
                    e.1 += 1;
                    e.2 += s;
                }
            }
            Topology::Event => {}
        }
    }
    for &(c, s, e, l) in comps {
        if sc.selects(s, e) {
            b.cells.entry((l, c)).or_default().count += 1;
        }
    }
    b
}

fn close(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()))
}

fn same_cell(a: &ProfileCell, b: &ProfileCell) -> bool {
    a.count == b.count
        && a.timed == b.timed
        && close(a.inclusive, b.inclusive)
        && close(a.exclusive, b.exclusive)
        && close(a.min_or_nan(), b.min_or_nan())
        && close(a.max_or_nan(), b.max_or_nan())
}

fn check_stats(s: &Stats, b: &Brute, sc: &Scope) -> Result<(), TestCaseError> {
    let got: BTreeMap<(i32, i32), ProfileCell> = s
        .by_line
        .iter()
        .map(|r| ((r.line.unwrap(), r.category), r.cell))
        .collect();
    let want: BTreeMap<(i32, i32), ProfileCell> = b
        .cells
        .iter()
        .filter(|(_, c)| c.is_used())
        .map(|(k, c)| (*k, *c))
        .collect();
    prop_assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>()
    );
    for (k, w) in &want {
        prop_assert!(
            same_cell(&got[k], w),
            "cell {:?}: {:?} vs brute {:?}",
            k,
            got[k],
            w
        );
    }
    // Per category = sums over lines.
    for r in &s.by_category {
        let mut c = ProfileCell::default();
        for ((_, cat), x) in &want {
            if *cat == r.category {
                c.merge(x);
            }
        }
        prop_assert!(same_cell(&r.cell, &c), "category {}", r.category);
    }
    let comm: BTreeMap<(i32, i32, i32), (u64, u64, i64)> = s
        .comm
        .iter()
        .map(|r| {
            (
                (r.from_line, r.to_line, r.category),
                (r.count, r.sized, r.bytes.unwrap_or(0)),
            )
        })
        .collect();
    prop_assert_eq!(&comm, &b.comm);
    for r in &s.comm {
        prop_assert_eq!(r.bytes.is_none(), r.sized == 0);
    }
    // Idle: no-state time per line, and the wait category.
    for r in s.idle() {
        let busy = b.busy.get(&r.line).copied().unwrap_or(0.0);
        prop_assert!(
            close(r.no_state, sc.length() - busy),
            "idle of line {}",
            r.line
        );
        prop_assert!(close(r.wait, b.wait.get(&r.line).copied().unwrap_or(0.0)));
        // Idle is the wait time, or the no-state time when no category waits.
        let want_idle = if s.wait.is_empty() {
            r.no_state
        } else {
            r.wait
        };
        prop_assert!(close(r.idle, want_idle));
    }
    Ok(())
}

fn merge_all(mut parts: Vec<Stats>) -> Stats {
    let mut a = parts.remove(0);
    for p in parts {
        a.merge(p);
    }
    a
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    #[test]
    fn stats_equal_brute_force(
        groups in proptest::collection::vec(drawable(), 1..120),
        leaf in prop_oneof![Just(400i32), Just(1024), Just(65536)],
        nc in 2i16..4,
        windows in proptest::collection::vec((0u32..1600, 0u32..1600, any::<bool>(), 0u32..1600), 1..4),
    ) {
        let Written { _dir, f, prims, comps, parents } = written(groups, leaf, nc);
        let opts = StatsOptions { wait: vec!["MPI_W*".into()] };
        let mut scopes = vec![Scope::whole(&f)];
        for &(a, len, clip, cut) in &windows {
            let (t0, t1) = (a as f64 / 32.0 - 1.0, (a + len) as f64 / 32.0);
            let sc = Scope::window(t0, t1).clipped(clip);
            scopes.push(sc);
            // Partitions of the window's starts, cut inside it.
            let m = t0 + (t1 - t0) * (cut as f64 / 1600.0);
            scopes.push(sc.part(f64::NEG_INFINITY, m));
            scopes.push(sc.part(m, f64::INFINITY));
        }
        for sc in &scopes {
            let want = brute(&prims, &comps, &parents, sc);
            for general in [false, true] {
                let s = Stats::compute_mode(&f, sc, &opts, general).unwrap();
                // The writer keeps only used categories (as the reference does).
                let want_wait: Vec<i32> = f.category(S2).map(|c| c.index).into_iter().collect();
                prop_assert_eq!(&s.wait, &want_wait);
                check_stats(&s, &want, sc)?;
            }
        }
        // Partials of partitions merge into the window's statistics.
        for &(a, len, clip, cut) in &windows {
            let (t0, t1) = (a as f64 / 32.0 - 1.0, (a + len) as f64 / 32.0);
            let sc = Scope::window(t0, t1).clipped(clip);
            let m = t0 + (t1 - t0) * (cut as f64 / 1600.0);
            let cuts = [f64::NEG_INFINITY, m, (m + t1) / 2.0, f64::INFINITY];
            let parts: Vec<Stats> = cuts
                .windows(2)
                .map(|w| Stats::compute(&f, &sc.part(w[0], w[1]), &opts).unwrap())
                .collect();
            let merged = merge_all(parts);
            let want = brute(&prims, &comps, &parents, &sc);
            let mut merged = merged;
            merged.scope = sc;
            check_stats(&merged, &want, &sc)?;
            let whole = Stats::compute(&f, &sc, &opts).unwrap();
            prop_assert_eq!(&merged.lines, &whole.lines);
        }
    }

    #[test]
    fn histograms_and_instances_equal_brute_force(
        groups in proptest::collection::vec(drawable(), 1..120),
        leaf in prop_oneof![Just(400i32), Just(65536)],
        a in 0u32..1600, len in 1u32..1600, n in 1usize..12, log in any::<bool>(), which in 0usize..14,
    ) {
        let (_dir, path) = write(groups, leaf, 2);
        let f = Slog2File::open(&path).unwrap();
        let back: Vec<Drawable> = f.drawables().collect::<Result<_>>().unwrap();
        let (prims, _) = flatten(&back);
        let sc = Scope::window(a as f64 / 32.0, (a + len) as f64 / 32.0);
        let spacing = if log { Spacing::Log } else { Spacing::Linear };
        for measure in [Measure::Duration(S1), Measure::Duration(MSG), Measure::MessageSize(None)] {
            let vals: Vec<(usize, f64)> = prims
                .iter()
                .enumerate()
                .filter(|(_, p)| sc.selects(p.start, p.end))
                .filter_map(|(i, p)| match measure {
                    Measure::Duration(c) => (p.cat == c).then(|| (i, sc.duration(p.start, p.end))),
                    Measure::MessageSize(_) => size_of(p).map(|s| (i, s as f64)),
                })
                .collect();
            let bins = auto_bins(&f, &sc, measure, n, spacing, None, None).unwrap();
            let positive: Vec<f64> = vals.iter().map(|v| v.1).filter(|&v| !log || v > 0.0).collect();
            if positive.is_empty() {
                // No value to bin (log: no positive value).
                prop_assert!(bins.is_none());
                continue;
            }
            let bins = bins.unwrap();
            let lo = positive.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = vals.iter().map(|v| v.1).fold(f64::NEG_INFINITY, f64::max);
            prop_assert_eq!(bins.edges[0], lo);
            prop_assert_eq!(*bins.edges.last().unwrap(), hi);
            // Cut-offs inside the range make outliers on both sides.
            let cut = Bins::new(lo + (hi - lo) * 0.25, lo + (hi - lo) * 0.75, n, Spacing::Linear).unwrap();
            for b in [bins.clone(), cut] {
                let h = histogram(&f, &sc, measure, b.clone()).unwrap();
                let mut counts = vec![0u64; b.len()];
                let (mut below, mut above) = (0u64, 0u64);
                for &(_, v) in &vals {
                    let lo = b.edges[0];
                    let hi = *b.edges.last().unwrap();
                    if v < lo { below += 1 } else if v > hi { above += 1 } else {
                        let k = (0..b.len()).find(|&k| v < b.edges[k + 1]).unwrap_or(b.len() - 1);
                        counts[k] += 1;
                    }
                }
                prop_assert_eq!(&h.counts, &counts);
                prop_assert_eq!((h.below, h.above), (below, above));
                prop_assert_eq!(h.total(), vals.len() as u64);
                // The instances of one bin (or the outliers).
                let k = which % (b.len() + 2);
                let sel = if k == b.len() { BinOf::Below } else if k == b.len() + 1 { BinOf::Above } else { BinOf::In(k) };
                let inst = instances(&f, &sc, measure, &b, sel, 5).unwrap();
                let mut want: Vec<(f64, i32, f64)> = vals
                    .iter()
                    .filter(|&&(_, v)| b.of(v) == Some(sel))
                    .map(|&(i, v)| (prims[i].start, prims[i].line0, v))
                    .collect();
                want.sort_by(|x, y| x.partial_cmp(y).unwrap());
                prop_assert_eq!(inst.total, want.len() as u64);
                prop_assert_eq!(inst.start.len(), want.len().min(5));
                for (j, w) in want.iter().take(5).enumerate() {
                    prop_assert_eq!((inst.start[j], inst.line0[j]), (w.0, w.1));
                }
                for (j, t) in inst.text.iter().enumerate() {
                    if inst.category[j] == MSG {
                        prop_assert!(t.contains("msg_size="), "{}", t);
                    }
                }
                // Partials on shared bins merge.
                let m = sc.t0 + (sc.t1 - sc.t0) / 3.0;
                let mut p1 = histogram(&f, &sc.part(f64::NEG_INFINITY, m), measure, b.clone()).unwrap();
                let p2 = histogram(&f, &sc.part(m, f64::INFINITY), measure, b.clone()).unwrap();
                p1.merge(&p2).unwrap();
                prop_assert_eq!(&p1.counts, &h.counts);
                prop_assert_eq!((p1.below, p1.above), (h.below, h.above));
            }
        }
    }

    /// Partition edges on the leaves' own box edges: a leaf wholly inside a
    /// partition takes the leaf walk's fast path (no per-state selection), a
    /// leaf ending exactly on an edge must not (a state starting on the edge
    /// belongs to the next partition), and the partials still merge into
    /// the window's statistics.
    #[test]
    fn partitions_cut_on_leaf_edges(
        groups in proptest::collection::vec(drawable(), 1..120),
        leaf in prop_oneof![Just(400i32), Just(1024)],
        nc in 2i16..4,
        pick in proptest::collection::vec((any::<prop::sample::Index>(), any::<bool>()), 1..4),
        window in (0u32..1600, 0u32..1600, any::<bool>()),
    ) {
        let Written { _dir, f, prims, comps, parents } = written(groups, leaf, nc);
        let opts = StatsOptions { wait: vec!["MPI_W*".into()] };
        let leaves: Vec<(f64, f64)> = f
            .directory()
            .iter()
            .filter(|e| e.id.depth == 0)
            .map(|e| (e.time_box.start, e.time_box.end))
            .collect();
        let mut edges: Vec<f64> = pick
            .iter()
            .map(|(i, end)| {
                let b = leaves[i.index(leaves.len())];
                if *end { b.1 } else { b.0 }
            })
            .collect();
        edges.sort_by(f64::total_cmp);
        edges.dedup();
        edges.insert(0, f64::NEG_INFINITY);
        edges.push(f64::INFINITY);
        let (a, len, clip) = window;
        let tb = f.total_time();
        for sc in [
            Scope::whole(&f),
            Scope::window(a as f64 / 32.0 - 1.0, (a + len) as f64 / 32.0).clipped(clip),
            Scope::window(tb.start, tb.end).clipped(false),
        ] {
            let parts: Vec<Stats> = edges
                .windows(2)
                .map(|w| {
                    let p = sc.part(w[0], w[1]);
                    let s = Stats::compute(&f, &p, &opts).unwrap();
                    (s, p)
                })
                .map(|(s, p)| {
                    let want = brute(&prims, &comps, &parents, &p);
                    check_stats(&s, &want, &p).map(|_| s)
                })
                .collect::<Result<_, TestCaseError>>()?;
            let mut merged = merge_all(parts);
            merged.scope = sc;
            check_stats(&merged, &brute(&prims, &comps, &parents, &sc), &sc)?;
        }
    }

    #[test]
    fn partitions_hold_each_drawable_once(
        groups in proptest::collection::vec(drawable(), 1..120),
        leaf in prop_oneof![Just(400i32), Just(65536)],
        cuts in proptest::collection::vec(0u32..1600, 0..5),
        slices in 1usize..20,
    ) {
        let (_dir, path) = write(groups, leaf, 2);
        let f = Slog2File::open(&path).unwrap();
        let back: Vec<Drawable> = f.drawables().collect::<Result<_>>().unwrap();
        let (prims, comps) = flatten(&back);
        let mut edges: Vec<f64> = cuts.iter().map(|&c| c as f64 / 32.0).collect();
        edges.sort_by(f64::total_cmp);
        edges.dedup();
        edges.insert(0, f64::NEG_INFINITY);
        edges.push(f64::INFINITY);
        let whole = Scope::whole(&f);
        let mut got = Vec::new();
        // A file of one instant has no time to slice: an error, not a profile.
        let tp = match TimeProfile::compute(&f, None, None, slices, None) {
            Ok(tp) => Some(tp),
            Err(e) => {
                let tb = f.total_time();
                prop_assert!(tb.start == tb.end, "{e}");
                prop_assert_eq!(e.kind(), ErrorKind::InvalidArgument);
                None
            }
        };
        let mut tps: Option<TimeProfile> = None;
        for w in edges.windows(2) {
            let r = partition_rows(&f, &whole.part(w[0], w[1])).unwrap();
            for i in 0..r.len() {
                prop_assert!(w[0] <= r.start[i] && r.start[i] < w[1]);
                got.push((r.kind[i], r.category[i], r.start[i].to_bits(), r.end[i].to_bits(), r.line0[i], r.line1[i]));
            }
            if tp.is_some() {
                let p = TimeProfile::compute(&f, None, None, slices, Some((w[0], w[1]))).unwrap();
                match &mut tps {
                    None => tps = Some(p),
                    Some(t) => t.merge(&p).unwrap(),
                }
            }
        }
        let mut want: Vec<_> = prims
            .iter()
            .map(|p| (0u8, p.cat, p.start.to_bits(), p.end.to_bits(), p.line0, p.line1))
            .collect();
        for &(c, s, e, _) in &comps {
            want.push((1u8, c, s.to_bits(), e.to_bits(), -1, -1));
        }
        // Composite rows' lines are their first and last members'.
        let norm = |v: &mut Vec<(u8, i32, u64, u64, i32, i32)>| {
            for x in v.iter_mut() {
                if x.0 == 1 { x.4 = -1; x.5 = -1; }
            }
            v.sort_unstable();
        };
        norm(&mut got);
        norm(&mut want);
        prop_assert_eq!(got, want);
        if let (Some(tp), Some(tps)) = (tp, tps) {
            for (a, b) in tps.values.iter().zip(&tp.values) {
                prop_assert!(close(*a, *b));
            }
        }
    }
}

#[test]
fn imbalance_idle_and_compare_on_a_known_trace() {
    // Line 0: S1 [0, 4] with MPI_Wait [1, 2] nested; line 1: S1 [0, 1];
    // line 2: nothing but an event. Window [0, 4].
    let groups = vec![vec![
        Drawable::Primitive(Primitive::state(S1, 0, 0.0, 4.0)),
        Drawable::Primitive(Primitive::state(S2, 0, 1.0, 2.0)),
        Drawable::Primitive(Primitive::state(S1, 1, 0.0, 1.0)),
        Drawable::Primitive(Primitive::event(EV, 2, 3.0)),
    ]];
    let (_dir, path) = write(groups, 65536, 2);
    let f = Slog2File::open(&path).unwrap();
    let sc = Scope::window(0.0, 4.0);
    let s = Stats::compute(&f, &sc, &StatsOptions::default()).unwrap();
    let s1 = s.category(S1);
    assert_eq!((s1.count, s1.inclusive, s1.exclusive), (2, 5.0, 4.0));
    assert_eq!(s1.mean(), 2.5);
    let im = s.imbalance(ImbalanceMetric::Exclusive, 2);
    let r = im.iter().find(|r| r.category == S1).unwrap();
    // Lines 0..5 of the y-map (6 lines): values 3, 1, 0, 0, 0, 0.
    assert_eq!(r.lines, 6);
    assert!((r.mean - 4.0 / 6.0).abs() < 1e-12);
    assert_eq!(r.max, 3.0);
    assert!((r.ratio - 4.5).abs() < 1e-12);
    assert_eq!(r.worst, vec![(0, 3.0), (1, 1.0)]);
    let idle = s.idle();
    assert_eq!(idle.len(), 6);
    assert_eq!(
        (idle[0].line, idle[0].no_state, idle[0].idle),
        (0, 0.0, 0.0)
    );
    assert_eq!((idle[1].no_state, idle[2].no_state), (3.0, 4.0));
    let w = Stats::compute(
        &f,
        &sc,
        &StatsOptions {
            wait: vec!["MPI_Wait".into()],
        },
    )
    .unwrap();
    let idle = w.idle();
    assert_eq!(
        (idle[0].wait, idle[0].idle, idle[0].fraction),
        (1.0, 1.0, 0.25)
    );
    // Whole states vs clipped: a window [0.5, 1.5].
    let c = Stats::compute(&f, &Scope::window(0.5, 1.5), &StatsOptions::default()).unwrap();
    assert_eq!(c.category(S1).inclusive, 1.0 + 0.5);
    let wh = Stats::compute(
        &f,
        &Scope::window(0.5, 1.5).clipped(false),
        &StatsOptions::default(),
    )
    .unwrap();
    assert_eq!(wh.category(S1).inclusive, 5.0);
    assert_eq!(wh.category(S1).exclusive, 4.0);
    // Compare a run with itself and with the clipped one, by name.
    let rows = compare_profiles(&f, &s.by_category, &f, &c.by_category);
    let r = rows.iter().find(|r| r.name == "S1").unwrap();
    assert_eq!(r.inclusive_diff(), 1.5 - 5.0);
    assert!((r.inclusive_rel() - (1.5 - 5.0) / 5.0).abs() < 1e-12);
    assert_eq!(r.count_diff(), 0);
    let e = rows.iter().find(|r| r.name == "E").unwrap();
    assert_eq!((e.a.count, e.b.count), (1, 0));
}

#[test]
fn fixtures_profile_matches_the_files_own_counts() {
    // The writer's per-category counts (category summaries) equal the
    // profile's counts of the whole file, for every reference fixture.
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/fixtures");
    let mut n = 0;
    for sub in ["trace-sample", "clog2", "slog2"] {
        for e in std::fs::read_dir(format!("{dir}/{sub}")).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_none_or(|x| x != "slog2") {
                continue;
            }
            let f = Slog2File::open(&p).unwrap();
            let s = Stats::compute(&f, &Scope::whole(&f), &StatsOptions::default()).unwrap();
            let g =
                Stats::compute_mode(&f, &Scope::whole(&f), &StatsOptions::default(), true).unwrap();
            assert_eq!(s.by_line.len(), g.by_line.len(), "{}", p.display());
            for (a, b) in s.by_line.iter().zip(&g.by_line) {
                assert_eq!((a.line, a.category), (b.line, b.category));
                assert!(
                    same_cell(&a.cell, &b.cell),
                    "{}: {a:?} vs {b:?}",
                    p.display()
                );
            }
            for c in f.categories() {
                if c.is_preview() || c.count <= 0 {
                    continue;
                }
                let got = s.category(c.index);
                // Summaries count primitives; composites are not primitives.
                assert_eq!(
                    got.timed as i64,
                    c.count,
                    "{} category {}",
                    p.display(),
                    c.name
                );
            }
            n += 1;
        }
    }
    assert!(n >= 10);
}
