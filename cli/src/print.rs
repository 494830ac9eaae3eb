//! `slog2 print`: a file in the reference printers' text.
//!
//! A SLOG-2 file prints the way `slog2printserial` does
//! ([`slog2::read::print`]); a raw CLOG2 (MPE) log the way `clog2print`
//! does ([`slog2::trace::clog2::print`]). Output is buffered and flushed
//! once; a closed pipe is handled by `main`.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use crate::io_err;

/// Print a file the way the reference slog2printserial does (header, categories, directory, maps, drawables);
/// a CLOG2 (MPE) log is printed the way clog2print does.
#[derive(clap::Args)]
pub(crate) struct Args {
    pub(crate) file: PathBuf,
}

pub(crate) fn run(a: Args) -> Result<ExitCode, slog2::Error> {
    let file = a.file;
    let stdout = io::stdout();
    let mut w = BufWriter::new(stdout.lock());
    let r = slog2::trace::input::print(&file, &mut w);
    w.flush().map_err(|e| io_err(&file, e))?;
    r?;
    Ok(ExitCode::SUCCESS)
}
