//! `slog2 stats FILE [--from T0 --to T1] [--whole] WHAT --format text|csv|json`:
//! the statistics of issue #30 from the command line (the library computes
//! them; `slog2::analysis`). WHAT is `profile [--by-line]`, `comm`,
//! `hist CATEGORY` (or `hist --sizes`), `imbalance`, `idle [--wait NAME...]`
//! or `timeprofile [--slices N]`.
//!
//! The CSV columns are a contract (scripts parse them): `profile` has
//! `category,name,count,inclusive,exclusive,min,mean,max` (`line` first with
//! `--by-line`), `comm` has `from_line,to_line,category,name,count,bytes`;
//! times are seconds; an unknown value (no size field, a mean of nothing)
//! is an empty field. JSON holds the same rows as objects under `"rows"`,
//! with the scope (`t0`, `t1`, `clip`); text is an aligned table.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;
use serde_json::{json, Map, Value};
use slog2::analysis::histogram::{auto_bins, histogram, instances, BinOf};
use slog2::analysis::imbalance::ImbalanceMetric;
use slog2::analysis::{Measure, ProfileRow, Scope, Spacing, Stats, StatsOptions, TimeProfile};
use slog2::read::Slog2File;
use slog2::Error;

use crate::query_out::csv;
use crate::query_out::Format;

/// Profiles, communication matrix, histograms, load imbalance, idle time and the time profile of a
/// file or a window (clipped to it by default).
#[derive(clap::Args)]
pub(crate) struct Args {
    pub file: PathBuf,
    /// Window start (seconds; default: the file's start).
    #[arg(long = "from", global = true, allow_hyphen_values = true)]
    from: Option<f64>,
    /// Window end (seconds; default: the file's end).
    #[arg(long = "to", global = true, allow_hyphen_values = true)]
    to: Option<f64>,
    /// Whole states (default: states crossing the window count only their part inside it).
    #[arg(long, global = true)]
    whole: bool,
    #[arg(long, value_enum, default_value_t = Format::Text, global = true)]
    format: Format,
    #[command(subcommand)]
    what: What,
}

#[derive(Subcommand)]
enum What {
    /// Per category: count, inclusive and exclusive time, min/mean/max duration.
    Profile {
        /// One row per line × category.
        #[arg(long)]
        by_line: bool,
    },
    /// Communication matrix: arrows and bytes per (from line, to line, category).
    Comm,
    /// Histogram of a category's durations (or of message sizes with --sizes); --bin K lists the
    /// instances in bin K (-1: below the low cut-off; BINS: above the high one).
    Hist {
        /// Category name or index (with --sizes: an arrow category, default all).
        category: Option<String>,
        /// Message sizes (bytes) instead of durations.
        #[arg(long)]
        sizes: bool,
        #[arg(long, default_value_t = 20)]
        bins: usize,
        /// Logarithmic bins.
        #[arg(long)]
        log: bool,
        /// Low cut-off (default: the smallest value); smaller values are outliers.
        #[arg(long)]
        lo: Option<f64>,
        /// High cut-off (default: the largest value); larger values are outliers.
        #[arg(long)]
        hi: Option<f64>,
        /// List the instances of this bin instead of the bars.
        #[arg(long, allow_hyphen_values = true)]
        bin: Option<i64>,
        /// Instances listed at most (the first by start time).
        #[arg(long, default_value_t = 100)]
        limit: usize,
    },
    /// Load imbalance per state category: max / mean time over the lines, and the worst lines.
    Imbalance {
        /// Compare inclusive instead of exclusive time.
        #[arg(long)]
        inclusive: bool,
        /// Worst lines listed.
        #[arg(long, default_value_t = 3)]
        top: usize,
    },
    /// Idle time per line: time in no state, or with --wait in those categories.
    ///
    /// no_state = the window's length minus the line's busy time, the sum of its top-level
    /// states (those nested in no other). States that overlap without nesting (not what MPI
    /// tracers write) count their overlap twice: no_state then turns negative, and a note
    /// names the lines.
    Idle {
        /// Wait categories by name (wildcards * and ?), e.g. --wait 'MPI_Wait*' MPI_Recv.
        #[arg(long, num_args = 1..)]
        wait: Vec<String>,
    },
    /// Time in each state category per time slice, summed over lines.
    Timeprofile {
        #[arg(long, default_value_t = 20)]
        slices: usize,
    },
}

pub(crate) fn run(a: Args) -> Result<ExitCode, Error> {
    let f = Slog2File::open(&a.file)?;
    let sc = Scope::of(&f, a.from, a.to).clipped(!a.whole);
    sc.check()?;
    let table = match a.what {
        What::Profile { by_line } => {
            let s = Stats::compute(&f, &sc, &StatsOptions::default())?;
            profile_table(
                &f,
                if by_line { &s.by_line } else { &s.by_category },
                by_line,
            )
        }
        What::Comm => comm_table(&f, &Stats::compute(&f, &sc, &StatsOptions::default())?),
        What::Hist {
            category,
            sizes,
            bins,
            log,
            lo,
            hi,
            bin,
            limit,
        } => {
            let cat = category.map(|c| category_of(&f, &c)).transpose()?;
            let measure = match (sizes, cat) {
                (true, c) => Measure::MessageSize(c),
                (false, Some(c)) => Measure::Duration(c),
                (false, None) => {
                    return Err(Error::InvalidArgument(
                        "stats hist: give a CATEGORY (or --sizes for message sizes)".into(),
                    ))
                }
            };
            let spacing = if log { Spacing::Log } else { Spacing::Linear };
            match auto_bins(&f, &sc, measure, bins, spacing, lo, hi)? {
                None => Table::new(&["bin", "lo", "hi", "count", "sum"]),
                Some(b) => match bin {
                    None => hist_table(&histogram(&f, &sc, measure, b)?),
                    Some(k) => {
                        let which = match k {
                            -1 => BinOf::Below,
                            k if k >= 0 && (k as usize) < b.len() => BinOf::In(k as usize),
                            k if k as usize == b.len() => BinOf::Above,
                            k => {
                                return Err(Error::InvalidArgument(format!(
                                    "stats hist: bin {k} out of range (-1..={})",
                                    b.len()
                                )))
                            }
                        };
                        let inst = instances(&f, &sc, measure, &b, which, limit)?;
                        let mut t = Table::new(&[
                            "start", "end", "line0", "line1", "category", "name", "value", "text",
                        ]);
                        t.meta.insert("total".into(), json!(inst.total));
                        for i in 0..inst.start.len() {
                            t.push(vec![
                                Cell::Num(inst.start[i]),
                                Cell::Num(inst.end[i]),
                                Cell::Int(inst.line0[i].into()),
                                Cell::Int(inst.line1[i].into()),
                                Cell::Int(inst.category[i].into()),
                                Cell::Str(name(&f, inst.category[i])),
                                Cell::Num(inst.value[i]),
                                Cell::Str(inst.text[i].clone()),
                            ]);
                        }
                        t
                    }
                },
            }
        }
        What::Imbalance { inclusive, top } => {
            let s = Stats::compute(&f, &sc, &StatsOptions::default())?;
            let m = if inclusive {
                ImbalanceMetric::Inclusive
            } else {
                ImbalanceMetric::Exclusive
            };
            let mut t = Table::new(&["category", "name", "lines", "mean", "max", "ratio", "worst"]);
            for r in s.imbalance(m, top) {
                let worst: Vec<String> = r.worst.iter().map(|(l, v)| format!("{l}:{v}")).collect();
                t.push(vec![
                    Cell::Int(r.category.into()),
                    Cell::Str(name(&f, r.category)),
                    Cell::Int(r.lines as i64),
                    Cell::Num(r.mean),
                    Cell::Num(r.max),
                    Cell::Num(r.ratio),
                    Cell::Json(
                        Value::String(worst.join(";")),
                        json!(r
                            .worst
                            .iter()
                            .map(|(l, v)| json!({"line": l, "value": v}))
                            .collect::<Vec<_>>()),
                    ),
                ]);
            }
            t
        }
        What::Idle { wait } => {
            let s = Stats::compute(&f, &sc, &StatsOptions { wait })?;
            let mut t = Table::new(&["line", "idle", "fraction", "no_state", "wait"]);
            t.meta.insert("wait_categories".into(), json!(s.wait));
            let rows = s.idle();
            let overlapping: Vec<i32> = rows
                .iter()
                .filter(|r| r.no_state < 0.0)
                .map(|r| r.line)
                .collect();
            if !overlapping.is_empty() {
                // Busy time sums top-level states: one that overlaps another
                // without nesting in it counts the overlap twice (analysis::idle).
                eprintln!(
                    "slog2: note: on line(s) {overlapping:?} states overlap without nesting, so \
                     their busy time counts an overlap twice and no_state is negative \
                     (MPI tracers' states nest; see `slog2 stats FILE idle --help`)"
                );
            }
            for r in rows {
                t.push(vec![
                    Cell::Int(r.line.into()),
                    Cell::Num(r.idle),
                    Cell::Num(r.fraction),
                    Cell::Num(r.no_state),
                    Cell::Num(r.wait),
                ]);
            }
            t
        }
        What::Timeprofile { slices } => {
            let tp = TimeProfile::compute(&f, Some(sc.t0), Some(sc.t1), slices, None)?;
            time_table(&f, &tp)
        }
    };
    let mut t = table;
    t.meta.insert("t0".into(), json!(sc.t0));
    t.meta.insert("t1".into(), json!(sc.t1));
    t.meta.insert("clip".into(), json!(sc.clip));
    let stdout = io::stdout();
    let mut w = BufWriter::new(stdout.lock());
    t.write(a.format, &mut w)
        .and_then(|_| w.flush())
        .map_err(|e| Error::Io {
            path: a.file.clone(),
            source: e,
        })?;
    Ok(ExitCode::SUCCESS)
}

/// A category by name (exact) or index.
pub(crate) fn category_of(f: &Slog2File, s: &str) -> Result<i32, Error> {
    if let Some(c) = f
        .categories()
        .iter()
        .find(|c| !c.is_preview() && c.name == s)
    {
        return Ok(c.index);
    }
    s.parse::<i32>().map_err(|_| {
        Error::InvalidArgument(format!("no category named {s:?} (give a name or an index)"))
    })
}

pub(crate) fn name(f: &Slog2File, c: i32) -> String {
    f.category(c)
        .map(|c| c.name.clone())
        .unwrap_or_else(|| format!("UnknownType-{c}"))
}

fn profile_table(f: &Slog2File, rows: &[ProfileRow], by_line: bool) -> Table {
    let mut cols = vec![
        "category",
        "name",
        "count",
        "inclusive",
        "exclusive",
        "min",
        "mean",
        "max",
    ];
    if by_line {
        cols.insert(0, "line");
    }
    let mut t = Table::new(&cols);
    for r in rows {
        let mut v = vec![
            Cell::Int(r.category.into()),
            Cell::Str(name(f, r.category)),
            Cell::Int(r.cell.count as i64),
            Cell::Num(r.cell.inclusive),
            Cell::Num(r.cell.exclusive),
            Cell::Num(r.cell.min_or_nan()),
            Cell::Num(r.cell.mean()),
            Cell::Num(r.cell.max_or_nan()),
        ];
        if by_line {
            v.insert(0, Cell::Int(r.line.unwrap_or(-1).into()));
        }
        t.push(v);
    }
    t
}

fn comm_table(f: &Slog2File, s: &Stats) -> Table {
    let mut t = Table::new(&["from_line", "to_line", "category", "name", "count", "bytes"]);
    for r in &s.comm {
        t.push(vec![
            Cell::Int(r.from_line.into()),
            Cell::Int(r.to_line.into()),
            Cell::Int(r.category.into()),
            Cell::Str(name(f, r.category)),
            Cell::Int(r.count as i64),
            r.bytes.map_or(Cell::Null, Cell::Int),
        ]);
    }
    t
}

fn hist_table(h: &slog2::analysis::Histogram) -> Table {
    let mut t = Table::new(&["bin", "lo", "hi", "count", "sum"]);
    let e = &h.bins.edges;
    let n = h.bins.len();
    t.push(vec![
        Cell::Int(-1),
        Cell::Num(f64::NEG_INFINITY),
        Cell::Num(e[0]),
        Cell::Int(h.below as i64),
        Cell::Num(h.below_sum),
    ]);
    for k in 0..n {
        t.push(vec![
            Cell::Int(k as i64),
            Cell::Num(e[k]),
            Cell::Num(e[k + 1]),
            Cell::Int(h.counts[k] as i64),
            Cell::Num(h.sums[k]),
        ]);
    }
    t.push(vec![
        Cell::Int(n as i64),
        Cell::Num(e[n]),
        Cell::Num(f64::INFINITY),
        Cell::Int(h.above as i64),
        Cell::Num(h.above_sum),
    ]);
    t.meta.insert("no_size".into(), json!(h.no_size));
    t
}

fn time_table(f: &Slog2File, tp: &TimeProfile) -> Table {
    let mut t = Table::new(&["slice", "start", "end", "category", "name", "time"]);
    for k in 0..tp.grid.n {
        for (c, &cat) in tp.categories.iter().enumerate() {
            t.push(vec![
                Cell::Int(k as i64),
                Cell::Num(tp.grid.edge(k)),
                Cell::Num(tp.grid.edge(k + 1)),
                Cell::Int(cat.into()),
                Cell::Str(name(f, cat)),
                Cell::Num(tp.get(k, c)),
            ]);
        }
    }
    t.meta.insert("slices".into(), json!(tp.grid.n));
    t.meta.insert("unmapped".into(), json!(tp.unmapped));
    t
}

/// One value of a result table.
pub(crate) enum Cell {
    Int(i64),
    Num(f64),
    Str(String),
    /// Unknown: empty in CSV and text, null in JSON.
    Null,
    /// A value shown as text (CSV, text) and as JSON.
    Json(Value, Value),
}

impl Cell {
    fn text(&self) -> String {
        match self {
            Cell::Int(i) => i.to_string(),
            Cell::Num(x) if x.is_nan() => String::new(),
            // Shortest round-trip text; exponents for very small or large values.
            Cell::Num(x) if *x != 0.0 && x.is_finite() && (x.abs() < 1e-4 || x.abs() >= 1e16) => {
                format!("{x:e}")
            }
            Cell::Num(x) => format!("{x}"),
            Cell::Str(s) => s.clone(),
            Cell::Null => String::new(),
            Cell::Json(Value::String(s), _) => s.clone(),
            Cell::Json(v, _) => v.to_string(),
        }
    }

    fn json(&self) -> Value {
        match self {
            Cell::Int(i) => json!(i),
            Cell::Num(x) if x.is_finite() => json!(x),
            Cell::Num(x) if x.is_infinite() => json!(if *x > 0.0 { "inf" } else { "-inf" }),
            Cell::Num(_) | Cell::Null => Value::Null,
            Cell::Str(s) => json!(s),
            Cell::Json(_, v) => v.clone(),
        }
    }
}

/// Rows of a result with named columns, written as text, CSV or JSON.
pub(crate) struct Table {
    cols: Vec<&'static str>,
    rows: Vec<Vec<Cell>>,
    pub meta: Map<String, Value>,
}

impl Table {
    pub fn new(cols: &[&'static str]) -> Table {
        Table {
            cols: cols.to_vec(),
            rows: Vec::new(),
            meta: Map::new(),
        }
    }

    pub fn push(&mut self, row: Vec<Cell>) {
        debug_assert_eq!(row.len(), self.cols.len());
        self.rows.push(row);
    }

    pub fn write(&self, format: Format, w: &mut impl Write) -> io::Result<()> {
        match format {
            Format::Csv => {
                writeln!(w, "{}", self.cols.join(","))?;
                for r in &self.rows {
                    let v: Vec<String> = r.iter().map(|c| csv(&c.text())).collect();
                    writeln!(w, "{}", v.join(","))?;
                }
            }
            Format::Json => {
                let mut o = self.meta.clone();
                let rows: Vec<Value> = self
                    .rows
                    .iter()
                    .map(|r| {
                        Value::Object(
                            self.cols
                                .iter()
                                .zip(r)
                                .map(|(k, c)| (k.to_string(), c.json()))
                                .collect(),
                        )
                    })
                    .collect();
                o.insert("rows".into(), Value::Array(rows));
                serde_json::to_writer_pretty(&mut *w, &Value::Object(o))?;
                writeln!(w)?;
            }
            Format::Text => {
                let cells: Vec<Vec<String>> = self
                    .rows
                    .iter()
                    .map(|r| r.iter().map(text_cell).collect())
                    .collect();
                let mut width: Vec<usize> = self.cols.iter().map(|c| c.len()).collect();
                for r in &cells {
                    for (k, c) in r.iter().enumerate() {
                        width[k] = width[k].max(c.chars().count());
                    }
                }
                let line = |w: &mut dyn Write, v: &[String]| -> io::Result<()> {
                    let s: Vec<String> = v
                        .iter()
                        .enumerate()
                        .map(|(k, c)| format!("{c:>width$}", width = width[k]))
                        .collect();
                    writeln!(w, "{}", s.join("  ").trim_end())
                };
                let head: Vec<String> = self.cols.iter().map(|c| c.to_string()).collect();
                line(w, &head)?;
                for r in &cells {
                    line(w, r)?;
                }
            }
        }
        Ok(())
    }
}

/// A cell as the text table shows it: numbers in 6 significant digits.
fn text_cell(c: &Cell) -> String {
    match c {
        Cell::Num(x) if x.is_nan() => "-".into(),
        Cell::Num(x) if *x == 0.0 || !x.is_finite() => format!("{x}"),
        Cell::Num(x) if x.abs() >= 1e-4 && x.abs() < 1e9 => {
            let s = format!("{x:.6}");
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        }
        Cell::Num(x) => format!("{x:.5e}"),
        Cell::Null => "-".into(),
        c => c.text(),
    }
}
