//! `slog2 info`: a summary of a file (header, categories with counts and
//! ratios, y-maps, tree shape), as text or JSON.
//!
//! Every figure comes from the opened file's header, category table and
//! directory; nothing is decoded from the tree nodes.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use slog2::read::Slog2File;

use crate::{info_counts, io_err};

/// Summarise a file: header, counts, categories with their counts and ratios, y-maps, tree shape.
#[derive(clap::Args)]
#[command(after_long_help = slog2::read::counts::DEFINITION)]
pub(crate) struct Args {
    pub(crate) file: PathBuf,
    /// Output JSON instead of text.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(a: Args) -> Result<ExitCode, slog2::Error> {
    let f = Slog2File::open(&a.file)?;
    let stdout = io::stdout();
    let mut w = BufWriter::new(stdout.lock());
    info(&f, a.json, &mut w)?;
    w.flush().map_err(|e| io_err(&a.file, e))?;
    Ok(ExitCode::SUCCESS)
}

fn info(f: &Slog2File, json: bool, w: &mut impl Write) -> Result<(), slog2::Error> {
    let io = |e| io_err(f.path().unwrap_or(std::path::Path::new("-")), e);
    let counts = f.counts()?;
    info_out(f, counts, json, w).map_err(io)
}

fn info_out(
    f: &Slog2File,
    counts: &slog2::read::Counts,
    json: bool,
    w: &mut impl Write,
) -> io::Result<()> {
    let h = f.header();
    let storage = f.node_storage().map_err(io::Error::other)?;
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
            "compressed": f.is_compressed(),
            "node_bytes": storage.stored_bytes,
            "node_bytes_plain": storage.plain_bytes,
            "compression_ratio": storage.ratio(),
            "start": tb.start, "end": tb.end,
            "nodes": f.directory().len(),
            "nodes_per_depth": per_depth.iter().map(|(d, n)| serde_json::json!({"depth": d, "nodes": n})).collect::<Vec<_>>(),
            "counts": info_counts::json(counts),
            "categories": f.categories().iter().map(|c| {
                let n = counts.category(c.index).copied().unwrap_or_default();
                serde_json::json!({
                    "index": c.index, "name": c.name, "topology": c.topology.name(),
                    "color": [c.color.red, c.color.green, c.color.blue, c.color.alpha],
                    "width": c.width, "label": c.info.label(), "methods": c.methods,
                    "incl_ratio": c.incl_ratio, "excl_ratio": c.excl_ratio, "count": c.count,
                    "drawables": n.drawables, "members": n.members,
                })
            }).collect::<Vec<_>>(),
            "ycoordmaps": f.ycoordmaps().iter().map(|m| serde_json::json!({
                "title": m.title, "columns": m.column_labels, "rows": m.rows.len(), "methods": m.methods,
            })).collect::<Vec<_>>(),
        });
        serde_json::to_writer_pretty(&mut *w, &v)?;
        return writeln!(w);
    }
    writeln!(w, "version             {}", h.version)?;
    writeln!(w, "file size           {} bytes", f.file_len())?;
    if f.is_compressed() {
        let [st, z, fz] = storage.parts_by_method;
        writeln!(
            w,
            "tree nodes          compressed: {} bytes, {} plain ({:.3}x); node parts: {fz} fields+zlib, {z} zlib, {st} stored",
            storage.stored_bytes,
            storage.plain_bytes,
            storage.ratio()
        )?;
    } else {
        writeln!(
            w,
            "tree nodes          plain SLOG-2 2.0.6: {} bytes",
            storage.stored_bytes
        )?;
    }
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
    writeln!(w, "counts              {}", counts.summary())?;
    writeln!(w, "categories          {}", f.categories().len())?;
    info_counts::category_table(f, counts, w)?;
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
