//! The statistics pass against its floor, in CPU-ns per drawable
//! (BENCHMARKS.md, "Statistics"): per round, the bare fold (decode every
//! record of the file, sum the durations: what any whole-file analysis
//! pays) and `Stats::compute` of the whole file (profile, matrix, idle: the
//! pass behind `SLOG2_Stats_open`). One warm-up round, then `REPS` rounds;
//! prints the median wall time of each and the user and system CPU they
//! used (the steadier figures on a loaded machine).
//!
//!     cargo run --release -p slog2-dev --example stats_floor -- FILE [REPS]
use slog2::analysis::{
    fold, Accumulator, PrimitiveRef, Range, Scope, Stats, StatsOptions, Visitor,
};
use slog2::read::Slog2File;

/// User and system seconds of this process (from /proc, 10 ms ticks).
fn cpu() -> (f64, f64) {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let rest = s.rsplit(')').next().unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let t = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    // Fields 14 and 15 of stat; `rest` starts at field 3.
    (t(11) / 100.0, t(12) / 100.0)
}

#[derive(Default)]
struct Sum {
    n: u64,
    d: f64,
}

impl Visitor for Sum {
    fn primitive(&mut self, p: &PrimitiveRef<'_>) {
        self.n += 1;
        self.d += p.end - p.start;
    }
}

impl Accumulator for Sum {
    fn merge(&mut self, o: Sum) {
        self.n += o.n;
        self.d += o.d;
    }
}

fn stage(name: &str, reps: usize, n: u64, mut f: impl FnMut()) {
    f();
    let (u0, s0) = cpu();
    let mut walls = Vec::new();
    for _ in 0..reps {
        let t = std::time::Instant::now();
        f();
        walls.push(t.elapsed().as_secs_f64());
    }
    let (u1, s1) = cpu();
    walls.sort_by(f64::total_cmp);
    let per = |x: f64| x / reps as f64 / n as f64 * 1e9;
    println!(
        "{name}: median {:.4} s ({:.1} M drawables/s), per drawable {:.1} CPU-ns = {:.1} user + {:.1} sys",
        walls[reps / 2],
        n as f64 / walls[reps / 2] / 1e6,
        per(u1 - u0 + s1 - s0),
        per(u1 - u0),
        per(s1 - s0)
    );
}

fn main() -> slog2::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).expect("usage: stats_floor FILE [REPS]");
    let reps: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(9);
    let f = Slog2File::open(path)?;
    let n = fold(&f, Range::all(), Sum::default)?.n;
    println!("{n} drawables");
    stage("fold (floor)", reps, n, || {
        std::hint::black_box(fold(&f, Range::all(), Sum::default).map(|s| s.d).ok());
    });
    let scope = Scope::whole(&f);
    let opts = StatsOptions::default();
    stage("Stats::compute", reps, n, || {
        std::hint::black_box(Stats::compute(&f, &scope, &opts).ok());
    });
    Ok(())
}
