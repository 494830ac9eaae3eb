//! Property tests: for random drawable sets written with random leaf sizes, a
//! window query returns exactly what a brute-force filter over the input
//! returns, and reading everything back gives the input multiset.

use proptest::prelude::*;
use slog2::*;

fn cats() -> Vec<Category> {
    let mut v = vec![
        Category::new(1, "S1", Topology::State, Color::rgba(1, 2, 3, 255), 1),
        Category::new(2, "S2", Topology::State, Color::rgba(4, 5, 6, 255), 1),
        Category::new(3, "A", Topology::Arrow, Color::rgba(7, 8, 9, 255), 3),
        Category::new(4, "E", Topology::Event, Color::rgba(9, 9, 9, 255), 5),
        Category::new(5, "C", Topology::State, Color::rgba(1, 1, 1, 255), 1),
    ];
    v[2].info = InfoFormat::parse("tag=%d").unwrap();
    v
}

/// One random drawable around time `t` (all times are multiples of 1/64 so
/// ties and zero lengths are common).
fn drawable() -> impl Strategy<Value = Drawable> {
    let t = || (0u32..2000).prop_map(|x| x as f64 / 64.0);
    let line = || 0i32..6;
    let state = (t(), 0u32..200, line(), 1i32..3)
        .prop_map(|(s, d, l, c)| Primitive::state(c, l, s, s + d as f64 / 64.0));
    let long_state = (t(), line()).prop_map(|(s, l)| Primitive::state(1, l, s / 8.0, s + 20.0));
    let zero_state = (t(), line()).prop_map(|(s, l)| Primitive::state(2, l, s, s));
    let arrow = (t(), 0u32..100, line(), line(), any::<bool>(), any::<i32>()).prop_map(
        |(s, d, a, b, back, tag)| {
            let e = s + d as f64 / 64.0;
            let mut p = if back {
                Primitive::arrow(3, a, b, e, s)
            } else {
                Primitive::arrow(3, a, b, s, e)
            };
            p.info = tag.to_be_bytes().as_slice().into();
            p
        },
    );
    let event = (t(), line()).prop_map(|(s, l)| Primitive::event(4, l, s));
    let prim = prop_oneof![4 => state, 1 => long_state, 1 => zero_state, 2 => arrow, 1 => event];
    let composite = proptest::collection::vec(prim.clone(), 1..5).prop_map(|members| {
        Drawable::Composite(Composite {
            category: 5,
            info: Default::default(),
            members,
        })
    });
    prop_oneof![6 => prim.prop_map(Drawable::Primitive), 1 => composite]
}

fn normalise(mut d: Drawable) -> Drawable {
    if let Drawable::Composite(c) = &mut d {
        c.members.sort_by(Primitive::drawing_cmp);
    }
    d
}

/// Drawables rebuilt from query rows (events have one vertex, the rest two:
/// true of every drawable these tests write).
fn from_rows(r: &slog2::read::Rows) -> Vec<Drawable> {
    use slog2::read::{ROW_COMPOSITE, ROW_PRIMITIVE};
    let prim = |i: usize| {
        let mut v = vec![Vertex::new(r.time0[i], r.line0[i])];
        if r.category[i] != 4 {
            v.push(Vertex::new(r.time1[i], r.line1[i]));
        }
        Primitive::new(r.category[i], v, r.info_of(i))
    };
    let mut out: Vec<Drawable> = Vec::new();
    for i in 0..r.len() {
        match r.kind[i] {
            ROW_COMPOSITE => {
                assert_eq!(r.parent[i], -1);
                out.push(Drawable::Composite(Composite {
                    category: r.category[i],
                    info: r.info_of(i).into(),
                    members: Vec::new(),
                }));
            }
            ROW_PRIMITIVE if r.parent[i] >= 0 => {
                let p = r.parent[i] as usize;
                assert_eq!(r.kind[p], ROW_COMPOSITE, "parent row {p} of row {i}");
                let Some(Drawable::Composite(c)) = out.last_mut() else {
                    panic!("member row {i} does not follow its composite");
                };
                c.members.push(prim(i));
            }
            ROW_PRIMITIVE => out.push(Drawable::Primitive(prim(i))),
            k => panic!("unexpected row kind {k}"),
        }
    }
    out
}

fn key(d: &Drawable) -> String {
    format!("{d:?}")
}

fn multiset(v: &[Drawable]) -> Vec<String> {
    let mut k: Vec<String> = v.iter().map(key).collect();
    k.sort();
    k
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    #[test]
    fn window_equals_brute_force(
        mut ds in proptest::collection::vec(drawable(), 1..400),
        leaf in prop_oneof![Just(512i32), Just(1024), Just(4096), Just(65536), 512i32..8192],
        nc in 2i16..5,
        windows in proptest::collection::vec((0u32..2100, 0u32..400), 1..12),
    ) {
        ds = ds.into_iter().map(normalise).collect();
        ds.sort_by(|a, b| a.time_box().end.total_cmp(&b.time_box().end));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.slog2");
        let mut w = Slog2Writer::create(&path, WriterOptions { children_per_node: nc, leaf_bytesize: leaf , ..Default::default()}).unwrap();
        for c in cats() { w.add_category(c).unwrap(); }
        for d in &ds { w.add_drawable(d.clone()).unwrap(); }
        let summary = w.finish().unwrap();
        prop_assert_eq!(summary.drawables, ds.len() as u64);

        let f = Slog2File::open(&path).unwrap();
        let report = f.check();
        prop_assert!(report.errors.is_empty(), "check errors: {:?}", report.errors);
        let all: Vec<Drawable> = f.drawables().collect::<Result<_>>().unwrap();
        prop_assert_eq!(multiset(&all), multiset(&ds));

        for (s, len) in windows {
            let t0 = s as f64 / 64.0 - 1.0;
            let t1 = t0 + len as f64 / 64.0;
            let got = f.window(t0, t1).unwrap();
            let want: Vec<Drawable> = ds.iter().filter(|d| {
                let b = d.time_box();
                b.start <= t1 && t0 <= b.end
            }).cloned().collect();
            prop_assert_eq!(multiset(&got.drawables), multiset(&want), "window [{}, {}]", t0, t1);
            prop_assert!(got.stats.nodes_read <= f.directory().len());
            // The same drawables as columns: rebuilt row by row, in the same
            // order, with vertex direction (backward arrows) kept.
            let rows = f.window_rows(t0, t1).unwrap();
            prop_assert_eq!(&from_rows(&rows), &got.drawables);
            prop_assert_eq!(rows.stats, got.stats);
            prop_assert_eq!(rows.info_offset.len(), rows.len() + 1);
            // Previews as columns: drawables, then one row per shadow whose
            // weights point back at it.
            for depth in [1i32, 2, 40_000] {
                let p = f.preview(t0, t1, slog2::read::rows::clamp_depth(depth)).unwrap();
                let pr = f.preview_rows(t0, t1, depth).unwrap();
                let nd = pr.len() - p.shadows.len();
                prop_assert_eq!(from_rows(&slog2::read::Rows::from_parts(&p.drawables, &[], p.stats)), p.drawables.clone());
                for (k, s) in p.shadows.iter().enumerate() {
                    let row = nd + k;
                    prop_assert_eq!(pr.kind[row], slog2::read::ROW_SHADOW);
                    prop_assert_eq!(pr.num_real[row], s.num_real);
                    let ws: Vec<usize> = (0..pr.weights.len()).filter(|&j| pr.weights.row[j] as usize == row).collect();
                    prop_assert_eq!(ws.len(), s.weights.len());
                    for (j, w) in ws.iter().zip(s.weights.iter()) {
                        prop_assert_eq!(pr.weights.category[*j], w.category);
                        prop_assert_eq!(pr.weights.count[*j], w.count);
                    }
                }
            }
            // Results come in drawing order.
            for pair in got.drawables.windows(2) {
                prop_assert!(pair[0].drawing_cmp(&pair[1]) != std::cmp::Ordering::Greater);
            }
        }
    }
}
