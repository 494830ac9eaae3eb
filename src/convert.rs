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
use crate::model::{Drawable, Primitive, TimeBox, TimeText};
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
    /// CPU seconds of the source's own threads, by stage
    /// ([`TraceSource::stage_cpu`]); empty when it reads on the calling thread.
    pub source_cpu: Vec<(&'static str, f64)>,
}

/// Shortest conversion whose summary states a rate.
const MIN_RATE_SECONDS: f64 = 0.02;

impl ConvertSummary {
    /// One paragraph for the end of a conversion.
    pub fn paragraph(&self, out: &Path) -> String {
        let w = &self.write;
        // A rate over a few milliseconds measures start-up, not conversion
        // speed (a 1500-drawable file "ran at 218822 drawables/s"): below
        // 20 ms only the time is shown.
        let rate = if self.seconds >= MIN_RATE_SECONDS {
            format!(" ({:.0} drawables/s)", w.drawables as f64 / self.seconds)
        } else {
            String::new()
        };
        format!(
            "Wrote {}: {} drawables ({} primitives), {} categories ({} defined), {} y-maps + identity map, \
             tree depth {} with {} nodes, {} bytes, in {:.3} s{}{}.",
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
    /// Count a category or y-map definition.
    fn count_definition(&mut self, rec: &Record) {
        match rec {
            Record::Category(_) => self.categories_defined += 1,
            Record::YCoordMap(_) => self.ycoordmaps += 1,
            _ => {}
        }
    }

    /// CPU seconds by stage — the source's own threads, if any, then the
    /// writer's (see [`WriteSummary::stage_cpu`]; the calling thread, its
    /// "tree" stage, also checks the drawables and, unless the source has
    /// threads of its own, reads them) — and the wall seconds, as one line.
    pub fn timings(&self) -> String {
        // A source that parses on a thread of its own (not one that only
        // inflates ahead of the parser).
        let reads_apart = self.source_cpu.iter().any(|s| s.0 == "read");
        let stages: Vec<(&str, f64)> = self
            .source_cpu
            .iter()
            .chain(&self.write.stage_cpu)
            .copied()
            .collect();
        let total: f64 = stages.iter().map(|s| s.1).sum();
        let parts: Vec<String> = stages
            .iter()
            .map(|&(n, c)| {
                let n = match n {
                    "tree" if reads_apart => "check+tree",
                    "tree" => "read+tree",
                    n => n,
                };
                format!("{n} {c:.3}")
            })
            .collect();
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

/// `a <= b`, false when either is NaN (a NaN time box is a causality error).
fn ordered(a: f64, b: f64) -> bool {
    matches!(
        a.partial_cmp(&b),
        Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
    )
}

fn check_primitive(stated: TimeBox, p: &Primitive, what: &str) -> std::result::Result<(), String> {
    if !ordered(stated.start, stated.end) {
        return Err(format!(
            "{what}violation of causality: start time {} > end time {}",
            TimeText(stated.start),
            TimeText(stated.end)
        ));
    }
    for v in &p.vertices {
        if !(stated.start <= v.time && v.time <= stated.end) {
            return Err(format!(
                "{what}vertex time {} is outside its time box [{}, {}]",
                TimeText(v.time),
                TimeText(stated.start),
                TimeText(stated.end)
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
    if !ordered(stated.start, stated.end) {
        return Err(format!(
            "composite: violation of causality: start time {} > end time {}",
            TimeText(stated.start),
            TimeText(stated.end)
        ));
    }
    if let Some((_, e)) = member_problem(stated, members, member_boxes) {
        return Err(e);
    }
    Ok(())
}

/// The first composite member that breaks the rules: its index and the detail.
fn member_problem(
    stated: TimeBox,
    members: &[Primitive],
    member_boxes: &[TimeBox],
) -> Option<(usize, String)> {
    for (i, (m, b)) in members.iter().zip(member_boxes).enumerate() {
        if let Err(e) = check_primitive(*b, m, &format!("composite member {i}: ")) {
            return Some((i, e));
        }
        if !stated.contains(b) {
            return Some((
                i,
                format!(
                    "composite member {i}: time box [{}, {}] is outside the composite's [{}, {}]",
                    TimeText(b.start),
                    TimeText(b.end),
                    TimeText(stated.start),
                    TimeText(stated.end)
                ),
            ));
        }
    }
    None
}

/// Where a problem the [`Checker`] found lies: the record `i` of the last
/// batch, or, when the problem is one member of a composite, that member's
/// own place (a text trace: the member's line, not the composite's).
fn problem_location(source: &dyn TraceSource, i: usize, rec: &Record) -> String {
    if let Record::Composite(c) = rec {
        if ordered(c.stated.start, c.stated.end) {
            if let Some((m, _)) = member_problem(c.stated, &c.composite.members, &c.member_boxes) {
                return source.member_location(i, m);
            }
        }
    }
    source.location_of(i)
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
    #[inline(always)]
    fn check(&mut self, rec: &Record) -> Option<Error> {
        // The usual primitive: every vertex inside its box, in order.
        if let Record::Primitive(p) = rec {
            let b = p.stated;
            let mut inside = b.start <= b.end;
            let mut vend = f64::NEG_INFINITY;
            for v in &p.primitive.vertices {
                inside &= b.start <= v.time && v.time <= b.end;
                if v.time > vend {
                    vend = v.time;
                }
            }
            if inside
                && !p.primitive.vertices.is_empty()
                && b.end >= self.prev_end
                && (vend >= self.max_vend || self.warn_mode)
            {
                self.index += 1;
                self.prev_end = b.end;
                self.max_vend = self.max_vend.max(vend);
                return None;
            }
        }
        self.check_any(rec)
    }

    #[inline(never)]
    fn check_any(&mut self, rec: &Record) -> Option<Error> {
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

/// Convert everything `source` yields into `out`.
///
/// The source is read and checked on the calling thread, which also places
/// each drawable in the tree ([`Slog2Writer::add_drawable`]: cheap, and
/// doing it here spares handing every record to another core); the writer's
/// own threads build shadows and encode and write closed tree nodes
/// meanwhile (see [`crate::write`]). Memory stays flat: the open tree nodes
/// are bounded and closed nodes wait in bounded queues.
///
/// `progress` is called now and then with the source's progress in `[0, 1]`;
/// `warn` receives warning lines (in `CheckOrder::Warn`; in either policy,
/// the source's report of skipped lines at the end).
pub fn convert(
    source: &mut dyn TraceSource,
    out: &Path,
    opts: &ConvertOptions,
    progress: &mut dyn FnMut(f64),
    warn: &mut dyn FnMut(&str),
) -> Result<ConvertSummary> {
    let t0 = Instant::now();
    let mut w = Slog2Writer::create(out, opts.writer)?;
    let mut summary = read_source(source, opts, progress, warn, &mut w)?;
    summary.write = w.finish()?;
    summary.source_cpu = source.stage_cpu();
    progress(1.0);
    summary.seconds = t0.elapsed().as_secs_f64();
    Ok(summary)
}

/// Refuse to write `output` over `input` (the same file under any name:
/// same device and inode, so hard links and `./x` vs `x` count). The
/// writer's rename would otherwise replace the user's trace with its
/// conversion, and the source reads its input while the output is written.
/// An output that does not exist yet is always fine.
pub fn check_output_is_not_input(input: &Path, output: &Path) -> Result<()> {
    use std::os::unix::fs::MetadataExt;
    let (Ok(i), Ok(o)) = (std::fs::metadata(input), std::fs::metadata(output)) else {
        return Ok(());
    };
    if i.dev() == o.dev() && i.ino() == o.ino() {
        return Err(Error::InvalidArgument(format!(
            "the output {} is the input file {}: choose another output name (the input would be replaced)",
            output.display(),
            input.display()
        )));
    }
    Ok(())
}

/// Hand one record to the writer.
#[inline(always)]
fn add(w: &mut Slog2Writer, rec: Record) -> Result<()> {
    match rec {
        Record::Category(c) => w.add_category(*c),
        Record::YCoordMap(m) => w.add_ycoordmap(*m),
        Record::Primitive(p) => w.add_drawable(Drawable::Primitive(p.primitive)),
        Record::Composite(c) => w.add_drawable(Drawable::Composite(c.composite)),
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
    w: &mut Slog2Writer,
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
    let mut recs: Vec<Record> = Vec::new();
    let mut next_progress = 65536;

    loop {
        source.next_records(&mut recs)?;
        if recs.is_empty() {
            break;
        }
        if !warn_mode {
            // Check and place each record while it is at hand.
            for (i, rec) in recs.drain(..).enumerate() {
                summary.count_definition(&rec);
                if let Some(e) = checker.check(&rec) {
                    return Err(located(e, &problem_location(source, i, &rec)));
                }
                add(w, rec).map_err(|e| located(e, &source.location_of(i)))?;
            }
        } else {
            for (i, rec) in recs.iter().enumerate() {
                summary.count_definition(rec);
                if let Some(e) = checker.check(rec) {
                    summary.warnings += 1;
                    warn(&located(e, &problem_location(source, i, rec)).to_string());
                }
            }
            // Drawables go through the reorder buffer.
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
                                add(w, p.record)?;
                            }
                        }
                    }
                    other => add(w, other)?,
                }
            }
        }
        if checker.index >= next_progress {
            next_progress = checker.index + 65536;
            if let Some(p) = source.progress() {
                progress(p);
            }
        }
    }
    while let Some(p) = heap.pop() {
        add(w, p.record)?;
    }
    if let Some(s) = source.skipped() {
        summary.warnings += 1;
        warn(&s);
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(drawables: u64, seconds: f64) -> String {
        let s = ConvertSummary {
            write: WriteSummary {
                drawables,
                ..Default::default()
            },
            seconds,
            ..Default::default()
        };
        s.paragraph(Path::new("out.slog2"))
    }

    /// A rate over a few milliseconds measures start-up: only the time then.
    #[test]
    fn summary_states_a_rate_only_for_runs_long_enough_to_measure() {
        let tiny = summary(1500, 0.007);
        assert!(
            tiny.contains("in 0.007 s.") && !tiny.contains("/s"),
            "{tiny}"
        );
        let edge = summary(1500, MIN_RATE_SECONDS);
        assert!(edge.contains("(75000 drawables/s)"), "{edge}");
        let big = summary(3_000_000, 1.5);
        assert!(big.contains("in 1.500 s (2000000 drawables/s)."), "{big}");
    }
}
