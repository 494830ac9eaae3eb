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
use crate::model::{Drawable, Primitive, TimeBox};
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
    /// CPU seconds of the reading thread (source, checks, hand-over).
    pub read_cpu: f64,
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

impl ConvertSummary {
    /// CPU seconds by stage — `read` (parsing and checking on the calling
    /// thread), then the writer's (`tree`, `shadows`, `blocks`) — and the
    /// wall seconds, as one line.
    pub fn timings(&self) -> String {
        let mut stages = vec![("read", self.read_cpu)];
        stages.extend(self.write.stage_cpu.iter().copied());
        let total: f64 = stages.iter().map(|s| s.1).sum();
        let parts: Vec<String> = stages.iter().map(|(n, c)| format!("{n} {c:.3}")).collect();
        format!(
            "CPU seconds by stage: {} (total {total:.3}) in {:.3} s wall",
            parts.join(", "),
            self.seconds
        )
    }
}

/// Check one top-level drawable as the reference's `-tc` does; `Err(detail)`.
/// `members` are the members of a composite with their stated boxes; a
/// primitive is checked against its own stated box.
pub fn check_drawable(
    stated: TimeBox,
    d: &Drawable,
    member_boxes: &[TimeBox],
) -> std::result::Result<(), String> {
    match d {
        Drawable::Primitive(p) => check_primitive(stated, p, ""),
        Drawable::Composite(c) => check_composite(stated, &c.members, member_boxes),
    }
}

fn check_primitive(stated: TimeBox, p: &Primitive, what: &str) -> std::result::Result<(), String> {
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

fn check_composite(
    stated: TimeBox,
    members: &[Primitive],
    member_boxes: &[TimeBox],
) -> std::result::Result<(), String> {
    if !(stated.start <= stated.end) {
        return Err(format!(
            "composite: violation of causality: start time {} > end time {}",
            stated.start, stated.end
        ));
    }
    for (i, (m, b)) in members.iter().zip(member_boxes).enumerate() {
        check_primitive(*b, m, &format!("composite member {i}: "))?;
        if !stated.contains(b) {
            return Err(format!(
                "composite member {i}: time box [{}, {}] is outside the composite's [{}, {}]",
                b.start, b.end, stated.start, stated.end
            ));
        }
    }
    Ok(())
}

/// The TRACE-API time rules over the stream of drawables.
struct Checker {
    /// Drawables seen (1-based index of the last one).
    index: u64,
    prev_end: f64,
    max_vend: f64,
    warn_mode: bool,
}

impl Checker {
    /// Check the next drawable record (other records pass); the problem has
    /// no location yet.
    fn check(&mut self, rec: &Record) -> Option<Error> {
        let (stated, checked, vend) = match rec {
            Record::Primitive(p) => (
                p.stated,
                check_primitive(p.stated, &p.primitive, ""),
                p.primitive.time_box().end,
            ),
            Record::Composite(c) => (
                c.stated,
                check_composite(c.stated, &c.composite.members, &c.member_boxes),
                c.composite.time_box().end,
            ),
            _ => return None,
        };
        self.index += 1;
        let index = self.index;
        let problem = if let Err(detail) = checked {
            Some(Error::InvalidDrawable {
                index,
                detail,
                location: String::new(),
            })
        } else if stated.end < self.prev_end {
            Some(Error::OrderViolation {
                index,
                end: stated.end,
                prev_end: self.prev_end,
                location: String::new(),
            })
        } else if vend < self.max_vend && !self.warn_mode {
            // Stated box fine but the vertices end earlier than the previous
            // drawable: the tree cannot place it either.
            Some(Error::InvalidDrawable {
                index,
                detail: format!(
                    "its vertices end at {} but an earlier drawable's vertices end at {}",
                    vend, self.max_vend
                ),
                location: String::new(),
            })
        } else {
            None
        };
        self.prev_end = stated.end;
        self.max_vend = self.max_vend.max(vend);
        problem
    }
}

/// The end time a drawable record is written at (its vertex envelope's).
fn record_end(rec: &Record) -> f64 {
    match rec {
        Record::Primitive(p) => p.primitive.time_box().end,
        Record::Composite(c) => c.composite.time_box().end,
        _ => f64::NEG_INFINITY,
    }
}

/// Reorder-buffer entry: min-heap by end time, then arrival.
struct Pending {
    end: f64,
    seq: u64,
    record: Record,
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

/// What the reading side hands to the writing thread: records in trace
/// order. Sources that parse in bulk ([`TraceSource::next_records`]) hand
/// over whole vectors, so a record is not moved on its way.
type Batch = Vec<Record>;

const BATCH: usize = 1024;
const WRITER_STOPPED: &str = "the writer stopped";

/// Convert everything `source` yields into `out`.
///
/// The source is read (and checked) on the calling thread while a second
/// thread runs the tree writer, so parsing and tree building overlap; records
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
    let (tx, rx) = std::sync::mpsc::sync_channel::<Batch>(4);
    // Emptied batches go back to the reading side, so batch buffers are
    // allocated once and never freed on the other thread.
    let (back_tx, back_rx) = std::sync::mpsc::sync_channel::<Batch>(8);
    let writer = std::thread::Builder::new()
        .name("slog2-writer".into())
        .spawn(move || -> Result<WriteSummary> {
            for mut batch in rx {
                for rec in batch.drain(..) {
                    match rec {
                        Record::Category(c) => w.add_category(*c)?,
                        Record::YCoordMap(m) => w.add_ycoordmap(*m)?,
                        Record::Primitive(p) => w.add_drawable(Drawable::Primitive(p.primitive))?,
                        Record::Composite(c) => w.add_drawable(Drawable::Composite(c.composite))?,
                    }
                }
                let _ = back_tx.try_send(batch);
            }
            w.finish()
        })
        .map_err(|e| Error::io(out, e))?;
    let mut chan = Channel {
        tx: &tx,
        back: &back_rx,
        pending: Vec::with_capacity(BATCH),
    };
    let read = read_source(source, opts, progress, warn, &mut chan);
    let read_cpu = crate::cputime::thread_cpu_seconds();
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
    summary.read_cpu = read_cpu;
    Ok(summary)
}

/// The sending end: single records are collected into batches; large
/// batches from the source go as they are.
struct Channel<'a> {
    tx: &'a std::sync::mpsc::SyncSender<Batch>,
    back: &'a std::sync::mpsc::Receiver<Batch>,
    pending: Batch,
}

impl Channel<'_> {
    fn empty(&self) -> Batch {
        self.back
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(BATCH))
    }

    fn send(&self, b: Batch) -> Result<()> {
        // If the writer thread stopped, its own error is the one to report.
        self.tx
            .send(b)
            .map_err(|_| Error::Source(WRITER_STOPPED.into()))
    }

    fn push(&mut self, r: Record) -> Result<()> {
        self.pending.push(r);
        if self.pending.len() >= BATCH {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let e = self.empty();
        let full = std::mem::replace(&mut self.pending, e);
        self.send(full)
    }

    /// Send a whole vector of records (keeping the order with `pending`),
    /// leaving an empty vector in its place.
    fn send_all(&mut self, recs: &mut Batch) -> Result<()> {
        if recs.len() < BATCH / 4 {
            for r in recs.drain(..) {
                self.push(r)?;
            }
            return Ok(());
        }
        self.flush()?;
        let e = self.empty();
        let full = std::mem::replace(recs, e);
        self.send(full)
    }
}

/// Attach the source location to a checking error.
fn located(e: Error, loc: &str) -> Error {
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
}

fn read_source(
    source: &mut dyn TraceSource,
    opts: &ConvertOptions,
    progress: &mut dyn FnMut(f64),
    warn: &mut dyn FnMut(&str),
    chan: &mut Channel,
) -> Result<ConvertSummary> {
    let mut summary = ConvertSummary::default();
    let warn_mode = opts.check_order == CheckOrder::Warn;
    let mut checker = Checker {
        index: 0,
        prev_end: f64::NEG_INFINITY,
        max_vend: f64::NEG_INFINITY,
        warn_mode,
    };
    let mut heap: BinaryHeap<Pending> = BinaryHeap::new();
    let window = opts.reorder_window.max(1);
    let mut recs: Batch = Vec::new();
    let mut next_progress = 65536;

    loop {
        source.next_records(&mut recs)?;
        if recs.is_empty() {
            break;
        }
        for (i, rec) in recs.iter().enumerate() {
            match rec {
                Record::Category(_) => summary.categories_defined += 1,
                Record::YCoordMap(_) => summary.ycoordmaps += 1,
                _ => {}
            }
            if let Some(e) = checker.check(rec) {
                let e = located(e, &source.location_of(i));
                if !warn_mode {
                    return Err(e);
                }
                summary.warnings += 1;
                warn(&e.to_string());
            }
        }
        if checker.index >= next_progress {
            next_progress = checker.index + 65536;
            if let Some(p) = source.progress() {
                progress(p);
            }
        }
        if !warn_mode {
            chan.send_all(&mut recs)?;
            continue;
        }
        // Warn mode: drawables go through the reorder buffer.
        let drawables = recs
            .iter()
            .filter(|r| matches!(r, Record::Primitive(_) | Record::Composite(_)))
            .count();
        let mut seq = checker.index - drawables as u64;
        for rec in recs.drain(..) {
            match rec {
                Record::Primitive(_) | Record::Composite(_) => {
                    seq += 1;
                    heap.push(Pending {
                        end: record_end(&rec),
                        seq,
                        record: rec,
                    });
                    if heap.len() > window {
                        if let Some(p) = heap.pop() {
                            chan.push(p.record)?;
                        }
                    }
                }
                other => chan.push(other)?,
            }
        }
    }
    while let Some(p) = heap.pop() {
        chan.push(p.record)?;
    }
    chan.flush()?;
    Ok(summary)
}
