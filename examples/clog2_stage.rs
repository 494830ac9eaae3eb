//! Times the CLOG2 stage of a conversion alone (reading, decoding and
//! matching records into drawables; no SLOG-2 writer), for BENCHMARKS.md:
//! `cargo run --release --example clog2_stage -- FILE.clog2 [ROUNDS]`.
//! Prints the drawables, records and the best CPU seconds (process CPU:
//! the stage runs on this one thread) per round.

use slog2::trace::{clog2::Clog2Source, Record, TraceSource};

fn cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

fn main() -> Result<(), slog2::Error> {
    let args: Vec<String> = std::env::args().collect();
    let path = std::path::Path::new(args.get(1).map_or("g1m.clog2", |s| s.as_str()));
    let rounds: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(3);
    let mut best = f64::INFINITY;
    for _ in 0..rounds {
        let t0 = cpu_seconds();
        let mut src = Clog2Source::open(path)?;
        let mut recs = Vec::new();
        let mut drawables = 0u64;
        loop {
            src.next_records(&mut recs)?;
            if recs.is_empty() {
                break;
            }
            drawables += recs
                .iter()
                .filter(|r| matches!(r, Record::Primitive(_)))
                .count() as u64;
            recs.clear();
        }
        let cpu = cpu_seconds() - t0;
        best = best.min(cpu);
        let c = src.counts();
        println!(
            "{} records, {drawables} drawables, {cpu:.3} CPU s ({:.1} ns/record)",
            c.records,
            cpu * 1e9 / c.records.max(1) as f64
        );
    }
    println!("best {best:.3} CPU s");
    Ok(())
}
