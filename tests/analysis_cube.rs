//! Property tests of the analysis engine: the overview cube against a
//! brute-force cube computed from the drawables read back one by one, for
//! both metrics, random ranges and slice counts (empty slices, states
//! crossing many slices, nested states, composites, arrows, events, lines
//! and categories the cube does not hold); and the generic fold against the
//! same brute force (each drawable exactly once, partitions that add up).

mod common;

use proptest::prelude::*;
use slog2::analysis::{
    fold, fold_seq, Accumulator, CompositeRef, Cube, CubeSpec, Grid, Metric, PrimitiveRef, Range,
    Visitor,
};
use slog2::*;

use common::drawables::{cats, event, line, long_state, state, time, with_composites};

/// One random drawable of [`cats`], or a stray one: on line 9 (in no y-map)
/// or of category 7 (not defined), both unmapped.
fn drawable() -> impl Strategy<Value = Drawable> {
    let arrow = common::drawables::arrow().prop_map(|(p, _)| p);
    let stray =
        (time(), 0u32..50).prop_map(|(s, d)| Primitive::state(1, 9, s, s + d as f64 / 64.0));
    let undefined = (time(), line()).prop_map(|(s, l)| Primitive::state(7, l, s, s + 1.0));
    let prim = prop_oneof![
        6 => state(), 1 => long_state(), 2 => arrow, 1 => event(), 1 => stray, 1 => undefined
    ];
    with_composites(prim)
}

fn write(ds: &mut [Drawable], leaf: i32, nc: i16) -> (tempfile::TempDir, std::path::PathBuf) {
    common::write_on_six_lines(ds.to_vec(), cats(), leaf, nc)
}

/// The cube by definition, from the drawables read back (slice-major).
fn brute_cube(
    ds: &[Drawable],
    g: &Grid,
    metric: Metric,
    lines: &[i32],
    cs: &[i32],
) -> (Vec<f64>, u64) {
    let (l, u) = (lines.len(), cs.len());
    let mut v = vec![0.0; g.n * l * u];
    let mut unmapped = 0;
    for d in ds {
        for p in d.primitives() {
            let b = p.time_box();
            let topo = cats()
                .iter()
                .find(|c| c.index == p.category)
                .map_or(Topology::State, |c| c.topology);
            if metric == Metric::Duration && topo != Topology::State {
                continue;
            }
            if !(b.start <= g.t1 && g.t0 <= b.end) {
                continue;
            }
            let (Some(lp), Some(cp)) = (
                lines.iter().position(|&x| x == p.first_line()),
                cs.iter().position(|&x| x == p.category),
            ) else {
                unmapped += 1;
                continue;
            };
            match metric {
                Metric::Count => {
                    if let Some(k) = g.slice_of(b.start) {
                        v[(k * l + lp) * u + cp] += 1.0;
                    }
                }
                Metric::Duration => {
                    for k in 0..g.n {
                        let ov = b.end.min(g.edge(k + 1)) - b.start.max(g.edge(k));
                        if ov > 0.0 {
                            v[(k * l + lp) * u + cp] += ov;
                        }
                    }
                }
            }
        }
    }
    (v, unmapped)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    #[test]
    fn cube_equals_brute_force(
        mut ds in proptest::collection::vec(drawable(), 1..300),
        leaf in prop_oneof![Just(512i32), Just(2048), Just(65536)],
        nc in 2i16..4,
        ranges in proptest::collection::vec((0u32..2100, 1u32..2100, 1usize..40), 1..5),
    ) {
        let (_dir, path) = write(&mut ds, leaf, nc);
        let f = Slog2File::open(&path).unwrap();
        let back: Vec<Drawable> = f.drawables().collect::<Result<_>>().unwrap();
        for (a, len, n) in ranges {
            let (t0, t1) = (a as f64 / 64.0 - 1.0, (a + len) as f64 / 64.0);
            for metric in [Metric::Duration, Metric::Count] {
                let mut spec = CubeSpec::new(n, metric);
                spec.t0 = Some(t0);
                spec.t1 = Some(t1);
                // Line 9 is in the identity map: leave it out to test the
                // unmapped count.
                let default = Cube::build(&f, &spec).unwrap();
                let mut lines: Vec<i32> = back.iter().flat_map(|d| d.primitives().iter().map(|p| p.first_line()).collect::<Vec<_>>()).collect();
                lines.sort_unstable();
                lines.dedup();
                prop_assert!(lines.iter().all(|l| default.lines.contains(l)));
                let want_cats = if metric == Metric::Count { vec![1, 2, 3, 4, 5] } else { vec![1, 2, 5] };
                spec.lines = Some((0..6).collect());
                // Category 7 (undefined in the input) too.
                spec.categories = Some(want_cats.clone());
                let cube = Cube::build(&f, &spec).unwrap();
                prop_assert_eq!(&cube.lines, &vec![0, 1, 2, 3, 4, 5]);
                prop_assert_eq!(&cube.categories, &want_cats);
                let (want, unmapped) = brute_cube(&back, &cube.grid, metric, &cube.lines, &cube.categories);
                prop_assert_eq!(cube.unmapped, unmapped);
                for (i, (x, y)) in cube.data().iter().zip(&want).enumerate() {
                    prop_assert!((x - y).abs() <= 1e-9 * (1.0 + y.abs()), "cell {} of {:?}: {} vs {}", i, metric, x, y);
                }
                // The time profile is the sum over lines.
                let prof = cube.sum_over_lines();
                let u = cube.categories.len();
                for k in 0..n {
                    for c in 0..u {
                        let s: f64 = (0..6).map(|l| cube.get(l, k, c)).sum();
                        prop_assert!((prof[k * u + c] - s).abs() <= 1e-9 * (1.0 + s.abs()));
                    }
                }
                // Line-major copy.
                let lm = cube.line_major();
                prop_assert_eq!(lm[((3 * n) + (n - 1)) * u], cube.get(3, n - 1, 0));
                // Partial cubes of start-time partitions add up to the cube.
                let mid = (t0 + t1) / 2.0;
                let empty = cube.empty_like();
                let mut parts = Cube::empty_like(&cube);
                for r in [Range::starting_in(f64::NEG_INFINITY, mid), Range::starting_in(mid, f64::INFINITY)] {
                    let p = fold(&f, r, || empty.empty_like()).unwrap();
                    parts.merge(p);
                }
                for (x, y) in parts.data().iter().zip(cube.data()) {
                    prop_assert!((x - y).abs() <= 1e-9 * (1.0 + y.abs()));
                }
            }
        }
    }

    #[test]
    fn fold_sees_each_selected_drawable_once(
        mut ds in proptest::collection::vec(drawable(), 1..300),
        leaf in prop_oneof![Just(512i32), Just(4096)],
        a in 0u32..2100, len in 0u32..2100,
    ) {
        let (_dir, path) = write(&mut ds, leaf, 2);
        let f = Slog2File::open(&path).unwrap();
        let back: Vec<Drawable> = f.drawables().collect::<Result<_>>().unwrap();
        let (t0, t1) = (a as f64 / 64.0, (a + len) as f64 / 64.0);
        for range in [Range::intersecting(t0, t1), Range::starting_in(t0, t1), Range::all()] {
            let got = fold(&f, range, Seen::default).unwrap();
            let mut seq = Seen::default();
            fold_seq(&f, range, &mut seq).unwrap();
            let mut want = Seen::default();
            for d in &back {
                for p in d.primitives() {
                    let b = p.time_box();
                    if range.selects(b.start, b.end) {
                        want.prims.push(key(p.category, b.start, b.end, p.first_line(), p.last_line()));
                    }
                }
                if let Drawable::Composite(c) = d {
                    let b = c.time_box();
                    if range.selects(b.start, b.end) {
                        want.comps.push((c.category, b.start.to_bits(), b.end.to_bits(), c.members.len()));
                    }
                }
            }
            want.prims.sort();
            want.comps.sort();
            let mut got = got;
            got.prims.sort(); got.comps.sort(); seq.prims.sort(); seq.comps.sort();
            prop_assert_eq!(&got.prims, &want.prims);
            prop_assert_eq!(&got.comps, &want.comps);
            prop_assert_eq!(&seq.prims, &want.prims);
            prop_assert_eq!(&seq.comps, &want.comps);
        }
    }
}

type Key = (i32, u64, u64, i32, i32);

fn key(c: i32, s: f64, e: f64, l0: i32, l1: i32) -> Key {
    (c, s.to_bits(), e.to_bits(), l0, l1)
}

#[derive(Default)]
struct Seen {
    prims: Vec<Key>,
    comps: Vec<(i32, u64, u64, usize)>,
}

impl Visitor for Seen {
    fn primitive(&mut self, p: &PrimitiveRef<'_>) {
        // A member knows its composite; a state's line0 == line1.
        assert_eq!(p.composite.is_some(), p.at.member >= 0);
        self.prims
            .push(key(p.category, p.start, p.end, p.line0, p.line1));
    }
    fn composite(&mut self, c: &CompositeRef<'_>) {
        self.comps
            .push((c.category, c.start.to_bits(), c.end.to_bits(), c.members));
    }
}

impl Accumulator for Seen {
    fn merge(&mut self, mut o: Seen) {
        self.prims.append(&mut o.prims);
        self.comps.append(&mut o.comps);
    }
}

#[test]
fn bad_ranges_are_errors() {
    let f = Slog2File::open(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/fixtures/trace-sample/data.slog2"
    ))
    .unwrap();
    assert!(fold(&f, Range::intersecting(2.0, 1.0), Seen::default).is_err());
    assert!(fold(&f, Range::intersecting(f64::NAN, 1.0), Seen::default).is_err());
    let mut spec = CubeSpec::new(0, Metric::Count);
    assert!(Cube::build(&f, &spec).is_err());
    spec.slices = 4;
    spec.t0 = Some(5.0);
    spec.t1 = Some(5.0);
    assert!(Cube::build(&f, &spec).is_err());
}
