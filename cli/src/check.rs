//! `slog2 check`: validate a file's structure and invariants
//! ([`Slog2File::check`]).
//!
//! The exit code is the answer: 0 valid (maybe with warnings), 1 invalid,
//! 2 unreadable (the file does not even open).

use std::path::PathBuf;
use std::process::ExitCode;

use slog2::read::Slog2File;

/// Validate structure and invariants. Exit code 0: valid (maybe with warnings); 1: invalid; 2: unreadable.
#[derive(clap::Args)]
pub(crate) struct Args {
    file: PathBuf,
    /// Also print warnings.
    #[arg(short, long)]
    verbose: bool,
}

pub(crate) fn run(a: Args) -> Result<ExitCode, slog2::Error> {
    let file = a.file;
    let f = match Slog2File::open(&file) {
        Ok(f) => f,
        Err(e) => {
            // Exit 2: not checked at all (missing, unreadable, not
            // an SLOG-2 file), which is not the same as invalid.
            println!("{}: UNREADABLE: {e}", file.display());
            return Ok(ExitCode::from(2));
        }
    };
    let r = f.check();
    for e in &r.errors {
        println!("error: {e}");
    }
    if a.verbose {
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
