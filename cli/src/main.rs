//! `slog2`: convert traces to SLOG-2 and look inside SLOG-2 files.
//!
//! One file per subcommand (`convert.rs`, `print.rs`, `info.rs`,
//! `query.rs`, `check.rs`, `view.rs`, `bench.rs`): each holds its
//! `clap::Args` struct (its doc comment is the command's help) and a
//! `run(args) -> Result<ExitCode, slog2::Error>`. A new command is a new
//! file plus one variant in [`Cmd`] and one arm in [`run`]. This file owns
//! what every command shares: the reference converter's option spellings
//! (`-o`, `-nc N`, `-ls SIZE`, `-tc`, `-tcc`, accepted as `traceTOslog2`
//! spells them so existing scripts keep working), the size parser, and how
//! an error becomes a message and an exit code.

use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod bench;
mod check;
mod convert;
mod diff;
mod info;
mod info_counts;
mod overview;
mod print;
mod query;
mod query_out;
mod signals;
mod stats;
mod view;

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

/// The subcommands; each one's help is the doc comment of its `Args`.
#[derive(Subcommand)]
enum Cmd {
    Convert(convert::Args),
    Print(print::Args),
    Info(info::Args),
    Query(query::Args),
    /// Measure the writer and the window query (numbers for BENCHMARKS.md).
    #[command(subcommand)]
    Bench(bench::Cmd),
    View(view::Args),
    Check(check::Args),
    Stats(stats::Args),
    Diff(diff::Args),
    Overview(overview::Args),
}

fn run(cmd: Cmd) -> Result<ExitCode, slog2::Error> {
    match cmd {
        Cmd::Convert(a) => convert::run(a),
        Cmd::Print(a) => print::run(a),
        Cmd::Info(a) => info::run(a),
        Cmd::Query(a) => query::run(a),
        Cmd::Bench(b) => bench::run(b),
        Cmd::View(a) => view::run(a),
        Cmd::Check(a) => check::run(a),
        Cmd::Stats(a) => stats::run(a),
        Cmd::Diff(a) => diff::run(a),
        Cmd::Overview(a) => overview::run(a),
    }
}

/// The file an error message must name, for commands that read one file.
fn files_of(cmd: &Cmd) -> Vec<PathBuf> {
    match cmd {
        Cmd::Print(a) => vec![a.file.clone()],
        Cmd::Info(a) => vec![a.file.clone()],
        Cmd::Query(a) => vec![a.file.clone()],
        Cmd::Stats(a) => vec![a.file.clone()],
        Cmd::Overview(a) => vec![a.file.clone()],
        Cmd::Convert(a) => convert::files(a),
        _ => Vec::new(),
    }
}

/// A byte size with an optional k or m suffix (`-ls 64k`).
pub(crate) fn parse_size(s: &str) -> Result<i32, String> {
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

/// An I/O error on `path` as the library's error.
pub(crate) fn io_err(path: &Path, e: io::Error) -> slog2::Error {
    slog2::Error::Io {
        path: path.to_path_buf(),
        source: e,
    }
}

fn main() -> ExitCode {
    signals::install();
    let cli = Cli::parse_from(rewrite_args(std::env::args()));
    // The files an error may be about; one that names none of them is
    // prefixed with the first (the input).
    let files = files_of(&cli.cmd);
    match run(cli.cmd) {
        Ok(code) => code,
        // The reader of our output went away (`slog2 print F | head`): not
        // an error of ours, and nobody is left to read a message.
        Err(slog2::Error::Io { source, .. }) if source.kind() == io::ErrorKind::BrokenPipe => {
            ExitCode::SUCCESS
        }
        Err(e) => {
            let msg = e.to_string();
            // Every error about a file names it.
            let named = files.iter().any(|f| msg.contains(&f.display().to_string()));
            match files.first() {
                Some(f) if !named => eprintln!("slog2: error: {}: {msg}", f.display()),
                _ => eprintln!("slog2: error: {msg}"),
            }
            ExitCode::from(1)
        }
    }
}
