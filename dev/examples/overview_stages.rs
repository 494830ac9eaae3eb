//! The stages of an overview past the cube, timed one by one on a cube
//! built once (BENCHMARKS.md, "Overview"): temporal qualities, one DP, the
//! p-curve; the same spatiotemporally. Prints the median wall time of
//! `REPS` runs of each and the process CPU seconds they used (the steadier
//! figure on a loaded machine).
//!
//!     cargo run --release -p slog2-dev --example overview_stages -- FILE SLICES HIERARCHY [REPS]
//!
//! `HIERARCHY`: a y-map title of the file, `fanout:K`, or `-` for
//! temporal only.
use slog2::analysis::{
    curve, Cube, CubeSpec, Hierarchy, Metric, SpatioTemporalQualities, TemporalQualities,
};
use slog2::read::Slog2File;

/// User + system seconds of this process (from /proc, 10 ms ticks).
fn cpu() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let rest = s.rsplit(')').next().unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let t = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    // Fields 14 and 15 of stat; `rest` starts at field 3.
    (t(11) + t(12)) / 100.0
}

fn stage<T>(name: &str, reps: usize, mut f: impl FnMut() -> T) -> T {
    let c0 = cpu();
    let mut walls = Vec::new();
    let mut out = None;
    for _ in 0..reps {
        let t = std::time::Instant::now();
        out = Some(f());
        walls.push(t.elapsed().as_secs_f64());
    }
    walls.sort_by(f64::total_cmp);
    println!(
        "{name:<40} median {:>9.4} s  min {:>9.4} s  CPU {:>8.4} s/run",
        walls[walls.len() / 2],
        walls[0],
        (cpu() - c0) / reps as f64
    );
    out.expect("reps >= 1")
}

fn main() -> slog2::Result<()> {
    let a: Vec<String> = std::env::args().collect();
    if a.len() < 4 {
        eprintln!("usage: overview_stages FILE SLICES HIERARCHY|- [REPS]");
        std::process::exit(2);
    }
    let f = Slog2File::open(&a[1])?;
    let n: usize = a[2].parse().expect("SLICES");
    let reps: usize = a.get(4).map_or(5, |r| r.parse().expect("REPS"));
    let cube = Cube::build(&f, &CubeSpec::new(n, Metric::Duration))?;
    println!(
        "cube: {} lines x {} slices x {} categories",
        cube.lines.len(),
        n,
        cube.categories.len()
    );
    let q = stage("temporal qualities", reps, || TemporalQualities::new(&cube))?;
    stage("temporal DP (p = 0.5)", reps, || q.best(0.5));
    let c = stage("temporal curve (0.001)", reps, || {
        curve(0.001, |p| q.best(p))
    });
    println!("  {} curve points", c.len());
    if a[3] != "-" {
        let h = Hierarchy::parse(Some(&a[3]), f.ycoordmaps(), &cube.lines)?;
        println!("hierarchy: {} nodes", h.len());
        let q = stage("spatiotemporal qualities", reps, || {
            SpatioTemporalQualities::new(&cube, h.clone())
        })?;
        let b = stage("spatiotemporal DP (p = 0.5)", reps, || q.best(0.5));
        println!("  {} parts", b.parts.len());
        let c = stage("spatiotemporal curve (0.001)", reps, || q.curve(0.001));
        println!("  {} curve points", c.len());
    }
    Ok(())
}
