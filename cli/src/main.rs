//! `slog2`: convert traces to SLOG-2 and look inside SLOG-2 files.
//!
//! Subcommands: `convert`, `print`, `info`, `query`, `check`, `bench`. Options
//! of the reference converter (`-o`, `-nc N`, `-ls SIZE`, `-tc`, `-tcc`) are
//! accepted as spelled by `traceTOslog2`, so existing scripts keep working.

use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

mod overview;
mod query_out;
mod signals;

use query_out::QueryOut;
use slog2::convert::{convert, CheckOrder, ConvertOptions};
use slog2::read::rows::Rows;
use slog2::read::Slog2File;
use slog2::trace::plugin::{PluginOpen, PluginSource};
use slog2::trace::TraceSource;
use slog2::WriterOptions;

#[derive(Parser)]
#[command(
    name = "slog2",
    version,
    about = "Convert parallel-program traces to SLOG-2 and query them",
    long_about = "Convert parallel-program traces to the SLOG-2 2.0.6 format (readable by Jumpshot-4 and \
slog2print) and look inside SLOG-2 files: print them in the reference printer's style, summarise them, \
query a time window, or validate them.\n\nReference-converter spellings are accepted: -o FILE, -nc N, \
-ls SIZE, -tc (= --check-order stop), -tcc (= --check-order warn)."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Convert a trace (sample text format, SLOG-2, or any format through a C TRACE-API library) to SLOG-2.
    ///
    /// Drawables must arrive in non-decreasing end time. By default the first record that breaks the
    /// TRACE-API time rules stops the conversion with its record number and location; no output file is
    /// left behind on any error (the file is written to a temporary name and renamed at the end).
    Convert {
        /// Input: a file path, or with --trace-lib the filespec handed to TRACE_Open (several words are joined with spaces).
        #[arg(required = true, num_args = 1..)]
        input: Vec<String>,
        /// Output file (default: the input name with .txt/.clog2/.rlog replaced by .slog2).
        #[arg(short = 'o', long = "output")]
        output: Option<PathBuf>,
        /// Shared library implementing slog2sdk's TRACE-API to read the input with.
        #[arg(long = "trace-lib")]
        trace_lib: Option<PathBuf>,
        /// Children per tree node (reference option -nc).
        #[arg(long = "nc", default_value_t = 2)]
        nc: i16,
        /// Leaf byte size, with optional k or m suffix (reference option -ls).
        #[arg(long = "ls", default_value = "64k", value_parser = parse_size)]
        ls: i32,
        /// stop: the first out-of-order or malformed drawable is an error (-tc). warn: report it and
        /// restore the order through a bounded reorder buffer (-tcc).
        #[arg(long = "check-order", value_enum, default_value_t = OrderArg::Stop)]
        check_order: OrderArg,
        /// Text parser threads: 0 = automatic (worker threads for text files of 4 MiB or more
        /// on machines with 4 or more cores), 1 = parse on the reading thread, N = N workers.
        #[arg(long, default_value_t = 0)]
        threads: usize,
        /// fsync the output before publishing it, for durability across power loss
        /// (the output is atomic either way: it appears only when complete).
        #[arg(long)]
        fsync: bool,
        /// No progress bar and no summary.
        #[arg(short, long)]
        quiet: bool,
        /// Also print the CPU seconds of each stage (reading, tree, shadows,
        /// blocks; each runs on its own thread) to stderr.
        #[arg(long)]
        timings: bool,
    },
    /// Print a file the way the reference slog2printserial does (header, categories, directory, maps, drawables);
    /// a CLOG2 (MPE) log is printed the way clog2print does.
    Print { file: PathBuf },
    /// Summarise a file: header, categories with their counts and ratios, y-maps, tree shape.
    Info {
        file: PathBuf,
        /// Output JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// List the drawables (and, with --depth, the preview shadows) that intersect a time window.
    Query {
        file: PathBuf,
        /// Window start (seconds; default: the file's start).
        #[arg(long = "from")]
        from: Option<f64>,
        /// Window end (seconds; default: the file's end).
        #[arg(long = "to")]
        to: Option<f64>,
        /// Read only tree levels >= DEPTH and show the shadows of the levels below (zoomed-out view).
        #[arg(long)]
        depth: Option<i16>,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Print how many tree nodes and bytes the query read (to stderr).
        #[arg(long)]
        stats: bool,
    },
    /// Measure the writer and the window query (numbers for BENCHMARKS.md).
    #[command(subcommand)]
    Bench(BenchCmd),
    /// Open FILE in slog2view, the timeline viewer (runs `java -jar slog2view.jar FILE`; needs Java 17).
    ///
    /// The jar is --jar, else $SLOG2VIEW_JAR, else ../share/java/slog2view.jar beside an installed
    /// binary (scripts/install.sh), else java/build/slog2view.jar of the repository this binary was
    /// built in.
    View {
        file: PathBuf,
        /// The slog2view jar.
        #[arg(long)]
        jar: Option<PathBuf>,
    },
    /// Ocelotl's overview of a time range: the fewest parts (intervals, or hierarchy node × interval)
    /// that lose the least information, under a parameter p (see `slog2::analysis`).
    Overview(overview::OverviewArgs),
    /// Validate structure and invariants. Exit code 0: valid (maybe with warnings); 1: invalid; 2: unreadable.
    Check {
        file: PathBuf,
        /// Also print warnings.
        #[arg(short, long)]
        verbose: bool,
    },
}

#[derive(Subcommand)]
enum BenchCmd {
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
        /// Write the windows (`J|S t0 t1` lines) for the reference harness.
        #[arg(long)]
        plan_out: Option<PathBuf>,
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

#[derive(Clone, Copy, ValueEnum)]
enum OrderArg {
    Stop,
    Warn,
}

#[derive(Clone, Copy, ValueEnum, PartialEq)]
enum Format {
    Text,
    Csv,
    Json,
}

fn parse_size(s: &str) -> Result<i32, String> {
    let s = s.trim();
    let (num, mult) = match s.chars().last() {
        Some('k' | 'K') => (&s[..s.len() - 1], 1024i64),
        Some('m' | 'M') => (&s[..s.len() - 1], 1024 * 1024),
        _ => (s, 1),
    };
    let n: i64 = num
        .parse()
        .map_err(|_| format!("invalid size {s:?} (expected e.g. 65536, 64k, 1m)"))?;
    let v = n
        .checked_mul(mult)
        .filter(|v| *v > 0 && *v <= i32::MAX as i64);
    v.map(|v| v as i32)
        .ok_or_else(|| format!("size {s:?} out of range"))
}

/// Map traceTOslog2 spellings to ours.
fn rewrite_args(args: impl Iterator<Item = String>) -> Vec<String> {
    let mut out = Vec::new();
    for a in args {
        match a.as_str() {
            "-nc" => out.push("--nc".into()),
            "-ls" => out.push("--ls".into()),
            "-tc" => out.extend(["--check-order".to_string(), "stop".to_string()]),
            "-tcc" => out.extend(["--check-order".to_string(), "warn".to_string()]),
            _ => out.push(a),
        }
    }
    out
}

fn default_output(input: &str) -> PathBuf {
    for suf in [".clog2", ".clog", ".rlog", ".txt", ".slog2"] {
        if let Some(stem) = input.strip_suffix(suf) {
            let out = format!("{stem}.slog2");
            if out != input {
                return PathBuf::from(out);
            }
            return PathBuf::from(format!("{stem}.out.slog2"));
        }
    }
    PathBuf::from(format!("{input}.slog2"))
}

fn main() -> ExitCode {
    signals::install();
    let cli = Cli::parse_from(rewrite_args(std::env::args()));
    let file = match &cli.cmd {
        Cmd::Print { file } | Cmd::Info { file, .. } | Cmd::Query { file, .. } => {
            Some(file.clone())
        }
        _ => None,
    };
    match run(cli) {
        Ok(code) => code,
        // The reader of our output went away (`slog2 print F | head`): not
        // an error of ours, and nobody is left to read a message.
        Err(slog2::Error::Io { source, .. }) if source.kind() == io::ErrorKind::BrokenPipe => {
            ExitCode::SUCCESS
        }
        Err(e) => {
            let msg = e.to_string();
            // Every error about a file names it.
            match file {
                Some(f) if !msg.contains(&f.display().to_string()) => {
                    eprintln!("slog2: error: {}: {msg}", f.display())
                }
                _ => eprintln!("slog2: error: {msg}"),
            }
            ExitCode::from(1)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, slog2::Error> {
    match cli.cmd {
        Cmd::Convert {
            input,
            output,
            trace_lib,
            nc,
            ls,
            check_order,
            threads,
            fsync,
            quiet,
            timings,
        } => {
            let filespec = input.join(" ");
            let out = output.unwrap_or_else(|| default_output(&filespec));
            slog2::convert::check_output_is_not_input(Path::new(&filespec), &out)?;
            let mut source: Box<dyn TraceSource> = match &trace_lib {
                Some(lib) => match PluginSource::open(lib, &filespec)? {
                    PluginOpen::Source(s) => Box::new(s),
                    PluginOpen::Help(text) => {
                        println!("{text}");
                        return Ok(ExitCode::SUCCESS);
                    }
                },
                None => slog2::trace::open_source_with(Path::new(&filespec), threads)?
                    as Box<dyn TraceSource>,
            };
            let opts = ConvertOptions {
                writer: WriterOptions {
                    children_per_node: nc,
                    leaf_bytesize: ls,
                    sync: fsync,
                    ..Default::default()
                },
                check_order: match check_order {
                    OrderArg::Stop => CheckOrder::Stop,
                    OrderArg::Warn => CheckOrder::Warn,
                },
                ..Default::default()
            };
            let bar = if !quiet && io::stderr().is_terminal() {
                let b = indicatif::ProgressBar::new(1000);
                b.set_style(
                    indicatif::ProgressStyle::with_template(
                        "{spinner} converting [{bar:40}] {percent}% {elapsed}",
                    )
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
                );
                Some(b)
            } else {
                None
            };
            let mut progress = |f: f64| {
                if let Some(b) = &bar {
                    b.set_position((f * 1000.0) as u64);
                }
            };
            let mut warn = |w: &str| eprintln!("slog2: warning: {w}");
            let res = convert(source.as_mut(), &out, &opts, &mut progress, &mut warn);
            if let Some(b) = &bar {
                b.finish_and_clear();
            }
            let summary = res?;
            if !quiet {
                // Source-specific lines, e.g. CLOG2's unmatched-event count.
                for line in source.report() {
                    println!("{line}");
                }
                eprintln!("{}", summary.paragraph(&out));
            }
            if timings {
                eprintln!("{}", summary.timings());
            }
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Print { file } => {
            if slog2::trace::clog2::looks_like(&file) {
                // A raw MPE log: print what clog2print.jar prints.
                let stdout = io::stdout();
                let mut w = BufWriter::new(stdout.lock());
                let r = slog2::trace::clog2::print::print_file(&file, &mut w);
                w.flush().map_err(|e| io_err(&file, e))?;
                r?;
                return Ok(ExitCode::SUCCESS);
            }
            let f = Slog2File::open(&file)?;
            let stdout = io::stdout();
            let mut w = BufWriter::new(stdout.lock());
            slog2::read::print::print(&f, &mut w).map_err(|e| io_err(&file, e))?;
            w.flush().map_err(|e| io_err(&file, e))?;
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Info { file, json } => {
            let f = Slog2File::open(&file)?;
            let stdout = io::stdout();
            let mut w = BufWriter::new(stdout.lock());
            info(&f, json, &mut w).map_err(|e| io_err(&file, e))?;
            w.flush().map_err(|e| io_err(&file, e))?;
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Query {
            file,
            from,
            to,
            depth,
            format,
            stats,
        } => {
            let f = Slog2File::open(&file)?;
            let tb = f.total_time();
            let (t0, t1) = (from.unwrap_or(tb.start), to.unwrap_or(tb.end));
            let stdout = io::stdout();
            let w = BufWriter::new(stdout.lock());
            let mut out = QueryOut::new(&f, format, w).map_err(|e| io_err(&file, e))?;
            // A window streams: each piece of rows is written before the
            // next is decoded. A preview (depth > 0) is built whole (its
            // shadows are summed over the window), then written a piece of
            // rows at a time; depth 0 or less is full detail without
            // shadows, i.e. the window (same rows, same stats).
            const PIECE: usize = 4096;
            let st = match depth.filter(|&d| d > 0) {
                Some(d) => {
                    let p = f.preview(t0, t1, d)?;
                    let mut write = |ds: &[_], ss: &[_]| {
                        let rows = Rows::from_parts(ds, ss, Default::default());
                        out.rows(&rows).map_err(|e| io_err(&file, e))
                    };
                    for ds in p.drawables.chunks(PIECE) {
                        write(ds, &[])?;
                    }
                    for ss in p.shadows.chunks(PIECE) {
                        write(&[], ss)?;
                    }
                    p.stats
                }
                None => f.window_rows_each(t0, t1, PIECE, |rows| {
                    out.rows(rows).map_err(|e| io_err(&file, e))
                })?,
            };
            let (drawables, shadows) = (out.drawables, out.shadows);
            out.finish().map_err(|e| io_err(&file, e))?;
            if stats {
                eprintln!(
                    "window [{t0}, {t1}]: {drawables} drawables, {shadows} shadows; read {} of {} tree nodes, {} bytes",
                    st.nodes_read,
                    f.directory().len(),
                    st.bytes_read
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Bench(b) => bench(b),
        Cmd::Overview(a) => overview::run(a),
        Cmd::View { file, jar } => Ok(view(&file, jar)),
        Cmd::Check { file, verbose } => {
            let f = match Slog2File::open(&file) {
                Ok(f) => f,
                Err(e) => {
                    println!("{}: INVALID: {e}", file.display());
                    return Ok(ExitCode::from(2));
                }
            };
            let r = f.check();
            for e in &r.errors {
                println!("error: {e}");
            }
            if verbose {
                for w in &r.warnings {
                    println!("warning: {w}");
                }
            }
            let valid = r.errors.is_empty();
            println!(
                "{}: {} ({} nodes, {} drawables, {} shadows; {} error(s), {} warning(s))",
                file.display(),
                if valid { "valid" } else { "INVALID" },
                r.nodes,
                r.drawables,
                r.shadows,
                r.errors.len(),
                r.warnings.len()
            );
            Ok(if valid {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
    }
}

fn io_err(path: &Path, e: io::Error) -> slog2::Error {
    slog2::Error::Io {
        path: path.to_path_buf(),
        source: e,
    }
}

fn info(f: &Slog2File, json: bool, w: &mut impl Write) -> io::Result<()> {
    let h = f.header();
    let tb = f.total_time();
    let mut per_depth = std::collections::BTreeMap::<i16, usize>::new();
    for e in f.directory() {
        *per_depth.entry(e.id.depth).or_default() += 1;
    }
    if json {
        let v = serde_json::json!({
            "version": h.version,
            "children_per_node": h.num_children_per_node,
            "leaf_bytesize": h.treeleaf_bytesize,
            "max_depth": h.max_treedepth,
            "max_buffer_bytesize": h.max_buffer_bytesize,
            "file_bytes": f.file_len(),
            "start": tb.start, "end": tb.end,
            "nodes": f.directory().len(),
            "nodes_per_depth": per_depth.iter().map(|(d, n)| serde_json::json!({"depth": d, "nodes": n})).collect::<Vec<_>>(),
            "categories": f.categories().iter().map(|c| serde_json::json!({
                "index": c.index, "name": c.name, "topology": c.topology.name(),
                "color": [c.color.red, c.color.green, c.color.blue, c.color.alpha],
                "width": c.width, "label": c.info.label(), "methods": c.methods,
                "incl_ratio": c.incl_ratio, "excl_ratio": c.excl_ratio, "count": c.count,
            })).collect::<Vec<_>>(),
            "ycoordmaps": f.ycoordmaps().iter().map(|m| serde_json::json!({
                "title": m.title, "columns": m.column_labels, "rows": m.rows.len(), "methods": m.methods,
            })).collect::<Vec<_>>(),
        });
        serde_json::to_writer_pretty(&mut *w, &v)?;
        return writeln!(w);
    }
    writeln!(w, "version             {}", h.version)?;
    writeln!(w, "file size           {} bytes", f.file_len())?;
    writeln!(
        w,
        "time range          [{}, {}] ({} s)",
        tb.start,
        tb.end,
        tb.duration()
    )?;
    writeln!(
        w,
        "tree                depth {}, {} nodes, {} children per node, leaf size {} bytes, largest block {} bytes",
        h.max_treedepth,
        f.directory().len(),
        h.num_children_per_node,
        h.treeleaf_bytesize,
        h.max_buffer_bytesize
    )?;
    let depths: Vec<String> = per_depth
        .iter()
        .rev()
        .map(|(d, n)| format!("depth {d}: {n}"))
        .collect();
    writeln!(w, "nodes per depth     {}", depths.join(", "))?;
    writeln!(w, "categories          {}", f.categories().len())?;
    let mut cats: Vec<_> = f.categories().iter().collect();
    cats.sort_by_key(|c| c.index);
    writeln!(
        w,
        "  {:>6}  {:<24} {:<6} {:>10} {:>12} {:>12}  label",
        "index", "name", "topo", "count", "incl", "excl"
    )?;
    for c in cats {
        writeln!(
            w,
            "  {:>6}  {:<24} {:<6} {:>10} {:>12} {:>12}  {}",
            c.index,
            c.name,
            c.topology.name(),
            c.count,
            c.incl_ratio,
            c.excl_ratio,
            c.info.label()
        )?;
    }
    writeln!(w, "y-coordinate maps   {}", f.ycoordmaps().len())?;
    for m in f.ycoordmaps() {
        writeln!(
            w,
            "  {:<24} {} rows, columns: {}{}",
            m.title,
            m.rows.len(),
            m.column_labels.join(" "),
            if m.methods.is_empty() {
                String::new()
            } else {
                format!(", methods {:?}", m.methods)
            }
        )?;
    }
    Ok(())
}

fn parse_cache(s: &str) -> Result<usize, String> {
    slog2::read::index::parse_bytes(s).ok_or_else(|| format!("not a byte count: {s}"))
}

fn bench(b: BenchCmd) -> Result<ExitCode, slog2::Error> {
    match b {
        BenchCmd::Write { n, output, nc, ls } => {
            let tmp = tempfile::tempdir().map_err(|e| io_err(Path::new("."), e))?;
            let out = output.unwrap_or_else(|| tmp.path().join("bench.slog2"));
            let t = std::time::Instant::now();
            let mut w = slog2::Slog2Writer::create(
                &out,
                WriterOptions {
                    children_per_node: nc,
                    leaf_bytesize: ls,
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
        BenchCmd::Clog2Gen { n, output, ranks } => {
            let t = std::time::Instant::now();
            let written = slog2::trace::clog2::gen::generate_file(&output, n, ranks)?;
            println!(
                "wrote {} CLOG2 records on {ranks} ranks to {} in {:.3} s",
                written,
                output.display(),
                t.elapsed().as_secs_f64()
            );
        }
        BenchCmd::Scan {
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
        BenchCmd::Query {
            file,
            target,
            width,
            jumps,
            scrolls,
            seed,
            plan_out,
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
                bench::write_plan(p, &plan)?;
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

/// `slog2 view`: hand over to the Java viewer (only translates: finds the jar and the
/// JNI library next to this binary, then execs `java`).
fn view(file: &Path, jar: Option<PathBuf>) -> ExitCode {
    use std::os::unix::process::CommandExt;
    let exe_dir = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(|p| p.to_path_buf()));
    let mut jars: Vec<PathBuf> = jar.into_iter().collect();
    if let Some(j) = std::env::var_os("SLOG2VIEW_JAR") {
        jars.push(PathBuf::from(j));
    }
    let mut libs = Vec::new();
    if let Some(d) = &exe_dir {
        jars.push(d.join("../share/java/slog2view.jar")); // PREFIX/bin/slog2 (install.sh)
        jars.push(d.join("../../java/build/slog2view.jar")); // target/release/slog2 (build tree)
        libs.push(d.join("libslog2jni.so"));
        libs.push(d.join("../lib/libslog2jni.so"));
    }
    let Some(jar) = jars.into_iter().find(|j| j.is_file()) else {
        eprintln!("slog2 view: slog2view.jar not found (install it with scripts/install.sh PREFIX, build it with java/viewer/build.sh --no-test, or pass --jar / set SLOG2VIEW_JAR)");
        return ExitCode::from(2);
    };
    let mut cmd = std::process::Command::new("java");
    if let Some(lib) = libs.into_iter().find(|l| l.is_file()) {
        cmd.arg(format!("-Dslog2.library={}", lib.display()));
    }
    cmd.arg("-jar").arg(&jar).arg(file);
    let err = cmd.exec(); // returns only on failure
    eprintln!("slog2 view: cannot run java ({err}); install a Java 17 runtime (openjdk-17-jre)");
    ExitCode::from(2)
}
