//! `slog2 overview`: Ocelotl's aggregated overview of a time range
//! (`slog2::analysis::overview`), as text or as the JSON other scripts
//! parse (the contract of issue #29; `cli/tests/overview_cli.rs` checks it).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::{json, Value};
use slog2::analysis::{overview, CacheUse, Metric, Overview, OverviewSpec, PChoice};
use slog2::read::Slog2File;

/// Ocelotl's overview of a time range: the fewest parts (intervals, or hierarchy node × interval)
/// that lose the least information, under a parameter p (see `slog2::analysis`).
#[derive(clap::Args)]
pub(crate) struct Args {
    pub file: PathBuf,
    /// Number of equal time slices of the range.
    #[arg(long, default_value_t = 100)]
    slices: usize,
    /// Range start (seconds; default: the file's start).
    #[arg(long = "from", allow_hyphen_values = true)]
    from: Option<f64>,
    /// Range end (seconds; default: the file's end).
    #[arg(long = "to", allow_hyphen_values = true)]
    to: Option<f64>,
    /// duration: time in each state category; count: drawables starting in each slice.
    #[arg(long, default_value = "duration")]
    metric: String,
    /// Aggregate lines and time (parts are hierarchy node × interval) instead of time only.
    #[arg(long)]
    spatiotemporal: bool,
    /// The hierarchy of --spatiotemporal: a y-map title of the file (its columns are the levels)
    /// or fanout:K (balanced groups of K lines). Default: fanout:8.
    #[arg(long)]
    hierarchy: Option<String>,
    /// The aggregation parameter in [0, 1] (0: every slice, 1: one part), or auto (the knee of
    /// the gain/loss curves).
    #[arg(long, default_value = "auto")]
    p: String,
    /// Compute the p-curve by bisection down to this threshold (e.g. 0.001) and print it.
    #[arg(long)]
    bisect: Option<f64>,
    /// Include the cube (JSON: [line][slice][category]).
    #[arg(long)]
    cube: bool,
    /// Read the drawables instead of the cube cache (always exact).
    #[arg(long)]
    no_cache: bool,
    /// The cube cache's directory (default: $SLOG2_CACHE_DIR, $XDG_CACHE_HOME/slog2 or ~/.cache/slog2).
    #[arg(long)]
    cache_dir: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = OutFormat::Text)]
    format: OutFormat,
    /// Print the wall time of each stage to stderr.
    #[arg(long)]
    timings: bool,
}

#[derive(Clone, Copy, clap::ValueEnum, PartialEq)]
enum OutFormat {
    Text,
    Json,
}

pub(crate) fn run(a: Args) -> Result<ExitCode, slog2::Error> {
    let t = std::time::Instant::now();
    let f = Slog2File::open(&a.file)?;
    let opened = t.elapsed().as_secs_f64();
    let p = match a.p.as_str() {
        "auto" => PChoice::Auto,
        s => PChoice::Value(s.parse().map_err(|_| {
            slog2::Error::InvalidArgument(format!("--p {s:?}: a number in [0, 1] or auto"))
        })?),
    };
    let spec = OverviewSpec {
        t0: a.from,
        t1: a.to,
        slices: a.slices,
        metric: Metric::parse(&a.metric)?,
        spatiotemporal: a.spatiotemporal.then(|| a.hierarchy.clone()),
        p,
        bisect: a.bisect,
        cache: match (a.no_cache, &a.cache_dir) {
            (true, _) => CacheUse::Off,
            (false, Some(d)) => CacheUse::Dir(d.clone()),
            (false, None) => CacheUse::Default,
        },
    };
    if a.hierarchy.is_some() && !a.spatiotemporal {
        return Err(slog2::Error::InvalidArgument(
            "--hierarchy needs --spatiotemporal".into(),
        ));
    }
    let ov = overview(&f, &spec)?;
    if a.timings {
        let tm = ov.timings;
        eprintln!(
            "open {opened:.4} s, cube {:.4} s ({}), qualities {:.4} s, curve {:.4} s ({} points), best {:.4} s, total {:.4} s",
            tm.cube,
            if ov.from_cache { "cache" } else { "built" },
            tm.qualities,
            tm.curve,
            ov.curve.len(),
            tm.best,
            t.elapsed().as_secs_f64()
        );
    }
    let out = std::io::stdout();
    let mut w = std::io::BufWriter::new(out.lock());
    let io = |e| slog2::Error::io(&a.file, e);
    match a.format {
        OutFormat::Json => {
            serde_json::to_writer(&mut w, &to_json(&f, &ov, a.cube)).map_err(|e| io(e.into()))?;
            writeln!(w).map_err(io)?;
        }
        OutFormat::Text => text(&mut w, &f, &ov).map_err(io)?,
    }
    w.flush().map_err(io)?;
    Ok(ExitCode::SUCCESS)
}

fn to_json(f: &Slog2File, ov: &Overview, cube: bool) -> Value {
    let g = ov.cube.grid;
    let c = &ov.cube;
    let parts: Vec<Value> = ov
        .partition
        .parts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut v = json!({
                "first": p.first,
                "last": p.last,
                "gain": p.gain,
                "loss": p.loss,
                "t0": g.edge(p.first),
                "t1": g.edge(p.last + 1),
                "mode": ov.modes[i].map(|m| c.categories[m]),
                "values": ov.values[i],
            });
            if let Some(n) = p.node {
                v["node"] = json!(n);
            }
            v
        })
        .collect();
    let mut o = json!({
        "file": f.path().map(|p| p.display().to_string()),
        "t0": g.t0,
        "t1": g.t1,
        "slices": g.n,
        "metric": c.metric.name(),
        "aggregation": if ov.hierarchy.is_some() { "spatiotemporal" } else { "temporal" },
        "lines": c.lines,
        "categories": c.categories,
        "category_names": c.categories.iter().map(|&i| f.category_or_unknown(i).name.clone()).collect::<Vec<_>>(),
        "p": ov.p,
        "gain": ov.partition.gain,
        "loss": ov.partition.loss,
        "exact": ov.exact,
        "source": if ov.from_cache { "cache" } else { "drawables" },
        "unmapped": c.unmapped,
        "parts": parts,
    });
    if let Some(h) = &ov.hierarchy {
        o["hierarchy"] = Value::Array(
            h.nodes
                .iter()
                .enumerate()
                .map(|(id, n)| {
                    json!({
                        "id": id,
                        "parent": n.parent,
                        "lines": n.lines.iter().map(|&l| c.lines[l]).collect::<Vec<_>>(),
                        "label": n.label,
                    })
                })
                .collect(),
        );
    }
    if cube {
        let (l, n, u) = (c.lines.len(), g.n, c.categories.len());
        o["cube"] = Value::Array(
            (0..l)
                .map(|s| {
                    Value::Array(
                        (0..n)
                            .map(|t| json!((0..u).map(|k| c.get(s, t, k)).collect::<Vec<_>>()))
                            .collect(),
                    )
                })
                .collect(),
        );
    }
    if !ov.curve.is_empty() {
        o["curve"] = Value::Array(
            ov.curve
                .iter()
                .map(|p| json!({"p": p.p, "gain": p.gain, "loss": p.loss, "parts": p.parts}))
                .collect(),
        );
    }
    o
}

fn text(w: &mut impl Write, f: &Slog2File, ov: &Overview) -> std::io::Result<()> {
    let g = ov.cube.grid;
    let c = &ov.cube;
    writeln!(
        w,
        "{} overview of [{}, {}] in {} slices ({}), p = {:.4}: {} parts, gain {:.6e}, loss {:.6e}{}",
        if ov.hierarchy.is_some() { "spatiotemporal" } else { "temporal" },
        g.t0,
        g.t1,
        g.n,
        c.metric.name(),
        ov.p,
        ov.partition.parts.len(),
        ov.partition.gain,
        ov.partition.loss,
        if ov.exact { "" } else { " (approximate: rebinned from the cache)" }
    )?;
    for (i, p) in ov.partition.parts.iter().enumerate() {
        let vals = &ov.values[i];
        let sum: f64 = vals.iter().sum();
        let mut order: Vec<usize> = (0..vals.len()).filter(|&k| vals[k] > 0.0).collect();
        order.sort_by(|&a, &b| vals[b].total_cmp(&vals[a]));
        let dom: Vec<String> = order
            .iter()
            .take(3)
            .map(|&k| {
                format!(
                    "{} {:.0}%",
                    f.category_or_unknown(c.categories[k]).name,
                    100.0 * vals[k] / sum
                )
            })
            .collect();
        let node = match (p.node, &ov.hierarchy) {
            (Some(n), Some(h)) => {
                format!(" {} ({} lines)", h.nodes[n].label, h.nodes[n].lines.len())
            }
            _ => String::new(),
        };
        writeln!(
            w,
            "[{:.9}, {:.9}] slices {}-{}{}: {}",
            g.edge(p.first),
            g.edge(p.last + 1),
            p.first,
            p.last,
            node,
            if dom.is_empty() {
                "(empty)".to_string()
            } else {
                dom.join(", ")
            }
        )?;
    }
    for pt in &ov.curve {
        writeln!(
            w,
            "curve p {:.6}: {} parts, gain {:.6e}, loss {:.6e}",
            pt.p, pt.parts, pt.gain, pt.loss
        )?;
    }
    Ok(())
}
