//! `slog2 diff A B [--from T0 --to T1] [--whole] [--time-profile SLICES] --format text|csv|json`:
//! compare two runs (or two windows of one) by category name — the
//! library's `analysis::compare`. Differences are `b - a`, relative ones
//! `(b - a) / a` (empty when `a` is 0).
//!
//! CSV columns: `name,count_a,count_b,count_diff,inclusive_a,inclusive_b,
//! inclusive_diff,inclusive_rel,exclusive_a,exclusive_b,exclusive_diff,
//! exclusive_rel`; with `--time-profile N`: `slice,name,a,b,diff` (slice
//! `k` of each run's own time range cut into N).

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::json;
use slog2::analysis::compare::{compare_profiles, compare_time_profiles};
use slog2::analysis::{Scope, Stats, StatsOptions, TimeProfile};
use slog2::read::Slog2File;
use slog2::Error;

use crate::query_out::Format;
use crate::stats::{Cell, Table};

/// Compare the profiles (or time profiles) of two runs, category by category, by name.
#[derive(clap::Args)]
pub(crate) struct Args {
    pub a: PathBuf,
    pub b: PathBuf,
    /// Window start in both files (default: each file's start).
    #[arg(long = "from", allow_hyphen_values = true)]
    from: Option<f64>,
    /// Window end in both files (default: each file's end).
    #[arg(long = "to", allow_hyphen_values = true)]
    to: Option<f64>,
    /// Whole states (default: clipped to the window).
    #[arg(long)]
    whole: bool,
    /// Compare the time profiles in this many slices of each run's range instead.
    #[arg(long = "time-profile")]
    time_profile: Option<usize>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

pub(crate) fn run(a: Args) -> Result<ExitCode, Error> {
    let fa = Slog2File::open(&a.a)?;
    let fb = Slog2File::open(&a.b)?;
    let t = match a.time_profile {
        Some(n) => {
            let ta = TimeProfile::compute(&fa, a.from, a.to, n, None)?;
            let tb = TimeProfile::compute(&fb, a.from, a.to, n, None)?;
            let c = compare_time_profiles(&fa, &ta, &fb, &tb)?;
            let mut t = Table::new(&["slice", "name", "a", "b", "diff"]);
            let w = c.names.len();
            for k in 0..c.slices {
                for (j, name) in c.names.iter().enumerate() {
                    let (x, y) = (c.a[k * w + j], c.b[k * w + j]);
                    t.push(vec![
                        Cell::Int(k as i64),
                        Cell::Str(name.clone()),
                        Cell::Num(x),
                        Cell::Num(y),
                        Cell::Num(y - x),
                    ]);
                }
            }
            t.meta.insert("slices".into(), json!(n));
            t
        }
        None => {
            let stats = |f: &Slog2File| {
                let sc = Scope::of(f, a.from, a.to).clipped(!a.whole);
                Stats::compute(f, &sc, &StatsOptions::default())
            };
            let (sa, sb) = (stats(&fa)?, stats(&fb)?);
            let rows = compare_profiles(&fa, &sa.by_category, &fb, &sb.by_category);
            let mut t = Table::new(&[
                "name",
                "count_a",
                "count_b",
                "count_diff",
                "inclusive_a",
                "inclusive_b",
                "inclusive_diff",
                "inclusive_rel",
                "exclusive_a",
                "exclusive_b",
                "exclusive_diff",
                "exclusive_rel",
            ]);
            for r in rows {
                t.push(vec![
                    Cell::Str(r.name.clone()),
                    Cell::Int(r.a.count as i64),
                    Cell::Int(r.b.count as i64),
                    Cell::Int(r.count_diff()),
                    Cell::Num(r.a.inclusive),
                    Cell::Num(r.b.inclusive),
                    Cell::Num(r.inclusive_diff()),
                    Cell::Num(r.inclusive_rel()),
                    Cell::Num(r.a.exclusive),
                    Cell::Num(r.b.exclusive),
                    Cell::Num(r.exclusive_diff()),
                    Cell::Num(r.exclusive_rel()),
                ]);
            }
            t
        }
    };
    let mut t = t;
    t.meta.insert("a".into(), json!(a.a.display().to_string()));
    t.meta.insert("b".into(), json!(a.b.display().to_string()));
    let stdout = io::stdout();
    let mut w = BufWriter::new(stdout.lock());
    t.write(a.format, &mut w)
        .and_then(|_| w.flush())
        .map_err(|e| Error::Io {
            path: a.a.clone(),
            source: e,
        })?;
    Ok(ExitCode::SUCCESS)
}
