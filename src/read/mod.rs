//! The SLOG-2 reader: a memory-mapped file, its directory, window queries,
//! previews, popup text and an invariant checker.
//!
//! # Why it is shaped like this
//!
//! * **Memory-mapped.** Viewers open traces of gigabytes and look at a small
//!   time window at a time. [`Slog2File::open`] maps the file and decodes only
//!   the small metadata blocks (header, category map, line-ID maps, tree
//!   directory); tree nodes stay on disk until a query touches them, so opening
//!   costs the same for a 1 KB and a 10 GB file, and the OS page cache is the
//!   only cache. (The usual mmap caveat applies: another process truncating the
//!   file while it is mapped can make the process fault; SLOG-2 files are
//!   written once and atomically renamed, so this does not happen in practice.
//!   [`Slog2File::from_bytes`] reads from memory instead.)
//! * **Window queries touch only intersecting nodes.** Every drawable lies
//!   inside the time box of the node that stores it (spec §10, invariant #16),
//!   so [`Slog2File::window`] scans the directory (34 bytes per node, already
//!   decoded) and decodes only the node blocks whose box intersects the window,
//!   skipping their shadows ([`NodeParts::Drawables`]). The statistics it
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

mod check;
mod info;
pub mod print;
pub mod rows;
mod tree;

pub use check::CheckReport;
pub use info::{
    decode_info, format_info, info_problem, payload_covers, payload_len, DecodedInfo, InfoProblem,
};
pub use rows::{Rows, ShadowWeights, ROW_COMPOSITE, ROW_PRIMITIVE, ROW_SHADOW};
pub use tree::TreeDirNode;

use std::borrow::Cow;
use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;

use crate::error::{Error, Result};
use crate::format::{self, BlockPtr, DirEntry, Header, Node, NodeParts, DIR_ENTRY_SIZE};
use crate::model::*;

/// Files smaller than this are read into memory instead of being mapped
/// (a map costs a syscall and page-table work that small files do not repay).
const MMAP_THRESHOLD: u64 = 64 * 1024;

enum Backing {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl Backing {
    fn bytes(&self) -> &[u8] {
        match self {
            Backing::Mapped(m) => m,
            Backing::Owned(v) => v,
        }
    }
}

/// Work done by a query: how many node blocks were decoded and their bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QueryStats {
    pub nodes_read: usize,
    pub bytes_read: u64,
}

impl QueryStats {
    fn add(&mut self, e: &DirEntry) {
        self.nodes_read += 1;
        self.bytes_read += e.ptr.size.max(0) as u64;
    }
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
    root: usize,
}

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
        let io = |e| Error::io(path, e);
        let mut file = std::fs::File::open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        let backing = if len < MMAP_THRESHOLD {
            let mut v = Vec::with_capacity(len as usize);
            file.read_to_end(&mut v).map_err(io)?;
            Backing::Owned(v)
        } else {
            // SAFETY: the map is read-only and never handed out mutably; the
            // remaining hazard (the file being truncated by another process
            // while mapped) is documented in the module docs.
            let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
            Backing::Mapped(map)
        };
        Self::from_backing(backing, Some(path.to_path_buf()))
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

        let categories = format::decode_categories(&bytes[cat_r.clone()], cat_r.start as u64)?;
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

        Ok(Slog2File {
            backing,
            path,
            header,
            categories,
            category_index,
            ycoordmaps,
            directory,
            node_index,
            root,
        })
    }

    // -----------------------------------------------------------------------
    // Metadata

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
        let n = self.header.num_children_per_node.max(1) as i64;
        let depth = id.depth as i64 - 1;
        let first = id.xpos as i64 * n;
        (0..n).filter_map(move |i| {
            let d = i16::try_from(depth).ok()?;
            let x = i32::try_from(first + i).ok()?;
            if d < 0 {
                return None;
            }
            self.entry(NodeId::new(d, x))
        })
    }

    // -----------------------------------------------------------------------
    // Nodes and drawables

    /// Decode one node block. `entry` may come from anywhere: its pointer is
    /// checked against the file.
    pub fn read_node(&self, entry: &DirEntry, parts: NodeParts) -> Result<Node> {
        let r = entry.ptr.range("tree node", self.file_len())?;
        format::decode_node(&self.as_bytes()[r], entry.ptr.offset as u64, parts)
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
                "time window [{t0}, {t1}] is empty or not a number"
            )));
        }
        Ok(TimeBox::new(t0, t1))
    }

    /// Every drawable whose time box intersects the closed window `[t0, t1]`,
    /// in drawing order, each exactly once. Decodes only the nodes whose
    /// directory box intersects the window, without their shadows.
    /// `t0 > t1` or a NaN bound is an `InvalidArgument` error.
    pub fn window(&self, t0: f64, t1: f64) -> Result<Window> {
        let mut keyed: Vec<(TimeBox, Drawable)> = Vec::new();
        let stats = self.window_impl(t0, t1, |tb, d| keyed.push((tb, d)))?;
        Ok(Window {
            drawables: sort_drawables(keyed),
            stats,
        })
    }

    /// The same drawables as [`window`](Self::window), streamed: memory holds
    /// one node at a time, so the order is node by node in directory order
    /// (each node's drawables in drawing order), not globally sorted.
    pub fn window_each(
        &self,
        t0: f64,
        t1: f64,
        mut f: impl FnMut(&Drawable),
    ) -> Result<QueryStats> {
        self.window_impl(t0, t1, |_, d| f(&d))
    }

    fn window_impl(
        &self,
        t0: f64,
        t1: f64,
        mut f: impl FnMut(TimeBox, Drawable),
    ) -> Result<QueryStats> {
        let w = Self::check_window(t0, t1)?;
        let mut stats = QueryStats::default();
        for e in &self.directory {
            if !e.time_box.overlaps(&w) {
                continue;
            }
            let node = self.read_node(e, NodeParts::Drawables)?;
            stats.add(e);
            let mut keyed: Vec<(TimeBox, Drawable)> = node
                .nestless
                .into_iter()
                .chain(node.nestable)
                .map(|d| (d.time_box(), d))
                .filter(|(tb, _)| tb.overlaps(&w))
                .collect();
            keyed.sort_by(keyed_cmp);
            for (tb, d) in keyed {
                f(tb, d);
            }
        }
        Ok(stats)
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
    pub fn preview(&self, t0: f64, t1: f64, depth: i16) -> Result<Preview> {
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
        let mut keyed: Vec<(TimeBox, Drawable)> = Vec::new();
        let mut shadows: Vec<Shadow> = Vec::new();
        let root = self.root();
        let just_root = depth > root.id.depth;
        let loaded: Vec<&DirEntry> = if just_root {
            vec![root]
        } else {
            self.directory
                .iter()
                .filter(|e| e.id.depth >= depth)
                .collect()
        };
        for e in loaded {
            if !e.time_box.overlaps(&w) {
                continue;
            }
            // Only nodes whose children lie below `depth` contribute shadows.
            let want_stubs = just_root || e.id.depth <= depth;
            let parts = if want_stubs {
                NodeParts::All
            } else {
                NodeParts::Drawables
            };
            let node = self.read_node(e, parts)?;
            stats.add(e);
            for d in node.nestless.into_iter().chain(node.nestable) {
                let tb = d.time_box();
                if tb.overlaps(&w) {
                    keyed.push((tb, d));
                }
            }
            for stub in node.stubs {
                if stub.entry.id.depth >= depth {
                    continue;
                }
                for s in stub.nestless.into_iter().chain(stub.nestable) {
                    if s.time_box.overlaps(&w) {
                        shadows.push(s);
                    }
                }
            }
        }
        shadows.sort_by(|a, b| a.drawing_cmp(b));
        Ok(Preview {
            drawables: sort_drawables(keyed),
            shadows,
            stats,
        })
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
        check::check(self)
    }
}

/// The placeholder category the reference invents for an undefined index.
pub fn unknown_category(index: i32) -> Category {
    Category::placeholder(index)
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
    fn unknown_category_placeholder() {
        let c = unknown_category(42);
        assert_eq!(c.name, "UnknownType-42");
        assert_eq!(c.topology, Topology::State);
        assert_eq!(c.width, 1);
        let _ = unknown_category(i32::MIN);
    }
}
