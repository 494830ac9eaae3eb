//! A viewer's window that moves: [`WindowCursor`].
//!
//! # Why
//!
//! A viewer scrolls: each frame's window overlaps the last one by most of
//! its width. A fresh [`Slog2File::window_rows`] decodes every row again
//! (≈1,000 rows for a screenful), although ~3/4 of them were already on
//! screen. The reference viewer keeps the tree nodes it has read and only
//! re-iterates them; the cursor keeps the current window's **rows**
//! (columns) and, on a move that overlaps the last window,
//!
//! 1. drops the rows whose drawable no longer intersects the window (a
//!    composite goes with its members),
//! 2. takes from each node that intersects the new window only the records
//!    that intersect the new window **and not the old one**, and
//! 3. puts both together in drawing order.
//!
//! # What makes a scroll cheap
//!
//! * **Rows are not moved.** The rows live in columns with a moving head:
//!   in drawing order (start ascending first) the rows that leave on a move
//!   to later times are among the first rows, and the entering ones all
//!   start after every kept row (an entering record does not intersect the
//!   old window, so it starts after its end). So a forward scroll drops a
//!   prefix (the few long rows in it that stay are moved up to the rest)
//!   and appends the entering rows: no kept row is copied. The dead rows
//!   before the head are reclaimed by one copy of the live rows once they
//!   outnumber both the live rows and 2,048 (rows) / 1 MiB (info bytes),
//!   and before the columns would have to grow (growing would copy the dead
//!   rows too); the columns hold about twice the live rows beyond that.
//!   (Small on purpose: columns of 16,384 dead rows, ~1.3 MB, were fresh
//!   pages faulted in by the first ~70 scrolls after a jump — 5–11 µs
//!   moves instead of 2.5; a copy of ~750 live rows every ~8 moves costs
//!   less.)
//!   Other moves (backwards, zooms) merge the kept rows with the entering
//!   ones into a new buffer.
//! * **Nodes decoded once, in drawing order.** A node that enters the
//!   window during a move gets its record keys walked (one pass over its
//!   block, as for a table); its two lists are then merged into drawing
//!   order and its records decoded into rows in that order, a chunk of
//!   1,024 records (or as many as the window needs) at a time, as the
//!   window reaches them, and kept while the node intersects the window,
//!   like the reference viewer's loaded nodes. So a forward scroll's
//!   entering records are one index range per node, copied as whole runs,
//!   and a node's decoding is spread over the moves that reach it instead
//!   of landing on the one it enters with (measured on the 10M file, 20,000
//!   consecutive quarter-window scrolls: 99th percentile 85–110 µs; decoding
//!   a 64 KiB leaf whole on entering made one move in seven take 120–130 µs
//!   at its median and 200 µs at its 99th percentile). Only nodes of up to
//!   256 KiB are held that way (settable,
//!   [`set_whole_node_bytes`](WindowCursor::set_whole_node_bytes); the
//!   writers' default node is 64 KiB), at most 16 MiB of them (a wide
//!   window falls back to the next strategy), and only nodes whose lists
//!   are in drawing order with finite times (all written files; a damaged
//!   one falls back).
//! * **Otherwise record by record.** The nodes of a jump's window (a fresh
//!   query: the node cache's tables, held while on screen), and nodes the
//!   rules above exclude, give their entering records through their record
//!   table (`NodeTable::entering`); those are decoded one by one.
//!
//! The entering records (a sorted run per node held as rows, one for the
//! table-held nodes' records) are merged by drawing key. Most forward moves
//! need no directory lookup: until the window's end reaches the next node
//! start and its start passes the first end of a node on screen, the nodes
//! on screen stay the same.
//!
//! A move that does not overlap the previous window (a jump), the first move,
//! or a move on another file is a fresh window query.
//!
//! # Contract
//!
//! After `move_to(f, t0, t1)`, [`rows`](WindowCursor::rows) holds exactly the
//! rows [`Slog2File::window_rows`]`(t0, t1)` returns (same columns, same
//! meaning: a composite's row is followed by its members' rows, `parent`
//! points at the composite's row), **in drawing order** (start ascending,
//! then end descending, category, first line, last line: the order a viewer
//! draws in so that nested states land on top of their parents). Rows whose
//! drawing keys are equal (the same box, category and lines) may come in a
//! different order than from `window_rows`; nothing distinguishes them for
//! drawing. The stats of the rows are those of the move: `bytes_read` counts
//! the records decoded by this move (entering records of table-held nodes,
//! chunks of the others), `bytes_indexed` the node blocks whose keys it
//! walked.
//!
//! Files whose records stick out of their node's box (damaged: `slog2 check`
//! reports them) may keep such a record in the cursor where a fresh query,
//! which only visits nodes intersecting the window, would not find it.

use std::ops::Range;
use std::sync::Arc;

use smallvec::SmallVec;

use crate::error::Result;
use crate::format::{self, RecordKey};
use crate::model::{DrawingKey, TimeBox};

use super::index::NodeTable;
use super::rows::{push_record, Rows, RowsRef, ROW_COMPOSITE};
use super::{drawing_key, QueryStats, Slog2File};

/// Nodes up to this many bytes are held as rows (default).
const WHOLE_NODE_BYTES: usize = 256 << 10;
/// Block bytes of nodes held as rows, at most.
const WHOLE_BUDGET: usize = 16 << 20;
/// Dead rows / info bytes before the head that trigger a compaction (when
/// they also outnumber the live ones).
const SLIDE_ROWS: usize = 2 << 10;
const SLIDE_INFO: usize = 1 << 20;
/// Records of a held node decoded at a time.
const CHUNK: usize = 1024;

/// The current window of one viewer, kept up to date move by move (see the
/// module docs). Not shared between threads while moving (`&mut self`); many
/// cursors may move on one file at once.
pub struct WindowCursor {
    /// Identity of the file the rows come from (its address).
    file: usize,
    window: Option<TimeBox>,
    /// Live rows are `head..`, their info bytes `info_head..`; `parent` and
    /// `info_offset` values count from there.
    buf: Rows,
    head: usize,
    info_head: usize,
    spare: Rows,
    /// The nodes intersecting the window, by directory position.
    held: Vec<OnScreen>,
    held_spare: Vec<OnScreen>,
    nodes: Vec<u32>,
    /// Entering records of nodes held as tables: node position, key.
    entering: Vec<(u32, RecordKey)>,
    keyed: Vec<(DrawingKey, u32, RecordKey)>,
    /// Those records decoded, in drawing order.
    extra: Rows,
    /// Record bounds of `extra`: record `i` is rows `bounds[i]..bounds[i + 1]`.
    extra_bounds: Vec<u32>,
    /// Entering records of held nodes that are not one index range (moves
    /// to earlier times), copied out, and their bounds.
    left: Rows,
    left_bounds: Vec<u32>,
    runs: Vec<Run>,
    /// Entering rows merged (moves other than forward scrolls).
    ent: Rows,
    /// Rows staying in a dropped prefix, with their info span.
    stay: Vec<(u32, u32, u32)>,
    whole_node_bytes: usize,
    chunk: usize,
    slide_rows: usize,
    /// Compactions of the rows so far (for tests).
    compactions: u64,
    /// `held` is every node of the window, and until the window's end
    /// reaches `next_start` or its start passes `min_end`, a later window
    /// has the same nodes.
    complete: bool,
    next_start: f64,
    min_end: f64,
}

/// A node intersecting the window.
struct OnScreen {
    pos: u32,
    node: Held,
    /// Decoded nodes: the first record starting after this time (the
    /// window's end at the last move), so a forward scroll starts there.
    hint: Hint,
    /// No record starts between the last window's end and this time, so a
    /// forward move that stays before it takes none (`-inf`: unknown).
    next: f64,
}

/// A decoded node's first record starting after a time (the window's end
/// at the last move): (time, record).
type Hint = Option<(f64, u32)>;

/// How a node on screen is held.
enum Held {
    /// Its record table (the node cache's): records decoded one by one.
    Table(Arc<NodeTable>),
    /// Its records as rows, in drawing order (decoded as far as needed).
    Rows(Box<NodeRows>),
}

/// One sorted run of entering records, contiguous rows: records
/// `range` of the node held as rows `held[i]` (bounds: its `first_row`), or
/// of `extra` or `left` (bounds: theirs).
struct Run {
    src: Src,
    range: Range<usize>,
}

#[derive(Clone, Copy)]
enum Src {
    Node(usize),
    Extra,
    Left,
}

/// A run's rows and its record bounds (`records + 1` entries: record `i`
/// is rows `bounds[i]..bounds[i + 1]`).
type RunRows<'a> = (RowsRef<'a>, &'a [u32]);

/// The records of one node, its two lists merged into drawing order, and
/// the rows of the first ones: a forward scroll needs them in that order, so
/// they are merged and decoded in chunks of [`CHUNK`] records (or more) as
/// the window reaches them (a node's first chunk on entering, the next ones
/// on later moves), not all at once on entering. (Merging a 64 KiB leaf's
/// two lists whole took ~28 µs of the ~77 µs of the move it entered with.)
struct NodeRows {
    pos: u32,
    /// The node's two lists (nestless, nestable), each in drawing order.
    lists: [Vec<RecordKey>; 2],
    /// The first record of each list not merged yet, and the earliest of
    /// their starts (`+inf` once all are merged).
    next: [usize; 2],
    unmerged_start: f64,
    /// Keys of the records merged so far, in drawing order: every record
    /// starting by `rec_start.last()`.
    keys: Vec<RecordKey>,
    /// Rows of the first `first_row.len() - 1` records.
    rows: Rows,
    /// Row where record `i` begins.
    first_row: Vec<u32>,
    /// Start of each merged record.
    rec_start: Vec<f64>,
    /// Running maximum of merged record ends.
    max_end: Vec<f64>,
    /// The block's length (what the budget counts).
    block_bytes: usize,
    /// Records merged and decoded at a time, at least.
    chunk: usize,
}

impl Default for WindowCursor {
    fn default() -> Self {
        WindowCursor {
            file: 0,
            window: None,
            buf: Rows::default(),
            head: 0,
            info_head: 0,
            spare: Rows::default(),
            held: Vec::new(),
            held_spare: Vec::new(),
            nodes: Vec::new(),
            entering: Vec::new(),
            keyed: Vec::new(),
            extra: Rows::default(),
            extra_bounds: Vec::new(),
            left: Rows::default(),
            left_bounds: Vec::new(),
            runs: Vec::new(),
            ent: Rows::default(),
            stay: Vec::new(),
            whole_node_bytes: WHOLE_NODE_BYTES,
            chunk: CHUNK,
            slide_rows: SLIDE_ROWS,
            compactions: 0,
            complete: false,
            next_start: f64::NEG_INFINITY,
            min_end: f64::INFINITY,
        }
    }
}

impl std::fmt::Debug for WindowCursor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WindowCursor")
            .field("window", &self.window)
            .field("rows", &(self.buf.len() - self.head))
            .field("nodes_held", &self.held.len())
            .finish()
    }
}

impl WindowCursor {
    /// A cursor with no window yet (its first move is a fresh query).
    pub fn new() -> WindowCursor {
        WindowCursor::default()
    }

    /// Hold nodes of up to `bytes` as rows in drawing order when they enter
    /// the window (decoded in chunks as the window reaches them) and copy
    /// their rows on later moves (default 256 KiB); `0`: every entering
    /// record is decoded on its own, through the node's record table (the
    /// least decoding per move, and a 5–6× slower scroll; see
    /// BENCHMARKS.md, "Window queries"). The cursor forgets its window.
    pub fn set_whole_node_bytes(&mut self, bytes: usize) {
        self.whole_node_bytes = bytes;
        self.held.clear();
        self.window = None;
    }

    /// Compact the rows once this many dead rows precede the live ones
    /// (default 2,048; for tests of the compaction).
    #[doc(hidden)]
    pub fn set_slide_rows(&mut self, rows: usize) {
        self.slide_rows = rows;
    }

    /// How many times the live rows were moved to the front of the columns
    /// (for tests: about once per `slide_rows` rows scrolled past).
    #[doc(hidden)]
    pub fn compactions(&self) -> u64 {
        self.compactions
    }

    /// Merge and decode the records of nodes held as rows this many at a
    /// time, at least (default 1,024; for tests of the chunks). The cursor
    /// forgets its window.
    #[doc(hidden)]
    pub fn set_chunk(&mut self, records: usize) {
        self.chunk = records;
        self.held.clear();
        self.window = None;
    }

    /// The current window, if a move succeeded.
    pub fn window(&self) -> Option<TimeBox> {
        self.window
    }

    /// The current window's rows (empty before the first move).
    pub fn rows(&self) -> RowsRef<'_> {
        self.buf.view_from(self.head, self.info_head)
    }

    /// Forget the window (the next move is a fresh query) and release the
    /// nodes held.
    pub fn reset(&mut self) {
        self.window = None;
        self.complete = false;
        self.buf = Rows::default();
        self.head = 0;
        self.info_head = 0;
        self.held.clear();
    }

    /// Move to `[t0, t1]` on `f` and return the window's rows (see the
    /// module docs for what is reused). `t0 > t1` or NaN is an
    /// `InvalidArgument` error; on any error the cursor is reset (its next
    /// move is a fresh query) and its rows are empty.
    pub fn move_to(&mut self, f: &Slog2File, t0: f64, t1: f64) -> Result<RowsRef<'_>> {
        let r = self.try_move(f, t0, t1);
        match f.settle(r) {
            Ok(()) => Ok(self.rows()),
            Err(e) => {
                self.reset();
                Err(e)
            }
        }
    }

    fn try_move(&mut self, f: &Slog2File, t0: f64, t1: f64) -> Result<()> {
        let w = Slog2File::check_window(t0, t1)?;
        let id = f as *const Slog2File as usize;
        let old = match self.window {
            Some(old) if self.file == id && old.overlaps(&w) => old,
            _ => return self.fresh(f, id, w),
        };
        // On error below the caller resets the cursor.
        let mut stats = QueryStats::default();
        let forward = w.start >= old.start && w.end >= old.end;
        // The nodes on screen: the same as last time on most moves (no
        // node starts before the new end that did not before, none of them
        // ends before the new start).
        let same = forward && self.complete && w.end < self.next_start && w.start <= self.min_end;
        self.entering.clear();
        self.held_spare.clear();
        clear(&mut self.left);
        self.left_bounds.clear();
        self.runs.clear();
        if !same {
            self.nodes.clear();
            f.dir_index.overlapping(w, i16::MIN, &mut self.nodes);
            let mut budget = WHOLE_BUDGET;
            self.held_spare.clear();
            // Both lists are sorted by position: kept nodes move over.
            let mut old_held = std::mem::take(&mut self.held).into_iter().peekable();
            for &pos in &self.nodes {
                while old_held.next_if(|h| h.pos < pos).is_some() {}
                let h = match old_held.next_if(|h| h.pos == pos) {
                    Some(h) => {
                        stats.cache_hits += 1;
                        h
                    }
                    None => OnScreen {
                        pos,
                        node: take_node(
                            f,
                            pos,
                            (self.whole_node_bytes, self.chunk),
                            budget,
                            &mut stats,
                        )?,
                        hint: None,
                        next: f64::NEG_INFINITY,
                    },
                };
                if let Held::Rows(r) = &h.node {
                    budget = budget.saturating_sub(r.block_bytes);
                }
                self.held_spare.push(h);
            }
            std::mem::swap(&mut self.held, &mut self.held_spare);
            self.held_spare.clear();
            self.node_bounds(f, w);
        } else {
            stats.cache_hits += self.held.len();
        }
        stats.nodes_read += self.held.len();
        for (ix, h) in self.held.iter_mut().enumerate() {
            match &mut h.node {
                Held::Table(t) => {
                    if forward && w.end < h.next {
                        continue;
                    }
                    let pos = h.pos;
                    t.entering(old, w, |_, k| self.entering.push((pos, *k)));
                    h.next = t.next_start_after(w.end);
                }
                Held::Rows(r) => {
                    if forward && w.end < h.next {
                        // Nothing enters; the first record after the new
                        // end is the one after the old end.
                        if let Some((e, i)) = h.hint {
                            if e == old.end {
                                h.hint = Some((w.end, i));
                            }
                        }
                        continue;
                    }
                    let a = self.left_bounds.len();
                    let (hint, right) = r.entering(
                        f,
                        old,
                        w,
                        h.hint,
                        &mut self.left,
                        &mut self.left_bounds,
                        &mut stats,
                    )?;
                    h.hint = hint;
                    h.next = match hint {
                        Some((e, i)) if e == w.end => r.start_of(i as usize),
                        _ => f64::NEG_INFINITY,
                    };
                    if self.left_bounds.len() > a {
                        // (This node's left records: its bounds end where
                        // the next node's begin.)
                        self.runs.push(Run {
                            src: Src::Left,
                            range: a..self.left_bounds.len(),
                        });
                    }
                    if !right.is_empty() {
                        self.runs.push(Run {
                            src: Src::Node(ix),
                            range: right,
                        });
                    }
                }
            }
        }
        // Records of table-held nodes: sorted by key, decoded one by one
        // (each node list arrives as a sorted run, which the stable sort
        // merges).
        if !self.entering.is_empty() {
            self.keyed.clear();
            self.keyed.extend(
                self.entering
                    .iter()
                    .map(|&(pos, k)| (drawing_key(&k), pos, k)),
            );
            self.keyed.sort_by_key(|a| a.0);
            clear(&mut self.extra);
            self.extra_bounds.clear();
            for (_, pos, k) in &self.keyed {
                self.extra_bounds.push(self.extra.len() as u32);
                stats.bytes_read += k.len as u64;
                f.push_hit(&mut self.extra, *pos, k)?;
            }
            self.runs.push(Run {
                src: Src::Extra,
                range: 0..self.extra_bounds.len(),
            });
            self.extra_bounds.push(self.extra.len() as u32);
        }
        self.left_bounds.push(self.left.len() as u32);
        let mut srcs: SmallVec<[RunRows<'_>; 16]> = SmallVec::new();
        for r in &self.runs {
            let (rows, bounds) = match r.src {
                Src::Extra => (self.extra.view(), &self.extra_bounds[..]),
                Src::Left => (self.left.view(), &self.left_bounds[..]),
                Src::Node(i) => match &self.held[i].node {
                    Held::Rows(n) => (n.rows.view(), &n.first_row[..]),
                    Held::Table(_) => unreachable!("runs only name nodes held as rows"),
                },
            };
            srcs.push((rows, &bounds[r.range.start..=r.range.end]));
        }
        if forward {
            // Forward: drop the leaving prefix, append the entering rows.
            drop_prefix(
                &mut self.buf,
                &mut self.head,
                &mut self.info_head,
                &mut self.stay,
                w,
            );
            let incoming = srcs.iter().fold((0, 0), |(r, i), (rows, b)| {
                let (a, z) = (b[0] as usize, b[b.len() - 1] as usize);
                (
                    r + z - a,
                    i + (rows.info_offset[z] - rows.info_offset[a]) as usize,
                )
            });
            if slide(
                &mut self.buf,
                &mut self.head,
                &mut self.info_head,
                self.slide_rows,
                incoming,
            ) {
                self.compactions += 1;
            }
            let (h, ih) = (self.head, self.info_head);
            merge_runs(&srcs, &mut self.buf, h, ih);
        } else {
            clear(&mut self.ent);
            merge_runs(&srcs, &mut self.ent, 0, 0);
            clear(&mut self.spare);
            merge_kept(
                self.buf.view_from(self.head, self.info_head),
                self.ent.view(),
                w,
                &mut self.spare,
            );
            std::mem::swap(&mut self.buf, &mut self.spare);
            self.head = 0;
            self.info_head = 0;
        }
        self.buf.stats = stats;
        self.window = Some(w);
        Ok(())
    }

    fn fresh(&mut self, f: &Slog2File, id: usize, w: TimeBox) -> Result<()> {
        self.window = None;
        self.file = id;
        let (hits, stats) = f.window_hits(w.start, w.end)?;
        let dst = &mut self.spare;
        clear(dst);
        for (pos, k) in &hits {
            f.push_hit(dst, *pos, k)?;
        }
        dst.stats = stats;
        std::mem::swap(&mut self.buf, &mut self.spare);
        self.head = 0;
        self.info_head = 0;
        // Hold the tables of the window's nodes (all cached just now, unless
        // the cache is off or too small: then the next move takes them anew).
        self.held.clear();
        self.nodes.clear();
        f.dir_index.overlapping(w, i16::MIN, &mut self.nodes);
        for &pos in &self.nodes {
            if let Some(t) = f.cache.get(pos) {
                self.held.push(OnScreen {
                    pos,
                    node: Held::Table(t),
                    hint: None,
                    next: f64::NEG_INFINITY,
                });
            }
        }
        self.node_bounds(f, w);
        self.window = Some(w);
        Ok(())
    }

    /// After the nodes of window `w` were looked up (`nodes`): whether
    /// `held` has them all, and the bounds of the windows with the same
    /// nodes (fields' docs).
    fn node_bounds(&mut self, f: &Slog2File, w: TimeBox) {
        self.complete = self.held.len() == self.nodes.len();
        self.next_start = f.dir_index.next_start_after(w.end);
        self.min_end = self
            .held
            .iter()
            .map(|h| f.directory[h.pos as usize].time_box.end)
            .fold(f64::INFINITY, f64::min);
    }
}

/// A node entering the window: held as rows if the rules allow (module
/// docs), else its record table.
fn take_node(
    f: &Slog2File,
    pos: u32,
    (whole_bytes, chunk): (usize, usize),
    budget: usize,
    stats: &mut QueryStats,
) -> Result<Held> {
    let len = f.block(pos)?.0.len();
    if len <= whole_bytes && len <= budget {
        if let Some(r) = NodeRows::new(f, pos, chunk, stats)? {
            return Ok(Held::Rows(Box::new(r)));
        }
    }
    Ok(Held::Table(f.node_table(pos, stats)?))
}

impl NodeRows {
    /// Node `pos` with its record keys walked, nothing merged or decoded
    /// yet; `None` if a list is not in drawing order or a record's box is
    /// not finite (the cursor then uses the node's table).
    fn new(
        f: &Slog2File,
        pos: u32,
        chunk: usize,
        stats: &mut QueryStats,
    ) -> Result<Option<NodeRows>> {
        // The node's record keys (its table, without the shared cache).
        let (block, base) = f.block(pos)?;
        if let Some(m) = f.map() {
            // Map the block's pages in one call rather than a fault per page
            // (a hint: on failure they fault in as usual).
            let _ = m.advise_range(memmap2::Advice::PopulateRead, base as usize, block.len());
        }
        let layout = format::scan_node(block, base)?;
        stats.bytes_indexed += block.len() as u64;
        f.note_touched(block.len() as u64);
        for list in [&layout.nestless, &layout.nestable] {
            let mut prev: Option<DrawingKey> = None;
            for k in list.iter() {
                let d = drawing_key(k);
                if !k.start.is_finite() || !k.end.is_finite() || prev.is_some_and(|p| p > d) {
                    return Ok(None);
                }
                prev = Some(d);
            }
        }
        let n = layout.nestless.len() + layout.nestable.len();
        Ok(Some(NodeRows {
            pos,
            lists: [layout.nestless, layout.nestable],
            next: [0, 0],
            unmerged_start: f64::NEG_INFINITY,
            keys: Vec::with_capacity(n),
            // (Room for every record: a chunk never reallocates.)
            rows: Rows::with_capacity(n),
            first_row: {
                let mut v = Vec::with_capacity(n + 1);
                v.push(0);
                v
            },
            rec_start: Vec::with_capacity(n),
            max_end: Vec::with_capacity(n),
            block_bytes: block.len(),
            chunk: chunk.max(1),
        }))
    }

    /// Merge the two lists (ties: nestless first) until at least `count`
    /// records are merged and every record starting by `through` is.
    fn merge(&mut self, count: usize, through: f64) {
        let [l0, l1] = &self.lists;
        let (mut a, mut b) = (self.next[0], self.next[1]);
        let (na, nb) = (l0.len(), l1.len());
        let mut m = self.max_end.last().copied().unwrap_or(f64::NEG_INFINITY);
        let mut da = l0.get(a).map(drawing_key);
        let mut db = l1.get(b).map(drawing_key);
        while a < na || b < nb {
            let first_a = match (da, db) {
                (Some(x), Some(y)) => x <= y,
                (x, _) => x.is_some(),
            };
            let k = if first_a { l0[a] } else { l1[b] };
            if self.keys.len() >= count && k.start > through {
                break;
            }
            if first_a {
                a += 1;
                da = l0.get(a).map(drawing_key);
            } else {
                b += 1;
                db = l1.get(b).map(drawing_key);
            }
            self.rec_start.push(k.start);
            m = m.max(k.end);
            self.max_end.push(m);
            self.keys.push(k);
        }
        self.next = [a, b];
        self.unmerged_start = match (l0.get(a), l1.get(b)) {
            (Some(x), Some(y)) => x.start.min(y.start),
            (Some(x), None) | (None, Some(x)) => x.start,
            (None, None) => f64::INFINITY,
        };
    }

    /// The start of record `i` (merged or the next to merge; `+inf` past
    /// the last).
    fn start_of(&self, i: usize) -> f64 {
        self.rec_start
            .get(i)
            .copied()
            .unwrap_or(self.unmerged_start)
    }

    /// Decode records up to `upto` (exclusive) if they are not yet: a chunk
    /// of at least `chunk` records (merged first as far as needed).
    fn decode_to(&mut self, f: &Slog2File, upto: usize, stats: &mut QueryStats) -> Result<()> {
        let done = self.first_row.len() - 1;
        if upto <= done {
            return Ok(());
        }
        let want = upto.max(done + self.chunk);
        self.merge(want, f64::NEG_INFINITY);
        let upto = want.min(self.keys.len());
        let (block, base) = f.block(self.pos)?;
        for k in &self.keys[done..upto] {
            stats.bytes_read += k.len as u64;
            push_record(&mut self.rows, block, base, k)?;
            self.first_row.push(self.rows.len() as u32);
        }
        Ok(())
    }

    /// The records that intersect `new` and not `old`, in drawing order
    /// (the index ranges of `NodeTable::entering`): those that start after
    /// the old window, an index range (returned), and those that end before
    /// it (moves to earlier times), copied to `left` with their bounds.
    /// `hint`: the first record starting after `hint.0`, from the last
    /// move; the one for this move is returned.
    #[allow(clippy::too_many_arguments)]
    fn entering(
        &mut self,
        f: &Slog2File,
        old: TimeBox,
        new: TimeBox,
        hint: Hint,
        left: &mut Rows,
        left_bounds: &mut Vec<u32>,
        stats: &mut QueryStats,
    ) -> Result<(Hint, Range<usize>)> {
        // The records that may enter start by the new window's end: all
        // merged (a merged record starts before every one that is not).
        if self.unmerged_start <= new.end {
            self.merge(0, new.end);
        }
        let done = self.first_row.len() - 1;
        if self.rec_start.get(done).is_some_and(|&s| s <= new.end) {
            let upto = self.rec_start.partition_point(|&s| s <= new.end);
            self.decode_to(f, upto, stats)?;
        }
        let fr = &self.first_row;
        let starts = &self.rec_start;
        let hit = |r: usize| {
            let i = fr[r] as usize;
            let (s, e) = (starts[r], self.rows.end[i]);
            s <= new.end && new.start <= e && !(s <= old.end && old.start <= e)
        };
        if new.start < old.start {
            let lo = self.max_end.partition_point(|&m| m < new.start);
            let x = old.start.min(new.end);
            let hi = starts.partition_point(|&s| s < x);
            let view = self.rows.view();
            for r in lo..hi.max(lo) {
                if hit(r) {
                    left_bounds.push(left.len() as u32);
                    copy_rows(&view, fr[r] as usize, fr[r + 1] as usize, left, 0, 0);
                }
            }
        }
        if new.end <= old.end {
            let hint = if new.end == old.end { hint } else { None };
            return Ok((hint, 0..0));
        }
        // Every record starting after the old end, up to the new end.
        let lo = match hint {
            Some((e, i)) if e == old.end => i as usize,
            _ => starts.partition_point(|&s| s <= old.end),
        };
        let hi = if starts.get(lo).is_some_and(|&s| s <= new.end) {
            lo + starts[lo..].partition_point(|&s| s <= new.end)
        } else {
            lo // (most nodes on screen: nothing enters)
        };
        // (All of them enter when the windows overlap, as on every move
        // that is not a fresh query: they start after the old window and
        // end after they start.)
        debug_assert!(old.overlaps(&new) && (lo..hi).all(hit));
        Ok((Some((new.end, hi as u32)), lo..hi))
    }
}

/// Forward move: drop the live rows (from `head`) whose drawable ends
/// before `w`. They lie among the rows that start before `w` (a prefix in
/// drawing order); the ones of those that stay are moved up, in order, to
/// the rows after the prefix, and the head moves past the dropped ones.
/// `parent` and `info_offset` of the live rows are rebased on the new head.
fn drop_prefix(
    buf: &mut Rows,
    head: &mut usize,
    info_head: &mut usize,
    stay: &mut Vec<(u32, u32, u32)>,
    w: TimeBox,
) {
    let (h, ih) = (*head, *info_head);
    let n = buf.len();
    stay.clear();
    let mut i = h;
    // Without composites (the common case) the starts are sorted and every
    // parent is -1.
    let composites = buf.kind[h..n].contains(&ROW_COMPOSITE);
    if !composites {
        let p = h + buf.start[h..n].partition_point(|&s| s < w.start);
        let (end, off) = (&buf.end[h..p], &buf.info_offset[h..=p]);
        for (k, &e) in end.iter().enumerate() {
            if e >= w.start {
                stay.push(((h + k) as u32, off[k], off[k + 1]));
            }
        }
        i = p;
    } else {
        let (start, end, kind) = (&buf.start[..n], &buf.end[..n], &buf.kind[..n]);
        let off = &buf.info_offset[..=n];
        while i < n && start[i] < w.start {
            if kind[i] == ROW_COMPOSITE {
                let j = (i + 1 + buf.num_real[i].max(0) as usize).min(n);
                if end[i] >= w.start {
                    stay.extend((i..j).map(|r| (r as u32, off[r], off[r + 1])));
                }
                i = j;
            } else {
                // Without a branch on whether it stays (unpredictable): the
                // entry is written, and kept if the row stays.
                let k = stay.len();
                stay.push((i as u32, off[i], off[i + 1]));
                stay.truncate(k + (end[i] >= w.start) as usize);
                i += 1;
            }
        }
    }
    let p = i;
    let s = stay.len();
    if p - h == s {
        return; // nothing leaves
    }
    let new_head = p - s;
    let info_p = ih + buf.info_offset[p] as usize;
    // Staying rows, last first, to the end of the prefix (each moves right
    // or stays: no row is overwritten before it is read). Columns cut to
    // the prefix, so one check of the two rows covers every column.
    let mut to_info = info_p;
    let (kind, category) = (&mut buf.kind[..p], &mut buf.category[..p]);
    let (start, end) = (&mut buf.start[..p], &mut buf.end[..p]);
    let (time0, time1) = (&mut buf.time0[..p], &mut buf.time1[..p]);
    let (line0, line1) = (&mut buf.line0[..p], &mut buf.line1[..p]);
    let (num_real, parent) = (&mut buf.num_real[..p], &mut buf.parent[..p]);
    let info_offset = &mut buf.info_offset[..p];
    for (k, &(from, i0, i1)) in stay.iter().enumerate().rev() {
        let (from, to) = (from as usize, new_head + k);
        assert!(from < p && to < p, "staying rows lie in the prefix");
        let (i0, i1) = (ih + i0 as usize, ih + i1 as usize);
        if i1 > i0 {
            buf.info.copy_within(i0..i1, to_info - (i1 - i0));
        }
        to_info -= i1 - i0;
        kind[to] = kind[from];
        category[to] = category[from];
        start[to] = start[from];
        end[to] = end[from];
        time0[to] = time0[from];
        time1[to] = time1[from];
        line0[to] = line0[from];
        line1[to] = line1[from];
        num_real[to] = num_real[from];
        // A member's composite moves by as much as the member.
        let q = parent[from];
        parent[to] = if q < 0 {
            q
        } else {
            q - (from - h) as i32 + (k as i32)
        };
        // Start offset of row `to`, relative to the new info head (set below).
        info_offset[to] = to_info as u32;
    }
    let new_info_head = to_info;
    for o in &mut buf.info_offset[new_head..p] {
        *o -= new_info_head as u32;
    }
    let (dr, di) = ((new_head - h) as i32, (new_info_head - ih) as u32);
    if composites {
        for q in &mut buf.parent[p..] {
            // (a select, so the loop vectorises)
            *q = if *q >= 0 { *q - dr } else { *q };
        }
    }
    for o in &mut buf.info_offset[p..] {
        *o -= di;
    }
    *head = new_head;
    *info_head = new_info_head;
}

/// Make room for `incoming` (rows, info bytes): move the live rows to the
/// front once the dead ones before them are many (module docs), or when
/// the columns are full (so that growing them never copies dead rows), and
/// grow them for ~2× the live rows beyond the compaction threshold (so they
/// rarely fill up). Live `parent`/`info_offset` values count from the head
/// already, so the rows are copied as they are. Whether it compacted.
fn slide(
    buf: &mut Rows,
    head: &mut usize,
    info_head: &mut usize,
    slide_rows: usize,
    (rows_in, info_in): (usize, usize),
) -> bool {
    let (h, ih) = (*head, *info_head);
    let (live, live_info) = (buf.len() - h, buf.info.len() - ih);
    let full =
        buf.len() + rows_in > buf.kind.capacity() || buf.info.len() + info_in > buf.info.capacity();
    let compacted = full || h > slide_rows.max(live) || ih > SLIDE_INFO.max(live_info);
    if compacted {
        compact(buf, head, info_head);
    }
    // Room for the live and entering rows and ~`slide_rows` dead ones
    // beyond (grown when full, not only when the entering rows would not
    // fit after the compaction: columns that just fit would be compacted,
    // all live rows copied, on every move).
    let (len, want) = (buf.len(), slide_rows + 2 * (live + rows_in));
    if len + rows_in > buf.kind.capacity() || (full && want > buf.kind.capacity()) {
        buf.reserve(want.max(len + rows_in) - len);
    }
    let (ilen, iwant) = (
        buf.info.len(),
        SLIDE_INFO.min(slide_rows * 64) + 2 * (live_info + info_in),
    );
    if ilen + info_in > buf.info.capacity() || (full && iwant > buf.info.capacity()) {
        buf.info.reserve(iwant.max(ilen + info_in) - ilen);
    }
    compacted
}

/// Move the live rows to the front of the columns.
fn compact(buf: &mut Rows, head: &mut usize, info_head: &mut usize) {
    let (h, ih) = (*head, *info_head);
    if h == 0 && ih == 0 {
        return;
    }
    fn front<T: Copy>(v: &mut Vec<T>, from: usize) {
        v.copy_within(from.., 0);
        v.truncate(v.len() - from);
    }
    front(&mut buf.kind, h);
    front(&mut buf.category, h);
    front(&mut buf.start, h);
    front(&mut buf.end, h);
    front(&mut buf.time0, h);
    front(&mut buf.time1, h);
    front(&mut buf.line0, h);
    front(&mut buf.line1, h);
    front(&mut buf.parent, h);
    front(&mut buf.num_real, h);
    front(&mut buf.info_offset, h);
    front(&mut buf.info, ih);
    *head = 0;
    *info_head = 0;
}

/// Append the runs' records to `dst` (live from `head`/`info_head`) in
/// drawing order: a k-way merge that copies each stretch of one run that
/// draws before every other run's next record in one go.
fn merge_runs(runs: &[RunRows<'_>], dst: &mut Rows, head: usize, info_head: usize) {
    // Next record of each run.
    let mut at: SmallVec<[usize; 16]> = runs.iter().map(|_| 0).collect();
    loop {
        let mut best: Option<(usize, DrawingKey)> = None;
        let mut second: Option<DrawingKey> = None;
        for (r, (rows, bounds)) in runs.iter().enumerate() {
            if at[r] + 1 >= bounds.len() {
                continue;
            }
            let k = row_key(rows, bounds[at[r]] as usize);
            match best {
                Some((_, b)) if k >= b => second = Some(second.map_or(k, |s| s.min(k))),
                _ => {
                    if let Some((_, b)) = best {
                        second = Some(second.map_or(b, |s| s.min(b)));
                    }
                    best = Some((r, k));
                }
            }
        }
        let Some((m, _)) = best else {
            return;
        };
        let (rows, bounds) = &runs[m];
        let rest = &bounds[at[m]..bounds.len() - 1];
        // The run's records that draw no later than the other runs' next
        // (at least its first, the smallest of all).
        let k = second.map_or(rest.len(), |s| {
            rest.partition_point(|&a| row_key(rows, a as usize) <= s)
        });
        let (a, b) = (bounds[at[m]], bounds[at[m] + k]);
        at[m] += k;
        copy_rows(rows, a as usize, b as usize, dst, head, info_head);
    }
}

/// A move that is not a forward scroll: the kept rows of `src` merged with
/// the entering rows `ent` (sorted) into `dst`, in drawing order.
fn merge_kept(src: RowsRef<'_>, ent: RowsRef<'_>, w: TimeBox, dst: &mut Rows) {
    let n = src.len();
    let ne = ent.len();
    let keep = |i: usize| src.start[i] <= w.end && w.start <= src.end[i];
    let mut e = 0;
    let mut i = 0;
    while i < n {
        if !keep(i) {
            i = next_record(&src, i);
            continue;
        }
        // Entering records that draw before row i go first.
        let bound = row_key(&src, i);
        let e0 = e;
        while e < ne && row_key(&ent, e) < bound {
            e = next_record(&ent, e);
        }
        copy_rows(&ent, e0, e, dst, 0, 0);
        // A run of kept records up to the next entering one.
        let eb = (e < ne).then(|| row_key(&ent, e));
        let mut j = i;
        while j < n && keep(j) && eb.is_none_or(|b| row_key(&src, j) <= b) {
            j = next_record(&src, j);
        }
        copy_rows(&src, i, j, dst, 0, 0);
        i = j;
    }
    copy_rows(&ent, e, ne, dst, 0, 0);
}

/// The row after record `i` (a composite's members belong to it).
fn next_record(r: &RowsRef<'_>, i: usize) -> usize {
    if r.kind[i] == ROW_COMPOSITE {
        (i + 1 + r.num_real[i].max(0) as usize).min(r.len())
    } else {
        i + 1
    }
}

/// The drawing key of row `i` (a composite's row carries its record's box and
/// first/last lines, a primitive's its own).
#[inline]
fn row_key(r: &RowsRef<'_>, i: usize) -> DrawingKey {
    DrawingKey::new(
        TimeBox::new(r.start[i], r.end[i]),
        r.category[i],
        r.line0[i],
        r.line1[i],
    )
}

/// Empty every column, keeping capacity.
fn clear(r: &mut Rows) {
    r.kind.clear();
    r.category.clear();
    r.start.clear();
    r.end.clear();
    r.time0.clear();
    r.time1.clear();
    r.line0.clear();
    r.line1.clear();
    r.parent.clear();
    r.num_real.clear();
    r.info_offset.clear();
    r.info_offset.push(0);
    r.info.clear();
    r.weights = Default::default();
    r.stats = QueryStats::default();
}

/// Append rows `a..b` of `src` (whole records: a composite with its
/// members) to `dst`, whose live rows start at `head` and info bytes at
/// `info_head`; `parent` and info offsets are rebased on those.
fn copy_rows(src: &RowsRef<'_>, a: usize, b: usize, dst: &mut Rows, head: usize, info_head: usize) {
    if a >= b {
        return;
    }
    if b - a <= 8 && src.parent[a..b].iter().all(|&p| p < 0) {
        // A few primitive rows (often one: a long state of an upper node
        // between runs of a leaf): pushes, not a dozen short copies.
        let base = (dst.info.len() - info_head) as u32;
        let i0 = src.info_offset[a];
        dst.info
            .extend_from_slice(&src.info[i0 as usize..src.info_offset[b] as usize]);
        for r in a..b {
            dst.kind.push(src.kind[r]);
            dst.category.push(src.category[r]);
            dst.start.push(src.start[r]);
            dst.end.push(src.end[r]);
            dst.time0.push(src.time0[r]);
            dst.time1.push(src.time1[r]);
            dst.line0.push(src.line0[r]);
            dst.line1.push(src.line1[r]);
            dst.num_real.push(src.num_real[r]);
            dst.parent.push(src.parent[r]);
            dst.info_offset.push(base + (src.info_offset[r + 1] - i0));
        }
        return;
    }
    let shift = (dst.len() - head) as i64 - a as i64;
    dst.kind.extend_from_slice(&src.kind[a..b]);
    dst.category.extend_from_slice(&src.category[a..b]);
    dst.start.extend_from_slice(&src.start[a..b]);
    dst.end.extend_from_slice(&src.end[a..b]);
    dst.time0.extend_from_slice(&src.time0[a..b]);
    dst.time1.extend_from_slice(&src.time1[a..b]);
    dst.line0.extend_from_slice(&src.line0[a..b]);
    dst.line1.extend_from_slice(&src.line1[a..b]);
    dst.num_real.extend_from_slice(&src.num_real[a..b]);
    dst.parent.extend(src.parent[a..b].iter().map(|&p| {
        if p < 0 {
            p
        } else {
            (p as i64 + shift) as i32
        }
    }));
    let (i0, i1) = (src.info_offset[a], src.info_offset[b]);
    let base = (dst.info.len() - info_head) as u32;
    dst.info
        .extend_from_slice(&src.info[i0 as usize..i1 as usize]);
    dst.info_offset
        .extend(src.info_offset[a + 1..=b].iter().map(|&o| o - i0 + base));
}
