//! The record walk every analysis shares: the drawables of a list of tree
//! nodes handed to a [`Visitor`] as borrowed records, filtered by a
//! [`Range`], without building rows or drawables.
//!
//! It sits on the codec's resumable [`RecordWalk`] (one bounds check per
//! well-formed primitive, fixed-offset reads: see `format::visit_drawable`)
//! with a [`RecordSink`] that turns each record into a [`PrimitiveRef`] or
//! [`CompositeRef`] on the stack and calls the visitor at once. Nothing is
//! allocated per drawable (a composite's own info bytes are copied into one
//! reused buffer, because its members are decoded before its box is known).
//!
//! Nodes are walked in increasing block offset, grouped into chunks of at
//! most [`CHUNK_BYTES`] of nearby blocks; on entering a chunk the mappings
//! of the chunk left behind are dropped, so a walk's RSS holds about one
//! chunk per thread, and the kernel is asked to read the next chunk ahead
//! when it is not in the page cache. The chunk's own pages fault in as
//! read (each fault maps the cached pages around it): for a warm file that
//! costs the kernel a fifth of mapping each chunk at once (`advise_walk`).
//!
//! A compressed file's node (`SLOG 2.0.Z`) is unpacked, header and
//! drawables only, into one buffer the walk reuses ([`drawable_bytes`]); the
//! records then walk as they would in place. The walks run per chunk on
//! rayon's pool, so the nodes of a compressed file are unpacked in parallel.

use crate::error::Result;
use crate::format::{PackedNode, PrimRef, RecordSink, RecordWalk};
use crate::model::{TimeBox, Topology};
use crate::read::Slog2File;

use super::lookup::Lookup;

/// Bytes of nearby node blocks advised at a time.
pub(crate) const CHUNK_BYTES: usize = 4 << 20;
/// Largest gap between two blocks of one chunk.
const MAX_GAP: usize = 1 << 20;

/// Which drawables of a time range an analysis sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Select {
    /// Every primitive whose own time box intersects the closed range
    /// `[t0, t1]` (and every composite whose box does): what a window query
    /// of the range shows. A drawable crossing the range's edges is seen
    /// whole; analyses clip it if they need to.
    Intersecting,
    /// Every primitive (composite) whose start lies in the half-open range
    /// `[t0, t1)`. Ranges that tile the time axis, e.g. `[a, b)`, `[b, c)`,
    /// `[c, +inf)`, see every drawable exactly once between them: partial
    /// results of such partitions (Dask tasks) add up to the whole.
    StartingIn,
}

/// The time range an analysis covers and how drawables are selected by it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range {
    pub t0: f64,
    pub t1: f64,
    pub select: Select,
}

impl Range {
    /// The drawables intersecting `[t0, t1]` ([`Select::Intersecting`]).
    pub fn intersecting(t0: f64, t1: f64) -> Range {
        Range {
            t0,
            t1,
            select: Select::Intersecting,
        }
    }

    /// The drawables starting in `[t0, t1)` ([`Select::StartingIn`]).
    pub fn starting_in(t0: f64, t1: f64) -> Range {
        Range {
            t0,
            t1,
            select: Select::StartingIn,
        }
    }

    /// The whole time axis (every drawable with a comparable time).
    pub fn all() -> Range {
        Range::intersecting(f64::NEG_INFINITY, f64::INFINITY)
    }

    pub(crate) fn check(&self) -> Result<()> {
        if self.t0.is_nan() || self.t1.is_nan() || self.t0 > self.t1 {
            return Err(crate::Error::InvalidArgument(format!(
                "time range [{}, {}] is empty or not a number",
                self.t0, self.t1
            )));
        }
        Ok(())
    }

    /// Whether a drawable with this box is selected.
    #[inline(always)]
    pub fn selects(&self, start: f64, end: f64) -> bool {
        match self.select {
            Select::Intersecting => start <= self.t1 && self.t0 <= end,
            Select::StartingIn => self.t0 <= start && start < self.t1,
        }
    }

    /// Whether a node with this box can hold a selected drawable (every
    /// drawable lies inside its node's box, spec invariant #16).
    pub(crate) fn may_hold(&self, b: &TimeBox) -> bool {
        match self.select {
            Select::Intersecting => b.start <= self.t1 && self.t0 <= b.end,
            Select::StartingIn => b.start < self.t1 && self.t0 <= b.end,
        }
    }
}

/// Where a record lies: the node's position in [`Slog2File::directory`]
/// and the offset of the (top-level) record in the node's block. With it a
/// caller can come back to a drawable later (e.g. the instances behind a
/// histogram bar) without keeping it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordAt {
    pub node: u32,
    pub offset: u32,
    /// Index of a composite member among its composite's members; -1 for a
    /// top-level record.
    pub member: i32,
}

/// A primitive (state, arrow or event; top level or composite member),
/// borrowed from the node block for the time of one visitor call.
#[derive(Debug, Clone, Copy)]
pub struct PrimitiveRef<'a> {
    pub category: i32,
    /// The category's topology; an index the file does not define is a
    /// state (the reference's placeholder category).
    pub topology: Topology,
    /// The info payload (decode with `read::decode_info`).
    pub info: &'a [u8],
    /// Time box.
    pub start: f64,
    pub end: f64,
    /// First and last vertex: an arrow goes from `(time0, line0)` to
    /// `(time1, line1)`; a state has `line0 == line1`; an event one vertex.
    pub time0: f64,
    pub line0: i32,
    pub time1: f64,
    pub line1: i32,
    /// Category of the composite this primitive is a member of.
    pub composite: Option<i32>,
    pub at: RecordAt,
}

/// A composite, handed over after its members (whose boxes make its box).
#[derive(Debug, Clone, Copy)]
pub struct CompositeRef<'a> {
    pub category: i32,
    pub info: &'a [u8],
    pub start: f64,
    pub end: f64,
    /// First line of the first member and last line of the last member.
    pub line0: i32,
    pub line1: i32,
    pub members: usize,
    pub at: RecordAt,
}

/// What an analysis does with each selected record. Calls come node by
/// node; within a node, arrows and events first, then states and
/// composites, each in stored (drawing) order; a composite's members come
/// before the composite itself. Nothing else about the order is promised
/// (parallel folds visit nodes in any order).
pub trait Visitor {
    fn primitive(&mut self, p: &PrimitiveRef<'_>);
    /// A composite's own record. Its members have already been handed to
    /// [`primitive`](Self::primitive) (each selected by its own box).
    fn composite(&mut self, c: &CompositeRef<'_>) {
        let _ = c;
    }
}

impl<V: Visitor + ?Sized> Visitor for &mut V {
    #[inline(always)]
    fn primitive(&mut self, p: &PrimitiveRef<'_>) {
        (**self).primitive(p)
    }
    fn composite(&mut self, c: &CompositeRef<'_>) {
        (**self).composite(c)
    }
}

/// The topology of each category index of a file.
pub(crate) struct Topologies(Lookup<Topology>);

impl Topologies {
    pub fn new(file: &Slog2File) -> Topologies {
        Topologies(Lookup::new(
            file.categories()
                .iter()
                .filter(|c| !c.is_preview())
                .map(|c| (c.index, c.topology)),
        ))
    }

    #[inline(always)]
    fn of(&self, category: i32) -> Topology {
        self.0.get(category).unwrap_or(Topology::State)
    }
}

/// The sink that turns the codec's record parts into visitor calls.
struct Sink<'v, V> {
    v: &'v mut V,
    range: Range,
    topo: &'v Topologies,
    at: RecordAt,
    comp_category: i32,
    comp_info: Vec<u8>,
    comp_box: TimeBox,
    comp_lines: (i32, i32),
    members: usize,
    members_left: usize,
}

impl<V: Visitor> RecordSink for Sink<'_, V> {
    fn composite(&mut self, category: i32, info: &[u8], members: usize) {
        self.comp_category = category;
        self.comp_info.clear();
        self.comp_info.extend_from_slice(info);
        self.comp_box = TimeBox::EMPTY;
        self.members = members;
        self.members_left = members;
        self.at.member = 0;
    }

    #[inline(always)]
    fn primitive(&mut self, p: &PrimRef<'_>, member: bool) {
        let (category, info, tbox) = (p.category, p.info, p.tbox);
        let (first, last) = (p.first(), p.last());
        if self.range.selects(tbox.start, tbox.end) {
            self.v.primitive(&PrimitiveRef {
                category,
                topology: self.topo.of(category),
                info,
                start: tbox.start,
                end: tbox.end,
                time0: first.time,
                line0: first.line,
                time1: last.time,
                line1: last.line,
                composite: if member {
                    Some(self.comp_category)
                } else {
                    None
                },
                at: if member {
                    self.at
                } else {
                    RecordAt {
                        member: -1,
                        ..self.at
                    }
                },
            });
        }
        if !member || self.members_left == 0 {
            return;
        }
        if self.members_left == self.members {
            self.comp_lines.0 = first.line;
        }
        self.comp_lines.1 = last.line;
        self.comp_box = self.comp_box.union(&tbox);
        self.members_left -= 1;
        self.at.member += 1;
        if self.members_left == 0 && self.range.selects(self.comp_box.start, self.comp_box.end) {
            self.v.composite(&CompositeRef {
                category: self.comp_category,
                info: &self.comp_info,
                start: self.comp_box.start,
                end: self.comp_box.end,
                line0: self.comp_lines.0,
                line1: self.comp_lines.1,
                members: self.members,
                at: RecordAt {
                    member: -1,
                    ..self.at
                },
            });
        }
    }
}

/// The directory positions of the nodes that may hold drawables of
/// `range`, in increasing block offset.
pub(crate) fn nodes_for(file: &Slog2File, range: &Range) -> Vec<u32> {
    let dir = file.directory();
    let mut v: Vec<u32> = (0..dir.len() as u32)
        .filter(|&p| range.may_hold(&dir[p as usize].time_box))
        .collect();
    v.sort_unstable_by_key(|&p| dir[p as usize].ptr.offset);
    v
}

/// Split nodes (in increasing block offset) into runs of nearby blocks of
/// about [`CHUNK_BYTES`] each: the units of parallel work.
pub(crate) fn chunks(file: &Slog2File, nodes: &[u32]) -> Vec<std::ops::Range<usize>> {
    let dir = file.directory();
    let mut out = Vec::new();
    let mut i = 0;
    while i < nodes.len() {
        let first = &dir[nodes[i] as usize].ptr;
        let begin = first.offset.max(0) as usize;
        let mut end = begin + first.size.max(0) as usize;
        let mut j = i + 1;
        while j < nodes.len() {
            let p = &dir[nodes[j] as usize].ptr;
            let (s, e) = (
                p.offset.max(0) as usize,
                (p.offset.max(0) + p.size.max(0) as i64) as usize,
            );
            if s < end || s - end > MAX_GAP || e - begin > CHUNK_BYTES {
                break;
            }
            end = e;
            j += 1;
        }
        out.push(i..j);
        i = j;
    }
    out
}

/// The bytes of node `pos` that hold its header and drawables, and their
/// file offset: the block in place on a plain file, unpacked into `buf`
/// (reused from node to node) on a compressed one.
pub(crate) fn drawable_bytes<'a>(
    file: &'a Slog2File,
    pos: u32,
    buf: &'a mut Vec<u8>,
) -> Result<(&'a [u8], u64)> {
    let (block, base) = file.raw_block(pos)?;
    if !file.is_compressed() {
        return Ok((block, base));
    }
    PackedNode::parse(block, base)?.unpack_into(false, buf)?;
    Ok((&buf[..], base))
}

/// Walk the drawables of `nodes` (directory positions in increasing block
/// offset) into `v`, selecting by `range`. Memory-mapped files are advised
/// chunk by chunk (module docs).
pub(crate) fn walk_nodes<V: Visitor>(
    file: &Slog2File,
    nodes: &[u32],
    range: &Range,
    topo: &Topologies,
    v: &mut V,
) -> Result<()> {
    let dir = file.directory();
    let mut unpacked = Vec::new();
    let mut sink = Sink {
        v,
        range: *range,
        topo,
        at: RecordAt {
            node: 0,
            offset: 0,
            member: -1,
        },
        comp_category: 0,
        comp_info: Vec::new(),
        comp_box: TimeBox::EMPTY,
        comp_lines: (0, 0),
        members: 0,
        members_left: 0,
    };
    let mut chunk = (0usize, 0usize);
    for (i, &pos) in nodes.iter().enumerate() {
        let r = dir[pos as usize].ptr.range("tree node", file.file_len())?;
        if let Some(map) = file.map() {
            if r.start < chunk.0 || r.end > chunk.0 + chunk.1 {
                let mut end = r.end;
                for &q in &nodes[i + 1..] {
                    let Ok(qr) = dir[q as usize].ptr.range("tree node", file.file_len()) else {
                        break;
                    };
                    if qr.start < end || qr.start - end > MAX_GAP || qr.end - r.start > CHUNK_BYTES
                    {
                        break;
                    }
                    end = qr.end;
                }
                advise_walk(map, chunk, end);
                chunk = (r.start, end - r.start);
            }
        }
        let (block, base) = drawable_bytes(file, pos, &mut unpacked)?;
        let mut walk = RecordWalk::new(block, base)?;
        sink.at.node = pos;
        walk.run(block, base, &mut sink, |sink, at| {
            sink.at.offset = at as u32
        })?;
    }
    Ok(())
}

/// Drop the mappings of the chunk left behind, and read ahead past the new
/// chunk when that part of the file is not in the page cache.
///
/// Measured on a 10⁷-drawable file, warm (BENCHMARKS.md, "Statistics"):
/// mapping each chunk at once (`MADV_POPULATE_READ`, the scan's advice)
/// costs the kernel 3–5 CPU-ns a drawable, the faults of a plain walk —
/// each one maps the 16 cached pages around it — under 1 ns; `WILLNEED` on
/// cached pages costs ~1.5 ns, so it is asked only when the last page
/// ahead is not resident (a cold file: then the read-ahead is what
/// matters).
fn advise_walk(map: &memmap2::Mmap, (old_at, old_len): (usize, usize), end: usize) {
    use memmap2::{Advice, UncheckedAdvice};
    if old_len > 0 {
        // SAFETY: as in `read::scan::advise_chunk`: a read-only shared
        // mapping of a file not modified while mapped; DONTNEED only drops
        // page-table entries, the next access faults the same bytes back in.
        let _ = unsafe { map.unchecked_advise_range(UncheckedAdvice::DontNeed, old_at, old_len) };
    }
    let ahead = CHUNK_BYTES.min(map.len().saturating_sub(end));
    if ahead > 0 && !resident(map, end + ahead - 1) {
        let _ = map.advise_range(Advice::WillNeed, end, ahead);
    }
}

/// Whether the page holding byte `at` of the map is in the page cache.
fn resident(map: &memmap2::Mmap, at: usize) -> bool {
    static PAGE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    // SAFETY: sysconf has no preconditions.
    let page = *PAGE.get_or_init(|| match unsafe { libc::sysconf(libc::_SC_PAGESIZE) } {
        p if p > 0 => p as usize,
        _ => 4096,
    });
    let addr = (map.as_ptr() as usize + at) & !(page - 1);
    let mut v = 0u8;
    // SAFETY: `addr` is the page-aligned start of a page of the mapping
    // (`at < map.len()`), one page long, and `v` holds its one entry.
    let r = unsafe { libc::mincore(addr as *mut libc::c_void, page, &mut v) };
    r == 0 && v & 1 == 1
}
