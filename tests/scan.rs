//! The whole-file scan (`Slog2File::scan`) against brute force: every
//! drawable of the file exactly once, with the same row values a window
//! over everything gives, whatever the batch limits, mapped or in memory.
//!
//! * random drawable sets written with random tree shapes: the scan's
//!   drawables are the input multiset, and its rows (composites with their
//!   members) are the rows of `window_rows(-inf, inf)`;
//! * batches of any row/info limit concatenate to the same rows in the same
//!   order (a record is never split, the first record of a batch may exceed
//!   the limits);
//! * every SLOG-2 fixture in `../shared/fixtures`;
//! * a file large enough to be memory-mapped and read with several `pread`
//!   chunks gives the same rows as the same bytes held in memory;
//! * a damaged node fails the scan once, then the scan is over.

mod common;

use proptest::prelude::*;
use slog2::read::{Rows, ROW_COMPOSITE, ROW_PRIMITIVE};
use slog2::*;

/// The shared test categories, the composite's with an info format.
fn cats() -> Vec<Category> {
    let mut v = common::drawables::cats();
    v[4].info = InfoFormat::parse("n=%d").unwrap();
    v
}

/// One random drawable (times on a 1/64 grid: ties and zero lengths are
/// common; backward arrows; composites with info).
fn drawable() -> impl Strategy<Value = Drawable> {
    let t = || (0u32..2000).prop_map(|x| x as f64 / 64.0);
    let line = || 0i32..6;
    let state = (t(), 0u32..200, line(), 1i32..3)
        .prop_map(|(s, d, l, c)| Primitive::state(c, l, s, s + d as f64 / 64.0));
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
    let prim = prop_oneof![4 => state, 2 => arrow, 1 => event];
    let composite = (proptest::collection::vec(prim.clone(), 1..6), any::<i32>()).prop_map(
        |(mut members, n)| {
            members.sort_by(Primitive::drawing_cmp);
            Drawable::Composite(Composite {
                category: 5,
                info: n.to_be_bytes().as_slice().into(),
                members,
            })
        },
    );
    prop_oneof![6 => prim.prop_map(Drawable::Primitive), 1 => composite]
}

/// One row as comparable values (f64 as bits: NaN-safe, exact).
type RowKey = (u8, i32, [u64; 4], i32, i32, i64, Vec<u8>);

/// The records of `r`: each top-level row with its member rows (a member's
/// parent must be the record's first row).
fn records(r: &Rows) -> Vec<Vec<RowKey>> {
    let mut out: Vec<Vec<RowKey>> = Vec::new();
    let mut head = 0usize;
    for i in 0..r.len() {
        let k = (
            r.kind[i],
            r.category[i],
            [
                r.start[i].to_bits(),
                r.end[i].to_bits(),
                r.time0[i].to_bits(),
                r.time1[i].to_bits(),
            ],
            r.line0[i],
            r.line1[i],
            r.num_real[i],
            r.info_of(i).to_vec(),
        );
        if r.parent[i] >= 0 {
            assert_eq!(r.parent[i] as usize, head, "member row {i}");
            assert_eq!(r.kind[head], ROW_COMPOSITE);
            assert_eq!(r.kind[i], ROW_PRIMITIVE);
            out.last_mut().expect("member after its composite").push(k);
        } else {
            head = i;
            out.push(vec![k]);
        }
    }
    for rec in &out {
        if rec[0].0 == ROW_COMPOSITE {
            assert_eq!(rec[0].5 as usize, rec.len() - 1, "members of {rec:?}");
        }
    }
    out
}

fn sorted<T: Ord>(mut v: Vec<T>) -> Vec<T> {
    v.sort();
    v
}

/// The scan in batches of at most `max_rows` rows and `max_info` info bytes,
/// concatenated; checks each batch's limits and stats.
fn scan_batched(f: &Slog2File, max_rows: usize, max_info: usize) -> Rows {
    let mut scan = f.scan();
    let mut all = Rows::default();
    let mut batch = Rows::default();
    let mut nodes = 0;
    while scan.next_into(&mut batch, max_rows, max_info).unwrap() {
        assert!(!batch.is_empty());
        let first_record_rows = 1 + if batch.kind[0] == ROW_COMPOSITE {
            batch.num_real[0] as usize
        } else {
            0
        };
        if batch.len() > max_rows.max(first_record_rows) || batch.info.len() > max_info {
            // Only a batch of one record may exceed the limits.
            assert_eq!(batch.len(), first_record_rows, "batch over the limits");
        }
        nodes += batch.stats.nodes_read;
        all.append(&batch);
    }
    assert!(batch.is_empty());
    assert!(!scan.next_into(&mut batch, max_rows, max_info).unwrap());
    assert!(nodes <= f.directory().len());
    assert_eq!(scan.progress(), (f.directory().len(), f.directory().len()));
    all
}

/// Scan == window over everything (as row records), and batching does not
/// change the rows or their order.
fn check_file(f: &Slog2File) {
    let scan = f.scan_rows().unwrap();
    let window = f.window_rows(f64::NEG_INFINITY, f64::INFINITY).unwrap();
    assert_eq!(
        sorted(records(&scan)),
        sorted(records(&window)),
        "scan vs window over everything"
    );
    for (rows, info) in [(1, usize::MAX), (3, 5), (0, 0), (7, 64), (1000, 3)] {
        let b = scan_batched(f, rows, info);
        assert_eq!(
            records(&b),
            records(&scan),
            "batches of {rows} rows / {info} bytes"
        );
    }
}

/// Drawables rebuilt from rows (events one vertex, everything else two: true
/// of what these tests write).
fn drawables_of(r: &Rows) -> Vec<String> {
    let prim = |i: usize| {
        let mut v = vec![Vertex::new(r.time0[i], r.line0[i])];
        if r.category[i] != 4 {
            v.push(Vertex::new(r.time1[i], r.line1[i]));
        }
        Primitive::new(r.category[i], v, r.info_of(i))
    };
    let mut out: Vec<Drawable> = Vec::new();
    for i in 0..r.len() {
        if r.kind[i] == ROW_COMPOSITE {
            out.push(Drawable::Composite(Composite {
                category: r.category[i],
                info: r.info_of(i).into(),
                members: Vec::new(),
            }));
        } else if r.parent[i] >= 0 {
            if let Some(Drawable::Composite(c)) = out.last_mut() {
                c.members.push(prim(i));
            }
        } else {
            out.push(Drawable::Primitive(prim(i)));
        }
    }
    sorted(out.iter().map(|d| format!("{d:?}")).collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    #[test]
    fn scan_equals_brute_force(
        mut ds in proptest::collection::vec(drawable(), 1..400),
        leaf in prop_oneof![Just(512i32), Just(1024), Just(4096), 512i32..8192],
        nc in 2i16..5,
        max_rows in 0usize..40,
        max_info in 0usize..100,
        (ra, rlen) in (0u32..2400, 0u32..900),
    ) {
        ds.sort_by(|a, b| a.time_box().end.total_cmp(&b.time_box().end));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.slog2");
        let mut w = Slog2Writer::create(&path, WriterOptions {
            children_per_node: nc, leaf_bytesize: leaf, ..Default::default()
        }).unwrap();
        for c in cats() { w.add_category(c).unwrap(); }
        for d in &ds { w.add_drawable(d.clone()).unwrap(); }
        w.finish().unwrap();
        let f = Slog2File::open(&path).unwrap();
        let scan = f.scan_rows().unwrap();
        // Each input drawable exactly once.
        prop_assert_eq!(
            drawables_of(&scan),
            sorted(ds.iter().map(|d| format!("{d:?}")).collect())
        );
        check_file(&f);
        let b = scan_batched(&f, max_rows, max_info);
        prop_assert_eq!(records(&b), records(&scan));
        // A time range: exactly the records whose end lies in it.
        let (t0, t1) = (ra as f64 / 64.0, (ra + rlen) as f64 / 64.0);
        let mut range = f.scan_range(t0, t1).unwrap();
        let (mut got, mut batch) = (Rows::default(), Rows::default());
        while range.next_into(&mut batch, max_rows, max_info).unwrap() {
            got.append(&batch);
        }
        let want: Vec<Vec<RowKey>> = records(&scan)
            .into_iter()
            .filter(|r| {
                let end = f64::from_bits(r[0].2[1]);
                end >= t0 && end <= t1
            })
            .collect();
        prop_assert_eq!(sorted(records(&got)), sorted(want));
        // The counts, by their definitions (slog2::read::counts).
        let c = f.counts().unwrap();
        let comps: Vec<usize> = ds.iter().filter_map(|d| match d {
            Drawable::Composite(c) => Some(c.members.len()),
            _ => None,
        }).collect();
        prop_assert_eq!(c.drawables as usize, ds.len());
        prop_assert_eq!(c.composites as usize, comps.len());
        prop_assert_eq!(c.members as usize, comps.iter().sum::<usize>());
        prop_assert_eq!(c.rows() as usize, scan.len());
        for cc in &c.by_category {
            let top = ds.iter().filter(|d| d.category() == cc.index).count() as u64;
            let mem = ds.iter().map(|d| match d {
                Drawable::Composite(c) => c.members.iter().filter(|m| m.category == cc.index).count(),
                _ => 0,
            }).sum::<usize>() as u64;
            prop_assert_eq!((cc.drawables, cc.members), (top, mem), "category {}", cc.index);
        }
    }
}

#[test]
fn a_range_with_nan_or_reversed_bounds_is_refused() {
    let f = Slog2File::open(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/fixtures/trace-sample/data.slog2"),
    )
    .unwrap();
    for (a, b) in [(f64::NAN, 1.0), (0.0, f64::NAN), (2.0, 1.0)] {
        let e = f.scan_range(a, b).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
    }
    // data.slog2: 9 drawables (3 composites with 14 members), stored
    // category counts 0 for the composite category (the reference's).
    let c = f.counts().unwrap();
    assert_eq!(
        c.summary(),
        "9 drawables (3 composites with 14 members), 20 primitives, 23 rows"
    );
    let uc = c.category(183).unwrap();
    assert_eq!((uc.drawables, uc.members, uc.stored), (3, 0, Some(0)));
    let send = c.category(81).unwrap();
    assert_eq!((send.drawables, send.members, send.stored), (0, 2, Some(2)));
    let stored: i64 = c.by_category.iter().filter_map(|c| c.stored).sum();
    assert_eq!(stored as u64, c.primitives());
}

fn fixtures(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            fixtures(&p, out);
        } else if p.extension().is_some_and(|x| x == "slog2") {
            out.push(p);
        }
    }
}

#[test]
fn scan_equals_window_on_every_fixture() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures");
    let mut files = Vec::new();
    fixtures(&root, &mut files);
    assert!(
        files.len() >= 10,
        "fixtures missing under {}",
        root.display()
    );
    let mut checked = 0;
    for p in &files {
        // Some fixtures are damaged on purpose: those must fail to open or
        // fail the same way in both paths.
        let Ok(f) = Slog2File::open(p) else { continue };
        match (
            f.scan_rows(),
            f.window_rows(f64::NEG_INFINITY, f64::INFINITY),
        ) {
            (Ok(_), Ok(_)) => {
                check_file(&f);
                checked += 1;
            }
            (Err(_), Err(_)) => {}
            (s, w) => panic!(
                "{}: scan {:?} but window {:?}",
                p.display(),
                s.map(|r| r.len()),
                w.map(|r| r.len())
            ),
        }
    }
    assert!(checked >= 10, "only {checked} fixtures checked");
}

#[test]
fn mapped_and_in_memory_scans_agree_over_many_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.slog2");
    let mut w = Slog2Writer::create(
        &path,
        WriterOptions {
            leaf_bytesize: 4096,
            ..Default::default()
        },
    )
    .unwrap();
    for c in slog2_dev::synth::categories() {
        w.add_category(c).unwrap();
    }
    let n = 300_000;
    for d in slog2_dev::synth::Synthetic::new(n, 16, 3) {
        w.add_drawable(d).unwrap();
    }
    w.finish().unwrap();
    let len = std::fs::metadata(&path).unwrap().len();
    assert!(
        len > 16 << 20,
        "file of {len} bytes: want several 8 MiB reads"
    );
    let mapped = Slog2File::open(&path).unwrap();
    let owned = Slog2File::from_bytes(std::fs::read(&path).unwrap()).unwrap();
    let a = scan_batched(&mapped, 1 << 16, usize::MAX);
    let b = scan_batched(&owned, 1 << 16, usize::MAX);
    assert_eq!(a, b);
    let top = (0..a.len()).filter(|&i| a.parent[i] < 0).count();
    assert_eq!(top as u64, n);
    let window = mapped
        .window_rows(f64::NEG_INFINITY, f64::INFINITY)
        .unwrap();
    assert_eq!(sorted(records(&a)), sorted(records(&window)));
}

#[test]
fn a_damaged_node_fails_once_then_the_scan_is_over() {
    let f = Slog2File::open(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/fixtures/trace-sample/data.slog2"),
    )
    .unwrap();
    let mut bytes = f.as_bytes().to_vec();
    // Break the first record's tag of the first node in file order.
    let first = f
        .directory()
        .iter()
        .min_by_key(|e| e.ptr.offset)
        .copied()
        .unwrap();
    let mut walk_at = first.ptr.offset as usize + slog2::format::NODE_HEADER_SIZE;
    // nestless count (4 bytes) then the first record's tag, or the nestable
    // count when there is no nestless record.
    let nestless = i32::from_be_bytes(bytes[walk_at..walk_at + 4].try_into().unwrap());
    walk_at += 4;
    if nestless == 0 {
        walk_at += 4;
    }
    bytes[walk_at] = 7;
    let g = Slog2File::from_bytes(bytes).unwrap();
    let mut scan = g.scan();
    let mut rows = Rows::default();
    let e = scan.next_into(&mut rows, 100, usize::MAX).unwrap_err();
    assert!(e.to_string().contains("drawable tag 7"), "{e}");
    assert!(rows.is_empty());
    assert!(!scan.next_into(&mut rows, 100, usize::MAX).unwrap());
}
