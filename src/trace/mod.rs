//! Trace sources: where drawables come from.
//!
//! A [`TraceSource`] hands over records the way the TRACE-API does
//! (`trace-api.md` §1.5): categories, y-coordinate maps, primitives and
//! composites, drawables in non-decreasing end time. Each drawable carries the
//! time box its source *stated* (the TRACE peek box) next to its vertices, so
//! the converter can check the two agree (errtime2: a swapped box with correct
//! vertices must be rejected) before the writer, which only trusts vertices,
//! sees it.
//!
//! Sources: the slog2sdk sample text format (`text`, and `text_par` which
//! parses large files on worker threads with exactly the same results), an
//! SLOG-2 file (`slog2`), an MPE CLOG2 log (`clog2`, which pairs raw
//! records into drawables as `clog2TOslog2` does), and any C library implementing the TRACE-API
//! (`plugin`). [`TraceSource::next_records`] hands records over in bulk, so a
//! parallel source passes whole vectors to the converter.
//!
//! [`reader::TraceReader`] is the TRACE-API's reading protocol over a source
//! (peek, get, positions by checkpoints), shared by the C and Java bindings.

use crate::error::{Error, Result};
use crate::model::{Category, Composite, Primitive, TimeBox, YCoordMap};

pub mod ahead;
pub mod clog2;
pub mod input;
pub mod plugin;
pub mod reader;
pub mod slog2;
pub mod text;
pub mod text_par;

/// A category definition as a trace delivers it (TRACE `Category_head_t` +
/// legend + label + method IDs), already split into the model's form.
pub type CategoryDef = Category;

/// A primitive with the time box its source reported.
#[derive(Debug, Clone, PartialEq)]
pub struct TracePrimitive {
    pub stated: TimeBox,
    pub primitive: Primitive,
}

/// A composite with its stated box and its members' stated boxes.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceComposite {
    pub stated: TimeBox,
    /// Stated box of each member, in member order.
    pub member_boxes: Vec<TimeBox>,
    pub composite: Composite,
}

/// One record of a trace. Primitives, the bulk of a trace, are stored inline;
/// the rarer records are boxed, which keeps a record at 96 bytes (a
/// conversion moves millions of them through batches).
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    Category(Box<CategoryDef>),
    YCoordMap(Box<YCoordMap>),
    Primitive(TracePrimitive),
    Composite(Box<TraceComposite>),
}

/// Where a source was between two records, to go back to with
/// [`TraceSource::restore`] (`TRACE_Set_position`). Opaque: each source
/// keeps what it needs (a text trace its byte offset and line, an SLOG-2
/// file the last drawable delivered) and refuses another source's.
pub struct Checkpoint(Box<dyn std::any::Any + Send + Sync>);

impl Checkpoint {
    pub(crate) fn new<T: std::any::Any + Send + Sync>(state: T) -> Self {
        Checkpoint(Box::new(state))
    }

    pub(crate) fn get<T: std::any::Any>(&self) -> Option<&T> {
        self.0.downcast_ref()
    }
}

impl std::fmt::Debug for Checkpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Checkpoint")
    }
}

/// A stream of trace records.
pub trait TraceSource {
    /// The next record, or `None` at the end.
    fn next_record(&mut self) -> Result<Option<Record>>;

    /// Where the record last returned came from, e.g. `data.txt:15`, for
    /// error messages. Empty when the source has no notion of location.
    fn location(&self) -> String {
        String::new()
    }

    /// Rough progress in `[0, 1]` (for a progress bar), if known.
    fn progress(&self) -> Option<f64> {
        None
    }

    /// Bulk interface: replace the contents of `out` with the next records,
    /// in order (empty at the end). A source that parses in bulk hands over a
    /// whole vector without moving records one by one; an error comes only
    /// after every record before it has been handed over. The default hands
    /// over one record per call.
    fn next_records(&mut self, out: &mut Vec<Record>) -> Result<()> {
        out.clear();
        if let Some(r) = self.next_record()? {
            out.push(r);
        }
        Ok(())
    }

    /// Append up to `max` next records to `out` (for a reading thread that
    /// fills batches of its own); `Ok(true)` when the source ended. On an
    /// error the records read before it are already in `out`. The default
    /// calls [`next_record`](Self::next_record) for each; a C TRACE library
    /// with slog2's bulk extension fills many at a time (`plugin`).
    fn append_records(&mut self, out: &mut Vec<Record>, max: usize) -> Result<bool> {
        for _ in 0..max {
            match self.next_record()? {
                Some(r) => out.push(r),
                None => return Ok(true),
            }
        }
        Ok(false)
    }

    /// What the source skipped as it read (lines that are no record), as
    /// one sentence for a warning; `None` when nothing was skipped.
    fn skipped(&self) -> Option<String> {
        None
    }

    /// Where `out[i]` of the last [`next_records`](Self::next_records) came
    /// from (see [`location`](Self::location)).
    fn location_of(&self, i: usize) -> String {
        let _ = i;
        self.location()
    }

    /// Where member `member` (0-based) of the composite `out[i]` of the last
    /// [`next_records`](Self::next_records) came from: a text trace names the
    /// member's own line. By default the composite's location.
    fn member_location(&self, i: usize, member: usize) -> String {
        let _ = member;
        self.location_of(i)
    }

    /// Where the source is now, between two [`next_record`](Self::next_record)
    /// calls, if it can come back here ([`restore`](Self::restore)); `None`
    /// when it cannot (the default: pipes, the CLOG2 pairing state, C
    /// plugins, the parallel text parser). Cheap: a few words, the text
    /// source's category table shared, not copied.
    fn checkpoint(&mut self) -> Option<Checkpoint> {
        None
    }

    /// Go back (or forward) to a checkpoint this source returned: the next
    /// records are exactly those that followed it, read from there, not
    /// from the start.
    fn restore(&mut self, cp: &Checkpoint) -> Result<()> {
        let _ = cp;
        Err(Error::Unsupported(
            "this trace source cannot go back to a checkpoint".into(),
        ))
    }

    /// CPU seconds of the threads the source reads on besides the caller's,
    /// by stage, for `slog2 convert --timings` (a plugin read ahead: its
    /// reading thread). Empty by default: the source reads on the caller's
    /// thread.
    fn stage_cpu(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }

    /// Lines to show after a successful conversion (e.g. the CLOG2 source's
    /// "Number of Unmatched Events"), once the source is exhausted. Empty by default.
    fn report(&self) -> Vec<String> {
        Vec::new()
    }
}

/// Open a built-in source, choosing by content ([`input`]): an SLOG-2 file,
/// a CLOG2 log, an OTF2 archive (through the shipped plugin, see
/// [`plugin`]) or the sample text format, each also gzip-compressed
/// (except OTF2), from a regular file, a pipe or a FIFO.
pub fn open_source(path: &std::path::Path) -> Result<Box<dyn TraceSource + Send>> {
    open_source_with(path, 0)
}

/// Text files at least this large are parsed by worker threads when
/// `parse_threads` is 0 (automatic) and the machine has at least
/// [`PARALLEL_MIN_CORES`] cores.
pub(crate) const PARALLEL_MIN_BYTES: u64 = 4 << 20;

/// The converter already keeps the writer's node thread busy besides the
/// reading one (which also places drawables in the tree), so on two cores
/// parsing on the reading thread is fastest (BENCHMARKS.md: parser workers
/// cost more CPU than they save there); they pay off from four cores on.
pub(crate) const PARALLEL_MIN_CORES: usize = 4;

/// [`open_source`] with a choice of text parser threads: 0 automatic, 1 the
/// sequential parser, n > 1 that many worker threads ([`text_par`]; regular,
/// uncompressed files only: a stream is parsed on the reading thread).
pub fn open_source_with(
    path: &std::path::Path,
    parse_threads: usize,
) -> Result<Box<dyn TraceSource + Send>> {
    let inp = input::open(path)?;
    let name = inp.name();
    match inp.format() {
        input::Format::Otf2 => {
            let src =
                plugin::open_with_shipped_plugin(plugin::OTF2_PLUGIN, "an OTF2 archive", path)?;
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            if parse_threads == 1 || cores < 2 {
                return Ok(Box::new(src));
            }
            // The plugin on a thread of its own, ahead of the caller.
            let name = src.lib_name().to_string();
            Ok(match ahead::ReadAhead::start(src, name) {
                Ok(ahead) => Box::new(ahead),
                Err(src) => Box::new(src),
            })
        }
        input::Format::Slog2 if inp.in_place() => Ok(Box::new(slog2::Slog2Source::open(path)?)),
        input::Format::Slog2 => {
            let file = crate::read::Slog2File::read_from(inp.into_reader(), path)?;
            Ok(Box::new(slog2::Slog2Source::from_file(file, path)))
        }
        input::Format::Clog2 if inp.in_place() => Ok(Box::new(clog2::Clog2Source::open(path)?)),
        input::Format::Clog2 => Ok(Box::new(clog2::Clog2Source::new(
            inp.into_reader(),
            None,
            name,
            clog2::Clog2Options::default(),
        )?)),
        input::Format::Text if !inp.in_place() => Ok(Box::new(text::TextSource::from_stream(
            &name,
            inp.into_stream(),
        ))),
        input::Format::Text => {
            drop(inp);
            open_text_file(path, parse_threads)
        }
    }
}

/// A regular, uncompressed text file: sequential or parallel parser.
fn open_text_file(
    path: &std::path::Path,
    parse_threads: usize,
) -> Result<Box<dyn TraceSource + Send>> {
    let mut opts = text_par::ParallelOptions::default();
    let parallel = match parse_threads {
        0 => {
            let big =
                std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() >= PARALLEL_MIN_BYTES);
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            // Leave a core each to the tree (the caller's thread) and the
            // writer's node thread.
            opts.workers = (cores.saturating_sub(2)).clamp(2, 4);
            big && cores >= PARALLEL_MIN_CORES
        }
        1 => false,
        n => {
            opts.workers = n;
            true
        }
    };
    if parallel {
        Ok(Box::new(text_par::ParallelTextSource::open(path, opts)?))
    } else {
        Ok(Box::new(text::TextSource::open(path)?))
    }
}
