//! Compressed tree nodes (`SLOG 2.0.Z`, issue 28): round trips.
//!
//! - plain -> compressed -> plain is byte-identical (through `convert`, the
//!   path `slog2 convert` takes), and compressed -> plain -> compressed too;
//! - every reader path gives the same answers on both files: windows,
//!   window rows, previews (rows and shadows), the cursor, the whole-file
//!   scan, `read_node` of every node, `check`, and the analyses (the
//!   statistics and both overviews walk unpacked nodes);
//! - (a damaged or hostile compressed node is a format error that names the
//!   node, never a panic or an allocation of what it declares; an inflated
//!   size beyond the declared size stops at once: in `tests/hostile.rs`,
//!   with the other hostile files);
//! - the reference tools refuse a compressed file with their own version
//!   message (when `SLOG2SDK_JARS` names the reference jars).

mod common;

use common::write_synthetic as write;

use std::path::Path;

use proptest::prelude::*;
use slog2::*;

/// `slog2 convert IN -o OUT [--compress=LEVEL]`.
fn convert(input: &Path, out: &Path, compress: Option<u32>) {
    let mut src = trace::open_source(input).unwrap();
    let opts = convert::ConvertOptions {
        writer: WriterOptions {
            compress,
            ..Default::default()
        },
        ..Default::default()
    };
    let f = Slog2File::open(input).unwrap();
    let opts = convert::ConvertOptions {
        writer: WriterOptions {
            children_per_node: f.header().num_children_per_node,
            leaf_bytesize: f.header().treeleaf_bytesize,
            ..opts.writer
        },
        ..opts
    };
    convert::convert(&mut *src, out, &opts, &mut |_| (), &mut |_| ()).unwrap();
}

/// One row's columns, times as bits (NaN-safe equality).
type RowBits = (u8, i32, u64, u64, u64, u64, i32, i32, i32, i64);

fn bits(r: &read::Rows) -> Vec<RowBits> {
    (0..r.len())
        .map(|i| {
            (
                r.kind[i],
                r.category[i],
                r.start[i].to_bits(),
                r.end[i].to_bits(),
                r.time0[i].to_bits(),
                r.time1[i].to_bits(),
                r.line0[i],
                r.line1[i],
                r.parent[i],
                r.num_real[i],
            )
        })
        .collect()
}

/// Every reader path answers the same on `a` (plain) and `b` (compressed).
fn same_answers(a: &Slog2File, b: &Slog2File, windows: &[(f64, f64)]) {
    assert!(!a.is_compressed() && b.is_compressed());
    assert_eq!(a.categories(), b.categories());
    assert_eq!(a.ycoordmaps(), b.ycoordmaps());
    assert_eq!(a.directory().len(), b.directory().len());
    for (ea, eb) in a.directory().iter().zip(b.directory()) {
        assert_eq!((ea.id, ea.time_box), (eb.id, eb.time_box));
        for parts in [format::NodeParts::All, format::NodeParts::Drawables] {
            let na = a.read_node(ea, parts).unwrap();
            let nb = b.read_node(eb, parts).unwrap();
            assert_eq!(na.nestless, nb.nestless);
            assert_eq!(na.nestable, nb.nestable);
            let stubs = |n: &format::Node| {
                n.stubs
                    .iter()
                    .map(|s| (s.entry.id, s.nestless.clone(), s.nestable.clone()))
                    .collect::<Vec<_>>()
            };
            assert_eq!(stubs(&na), stubs(&nb));
        }
    }
    let (sa, sb) = (a.scan_rows().unwrap(), b.scan_rows().unwrap());
    assert_eq!(bits(&sa), bits(&sb));
    assert_eq!(sa.info, sb.info);
    let mut ca = read::WindowCursor::new();
    let mut cb = read::WindowCursor::new();
    for &(t0, t1) in windows {
        let (wa, wb) = (a.window(t0, t1).unwrap(), b.window(t0, t1).unwrap());
        assert_eq!(wa.drawables, wb.drawables);
        let (ra, rb) = (
            a.window_rows(t0, t1).unwrap(),
            b.window_rows(t0, t1).unwrap(),
        );
        assert_eq!(bits(&ra), bits(&rb));
        assert_eq!(ra.info, rb.info);
        for depth in [1, 2, 4, 30] {
            let (pa, pb) = (
                a.preview(t0, t1, depth).unwrap(),
                b.preview(t0, t1, depth).unwrap(),
            );
            assert_eq!(pa.drawables, pb.drawables);
            assert_eq!(pa.shadows.len(), pb.shadows.len());
            let (ra, rb) = (
                a.preview_rows(t0, t1, depth as i32).unwrap(),
                b.preview_rows(t0, t1, depth as i32).unwrap(),
            );
            assert_eq!(bits(&ra), bits(&rb));
            assert_eq!(ra.weights, rb.weights);
        }
        let ra = ca.move_to(a, t0, t1).unwrap();
        let rb = cb.move_to(b, t0, t1).unwrap();
        assert_eq!(ra.kind, rb.kind);
        assert_eq!(ra.start, rb.start);
        assert_eq!(ra.line0, rb.line0);
        assert_eq!(ra.info, rb.info);
    }
    same_analyses(a, b);
    let (ka, kb) = (a.check(), b.check());
    assert!(kb.is_valid(), "{kb}");
    assert_eq!(
        (ka.nodes, ka.drawables, ka.shadows, ka.primitives),
        (kb.nodes, kb.drawables, kb.shadows, kb.primitives)
    );
}

/// Equal within float summation order: the parallel walks chunk nodes by
/// their stored sizes, which differ between the two files.
fn close(x: f64, y: f64) -> bool {
    x == y || (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1e-300)
}

/// The statistics and the overviews (cube and partition, temporal and
/// spatiotemporal) are the same on `a` (plain) and `b` (compressed).
fn same_analyses(a: &Slog2File, b: &Slog2File) {
    use slog2::analysis::{overview, CacheUse, OverviewSpec, PChoice, Scope, Stats};
    let opts = Default::default();
    let sa = Stats::compute(a, &Scope::whole(a), &opts).unwrap();
    let sb = Stats::compute(b, &Scope::whole(b), &opts).unwrap();
    assert_eq!(sa.comm, sb.comm);
    assert_eq!(sa.lines, sb.lines);
    assert_eq!(sa.by_line.len(), sb.by_line.len());
    for (x, y) in sa.by_line.iter().zip(&sb.by_line) {
        assert_eq!((x.line, x.category), (y.line, y.category));
        assert_eq!((x.cell.count, x.cell.timed), (y.cell.count, y.cell.timed));
        assert_eq!((x.cell.min, x.cell.max), (y.cell.min, y.cell.max));
        assert!(close(x.cell.inclusive, y.cell.inclusive), "{x:?} {y:?}");
        assert!(close(x.cell.exclusive, y.cell.exclusive), "{x:?} {y:?}");
    }
    for st in [None, Some(None)] {
        let spec = OverviewSpec {
            slices: 12,
            spatiotemporal: st,
            p: PChoice::Value(0.3),
            cache: CacheUse::Off,
            ..OverviewSpec::default()
        };
        let (oa, ob) = (overview(a, &spec).unwrap(), overview(b, &spec).unwrap());
        let (ca, cb) = (oa.cube.data(), ob.cube.data());
        assert_eq!(ca.len(), cb.len());
        assert!(ca.iter().zip(cb).all(|(x, y)| close(*x, *y)));
        let cut = |o: &slog2::analysis::Overview| {
            o.partition
                .parts
                .iter()
                .map(|p| (p.node, p.first, p.last))
                .collect::<Vec<_>>()
        };
        assert_eq!(cut(&oa), cut(&ob));
    }
}

fn windows(f: &Slog2File, n: usize, seed: u64) -> Vec<(f64, f64)> {
    let tb = f.total_time();
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let a = tb.start + tb.duration() * (x % 1000) as f64 / 1000.0;
            let w = tb.duration() * ((x >> 20) % 100) as f64 / 2000.0;
            (a, a + w)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// plain -> compressed -> plain and compressed -> plain -> compressed
    /// are byte-identical, and both files answer every query the same.
    #[test]
    fn round_trip_and_same_answers(
        n in 1u64..6000,
        seed in 0u64..1000,
        leaf in prop_oneof![Just(600), Just(2000), Just(65536)],
        nc in 2i16..5,
        level in 1u32..13,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("plain.slog2");
        let z = dir.path().join("z.slog2");
        let opts = WriterOptions { children_per_node: nc, leaf_bytesize: leaf, ..Default::default() };
        write(&p, n, seed, opts);
        let sz = write(&z, n, seed, WriterOptions { compress: Some(level), ..opts });
        prop_assert!(sz.plain_node_bytes > 0);
        let back = dir.path().join("back.slog2");
        convert(&z, &back, None);
        prop_assert!(std::fs::read(&back).unwrap() == std::fs::read(&p).unwrap(), "compressed -> plain differs");
        let again = dir.path().join("again.slog2");
        convert(&p, &again, Some(level));
        prop_assert!(std::fs::read(&again).unwrap() == std::fs::read(&z).unwrap(), "plain -> compressed differs");
        let (a, b) = (Slog2File::open(&p).unwrap(), Slog2File::open(&z).unwrap());
        let st = b.node_storage().unwrap();
        prop_assert_eq!(st.plain_bytes, a.node_storage().unwrap().stored_bytes);
        same_answers(&a, &b, &windows(&a, 6, seed));
    }
}

/// The reference fixtures (composites, events, info payloads of every kind,
/// 3- and 4-ary trees, empty leaves): compressed and back.
#[test]
fn fixtures_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let root = common::fixtures();
    let mut n = 0;
    for sub in ["slog2", "trace-sample", "clog2"] {
        for e in std::fs::read_dir(root.join(sub)).unwrap() {
            let src = e.unwrap().path();
            if src.extension().is_none_or(|x| x != "slog2") {
                continue;
            }
            // Our own plain rewrite is the reference point (the reference
            // writer's category order and ratios are its own).
            let p = dir.path().join("p.slog2");
            let z = dir.path().join("z.slog2");
            let back = dir.path().join("back.slog2");
            convert(&src, &p, None);
            convert(&p, &z, Some(6));
            convert(&z, &back, None);
            assert!(
                std::fs::read(&back).unwrap() == std::fs::read(&p).unwrap(),
                "{}",
                src.display()
            );
            let (a, b) = (Slog2File::open(&p).unwrap(), Slog2File::open(&z).unwrap());
            same_answers(&a, &b, &windows(&a, 4, 7));
            n += 1;
        }
    }
    assert!(n >= 10, "{n} fixtures");
}

/// The reference tools refuse a compressed file with their version message
/// and print no drawable (`SLOG2SDK_JARS=/path/to/jars` enables this).
#[test]
fn reference_tools_refuse_a_compressed_file() {
    let Some(jars) = std::env::var_os("SLOG2SDK_JARS") else {
        eprintln!("SLOG2SDK_JARS not set: reference check not run");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let z = common::compressed_synthetic(dir.path());
    let out = std::process::Command::new("java")
        .arg("-jar")
        .arg(Path::new(&jars).join("slog2printserial.jar"))
        .arg(&z)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("java");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!out.status.success(), "{text}");
    assert!(text.contains("Incompatible Version IDs"), "{text}");
    assert!(text.contains("SLOG 2.0.Z"), "{text}");
    assert!(!text.contains("Primitive["), "{text}");
}

/// The threads change no answer: on a compressed file, the whole-file scan
/// and window queries run from inside a rayon pool (where nothing is handed
/// to the pool: nodes are unpacked one by one, in place) return what they
/// return outside it (the scan unpacking ahead on the pool, windows
/// unpacking their uncached nodes at once). Each side opens the file anew,
/// so both start with a cold node cache.
#[test]
fn pool_and_in_place_unpacking_agree() {
    let dir = tempfile::tempdir().unwrap();
    let z = dir.path().join("z.slog2");
    let opts = WriterOptions {
        leaf_bytesize: 2000,
        compress: Some(6),
        ..Default::default()
    };
    write(&z, 30000, 11, opts);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let answers = || {
        let f = Slog2File::open(&z).unwrap();
        let mut all = vec![bits(&f.scan_rows().unwrap())];
        for (t0, t1) in windows(&f, 8, 3) {
            all.push(bits(&f.window_rows(t0, t1).unwrap()));
        }
        let tb = f.total_time();
        all.push(bits(&f.window_rows(tb.start, tb.end).unwrap()));
        all
    };
    let outside = answers();
    let inside = pool.install(answers);
    assert!(outside[0].len() >= 30000, "the scan returns every drawable");
    assert!(outside.iter().skip(1).any(|w| !w.is_empty()));
    assert_eq!(outside, inside);
}

/// Waiting on the pool never stalls: with every thread of rayon's global
/// pool blocked, a compressed file is still written, scanned and queried
/// (each job handed to the pool and not started when its turn comes is
/// taken back and run by the thread that waits for it).
#[test]
fn a_blocked_pool_does_not_stall_compressed_files() {
    use std::sync::{mpsc, Arc, Mutex};
    let dir = tempfile::tempdir().unwrap();
    let z = dir.path().join("z.slog2");
    let threads = rayon::current_num_threads();
    let (started_tx, started) = mpsc::channel();
    let (release, released) = mpsc::channel::<()>();
    let released = Arc::new(Mutex::new(released));
    for _ in 0..threads {
        let (s, r) = (started_tx.clone(), released.clone());
        rayon::spawn(move || {
            s.send(()).unwrap();
            let _ = r.lock().unwrap().recv();
        });
    }
    for _ in 0..threads {
        started.recv().unwrap();
    }
    let (done_tx, done) = mpsc::channel();
    let path = z.clone();
    std::thread::spawn(move || {
        let opts = WriterOptions {
            leaf_bytesize: 2000,
            compress: Some(6),
            ..Default::default()
        };
        write(&path, 20000, 5, opts);
        let f = Slog2File::open(&path).unwrap();
        let tb = f.total_time();
        let scanned = f.scan_rows().unwrap().len();
        let windowed = f.window_rows(tb.start, tb.end).unwrap().len();
        done_tx.send((scanned, windowed)).unwrap();
    });
    let r = done.recv_timeout(std::time::Duration::from_secs(120));
    drop(release);
    let (scanned, windowed) = r.expect("stalled while the pool was blocked");
    assert!(scanned >= 20000);
    assert_eq!(
        windowed, scanned,
        "the whole range's window holds every row"
    );
}
