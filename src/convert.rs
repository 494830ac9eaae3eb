//! The converter: a trace source in, an SLOG-2 file out.
//!
//! It sits between a [`TraceSource`] and the [`Slog2Writer`]: it checks each
//! top-level drawable the way the reference's `-tc` does (well-formed time box,
//! vertices inside the box, composite members inside the composite, end times
//! non-decreasing), reports the first problem with the record's number and
//! source location, and feeds the writer. The output appears only when the
//! whole conversion succeeded (the writer's atomic rename); any error leaves no
//! file behind.
//!
//! Two policies (`--check-order`):
//! - [`CheckOrder::Stop`] (default): the first problem is an error.
//! - [`CheckOrder::Warn`]: problems are reported as warnings and the drawable
//!   is kept, written with its vertex envelope. Drawables that arrive out of
//!   end-time order are put back in order through a bounded reorder buffer
//!   (`reorder_window` drawables); one that is later than the whole window
//!   allows is still an error, because the one-pass tree cannot place it.

use std::collections::BinaryHeap;
use std::path::Path;
use std::time::Instant;

use crate::error::{Error, Result};
use crate::model::{Drawable, TimeBox};
use crate::trace::{Record, TraceSource};
use crate::write::{Slog2Writer, WriteSummary, WriterOptions};

/// What to do with drawables that break the TRACE-API time rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CheckOrder {
    #[default]
    Stop,
    Warn,
}

#[derive(Debug, Clone)]
pub struct ConvertOptions {
    pub writer: WriterOptions,
    pub check_order: CheckOrder,
    /// Reorder buffer size for `CheckOrder::Warn`.
    pub reorder_window: usize,
}

impl Default for ConvertOptions {
    fn default() -> Self {
        ConvertOptions {
            writer: WriterOptions::default(),
            check_order: CheckOrder::Stop,
            reorder_window: 100_000,
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct ConvertSummary {
    pub write: WriteSummary,
    pub categories_defined: usize,
    pub ycoordmaps: usize,
    pub warnings: u64,
    pub seconds: f64,
}

impl ConvertSummary {
    /// One paragraph for the end of a conversion.
    pub fn paragraph(&self, out: &Path) -> String {
        let w = &self.write;
        let rate = if self.seconds > 0.0 {
            w.drawables as f64 / self.seconds
        } else {
            0.0
        };
        format!(
            "Wrote {}: {} drawables ({} primitives), {} categories ({} defined), {} y-maps + identity map, \
             tree depth {} with {} nodes, {} bytes, in {:.3} s ({:.0} drawables/s){}.",
            out.display(),
            w.drawables,
            w.primitives,
            w.categories,
            self.categories_defined,
            self.ycoordmaps,
            w.depth,
            w.nodes,
            w.bytes,
            self.seconds,
            rate,
            if self.warnings > 0 { format!(", {} warning(s)", self.warnings) } else { String::new() }
        )
    }
}

/// Check one top-level drawable as the reference's `-tc` does; `Err(detail)`.
pub fn check_drawable(
    stated: TimeBox,
    d: &Drawable,
    member_boxes: &[TimeBox],
) -> std::result::Result<(), String> {
    fn prim(
        stated: TimeBox,
        p: &crate::model::Primitive,
        what: &str,
    ) -> std::result::Result<(), String> {
        if !(stated.start <= stated.end) {
            return Err(format!(
                "{what}violation of causality: start time {} > end time {}",
                stated.start, stated.end
            ));
        }
        for v in &p.vertices {
            if !(stated.start <= v.time && v.time <= stated.end) {
                return Err(format!(
                    "{what}vertex time {} is outside its time box [{}, {}]",
                    v.time, stated.start, stated.end
                ));
            }
        }
        Ok(())
    }
    match d {
        Drawable::Primitive(p) => prim(stated, p, ""),
        Drawable::Composite(c) => {
            if !(stated.start <= stated.end) {
                return Err(format!(
                    "composite: violation of causality: start time {} > end time {}",
                    stated.start, stated.end
                ));
            }
            for (i, (m, b)) in c.members.iter().zip(member_boxes).enumerate() {
                prim(*b, m, &format!("composite member {i}: "))?;
                if !stated.contains(b) {
                    return Err(format!(
                        "composite member {i}: time box [{}, {}] is outside the composite's [{}, {}]",
                        b.start, b.end, stated.start, stated.end
                    ));
                }
            }
            Ok(())
        }
    }
}

/// Reorder-buffer entry: min-heap by end time, then arrival.
struct Pending {
    end: f64,
    seq: u64,
    drawable: Drawable,
}
impl PartialEq for Pending {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o).is_eq()
    }
}
impl Eq for Pending {}
impl PartialOrd for Pending {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Pending {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        o.end.total_cmp(&self.end).then(o.seq.cmp(&self.seq))
    }
}

/// What the reading side hands to the writing thread, in trace order.
enum Item {
    Category(crate::model::Category),
    YCoordMap(crate::model::YCoordMap),
    Drawable(Drawable),
}

const BATCH: usize = 1024;
const WRITER_STOPPED: &str = "the writer stopped";

/// Convert everything `source` yields into `out`.
///
/// The source is read (and checked) on the calling thread while a second
/// thread runs the tree writer, so parsing and tree building overlap; items
/// travel in batches through a bounded channel, which keeps memory flat.
///
/// `progress` is called now and then with the source's progress in `[0, 1]`;
/// `warn` receives warning lines (only in `CheckOrder::Warn`).
pub fn convert(
    source: &mut dyn TraceSource,
    out: &Path,
    opts: &ConvertOptions,
    progress: &mut dyn FnMut(f64),
    warn: &mut dyn FnMut(&str),
) -> Result<ConvertSummary> {
    let t0 = Instant::now();
    let mut w = Slog2Writer::create(out, opts.writer)?;
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Item>>(4);
    let writer = std::thread::Builder::new()
        .name("slog2-writer".into())
        .spawn(move || -> Result<WriteSummary> {
            for batch in rx {
                for item in batch {
                    match item {
                        Item::Category(c) => w.add_category(c)?,
                        Item::YCoordMap(m) => w.add_ycoordmap(m)?,
                        Item::Drawable(d) => w.add_drawable(d)?,
                    }
                }
            }
            w.finish()
        })
        .map_err(|e| Error::io(out, e))?;
    let read = read_source(source, opts, progress, warn, &tx);
    drop(tx);
    let written = writer
        .join()
        .unwrap_or_else(|_| Err(Error::InvalidArgument("writer thread panicked".into())));
    let mut summary = match (read, written) {
        // The writer stopped first: its error is the cause.
        (Err(Error::Source(m)), Err(e)) if m == WRITER_STOPPED => return Err(e),
        (Err(e), _) => return Err(e),
        (Ok(s), w) => ConvertSummary { write: w?, ..s },
    };
    progress(1.0);
    summary.seconds = t0.elapsed().as_secs_f64();
    Ok(summary)
}

fn read_source(
    source: &mut dyn TraceSource,
    opts: &ConvertOptions,
    progress: &mut dyn FnMut(f64),
    warn: &mut dyn FnMut(&str),
    tx: &std::sync::mpsc::SyncSender<Vec<Item>>,
) -> Result<ConvertSummary> {
    let mut summary = ConvertSummary::default();
    let mut index: u64 = 0;
    let mut prev_end = f64::NEG_INFINITY;
    let mut max_vend = f64::NEG_INFINITY;
    let mut heap: BinaryHeap<Pending> = BinaryHeap::new();
    let warn_mode = opts.check_order == CheckOrder::Warn;
    let window = opts.reorder_window.max(1);
    let mut batch: Vec<Item> = Vec::with_capacity(BATCH);
    // If the writer thread stopped, its own error is the one to report.
    let send = |batch: &mut Vec<Item>| -> Result<()> {
        let full = std::mem::replace(batch, Vec::with_capacity(BATCH));
        tx.send(full)
            .map_err(|_| Error::Source(WRITER_STOPPED.into()))
    };

    let located = |e: Error, loc: &str| -> Error {
        let loc = if loc.is_empty() {
            String::new()
        } else {
            format!(" ({loc})")
        };
        match e {
            Error::OrderViolation {
                index,
                end,
                prev_end,
                ..
            } => Error::OrderViolation {
                index,
                end,
                prev_end,
                location: loc,
            },
            Error::InvalidDrawable { index, detail, .. } => Error::InvalidDrawable {
                index,
                detail,
                location: loc,
            },
            other => other,
        }
    };

    while let Some(rec) = source.next_record()? {
        let (stated, drawable, member_boxes) = match rec {
            Record::Category(c) => {
                summary.categories_defined += 1;
                batch.push(Item::Category(c));
                continue;
            }
            Record::YCoordMap(m) => {
                summary.ycoordmaps += 1;
                batch.push(Item::YCoordMap(m));
                continue;
            }
            Record::Primitive(p) => (p.stated, Drawable::Primitive(p.primitive), Vec::new()),
            Record::Composite(c) => (c.stated, Drawable::Composite(c.composite), c.member_boxes),
        };
        index += 1;
        if index % 65536 == 0 {
            if let Some(p) = source.progress() {
                progress(p);
            }
        }
        let vend = drawable.time_box().end;
        let mut problem: Option<Error> = None;
        if let Err(detail) = check_drawable(stated, &drawable, &member_boxes) {
            problem = Some(Error::InvalidDrawable {
                index,
                detail,
                location: String::new(),
            });
        } else if stated.end < prev_end {
            problem = Some(Error::OrderViolation {
                index,
                end: stated.end,
                prev_end,
                location: String::new(),
            });
        } else if vend < max_vend && !warn_mode {
            // Stated box fine but the vertices end earlier than the previous
            // drawable: the tree cannot place it either.
            problem = Some(Error::InvalidDrawable {
                index,
                detail: format!(
                    "its vertices end at {} but an earlier drawable's vertices end at {}",
                    vend, max_vend
                ),
                location: String::new(),
            });
        }
        prev_end = stated.end;
        max_vend = max_vend.max(vend);
        if let Some(e) = problem {
            let e = located(e, &source.location());
            if !warn_mode {
                return Err(e);
            }
            summary.warnings += 1;
            warn(&e.to_string());
        }
        if warn_mode {
            let end = drawable.time_box().end;
            heap.push(Pending {
                end,
                seq: index,
                drawable,
            });
            if heap.len() > window {
                if let Some(p) = heap.pop() {
                    batch.push(Item::Drawable(p.drawable));
                }
            }
        } else {
            batch.push(Item::Drawable(drawable));
        }
        if batch.len() >= BATCH {
            send(&mut batch)?;
        }
    }
    while let Some(p) = heap.pop() {
        batch.push(Item::Drawable(p.drawable));
        if batch.len() >= BATCH {
            send(&mut batch)?;
        }
    }
    send(&mut batch)?;
    Ok(summary)
}
