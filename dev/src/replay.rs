//! The viewer replay behind `slog2 bench replay`: our half of the window
//! comparison with the reference reader (issue #25, "honest benchmarks").
//!
//! # Why a replay, and what "the same work" means here
//!
//! A comparison is only worth its ratio if both sides do the same work
//! inside their timers. So both sides read **one plan file** (written by
//! `slog2 bench plan`, see [`crate::bench::write_plan`]): `W` lines (the
//! warm-up), then the timed `J` (jump) and `S` (scroll) lines, all windows
//! of one width. Each side moves **one viewer state** through every line in
//! order, as a viewer would — ours a [`WindowCursor`], the reference's
//! harness (`java/bench/reference/RefPlan.java`) slog2sdk's `TreeTrunk`,
//! set up at the depth Jumpshot starts it at — and times each timed line in
//! one of two variants:
//!
//! * [`Variant::Update`]: the move alone (`WindowCursor::move_to`;
//!   `TreeTrunk.updateTimeWindow`). What each side's move leaves differs:
//!   ours leaves the whole window in columns (records entering it decoded,
//!   rows leaving it dropped); the reference's leaves the tree nodes the
//!   window needs in memory, and finds the window's drawables only when
//!   they are iterated. So this variant is each side's own "update" call,
//!   not equal work.
//! * [`Variant::Pass`]: the move, then **one pass over every row of the
//!   window**, reading the same fields on both sides — category, box start
//!   and end, first and last line — for every drawable, composite and
//!   composite member (the reference iterates nestable then nestless
//!   drawables with `iteratorOfAllDrawables`, as Jumpshot's canvas does, and
//!   descends into composites). This is the equal-work variant: after it,
//!   both sides have read every drawable a viewer draws. Both print the
//!   rows touched and an integer checksum of the touched fields (category +
//!   first line + last line), so a reader of the output can see that both
//!   touched the same rows.
//!
//! The warm-up is the same on both sides: every `W` line, untimed, through
//! the same state and with the variant's pass (so the JIT has compiled the
//! reference's paths and both sides' caches hold what a viewer that has been
//! used for a while holds). Both start from nothing held (an empty cursor;
//! the trunk as Jumpshot builds it at open).
//!
//! Per kind of line: wall-clock p50, p99 and mean of the lines, and the
//! thread's **CPU time** per line. The CPU clock is read only where the
//! kind of line changes and divided by the lines: on this project's VMs
//! one read of a thread CPU clock costs ~4 µs (a system call), more than a
//! scroll, so a read around every line would time the clock. The CPU figure
//! is immune to waiting for a core on a loaded machine, the wall figures are
//! not.

use std::path::Path;
use std::time::Instant;

use crate::bench::{Kind, Planned};
use crate::error::{Error, Result};
use crate::read::{RowsRef, Slog2File, WindowCursor, ROW_COMPOSITE};

/// What is timed per line (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// The move alone.
    Update,
    /// The move, then one pass over every row of the window.
    Pass,
}

impl Variant {
    /// The name both sides print (`variant=`).
    pub fn name(self) -> &'static str {
        match self {
            Variant::Update => "update",
            Variant::Pass => "pass",
        }
    }
}

/// The figures of one kind of line (jumps or scrolls) of a replay.
#[derive(Debug, Clone, Copy, Default)]
pub struct Replayed {
    pub count: usize,
    /// Wall clock per line, microseconds.
    pub p50_us: f64,
    pub p99_us: f64,
    pub mean_us: f64,
    /// The thread's CPU time per line, microseconds.
    pub cpu_us: f64,
    /// Rows in the window after each line (composite rows and members
    /// included), mean.
    pub rows: f64,
    /// [`Variant::Pass`]: rows touched, composites among them, and the
    /// checksum of the touched fields (summed over the kind's lines).
    pub touched: u64,
    pub composites: u64,
    pub sum: i64,
}

/// The calling thread's CPU time (user + system) in nanoseconds; 0 where
/// the clock is unavailable.
pub fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// One pass over every row: (rows, composites, checksum of category +
/// first line + last line, sum of box starts and ends). The sums are what
/// the pass returns, so no field read can be optimised away; the reference
/// harness computes the same ones.
pub fn touch(rows: RowsRef<'_>) -> (u64, u64, i64, f64) {
    let (mut comps, mut sum, mut times) = (0u64, 0i64, 0.0f64);
    for i in 0..rows.len() {
        comps += u64::from(rows.kind[i] == ROW_COMPOSITE);
        sum += i64::from(rows.category[i]) + i64::from(rows.line0[i]) + i64::from(rows.line1[i]);
        times += rows.start[i] + rows.end[i];
    }
    (rows.len() as u64, comps, sum, times)
}

/// Read a plan file (`W|J|S t0 t1` lines, as [`crate::bench::write_plan`]
/// writes them).
pub fn read_plan(path: &Path) -> Result<Vec<Planned>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let mut v = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.is_empty() {
            continue;
        }
        let bad = || {
            Error::InvalidArgument(format!(
                "{}:{}: expected `W|J|S t0 t1`, found {line:?}",
                path.display(),
                n + 1
            ))
        };
        let kind = match f[0] {
            "W" => Kind::Warm,
            "J" => Kind::Jump,
            "S" => Kind::Scroll,
            _ => return Err(bad()),
        };
        let (t0, t1) = match f[1..] {
            [a, b] => (
                a.parse::<f64>().map_err(|_| bad())?,
                b.parse::<f64>().map_err(|_| bad())?,
            ),
            _ => return Err(bad()),
        };
        v.push(Planned { kind, t0, t1 });
    }
    Ok(v)
}

/// Replay `plan` through one [`WindowCursor`] on `f`: the `W` lines untimed,
/// then every `J` and `S` line timed as `variant` says. Returns the figures
/// of the jumps and of the scrolls.
pub fn replay(f: &Slog2File, plan: &[Planned], variant: Variant) -> Result<[Replayed; 2]> {
    let pass = variant == Variant::Pass;
    let mut cur = WindowCursor::new();
    let mut warm_sum = 0i64;
    for p in plan.iter().filter(|p| p.kind == Kind::Warm) {
        let rows = cur.move_to(f, p.t0, p.t1)?;
        if pass {
            warm_sum = warm_sum.wrapping_add(touch(rows).2);
        }
    }
    std::hint::black_box(warm_sum);
    let mut out = [Replayed::default(), Replayed::default()];
    let mut times: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    let mut cpu_ns = [0u64; 2];
    let mut times_sum = 0.0f64;
    // The kind of the current run of lines, and the CPU clock at its start.
    let mut run: Option<(usize, u64)> = None;
    for p in plan.iter().filter(|p| p.kind != Kind::Warm) {
        let k = usize::from(p.kind == Kind::Scroll);
        if run.map(|(rk, _)| rk) != Some(k) {
            let now = thread_cpu_ns();
            if let Some((rk, c0)) = run {
                cpu_ns[rk] += now - c0;
            }
            run = Some((k, now));
        }
        let t = Instant::now();
        let rows = cur.move_to(f, p.t0, p.t1)?;
        let touched = pass.then(|| touch(rows));
        times[k].push(t.elapsed().as_secs_f64() * 1e6);
        let o = &mut out[k];
        o.count += 1;
        o.rows += rows.len() as f64;
        if let Some((n, comps, sum, ts)) = touched {
            o.touched += n;
            o.composites += comps;
            o.sum += sum;
            times_sum += ts;
        }
    }
    if let Some((rk, c0)) = run {
        cpu_ns[rk] += thread_cpu_ns() - c0;
    }
    std::hint::black_box(times_sum);
    for ((o, t), cpu) in out.iter_mut().zip(times.iter_mut()).zip(cpu_ns) {
        let n = o.count.max(1) as f64;
        t.sort_by(f64::total_cmp);
        o.p50_us = crate::bench::percentile(t, 0.5);
        o.p99_us = crate::bench::percentile(t, 0.99);
        o.mean_us = t.iter().sum::<f64>() / n;
        o.cpu_us = cpu as f64 / 1e3 / n;
        o.rows /= n;
    }
    Ok(out)
}

/// The `RESULT` line of one kind, in the format the reference harness
/// prints too (key=value fields; `-` where a figure does not apply).
pub fn result_line(side: &str, variant: Variant, kind: &str, r: &Replayed) -> String {
    let pass = variant == Variant::Pass;
    let opt = |v: String| if pass { v } else { "-".to_string() };
    format!(
        "RESULT side={side} variant={} kind={kind} n={} p50={:.2} p99={:.2} mean={:.2} cpu={:.2} rows={:.1} touched={} composites={} sum={}",
        variant.name(),
        r.count,
        r.p50_us,
        r.p99_us,
        r.mean_us,
        r.cpu_us,
        r.rows,
        opt(r.touched.to_string()),
        opt(r.composites.to_string()),
        opt(r.sum.to_string()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file() -> (tempfile::TempDir, Slog2File) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.slog2");
        let mut w = slog2::Slog2Writer::create(&p, Default::default()).unwrap();
        for c in crate::synth::categories() {
            w.add_category(c).unwrap();
        }
        for d in crate::synth::Synthetic::new(20_000, 8, 3) {
            w.add_drawable(d).unwrap();
        }
        w.finish().unwrap();
        let f = Slog2File::open(&p).unwrap();
        (dir, f)
    }

    /// The pass touches exactly the rows a fresh query returns, and both
    /// variants see the same windows; a written plan reads back the same.
    #[test]
    fn replay_touches_what_a_fresh_query_returns() {
        let (dir, f) = file();
        let width = crate::bench::calibrate_width(&f, 200, 1).unwrap();
        let mut plan = crate::bench::warmup(&f, width, 5, 9);
        plan.extend(crate::bench::plan(&f, width, 20, 30, 1));
        let path = dir.path().join("plan.txt");
        crate::bench::write_plan(&path, &plan).unwrap();
        let back = read_plan(&path).unwrap();
        assert_eq!(back, plan);
        let (mut rows, mut sum) = ([0usize; 2], [0i64; 2]);
        for p in plan.iter().filter(|p| p.kind != Kind::Warm) {
            let k = usize::from(p.kind == Kind::Scroll);
            let r = f.window_rows(p.t0, p.t1).unwrap();
            rows[k] += r.len();
            sum[k] += touch(r.view()).2;
        }
        let upd = replay(&f, &back, Variant::Update).unwrap();
        let pass = replay(&f, &back, Variant::Pass).unwrap();
        for k in 0..2 {
            assert_eq!(pass[k].count, [20, 30][k]);
            assert_eq!(pass[k].touched as usize, rows[k]);
            assert_eq!(pass[k].sum, sum[k]);
            assert_eq!(upd[k].rows, pass[k].rows);
            assert!(pass[k].p50_us <= pass[k].p99_us);
        }
        let line = result_line("ours", Variant::Update, "jump", &upd[0]);
        assert!(line.contains("variant=update kind=jump n=20 "), "{line}");
        assert!(line.ends_with("touched=- composites=- sum=-"), "{line}");
    }

    #[test]
    fn a_bad_plan_line_is_an_error_with_its_place() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("bad.txt");
        std::fs::write(&p, "J 1 2\nX 1 2\n").unwrap();
        let e = read_plan(&p).unwrap_err().to_string();
        assert!(e.contains("bad.txt:2"), "{e}");
        std::fs::write(&p, "S 1\n").unwrap();
        assert!(read_plan(&p).is_err());
    }
}
