//! A viewer's window that moves: [`WindowCursor`].
//!
//! # Why
//!
//! A viewer scrolls: each frame's window overlaps the last one by most of
//! its width. A fresh [`Slog2File::window_rows`] decodes every row again
//! (≈1,000 rows for a screenful), although ~3/4 of them were already on
//! screen. The reference viewer keeps the tree nodes it has read and only
//! re-iterates them; the cursor does the same one level finer: it keeps the
//! current window's **rows** (columns, as [`Rows`]) and, on a move,
//!
//! 1. drops the rows whose drawable no longer intersects the window (a
//!    composite goes with its members),
//! 2. asks each node that intersects the new window only for the records
//!    that intersect the new window **and not the old one** (two index ranges
//!    of the node's sorted lists: the records whose start lies inside the old
//!    window are skipped without a look, see `NodeTable::entering`), decodes
//!    just those, and
//! 3. merges both into the new rows (runs of kept rows are copied column by
//!    column in bulk).
//!
//! A move that does not overlap the previous window (a jump), the first move,
//! or a move on another file is a fresh window query.
//!
//! The cursor also holds the node tables of the current window (an `Arc`
//! each, like the reference's loaded nodes), so scrolling never waits for the
//! shared node cache's locks and the nodes on screen cannot be evicted by
//! other readers; they are released when they leave the window.
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
//! only the records decoded by this move (the entering ones).
//!
//! Files whose records stick out of their node's box (damaged: `slog2 check`
//! reports them) may keep such a record in the cursor where a fresh query,
//! which only visits nodes intersecting the window, would not find it.

use std::sync::Arc;

use crate::error::Result;
use crate::format::RecordKey;
use crate::model::{total_order_bits, DrawingKey, TimeBox};

use super::index::NodeTable;
use super::rows::{Rows, ROW_COMPOSITE};
use super::{drawing_key, QueryStats, Slog2File};

/// The current window of one viewer, kept up to date move by move (see the
/// module docs). Not shared between threads while moving (`&mut self`); many
/// cursors may move on one file at once.
#[derive(Default)]
pub struct WindowCursor {
    /// Identity of the file the rows come from (its address).
    file: usize,
    window: Option<TimeBox>,
    rows: Rows,
    spare: Rows,
    /// Tables of the nodes intersecting the window, by directory position.
    held: Vec<(u32, Arc<NodeTable>)>,
    held_spare: Vec<(u32, Arc<NodeTable>)>,
    nodes: Vec<u32>,
    /// Entering records: node position, index in the node's records, key.
    entering: Vec<(u32, u32, RecordKey)>,
    keyed: Vec<(DrawingKey, u32, u32, RecordKey)>,
    /// Whole small nodes decoded into rows, held while they intersect the
    /// window, by directory position.
    decoded: Vec<(u32, Arc<Decoded>)>,
    decoded_spare: Vec<(u32, Arc<Decoded>)>,
    /// Leaves up to this many bytes are decoded whole (0, the default: none).
    whole_node_bytes: usize,
}

/// The rows of every record of one node, in `NodeTable::records` order.
struct Decoded {
    rows: Rows,
    /// Row where record `i` begins (`records + 1` entries).
    first_row: Vec<u32>,
}

impl std::fmt::Debug for WindowCursor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WindowCursor")
            .field("window", &self.window)
            .field("rows", &self.rows.len())
            .field("nodes_held", &self.held.len())
            .finish()
    }
}

impl WindowCursor {
    /// A cursor with no window yet (its first move is a fresh query).
    pub fn new() -> WindowCursor {
        WindowCursor::default()
    }

    /// Decode leaves of up to `bytes` whole the first time a move takes
    /// records from them, and copy their rows on later moves (the reference
    /// viewer's strategy); `0` (the default): every entering record is
    /// decoded on its own. Measured on the 10M file (BENCHMARKS.md, "Window
    /// queries"): whole leaves lower the median scroll by ~25 % but double
    /// the mean (a 64 KiB leaf costs ~170 µs to decode whole, once per ~7
    /// quarter-window scrolls), so the default does not.
    pub fn set_whole_node_bytes(&mut self, bytes: usize) {
        self.whole_node_bytes = bytes;
        self.decoded.clear();
    }

    fn whole_limit(&self) -> usize {
        self.whole_node_bytes
    }

    /// The current window, if a move succeeded.
    pub fn window(&self) -> Option<TimeBox> {
        self.window
    }

    /// The current window's rows (empty before the first move).
    pub fn rows(&self) -> &Rows {
        &self.rows
    }

    /// Forget the window (the next move is a fresh query) and release the
    /// nodes held.
    pub fn reset(&mut self) {
        self.window = None;
        self.rows = Rows::default();
        self.held.clear();
        self.decoded.clear();
    }

    /// Move to `[t0, t1]` on `f` and return the window's rows (see the
    /// module docs for what is reused). `t0 > t1` or NaN is an
    /// `InvalidArgument` error; on any error the cursor is reset (its next
    /// move is a fresh query) and its rows are empty.
    pub fn move_to(&mut self, f: &Slog2File, t0: f64, t1: f64) -> Result<&Rows> {
        match self.try_move(f, t0, t1) {
            Ok(()) => Ok(&self.rows),
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
        let mut stats = QueryStats::default();
        // The nodes of the new window, their tables (held ones first), and
        // the records entering.
        self.nodes.clear();
        f.dir_index.overlapping(w, i16::MIN, &mut self.nodes);
        self.entering.clear();
        self.held_spare.clear();
        self.decoded_spare.clear();
        for &pos in &self.nodes {
            let t = match self.held.binary_search_by_key(&pos, |h| h.0) {
                Ok(i) => {
                    stats.cache_hits += 1;
                    self.held[i].1.clone()
                }
                Err(_) => f.node_table(pos, &mut stats)?,
            };
            stats.nodes_read += 1;
            let before = self.entering.len();
            t.entering(old, w, |i, k| {
                self.entering.push((pos, i as u32, *k));
            });
            let known = self
                .decoded
                .binary_search_by_key(&pos, |d| d.0)
                .ok()
                .map(|i| self.decoded[i].1.clone());
            if let Some(d) = known {
                self.decoded_spare.push((pos, d));
            } else if self.entering.len() > before
                && f.directory[pos as usize].id.depth == 0
                && f.block(pos)?.0.len() <= self.whole_limit()
            {
                // First records taken from a small node: decode it whole
                // (the reference viewer's way: later moves copy rows).
                let mut rows = Rows::default();
                let mut first_row = Vec::with_capacity(t.records().size_hint().0 + 1);
                for k in t.records() {
                    first_row.push(rows.len() as u32);
                    stats.bytes_read += k.len as u64;
                    f.push_hit(&mut rows, pos, k)?;
                }
                first_row.push(rows.len() as u32);
                self.decoded_spare
                    .push((pos, Arc::new(Decoded { rows, first_row })));
            }
            if self.decoded_spare.last().is_none_or(|d| d.0 != pos) {
                // Decoded record by record below.
                for (_, _, k) in &self.entering[before..] {
                    stats.bytes_read += k.len as u64;
                }
            }
            self.held_spare.push((pos, t));
        }
        std::mem::swap(&mut self.held, &mut self.held_spare);
        self.held_spare.clear();
        std::mem::swap(&mut self.decoded, &mut self.decoded_spare);
        self.decoded_spare.clear();
        // Into drawing order, keys computed once, no allocation once warm
        // (each node list arrives as a sorted run, which the stable sort
        // merges).
        self.keyed.clear();
        self.keyed.extend(
            self.entering
                .iter()
                .map(|&(pos, i, k)| (drawing_key(&k), pos, i, k)),
        );
        self.keyed.sort_by_key(|a| a.0);

        // Merge the kept rows (already in drawing order) with the entering
        // records (sorted) into `spare`.
        let src = &self.rows;
        let dst = &mut self.spare;
        clear(dst);
        let n = src.len();
        let keep = |i: usize| src.start[i] <= w.end && w.start <= src.end[i];
        let next = |i: usize| {
            if src.kind[i] == ROW_COMPOSITE {
                (i + 1 + src.num_real[i].max(0) as usize).min(n)
            } else {
                i + 1
            }
        };
        let entering = &self.keyed;
        let mut e = 0;
        let mut i = 0;
        while i < n {
            if !keep(i) {
                i = next(i);
                continue;
            }
            // Entering records that draw before row i go first.
            while let Some(x) = entering.get(e) {
                let bound = row_key(src, i);
                if x.0 < bound {
                    e = emit(f, &self.decoded, entering, e, Some(bound), dst)?;
                } else {
                    break;
                }
            }
            // A run of kept records up to the next entering one (rows that
            // start earlier draw earlier: the full key only on a tie).
            let bound = entering.get(e).map(|x| x.0);
            let mut j = i;
            while j < n && keep(j) {
                if let Some(b) = bound {
                    let s = total_order_bits(src.start[j]);
                    if s > b.start_bits() || (s == b.start_bits() && row_key(src, j) > b) {
                        break;
                    }
                }
                j = next(j);
            }
            copy_rows(src, i, j, dst);
            i = j;
        }
        while e < entering.len() {
            e = emit(f, &self.decoded, entering, e, None, dst)?;
        }
        dst.stats = stats;
        std::mem::swap(&mut self.rows, &mut self.spare);
        self.window = Some(w);
        Ok(())
    }

    fn fresh(&mut self, f: &Slog2File, id: usize, w: TimeBox) -> Result<()> {
        self.window = None;
        self.decoded.clear();
        self.file = id;
        let (hits, stats) = f.window_hits(w.start, w.end)?;
        let dst = &mut self.spare;
        clear(dst);
        for (pos, k) in &hits {
            f.push_hit(dst, *pos, k)?;
        }
        dst.stats = stats;
        std::mem::swap(&mut self.rows, &mut self.spare);
        // Hold the tables of the window's nodes (all cached just now, unless
        // the cache is off or too small: then the next move walks them).
        self.held.clear();
        self.nodes.clear();
        f.dir_index.overlapping(w, i16::MIN, &mut self.nodes);
        for &pos in &self.nodes {
            if let Some(t) = f.cache.get(pos) {
                self.held.push((pos, t));
            }
        }
        self.window = Some(w);
        Ok(())
    }
}

/// Append entering record `e` (and the records after it that follow it in
/// the same decoded node and draw before `bound`, as one run) to `dst`;
/// the next index.
fn emit(
    f: &Slog2File,
    decoded: &[(u32, Arc<Decoded>)],
    entering: &[(DrawingKey, u32, u32, RecordKey)],
    e: usize,
    bound: Option<DrawingKey>,
    dst: &mut Rows,
) -> Result<usize> {
    let (_, pos, i, k) = &entering[e];
    let Ok(d) = decoded.binary_search_by_key(pos, |d| d.0) else {
        f.push_hit(dst, *pos, k)?;
        return Ok(e + 1);
    };
    let d = &decoded[d].1;
    let mut j = e + 1;
    let mut last = *i;
    while let Some((key2, p2, i2, _)) = entering.get(j) {
        if p2 != pos || *i2 != last + 1 || bound.is_some_and(|b| *key2 >= b) {
            break;
        }
        last = *i2;
        j += 1;
    }
    let (a, b) = (
        d.first_row[*i as usize] as usize,
        d.first_row[last as usize + 1] as usize,
    );
    copy_rows(&d.rows, a, b, dst);
    Ok(j)
}

/// The drawing key of row `i` (a composite's row carries its record's box and
/// first/last lines, a primitive's its own).
fn row_key(r: &Rows, i: usize) -> DrawingKey {
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

/// Append rows `a..b` of `src` to `dst` (whole records: a composite with its
/// members), rebasing `parent` and the info offsets.
fn copy_rows(src: &Rows, a: usize, b: usize, dst: &mut Rows) {
    if a >= b {
        return;
    }
    let shift = dst.len() as i64 - a as i64;
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
    let base = dst.info.len() as u32;
    dst.info
        .extend_from_slice(&src.info[i0 as usize..i1 as usize]);
    dst.info_offset
        .extend(src.info_offset[a + 1..=b].iter().map(|&o| o - i0 + base));
}
