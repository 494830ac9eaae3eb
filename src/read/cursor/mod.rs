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
//!
//! # Files
//!
//! This file: the cursor, its state and the strategy of a move;
//! `node_rows.rs`: nodes held as rows (merged and decoded in chunks);
//! `columns.rs`: the row-column operations a move is made of (drop,
//! slide, compact, merge, copy).

use std::ops::Range;
use std::sync::Arc;

use smallvec::SmallVec;

use crate::error::Result;
use crate::format::RecordKey;
use crate::model::{DrawingKey, TimeBox};

mod columns;
mod node_rows;

use columns::{clear, drop_prefix, merge_kept, merge_runs, slide};
use node_rows::{take_node, NodeRows};

use super::index::NodeTable;
use super::rows::{Rows, RowsRef};
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
    /// Entering records of nodes held as tables: index in `held`, key.
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
                    let ix = ix as u32;
                    t.entering(old, w, |_, k| self.entering.push((ix, *k)));
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
            for (_, ix, k) in &self.keyed {
                self.extra_bounds.push(self.extra.len() as u32);
                stats.bytes_read += k.len as u64;
                let h = &self.held[*ix as usize];
                let Held::Table(t) = &h.node else {
                    unreachable!("entering records come from table-held nodes")
                };
                f.push_hit(&mut self.extra, h.pos, t, k)?;
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
        let (h, stats) = f.window_hits(w.start, w.end)?;
        let dst = &mut self.spare;
        clear(dst);
        for (slot, k) in &h.hits {
            let (pos, t) = &h.tables[*slot as usize];
            f.push_hit(dst, *pos, t, k)?;
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
