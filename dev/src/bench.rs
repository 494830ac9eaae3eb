//! The window-query benchmark behind `slog2 bench query` (issue #15).
//!
//! # What it measures and why this way
//!
//! A viewer makes two kinds of window queries: **jumps** (a ~1,000-drawable
//! window anywhere in the file) and **scrolls** (the same width moved by a
//! quarter of a window at a time). [`plan`] draws both sequences from a fixed
//! seed, with a width calibrated so that windows hold about `target`
//! drawables, [`warmup`] a shorter sequence of both from another seed, and
//! [`write_plan`] writes them to a text file (`W|J|S t0 t1` per line) that
//! both sides of the comparison with the reference replay line by line
//! (`crate::replay`; the reference's harness is
//! `java/bench/reference/RefPlan.java`). Here, each query is
//! [`Slog2File::window_rows`] — the columns `SLOG2_Query_window` copies out
//! — timed one by one; we report p50/p99 per kind, rows per query and the
//! query's own stats: bytes decoded (`bytes_read`) against the bytes of the
//! records returned, and node bytes walked on cache misses
//! (`bytes_indexed`). [`run_cursor`] runs the same plan as a viewer's moves
//! of one [`WindowCursor`](crate::read::WindowCursor) (each timed step
//! leaves the whole window's columns available). The other figures the issue asks for: whole-file
//! previews at every depth, threads on one file and on separate opens, and
//! RSS over many random jumps (the bounded cache).

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use crate::error::{Error, Result};
use crate::read::Slog2File;

/// Kind of a planned query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Jump,
    Scroll,
    /// A warm-up window: moved to, never timed.
    Warm,
}

/// One planned window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Planned {
    pub kind: Kind,
    pub t0: f64,
    pub t1: f64,
}

/// SplitMix64: a tiny, reproducible generator (the Java side reads the plan,
/// so it needs none).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A window width that holds about `target` drawables on average (three
/// rounds of probing 16 random positions and scaling).
pub fn calibrate_width(f: &Slog2File, target: usize, seed: u64) -> Result<f64> {
    let tb = f.total_time();
    let span = tb.duration();
    if span.is_nan() || span <= 0.0 {
        return Ok(0.0);
    }
    let mut rng = Rng(seed ^ 0xC0FFEE);
    let mut width = span * 1e-4;
    for _ in 0..3 {
        let mut n = 0usize;
        for _ in 0..16 {
            let t0 = tb.start + (span - width).max(0.0) * rng.unit();
            n += f.window_rows(t0, t0 + width)?.len();
        }
        let mean = (n as f64 / 16.0).max(1.0);
        width = (width * target as f64 / mean).min(span);
    }
    Ok(width)
}

/// `jumps` random windows, then `scrolls` windows moving forward by a
/// quarter of the width (wrapping to a random place at the end of the file).
pub fn plan(f: &Slog2File, width: f64, jumps: usize, scrolls: usize, seed: u64) -> Vec<Planned> {
    let tb = f.total_time();
    let room = (tb.duration() - width).max(0.0);
    let mut rng = Rng(seed);
    let mut v = Vec::with_capacity(jumps + scrolls);
    for _ in 0..jumps {
        let t0 = tb.start + room * rng.unit();
        v.push(Planned {
            kind: Kind::Jump,
            t0,
            t1: t0 + width,
        });
    }
    let mut t0 = tb.start + room * rng.unit();
    for _ in 0..scrolls {
        if t0 > tb.start + room {
            t0 = tb.start + room * rng.unit();
        }
        v.push(Planned {
            kind: Kind::Scroll,
            t0,
            t1: t0 + width,
        });
        t0 += width / 4.0;
    }
    v
}

/// Warm-up windows for a replay: `n` random jumps, then `n` scrolls from
/// another random place, all of kind [`Kind::Warm`] (drawn from `seed`
/// mixed with a constant, so they are not the timed plan's windows).
pub fn warmup(f: &Slog2File, width: f64, n: usize, seed: u64) -> Vec<Planned> {
    let mut v = plan(f, width, n, n, seed ^ 0x5741_524D);
    for p in &mut v {
        p.kind = Kind::Warm;
    }
    v
}

/// Write a plan as `W|J|S t0 t1` lines, in order (times with 17 significant
/// digits, so the Java side parses the same doubles).
pub fn write_plan(path: &Path, plan: &[Planned]) -> Result<()> {
    let io = |e| Error::io(path, e);
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).map_err(io)?);
    for p in plan {
        let k = match p.kind {
            Kind::Jump => 'J',
            Kind::Scroll => 'S',
            Kind::Warm => 'W',
        };
        writeln!(out, "{k} {:.17e} {:.17e}", p.t0, p.t1).map_err(io)?;
    }
    out.flush().map_err(io)
}

/// Latency percentiles of one kind of query, in microseconds.
#[derive(Debug, Clone, Copy, Default)]
pub struct Latency {
    pub count: usize,
    pub p50_us: f64,
    pub p99_us: f64,
    pub rows_per_query: f64,
    /// Bytes of drawable records decoded per query (`stats.bytes_read`).
    pub decoded_per_query: f64,
    /// Bytes of the records returned, tag included (computed from the rows).
    pub returned_per_query: f64,
    /// Node bytes walked to build tables on cache misses, per query.
    pub indexed_per_query: f64,
    pub nodes_per_query: f64,
}

/// The `q` quantile of sorted values (nearest rank).
pub(crate) fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// On-disk bytes of the records behind `rows` (tag + category + info length
/// + info + vertex count + 12 per vertex; composite members without tag).
fn returned_bytes(rows: crate::read::RowsRef<'_>) -> u64 {
    use crate::read::{ROW_COMPOSITE, ROW_PRIMITIVE};
    let mut b = 0u64;
    for i in 0..rows.len() {
        let info = rows.info_of(i).len() as u64;
        match rows.kind[i] {
            ROW_COMPOSITE => b += 1 + 4 + 2 + info + 2,
            ROW_PRIMITIVE => {
                let nv = if rows.time0[i] == rows.time1[i] && rows.line0[i] == rows.line1[i] {
                    1
                } else {
                    2
                };
                let tag = if rows.parent[i] >= 0 { 0 } else { 1 };
                b += tag + 8 + info + 12 * nv;
            }
            _ => {}
        }
    }
    b
}

/// Run a plan's jumps and scrolls, each a fresh query, timed one by one
/// (warm-up lines are skipped: this is the cold-cache figure).
pub fn run(f: &Slog2File, plan: &[Planned]) -> Result<(Latency, Latency)> {
    let mut out = [Latency::default(), Latency::default()];
    let mut times: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    for p in plan.iter().filter(|p| p.kind != Kind::Warm) {
        let k = (p.kind == Kind::Scroll) as usize;
        let t = Instant::now();
        let rows = f.window_rows(p.t0, p.t1)?;
        times[k].push(t.elapsed().as_secs_f64() * 1e6);
        let l = &mut out[k];
        l.count += 1;
        l.rows_per_query += rows.len() as f64;
        l.decoded_per_query += rows.stats.bytes_read as f64;
        l.returned_per_query += returned_bytes(rows.view()) as f64;
        l.indexed_per_query += rows.stats.bytes_indexed as f64;
        l.nodes_per_query += rows.stats.nodes_read as f64;
    }
    finish(&mut out, &mut times);
    Ok((out[0], out[1]))
}

/// What reading tree nodes with `pread` instead of the map would add to a
/// plan's queries (issue #27 class 2: the guarded mapping was chosen by
/// this figure): for each window, every node whose box intersects it (the
/// nodes a query reads) is read with `pread` into one reused buffer, timed
/// per window. A pread reader would do at least this before decoding (the
/// map does none of it), unless it cached node bytes. Jumps then scrolls,
/// as [`run`] (warm-up lines skipped).
pub fn pread_cost(f: &Slog2File, path: &Path, plan: &[Planned]) -> Result<(Latency, Latency)> {
    use std::os::unix::fs::FileExt;
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut buf = vec![0u8; 1 << 16];
    let mut out = [Latency::default(), Latency::default()];
    let mut times: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    for p in plan.iter().filter(|p| p.kind != Kind::Warm) {
        let k = (p.kind == Kind::Scroll) as usize;
        let w = crate::model::TimeBox::new(p.t0, p.t1);
        let t = Instant::now();
        let (mut nodes, mut bytes) = (0usize, 0u64);
        for e in f.directory() {
            if e.time_box.overlaps(&w) {
                let n = e.ptr.size.max(0) as usize;
                if buf.len() < n {
                    buf.resize(n, 0);
                }
                file.read_exact_at(&mut buf[..n], e.ptr.offset.max(0) as u64)
                    .map_err(|e| Error::io(path, e))?;
                nodes += 1;
                bytes += n as u64;
            }
        }
        times[k].push(t.elapsed().as_secs_f64() * 1e6);
        let l = &mut out[k];
        l.count += 1;
        l.nodes_per_query += nodes as f64;
        l.decoded_per_query += bytes as f64;
    }
    finish(&mut out, &mut times);
    Ok((out[0], out[1]))
}

/// Run a plan through one [`WindowCursor`](crate::read::WindowCursor), as a
/// viewer moves: each timed step is `move_to`, after which the whole
/// window's columns are available (`rows()`). A jump (no overlap with the
/// previous window) is a fresh query; a scroll keeps the rows still in the
/// window and decodes the entering records only, so `decoded_per_query` is
/// the bytes decoded by the move and `returned_per_query` the bytes of the
/// whole window it leaves available.
pub fn run_cursor(f: &Slog2File, plan: &[Planned]) -> Result<(Latency, Latency)> {
    let mut cur = crate::read::WindowCursor::new();
    let mut out = [Latency::default(), Latency::default()];
    let mut times: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    for p in plan.iter().filter(|p| p.kind != Kind::Warm) {
        let k = (p.kind == Kind::Scroll) as usize;
        let t = Instant::now();
        let rows = cur.move_to(f, p.t0, p.t1)?;
        times[k].push(t.elapsed().as_secs_f64() * 1e6);
        let l = &mut out[k];
        l.count += 1;
        l.rows_per_query += rows.len() as f64;
        l.decoded_per_query += rows.stats.bytes_read as f64;
        l.returned_per_query += returned_bytes(rows) as f64;
        l.indexed_per_query += rows.stats.bytes_indexed as f64;
        l.nodes_per_query += rows.stats.nodes_read as f64;
    }
    finish(&mut out, &mut times);
    Ok((out[0], out[1]))
}

fn finish(out: &mut [Latency; 2], times: &mut [Vec<f64>; 2]) {
    for (l, t) in out.iter_mut().zip(times.iter_mut()) {
        t.sort_by(f64::total_cmp);
        let n = (l.count.max(1)) as f64;
        l.p50_us = percentile(t, 0.5);
        l.p99_us = percentile(t, 0.99);
        l.rows_per_query /= n;
        l.decoded_per_query /= n;
        l.returned_per_query /= n;
        l.indexed_per_query /= n;
        l.nodes_per_query /= n;
    }
}

/// Whole-file preview at every depth from the root down to 1: (depth,
/// median ms of 5, rows, nodes read). The first call at each depth is not
/// timed (it fills the cache, as a viewer's first frame does).
pub fn preview_sweep(f: &Slog2File) -> Result<Vec<(i16, f64, usize, usize)>> {
    let tb = f.total_time();
    let mut v = Vec::new();
    for depth in (1..=f.root_depth().max(1)).rev() {
        let first = f.preview_rows(tb.start, tb.end, depth as i32)?;
        let mut ts = Vec::new();
        for _ in 0..5 {
            let t = Instant::now();
            let r = f.preview_rows(tb.start, tb.end, depth as i32)?;
            ts.push(t.elapsed().as_secs_f64() * 1e3);
            std::hint::black_box(r.len());
        }
        ts.sort_by(f64::total_cmp);
        v.push((depth, ts[2], first.len(), first.stats.nodes_read));
    }
    Ok(v)
}

/// Queries per second of `threads` threads each running `plan` on one
/// shared file, and on `threads` separate opens of `path`.
pub fn threads(path: &Path, plan: &[Planned], threads: usize) -> Result<(f64, f64)> {
    let shared = Slog2File::open(path)?;
    let files = (0..threads)
        .map(|_| Slog2File::open(path))
        .collect::<Result<Vec<_>>>()?;
    let go = |picks: Vec<&Slog2File>| -> Result<f64> {
        let t = Instant::now();
        std::thread::scope(|s| {
            let hs: Vec<_> = picks
                .into_iter()
                .enumerate()
                .map(|(i, f)| {
                    s.spawn(move || -> Result<()> {
                        for j in 0..plan.len() {
                            let p = &plan[(j + i * 7) % plan.len()];
                            std::hint::black_box(f.window_rows(p.t0, p.t1)?.len());
                        }
                        Ok(())
                    })
                })
                .collect();
            for h in hs {
                h.join()
                    .map_err(|_| Error::InvalidArgument("bench thread panicked".into()))??;
            }
            Ok::<(), Error>(())
        })?;
        Ok((threads * plan.len()) as f64 / t.elapsed().as_secs_f64())
    };
    let a = go(vec![&shared; threads])?;
    let b = go(files.iter().collect())?;
    Ok((a, b))
}

/// Resident set size in KiB: (all, anonymous). The mapped file's pages are
/// in the first (the OS may drop them at will), the heap — caches included —
/// in the second. Linux `/proc/self/status`; 0 elsewhere.
pub fn rss_kib() -> (u64, u64) {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| -> u64 {
        s.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("RssAnon:"))
}

/// RSS (KiB) after every `every` of `n` random jumps of `width`.
pub fn rss_over_jumps(
    f: &Slog2File,
    width: f64,
    n: usize,
    every: usize,
    seed: u64,
) -> Result<Vec<(usize, (u64, u64))>> {
    let p = plan(f, width, n, 0, seed);
    let mut v = vec![(0, rss_kib())];
    for (i, q) in p.iter().enumerate() {
        std::hint::black_box(f.window_rows(q.t0, q.t1)?.len());
        if (i + 1) % every.max(1) == 0 {
            v.push((i + 1, rss_kib()));
        }
    }
    Ok(v)
}
