//! The whole-file scan: every drawable of a file exactly once, as batches of
//! [`Rows`], at the speed of reading the bytes.
//!
//! # Why a scan of its own
//!
//! Analysis tools (the Python package's `File.scan()`, a C program building
//! a histogram) want *all* drawables into columns. Doing that with window
//! queries costs far more than the bytes: each window finds its nodes,
//! builds (and caches) a table of record keys per node, sorts its hits into
//! drawing order, decodes each hit through the general decoder, and a
//! drawable that crosses a window boundary is returned twice (the caller
//! must filter it). Measured on a 10⁷-drawable file (BENCHMARKS.md), that
//! was ≈ 4–6 M drawables per second, half of it system time: the mapped
//! pages of every node were faulted in, and dropped again every 256 MiB.
//!
//! [`Scan`] instead visits every tree node once and decodes each record once,
//! straight from the block into the columns:
//!
//! * **Each drawable exactly once, no filtering.** A drawable is stored in
//!   exactly one node and node blocks are disjoint (checked on open), so
//!   visiting every directory entry once yields every stored drawable once:
//!   no window boundaries, no de-duplication. This includes drawables a
//!   window cannot find (a node or record with a NaN time, records outside
//!   their node's box in files that break invariant #16).
//! * **Order: file order of the node blocks.** Nodes come in increasing
//!   block offset — the order the writer wrote them (a node is written when
//!   it closes, so leaves come left to right in time, each upper node after
//!   its last child) — which makes the reads sequential. Within a node, the
//!   nestless records (arrows, events) come first, then the nestable ones
//!   (states, composites), each list in stored order, i.e. drawing order. A
//!   composite row is followed by its member rows, as in a window. Nothing
//!   is sorted across nodes: callers that need time order sort the columns.
//! * **Sequential reads, flat memory.** A mapped file is walked in chunks
//!   of whole nodes (≈ 8 MiB): on entering a chunk the scan asks the kernel
//!   to map all of its pages at once (`MADV_POPULATE_READ`, one call instead
//!   of a page fault every 16 pages), to read the next chunk ahead
//!   (`MADV_WILLNEED`, so a cold file's disk reads overlap the decoding), and
//!   to drop the mappings of the chunk behind it (`MADV_DONTNEED`; the pages
//!   stay in the page cache). So RSS holds one chunk of the file whatever its
//!   size, and the bytes are decoded where they lie (no copy). This was
//!   measured against `pread` into a reused buffer (BENCHMARKS.md): the same
//!   user time, about a third less system time, 6 MiB less RSS. Without
//!   `MADV_POPULATE_READ` (Linux < 5.14) the advice fails and pages fault in
//!   as usual. Files held in memory are decoded in place.
//! * **Batches into reused columns.** [`Scan::next_into`] clears a caller's
//!   [`Rows`] (keeping its capacity) and fills it with whole records up to
//!   a row and an info-byte limit, so a caller decodes batch after batch into
//!   the same memory. A record is never split across batches; a single
//!   record larger than the limits comes alone (the C API then reports the
//!   room it needs).
//! * **A tight decoder.** Records are decoded by
//!   [`crate::format::RecordWalk`] / [`crate::format::visit_drawable`] (one bounds check per
//!   well-formed primitive, then fixed-offset reads) into [`Rows`] through a
//!   sink that computes a composite's box from its members — the same values
//!   a window's record keys give (tests/scan.rs compares the two).
//!
//! For bindings that copy batches into caller memory, [`PrefetchScan`]
//! (in `prefetch.rs`) runs a scan on a thread of its own, a few sub-batches
//! ahead, and hands out runs of whole records sized to the caller's room.
//!
//! The scan does not use the node cache or the directory index, so it
//! neither evicts a viewer's cached tables nor pays to build them. A
//! compressed file's nodes are unpacked ahead on rayon's pool (`ahead.rs`:
//! their drawables only, the stubs are not read) while the scan's thread
//! decodes the node before them.
//!
//! # A time range
//!
//! [`Slog2File::scan_range`] walks the same way over the nodes whose box
//! meets `[t0, t1]` and keeps the drawables whose **end** time lies in the
//! range (a composite with its members): consecutive ranges `[a, b]`,
//! `(b, c]`… give each drawable once, and the range `[start, end]` of the
//! file gives every drawable with a time (not those with NaN times). This
//! is how a binding walks part of a file in batches (Python's
//! `File.scan(t0=, t1=)`) without stepping windows and filtering rows
//! itself.
//!
//! # Errors
//!
//! A damaged node makes [`Scan::next_into`] fail with the codec's error
//! (block and byte offset); the rows decoded by that call are dropped and
//! the scan is over (later calls return `false`).

use std::ops::{Deref, Range};

use crate::error::Result;
use crate::format::{PackedNode, RecordWalk};
use crate::model::TimeBox;

mod ahead;
mod prefetch;

use ahead::Ahead;

pub use prefetch::{Batch, PrefetchScan, DEFAULT_SUB_ROWS};

use super::rows::ScanSink;
use super::{QueryStats, Rows, Slog2File};

/// Rows per batch for callers without a preference (and of
/// [`Slog2File::scan_rows`]): 64 k rows, ≈ 4 MiB of columns.
pub const DEFAULT_BATCH_ROWS: usize = 1 << 16;

/// Bytes of whole nodes advised at a time (a larger node is one chunk).
const CHUNK_BYTES: usize = 8 << 20;

/// Largest gap between two node blocks in one chunk (metadata blocks
/// between nodes are advised along).
const MAX_GAP: usize = 1 << 20;

/// The node being walked: its block's byte range in the file (a
/// compressed node: its offset, the range of its unpacked bytes in the
/// scan's buffer), and the walk.
struct Current {
    start: usize,
    len: usize,
    walk: RecordWalk,
}

/// A whole-file scan (see the module docs). `F` is how the scan holds its
/// file: `&Slog2File` from [`Slog2File::scan`], or an owning pointer such
/// as `Arc<Slog2File>` (the C API's scan handles).
pub struct Scan<F: Deref<Target = Slog2File>> {
    file: F,
    /// Directory positions in increasing block offset.
    order: Vec<u32>,
    /// Next index into `order` to load.
    next: usize,
    cur: Option<Current>,
    /// The chunk of the map advised last (mapped files).
    chunk_at: usize,
    chunk_len: usize,
    done: bool,
    /// Keep only drawables whose end lies in this closed range.
    range: Option<TimeBox>,
    /// A compressed file: the current node's header and drawables,
    /// unpacked (reused from node to node).
    unpacked: Vec<u8>,
    /// A compressed file: nodes being unpacked on rayon's pool, and how
    /// many of `order` were handed to it ([`ahead`]).
    ahead: Option<Ahead>,
    spawned: usize,
}

impl<F: Deref<Target = Slog2File>> Scan<F> {
    /// A scan of every node of `file`, from the start.
    pub fn new(file: F) -> Scan<F> {
        let dir = file.directory();
        let mut order: Vec<u32> = (0..dir.len() as u32).collect();
        order.sort_by_key(|&p| dir[p as usize].ptr.offset);
        let ahead = Ahead::new(&file);
        Scan {
            file,
            order,
            next: 0,
            cur: None,
            chunk_at: 0,
            chunk_len: 0,
            done: false,
            range: None,
            unpacked: Vec::new(),
            ahead,
            spawned: 0,
        }
    }

    /// A scan of the drawables whose end time lies in `[t0, t1]` (see the
    /// module docs, "A time range"): only nodes whose box meets the range
    /// are read. A NaN bound or `t0 > t1` is an `InvalidArgument` error.
    pub fn with_range(file: F, t0: f64, t1: f64) -> Result<Scan<F>> {
        let w = Slog2File::check_window(t0, t1)?;
        let mut scan = Scan::new(file);
        let dir = scan.file.directory();
        scan.order
            .retain(|&p| dir[p as usize].time_box.overlaps(&w));
        scan.range = Some(w);
        Ok(scan)
    }

    /// The file being scanned.
    pub fn file(&self) -> &Slog2File {
        &self.file
    }

    /// Nodes in the file, and nodes started so far.
    pub fn progress(&self) -> (usize, usize) {
        (self.order.len(), self.next)
    }

    /// Clear `rows` and fill it with the next whole records: as many as fit
    /// in `max_rows` rows and `max_info` info bytes, and at least one record
    /// (which alone may exceed the limits) while any remains. Returns
    /// `false` (and empty `rows`) once every drawable has been returned.
    /// `rows.stats` gets the nodes started and the record bytes decoded by
    /// this call. On error the scan is over (module docs).
    pub fn next_into(&mut self, rows: &mut Rows, max_rows: usize, max_info: usize) -> Result<bool> {
        rows.clear();
        if self.done {
            return Ok(false);
        }
        let r = self.fill(rows, max_rows, max_info);
        if let Err(e) = self.file().settle(r) {
            self.done = true;
            self.cur = None;
            rows.clear();
            return Err(e);
        }
        Ok(!rows.is_empty())
    }

    fn fill(&mut self, rows: &mut Rows, max_rows: usize, max_info: usize) -> Result<()> {
        // Columns grow to the batch size once and are reused after that.
        rows.reserve(max_rows.clamp(1, DEFAULT_BATCH_ROWS * 16));
        let mut stats = QueryStats::default();
        'nodes: loop {
            if self.cur.is_none() {
                if !self.load_next()? {
                    self.done = true;
                    break;
                }
                stats.nodes_read += 1;
            }
            let Some(cur) = self.cur.as_mut() else {
                break;
            };
            let block = if self.file.is_compressed() {
                &self.unpacked[..]
            } else {
                &self.file.as_bytes()[cur.start..cur.start + cur.len]
            };
            let base = cur.start as u64;
            let mut sink = ScanSink::new(rows);
            // The walk lives in a local (registers) while records are decoded
            // and is stored back when the batch is full: copying it out of
            // `self` per record stalled on store-to-load forwarding (half of
            // the scan's time in a profile).
            let mut walk = cur.walk;
            loop {
                let before = walk;
                let n0 = sink.rows.len();
                if !walk.next(block, base, &mut sink)? {
                    self.cur = None;
                    continue 'nodes;
                }
                if let Some(w) = self.range {
                    // The record's own row is its first (members follow).
                    let end = sink.rows.end[n0];
                    if !(end >= w.start && end <= w.end) {
                        stats.bytes_read += (walk.pos() - before.pos()) as u64;
                        sink.rows.truncate(n0);
                        continue;
                    }
                }
                let over = sink.rows.len() > max_rows || sink.rows.info_len() > max_info;
                if over && n0 > 0 {
                    // Step back over this record: it starts the next batch.
                    sink.rows.truncate(n0);
                    cur.walk = before;
                    break 'nodes;
                }
                stats.bytes_read += (walk.pos() - before.pos()) as u64;
                if over || sink.rows.len() == max_rows {
                    cur.walk = walk;
                    break 'nodes;
                }
            }
        }
        rows.stats = stats;
        Ok(())
    }

    /// Start the next node in block order; `false` when none is left.
    fn load_next(&mut self) -> Result<bool> {
        if self.next >= self.order.len() {
            return Ok(false);
        }
        let i = self.next;
        self.next += 1;
        let (start, len, walk) = if self.ahead.is_some() {
            // Keep the pool `depth` nodes ahead of this one.
            while self.spawned < self.order.len()
                && self.ahead.as_ref().is_some_and(Ahead::has_room)
            {
                let j = self.spawned;
                self.spawned += 1;
                let r = self.range_at(j);
                if let Ok(r) = &r {
                    self.advise(j, r);
                }
                if let Some(a) = self.ahead.as_mut() {
                    a.push(r);
                }
            }
            let Some(a) = self.ahead.as_mut() else {
                unreachable!("checked above")
            };
            let (start, bytes) = a
                .pop()
                .unwrap_or_else(|| unreachable!("node {i} in flight"))?;
            a.recycle(std::mem::replace(&mut self.unpacked, bytes));
            (start, 0, RecordWalk::new(&self.unpacked, start as u64)?)
        } else {
            let r = self.range_at(i)?;
            self.advise(i, &r);
            let file = &*self.file;
            let block = &file.as_bytes()[r.clone()];
            let walk = if file.is_compressed() {
                PackedNode::parse(block, r.start as u64)?.unpack_into(false, &mut self.unpacked)?;
                RecordWalk::new(&self.unpacked, r.start as u64)?
            } else {
                RecordWalk::new(block, r.start as u64)?
            };
            (r.start, r.len(), walk)
        };
        self.cur = Some(Current { start, len, walk });
        Ok(true)
    }

    /// The block range of the `i`-th node in scan order.
    fn range_at(&self, i: usize) -> Result<Range<usize>> {
        let file = &*self.file;
        file.directory()[self.order[i] as usize]
            .ptr
            .range("tree node", file.file_len())
    }

    /// Kernel advice when the `i`-th node (block `r`) is about to be read:
    /// on leaving the chunk advised last, the chunk of whole nodes from
    /// this one on (mapped files).
    fn advise(&mut self, i: usize, r: &Range<usize>) {
        let file = &*self.file;
        let Some(map) = file.map() else {
            return;
        };
        if r.start >= self.chunk_at && r.end <= self.chunk_at + self.chunk_len {
            return;
        }
        let dir = file.directory();
        let mut end = r.end;
        for &p in &self.order[i + 1..] {
            let Ok(q) = dir[p as usize].ptr.range("tree node", file.file_len()) else {
                break;
            };
            if q.start < end || q.start - end > MAX_GAP || q.end - r.start > CHUNK_BYTES {
                break;
            }
            end = q.end;
        }
        advise_chunk(map, (self.chunk_at, self.chunk_len), (r.start, end));
        self.chunk_at = r.start;
        self.chunk_len = end - r.start;
    }
}

/// Kernel advice on entering the chunk `[at, end)` of the map after the
/// chunk `(old_at, old_len)` (module docs). Advice is a hint: failures are
/// ignored (the pages then fault in as usual).
pub(crate) fn advise_chunk(
    map: &memmap2::Mmap,
    (old_at, old_len): (usize, usize),
    (at, end): (usize, usize),
) {
    use memmap2::{Advice, UncheckedAdvice};
    if old_len > 0 {
        // SAFETY: as in `Slog2File::note_touched`: the map is a read-only
        // shared mapping of a file not modified while mapped; DONTNEED only
        // drops our page-table entries, and the next access faults the same
        // bytes back in from the page cache, so no slice into the map (this
        // scan's or another thread's) changes value.
        let _ = unsafe { map.unchecked_advise_range(UncheckedAdvice::DontNeed, old_at, old_len) };
    }
    let _ = map.advise_range(Advice::PopulateRead, at, end - at);
    let ahead = CHUNK_BYTES.min(map.len().saturating_sub(end));
    if ahead > 0 {
        let _ = map.advise_range(Advice::WillNeed, end, ahead);
    }
}

impl<F: Deref<Target = Slog2File>> std::fmt::Debug for Scan<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scan")
            .field("nodes", &self.order.len())
            .field("next", &self.next)
            .field("done", &self.done)
            .finish()
    }
}

impl Slog2File {
    /// A scan of every drawable of the file, each exactly once, in batches
    /// of columns (see the [`scan`](crate::read::scan) module):
    ///
    /// ```no_run
    /// # fn main() -> slog2::Result<()> {
    /// let f = slog2::Slog2File::open("run.slog2")?;
    /// let mut scan = f.scan();
    /// let mut rows = slog2::read::Rows::default();
    /// let mut n = 0;
    /// while scan.next_into(&mut rows, 1 << 16, 4 << 20)? {
    ///     n += rows.len();
    /// }
    /// # Ok(()) }
    /// ```
    pub fn scan(&self) -> Scan<&Slog2File> {
        Scan::new(self)
    }

    /// A scan of the drawables whose end time lies in `[t0, t1]` (module
    /// docs, "A time range").
    pub fn scan_range(&self, t0: f64, t1: f64) -> Result<Scan<&Slog2File>> {
        Scan::with_range(self, t0, t1)
    }

    /// Every drawable of the file as one [`Rows`] (whole-file scan, in the
    /// scan's order): for tests and small files; large files should use
    /// [`scan`](Self::scan) batch by batch.
    pub fn scan_rows(&self) -> Result<Rows> {
        let mut scan = self.scan();
        let mut all = Rows::default();
        let mut batch = Rows::default();
        while scan.next_into(&mut batch, DEFAULT_BATCH_ROWS, usize::MAX)? {
            all.append(&batch);
        }
        all.stats = QueryStats::default();
        Ok(all)
    }
}
