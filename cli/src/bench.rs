//! `slog2 bench`: the measurements behind BENCHMARKS.md (writer speed,
//! window queries and cursor moves, the plan and the replay of the
//! comparison with the reference reader, whole-file scans, a synthetic
//! CLOG2 log for the conversion benchmark).
//!
//! The plans, timers and RSS probes live in the `slog2-dev` crate
//! (`slog2_dev::bench`, `slog2_dev::synth`) so that the core's public API
//! carries no tooling; this file only parses options and prints figures.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Subcommand;
use slog2::read::Slog2File;
use slog2::WriterOptions;

use crate::{io_err, parse_size};

#[derive(Subcommand)]
pub(crate) enum Cmd {
    /// Write N synthetic drawables (16 ranks: states, nested and run-long states, messages, events)
    /// with the tree writer and report drawables/s. Run under `/usr/bin/time -v` for peak memory.
    Write {
        /// Number of drawables.
        n: u64,
        /// Output file (default: a temporary file, deleted afterwards).
        #[arg(short = 'o', long = "output")]
        output: Option<PathBuf>,
        #[arg(long = "nc", default_value_t = 2)]
        nc: i16,
        #[arg(long = "ls", default_value = "64k", value_parser = parse_size)]
        ls: i32,
        /// Compress the tree nodes (LEVEL 1-12, default 1, as `convert --compress`).
        #[arg(long, value_name = "LEVEL", num_args = 0..=1, require_equals = true,
              default_missing_value = "1", value_parser = clap::value_parser!(u32).range(1..=12))]
        compress: Option<u32>,
    },
    /// Write a synthetic CLOG2 (MPE) log of about N records on 64 ranks (nested states,
    /// ring messages, events) for the CLOG2 conversion benchmark.
    #[command(name = "clog2-gen")]
    Clog2Gen {
        /// Number of records (rounded up to whole iterations).
        n: u64,
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        #[arg(long, default_value_t = 64)]
        ranks: i32,
    },
    /// Window-query benchmark (issue #15): random jumps and scrolls to ~TARGET-drawable windows,
    /// p50/p99, bytes decoded vs returned; optionally previews, threads and RSS. See BENCHMARKS.md.
    Query {
        file: PathBuf,
        /// Drawables per window (the width is calibrated to this).
        #[arg(long, default_value_t = 1000)]
        target: usize,
        /// Window width in seconds (default: calibrated to --target).
        #[arg(long)]
        width: Option<f64>,
        /// Number of jumps (`--count` is the old spelling).
        #[arg(long, alias = "count", default_value_t = 300)]
        jumps: usize,
        #[arg(long, default_value_t = 300)]
        scrolls: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Also write the plan (`W|J|S t0 t1` lines, as `slog2 bench plan` does).
        #[arg(long)]
        plan_out: Option<PathBuf>,
        /// Warm-up jumps and as many scrolls written to --plan-out (not run here).
        #[arg(long, default_value_t = 1000)]
        warmup: usize,
        /// Node cache limit in bytes (k/m/g suffixes; default: SLOG2_NODE_CACHE_BYTES or 64m).
        #[arg(long, value_parser = parse_cache)]
        cache: Option<usize>,
        /// Also time whole-file previews at every depth.
        #[arg(long)]
        previews: bool,
        /// Also run the plan on N threads (one shared file, then N separate opens).
        #[arg(long, default_value_t = 0)]
        threads: usize,
        /// Also report RSS over this many random jumps.
        #[arg(long, default_value_t = 0)]
        rss_jumps: usize,
    },
    /// Write a replay plan (issue #25): WARMUP random jumps and WARMUP scrolls (`W` lines, never
    /// timed; 1,000 of each leave the reference's JIT compiling < 5 % of its timed lines' time), then JUMPS jumps (`J`) and SCROLLS quarter-window scrolls (`S`) of one
    /// ~TARGET-drawable width. `slog2 bench replay` and the reference's harness replay it.
    Plan {
        file: PathBuf,
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        #[arg(long, default_value_t = 1000)]
        target: usize,
        /// Window width in seconds (default: calibrated to --target).
        #[arg(long)]
        width: Option<f64>,
        #[arg(long, default_value_t = 300)]
        jumps: usize,
        #[arg(long, default_value_t = 300)]
        scrolls: usize,
        #[arg(long, default_value_t = 1000)]
        warmup: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Replay a plan through one window cursor, as a viewer moves (issue #25): the warm-up lines
    /// untimed, then per jump and scroll the move alone, or with --pass the move plus one pass
    /// over every row of the window. Prints one RESULT line per kind (the format the
    /// reference's harness java/bench/reference/RefPlan.java prints). See BENCHMARKS.md.
    Replay {
        file: PathBuf,
        plan: PathBuf,
        /// Time the move plus one pass over every row (category, box, first/last line).
        #[arg(long)]
        pass: bool,
        /// Node cache limit in bytes (k/m/g suffixes; default: SLOG2_NODE_CACHE_BYTES or 64m).
        #[arg(long, value_parser = parse_cache)]
        cache: Option<usize>,
    },
    /// Whole-file scan benchmark (issue #11): every drawable once, in batches of columns
    /// (`Slog2File::scan`); rows/s and RSS per round. Run under `/usr/bin/time -v` for CPU and
    /// peak memory. See BENCHMARKS.md.
    Scan {
        file: PathBuf,
        /// Rows per batch.
        #[arg(long, default_value_t = slog2::read::scan::DEFAULT_BATCH_ROWS)]
        batch: usize,
        /// Scans of the whole file (each from a fresh open).
        #[arg(long, default_value_t = 1)]
        rounds: usize,
    },
}

pub(crate) fn run(b: Cmd) -> Result<ExitCode, slog2::Error> {
    match b {
        Cmd::Write {
            n,
            output,
            nc,
            ls,
            compress,
        } => {
            let tmp = tempfile::tempdir().map_err(|e| io_err(Path::new("."), e))?;
            let out = output.unwrap_or_else(|| tmp.path().join("bench.slog2"));
            let t = std::time::Instant::now();
            let mut w = slog2::Slog2Writer::create(
                &out,
                WriterOptions {
                    children_per_node: nc,
                    leaf_bytesize: ls,
                    compress,
                    ..Default::default()
                },
            )?;
            for c in slog2_dev::synth::categories() {
                w.add_category(c)?;
            }
            for d in slog2_dev::synth::Synthetic::new(n, 16, 1) {
                w.add_drawable(d)?;
            }
            let s = w.finish()?;
            let secs = t.elapsed().as_secs_f64();
            println!(
                "wrote {} drawables in {:.3} s: {:.0} drawables/s; {} bytes, depth {}, {} nodes",
                s.drawables,
                secs,
                s.drawables as f64 / secs,
                s.bytes,
                s.depth,
                s.nodes
            );
        }
        Cmd::Clog2Gen { n, output, ranks } => {
            let t = std::time::Instant::now();
            let written = slog2::trace::clog2::gen::generate_file(&output, n, ranks)?;
            println!(
                "wrote {} CLOG2 records on {ranks} ranks to {} in {:.3} s",
                written,
                output.display(),
                t.elapsed().as_secs_f64()
            );
        }
        Cmd::Plan {
            file,
            output,
            target,
            width,
            jumps,
            scrolls,
            warmup,
            seed,
        } => {
            use slog2_dev::bench;
            let f = Slog2File::open(&file)?;
            let width = match width {
                Some(w) => w,
                None => bench::calibrate_width(&f, target, seed)?,
            };
            let mut plan = bench::warmup(&f, width, warmup, seed);
            plan.extend(bench::plan(&f, width, jumps, scrolls, seed));
            bench::write_plan(&output, &plan)?;
            println!(
                "PLAN {}: width {width:.6e} s, {} warm-up, {jumps} jumps, {scrolls} scrolls (seed {seed}) -> {}",
                file.display(),
                2 * warmup,
                output.display()
            );
        }
        Cmd::Replay {
            file,
            plan,
            pass,
            cache,
        } => {
            use slog2_dev::replay::{self, Variant};
            let plan = replay::read_plan(&plan)?;
            let f = Slog2File::open(&file)?;
            if let Some(c) = cache {
                f.set_node_cache_limit(c);
            }
            let variant = if pass { Variant::Pass } else { Variant::Update };
            let [j, s] = replay::replay(&f, &plan, variant)?;
            println!("{}", replay::result_line("ours", variant, "jump", &j));
            println!("{}", replay::result_line("ours", variant, "scroll", &s));
        }
        Cmd::Scan {
            file,
            batch,
            rounds,
        } => {
            for round in 1..=rounds {
                let t = std::time::Instant::now();
                let f = Slog2File::open(&file)?;
                let mut scan = f.scan();
                let mut rows = slog2::read::Rows::default();
                let (mut n, mut batches, mut bytes) = (0usize, 0usize, 0u64);
                let mut rss_max = (0, 0);
                while scan.next_into(&mut rows, batch, usize::MAX)? {
                    n += rows.len();
                    batches += 1;
                    bytes += rows.stats.bytes_read;
                    if batches % 16 == 0 {
                        let r = slog2_dev::bench::rss_kib();
                        rss_max = (rss_max.0.max(r.0), rss_max.1.max(r.1));
                    }
                }
                let secs = t.elapsed().as_secs_f64();
                println!(
                    "round {round}: {n} rows in {batches} batches, {bytes} record bytes, {secs:.3} s = {:.2} M rows/s; RSS max {} KiB (anon {} KiB)",
                    n as f64 / secs / 1e6,
                    rss_max.0,
                    rss_max.1
                );
            }
        }
        Cmd::Query {
            file,
            target,
            width,
            jumps,
            scrolls,
            seed,
            plan_out,
            warmup,
            cache,
            previews,
            threads,
            rss_jumps,
        } => {
            use slog2_dev::bench;
            let t = std::time::Instant::now();
            let f = Slog2File::open(&file)?;
            let open_ms = t.elapsed().as_secs_f64() * 1e3;
            if let Some(c) = cache {
                f.set_node_cache_limit(c);
            }
            let width = match width {
                Some(w) => w,
                None => bench::calibrate_width(&f, target, seed)?,
            };
            let plan = bench::plan(&f, width, jumps, scrolls, seed);
            if let Some(p) = &plan_out {
                let mut all = bench::warmup(&f, width, warmup, seed);
                all.extend_from_slice(&plan);
                bench::write_plan(p, &all)?;
            }
            println!(
                "{}: {} nodes, opened in {open_ms:.2} ms; window width {width:.6e} s",
                file.display(),
                f.directory().len()
            );
            let (j, s) = bench::run(&f, &plan)?;
            // The same plan through a WindowCursor (a viewer's moves), on a
            // second open of the file so its node cache starts cold too.
            let g = Slog2File::open(&file)?;
            if let Some(c) = cache {
                g.set_node_cache_limit(c);
            }
            let (cj, cs) = bench::run_cursor(&g, &plan)?;
            for (name, l) in [
                ("jump", j),
                ("scroll", s),
                ("cursor jump", cj),
                ("cursor scroll", cs),
            ] {
                println!(
                    "{name:13} n={} p50 {:.1} us p99 {:.1} us; {:.0} rows, {:.1} nodes; decoded {:.0} B, returned {:.0} B ({:.2}x), walked on misses {:.0} B per query",
                    l.count, l.p50_us, l.p99_us, l.rows_per_query, l.nodes_per_query,
                    l.decoded_per_query, l.returned_per_query,
                    l.decoded_per_query / l.returned_per_query.max(1.0),
                    l.indexed_per_query
                );
            }
            // Issue #27 class 2: what pread instead of the map would add
            // (directory walk + pread of every intersecting node).
            let (pj, ps) = bench::pread_cost(&f, &file, &plan)?;
            for (name, l) in [("pread jump", pj), ("pread scroll", ps)] {
                println!(
                    "{name:13} n={} p50 {:.1} us p99 {:.1} us; {:.1} nodes, {:.0} B read per query (not used: the alternative to the guarded map)",
                    l.count, l.p50_us, l.p99_us, l.nodes_per_query, l.decoded_per_query
                );
            }
            let c = f.node_cache_stats();
            println!(
                "node cache: {} tables, {} bytes of {} limit",
                c.entries, c.bytes, c.limit
            );
            if previews {
                for (d, ms, rows, nodes) in bench::preview_sweep(&f)? {
                    println!(
                        "preview whole file depth {d:3}: {ms:.3} ms, {rows} rows, {nodes} nodes"
                    );
                }
            }
            if threads > 0 {
                let (one, many) = bench::threads(&file, &plan, threads)?;
                let (s1, _) = bench::threads(&file, &plan, 1)?;
                println!(
                    "threads: 1 thread {s1:.0} q/s; {threads} threads on one file {one:.0} q/s; on {threads} opens {many:.0} q/s"
                );
            }
            if rss_jumps > 0 {
                let v =
                    bench::rss_over_jumps(&f, width, rss_jumps, (rss_jumps / 10).max(1), seed + 1)?;
                for (i, (all, anon)) in v {
                    println!("rss after {i:6} jumps: {all} KiB (anon {anon} KiB)");
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn parse_cache(s: &str) -> Result<usize, String> {
    slog2::read::index::parse_bytes(s).ok_or_else(|| format!("not a byte count: {s}"))
}
