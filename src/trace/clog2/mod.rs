//! CLOG2 (MPE's `.clog2` logs) as a trace source, reproducing `clog2TOslog2`.
//!
//! MPI programs linked with MPE write a CLOG-02.44 file at `MPI_Finalize`: a
//! time-sorted stream of raw *records* (state/event definitions, bare and
//! cargo events, message events, communicator events …) in fixed-size blocks.
//! It has no drawables: the reference converter pairs the records up (start
//! and end events into states, sends and receives into arrows) and invents
//! categories and y-maps. This module does the same, record for record, as
//! `clog2-format.md` §9 describes (checked against the reference's outputs for
//! every fixture in `../shared/fixtures/clog2`):
//!
//! - [`reader`]: the byte layer (preamble, blocks, every record type, either
//!   byte order) with one block buffer, or over the mapped file;
//! - this module: [`Clog2Source`] (its options, report and the
//!   [`TraceSource`]), with the record → drawable state machine in three
//!   files: `defs.rs` (definitions → categories), `events.rs` (records →
//!   states, arrows, events) and `pairing.rs` (open states and messages in
//!   flight);
//! - [`print`](mod@print): `clog2print`'s dump;
//! - [`gen`]: a generator of valid CLOG2 files for tests and benchmarks.
//!
//! ## Why it streams, and what bounds memory
//!
//! A merged log is time-sorted, so a drawable is complete at its last record
//! (a state at its end event, an arrow at whichever half comes second, an
//! event at once) and leaves in non-decreasing end time — exactly the order
//! the one-pass SLOG-2 writer wants. Nothing is buffered but what cannot be
//! complete yet: **open states** (per category and line, FIFO as the
//! reference matches them) and **messages in flight** (per sender, receiver
//! and tag), plus the communicator line table (one entry per communicator ×
//! process × thread) and the categories. So memory follows the program's
//! concurrency, not the log's length. A pathological log (millions of sends
//! never received, states never closed) hits [`Clog2Options::max_pending`]
//! (default 2,000,000 pending items, about 100 MB; the same bound applies to
//! line-table entries, and `max_thread_count` is capped at [`MAX_THREADS`])
//! and stops with an error
//! that gives the counts and the record; below the limit, leftovers are
//! reported as "Number of Unmatched Events" and as a warning with counts.
//!
//! ## Where we differ from the reference (on purpose)
//!
//! - An event number nobody defined, an unknown colour name, an event
//!   definition on a state's number, a record kind that does not fit its
//!   event number's category, and a drawable on a line no communicator
//!   record announced are errors naming the record and its byte offset; the
//!   reference crashes (sometimes after writing a partial file). The
//!   converter's atomic output leaves no file.
//! - Little-endian files (MPE's per-process temporaries) are read in the
//!   byte order the preamble states; the reference refuses them.
//! - The unmatched-event count reproduces the reference's number (including
//!   its multiplication by the number of definitions of a category, §9.10);
//!   the warning next to it gives the real counts.

pub mod gen;
pub mod print;
pub mod reader;

use std::collections::VecDeque;
use std::io::Read;
use std::path::Path;

use rustc_hash::FxHashMap;

use crate::error::{Error, Result};
use crate::model::{
    Category, Color, InfoBytes, InfoFormat, Primitive, Topology, Vertex, YCoordMap,
};
use crate::trace::{Record, TracePrimitive, TraceSource};
mod defs;
mod events;
mod pairing;

use pairing::*;

use reader::rectype;
pub use reader::{Body, Clog2Reader, Head, Preamble, RawRecord};

/// Event numbers of message sends and receives.
pub const SEND: i32 = -101;
pub const RECV: i32 = -102;

/// Does the file start like a CLOG2 file (`CLOG-` version string)?
pub fn looks_like_bytes(head: &[u8]) -> bool {
    head.starts_with(b"CLOG-")
}

/// Does the file at `path` start like a CLOG2 file?
pub fn looks_like(path: &Path) -> bool {
    let mut head = [0u8; 5];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok()
        && looks_like_bytes(&head)
}

/// Options of the conversion.
#[derive(Debug, Clone)]
pub struct Clog2Options {
    /// Most open states plus unpaired message halves kept at once; more is an
    /// error (a log that never closes its states or receives its messages).
    pub max_pending: usize,
}

impl Default for Clog2Options {
    fn default() -> Self {
        Clog2Options {
            max_pending: 2_000_000,
        }
    }
}

/// The converter's counters and messages, for the report after a conversion.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Clog2Report {
    pub drawables: u64,
    /// The reference's "Number of Unmatched Events".
    pub unmatched: u64,
    /// States still open at the end (each counted once).
    pub open_states: u64,
    /// Sends and receives without a partner at the end.
    pub unpaired_sends: u64,
    pub unpaired_recvs: u64,
    /// End events without an open start on their line (dropped).
    pub unmatched_ends: u64,
    /// Header and body bytes of the records read (the reference's "Total ByteSize").
    pub record_bytes: u64,
    pub records: u64,
    /// Warnings (the first few of each kind).
    pub warnings: Vec<String>,
}

impl Clog2Report {
    /// The lines the reference prints at the end, then our warnings.
    pub fn lines(&self) -> Vec<String> {
        let mut v = vec![
            format!("Number of Drawables = {}", self.drawables),
            format!("Number of Unmatched Events = {}", self.unmatched),
            format!("Total ByteSize of the logfile = {}", self.record_bytes),
        ];
        v.extend(self.warnings.iter().map(|w| format!("warning: {w}")));
        v
    }
}

const MAX_WARNINGS_PER_KIND: u64 = 10;

/// Largest `max_thread_count` accepted: each communicator record adds one
/// line-table entry per thread (`clog2-format.md` §9.5).
pub const MAX_THREADS: i32 = 1024;

/// CLOG2 log → drawables, categories and y-maps, as `clog2TOslog2` makes them.
pub struct Clog2Source<R: Read> {
    reader: Clog2Reader<R>,
    name: String,
    opts: Clog2Options,
    w: i32,
    t: i32,
    cats: FxHashMap<i32, Cat>,
    /// Explicit event-number mappings (definitions); predefined ranges are
    /// computed in [`Self::lookup`].
    events: FxHashMap<i32, (i32, Role)>,
    next_index: i64,
    /// First index after the predefined state categories, and after all predefined ones.
    states_end: i64,
    next_index_base: i64,
    /// Category the last state definition handed over (the reference re-emits
    /// it on a straddling definition).
    last_state_def: Option<i32>,
    renamed: u64,
    /// Open states per (category, line).
    /// Open states per (category, line).
    open: OpenStates,
    /// Unpaired halves per (sender, receiver, tag).
    sends: FxHashMap<(i32, i32, i32), Fifo<Half>>,
    recvs: FxHashMap<(i32, i32, i32), Fifo<Half>>,
    pending: usize,
    /// Event numbers resolved lately: a record costs one compare instead of
    /// two map lookups (definition, category). Emptied by every definition.
    hot: [Option<Hot>; HOT_SLOTS],
    lines: FxHashMap<i32, LineEntry>,
    /// Drawables per line ID (first vertex; an arrow's both): below
    /// [`DENSE_LINES`] by index, the rest in the map.
    used_dense: Vec<u64>,
    used_lines: FxHashMap<i32, u64>,
    report: Clog2Report,
    straddles: u64,
    started: bool,
    finished: bool,
    last_offset: u64,
    out: Vec<Record>,
}

impl Clog2Source<std::io::Empty> {
    /// Open a CLOG2 file (memory-mapped: see [`Clog2Reader::with_map`]).
    pub fn open(path: &Path) -> Result<Self> {
        Self::open_with(path, Clog2Options::default())
    }

    pub fn open_with(path: &Path, opts: Clog2Options) -> Result<Self> {
        let f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        // SAFETY: the file is opened read-only; a truncation while it is
        // converted is caught by the reader's guard (`read::guard`).
        let map = unsafe { memmap2::Mmap::map(&f) }.map_err(|e| Error::io(path, e))?;
        let name = path.display().to_string();
        let mut reader = Clog2Reader::with_map(map)?;
        reader.file = Some(f);
        Self::with_reader(reader, name, opts)
    }
}

impl<'a> Clog2Source<&'a [u8]> {
    /// A CLOG2 log in memory (tests, fuzzing).
    pub fn from_bytes(bytes: &'a [u8]) -> Result<Self> {
        Self::new(
            bytes,
            Some(bytes.len() as u64),
            "<bytes>".into(),
            Clog2Options::default(),
        )
    }
}

impl<R: Read> Clog2Source<R> {
    /// A source over any stream; `file_len` (when known) bounds the sizes the
    /// preamble claims; `name` appears in messages.
    pub fn new(input: R, file_len: Option<u64>, name: String, opts: Clog2Options) -> Result<Self> {
        Self::with_reader(Clog2Reader::new(input, file_len)?, name, opts)
    }

    /// A source over a reader whose preamble has been read.
    pub fn with_reader(reader: Clog2Reader<R>, name: String, opts: Clog2Options) -> Result<Self> {
        let p = reader.preamble();
        for (what, v) in [
            ("known_stateID_count", p.known_state_id_count),
            ("user_stateID_count", p.user_state_id_count),
            ("known_solo_eventID_count", p.known_solo_event_id_count),
            ("user_solo_eventID_count", p.user_solo_event_id_count),
        ] {
            if !(0..=1 << 24).contains(&v) {
                return Err(Error::malformed(
                    "CLOG2 preamble",
                    0,
                    format!("{what}={v} is out of range (0 to 16777216)"),
                ));
            }
        }
        let next_index = 1
            + p.known_state_id_count as i64
            + p.user_state_id_count as i64
            + p.known_solo_event_id_count as i64
            + p.user_solo_event_id_count as i64;
        let (w, t) = (p.max_comm_world_size, p.max_thread_count);
        let states_end = 1 + p.known_state_id_count as i64 + p.user_state_id_count as i64;
        if t > MAX_THREADS {
            // Every communicator record fills one line-table entry per thread.
            return Err(Error::malformed(
                "CLOG2 preamble",
                0,
                format!("max_thread_count={t} is more than the {MAX_THREADS} threads per process we accept"),
            ));
        }
        Ok(Clog2Source {
            reader,
            name,
            opts,
            w,
            t,
            cats: FxHashMap::default(),
            events: FxHashMap::default(),
            next_index,
            states_end,
            next_index_base: next_index,
            last_state_def: None,
            renamed: 0,
            open: OpenStates::default(),
            sends: FxHashMap::default(),
            recvs: FxHashMap::default(),
            pending: 0,
            hot: [None; HOT_SLOTS],
            lines: FxHashMap::default(),
            used_dense: Vec::new(),
            used_lines: FxHashMap::default(),
            report: Clog2Report::default(),
            straddles: 0,
            started: false,
            finished: false,
            last_offset: 0,
            out: Vec::new(),
        })
    }

    pub fn preamble(&self) -> &Preamble {
        self.reader.preamble()
    }

    /// An error of a log that was truncated while mapped is that, not the
    /// damage the zeros read since look like.
    fn settle(&self, e: Error) -> Error {
        if self.reader.changed_now() {
            crate::read::guard::changed_error(Some(Path::new(&self.name)))
        } else {
            e
        }
    }

    /// Counters so far (complete once the source is exhausted).
    pub fn counts(&self) -> &Clog2Report {
        &self.report
    }
}

/// One-line description of a record (its `clog2print` lines).
fn describe(r: &RawRecord) -> String {
    let mut v = Vec::new();
    print::record_lines(r, &mut v);
    let s: String = v
        .iter()
        .map(|&b| {
            if (32..127).contains(&b) || b == b'\n' {
                b as char
            } else {
                '.'
            }
        })
        .collect();
    s.trim_end().replace('\n', " ")
}

impl<R: Read> TraceSource for Clog2Source<R> {
    fn next_record(&mut self) -> Result<Option<Record>> {
        if self.out.is_empty() {
            self.fill().map_err(|e| self.settle(e))?;
            self.out.reverse();
        }
        Ok(self.out.pop())
    }

    fn next_records(&mut self, out: &mut Vec<Record>) -> Result<()> {
        out.clear();
        if !self.out.is_empty() {
            // Left over from next_record calls (stored reversed).
            self.out.reverse();
        } else {
            self.fill().map_err(|e| self.settle(e))?;
        }
        std::mem::swap(out, &mut self.out);
        Ok(())
    }

    fn location(&self) -> String {
        format!("{} byte offset {}", self.name, self.last_offset)
    }

    fn progress(&self) -> Option<f64> {
        Some(self.reader.progress())
    }

    fn report(&self) -> Vec<String> {
        if self.finished {
            self.report.lines()
        } else {
            Vec::new()
        }
    }
}
