//! `slog2 query` output, written from the library's query columns
//! ([`Rows`]) as they come: a window is decoded in pieces
//! ([`Slog2File::window_rows_each`]) and each piece is written before the
//! next is decoded, so the whole-file query of a 1M-drawable file holds one
//! piece, not the window (BENCHMARKS.md, "CLI query memory"). The JSON is
//! the same array `serde_json` would print for the whole list, written an
//! item at a time.
//!
//! What each format shows of a row (the columns of `read::Rows`):
//! `kind` is `composite`, `shadow` or the category's topology; a
//! primitive's `vertices` are its first and last vertex (one for an event:
//! an arrow keeps its direction); a composite lists its members the same
//! way; a shadow's vertices are its box start and end with its first and
//! last line, plus the rows it summarises (`num_real`) and its
//! per-category weights.

use std::io::{self, Write};

use serde_json::{json, Value};
use slog2::read::rows::{Rows, ROW_COMPOSITE, ROW_SHADOW};
use slog2::read::Slog2File;
use slog2::Topology;

use crate::Format;

/// Writes the rows of one query as they are handed over.
pub(crate) struct QueryOut<'a, W: Write> {
    f: &'a Slog2File,
    format: Format,
    w: W,
    /// Items written (JSON: whether a comma is due).
    items: usize,
    /// Top-level drawables and shadows written (for `--stats`).
    pub drawables: usize,
    pub shadows: usize,
}

impl<'a, W: Write> QueryOut<'a, W> {
    pub fn new(f: &'a Slog2File, format: Format, mut w: W) -> io::Result<Self> {
        match format {
            Format::Csv => writeln!(w, "kind,category,name,start,end,line0,line1,num_real,info")?,
            Format::Json => w.write_all(b"[")?,
            Format::Text => {}
        }
        Ok(QueryOut {
            f,
            format,
            w,
            items: 0,
            drawables: 0,
            shadows: 0,
        })
    }

    fn name(&self, c: i32) -> String {
        self.f
            .category(c)
            .map(|c| c.name.clone())
            .unwrap_or_else(|| format!("UnknownType-{c}"))
    }

    fn text(&self, r: &Rows, i: usize) -> String {
        self.f.info_text(r.category[i], r.info_of(i))
    }

    /// `[[time0, line0], [time1, line1]]`, one vertex for events.
    fn vertices(&self, r: &Rows, i: usize) -> Value {
        let one = self
            .f
            .category(r.category[i])
            .is_some_and(|c| c.topology == Topology::Event);
        if one {
            json!([[r.time0[i], r.line0[i]]])
        } else {
            json!([[r.time0[i], r.line0[i]], [r.time1[i], r.line1[i]]])
        }
    }

    /// Write every top-level row of `r` (members go with their composite).
    pub fn rows(&mut self, r: &Rows) -> io::Result<()> {
        let mut wk = 0; // next entry of r.weights (grouped by row ascending)
        for i in 0..r.len() {
            if r.parent[i] >= 0 {
                continue;
            }
            let shadow = r.kind[i] == ROW_SHADOW;
            if shadow {
                self.shadows += 1;
            } else {
                self.drawables += 1;
            }
            while wk < r.weights.len() && (r.weights.row[wk] as usize) < i {
                wk += 1;
            }
            let mut wend = wk;
            while wend < r.weights.len() && r.weights.row[wend] as usize == i {
                wend += 1;
            }
            let weights = wk..wend;
            let name = self.name(r.category[i]);
            match self.format {
                Format::Text if shadow => {
                    write!(
                        self.w,
                        "shadow    {:<20} [{}, {}] lines {}->{} n={}",
                        name, r.start[i], r.end[i], r.line0[i], r.line1[i], r.num_real[i]
                    )?;
                    for k in weights {
                        write!(
                            self.w,
                            " {}:{}/{}x{}",
                            self.name(r.weights.category[k]),
                            r.weights.incl[k],
                            r.weights.excl[k],
                            r.weights.count[k]
                        )?;
                    }
                    writeln!(self.w)?;
                }
                Format::Text => {
                    write!(
                        self.w,
                        "{:<9} {:<20} [{}, {}] lines {}->{}",
                        r.kind_name(self.f, i),
                        name,
                        r.start[i],
                        r.end[i],
                        r.line0[i],
                        r.line1[i]
                    )?;
                    let text = self.text(r, i);
                    if !text.is_empty() {
                        write!(self.w, " {text}")?;
                    }
                    writeln!(self.w)?;
                }
                Format::Csv if shadow => writeln!(
                    self.w,
                    "shadow,{},{},{},{},{},{},{},",
                    r.category[i],
                    csv(&name),
                    r.start[i],
                    r.end[i],
                    r.line0[i],
                    r.line1[i],
                    r.num_real[i]
                )?,
                Format::Csv => writeln!(
                    self.w,
                    "{},{},{},{},{},{},{},1,{}",
                    r.kind_name(self.f, i),
                    r.category[i],
                    csv(&name),
                    r.start[i],
                    r.end[i],
                    r.line0[i],
                    r.line1[i],
                    csv(&self.text(r, i))
                )?,
                Format::Json => {
                    let item = if shadow {
                        json!({
                            "kind": "shadow",
                            "category": r.category[i],
                            "name": name,
                            "start": r.start[i],
                            "end": r.end[i],
                            "vertices": self.vertices(r, i),
                            "num_real": r.num_real[i],
                            "weights": weights.map(|k| json!({
                                "category": r.weights.category[k],
                                "incl": r.weights.incl[k],
                                "excl": r.weights.excl[k],
                                "count": r.weights.count[k],
                            })).collect::<Vec<_>>(),
                        })
                    } else {
                        let mut o = json!({
                            "kind": r.kind_name(self.f, i),
                            "category": r.category[i],
                            "name": name,
                            "start": r.start[i],
                            "end": r.end[i],
                            "info": self.text(r, i),
                        });
                        if r.kind[i] == ROW_COMPOSITE {
                            // The members are the rows right after it.
                            let members = (i + 1..r.len())
                                .take_while(|&m| r.parent[m] == i as i32)
                                .map(|m| {
                                    json!({
                                        "category": r.category[m],
                                        "vertices": self.vertices(r, m),
                                    })
                                })
                                .collect();
                            o["members"] = Value::Array(members);
                        } else {
                            o["vertices"] = self.vertices(r, i);
                        }
                        o
                    };
                    self.json_item(&item)?;
                }
            }
            self.items += 1;
        }
        Ok(())
    }

    /// One array element, indented as `to_writer_pretty` indents a whole
    /// array (strings hold no raw newline, so indenting lines is exact).
    fn json_item(&mut self, item: &Value) -> io::Result<()> {
        let s = serde_json::to_string_pretty(item)?;
        self.w
            .write_all(if self.items == 0 { b"\n  " } else { b",\n  " })?;
        self.w.write_all(s.replace('\n', "\n  ").as_bytes())?;
        Ok(())
    }

    /// Close the output (the JSON array) and flush it.
    pub fn finish(mut self) -> io::Result<()> {
        if self.format == Format::Json {
            self.w
                .write_all(if self.items == 0 { b"]\n" } else { b"\n]\n" })?;
        }
        self.w.flush()
    }
}

pub(crate) fn csv(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
