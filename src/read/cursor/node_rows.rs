//! A node held as rows ([`NodeRows`]): its two record lists merged into
//! drawing order and decoded in chunks as the window reaches them (see the
//! module docs of `cursor`, "Nodes decoded once, in drawing order"), and the
//! entering records of a move as index ranges of those rows.

use std::ops::Range;
use std::sync::Arc;

use crate::error::Result;
use crate::format::RecordKey;
use crate::model::{DrawingKey, TimeBox};

use super::super::blocks::NodeBytes;
use super::super::rows::{push_record, Rows};
use super::super::{drawing_key, QueryStats, Slog2File};
use super::columns::copy_rows;
use super::{Held, Hint};

/// The records of one node, its two lists merged into drawing order, and
/// the rows of the first ones: a forward scroll needs them in that order, so
/// they are merged and decoded in chunks of [`CHUNK`] records (or more) as
/// the window reaches them (a node's first chunk on entering, the next ones
/// on later moves), not all at once on entering. (Merging a 64 KiB leaf's
/// two lists whole took ~28 µs of the ~77 µs of the move it entered with.)
pub(super) struct NodeRows {
    pub(super) pos: u32,
    /// The node's two lists (nestless, nestable), each in drawing order.
    pub(super) lists: [Vec<RecordKey>; 2],
    /// The first record of each list not merged yet, and the earliest of
    /// their starts (`+inf` once all are merged).
    pub(super) next: [usize; 2],
    pub(super) unmerged_start: f64,
    /// Keys of the records merged so far, in drawing order: every record
    /// starting by `rec_start.last()`.
    pub(super) keys: Vec<RecordKey>,
    /// Rows of the first `first_row.len() - 1` records.
    pub(super) rows: Rows,
    /// Row where record `i` begins.
    pub(super) first_row: Vec<u32>,
    /// Start of each merged record.
    pub(super) rec_start: Vec<f64>,
    /// Running maximum of merged record ends.
    pub(super) max_end: Vec<f64>,
    /// The block's length (what the budget counts).
    pub(super) block_bytes: usize,
    /// Records merged and decoded at a time, at least.
    pub(super) chunk: usize,
    /// A compressed node's unpacked header and drawables (`None`: the
    /// records are decoded from the file).
    unpacked: Option<Arc<Vec<u8>>>,
}

/// A node entering the window: held as rows if the rules allow (module
/// docs), else its record table.
pub(super) fn take_node(
    f: &Slog2File,
    pos: u32,
    (whole_bytes, chunk): (usize, usize),
    budget: usize,
    stats: &mut QueryStats,
) -> Result<Held> {
    let len = f.indexed_len(pos)?;
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
    pub(super) fn new(
        f: &Slog2File,
        pos: u32,
        chunk: usize,
        stats: &mut QueryStats,
    ) -> Result<Option<NodeRows>> {
        // The node's record keys (its table, without the shared cache).
        let (raw, base) = f.raw_block(pos)?;
        if let Some(m) = f.map() {
            // Map the block's pages in one call rather than a fault per page
            // (a hint: on failure they fault in as usual).
            let _ = m.advise_range(memmap2::Advice::PopulateRead, base as usize, raw.len());
        }
        f.note_touched(raw.len() as u64);
        // A compressed node: its drawables unpacked, held with the rows.
        let (bytes, layout) = f.drawables_layout(pos)?;
        let block_bytes = bytes.len();
        stats.bytes_indexed += block_bytes as u64;
        let unpacked = match bytes {
            NodeBytes::File(_) => None,
            NodeBytes::Unpacked(b) => Some(b),
        };
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
            block_bytes,
            chunk: chunk.max(1),
            unpacked,
        }))
    }

    /// Merge the two lists (ties: nestless first) until at least `count`
    /// records are merged and every record starting by `through` is.
    pub(super) fn merge(&mut self, count: usize, through: f64) {
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
    pub(super) fn start_of(&self, i: usize) -> f64 {
        self.rec_start
            .get(i)
            .copied()
            .unwrap_or(self.unmerged_start)
    }

    /// Decode records up to `upto` (exclusive) if they are not yet: a chunk
    /// of at least `chunk` records (merged first as far as needed).
    pub(super) fn decode_to(
        &mut self,
        f: &Slog2File,
        upto: usize,
        stats: &mut QueryStats,
    ) -> Result<()> {
        let done = self.first_row.len() - 1;
        if upto <= done {
            return Ok(());
        }
        let want = upto.max(done + self.chunk);
        self.merge(want, f64::NEG_INFINITY);
        let upto = want.min(self.keys.len());
        let (block, base) = match &self.unpacked {
            Some(b) => (&b[..], f.directory()[self.pos as usize].ptr.offset as u64),
            None => f.raw_block(self.pos)?,
        };
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
    pub(super) fn entering(
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
