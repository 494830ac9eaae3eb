//! What makes a window query cost what it returns, not what the file holds.
//!
//! # Why
//!
//! A viewer jumps and scrolls through ~1,000-drawable windows of files of up
//! to 10⁸ drawables (10⁵ nodes). Three costs used to grow with the file or
//! with the node size rather than with the window:
//!
//! 1. **Finding the nodes.** The directory was scanned entry by entry (10⁵
//!    entries for 10⁸ drawables). `DirIndex`, built on open from the
//!    directory alone, keeps per depth the entries sorted by start time with
//!    a running maximum of their end times, so the nodes that intersect a
//!    window are found by two binary searches per depth (the tree has
//!    ~log₂(nodes) depths). Nothing is stored in the file: files written by
//!    the reference get the same index.
//! 2. **Decoding whole nodes.** Every intersecting node (64 KiB leaves, and
//!    upper nodes of any size) was decoded in full, although a window shows a
//!    sliver of each. `NodeTable` is the node's layout — one 32-byte
//!    [`RecordKey`] per drawable (box, drawing-order key, byte offset) walked
//!    once without allocating — so a query binary-searches each drawable list
//!    (drawables are stored in drawing order, i.e. by start time; a running
//!    maximum of end times bounds the left side) and decodes only the records
//!    that intersect. Lists that are not sorted (a damaged or exotic file)
//!    fall back to a linear filter of the table: same result, no search.
//! 3. **Decoding the same nodes again.** Scrolling touches the same upper
//!    nodes and leaves query after query. `NodeCache` keeps the tables of
//!    recently used nodes, shared by every thread querying the file.
//!
//! # The cache's bound
//!
//! The cache holds `NodeTable`s (≈ 40 bytes per drawable of the node: about
//! 0.7× the node's bytes on disk; a compressed file's tables also hold the
//! node's unpacked drawables, ≈ 1.7× then) up to a byte limit: by default
//! [`DEFAULT_CACHE_BYTES`] (64 MiB), or the value of the environment variable
//! `SLOG2_NODE_CACHE_BYTES` when the file is opened (a byte count, with an
//! optional `k`, `m` or `g` suffix, powers of 1024; `0` disables caching), or
//! [`Slog2File::set_node_cache_limit`](super::Slog2File::set_node_cache_limit)
//! at any time. It is split into 16 shards, each a `Mutex` over a hash map,
//! chosen by node position, so threads querying different nodes rarely wait
//! for each other; each shard evicts its least recently used tables when it
//! exceeds 1/16 of the limit. Memory therefore stays bounded whatever the
//! access pattern; the mmap's pages are the OS page cache's business.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use rustc_hash::FxHashMap;

use crate::format::{DirEntry, NodeLayout, RecordKey};
use crate::model::TimeBox;

/// Default byte limit of the node cache (64 MiB).
pub const DEFAULT_CACHE_BYTES: usize = 64 << 20;

/// The environment variable read on open for the node cache's byte limit.
pub const CACHE_ENV: &str = "SLOG2_NODE_CACHE_BYTES";

/// Parse a byte count with an optional `k`/`m`/`g` suffix (powers of 1024).
pub fn parse_bytes(s: &str) -> Option<usize> {
    let s = s.trim();
    let (num, mul) = match s.chars().last()?.to_ascii_lowercase() {
        'k' => (&s[..s.len() - 1], 1usize << 10),
        'm' => (&s[..s.len() - 1], 1 << 20),
        'g' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.trim().parse::<usize>().ok()?.checked_mul(mul)
}

/// The limit from [`CACHE_ENV`], else [`DEFAULT_CACHE_BYTES`].
pub(crate) fn limit_from_env() -> usize {
    std::env::var(CACHE_ENV)
        .ok()
        .and_then(|v| parse_bytes(&v))
        .unwrap_or(DEFAULT_CACHE_BYTES)
}

// ---------------------------------------------------------------------------
// Directory index

struct Level {
    depth: i16,
    /// Directory positions, sorted by (start, position).
    pos: Vec<u32>,
    start: Vec<f64>,
    end: Vec<f64>,
    /// Running maximum of `end` (non-decreasing).
    max_end: Vec<f64>,
}

/// Per-depth interval index of the directory (see the module docs).
pub(crate) struct DirIndex {
    /// Depth descending (the directory's order).
    levels: Vec<Level>,
}

impl DirIndex {
    pub fn new(directory: &[DirEntry]) -> DirIndex {
        let mut by_depth: FxHashMap<i16, Vec<u32>> = FxHashMap::default();
        for (i, e) in directory.iter().enumerate() {
            // A box with a NaN bound overlaps no window: leave it out.
            if e.time_box.start.is_nan() || e.time_box.end.is_nan() {
                continue;
            }
            by_depth.entry(e.id.depth).or_default().push(i as u32);
        }
        let mut levels: Vec<Level> = by_depth
            .into_iter()
            .map(|(depth, mut pos)| {
                let order = |&a: &u32, &b: &u32| {
                    let (ea, eb) = (&directory[a as usize], &directory[b as usize]);
                    ea.time_box
                        .start
                        .total_cmp(&eb.time_box.start)
                        .then(a.cmp(&b))
                };
                // Usually sorted already (nodes of a depth are written in
                // time order); the key is unique, so skipping is exact.
                if !pos.is_sorted_by(|a, b| order(a, b).is_le()) {
                    pos.sort_by(order);
                }
                let start: Vec<f64> = pos
                    .iter()
                    .map(|&p| directory[p as usize].time_box.start)
                    .collect();
                let end: Vec<f64> = pos
                    .iter()
                    .map(|&p| directory[p as usize].time_box.end)
                    .collect();
                let mut m = f64::NEG_INFINITY;
                let max_end = end
                    .iter()
                    .map(|&e| {
                        m = m.max(e);
                        m
                    })
                    .collect();
                Level {
                    depth,
                    pos,
                    start,
                    end,
                    max_end,
                }
            })
            .collect();
        levels.sort_by_key(|l| std::cmp::Reverse(l.depth));
        DirIndex { levels }
    }

    /// The earliest start after `t` of any entry (`+inf` if none): until a
    /// window's end reaches it, moving the window later adds no node.
    pub fn next_start_after(&self, t: f64) -> f64 {
        self.levels
            .iter()
            .filter_map(|l| l.start.get(l.start.partition_point(|&s| s <= t)).copied())
            .fold(f64::INFINITY, f64::min)
    }

    /// Directory positions of the entries of depth `>= min_depth` whose box
    /// intersects `w`, in directory order (appended to `out`, which is sorted).
    pub fn overlapping(&self, w: TimeBox, min_depth: i16, out: &mut Vec<u32>) {
        for l in &self.levels {
            if l.depth < min_depth {
                break;
            }
            let lo = l.max_end.partition_point(|&m| m < w.start);
            let hi = l.start.partition_point(|&s| s <= w.end);
            for i in lo..hi.max(lo) {
                if l.end[i] >= w.start {
                    out.push(l.pos[i]);
                }
            }
        }
        out.sort_unstable();
    }
}

// ---------------------------------------------------------------------------
// Node tables

/// One drawable list of a node: keys in stored order plus what the search
/// needs.
struct List {
    keys: Vec<RecordKey>,
    /// Running maximum of `keys[i].end`; empty when the list is not sorted by
    /// start (then queries filter linearly).
    max_end: Vec<f64>,
}

impl List {
    fn new(keys: Vec<RecordKey>) -> List {
        // One pass: whether the starts ascend (no NaN bound), and the
        // running maximum of the ends (kept only if they do).
        let mut max_end = Vec::with_capacity(keys.len());
        let (mut sorted, mut prev, mut m) = (true, f64::NEG_INFINITY, f64::NEG_INFINITY);
        for k in &keys {
            sorted &= (k.start >= prev) & !k.end.is_nan();
            prev = k.start;
            m = m.max(k.end);
            max_end.push(m);
        }
        if !sorted {
            max_end = Vec::new();
        }
        List { keys, max_end }
    }

    fn hits<'a>(&'a self, w: TimeBox) -> impl Iterator<Item = &'a RecordKey> + 'a {
        let (lo, hi) = if self.max_end.len() == self.keys.len() {
            let lo = self.max_end.partition_point(|&m| m < w.start);
            let hi = self.keys.partition_point(|k| k.start <= w.end);
            (lo, hi.max(lo))
        } else {
            (0, self.keys.len())
        };
        self.keys[lo..hi]
            .iter()
            .filter(move |k| k.start <= w.end && w.start <= k.end)
    }

    /// The records that intersect `new` but not `old` (what a cursor moving
    /// from `old` to `new` must add), in stored order. On a sorted list the
    /// records whose start lies in `old` intersect `old` (their end is not
    /// before their start), so that index range is skipped without a look.
    fn entering(&self, old: TimeBox, new: TimeBox, mut f: impl FnMut(usize, &RecordKey)) {
        let hit = |k: &RecordKey| {
            k.start <= new.end && new.start <= k.end && !(k.start <= old.end && old.start <= k.end)
        };
        if self.max_end.len() != self.keys.len() {
            for (i, k) in self.keys.iter().enumerate() {
                if hit(k) {
                    f(i, k);
                }
            }
            return;
        }
        // Left of the old window: only a record ending before it can enter,
        // so only when the new window starts earlier. (This range is bounded
        // by the running maximum of ends: one long record makes it long.)
        if new.start < old.start {
            let lo = self.max_end.partition_point(|&m| m < new.start);
            let hi = self
                .keys
                .partition_point(|k| k.start < old.start.min(new.end));
            for (i, k) in self.keys.iter().enumerate().take(hi).skip(lo) {
                if hit(k) {
                    f(i, k);
                }
            }
        }
        // Right of the old window: only when the new one ends later. Every
        // record starting after the old window and by the new one's end
        // enters (its end is not before its start).
        if new.end > old.end {
            let b = self.keys.partition_point(|k| k.start <= old.end);
            let hi = self.keys[b..].partition_point(|k| k.start <= new.end) + b;
            for (i, k) in self.keys.iter().enumerate().take(hi).skip(b) {
                if hit(k) {
                    f(i, k);
                }
            }
        }
    }

    fn heap_bytes(&self) -> usize {
        self.keys.capacity() * std::mem::size_of::<RecordKey>() + self.max_end.capacity() * 8
    }
}

/// The searchable layout of one node block (see the module docs).
pub(crate) struct NodeTable {
    nestless: List,
    nestable: List,
    /// Where the child stubs begin in the block.
    pub stubs_at: usize,
    /// A compressed node: its header and drawables unpacked (the bytes its
    /// records are decoded from, see [`super::blocks`]); `None`: the file's.
    pub bytes: Option<Arc<Vec<u8>>>,
}

impl NodeTable {
    pub fn new(layout: NodeLayout, bytes: Option<Arc<Vec<u8>>>) -> NodeTable {
        NodeTable {
            nestless: List::new(layout.nestless),
            nestable: List::new(layout.nestable),
            stubs_at: layout.stubs_at,
            bytes,
        }
    }

    /// The records that intersect `w`: nestless then nestable, each list in
    /// stored order (the order a full decode yields them).
    pub fn hits<'a>(&'a self, w: TimeBox) -> impl Iterator<Item = &'a RecordKey> + 'a {
        self.nestless.hits(w).chain(self.nestable.hits(w))
    }

    /// The records that intersect `new` and not `old`: nestless then
    /// nestable, each list in stored order (see [`super::cursor`]).
    /// `f` gets each record's index in [`records`](Self::records) order.
    pub fn entering(&self, old: TimeBox, new: TimeBox, mut f: impl FnMut(usize, &RecordKey)) {
        self.nestless.entering(old, new, &mut f);
        let off = self.nestless.keys.len();
        self.nestable.entering(old, new, |i, k| f(off + i, k));
    }

    /// The earliest start after `t` of a record of the node (`+inf` if
    /// none; `-inf` if a list is not sorted by start, so nothing can be
    /// said).
    pub fn next_start_after(&self, t: f64) -> f64 {
        [&self.nestless, &self.nestable]
            .iter()
            .map(|l| {
                if l.max_end.len() != l.keys.len() {
                    return f64::NEG_INFINITY;
                }
                let i = l.keys.partition_point(|k| k.start <= t);
                l.keys.get(i).map_or(f64::INFINITY, |k| k.start)
            })
            .fold(f64::INFINITY, f64::min)
    }

    /// Bytes this table holds (what the cache counts), unpacked node bytes
    /// included.
    pub fn heap_bytes(&self) -> usize {
        std::mem::size_of::<NodeTable>()
            + self.nestless.heap_bytes()
            + self.nestable.heap_bytes()
            + self.bytes.as_ref().map_or(0, |b| b.len())
    }
}

// ---------------------------------------------------------------------------
// The cache

const SHARDS: usize = 16;

#[derive(Default)]
struct Shard {
    map: FxHashMap<u32, (Arc<NodeTable>, u64)>,
    bytes: usize,
}

/// A bounded, sharded LRU of node tables keyed by directory position.
pub(crate) struct NodeCache {
    shards: Vec<Mutex<Shard>>,
    limit: AtomicUsize,
    tick: AtomicU64,
}

/// Figures of a node cache, for benchmarks and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Tables held.
    pub entries: usize,
    /// Bytes they hold.
    pub bytes: usize,
    /// The byte limit.
    pub limit: usize,
}

impl NodeCache {
    pub fn new(limit: usize) -> NodeCache {
        NodeCache {
            shards: (0..SHARDS).map(|_| Mutex::new(Shard::default())).collect(),
            limit: AtomicUsize::new(limit),
            tick: AtomicU64::new(0),
        }
    }

    fn shard(&self, pos: u32) -> MutexGuard<'_, Shard> {
        // A panic while holding the lock cannot leave a shard inconsistent
        // in a way that matters (worst case a byte count off): keep going.
        self.shards[pos as usize % SHARDS]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    fn shard_limit(&self) -> usize {
        self.limit.load(Ordering::Relaxed) / SHARDS
    }

    pub fn get(&self, pos: u32) -> Option<Arc<NodeTable>> {
        let t = self.tick.fetch_add(1, Ordering::Relaxed);
        let mut s = self.shard(pos);
        let e = s.map.get_mut(&pos)?;
        e.1 = t;
        Some(e.0.clone())
    }

    pub fn insert(&self, pos: u32, table: Arc<NodeTable>) {
        let limit = self.shard_limit();
        let size = table.heap_bytes();
        if size > limit {
            return;
        }
        let t = self.tick.fetch_add(1, Ordering::Relaxed);
        let mut s = self.shard(pos);
        if let Some(old) = s.map.insert(pos, (table, t)) {
            s.bytes -= old.0.heap_bytes();
        }
        s.bytes += size;
        evict(&mut s, limit);
    }

    pub fn set_limit(&self, bytes: usize) {
        self.limit.store(bytes, Ordering::Relaxed);
        let limit = self.shard_limit();
        for i in 0..SHARDS {
            evict(&mut self.shard(i as u32), limit);
        }
    }

    pub fn stats(&self) -> CacheStats {
        let mut st = CacheStats {
            limit: self.limit.load(Ordering::Relaxed),
            ..Default::default()
        };
        for i in 0..SHARDS {
            let s = self.shard(i as u32);
            st.entries += s.map.len();
            st.bytes += s.bytes;
        }
        st
    }
}

/// Drop least recently used tables until the shard fits its limit.
fn evict(s: &mut Shard, limit: usize) {
    while s.bytes > limit {
        let Some((&victim, _)) = s.map.iter().min_by_key(|(_, (_, t))| *t) else {
            s.bytes = 0;
            return;
        };
        if let Some((t, _)) = s.map.remove(&victim) {
            s.bytes -= t.heap_bytes();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(start: f64, end: f64, i: u32) -> RecordKey {
        RecordKey {
            start,
            end,
            category: 0,
            first_line: 0,
            last_line: 0,
            offset: i,
            len: 1,
        }
    }

    /// Deterministic pseudo-random boxes on a coarse grid (ties common).
    fn boxes(n: usize, seed: u64) -> Vec<(f64, f64)> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let s = ((x >> 33) % 64) as f64;
                let d = ((x >> 13) % 16) as f64;
                (s, s + d)
            })
            .collect()
    }

    #[test]
    fn list_search_equals_linear_filter_sorted_or_not() {
        for seed in 0..20u64 {
            let mut b = boxes(200, seed);
            if seed % 2 == 0 {
                b.sort_by(|a, b| a.0.total_cmp(&b.0));
            }
            if seed % 5 == 0 {
                b[7] = (f64::NAN, 3.0); // forces the linear path
            }
            let keys: Vec<RecordKey> = b
                .iter()
                .enumerate()
                .map(|(i, &(s, e))| key(s, e, i as u32))
                .collect();
            let list = List::new(keys.clone());
            assert_eq!(list.max_end.is_empty(), seed % 2 == 1 || seed % 5 == 0);
            for t0 in 0..90 {
                for len in [0.0, 0.5, 3.0, 20.0] {
                    let w = TimeBox::new(t0 as f64 - 5.0, t0 as f64 - 5.0 + len);
                    let got: Vec<u32> = list.hits(w).map(|k| k.offset).collect();
                    let want: Vec<u32> = keys
                        .iter()
                        .filter(|k| k.start <= w.end && w.start <= k.end)
                        .map(|k| k.offset)
                        .collect();
                    assert_eq!(got, want, "seed {seed} window {w:?}");
                }
            }
        }
    }

    #[test]
    fn dir_index_equals_scan() {
        use crate::format::{BlockPtr, DirEntry};
        use crate::model::NodeId;
        let b = boxes(300, 7);
        let dir: Vec<DirEntry> = b
            .iter()
            .enumerate()
            .map(|(i, &(s, e))| DirEntry {
                id: NodeId::new((i % 5) as i16, i as i32),
                time_box: if i == 11 {
                    TimeBox::new(f64::NAN, e)
                } else {
                    TimeBox::new(s, e)
                },
                ptr: BlockPtr::new(108 + i as u64, 10),
            })
            .collect();
        let idx = DirIndex::new(&dir);
        for t0 in 0..90 {
            for len in [0.0, 2.0, 30.0] {
                let w = TimeBox::new(t0 as f64 - 5.0, t0 as f64 - 5.0 + len);
                for min_depth in [i16::MIN, 0, 2, 4, 9] {
                    let mut got = Vec::new();
                    idx.overlapping(w, min_depth, &mut got);
                    let want: Vec<u32> = (0..dir.len() as u32)
                        .filter(|&i| {
                            let e = &dir[i as usize];
                            e.id.depth >= min_depth && e.time_box.overlaps(&w)
                        })
                        .collect();
                    assert_eq!(got, want);
                }
            }
        }
    }

    #[test]
    fn cache_stays_under_its_limit() {
        use crate::format::DirEntry;
        let c = NodeCache::new(16 * 4096);
        for i in 0..1000u32 {
            let keys: Vec<RecordKey> = (0..(i % 50)).map(|j| key(j as f64, j as f64, j)).collect();
            let t = Arc::new(NodeTable::new(
                NodeLayout {
                    entry: DirEntry {
                        id: crate::model::NodeId::new(0, i as i32),
                        time_box: TimeBox::new(0.0, 1.0),
                        ptr: crate::format::BlockPtr::new(108, 10),
                    },
                    nestless: Vec::new(),
                    nestable: keys,
                    stubs_at: 0,
                },
                // Every other table with unpacked bytes, as a compressed
                // file's: they count in the limit too.
                (i % 2 == 1).then(|| vec![0u8; 1000].into()),
            ));
            c.insert(i, t);
            let st = c.stats();
            assert!(st.bytes <= st.limit, "{st:?}");
        }
        assert!(c.get(999).is_some(), "the last table is kept");
        c.set_limit(0);
        assert_eq!(c.stats().entries, 0);
        assert_eq!(c.stats().bytes, 0);
    }

    #[test]
    fn parses_sizes() {
        assert_eq!(parse_bytes("0"), Some(0));
        assert_eq!(parse_bytes("4096"), Some(4096));
        assert_eq!(parse_bytes("16k"), Some(16 << 10));
        assert_eq!(parse_bytes("64M"), Some(64 << 20));
        assert_eq!(parse_bytes(" 2g "), Some(2 << 30));
        assert_eq!(parse_bytes("x"), None);
        assert_eq!(parse_bytes(""), None);
    }
}
