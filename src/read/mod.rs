//! The SLOG-2 reader: a memory-mapped file, its directory, window queries,
//! previews, popup text and an invariant checker.
//!
//! # Why it is shaped like this
//!
//! * **Memory-mapped.** Viewers open traces of gigabytes and look at a small
//!   time window at a time. [`Slog2File::open`] maps the file and decodes only
//!   the small metadata blocks (header, category map, line-ID maps, tree
//!   directory); tree nodes stay on disk until a query touches them, so opening
//!   costs the same for a 1 KB and a 10 GB file (plus an index of the
//!   directory, ~15 ms per 10⁵ nodes). Another process may still truncate
//!   or rewrite a mapped file (a `cp` over it): the mapping is guarded
//!   ([`guard`]), so the query that runs into the change returns
//!   [`Error::FileChanged`] instead of the process dying of SIGBUS.
//!   [`Slog2File::from_bytes`] and [`Slog2File::read_from`] (pipes, devices:
//!   read as far as the header's blocks reach) hold the file in memory. Mapped pages are dropped from the process's RSS every 256 MiB
//!   of node walks, so random access over a huge file keeps RSS bounded.
//! * **Window queries cost what they return** ([`index`]). Every drawable lies
//!   inside the time box of the node that stores it (spec §10, invariant #16),
//!   so [`Slog2File::window`] finds the intersecting nodes with a per-depth
//!   interval index of the directory, searches each node's table of record
//!   keys (built on first touch, kept in a bounded node cache shared by
//!   threads) and decodes only the records that intersect. The statistics it
//!   returns ([`QueryStats`]) make this visible. Each drawable is stored in
//!   exactly one node, so no de-duplication is needed. Files that break #16
//!   (end-time-unsorted input written with `-tcc`) can hide drawables from
//!   windows that miss their node's box; [`Slog2File::check`] warns about them.
//! * **Previews follow Jumpshot** (§8.3): the upper levels of the tree give
//!   their real drawables, and the stubs of the lowest loaded level give the
//!   shadows that summarise everything below.
//! * **Never panic on input.** Every block is bounds-checked by the codec
//!   ([`crate::format::Decoder`]), counts are bounded by the bytes that remain,
//!   and every failure is an [`Error`] carrying a byte offset. The fuzz-style
//!   test `tests/read_corrupt.rs` mutates every fixture hundreds of times.
//! * **Popup text and dumps match the reference.** [`format_info`] decodes info
//!   payloads as the viewer shows them; [`mod@print`] writes the reference
//!   `slog2printserial` dump (all 21 shared fixture dumps are reproduced byte
//!   for byte), so our reading of a file can be diffed against the reference's.
//!
//! # Root selection
//!
//! The header names the root twice: `treeroot` (a block pointer) and
//! `max_treedepth` (the root is `ID(max_treedepth, 0)` in the directory). The
//! reference viewers navigate from the `treeroot` pointer, so when both are
//! present but disagree the directory entry whose pointer equals `treeroot` is
//! the root; `ID(max_treedepth, 0)` is the fallback when no entry has that
//! pointer. Opening fails only if neither exists. [`Slog2File::check`] reports
//! any disagreement as an error (invariant #9).
//!
//! # What `open` validates
//!
//! The header (version, counts), the four required block pointers (non-null,
//! inside the file), that the category map, line-ID map list and directory
//! decode to exactly their block ends, that the directory is non-empty, the
//! root (above), and that every node's block pointer is non-null and inside the
//! file. Everything else (node contents, stubs, block sizes against
//! `max_buffer_bytesize`, overlaps, …) is left to [`Slog2File::check`], so a
//! slightly damaged file can still be explored. Trailing bytes after the last
//! block, NaN ratios, any category order and empty leaves are accepted.

mod blocks;
mod check;
pub mod counts;
pub mod cursor;
pub mod guard;
pub mod index;
mod info;
pub mod print;
pub mod rows;
pub mod scan;
mod tree;

pub use blocks::NodeStorage;
pub use check::CheckReport;
pub use counts::{CategoryCount, Counts};
pub use cursor::WindowCursor;
pub use index::{CacheStats, CACHE_ENV, DEFAULT_CACHE_BYTES};
pub use info::{
    decode_info, format_info, info_problem, payload_covers, payload_len, DecodedInfo, InfoProblem,
};
pub use rows::{Rows, RowsRef, ShadowWeights, ROW_COMPOSITE, ROW_PRIMITIVE, ROW_SHADOW};
pub use scan::Scan;
pub use tree::TreeDirNode;

use std::borrow::Cow;
use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::error::{Error, Result};
use crate::format::{self, BlockPtr, DirEntry, Header, Node, NodeParts, RecordKey, DIR_ENTRY_SIZE};
use crate::model::*;
use index::{DirIndex, NodeCache, NodeTable};

/// Files smaller than this are read into memory instead of being mapped
/// (a map costs a syscall and page-table work that small files do not repay).
const MMAP_THRESHOLD: u64 = 64 * 1024;

/// Bytes of the map that queries may fault in before the reader drops its
/// page mappings (`MADV_DONTNEED`; the pages stay in the OS page cache). A
/// mapped file's touched pages count in the process's RSS; without this,
/// random jumps over a 6 GB file would grow RSS towards the file size.
const MAP_TRIM_BYTES: u64 = 256 << 20;

enum Backing {
    Mapped(Mapped),
    Owned(Vec<u8>),
}

/// A mapped file with its guard ([`guard`]) and what it looked like when
/// it was mapped (to tell a file rewritten in place from a damaged one).
struct Mapped {
    /// Declared before `map`: unregistered before the map is unmapped.
    guard: Option<guard::Guard>,
    map: memmap2::Mmap,
    file: std::fs::File,
    stamp: Stamp,
}

/// Size and modification/change times of an open file.
#[derive(PartialEq)]
struct Stamp(u64, i64, i64, i64, i64);

impl Stamp {
    fn of(f: &std::fs::File) -> Option<Stamp> {
        use std::os::unix::fs::MetadataExt;
        let m = f.metadata().ok()?;
        Some(Stamp(
            m.len(),
            m.mtime(),
            m.mtime_nsec(),
            m.ctime(),
            m.ctime_nsec(),
        ))
    }
}

impl Backing {
    fn bytes(&self) -> &[u8] {
        match self {
            Backing::Mapped(m) => &m.map,
            Backing::Owned(v) => v,
        }
    }
}

/// Work done by a query.
///
/// `nodes_read` and `bytes_read` depend only on the file and the window;
/// `bytes_indexed` and `cache_hits` also on what the node cache held.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QueryStats {
    /// Nodes whose box intersects the window (their drawables were searched).
    pub nodes_read: usize,
    /// Bytes of drawable records decoded (tags included), plus the stub
    /// bytes decoded by a preview: what the query materialised.
    pub bytes_read: u64,
    /// Bytes of node blocks walked to build their tables (cache misses).
    pub bytes_indexed: u64,
    /// Nodes whose table came from the cache.
    pub cache_hits: usize,
}

/// Result of [`Slog2File::window`]: drawables in drawing order.
#[derive(Debug, Clone, Default)]
pub struct Window {
    pub drawables: Vec<Drawable>,
    pub stats: QueryStats,
}

/// Result of [`Slog2File::preview`]: real drawables of the loaded levels and
/// the shadows of the level below them, both in drawing order.
#[derive(Debug, Clone, Default)]
pub struct Preview {
    pub drawables: Vec<Drawable>,
    pub shadows: Vec<Shadow>,
    pub stats: QueryStats,
}

/// An open SLOG-2 2.0.6 file (memory-mapped or in memory). `Send + Sync`:
/// queries take `&self` and decode into fresh values, so one file can serve
/// many threads.
pub struct Slog2File {
    backing: Backing,
    path: Option<PathBuf>,
    header: Header,
    categories: Vec<Category>,
    category_index: FxHashMap<i32, usize>,
    ycoordmaps: Vec<YCoordMap>,
    directory: Vec<DirEntry>,
    /// First directory position of each node ID.
    node_index: FxHashMap<NodeId, usize>,
    /// Node IDs sorted by (depth, xpos), with their first directory position:
    /// a node's children are one binary search away, however large the
    /// header's children-per-node (a hostile value must not cost a loop
    /// over children that cannot exist).
    by_position: Vec<(NodeId, usize)>,
    root: usize,
    /// Per-depth interval index of `directory` (built on open).
    dir_index: DirIndex,
    /// Tables of recently queried nodes (bounded, shared by threads).
    cache: NodeCache,
    /// Map bytes touched since the last trim (see [`MAP_TRIM_BYTES`]).
    map_touched: std::sync::atomic::AtomicU64,
    /// The file's counts, once asked for ([`counts`]).
    counts: std::sync::OnceLock<Counts>,
    /// Categories whose stored count was out of what the file can hold:
    /// (index, stored count, the bound it was clamped to).
    clamped: Vec<(i32, i64, i64)>,
}

/// The fewest bytes a drawable takes in a tree node: a composite member
/// (category 4, info length 2, vertex count 2, one vertex 12).
const MIN_DRAWABLE_BYTES: u64 = 20;

impl std::fmt::Debug for Slog2File {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Slog2File")
            .field("path", &self.path)
            .field("file_len", &self.file_len())
            .field("categories", &self.categories.len())
            .field("ycoordmaps", &self.ycoordmaps.len())
            .field("nodes", &self.directory.len())
            .field("root", &self.root().id)
            .finish()
    }
}

/// Byte offsets of the header's pointer fields (for error messages).
const PTR_CATEGORIES: u64 = 24;
const PTR_LINEIDMAPS: u64 = 48;
const PTR_TREEROOT: u64 = 60;
const PTR_TREEDIR: u64 = 72;

fn required_block(
    ptr: BlockPtr,
    what: &'static str,
    field: u64,
    file_len: u64,
) -> Result<Range<usize>> {
    if ptr.is_null() {
        return Err(Error::malformed(
            "header",
            field,
            format!(
                "the {what} pointer is null ({} bytes @ {})",
                ptr.size, ptr.offset
            ),
        ));
    }
    ptr.range(what, file_len)
}

impl Slog2File {
    /// Open and memory-map a file, validating its metadata (see the module
    /// docs). I/O errors name the path.
    pub fn open(path: impl AsRef<Path>) -> Result<Slog2File> {
        let path = path.as_ref();
        Self::open_mapped(path).map_err(|e| match e {
            Error::BadVersion { .. } => needs_conversion(e, path),
            e => e,
        })
    }

    fn open_mapped(path: &Path) -> Result<Slog2File> {
        let io = |e| Error::io(path, e);
        let mut file = std::fs::File::open(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        if !meta.is_file() {
            // A pipe, a FIFO, a device: read once, as far as the header's
            // blocks reach (never "to the end": /dev/zero has none).
            return Self::read_from(file, path);
        }
        let len = meta.len();
        let backing = if len < MMAP_THRESHOLD {
            let mut v = Vec::with_capacity(len as usize);
            file.read_to_end(&mut v).map_err(io)?;
            Backing::Owned(v)
        } else {
            // SAFETY: the map is read-only and never handed out mutably; a
            // truncation by another process faults into `guard`'s handler,
            // which keeps the range mapped (zero pages) and flags the map.
            let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
            let stamp = Stamp::of(&file)
                .ok_or_else(|| io(std::io::Error::other("cannot stat the file")))?;
            Backing::Mapped(Mapped {
                guard: guard::Guard::register(map.as_ptr(), map.len()),
                map,
                file,
                stamp,
            })
        };
        Self::from_backing(backing, Some(path.to_path_buf()))
    }

    /// Read a file from a stream (a pipe, a decompressor) into memory. The
    /// header is read first; then the stream is read only as far as the
    /// farthest block the header points to (the reference and our writer put
    /// the category map, line-ID maps and directory after the tree nodes), so
    /// an endless stream (`/dev/zero`) costs its 108 header bytes, and memory
    /// grows only with the bytes that actually arrive. `path` names the
    /// stream in messages.
    pub fn read_from(mut r: impl Read, path: &Path) -> Result<Slog2File> {
        let io = |e| Error::io(path, e);
        let mut bytes = Vec::with_capacity(format::HEADER_SIZE);
        r.by_ref()
            .take(format::HEADER_SIZE as u64)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        let header = Header::decode(&bytes)?;
        let end = [
            header.categories,
            header.lineidmaps,
            header.treeroot,
            header.treedir,
        ]
        .iter()
        .filter(|p| !p.is_null() && p.offset >= 0 && p.size >= 0)
        .map(|p| p.offset as u64 + p.size as u64)
        .max()
        .unwrap_or(0);
        let rest = end.saturating_sub(bytes.len() as u64);
        r.take(rest).read_to_end(&mut bytes).map_err(io)?;
        Self::from_backing(Backing::Owned(bytes), Some(path.to_path_buf()))
    }

    /// The same as [`open`](Self::open), from bytes in memory.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Slog2File> {
        Self::from_backing(Backing::Owned(bytes), None)
    }

    fn from_backing(backing: Backing, path: Option<PathBuf>) -> Result<Slog2File> {
        let bytes = backing.bytes();
        let file_len = bytes.len() as u64;
        let header = Header::decode(bytes)?;

        let cat_r = required_block(header.categories, "category map", PTR_CATEGORIES, file_len)?;
        let map_r = required_block(
            header.lineidmaps,
            "line-ID map list",
            PTR_LINEIDMAPS,
            file_len,
        )?;
        required_block(header.treeroot, "tree root", PTR_TREEROOT, file_len)?;
        let dir_r = required_block(header.treedir, "tree directory", PTR_TREEDIR, file_len)?;

        let mut categories = format::decode_categories(&bytes[cat_r.clone()], cat_r.start as u64)?;
        let ycoordmaps = format::decode_ycoordmaps(&bytes[map_r.clone()], map_r.start as u64)?;
        let directory = format::decode_treedir(&bytes[dir_r.clone()], dir_r.start as u64)?;
        if directory.is_empty() {
            return Err(Error::malformed(
                "tree directory",
                dir_r.start as u64,
                "the directory has no entries",
            ));
        }

        let mut category_index = FxHashMap::default();
        category_index.reserve(categories.len());
        for (i, c) in categories.iter().enumerate() {
            category_index.entry(c.index).or_insert(i);
        }
        let mut node_index = FxHashMap::default();
        node_index.reserve(directory.len());
        for (i, e) in directory.iter().enumerate() {
            let at = dir_r.start as u64 + 4 + (i * DIR_ENTRY_SIZE) as u64;
            if e.ptr.is_null() {
                return Err(Error::malformed(
                    "tree directory",
                    at,
                    format!("node {} has a null block pointer", e.id),
                ));
            }
            if e.ptr.range("tree node", file_len).is_err() {
                return Err(Error::malformed(
                    "tree directory",
                    at,
                    format!(
                        "node {}: block pointer ({} bytes @ {}) is outside the file of {file_len} bytes",
                        e.id, e.ptr.size, e.ptr.offset
                    ),
                ));
            }
            node_index.entry(e.id).or_insert(i);
        }

        check_disjoint_nodes(&directory, dir_r.start as u64)?;

        // Stored counts are hints: no category can count more drawables than
        // the tree nodes' bytes hold (a hostile 2^32 made a windowed scan
        // plan 4.3 million windows). Clamped here, reported by `check`.
        let mut node_bytes: u64 = directory.iter().map(|e| e.ptr.size.max(0) as u64).sum();
        if header.is_compressed() {
            // Compressed nodes hold at most MAX_RATIO times their bytes.
            node_bytes = node_bytes.saturating_mul(format::packed::MAX_RATIO);
        }
        let most = (node_bytes / MIN_DRAWABLE_BYTES).min(i64::MAX as u64) as i64;
        let mut clamped = Vec::new();
        for c in categories.iter_mut() {
            if c.count > most || c.count < 0 {
                clamped.push((c.index, c.count, most));
                c.count = c.count.clamp(0, most);
            }
        }

        let by_ptr = directory.iter().position(|e| e.ptr == header.treeroot);
        let by_id = node_index
            .get(&NodeId::new(header.max_treedepth, 0))
            .copied();
        let root = by_ptr.or(by_id).ok_or_else(|| {
            Error::malformed(
                "header",
                PTR_TREEROOT,
                format!(
                    "the tree root pointer ({} bytes @ {}) matches no directory entry and the directory has no ID({},0)",
                    header.treeroot.size, header.treeroot.offset, header.max_treedepth
                ),
            )
        })?;

        let mut by_position: Vec<(NodeId, usize)> =
            node_index.iter().map(|(&id, &i)| (id, i)).collect();
        by_position.sort_unstable_by_key(|(id, _)| (id.depth, id.xpos));

        Ok(Slog2File {
            backing,
            path,
            header,
            categories,
            category_index,
            ycoordmaps,
            dir_index: DirIndex::new(&directory),
            directory,
            cache: NodeCache::new(index::limit_from_env()),
            map_touched: std::sync::atomic::AtomicU64::new(0),
            counts: std::sync::OnceLock::new(),
            node_index,
            by_position,
            root,
            clamped,
        })
    }

    // -----------------------------------------------------------------------
    // Metadata

    /// The map of a memory-mapped file; `None` for files held in memory
    /// (the whole-file scan advises the kernel on it, see [`scan`]).
    pub(crate) fn map(&self) -> Option<&memmap2::Mmap> {
        match &self.backing {
            Backing::Mapped(m) => Some(&m.map),
            Backing::Owned(_) => None,
        }
    }

    /// The file changed under the reader since it was opened: a fault in
    /// its mapping (it was truncated, [`guard`]), or, for a query that
    /// failed, a new size or time stamp (rewritten in place). Files read
    /// into memory never change.
    pub fn changed(&self) -> bool {
        match &self.backing {
            Backing::Mapped(m) => {
                m.guard.as_ref().is_some_and(|g| g.changed())
                    || Stamp::of(&m.file).is_some_and(|s| s != m.stamp)
            }
            Backing::Owned(_) => false,
        }
    }

    /// What every query returns: its result, unless the file changed
    /// underneath while it ran ([`Error::FileChanged`] then replaces the
    /// garbage or the damage the query saw). One relaxed load on success
    /// (the guard's flag); the file's stamp is looked at only on failure.
    #[inline]
    pub(crate) fn settle<T>(&self, r: Result<T>) -> Result<T> {
        if let Backing::Mapped(m) = &self.backing {
            let faulted = m.guard.as_ref().is_some_and(|g| g.changed());
            if faulted || (r.is_err() && self.changed()) {
                return Err(guard::changed_error(self.path.as_deref()));
            }
        }
        r
    }

    /// The path given to [`open`](Self::open), if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The whole file.
    pub fn as_bytes(&self) -> &[u8] {
        self.backing.bytes()
    }

    pub fn file_len(&self) -> u64 {
        self.as_bytes().len() as u64
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Categories in file order (as stored; no invented ones).
    pub fn categories(&self) -> &[Category] {
        &self.categories
    }

    /// The category with this index, if the file defines it (O(1)).
    pub fn category(&self, index: i32) -> Option<&Category> {
        self.category_index
            .get(&index)
            .and_then(|&i| self.categories.get(i))
    }

    /// The category with this index, or the placeholder the reference invents
    /// for an undefined index: `UnknownType-<index>`, State, width 1.
    pub fn category_or_unknown(&self, index: i32) -> Cow<'_, Category> {
        match self.category(index) {
            Some(c) => Cow::Borrowed(c),
            None => Cow::Owned(unknown_category(index)),
        }
    }

    pub fn ycoordmaps(&self) -> &[YCoordMap] {
        &self.ycoordmaps
    }

    /// Directory entries in file order (depth descending, xpos ascending).
    pub fn directory(&self) -> &[DirEntry] {
        &self.directory
    }

    /// The directory entry of a node ID.
    pub fn entry(&self, id: NodeId) -> Option<&DirEntry> {
        self.node_index
            .get(&id)
            .and_then(|&i| self.directory.get(i))
    }

    /// The root's directory entry (see "Root selection" in the module docs).
    pub fn root(&self) -> &DirEntry {
        &self.directory[self.root]
    }

    /// Depth of the root node (normally `header().max_treedepth`).
    pub fn root_depth(&self) -> i16 {
        self.root().id.depth
    }

    /// The root's time box: the span of the whole trace.
    pub fn total_time(&self) -> TimeBox {
        self.root().time_box
    }

    /// Directory entries of the children of `id` that exist, in xpos order
    /// (`ID(d-1, x·N) .. ID(d-1, x·N+N-1)`).
    pub fn children(&self, id: NodeId) -> impl Iterator<Item = &DirEntry> + '_ {
        let n = i64::from(self.header.num_children_per_node.max(1));
        let depth = i64::from(id.depth) - 1;
        let first = i64::from(id.xpos) * n;
        let last = first + (n - 1);
        // Only the directory's nodes in [first, last] at `depth`: a binary
        // search, not a loop over `n` positions (n comes from the file).
        let range = match i16::try_from(depth) {
            Ok(d) if d >= 0 && first <= i64::from(i32::MAX) && last >= i64::from(i32::MIN) => {
                let lo = (d, first.max(i64::from(i32::MIN)) as i32);
                let hi = (d, last.min(i64::from(i32::MAX)) as i32);
                let key = |e: &(NodeId, usize)| (e.0.depth, e.0.xpos);
                let a = self.by_position.partition_point(|e| key(e) < lo);
                let b = self.by_position.partition_point(|e| key(e) <= hi);
                a..b.max(a)
            }
            _ => 0..0,
        };
        self.by_position[range]
            .iter()
            .filter_map(move |&(_, i)| self.directory.get(i))
    }

    // -----------------------------------------------------------------------
    // Nodes and drawables

    /// Decode one node block. `entry` may come from anywhere: its pointer is
    /// checked against the file.
    pub fn read_node(&self, entry: &DirEntry, parts: NodeParts) -> Result<Node> {
        self.settle((|| {
            let bytes = self.node_bytes(entry, parts == NodeParts::All)?;
            format::decode_node(&bytes, entry.ptr.offset as u64, parts)
        })())
    }

    /// Every real drawable of the file, node by node in directory order, each
    /// node's drawables in drawing order. A node that fails to decode yields
    /// one `Err` and the iteration goes on with the next node.
    pub fn drawables(&self) -> impl Iterator<Item = Result<Drawable>> + '_ {
        DrawablesIter {
            file: self,
            next: 0,
            pending: Vec::new().into_iter(),
        }
    }

    fn check_window(t0: f64, t1: f64) -> Result<TimeBox> {
        if t0.is_nan() || t1.is_nan() || t0 > t1 {
            return Err(Error::InvalidArgument(format!(
                "time window [{}, {}] is empty or not a number",
                TimeText(t0),
                TimeText(t1)
            )));
        }
        Ok(TimeBox::new(t0, t1))
    }

    // -----------------------------------------------------------------------
    // Node tables and the cache (see `index`)

    /// The byte limit of the node cache (see [`index`] for the default and
    /// the environment variable).
    pub fn node_cache_limit(&self) -> usize {
        self.cache.stats().limit
    }

    /// Set the byte limit of the node cache; `0` disables caching. Tables
    /// over the new limit are dropped at once. Safe while other threads query.
    pub fn set_node_cache_limit(&self, bytes: usize) {
        self.cache.set_limit(bytes);
    }

    /// What the node cache holds now.
    pub fn node_cache_stats(&self) -> CacheStats {
        self.cache.stats()
    }

    /// Count map bytes faulted in; past [`MAP_TRIM_BYTES`], drop this
    /// process's mappings of the file's pages so RSS stays bounded.
    fn note_touched(&self, bytes: u64) {
        use std::sync::atomic::Ordering;
        let Backing::Mapped(Mapped { map, .. }) = &self.backing else {
            return;
        };
        let before = self.map_touched.fetch_add(bytes, Ordering::Relaxed);
        if before + bytes < MAP_TRIM_BYTES {
            return;
        }
        self.map_touched.store(0, Ordering::Relaxed);
        // SAFETY: the map is a read-only shared mapping of a file that is
        // not modified while mapped (the same assumption as the map itself,
        // module docs). MADV_DONTNEED only removes our page-table entries:
        // the next access, from any thread, faults the same file bytes back
        // from the page cache, so no slice into the map changes value. A
        // failure only leaves RSS as it was.
        let _ = unsafe { map.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
    }

    /// The records of the nodes of depth `>= min_depth` that intersect `w`:
    /// nodes in directory order, each node's records nestless then nestable
    /// in stored order (the order a full decode of each node yields them).
    /// Each node's table is pushed on `tables`; `f` gets its slot there, the
    /// table and each hit.
    fn for_each_hit(
        &self,
        w: TimeBox,
        min_depth: i16,
        stats: &mut QueryStats,
        tables: &mut Tables,
        mut f: impl FnMut(u32, &NodeTable, &RecordKey) -> Result<()>,
    ) -> Result<()> {
        let mut nodes = Vec::new();
        self.dir_index.overlapping(w, min_depth, &mut nodes);
        for pos in nodes {
            let t = self.node_table(pos, stats)?;
            stats.nodes_read += 1;
            let slot = tables.len() as u32;
            for k in t.hits(w) {
                stats.bytes_read += k.len as u64;
                f(slot, &t, k)?;
            }
            tables.push((pos, t));
        }
        Ok(())
    }

    /// A decoder over exactly the record `k` of the node at `pos`, whose
    /// table is `t`.
    fn hit_decoder<'a>(
        &'a self,
        pos: u32,
        t: &'a NodeTable,
        k: &RecordKey,
    ) -> Result<format::Decoder<'a>> {
        let (block, base) = self.table_block(pos, t)?;
        let at = k.offset as usize;
        let rec = block
            .get(at..at + k.len as usize)
            .ok_or_else(|| Error::malformed("tree node", base, "record outside its block"))?;
        Ok(format::Decoder::new(rec, base + at as u64, "tree node"))
    }

    /// Decode the record `k` of the node in `slot` of `tables`.
    fn decode_hit(&self, tables: &Tables, slot: u32, k: &RecordKey) -> Result<Drawable> {
        let (pos, t) = &tables[slot as usize];
        format::decode_drawable(&mut self.hit_decoder(*pos, t, k)?)
    }

    /// The intersecting records of nodes of depth `>= min_depth`, in drawing
    /// order (stable: ties keep node and list order, as a full decode and a
    /// stable sort would), with the tables of their nodes.
    fn sorted_hits(
        &self,
        w: TimeBox,
        min_depth: i16,
        stats: &mut QueryStats,
    ) -> Result<(Tables, Vec<(u32, RecordKey)>)> {
        let mut hits: Vec<(u32, RecordKey)> = Vec::new();
        let mut tables = Tables::new();
        self.for_each_hit(w, min_depth, stats, &mut tables, |slot, _, k| {
            hits.push((slot, *k));
            Ok(())
        })?;
        sort_hits(&mut hits);
        Ok((tables, hits))
    }

    /// The records of a window query in drawing order (with their nodes'
    /// tables), and its stats.
    fn window_hits(&self, t0: f64, t1: f64) -> Result<(Hits, QueryStats)> {
        let w = Self::check_window(t0, t1)?;
        let mut stats = QueryStats::default();
        let (tables, hits) = self.sorted_hits(w, i16::MIN, &mut stats)?;
        Ok((Hits { tables, hits }, stats))
    }

    /// Every drawable whose time box intersects the closed window `[t0, t1]`,
    /// in drawing order, each exactly once. Finds the intersecting nodes
    /// through the directory index, searches their (cached) tables and
    /// decodes only the records that intersect (see [`index`]).
    /// `t0 > t1` or a NaN bound is an `InvalidArgument` error.
    pub fn window(&self, t0: f64, t1: f64) -> Result<Window> {
        self.settle((|| {
            let (h, stats) = self.window_hits(t0, t1)?;
            let drawables = h
                .hits
                .iter()
                .map(|(slot, k)| self.decode_hit(&h.tables, *slot, k))
                .collect::<Result<Vec<_>>>()?;
            Ok(Window { drawables, stats })
        })())
    }

    /// The same drawables as [`window`](Self::window), streamed: memory holds
    /// one node's hits at a time, so the order is node by node in directory
    /// order (each node's drawables in drawing order), not globally sorted.
    pub fn window_each(
        &self,
        t0: f64,
        t1: f64,
        mut f: impl FnMut(&Drawable),
    ) -> Result<QueryStats> {
        self.settle((|| {
            let w = Self::check_window(t0, t1)?;
            let mut stats = QueryStats::default();
            let mut nodes = Vec::new();
            self.dir_index.overlapping(w, i16::MIN, &mut nodes);
            for pos in nodes {
                let t = self.node_table(pos, &mut stats)?;
                stats.nodes_read += 1;
                let mut hits: Vec<&RecordKey> = t.hits(w).collect();
                hits.sort_by(|a, b| key_cmp(a, b));
                for k in hits {
                    stats.bytes_read += k.len as u64;
                    f(&format::decode_drawable(
                        &mut self.hit_decoder(pos, &t, k)?,
                    )?);
                }
            }
            Ok(stats)
        })())
    }

    /// A Jumpshot-style preview of `[t0, t1]` at `depth` (spec §8.3).
    ///
    /// * Nodes of depth `>= depth` whose box intersects the window are read;
    ///   their real drawables that intersect the window are returned.
    /// * The shadows in the stubs of the lowest loaded level (stubs of loaded
    ///   nodes whose child has depth `< depth`), restricted to those whose box
    ///   intersects the window, stand in for the levels not read.
    /// * `depth <= 0` is full detail: the same drawables as
    ///   [`window`](Self::window) and no shadows.
    /// * `depth` above the root's depth reads just the root (if it intersects):
    ///   its drawables plus the shadows of all its stubs.
    ///
    /// Only the directory index, the node tables (cached) and the stubs of
    /// the lowest loaded level are read: the real drawables decoded are those
    /// returned.
    pub fn preview(&self, t0: f64, t1: f64, depth: i16) -> Result<Preview> {
        self.settle((|| {
            if depth <= 0 {
                let w = self.window(t0, t1)?;
                return Ok(Preview {
                    drawables: w.drawables,
                    shadows: Vec::new(),
                    stats: w.stats,
                });
            }
            let w = Self::check_window(t0, t1)?;
            let mut stats = QueryStats::default();
            let walk = self.preview_walk(w, depth, &mut stats)?;
            let mut shadows: Vec<Shadow> = Vec::new();
            self.preview_shadows(&walk, w, depth, &mut stats, |s| shadows.push(s.to_shadow()))?;
            let drawables = walk
                .hits
                .hits
                .iter()
                .map(|(slot, k)| self.decode_hit(&walk.hits.tables, *slot, k))
                .collect::<Result<Vec<_>>>()?;
            shadows.sort_by(|a, b| a.drawing_cmp(b));
            Ok(Preview {
                drawables,
                shadows,
                stats,
            })
        })())
    }

    /// The node walk of a preview at `depth >= 1` ([`preview`](Self::preview)
    /// says which nodes and shadows): the real drawables' hits in drawing
    /// order, and the nodes whose stubs give shadows, their stubs at hand
    /// (a compressed node's unpacked) for [`preview_shadows`](Self::preview_shadows).
    fn preview_walk(
        &self,
        w: TimeBox,
        depth: i16,
        stats: &mut QueryStats,
    ) -> Result<PreviewWalk<'_>> {
        let root = self.root();
        let just_root = depth > root.id.depth;
        let mut nodes: Vec<u32> = Vec::new();
        if just_root {
            if root.time_box.overlaps(&w) {
                nodes.push(self.root as u32);
            }
        } else {
            self.dir_index.overlapping(w, depth, &mut nodes);
        }
        let mut hits: Vec<(u32, RecordKey)> = Vec::new();
        let mut tables = Tables::new();
        let mut stubs = Vec::new();
        for pos in nodes {
            let t = self.node_table(pos, stats)?;
            stats.nodes_read += 1;
            let slot = tables.len() as u32;
            for k in t.hits(w) {
                stats.bytes_read += k.len as u64;
                hits.push((slot, *k));
            }
            // Only nodes whose children lie below `depth` contribute shadows.
            let e = &self.directory[pos as usize];
            if just_root || e.id.depth <= depth {
                stubs.push((pos, t.stubs_at, self.node_with_stubs(pos)?));
            }
            tables.push((pos, t));
        }
        sort_hits(&mut hits);
        Ok(PreviewWalk {
            hits: Hits { tables, hits },
            stubs,
        })
    }

    /// Hand every shadow of a preview walk to show to `shadow`, in stub
    /// order (the caller puts them in drawing order).
    fn preview_shadows<'a>(
        &self,
        walk: &'a PreviewWalk<'_>,
        w: TimeBox,
        depth: i16,
        stats: &mut QueryStats,
        mut shadow: impl FnMut(format::ShadowRef<'a>),
    ) -> Result<()> {
        for (pos, stubs_at, block) in &walk.stubs {
            let base = self.directory[*pos as usize].ptr.offset as u64;
            stats.bytes_read += (block.len() - stubs_at.min(&block.len())) as u64;
            format::visit_stub_shadows(block, base, *stubs_at, |child, s| {
                if child.id.depth < depth && s.time_box.overlaps(&w) {
                    shadow(s);
                }
            })?;
        }
        Ok(())
    }

    /// The info text of a drawable (the viewer's pop-up), see [`format_info`].
    /// A composite shows its own payload; its members have their own. An index
    /// missing from the category map is formatted with the placeholder the
    /// reference invents ([`category_or_unknown`](Self::category_or_unknown):
    /// no keys, no tokens).
    pub fn popup_text(&self, d: &Drawable) -> String {
        format_info(self.category(d.category()), d.info())
    }

    /// The info text of a primitive (e.g. a composite member).
    pub fn primitive_popup_text(&self, p: &Primitive) -> String {
        format_info(self.category(p.category), &p.info)
    }

    /// Check the invariants of spec §10.1 (see [`CheckReport`]).
    pub fn check(&self) -> CheckReport {
        let mut r = check::check(self);
        for &(index, stored, most) in &self.clamped {
            r.errors.push(format!(
                "category {index}: its stored count {stored} is outside what the file's tree nodes can hold \
                 (0 to {most} drawables); read as {}",
                stored.clamp(0, most)
            ));
        }
        if self.changed() {
            // What was checked is not the file any more.
            r.errors
                .insert(0, guard::changed_error(self.path()).to_string());
        }
        r
    }
}

/// A file that is no SLOG-2 file but a trace `slog2 convert` reads: the
/// error says so and gives the command (a user handed `slog2.open` a `.clog2`
/// or a text trace). Other files keep the reader's error.
fn needs_conversion(e: Error, path: &Path) -> Error {
    // Only a regular file is read again: a FIFO or a device would block
    // or never end (its bytes went to the reader that failed).
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return e;
    }
    let mut head = Vec::with_capacity(4096);
    if let Ok(f) = std::fs::File::open(path) {
        let _ = f.take(4096).read_to_end(&mut head);
    }
    let text = String::from_utf8_lossy(&head);
    let what = if crate::trace::clog2::looks_like_bytes(&head) {
        "an MPE CLOG2 log"
    } else if crate::trace::plugin::is_otf2(path) {
        "an OTF2 archive's anchor file"
    } else if text.lines().any(|l| {
        let l = l.trim_start();
        ["Category[", "Primitive[", "Composite[", "YCoordMap["]
            .iter()
            .any(|k| l.starts_with(k))
    }) {
        "a trace in slog2sdk's text format"
    } else {
        return e;
    };
    let out = if path.extension().is_some_and(|x| x == "slog2") {
        path.with_extension("converted.slog2")
    } else {
        path.with_extension("slog2")
    };
    Error::NeedsConversion {
        source: Box::new(e),
        path: path.display().to_string(),
        what,
        out: out.display().to_string(),
    }
}

/// The tables of the nodes a query read, by slot: (directory position,
/// table). A hit names its node by slot, and holding the tables holds what
/// its records are decoded from (a compressed node's unpacked bytes).
type Tables = Vec<(u32, Arc<NodeTable>)>;

/// The hits of a query in drawing order, `(slot in tables, key)`.
pub(crate) struct Hits {
    tables: Tables,
    hits: Vec<(u32, RecordKey)>,
}

impl Hits {
    fn len(&self) -> usize {
        self.hits.len()
    }
}

/// What a preview walk read: its real drawables' hits, and the nodes whose
/// stubs give shadows (position, stub offset, block with stubs).
struct PreviewWalk<'a> {
    hits: Hits,
    stubs: Vec<(u32, usize, blocks::NodeBytes<'a>)>,
}

/// The placeholder category the reference invents for an undefined index.
pub fn unknown_category(index: i32) -> Category {
    Category::placeholder(index)
}

fn drawing_key(k: &RecordKey) -> DrawingKey {
    DrawingKey::new(
        TimeBox::new(k.start, k.end),
        k.category,
        k.first_line,
        k.last_line,
    )
}

/// Stable sort of hits into drawing order. The hits arrive as one sorted run
/// per node list. They are sorted as 16-byte (start, index) pairs — the
/// start decides almost every comparison, and moving 16 bytes instead of an
/// 80-byte keyed hit halved a window query's sort — then each run of equal
/// starts by its whole drawing key, and gathered. Both sorts are stable and
/// the index breaks no tie the first sort did not keep, so the result is the
/// stable sort by the whole key.
fn sort_hits(hits: &mut Vec<(u32, RecordKey)>) {
    let order = drawing_permutation(hits.len(), |i| hits[i].1.start, |i| drawing_key(&hits[i].1));
    let sorted: Vec<(u32, RecordKey)> = order.iter().map(|e| hits[e.1 as usize]).collect();
    *hits = sorted;
}

/// The stable drawing order of `n` items as (start bits, item) pairs: by
/// start first (16-byte pairs, cheap to move), then each run of equal
/// starts by the whole drawing key `key(i)`.
fn drawing_permutation(
    n: usize,
    start: impl Fn(usize) -> f64,
    key: impl Fn(usize) -> DrawingKey,
) -> Vec<(u64, u32)> {
    let mut order: Vec<(u64, u32)> = (0..n)
        .map(|i| (total_order_bits(start(i)), i as u32))
        .collect();
    order.sort_by_key(|e| e.0);
    for run in order.chunk_by_mut(|a, b| a.0 == b.0) {
        if run.len() > 1 {
            run.sort_by_key(|e| key(e.1 as usize));
        }
    }
    order
}

fn key_cmp(a: &RecordKey, b: &RecordKey) -> std::cmp::Ordering {
    drawing_order(
        (
            TimeBox::new(a.start, a.end),
            a.category,
            a.first_line,
            a.last_line,
        ),
        (
            TimeBox::new(b.start, b.end),
            b.category,
            b.first_line,
            b.last_line,
        ),
    )
}

fn keyed_cmp(a: &(TimeBox, Drawable), b: &(TimeBox, Drawable)) -> std::cmp::Ordering {
    drawing_order(a.1.rank(a.0), b.1.rank(b.0))
}

/// Stable sort into drawing order, with each time box computed once.
fn sort_drawables(mut keyed: Vec<(TimeBox, Drawable)>) -> Vec<Drawable> {
    keyed.sort_by(keyed_cmp);
    keyed.into_iter().map(|(_, d)| d).collect()
}

struct DrawablesIter<'a> {
    file: &'a Slog2File,
    next: usize,
    pending: std::vec::IntoIter<Drawable>,
}

impl Iterator for DrawablesIter<'_> {
    type Item = Result<Drawable>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(d) = self.pending.next() {
                return Some(Ok(d));
            }
            let e = self.file.directory.get(self.next)?;
            self.next += 1;
            match self.file.read_node(e, NodeParts::Drawables) {
                Ok(node) => {
                    let keyed: Vec<(TimeBox, Drawable)> = node
                        .nestless
                        .into_iter()
                        .chain(node.nestable)
                        .map(|d| (d.time_box(), d))
                        .collect();
                    self.pending = sort_drawables(keyed).into_iter();
                }
                Err(err) => return Some(Err(err)),
            }
        }
    }
}

/// Budget: every directory entry must have bytes of its own. A hostile
/// directory pointing many entries at one large block made a query decode
/// that block again for each entry (a 3.6 MB file exhausted memory and
/// aborted a C host). With disjoint blocks, the node bytes a query can read
/// sum to at most the file's size, and so do the allocations decoding them.
fn check_disjoint_nodes(directory: &[DirEntry], dir_offset: u64) -> Result<()> {
    let mut spans: Vec<(i64, i64, usize)> = directory
        .iter()
        .enumerate()
        .map(|(i, e)| (e.ptr.offset, e.ptr.offset + i64::from(e.ptr.size), i))
        .collect();
    spans.sort_unstable();
    for w in spans.windows(2) {
        let ((a0, a1, i), (b0, b1, j)) = (w[0], w[1]);
        if b0 < a1 {
            return Err(Error::malformed(
                "tree directory",
                dir_offset,
                format!(
                    "node {} block [{a0}, {a1}) overlaps node {} block [{b0}, {b1}): \
                     every tree node needs bytes of its own",
                    directory[i].id, directory[j].id
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn send_sync() {
        fn is<T: Send + Sync>() {}
        is::<Slog2File>();
    }

    #[test]
    fn rejects_garbage() {
        assert!(Slog2File::from_bytes(Vec::new()).is_err());
        assert!(Slog2File::from_bytes(vec![0; 200]).is_err());
        let mut h = Header::placeholder(2, 65536);
        let mut v = Vec::new();
        h.encode(&mut v);
        // Header only: null pointers.
        let e = Slog2File::from_bytes(v.clone()).unwrap_err();
        assert!(e.to_string().contains("null"), "{e}");
        h.categories = BlockPtr::new(108, 4000);
        v.clear();
        h.encode(&mut v);
        assert!(matches!(
            Slog2File::from_bytes(v),
            Err(Error::BlockOutOfRange { .. })
        ));
    }

    #[test]
    fn open_names_the_path() {
        let e = Slog2File::open("/nonexistent/dir/x.slog2").unwrap_err();
        assert!(e.to_string().contains("/nonexistent/dir/x.slog2"), "{e}");
    }

    #[test]
    fn a_trace_to_convert_says_how() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let clog = root.join("../shared/fixtures/clog2/threads.clog2");
        let e = Slog2File::open(&clog).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::Format);
        let want = format!(
            "is an MPE CLOG2 log: convert it first with `slog2 convert {} -o {}`",
            clog.display(),
            clog.with_extension("slog2").display()
        );
        assert!(e.to_string().contains(&want), "{e}");
        let txt = root.join("examples/demo.txt");
        let e = Slog2File::open(&txt).unwrap_err().to_string();
        assert!(e.contains("is a trace in slog2sdk's text format"), "{e}");
        // Anything else keeps the reader's own error.
        let dir = tempfile::tempdir().unwrap();
        let junk = dir.path().join("junk.slog2");
        std::fs::write(&junk, [7u8; 300]).unwrap();
        let e = Slog2File::open(&junk).unwrap_err();
        assert!(matches!(e, Error::BadVersion { .. }), "{e}");
    }

    #[test]
    fn unknown_category_placeholder() {
        let c = unknown_category(42);
        assert_eq!(c.name, "UnknownType-42");
        assert_eq!(c.topology, Topology::State);
        assert_eq!(c.width, 1);
        let _ = unknown_category(i32::MIN);
    }
}
