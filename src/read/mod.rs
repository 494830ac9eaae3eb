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
mod open;
pub mod print;
mod query;
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
pub(crate) use open::SharedBytes;
pub use rows::{Rows, RowsRef, ShadowWeights, ROW_COMPOSITE, ROW_PRIMITIVE, ROW_SHADOW};
pub use scan::Scan;
pub use tree::TreeDirNode;

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::error::{Error, Result};
use crate::format::{self, BlockPtr, DirEntry, Header, Node, NodeParts, RecordKey, DIR_ENTRY_SIZE};
use crate::model::*;
use index::{DirIndex, NodeCache, NodeTable};
use open::*;
use query::*;

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
    /// Shared with the scan's unpacking tasks ([`SharedBytes`]).
    backing: std::sync::Arc<Backing>,
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

impl Slog2File {
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

/// The placeholder category the reference invents for an undefined index.
pub fn unknown_category(index: i32) -> Category {
    Category::placeholder(index)
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
