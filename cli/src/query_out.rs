//! `slog2 query` output, written from the library's query columns
//! ([`Rows`]) as they come: a window is decoded in pieces
//! ([`Slog2File::window_rows_each`]) and each piece is written before the
//! next is decoded, so the whole-file query of a 1M-drawable file holds one
//! piece, not the window (BENCHMARKS.md, "CLI query memory"). The JSON is
//! the same array `serde_json` would print for the whole list, written an
//! item at a time.
//!
//! Every format shows the same rows as every binding's table
//! (`slog2::read::counts` defines them): one row per drawable and one per
//! composite member, numbered from 0 in the window (`row`), a member's
//! `parent` being its composite's row and every other row's -1, and
//! `num_real` as in the columns (1 for a primitive, the member count of a
//! composite, the primitives a shadow summarises). CSV has a line per row;
//! text a line per row with members indented under their composite; JSON
//! an item per drawable with its members inside it (each with its `row` and
//! `parent`).
//!
//! What each format shows of a row: `kind` is `composite`, `shadow` or the
//! category's topology; a primitive's `vertices` are its first and last
//! vertex (one for an event: an arrow keeps its direction); a shadow's
//! vertices are its box start and end with its first and last line, plus
//! its per-category weights.

use std::io::{self, Write};

use serde_json::{json, Value};
use slog2::read::rows::{Rows, ROW_COMPOSITE, ROW_SHADOW};
use slog2::read::Slog2File;
use slog2::Topology;

/// The output formats of `slog2 query --format`.
#[derive(Clone, Copy, clap::ValueEnum, PartialEq)]
pub(crate) enum Format {
    Text,
    Csv,
    Json,
}

/// The `--stats` line and the empty-window note of a query.
pub(crate) struct Summary {
    pub line: String,
    pub empty: Option<String>,
}

/// Writes the rows of one query as they are handed over.
pub(crate) struct QueryOut<'a, W: Write> {
    f: &'a Slog2File,
    format: Format,
    w: W,
    /// Items written (JSON: whether a comma is due).
    items: usize,
    /// Rows written before the current piece (row numbers count from the
    /// window's first row across pieces).
    base: usize,
    /// Drawables, composite members and shadows written (for `--stats` and
    /// the empty-window note).
    pub drawables: usize,
    pub members: usize,
    pub shadows: usize,
}

impl<'a, W: Write> QueryOut<'a, W> {
    pub fn new(f: &'a Slog2File, format: Format, mut w: W) -> io::Result<Self> {
        match format {
            Format::Csv => writeln!(
                w,
                "row,parent,kind,category,name,start,end,time0,line0,time1,line1,num_real,info"
            )?,
            Format::Json => w.write_all(b"[")?,
            Format::Text => {}
        }
        Ok(QueryOut {
            f,
            format,
            w,
            items: 0,
            base: 0,
            drawables: 0,
            members: 0,
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

    /// The window-wide number of row `i` of the current piece, and of its
    /// parent (-1 for none).
    fn row_ids(&self, r: &Rows, i: usize) -> (usize, i64) {
        let p = r.parent[i];
        (
            self.base + i,
            if p >= 0 {
                (self.base + p as usize) as i64
            } else {
                -1
            },
        )
    }

    /// Write every row of `r` (a piece of the window: whole records).
    pub fn rows(&mut self, r: &Rows) -> io::Result<()> {
        let mut wk = 0; // next entry of r.weights (grouped by row ascending)
        for i in 0..r.len() {
            let (row, parent) = self.row_ids(r, i);
            let member = parent >= 0;
            let shadow = r.kind[i] == ROW_SHADOW;
            if shadow {
                self.shadows += 1;
            } else if member {
                self.members += 1;
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
                    // Members are indented under their composite.
                    let kind = r.kind_name(self.f, i);
                    if member {
                        write!(self.w, "  {kind:<7}")?;
                    } else {
                        write!(self.w, "{kind:<9}")?;
                    }
                    write!(
                        self.w,
                        " {:<20} [{}, {}] lines {}->{}",
                        name, r.start[i], r.end[i], r.line0[i], r.line1[i]
                    )?;
                    let text = self.text(r, i);
                    if !text.is_empty() {
                        write!(self.w, " {text}")?;
                    }
                    if r.kind[i] == ROW_COMPOSITE {
                        write!(self.w, " ({} members)", r.num_real[i])?;
                    }
                    writeln!(self.w)?;
                }
                Format::Csv => writeln!(
                    self.w,
                    "{row},{parent},{},{},{},{},{},{},{},{},{},{},{}",
                    r.kind_name(self.f, i),
                    r.category[i],
                    csv(&name),
                    r.start[i],
                    r.end[i],
                    r.time0[i],
                    r.line0[i],
                    r.time1[i],
                    r.line1[i],
                    r.num_real[i],
                    if shadow {
                        String::new()
                    } else {
                        csv(&self.text(r, i))
                    }
                )?,
                // Members are written inside their composite's item.
                Format::Json if member => {}
                Format::Json => {
                    let item = if shadow {
                        json!({
                            "row": row,
                            "parent": -1,
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
                            "row": row,
                            "parent": -1,
                            "kind": r.kind_name(self.f, i),
                            "category": r.category[i],
                            "name": name,
                            "start": r.start[i],
                            "end": r.end[i],
                            "num_real": r.num_real[i],
                            "info": self.text(r, i),
                        });
                        if r.kind[i] == ROW_COMPOSITE {
                            // The members are the rows right after it.
                            let members = (i + 1..r.len())
                                .take_while(|&m| r.parent[m] == i as i32)
                                .map(|m| {
                                    let (mrow, mparent) = self.row_ids(r, m);
                                    json!({
                                        "row": mrow,
                                        "parent": mparent,
                                        "kind": r.kind_name(self.f, m),
                                        "category": r.category[m],
                                        "name": self.name(r.category[m]),
                                        "start": r.start[m],
                                        "end": r.end[m],
                                        "info": self.text(r, m),
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
            if !member || self.format != Format::Json {
                self.items += 1;
            }
        }
        self.base += r.len();
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

    /// What was written: the `--stats` line and, for an empty window, a
    /// note naming the file's time range (a window outside the file gives
    /// no rows and exit 0, so a user needs the hint).
    pub fn summary(&self, f: &Slog2File, t0: f64, t1: f64) -> Summary {
        let tb = f.total_time();
        Summary {
            line: format!(
                "window [{t0}, {t1}]: {} drawables, {} composite members, {} shadows",
                self.drawables, self.members, self.shadows
            ),
            empty: (self.drawables + self.shadows == 0).then(|| {
                format!(
                    "no drawables in the window [{t0}, {t1}]; the file spans [{}, {}] s",
                    tb.start, tb.end
                )
            }),
        }
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

fn csv(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
