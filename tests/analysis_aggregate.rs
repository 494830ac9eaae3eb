//! Property tests of the temporal and spatiotemporal aggregations against
//! brute force: every partition enumerated (small N), qualities computed
//! from their definitions (Kullback–Leibler loss, entropy-reduction gain),
//! the best one found by exhaustive search with ties to fewer parts — for
//! random cubes with empty slices, proportional (tie-making) slices, both
//! orders of magnitude, and p = 0, 1 and between.

use std::collections::HashMap;

use proptest::prelude::*;
use slog2::analysis::{
    auto_p, curve, Cube, Grid, Hierarchy, Metric, Partition, SpatioTemporalQualities,
    TemporalQualities,
};

/// A random cube: `l` lines, `n` slices, `u` categories; values from a
/// small set (zeros common, repeated rows make lossless merges).
fn cube() -> impl Strategy<Value = Cube> {
    (1usize..5, 1usize..8, 1usize..4, any::<bool>()).prop_flat_map(|(l, n, u, big)| {
        let cells = l * n * u;
        (
            proptest::collection::vec(
                prop_oneof![3 => Just(0.0), 2 => Just(1.0), 2 => Just(2.0), 3 => 0.0..10.0f64],
                cells,
            ),
            proptest::collection::vec(any::<bool>(), n),
        )
            .prop_map(move |(vals, copy)| {
                let g = Grid::new(0.0, n as f64, n).unwrap();
                let mut c = Cube::zeros(
                    g,
                    Metric::Duration,
                    (0..l as i32).collect(),
                    (0..u as i32).collect(),
                )
                .unwrap();
                let scale = if big { 1e6 } else { 1e-3 };
                let row = l * u;
                let d = c.data_mut();
                for (x, v) in d.iter_mut().zip(vals) {
                    *x = v * scale;
                }
                // Some slices repeat the previous one (ties).
                for k in 1..n {
                    if copy[k] {
                        let (a, b) = d.split_at_mut(k * row);
                        b[..row].copy_from_slice(&a[(k - 1) * row..k * row]);
                    }
                }
                c
            })
    })
}

/// Gain and loss of a set of cell groups, from the definitions: each group
/// is one aggregated value over its cells.
fn def_quality(groups: &[Vec<f64>]) -> (f64, f64) {
    let (mut g, mut l) = (0.0, 0.0);
    for cells in groups {
        let v: f64 = cells.iter().sum();
        let n = cells.len() as f64;
        let e: f64 = cells
            .iter()
            .filter(|&&x| x > 0.0)
            .map(|&x| x * x.log2())
            .sum();
        if v > 0.0 {
            g += v * v.log2() - e;
            l += cells
                .iter()
                .filter(|&&x| x > 0.0)
                .map(|&x| x * (n * x / v).log2())
                .sum::<f64>();
        }
    }
    (g, l)
}

fn temporal_def(c: &Cube, i: usize, j: usize) -> (f64, f64) {
    let mut groups = Vec::new();
    for s in 0..c.lines.len() {
        for u in 0..c.categories.len() {
            groups.push((i..=j).map(|t| c.get(s, t, u)).collect());
        }
    }
    def_quality(&groups)
}

fn st_def(c: &Cube, h: &Hierarchy, node: usize, i: usize, j: usize) -> (f64, f64) {
    let mut groups = Vec::new();
    for u in 0..c.categories.len() {
        let mut cells = Vec::new();
        for &s in &h.nodes[node].lines {
            for t in i..=j {
                cells.push(c.get(s, t, u));
            }
        }
        groups.push(cells);
    }
    def_quality(&groups)
}

type Parts = Vec<(usize, usize, usize)>;

/// Exhaustive best: the largest value, then the fewest parts within the
/// tolerance of it.
fn exhaustive(all: &[Parts], value: impl Fn(&Parts) -> f64, tol: f64) -> (f64, usize) {
    let best = all.iter().map(&value).fold(f64::NEG_INFINITY, f64::max);
    let parts = all
        .iter()
        .filter(|p| value(p) >= best - tol)
        .map(|p| p.len())
        .min()
        .unwrap();
    (best, parts)
}

/// Rounding scale of a cube's qualities: Σ |v log2 v| over its cells and
/// |V log2 V| of its total (gain is a difference of such sums).
fn qtol(c: &Cube) -> f64 {
    let xl = |x: f64| if x > 0.0 { (x * x.log2()).abs() } else { 0.0 };
    let total: f64 = c.data().iter().sum();
    1e-12 + 1e-10 * (c.data().iter().map(|&v| xl(v)).sum::<f64>() + xl(total) + total)
}

fn value_of(part: &Partition, p: f64) -> f64 {
    p * part.gain - (1.0 - p) * part.loss
}

fn ps() -> impl Strategy<Value = f64> {
    prop_oneof![Just(0.0), Just(1.0), Just(0.5), 0.0..1.0f64]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

    #[test]
    fn temporal_equals_exhaustive(c in cube(), p in ps()) {
        let n = c.grid.n;
        let q = TemporalQualities::new(&c).unwrap();
        for i in 0..n {
            for j in i..n {
                let (g, l) = q.quality(i, j);
                let (dg, dl) = temporal_def(&c, i, j);
                prop_assert!((g - dg).abs() <= qtol(&c), "gain {} vs {}", g, dg);
                prop_assert!((l - dl).abs() <= qtol(&c), "loss {} vs {}", l, dl);
            }
        }
        // Every composition of n slices.
        let all: Vec<Parts> = (0..1u32 << (n - 1)).map(|mask| {
            let mut v = Vec::new();
            let mut first = 0;
            for k in 0..n {
                if k == n - 1 || mask & (1 << k) != 0 {
                    v.push((0, first, k));
                    first = k + 1;
                }
            }
            v
        }).collect();
        let tol = 1e-9 * q.scale();
        let value = |parts: &Parts| parts.iter().map(|&(_, i, j)| { let (g, l) = temporal_def(&c, i, j); p * g - (1.0 - p) * l }).sum::<f64>();
        let (best, min_parts) = exhaustive(&all, value, tol);
        let got = q.best(p);
        let v = value_of(&got, p);
        prop_assert!((v - best).abs() <= 2.0 * tol + 1e-12, "value {} vs exhaustive {}", v, best);
        prop_assert_eq!(got.parts.len(), min_parts, "{:?}", got);
        // Parts tile the slices in order.
        prop_assert_eq!(got.parts[0].first, 0);
        prop_assert_eq!(got.parts.last().unwrap().last, n - 1);
        for w in got.parts.windows(2) {
            prop_assert_eq!(w[0].last + 1, w[1].first);
        }
        if p == 1.0 {
            prop_assert_eq!(got.parts.len(), 1);
        }
        // p = 0: nothing lost.
        prop_assert!(q.best(0.0).loss.abs() <= tol + 1e-12);
    }

    #[test]
    fn spatiotemporal_equals_exhaustive(c in cube(), p in ps(), k in 2usize..4, from_map in any::<bool>()) {
        let n = c.grid.n.min(3);
        // At most 3 slices: cut the cube down.
        let g = Grid::new(0.0, n as f64, n).unwrap();
        let mut small = Cube::zeros(g, Metric::Duration, c.lines.clone(), c.categories.clone()).unwrap();
        let row = c.lines.len() * c.categories.len();
        small.data_mut().copy_from_slice(&c.data()[..n * row]);
        let c = small;
        let h = if from_map {
            let map = slog2::YCoordMap {
                title: "M".into(),
                column_labels: vec!["group".into()],
                rows: c.lines.iter().map(|&l| (l, vec![l / k as i32])).collect(),
                methods: vec![],
            };
            Hierarchy::from_ymap(&map, &c.lines).unwrap()
        } else {
            Hierarchy::fanout(&c.lines, k).unwrap()
        };
        let q = SpatioTemporalQualities::new(&c, h.clone()).unwrap();
        for node in 0..h.len() {
            for i in 0..n {
                for j in i..n {
                    let (g, l) = q.quality(node, i, j);
                    let (dg, dl) = st_def(&c, &h, node, i, j);
                    prop_assert!((g - dg).abs() <= qtol(&c), "gain {} vs {}", g, dg);
                    prop_assert!((l - dl).abs() <= qtol(&c), "loss {} vs {}", l, dl);
                }
            }
        }
        let mut memo = HashMap::new();
        let all = enumerate(&h, 0, 0, n - 1, &mut memo);
        let tol = 1e-9 * q.scale();
        let value = |parts: &Parts| parts.iter().map(|&(node, i, j)| { let (g, l) = st_def(&c, &h, node, i, j); p * g - (1.0 - p) * l }).sum::<f64>();
        let (best, min_parts) = exhaustive(&all, value, tol);
        let got = q.best(p);
        let v = value_of(&got, p);
        prop_assert!((v - best).abs() <= 2.0 * tol + 1e-12, "value {} vs exhaustive {}", v, best);
        prop_assert_eq!(got.parts.len(), min_parts, "{:?}", got);
        // The parts tile lines x slices exactly once.
        let mut cover = vec![0; c.lines.len() * n];
        for part in &got.parts {
            for &s in &h.nodes[part.node.unwrap()].lines {
                for t in part.first..=part.last {
                    cover[s * n + t] += 1;
                }
            }
        }
        prop_assert!(cover.iter().all(|&x| x == 1));
        if p == 1.0 {
            prop_assert_eq!(got.parts.len(), 1);
            prop_assert_eq!(got.parts[0].node, Some(0));
        }
    }

    /// The spatiotemporal curve with its cell cache (each run reusing the
    /// lines the earlier runs proved) is the curve of plain runs.
    #[test]
    fn spatiotemporal_curve_equals_plain_runs(c in cube(), k in 2usize..4, eps in prop_oneof![Just(0.001), Just(0.05)]) {
        let h = Hierarchy::fanout(&c.lines, k).unwrap();
        let q = SpatioTemporalQualities::new(&c, h).unwrap();
        let fast = q.curve(eps);
        let plain = curve(eps, |p| q.best(p));
        let tol = 1e-9 * q.scale().abs() + 1e-12;
        prop_assert_eq!(fast.len(), plain.len(), "{:?} vs {:?}", fast, plain);
        for (a, b) in fast.iter().zip(&plain) {
            prop_assert_eq!(a.p, b.p);
            prop_assert_eq!(a.parts, b.parts);
            prop_assert!((a.gain - b.gain).abs() <= tol && (a.loss - b.loss).abs() <= tol, "{:?} vs {:?}", a, b);
        }
    }
}

/// Every partition of node `h` over slices `i..=j` (module docs of
/// `spatiotemporal`: one part, the children's partitions, or a time cut).
fn enumerate(
    h: &Hierarchy,
    node: usize,
    i: usize,
    j: usize,
    memo: &mut HashMap<(usize, usize, usize), Vec<Parts>>,
) -> Vec<Parts> {
    if let Some(v) = memo.get(&(node, i, j)) {
        return v.clone();
    }
    let mut out: Vec<Parts> = vec![vec![(node, i, j)]];
    let kids = h.nodes[node].children.clone();
    if !kids.is_empty() {
        let mut acc: Vec<Parts> = vec![Vec::new()];
        for c in kids {
            let sub = enumerate(h, c, i, j, memo);
            acc = acc
                .iter()
                .flat_map(|a| sub.iter().map(move |b| [a.clone(), b.clone()].concat()))
                .collect();
        }
        out.extend(acc);
    }
    for k in i..j {
        let left = enumerate(h, node, i, k, memo);
        let right = enumerate(h, node, k + 1, j, memo);
        for a in &left {
            for b in &right {
                out.push([a.clone(), b.clone()].concat());
            }
        }
    }
    for p in &mut out {
        p.sort_unstable();
    }
    out.sort();
    out.dedup();
    memo.insert((node, i, j), out.clone());
    out
}

#[test]
fn curve_and_auto_p_on_a_two_phase_cube() {
    // Two phases: slices 0..4 all category 0, slices 4..8 all category 1,
    // with a little noise: the knee is the two-part partition.
    let g = Grid::new(0.0, 8.0, 8).unwrap();
    let mut c = Cube::zeros(g, Metric::Duration, vec![0, 1], vec![0, 1]).unwrap();
    for t in 0..8 {
        for s in 0..2 {
            let (a, b) = if t < 4 { (1.0, 0.0) } else { (0.0, 1.0) };
            let noise = 0.05 * ((t * 7 + s * 3) % 5) as f64;
            let d = c.data_mut();
            d[(t * 2 + s) * 2] = a + noise;
            d[(t * 2 + s) * 2 + 1] = b + noise;
        }
    }
    let q = TemporalQualities::new(&c).unwrap();
    let cv = curve(0.001, |p| q.best(p));
    assert!(cv.len() >= 3, "{cv:?}");
    assert!(cv
        .windows(2)
        .all(|w| w[0].p < w[1].p && w[0].parts > w[1].parts));
    assert_eq!(cv.last().unwrap().parts, 1);
    let p = auto_p(&cv);
    let best = q.best(p);
    assert_eq!(best.parts.len(), 2, "auto p {p}: {best:?} on {cv:?}");
    assert_eq!((best.parts[0].first, best.parts[0].last), (0, 3));
}
