//! Property tests: for random drawable sets written with random leaf sizes, a
//! window query returns exactly what a brute-force filter over the input
//! returns, and reading everything back gives the input multiset.
//!
//! Every path of the indexed reader is compared with a brute-force oracle
//! (a scan of the whole directory decoding whole nodes, as the reader did
//! before the directory index and node tables): cold and warm node cache,
//! caching disabled, a cache so small it evicts on every query, partial node
//! decoding (bytes decoded = bytes of the drawables returned), previews, and
//! 8 threads querying one file at once.

mod common;

use proptest::prelude::*;
use slog2::*;

use common::drawables::{cats, event, long_state, state, time, with_composites};

/// One random drawable (all times are multiples of 1/64 so ties and zero
/// lengths are common).
fn drawable() -> impl Strategy<Value = Drawable> {
    let zero_state =
        (time(), common::drawables::line()).prop_map(|(s, l)| Primitive::state(2, l, s, s));
    let arrow = common::drawables::arrow().prop_map(|(mut p, tag)| {
        p.info = tag.to_be_bytes().as_slice().into();
        p
    });
    let prim =
        prop_oneof![4 => state(), 1 => long_state(), 1 => zero_state, 2 => arrow, 1 => event()];
    with_composites(prim)
}

fn normalise(mut d: Drawable) -> Drawable {
    if let Drawable::Composite(c) = &mut d {
        c.members.sort_by(Primitive::drawing_cmp);
    }
    d
}

/// Drawables rebuilt from query rows (events have one vertex, the rest two:
/// true of every drawable these tests write).
fn from_rows(r: slog2::read::RowsRef<'_>) -> Vec<Drawable> {
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

/// Brute force: every node whose box intersects, decoded whole, drawables
/// filtered and stable-sorted into drawing order.
fn oracle_window(f: &Slog2File, t0: f64, t1: f64) -> Vec<Drawable> {
    let w = TimeBox::new(t0, t1);
    let mut v: Vec<Drawable> = Vec::new();
    for e in f.directory() {
        if !e.time_box.overlaps(&w) {
            continue;
        }
        let n = f.read_node(e, slog2::format::NodeParts::Drawables).unwrap();
        v.extend(
            n.nestless
                .into_iter()
                .chain(n.nestable)
                .filter(|d| d.time_box().overlaps(&w)),
        );
    }
    v.sort_by(|a, b| a.drawing_cmp(b));
    v
}

/// Brute-force preview (spec §8.3) from whole decoded nodes.
fn oracle_preview(f: &Slog2File, t0: f64, t1: f64, depth: i16) -> (Vec<Drawable>, Vec<Shadow>) {
    if depth <= 0 {
        return (oracle_window(f, t0, t1), Vec::new());
    }
    let w = TimeBox::new(t0, t1);
    let root = f.root();
    let just_root = depth > root.id.depth;
    let mut ds: Vec<Drawable> = Vec::new();
    let mut ss: Vec<Shadow> = Vec::new();
    for e in f.directory() {
        let loaded = if just_root {
            e == root
        } else {
            e.id.depth >= depth
        };
        if !loaded || !e.time_box.overlaps(&w) {
            continue;
        }
        let n = f.read_node(e, slog2::format::NodeParts::All).unwrap();
        ds.extend(
            n.nestless
                .into_iter()
                .chain(n.nestable)
                .filter(|d| d.time_box().overlaps(&w)),
        );
        if just_root || e.id.depth <= depth {
            for st in n.stubs {
                if st.entry.id.depth < depth {
                    ss.extend(
                        st.nestless
                            .into_iter()
                            .chain(st.nestable)
                            .filter(|s| s.time_box.overlaps(&w)),
                    );
                }
            }
        }
    }
    ds.sort_by(|a, b| a.drawing_cmp(b));
    ss.sort_by(|a, b| a.drawing_cmp(b));
    (ds, ss)
}

/// What a window query decodes when it decodes only what it returns.
fn record_bytes(ds: &[Drawable]) -> u64 {
    ds.iter().map(|d| 1 + d.byte_size() as u64).sum()
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
        let nocache = Slog2File::open(&path).unwrap();
        nocache.set_node_cache_limit(0);
        let tiny = Slog2File::open(&path).unwrap();
        tiny.set_node_cache_limit(16 * 600);
        let mut single = Vec::new();
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
            // Same drawables in the same order as a whole-node scan; decoded
            // bytes are exactly the returned records (partial decoding).
            let oracle = oracle_window(&f, t0, t1);
            prop_assert_eq!(&got.drawables, &oracle);
            prop_assert_eq!(got.stats.bytes_read, record_bytes(&oracle));
            // Warm cache: the same answer, every node from the cache.
            let warm = f.window(t0, t1).unwrap();
            prop_assert_eq!(&warm.drawables, &oracle);
            prop_assert_eq!(warm.stats.cache_hits, warm.stats.nodes_read);
            prop_assert_eq!(warm.stats.bytes_indexed, 0);
            // No cache, and a cache that evicts all the time.
            prop_assert_eq!(&nocache.window(t0, t1).unwrap().drawables, &oracle);
            prop_assert_eq!(&tiny.window(t0, t1).unwrap().drawables, &oracle);
            prop_assert!(tiny.node_cache_stats().bytes <= tiny.node_cache_stats().limit);
            prop_assert_eq!(nocache.node_cache_stats().entries, 0);
            let mut streamed = Vec::new();
            tiny.window_each(t0, t1, |d| streamed.push(d.clone())).unwrap();
            prop_assert_eq!(multiset(&streamed), multiset(&oracle));
            for depth in [-1i16, 1, 2, 3, 40] {
                let p = f.preview(t0, t1, depth).unwrap();
                let (od, os) = oracle_preview(&f, t0, t1, depth);
                prop_assert_eq!(&p.drawables, &od, "preview depth {}", depth);
                prop_assert_eq!(&p.shadows, &os, "preview depth {}", depth);
                let q = nocache.preview(t0, t1, depth).unwrap();
                prop_assert_eq!(&q.drawables, &od);
                prop_assert_eq!(&q.shadows, &os);
            }
            single.push((t0, t1, oracle, f.window_rows(t0, t1).unwrap()));
            // The same drawables as columns: rebuilt row by row, in the same
            // order, with vertex direction (backward arrows) kept.
            let rows = f.window_rows(t0, t1).unwrap();
            prop_assert_eq!(&from_rows(rows.view()), &got.drawables);
            prop_assert_eq!((rows.stats.nodes_read, rows.stats.bytes_read), (got.stats.nodes_read, got.stats.bytes_read));
            prop_assert_eq!(rows.info_offset.len(), rows.len() + 1);
            // Previews as columns: drawables, then one row per shadow whose
            // weights point back at it.
            for depth in [i32::MIN, -1, 0, 1, 2, 3, 40_000] {
                let p = f.preview(t0, t1, slog2::read::rows::clamp_depth(depth)).unwrap();
                let pr = f.preview_rows(t0, t1, depth).unwrap();
                // Shadows read in place give exactly the columns of the
                // decoded preview, with and without a cache.
                let want = slog2::read::Rows::from(p.clone());
                prop_assert_eq!(&pr, &want, "preview_rows depth {}", depth);
                let mut pt = tiny.preview_rows(t0, t1, depth).unwrap();
                pt.stats = want.stats;
                prop_assert_eq!(&pt, &want, "preview_rows depth {} (tiny cache)", depth);
                let nd = pr.len() - p.shadows.len();
                prop_assert_eq!(from_rows(slog2::read::Rows::from_parts(&p.drawables, &[], p.stats).view()), p.drawables.clone());
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

        // 8 threads on one file (shared cache, small enough to evict while
        // others read), each running every window in its own order: the
        // same drawables and rows as single-threaded.
        let shared = Slog2File::open(&path).unwrap();
        shared.set_node_cache_limit(16 * 2000);
        let failures = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|sc| {
            for t in 0..8usize {
                let (shared, single, failures) = (&shared, &single, &failures);
                sc.spawn(move || {
                    for round in 0..3 {
                        for i in 0..single.len() {
                            let (t0, t1, want, rows) = &single[(i + t + round) % single.len()];
                            let ok = shared.window(*t0, *t1).map(|w| &w.drawables == want).unwrap_or(false)
                                && shared.window_rows(*t0, *t1).map(|mut r| { r.stats = rows.stats; r == *rows }).unwrap_or(false);
                            if !ok {
                                failures.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            }
                        }
                    }
                });
            }
        });
        prop_assert_eq!(failures.into_inner(), 0, "threads disagreed with single-threaded results");
    }
}

/// One viewer move: scroll by a fraction of the width (either way), zoom
/// about the centre, or jump anywhere.
#[derive(Debug, Clone)]
enum Move {
    Scroll(i32),
    Zoom(u32),
    Jump(u32, u32),
}

fn moves() -> impl Strategy<Value = Vec<Move>> {
    proptest::collection::vec(
        prop_oneof![
            6 => (-8i32..9).prop_map(Move::Scroll),
            2 => (1u32..16).prop_map(Move::Zoom),
            1 => (0u32..2100, 0u32..400).prop_map(|(s, l)| Move::Jump(s, l)),
        ],
        1..40,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    /// A `WindowCursor` moved through a random sequence of scrolls, zooms and
    /// jumps always holds exactly a fresh query's drawables (brute force), in
    /// drawing order, with only the entering records decoded on overlapping
    /// moves — with the node cache on, off, and evicting all the time.
    #[test]
    fn cursor_equals_fresh_query(
        mut ds in proptest::collection::vec(drawable(), 1..400),
        leaf in prop_oneof![Just(512i32), Just(1024), Just(4096), 512i32..8192],
        nc in 2i16..5,
        start in (0u32..2100, 0u32..400),
        plan in moves(),
    ) {
        ds = ds.into_iter().map(normalise).collect();
        ds.sort_by(|a, b| a.time_box().end.total_cmp(&b.time_box().end));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.slog2");
        let mut w = Slog2Writer::create(&path, WriterOptions { children_per_node: nc, leaf_bytesize: leaf, ..Default::default() }).unwrap();
        for c in cats() { w.add_category(c).unwrap(); }
        for d in &ds { w.add_drawable(d.clone()).unwrap(); }
        w.finish().unwrap();
        let f = Slog2File::open(&path).unwrap();
        let nocache = Slog2File::open(&path).unwrap();
        nocache.set_node_cache_limit(0);
        let tiny = Slog2File::open(&path).unwrap();
        tiny.set_node_cache_limit(16 * 600);
        let files = [&f, &nocache, &tiny];
        // Every file four times: nodes held as rows when they enter (the
        // default); record by record through the tables (exact decoded
        // bytes); small nodes as rows and the rest by record, with the rows
        // compacted on almost every forward move; nodes as rows merged and
        // decoded two records at a time.
        let files = [files[0], files[1], files[2], files[0], files[1], files[2], files[0], files[1], files[2], files[0], files[1], files[2]];
        let mut cursors: Vec<slog2::read::WindowCursor> = (0..files.len()).map(|i| {
            let mut c = slog2::read::WindowCursor::new();
            if (3..6).contains(&i) { c.set_whole_node_bytes(0); }
            if (6..9).contains(&i) { c.set_whole_node_bytes(leaf as usize / 2); c.set_slide_rows(4); }
            if i >= 9 { c.set_chunk(2); }
            c
        }).collect();
        let (mut t0, mut t1) = (start.0 as f64 / 64.0 - 1.0, (start.0 + start.1) as f64 / 64.0 - 1.0);
        let mut prev: Option<(f64, f64)> = None;
        for m in std::iter::once(None).chain(plan.into_iter().map(Some)) {
            match m {
                None => {}
                Some(Move::Scroll(q)) => { let d = (t1 - t0) * q as f64 / 4.0; t0 += d; t1 += d; }
                Some(Move::Zoom(z)) => { let c = (t0 + t1) / 2.0; let h = (t1 - t0).max(1.0 / 64.0) * z as f64 / 16.0; t0 = c - h; t1 = c + h; }
                Some(Move::Jump(s, l)) => { t0 = s as f64 / 64.0 - 1.0; t1 = t0 + l as f64 / 64.0; }
            }
            let oracle = oracle_window(&f, t0, t1);
            for (ci, (cur, file)) in cursors.iter_mut().zip(files).enumerate() {
                let rows = cur.move_to(file, t0, t1).unwrap();
                let got = from_rows(rows);
                prop_assert_eq!(multiset(&got), multiset(&oracle), "window [{}, {}] after {:?}", t0, t1, prev);
                for pair in got.windows(2) {
                    prop_assert!(pair[0].drawing_cmp(&pair[1]) != std::cmp::Ordering::Greater, "drawing order");
                }
                prop_assert_eq!(rows.info_offset.len(), rows.len() + 1);
                // Decoded: the entering records only, when the move overlaps.
                let want_bytes = match prev {
                    Some((p0, p1)) if p0 <= t1 && t0 <= p1 => record_bytes(&oracle.iter().filter(|d| {
                        let b = d.time_box();
                        !(b.start <= p1 && p0 <= b.end)
                    }).cloned().collect::<Vec<_>>()),
                    _ => record_bytes(&oracle),
                };
                // (Whole-node cursors copy the rows of nodes decoded on an
                // earlier move: they decode whole nodes when they enter.)
                if (3..6).contains(&ci) || prev.is_none() {
                    prop_assert_eq!(rows.stats.bytes_read, want_bytes);
                }
                prop_assert_eq!(cur.window(), Some(TimeBox::new(t0, t1)));
            }
            prev = Some((t0, t1));
        }
        // A bad window resets the cursor (empty rows, next move fresh).
        let cur = &mut cursors[0];
        prop_assert!(cur.move_to(&f, 2.0, 1.0).is_err());
        prop_assert!(cur.rows().is_empty());
        prop_assert_eq!(cur.window(), None);
        // Another file: a fresh query on it.
        let rows = cur.move_to(&tiny, t0, t1).unwrap();
        prop_assert_eq!(multiset(&from_rows(rows)), multiset(&oracle_window(&f, t0, t1)));
    }
}

/// Forward scrolls compact the cursor's rows about once per `slide_rows`
/// rows scrolled past, not on every move (columns that grew to just fit the
/// live rows once made every move copy them all).
#[test]
fn cursor_scrolls_compact_rarely() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.slog2");
    let mut w = Slog2Writer::create(&path, WriterOptions::default()).unwrap();
    for c in slog2_dev::synth::categories() {
        w.add_category(c).unwrap();
    }
    for d in slog2_dev::synth::Synthetic::new(60_000, 16, 3) {
        w.add_drawable(d).unwrap();
    }
    w.finish().unwrap();
    let f = Slog2File::open(&path).unwrap();
    let tb = f.total_time();
    // ~1,000 rows a window, a quarter window a move, 160 moves.
    let width = (tb.end - tb.start) / 60.0;
    let mut cur = slog2::read::WindowCursor::new();
    let mut t0 = tb.start;
    let mut rows_seen = 0;
    for _ in 0..160 {
        let rows = cur.move_to(&f, t0, t0 + width).unwrap();
        rows_seen += rows.len();
        t0 += width / 4.0;
    }
    assert!(rows_seen / 160 > 500, "windows of {} rows", rows_seen / 160);
    // 160 moves of ~250 rows: ~40,000 rows past, a compaction per ~2,048
    // dead rows (the default), not one per move.
    assert!(
        cur.compactions() <= 30,
        "{} compactions in 160 moves",
        cur.compactions()
    );
}
