//! `slog2 convert`: any trace source to SLOG-2.
//!
//! Only translation happens here: the options become a
//! [`ConvertOptions`], the input becomes a [`TraceSource`] (a file sniffed
//! by the core, or a C TRACE-API library through [`PluginSource`]), and the
//! core's [`convert`] does the work. The progress bar and the summary are
//! the CLI's own.

use std::io::{self, IsTerminal};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::ValueEnum;
use slog2::convert::{convert, CheckOrder, ConvertOptions};
use slog2::trace::plugin::{PluginOpen, PluginSource};
use slog2::trace::TraceSource;
use slog2::WriterOptions;

use crate::parse_size;

/// Convert a trace (sample text format, SLOG-2, or any format through a C TRACE-API library) to SLOG-2.
///
/// Drawables must arrive in non-decreasing end time. By default the first record that breaks the
/// TRACE-API time rules stops the conversion with its record number and location; no output file is
/// left behind on any error (the file is written to a temporary name and renamed at the end).
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Input: a file path (`-` for standard input, a pipe too: give -o), or with --trace-lib the filespec handed to TRACE_Open (several words are joined with spaces).
    #[arg(required = true, num_args = 1..)]
    input: Vec<String>,
    /// Output file (default: the input name with .txt/.clog2/.rlog replaced by .slog2); `-` for
    /// standard output. A FIFO or character device is written through, a symlink followed, an
    /// existing file's mode kept; a directory, block device or socket is refused.
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
    /// on machines with 4 or more cores; an OTF2 archive's plugin on a thread of its own
    /// from 2 cores), 1 = parse (or read the plugin) on the reading thread, N = N workers.
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// fsync the output before publishing it, for durability across power loss
    /// (the output is atomic either way: it appears only when complete).
    #[arg(long)]
    fsync: bool,
    /// Compress the tree nodes (LEVEL 1 fastest … 12 smallest, libdeflate's levels;
    /// default 1): a `SLOG 2.0.Z` file, about a third of the size, that this tool and
    /// library read and the reference tools refuse; `slog2 convert FILE -o PLAIN` turns
    /// it back into SLOG-2 2.0.6 for Jumpshot-4.
    #[arg(long, value_name = "LEVEL", num_args = 0..=1, require_equals = true,
          default_missing_value = "1", value_parser = clap::value_parser!(u32).range(1..=12))]
    compress: Option<u32>,
    /// No progress bar and no summary.
    #[arg(short, long)]
    quiet: bool,
    /// Also print the CPU seconds of each stage (reading, tree, shadows,
    /// blocks; each runs on its own thread) to stderr.
    #[arg(long)]
    timings: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum OrderArg {
    Stop,
    Warn,
}

/// The output name when `-o` is not given.
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

pub(crate) fn run(a: Args) -> Result<ExitCode, slog2::Error> {
    let mut filespec = a.input.join(" ");
    if filespec == "-" && a.trace_lib.is_none() {
        if a.output.is_none() {
            return Err(slog2::Error::InvalidArgument(
                "reading standard input (`-`): name the output with -o".into(),
            ));
        }
        filespec = "/dev/stdin".into();
    }
    let out = a.output.unwrap_or_else(|| default_output(&filespec));
    slog2::convert::check_output_is_not_input(Path::new(&filespec), &out)?;
    let mut source: Box<dyn TraceSource> = match &a.trace_lib {
        Some(lib) => match PluginSource::open(lib, &filespec)? {
            PluginOpen::Source(s) => Box::new(s),
            PluginOpen::Help(text) => {
                println!("{text}");
                return Ok(ExitCode::SUCCESS);
            }
        },
        None => {
            slog2::trace::open_source_with(Path::new(&filespec), a.threads)? as Box<dyn TraceSource>
        }
    };
    let opts = ConvertOptions {
        writer: WriterOptions {
            children_per_node: a.nc,
            leaf_bytesize: a.ls,
            sync: a.fsync,
            compress: a.compress,
            ..Default::default()
        },
        check_order: match a.check_order {
            OrderArg::Stop => CheckOrder::Stop,
            OrderArg::Warn => CheckOrder::Warn,
        },
        ..Default::default()
    };
    let bar = if !a.quiet && io::stderr().is_terminal() {
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
    if !a.quiet {
        // Source-specific lines, e.g. CLOG2's unmatched-event count.
        for line in source.report() {
            if out.as_os_str() == "-" {
                eprintln!("{line}"); // stdout carries the file
            } else {
                println!("{line}");
            }
        }
        eprintln!("{}", summary.paragraph(&out));
    }
    if a.timings {
        eprintln!("{}", summary.timings());
    }
    Ok(ExitCode::SUCCESS)
}

/// The files a conversion's error may be about: the input, then the output.
pub(crate) fn files(a: &Args) -> Vec<PathBuf> {
    let spec = a.input.join(" ");
    let out = a.output.clone().unwrap_or_else(|| default_output(&spec));
    vec![PathBuf::from(spec), out]
}
