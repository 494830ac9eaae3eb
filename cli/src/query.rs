//! `slog2 query`: the drawables (and with `--depth`, the preview shadows)
//! of a time window, as text, CSV or JSON.
//!
//! A window streams: each piece of rows is written ([`QueryOut`]) before
//! the next is decoded ([`Slog2File::window_rows_each`]). A preview
//! (depth > 0) is built whole, since its shadows are summed over the
//! window, then written a piece of rows at a time; depth 0 or less is full
//! detail without shadows, i.e. the window (same rows, same stats).

use std::io::{self, BufWriter};
use std::path::PathBuf;
use std::process::ExitCode;

use slog2::read::rows::Rows;
use slog2::read::Slog2File;

use crate::io_err;
use crate::query_out::{Format, QueryOut};

/// List the drawables (and, with --depth, the preview shadows) that intersect a time window.
#[derive(clap::Args)]
pub(crate) struct Args {
    pub(crate) file: PathBuf,
    /// Window start (seconds; default: the file's start).
    // Negative times in any spelling (`-1.5`, `-1e-3`) are values.
    #[arg(long = "from", allow_hyphen_values = true)]
    from: Option<f64>,
    /// Window end (seconds; default: the file's end).
    #[arg(long = "to", allow_hyphen_values = true)]
    to: Option<f64>,
    /// Read only tree levels >= DEPTH and show the shadows of the levels below (zoomed-out view).
    #[arg(long)]
    depth: Option<i16>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Print how many tree nodes and bytes the query read (to stderr).
    #[arg(long)]
    stats: bool,
}

/// Rows written per piece.
const PIECE: usize = 4096;

pub(crate) fn run(a: Args) -> Result<ExitCode, slog2::Error> {
    let file = a.file;
    let f = Slog2File::open(&file)?;
    let tb = f.total_time();
    let (t0, t1) = (a.from.unwrap_or(tb.start), a.to.unwrap_or(tb.end));
    let stdout = io::stdout();
    let w = BufWriter::new(stdout.lock());
    let mut out = QueryOut::new(&f, a.format, w).map_err(|e| io_err(&file, e))?;
    let st = match a.depth.filter(|&d| d > 0) {
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
    let note = out.summary(&f, t0, t1);
    out.finish().map_err(|e| io_err(&file, e))?;
    if let Some(empty) = note.empty {
        eprintln!("slog2: {empty}");
    }
    if a.stats {
        eprintln!(
            "{}; read {} of {} tree nodes, {} bytes",
            note.line,
            st.nodes_read,
            f.directory().len(),
            st.bytes_read
        );
    }
    Ok(ExitCode::SUCCESS)
}
