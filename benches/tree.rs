//! Criterion benches of the tree writer and the window query.
//!
//! Run: `cargo bench --bench tree`. Numbers and machine notes: BENCHMARKS.md.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use slog2::{Slog2File, Slog2Writer, WriterOptions};
use slog2_dev::synth::{categories, Synthetic};

fn write_file(path: &std::path::Path, n: u64) {
    let mut w = Slog2Writer::create(path, WriterOptions::default()).unwrap();
    for c in categories() {
        w.add_category(c).unwrap();
    }
    for d in Synthetic::new(n, 16, 1) {
        w.add_drawable(d).unwrap();
    }
    w.finish().unwrap();
}

fn bench_write(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let mut g = c.benchmark_group("write");
    g.sample_size(10);
    for n in [100_000u64, 1_000_000] {
        g.throughput(Throughput::Elements(n));
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            b.iter(|| write_file(&dir.path().join("w.slog2"), n));
        });
    }
    g.finish();
}

fn bench_window(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let mut g = c.benchmark_group("window");
    for n in [100_000u64, 1_000_000] {
        let path = dir.path().join(format!("q{n}.slog2"));
        write_file(&path, n);
        let f = Slog2File::open(&path).unwrap();
        // A fixed viewport: 1 ms of trace (~1000 drawables) in the middle.
        let mid = f.total_time().start + f.total_time().duration() / 2.0;
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| f.window(mid, mid + 1e-3).unwrap().drawables.len());
        });
    }
    g.finish();
}

/// Issue #15: `window_rows` (what `SLOG2_Query_window` copies out) on
/// ~1000-drawable windows — random jumps with the node cache warm or
/// disabled, and scrolls by a quarter window — the plan of `slog2 bench query`;
/// and the same scrolls as moves of a `WindowCursor`.
fn bench_window_rows(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let mut g = c.benchmark_group("window_rows");
    for n in [1_000_000u64] {
        let path = dir.path().join(format!("r{n}.slog2"));
        write_file(&path, n);
        let f = Slog2File::open(&path).unwrap();
        let width = slog2_dev::bench::calibrate_width(&f, 1000, 1).unwrap();
        let plan = slog2_dev::bench::plan(&f, width, 256, 256, 1);
        let (jumps, scrolls) = plan.split_at(256);
        for (name, windows, cache) in [
            ("jump", jumps, slog2::read::DEFAULT_CACHE_BYTES),
            ("jump-nocache", jumps, 0),
            ("scroll", scrolls, slog2::read::DEFAULT_CACHE_BYTES),
        ] {
            f.set_node_cache_limit(cache);
            let mut i = 0usize;
            g.bench_with_input(BenchmarkId::new(name, n), &n, |b, _| {
                b.iter(|| {
                    let p = &windows[i % windows.len()];
                    i += 1;
                    f.window_rows(p.t0, p.t1).unwrap().len()
                });
            });
        }
        // A viewer scrolling with a WindowCursor: each iteration is one
        // quarter-window move (the scroll plan cycles; its last window jumps
        // back to the first, a fresh query once per 256 moves).
        f.set_node_cache_limit(slog2::read::DEFAULT_CACHE_BYTES);
        let mut cur = slog2::read::WindowCursor::new();
        let mut i = 0usize;
        g.bench_with_input(BenchmarkId::new("cursor-scroll", n), &n, |b, _| {
            b.iter(|| {
                let p = &scrolls[i % scrolls.len()];
                i += 1;
                cur.move_to(&f, p.t0, p.t1).unwrap().len()
            });
        });
        g.bench_with_input(BenchmarkId::new("preview-root", n), &n, |b, _| {
            let tb = f.total_time();
            b.iter(|| f.preview_rows(tb.start, tb.end, 40).unwrap().len());
        });
    }
    g.finish();
}

criterion_group!(benches, bench_write, bench_window, bench_window_rows);
criterion_main!(benches);
