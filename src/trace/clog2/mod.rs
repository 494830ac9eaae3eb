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
//! - this module: [`Clog2Source`], the record → drawable state machine and a
//!   [`TraceSource`];
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

/// The colour table of the reference (`jumpshot.colors`: X.Org's rgb.txt with
/// the differences listed in `clog2-format.md` §9.3).
const COLORS: &str = include_str!("colors.txt");

fn lookup_color(name: &str) -> Option<(u8, u8, u8)> {
    static TABLE: std::sync::OnceLock<FxHashMap<&'static str, (u8, u8, u8)>> =
        std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut m = FxHashMap::default();
        for line in COLORS.lines() {
            let mut it = line.splitn(4, ' ');
            let (Some(r), Some(g), Some(b), Some(n)) = (it.next(), it.next(), it.next(), it.next())
            else {
                continue;
            };
            if let (Ok(r), Ok(g), Ok(b)) = (r.parse(), g.parse(), b.parse()) {
                m.insert(n, (r, g, b));
            }
        }
        m
    });
    table.get(name).copied()
}

/// Colour `k` (k >= 1) of the palette the reference uses for nameless
/// categories: the 216 web-safe colours, red slowest, stably sorted by
/// decreasing r²+g²+b², entry `k mod 215`.
fn palette(k: u64) -> (u8, u8, u8) {
    let mut all = Vec::with_capacity(216);
    for r in 0..6u32 {
        for g in 0..6u32 {
            for b in 0..6u32 {
                all.push((r * 51, g * 51, b * 51));
            }
        }
    }
    all.sort_by_key(|&(r, g, b)| std::cmp::Reverse(r * r + g * g + b * b));
    let (r, g, b) = all[(k % 215) as usize];
    (r as u8, g as u8, b as u8)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Start,
    End,
    Solo,
}

#[derive(Debug, Clone)]
struct Cat {
    topology: Topology,
    name: Option<String>,
    color: (u8, u8, u8),
    format: Option<String>,
    /// Definitions handed over (multiplies its leftovers, as the reference does).
    defined: u64,
    /// A drawable of it has been handed to the writer.
    used: bool,
}

impl Cat {
    fn nameless(topology: Topology) -> Cat {
        Cat {
            topology,
            name: None,
            color: (255, 192, 203),
            format: None,
            defined: 0,
            used: false,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct OpenState {
    time: f64,
    info: Option<[u8; 32]>,
}

#[derive(Debug, Clone, Copy)]
struct Half {
    time: f64,
    line: i32,
    size: i32,
}

/// The pending items (open states, unpaired message halves) of one key,
/// oldest first. Almost every key has one item at a time (a state of one
/// category open on a line, a message of one tag in flight between two
/// processes), which is stored inline: a key costs no allocation, and its
/// map entry is removed when its last item leaves, so the maps hold exactly
/// the keys with something pending.
#[derive(Debug, Clone)]
enum Fifo<T> {
    One(T),
    Many(VecDeque<T>),
}

impl<T: Copy> Fifo<T> {
    #[inline]
    fn push(&mut self, x: T) {
        match self {
            Fifo::One(a) => {
                let mut q = VecDeque::with_capacity(4);
                q.push_back(*a);
                q.push_back(x);
                *self = Fifo::Many(q);
            }
            Fifo::Many(q) => q.push_back(x),
        }
    }

    /// The oldest item, and whether the key is now empty.
    #[inline]
    fn pop(&mut self) -> Option<(T, bool)> {
        match self {
            Fifo::One(a) => Some((*a, true)),
            Fifo::Many(q) => q.pop_front().map(|x| (x, q.is_empty())),
        }
    }

    fn len(&self) -> usize {
        match self {
            Fifo::One(_) => 1,
            Fifo::Many(q) => q.len(),
        }
    }
}

/// Push `x` on the queue of `key`.
#[inline]
fn fifo_push<K: std::hash::Hash + Eq, T: Copy>(m: &mut FxHashMap<K, Fifo<T>>, key: K, x: T) {
    match m.entry(key) {
        std::collections::hash_map::Entry::Occupied(mut o) => o.get_mut().push(x),
        std::collections::hash_map::Entry::Vacant(v) => {
            v.insert(Fifo::One(x));
        }
    }
}

/// The key of the open states of category `index` on line `line`.
#[inline(always)]
fn open_key(index: i32, line: i32) -> u64 {
    (index as u32 as u64) << 32 | line as u32 as u64
}

/// Open states per (category, line). A line has a few categories open at a
/// time (its nesting depth), so lines below [`DENSE_LINES`] index a short
/// list searched by category — about a third of a hash-map operation on the
/// hottest path of the conversion; other line IDs go to a map. A line's list
/// keeps its capacity when its states close (at most [`DENSE_LINES`] lists).
#[derive(Debug, Default)]
struct OpenStates {
    dense: Vec<Vec<(i32, Fifo<OpenState>)>>,
    sparse: FxHashMap<u64, Fifo<OpenState>>,
}

impl OpenStates {
    #[inline(always)]
    fn push(&mut self, index: i32, line: i32, s: OpenState) {
        let l = line as u32 as usize;
        if l >= DENSE_LINES {
            return fifo_push(&mut self.sparse, open_key(index, line), s);
        }
        if l >= self.dense.len() {
            self.dense.resize_with(l + 1, Vec::new);
        }
        let list = &mut self.dense[l];
        match list.iter_mut().find(|(c, _)| *c == index) {
            Some((_, q)) => q.push(s),
            None => list.push((index, Fifo::One(s))),
        }
    }

    /// The oldest open state of `index` on `line`.
    #[inline(always)]
    fn pop(&mut self, index: i32, line: i32) -> Option<OpenState> {
        let l = line as u32 as usize;
        if l >= DENSE_LINES {
            return fifo_pop(&mut self.sparse, open_key(index, line));
        }
        let list = self.dense.get_mut(l)?;
        let k = list.iter().position(|(c, _)| *c == index)?;
        let (x, empty) = list[k].1.pop()?;
        if empty {
            list.swap_remove(k);
        }
        Some(x)
    }

    /// (category, number of open states) of every key with open states.
    fn counts(&self) -> impl Iterator<Item = (i32, usize)> + '_ {
        let dense = self.dense.iter().flatten().map(|(c, q)| (*c, q.len()));
        let sparse = self
            .sparse
            .iter()
            .map(|(&k, q)| ((k >> 32) as i32, q.len()));
        dense.chain(sparse)
    }
}

/// Take the oldest item of `key`, removing the key when it empties.
#[inline]
fn fifo_pop<K: std::hash::Hash + Eq, T: Copy>(m: &mut FxHashMap<K, Fifo<T>>, key: K) -> Option<T> {
    match m.entry(key) {
        std::collections::hash_map::Entry::Occupied(mut o) => {
            let (x, empty) = o.get_mut().pop()?;
            if empty {
                o.remove();
            }
            Some(x)
        }
        std::collections::hash_map::Entry::Vacant(_) => None,
    }
}

/// What an event number resolves to, cached (see [`Clog2Source::hot`]).
#[derive(Debug, Clone, Copy)]
struct Hot {
    etype: i32,
    index: i32,
    role: Role,
    topology: Topology,
    /// Its category has been handed a drawable (no category record due).
    used: bool,
}

/// Slots of the event-number cache (a power of two).
const HOT_SLOTS: usize = 64;

/// Line IDs below this are counted in a vector (the y-map needs the lines
/// that carry drawables), the rest in a map.
const DENSE_LINES: usize = 1 << 16;

/// One line-table entry: communicator ID, rank in it, thread, world rank.
type LineEntry = (i32, i32, i32, i32);

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

    /// The predefined (category, role) of an event number, in the reference's
    /// insertion order (later ranges override earlier ones).
    fn predefined(&self, e: i32) -> Option<(i32, Role)> {
        let p = self.reader.preamble();
        let e = e as i64;
        let k = p.known_state_id_count as i64;
        let u = p.user_state_id_count as i64;
        let ks = p.known_solo_event_id_count as i64;
        let us = p.user_solo_event_id_count as i64;
        let d = e - p.user_solo_event_id_start as i64;
        if (0..us).contains(&d) {
            return Some(((1 + k + u + ks + d) as i32, Role::Solo));
        }
        let d = e - p.known_solo_event_id_start as i64;
        if (0..ks).contains(&d) {
            return Some(((1 + k + u + d) as i32, Role::Solo));
        }
        let d = e - p.user_event_id_start as i64;
        if (0..2 * u).contains(&d) {
            let role = if d % 2 == 0 { Role::Start } else { Role::End };
            return Some(((1 + k + d / 2) as i32, role));
        }
        let d = e - p.known_event_id_start as i64;
        if (0..2 * k).contains(&d) {
            let role = if d % 2 == 0 { Role::Start } else { Role::End };
            return Some(((1 + d / 2) as i32, role));
        }
        match e as i32 {
            SEND => Some((0, Role::Start)),
            RECV => Some((0, Role::End)),
            _ => None,
        }
    }

    fn lookup(&self, e: i32) -> Option<(i32, Role)> {
        self.events.get(&e).copied().or_else(|| self.predefined(e))
    }

    fn cat(&mut self, index: i32) -> &mut Cat {
        let (states_end, first_new) = (self.states_end, self.next_index_base);
        match self.cats.entry(index) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(v) => {
                let i = index as i64;
                let topo = if index == 0 {
                    Topology::Arrow
                } else if i >= states_end && i < first_new {
                    Topology::Event
                } else {
                    Topology::State
                };
                v.insert(Cat::nameless(topo))
            }
        }
    }

    fn category_record(&self, index: i32) -> Result<Record> {
        let c = &self.cats[&index];
        let (r, g, b) = c.color;
        let mut cat = Category::new(
            index,
            c.name.clone().unwrap_or_default(),
            c.topology,
            Color::rgba(r, g, b, 255),
            if c.topology == Topology::Arrow { 3 } else { 1 },
        );
        if let Some(f) = &c.format {
            cat.info = InfoFormat::parse(f).map_err(|e| {
                Error::Source(format!("{}: category {index}: info format {e}", self.name))
            })?;
        }
        Ok(Record::Category(Box::new(cat)))
    }

    fn rec_error(&self, r: &RawRecord, detail: String) -> Error {
        Error::malformed(
            "CLOG2 record",
            r.offset,
            format!(
                "{}: {detail} (record #{}: {})",
                self.name,
                self.reader.records_read(),
                describe(r)
            ),
        )
    }

    fn warn(&mut self, kind_count: u64, msg: String) {
        if kind_count <= MAX_WARNINGS_PER_KIND {
            self.report.warnings.push(msg);
        }
    }

    fn color_of(&self, r: &RawRecord, field: &[u8]) -> Result<(u8, u8, u8)> {
        let text = reader::text_field(field);
        let Some(text) = text else {
            return Err(self.rec_error(r, "definition has no colour name".into()));
        };
        let name = text.split(':').next().unwrap_or("");
        lookup_color(name).ok_or_else(|| {
            self.rec_error(
                r,
                format!("unknown colour name {name:?} (not in the reference's colour table)"),
            )
        })
    }

    fn line_id(&self, icomm: i32, rank: i32, thread: i32) -> i32 {
        // Java int arithmetic (wrapping), as the reference computes it.
        icomm
            .wrapping_mul(self.w.wrapping_mul(self.t))
            .wrapping_add(rank.wrapping_mul(self.t))
            .wrapping_add(thread)
    }

    /// [`rec_error`](Self::rec_error) for the record last read (its header).
    #[cold]
    fn head_error(&self, h: &Head, detail: String) -> Error {
        self.rec_error(&self.reader.record(h), detail)
    }

    #[inline]
    fn check_pending(&self, h: &Head) -> Result<()> {
        if self.pending > self.opts.max_pending {
            return Err(self.too_many_pending(h));
        }
        Ok(())
    }

    #[cold]
    fn too_many_pending(&self, h: &Head) -> Error {
        let sends: usize = self.sends.values().map(Fifo::len).sum();
        let recvs: usize = self.recvs.values().map(Fifo::len).sum();
        let states: usize = self.open.counts().map(|(_, n)| n).sum();
        self.head_error(
            h,
            format!(
                "more than {} items pending ({states} open states, {sends} sends and {recvs} receives without partner): \
                 the log never closes its states or never receives its messages",
                self.opts.max_pending
            ),
        )
    }

    /// The category and role of event number `etype`, through the cache
    /// (creating the category on first use, as [`cat`](Self::cat) does).
    #[inline]
    fn hot(&mut self, etype: i32) -> Option<Hot> {
        let slot =
            (etype as u32).wrapping_mul(0x9E37_79B9) as usize >> (32 - HOT_SLOTS.trailing_zeros());
        match self.hot[slot] {
            Some(h) if h.etype == etype => Some(h),
            _ => self.hot_miss(etype, slot),
        }
    }

    #[inline(never)]
    fn hot_miss(&mut self, etype: i32, slot: usize) -> Option<Hot> {
        let (index, role) = self.lookup(etype)?;
        let cat = self.cat(index);
        let h = Hot {
            etype,
            index,
            role,
            topology: cat.topology,
            used: cat.used,
        };
        self.hot[slot] = Some(h);
        Some(h)
    }

    /// Forget the cached event numbers (a definition may change them).
    fn cool(&mut self) {
        self.hot = [None; HOT_SLOTS];
    }

    #[inline]
    fn use_line(&mut self, l: i32) {
        let i = l as u32 as usize;
        if i < DENSE_LINES {
            if i >= self.used_dense.len() {
                self.used_dense.resize(i + 1, 0);
            }
            self.used_dense[i] += 1;
        } else {
            *self.used_lines.entry(l).or_insert(0) += 1;
        }
    }

    /// Hand a drawable of category `h.index` over (first marking its
    /// category used, unless `h` says it is).
    #[inline(always)]
    fn emit(&mut self, h: Hot, p: Primitive) -> Result<()> {
        if !h.used {
            self.first_use(h.index)?;
        }
        let v = &p.vertices;
        if let Some(first) = v.first() {
            self.use_line(first.line);
        }
        if v.len() == 2 && h.topology == Topology::Arrow {
            self.use_line(v[1].line);
        }
        self.report.drawables += 1;
        let stated = p.time_box();
        self.out.push(Record::Primitive(TracePrimitive {
            stated,
            primitive: p,
        }));
        Ok(())
    }

    /// A drawable of category `c` is about to be handed over: on the
    /// category's first, name it if it has no name and hand it over.
    #[cold]
    fn first_use(&mut self, c: i32) -> Result<()> {
        let cat = self.cat(c);
        if !cat.used {
            cat.used = true;
            if cat.name.is_none() {
                self.renamed += 1;
                let color = palette(self.renamed);
                let cat = self.cat(c);
                cat.name = Some(format!("UnknownType-{c}"));
                cat.color = color;
            }
            let rec = self.category_record(c)?;
            self.out.push(rec);
        }
        for h in self.hot.iter_mut().flatten() {
            if h.index == c {
                h.used = true;
            }
        }
        Ok(())
    }

    fn define_state(&mut self, r: &RawRecord) -> Result<()> {
        let Body::StateDef {
            start,
            end,
            color,
            name,
            format,
            ..
        } = &r.body
        else {
            return Ok(());
        };
        let rgb = self.color_of(r, color)?;
        let (s, f) = (self.lookup(*start), self.lookup(*end));
        let index = match (s, f) {
            (Some((a, _)), Some((b, _))) if a == b => a,
            (Some((a, _)), Some((b, _))) => {
                // The reference's error path: the new name is lost and the
                // previous state definition's category is handed over again.
                self.straddles += 1;
                let n = self.straddles;
                let msg = format!(
                    "{}: state definition at byte offset {} uses event {} of category {a} and event {} of category {b}; \
                     ignored as the reference does (both stay nameless)",
                    self.name, r.offset, start, end
                );
                self.warn(n, msg);
                let p = self.reader.preamble();
                let fallback = self.last_state_def.or({
                    let pairs = p.known_state_id_count as i64 + p.user_state_id_count as i64;
                    (pairs > 0).then_some(pairs as i32)
                });
                if let Some(i) = fallback {
                    self.cat(i).defined += 1;
                    let rec = self.category_record(i)?;
                    self.out.push(rec);
                }
                return Ok(());
            }
            _ => {
                let i = self.new_index(r)?;
                self.events.insert(*start, (i, Role::Start));
                self.events.insert(*end, (i, Role::End));
                self.cats.insert(i, Cat::nameless(Topology::State));
                i
            }
        };
        let cat = self.cat(index);
        if cat.topology != Topology::State && cat.topology != Topology::Arrow {
            return Err(self.rec_error(
                r,
                format!("state definition on event numbers of event category {index}"),
            ));
        }
        let name_t = reader::text_field(name);
        let format_t = reader::text_field(format);
        let cat = self.cat(index);
        if name_t.is_some() || !cat.used {
            cat.name = name_t;
        }
        cat.color = rgb;
        cat.format = format_t;
        cat.defined += 1;
        self.last_state_def = Some(index);
        let rec = self.category_record(index)?;
        self.out.push(rec);
        Ok(())
    }

    fn define_event(&mut self, r: &RawRecord) -> Result<()> {
        let Body::EventDef {
            etype,
            color,
            name,
            format,
        } = &r.body
        else {
            return Ok(());
        };
        let rgb = self.color_of(r, color)?;
        let index = match self.lookup(*etype) {
            Some((i, Role::Solo)) => i,
            Some((i, _)) => {
                return Err(self.rec_error(
                    r,
                    format!("event definition on event number {etype}, which belongs to state or arrow category {i}"),
                ))
            }
            None => {
                let i = self.new_index(r)?;
                self.events.insert(*etype, (i, Role::Solo));
                self.cats.insert(i, Cat::nameless(Topology::Event));
                i
            }
        };
        let name_t = reader::text_field(name);
        let format_t = reader::text_field(format);
        let cat = self.cat(index);
        if name_t.is_some() || !cat.used {
            cat.name = name_t;
        }
        cat.color = rgb;
        cat.format = format_t;
        cat.defined += 1;
        let rec = self.category_record(index)?;
        self.out.push(rec);
        Ok(())
    }

    fn new_index(&mut self, r: &RawRecord) -> Result<i32> {
        let i = self.next_index;
        if i > i32::MAX as i64 {
            return Err(self.rec_error(r, "too many categories".into()));
        }
        self.next_index += 1;
        Ok(i as i32)
    }

    /// A bare (`cargo` = `None`) or cargo event record.
    #[inline(always)]
    fn event(&mut self, r: &Head, etype: i32, cargo: Option<&[u8; 32]>) -> Result<()> {
        if etype == -1 {
            return Ok(());
        }
        let Some(hot) = self.hot(etype) else {
            return Err(self.head_error(
                r,
                format!("undefined event number {etype}: no definition precedes it and it is in no predefined range"),
            ));
        };
        let index = hot.index;
        let line = self.line_id(r.icomm, r.rank, r.thread);
        match (hot.topology, hot.role) {
            (Topology::State, Role::Start) => {
                self.open.push(
                    index,
                    line,
                    OpenState {
                        time: r.time,
                        info: cargo.copied(),
                    },
                );
                self.pending += 1;
                self.check_pending(r)?;
            }
            (Topology::State, Role::End) => {
                let Some(s) = self.open.pop(index, line) else {
                    return self.no_start(r, etype, index);
                };
                self.pending -= 1;
                let info = match (cargo, &s.info) {
                    (Some(b), _) | (None, Some(b)) => InfoBytes::from_slice(b),
                    (None, None) => InfoBytes::new(),
                };
                self.emit(
                    hot,
                    Primitive::new(
                        index,
                        smallvec::smallvec![Vertex::new(s.time, line), Vertex::new(r.time, line)],
                        info,
                    ),
                )?;
            }
            (Topology::Event, _) => {
                let info: InfoBytes = cargo.map(|b| InfoBytes::from_slice(b)).unwrap_or_default();
                self.emit(
                    hot,
                    Primitive::new(index, smallvec::smallvec![Vertex::new(r.time, line)], info),
                )?;
            }
            _ => {
                return Err(self.head_error(
                    r,
                    format!("a bare or cargo record on event number {etype}, which belongs to arrow category {index}"),
                ))
            }
        }
        Ok(())
    }

    #[cold]
    fn no_start(&mut self, r: &Head, etype: i32, index: i32) -> Result<()> {
        self.report.unmatched_ends += 1;
        let n = self.report.unmatched_ends;
        let msg = format!(
            "{}: end event {etype} (category {index}) at byte offset {} has no open start on its line; dropped",
            self.name, r.offset
        );
        self.warn(n, msg);
        Ok(())
    }

    /// A message record (send or receive half).
    #[inline]
    fn message(&mut self, r: &Head) -> Result<()> {
        let [etype, icomm, rank, tag, size] = self.reader.body_i32s::<5>(r);
        if etype == -1 {
            return Ok(());
        }
        let hot = match self.hot(etype) {
            Some(h) if h.topology == Topology::Arrow => h,
            Some(h) => {
                return Err(self.head_error(
                    r,
                    format!(
                        "message record on event number {etype}, which belongs to category {} (not the arrow)",
                        h.index
                    ),
                ))
            }
            None => {
                return Err(self.head_error(r, format!("undefined message event number {etype}")))
            }
        };
        let me = r.icomm.wrapping_mul(self.w).wrapping_add(r.rank);
        let partner = icomm.wrapping_mul(self.w).wrapping_add(rank);
        let line = self.line_id(r.icomm, r.rank, r.thread);
        let arrow = |from: Half, to: Half, tag: i32, size: i32| {
            let mut b = [0u8; 8];
            b[..4].copy_from_slice(&tag.to_be_bytes());
            b[4..].copy_from_slice(&size.to_be_bytes());
            Primitive::new(
                0,
                smallvec::smallvec![
                    Vertex::new(from.time, from.line),
                    Vertex::new(to.time, to.line)
                ],
                InfoBytes::from_slice(&b),
            )
        };
        let this = Half {
            time: r.time,
            line,
            size,
        };
        if hot.role == Role::Start {
            let key = (me, partner, tag);
            if let Some(rv) = fifo_pop(&mut self.recvs, key) {
                self.pending -= 1;
                return self.emit(hot, arrow(this, rv, tag, rv.size));
            }
            fifo_push(&mut self.sends, key, this);
        } else {
            let key = (partner, me, tag);
            if let Some(sd) = fifo_pop(&mut self.sends, key) {
                self.pending -= 1;
                return self.emit(hot, arrow(sd, this, tag, sd.size));
            }
            fifo_push(&mut self.recvs, key, Half { size: 0, ..this });
        }
        self.pending += 1;
        self.check_pending(r)
    }

    fn comm(&mut self, r: &RawRecord) -> Result<()> {
        let Body::Comm {
            icomm, rank, wrank, ..
        } = r.body
        else {
            return Ok(());
        };
        for t in 0..self.t {
            let key = self.line_id(icomm, rank, t);
            self.lines.insert(key, (icomm, rank, t, wrank));
        }
        if self.lines.len() > self.opts.max_pending {
            return Err(self.rec_error(
                r,
                format!(
                    "more than {} line-table entries (communicators x processes x threads)",
                    self.opts.max_pending
                ),
            ));
        }
        Ok(())
    }

    /// The records off the hot path (definitions, communicators, and
    /// anything without drawables).
    fn step(&mut self, r: &RawRecord) -> Result<()> {
        match &r.body {
            Body::StateDef { .. } => {
                self.cool();
                self.define_state(r)
            }
            Body::EventDef { .. } => {
                self.cool();
                self.define_event(r)
            }
            Body::Comm { .. } => self.comm(r),
            _ => Ok(()),
        }
    }

    /// After the end of log: leftovers, then the y-maps.
    fn finish(&mut self) -> Result<()> {
        let mut unmatched = 0u64;
        let mut open_states = 0u64;
        for (index, n) in self.open.counts() {
            let n = n as u64;
            open_states += n;
            unmatched += n * self.cats.get(&index).map_or(0, |c| c.defined);
        }
        let sends: u64 = self.sends.values().map(|q| q.len() as u64).sum();
        let recvs: u64 = self.recvs.values().map(|q| q.len() as u64).sum();
        let arrow_defs = self.cats.get(&0).map_or(1, |c| c.defined);
        unmatched += (sends + recvs) * arrow_defs;
        self.report.unmatched = unmatched;
        self.report.open_states = open_states;
        self.report.unpaired_sends = sends;
        self.report.unpaired_recvs = recvs;
        self.report.records = self.reader.records_read();
        self.report.record_bytes = self.reader.record_bytes();
        if open_states + sends + recvs > 0 {
            self.report.warnings.push(format!(
                "{}: {open_states} state(s) never ended, {sends} send(s) and {recvs} receive(s) without partner (dropped)",
                self.name
            ));
        }
        if self.report.unmatched_ends > MAX_WARNINGS_PER_KIND {
            self.report.warnings.push(format!(
                "{}: {} end event(s) without an open start in total",
                self.name, self.report.unmatched_ends
            ));
        }
        let mut used: Vec<(i32, u64)> = self.used_lines.iter().map(|(&l, &n)| (l, n)).collect();
        used.extend(
            self.used_dense
                .iter()
                .enumerate()
                .filter(|&(_, &n)| n > 0)
                .map(|(l, &n)| (l as i32, n)),
        );
        used.sort_unstable();
        let mut rows = Vec::with_capacity(used.len());
        for (l, n) in used {
            let Some(&e) = self.lines.get(&l) else {
                return Err(Error::Source(format!(
                    "{}: {n} drawable(s) on line ID {l}, which no communicator record announced",
                    self.name
                )));
            };
            rows.push((l, e));
        }
        let threads = self.t > 1;
        let (t1, t2) = if threads {
            ("Process-Thread View", "Communicator-Thread View")
        } else {
            ("Process View", "Communicator View")
        };
        let map1 = YCoordMap {
            title: t1.into(),
            column_labels: if threads {
                vec!["world_rank".into(), "thread".into()]
            } else {
                vec!["world_rank".into()]
            },
            rows: rows
                .iter()
                .map(|&(l, (_, _, t, w))| (l, if threads { vec![w, t] } else { vec![w] }))
                .collect(),
            methods: Vec::new(),
        };
        let map2 = YCoordMap {
            title: t2.into(),
            column_labels: if threads {
                vec!["commID".into(), "comm_rank".into(), "thread".into()]
            } else {
                vec!["commID".into(), "comm_rank".into()]
            },
            rows: rows
                .iter()
                .map(|&(l, (c, r, t, _))| (l, if threads { vec![c, r, t] } else { vec![c, r] }))
                .collect(),
            methods: Vec::new(),
        };
        self.out.push(Record::YCoordMap(Box::new(map1)));
        self.out.push(Record::YCoordMap(Box::new(map2)));
        Ok(())
    }

    fn start(&mut self) -> Result<()> {
        let arrow = Cat {
            topology: Topology::Arrow,
            name: Some("message".into()),
            color: (255, 255, 255),
            format: Some("msg_tag=%d, msg_size=%d".into()),
            defined: 1,
            used: false,
        };
        self.cats.insert(0, arrow);
        let rec = self.category_record(0)?;
        self.out.push(rec);
        Ok(())
    }

    /// Fill `self.out` with the records of the next batch of CLOG2 records.
    fn fill(&mut self) -> Result<()> {
        if !self.started {
            self.started = true;
            self.start()?;
        }
        while self.out.len() < 1024 && !self.finished {
            let h = match self.reader.next_head_fast() {
                Some(h) => h,
                None => match self.reader.next_head()? {
                    Some(h) => h,
                    None => {
                        self.finished = true;
                        self.finish()?;
                        break;
                    }
                },
            };
            self.last_offset = h.offset;
            match h.rectype {
                rectype::BAREEVT => {
                    let etype = self.reader.body_i32(&h, 0);
                    self.event(&h, etype, None)?;
                }
                rectype::CARGOEVT => {
                    let etype = self.reader.body_i32(&h, 0);
                    let cargo: [u8; 32] = self.reader.body_bytes(&h, 8);
                    self.event(&h, etype, Some(&cargo))?;
                }
                rectype::MSGEVT => self.message(&h)?,
                _ => {
                    let r = self.reader.record(&h);
                    self.step(&r)?;
                }
            }
        }
        Ok(())
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
