//! The one-pass SLOG-2 tree writer.
//!
//! Drawables arrive in non-decreasing end time. The writer keeps one *open*
//! tree node per depth (the trunk: leaf first, root last). A drawable goes into
//! the deepest open node whose start is not after the drawable's start; when
//! the leaf's bytes would pass the leaf size, the leaf and every ancestor that
//! has received all its children are closed and written (post-order), and the
//! tree grows a new root when the old one closes. This is the reference
//! writer's algorithm (spec §9), reproduced so that the same input and options
//! give the same tree directory, shadows and category summaries.
//!
//! Memory is bounded by the open nodes — at most one leaf's worth of drawables
//! per depth plus the stubs waiting for their parent — and does not grow with
//! the trace length.
//!
//! The work is a pipeline; each stage hands the next whole closed nodes, in
//! close order:
//!
//! 1. the caller's thread (the *tree* side) only places drawables: it checks
//!    them, finds their tree node and decides when nodes close — none of
//!    which depends on shadows (a leaf fills with drawables only; stubs are
//!    added to a node's size when it is written);
//! 2. the *node* thread (`NodeWorker`) builds each closed node's shadows
//!    (folding its own primitives in arrival order, merging its children's
//!    stubs, exclusive ratios) and fixes its size, file offset and directory
//!    entry;
//! 3. the *block* stage (`BlockWriter`) sorts the node's drawables into
//!    drawing order, encodes the block and writes it at its offset — on a
//!    thread of its own with three cores or more, else on the node thread,
//!    so that on two cores each busy thread has a core (three busy threads
//!    sharing two cores made the slowest one slower). On two cores the sort
//!    moves to the tree side while the node thread is behind (more than one
//!    closed node waiting for it): with a source that is cheap to read, such
//!    as a CLOG2 log, the node thread is the longer side and the sort (a
//!    tenth of the conversion's time) evens them out; with a text trace the
//!    parsing is longer, the node thread keeps up, and it sorts.
//!
//! Shadow arithmetic and encoding are most of a writer's work; on the tree
//! side they made the writer the slowest stage of a conversion. The bytes
//! are the same whatever the threads.
//!
//! Output is atomic: everything is written to a temporary file beside the
//! target, the header is written last, and the file is renamed over the target
//! only by [`Slog2Writer::finish`] (a FIFO, a character device or `-` is
//! written through instead, a symlink followed: `output`). Dropping an unfinished writer (an error in
//! the middle of a conversion) removes the temporary file and leaves any
//! existing target untouched.
//!
//! # Where things are
//!
//! | file | what |
//! |---|---|
//! | `mod.rs` | options, [`Slog2Writer`], categories and maps |
//! | `place.rs` | placing drawables in the trunk, closing nodes (§9.2–9.3) |
//! | `drawables.rs` | an open node's drawables and their drawing-order sort |
//! | `nodes.rs` | the node thread: offsets, directory, shadows (§9.4) |
//! | `blocks.rs` | the block stage: encoding and writing node blocks |
//! | `directory.rs` | the tree directory, spilled beside the target |
//! | `shadow.rs` | shadow arithmetic (§8.2) and category summaries (§11) |
//! | `finish.rs` | the blocks after the tree, the header, the rename |
//! | `temp.rs` | temporary files beside the target |

mod blocks;
mod directory;
mod drawables;
mod finish;
mod nodes;
mod output;
mod payload;
mod place;
mod shadow;
pub mod temp;

use std::os::unix::fs::{FileExt, PermissionsExt};
use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;

use crate::error::{Error, Result};
use crate::format::{self, Header, NODE_OVERHEAD};
use crate::model::*;
use drawables::NodeDrawables;
pub(crate) use drawables::{sort_drawing_keys, SortScratch};
use nodes::Encoder;
use place::OpenNode;

/// Tree shape options (the converter's `-nc` and `-ls`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriterOptions {
    /// Children per tree node, >= 2 (default 2).
    pub children_per_node: i16,
    /// Leaf byte-size limit (default 65536).
    pub leaf_bytesize: i32,
    /// `fsync` the file before the rename that publishes it (default off).
    /// Without it the output is still atomic for every reader on a running
    /// system (nothing appears under the target name until it is complete);
    /// `sync` adds durability across power loss, at about 50 ms per 40 MB.
    /// The reference converter does not sync either.
    pub sync: bool,
    /// Encode and write blocks on a thread of their own (`Some(true)`), on
    /// the node thread (`Some(false)`), or decide by the number of cores
    /// (`None`, default: own thread from three cores on). The bytes are the
    /// same either way.
    pub block_thread: Option<bool>,
    /// Compress every tree node at this level (libdeflate's: 1 fastest …
    /// 12 smallest, [`format::MIN_LEVEL`]..=[`format::MAX_LEVEL`]; `slog2
    /// convert --compress` takes 1; `None`, the default: plain SLOG-2
    /// 2.0.6). A compressed
    /// file says `SLOG 2.0.Z` where 2.0.6 files say `SLOG 2.0.6`, so the
    /// reference tools refuse it (see [`crate::format::packed`]); this
    /// library reads both, and `slog2 convert` turns one into the other.
    pub compress: Option<u32>,
}

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions {
            children_per_node: 2,
            leaf_bytesize: 65536,
            sync: false,
            block_thread: None,
            compress: None,
        }
    }
}

/// What the writer produced.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WriteSummary {
    /// Top-level drawables written (primitives + composites).
    pub drawables: u64,
    /// Real primitives (composite members counted individually).
    pub primitives: u64,
    /// Categories in the file (including preview categories).
    pub categories: usize,
    /// Depth of the root (0 = a single leaf).
    pub depth: i16,
    pub nodes: usize,
    pub bytes: u64,
    pub max_buffer_bytesize: i32,
    pub time_box: Option<TimeBox>,
    /// Bytes of the tree nodes in the 2.0.6 layout (for a compressed file,
    /// what they would take plain).
    pub plain_node_bytes: u64,
    /// CPU seconds of each writer thread: `tree` (the caller's), then
    /// `shadows` and `blocks`, or `shadows+blocks` where one thread does
    /// both (fewer than three cores; see the module documentation).
    pub stage_cpu: Vec<(&'static str, f64)>,
}

/// What makes a drawable unfit for an SLOG-2 file, whoever asks: the writer
/// refuses it ([`Slog2Writer::add_drawable`]) and `check` reports a stored
/// one as an error (issue #27 class 8: a NaN vertex time and a negative
/// category passed `check` while `convert` refused the same file). `None`
/// when it is fit. The rules: lengths that fit the format's fields, no
/// negative category (those are the preview categories the writer makes
/// itself), finite vertex times.
pub fn drawable_problem(d: &Drawable) -> Option<String> {
    if let Err(e) = format::check_drawable(d) {
        return Some(e.to_string());
    }
    if let Some(c) = std::iter::once(d.category())
        .chain(d.primitives().iter().map(|p| p.category))
        .find(|&c| c < 0)
    {
        return Some(format!(
            "category index {c} is negative; negative indices are reserved for preview categories"
        ));
    }
    if d.primitives()
        .iter()
        .any(|p| p.vertices.iter().any(|v| !v.time.is_finite()))
    {
        return Some("vertex time is not finite".into());
    }
    None
}

/// Streaming SLOG-2 writer. See the module documentation.
pub struct Slog2Writer {
    target: PathBuf,
    /// Where and how the finished file is published (`output`).
    output: output::Output,
    tmp: Option<tempfile::NamedTempFile>,
    /// Lists `tmp` for [`temp::remove_temp_files`] until it is renamed or
    /// removed (dropped after `tmp`: fields drop in declaration order).
    registered: Option<temp::Registered>,
    /// For the blocks after the tree (nodes go through `encoder`).
    file: std::fs::File,
    encoder: Encoder,
    /// End of the file so far (known once the node thread is done).
    offset: u64,
    opts: WriterOptions,
    header: Header,
    /// Category definitions by index, with their first-definition order.
    /// Category definitions and whether a drawable used them.
    categories: FxHashMap<i32, (Category, bool)>,
    category_order: Vec<i32>,
    /// Topologies of used categories with small indices, by index (`None`:
    /// look in `categories`), so the per-drawable lookup is one load.
    used_topology: Vec<Option<Topology>>,
    topologies_used: [bool; 3],
    ycoordmaps: Vec<YCoordMap>,
    trunk: Vec<OpenNode>,
    last_end: Option<f64>,
    summary: WriteSummary,
    /// Blocks after the tree, written at once by `finish`.
    tail: Vec<u8>,
    tail_offset: u64,
    finished: bool,
}

impl Slog2Writer {
    /// Start writing `path` (a temporary file beside it until `finish`).
    pub fn create(path: impl AsRef<Path>, opts: WriterOptions) -> Result<Self> {
        if opts.children_per_node < 2 {
            return Err(Error::InvalidArgument(format!(
                "children per node must be >= 2, got {}",
                opts.children_per_node
            )));
        }
        if (opts.leaf_bytesize as usize) < NODE_OVERHEAD || opts.leaf_bytesize <= 0 {
            return Err(Error::InvalidArgument(format!(
                "leaf byte size must be at least {NODE_OVERHEAD}, got {}",
                opts.leaf_bytesize
            )));
        }
        let target = path.as_ref().to_path_buf();
        // What is at the path decides how it is written (output.rs).
        let output = output::resolve(&target)?;
        let dir = output.temp_dir();
        let name = output
            .path()
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !dir.is_dir() {
            return Err(Error::io(
                &dir,
                std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    format!(
                        "the output directory of {} does not exist or is not a directory",
                        target.display()
                    ),
                ),
            ));
        }
        temp::clean_stale(&dir, &name);
        let tmp = tempfile::Builder::new()
            .prefix(&temp::prefix(&name))
            .suffix(temp::suffix())
            // A normal new file's mode (umask applies), not tempfile's 0600.
            .permissions(std::fs::Permissions::from_mode(0o666))
            .tempfile_in(&dir)
            .map_err(|e| Error::io(&target, e))?;
        // The proof of life for other writers' clean-up (temp.rs).
        let _ = temp::hold(tmp.as_file());
        let file = tmp
            .as_file()
            .try_clone()
            .map_err(|e| Error::io(tmp.path(), e))?;
        if let Some(l) = opts.compress {
            if !(format::MIN_LEVEL..=format::MAX_LEVEL).contains(&l) {
                return Err(Error::InvalidArgument(format!(
                    "compression level must be {} to {}, got {l}",
                    format::MIN_LEVEL,
                    format::MAX_LEVEL
                )));
            }
        }
        let mut header = Header::placeholder(opts.children_per_node, opts.leaf_bytesize);
        if opts.compress.is_some() {
            header.version = format::VERSION_COMPRESSED.to_string();
        }
        // Placeholder header; the real one is written last. Its version is
        // zeroed so an interrupted file is never taken for a valid one.
        file.write_all_at(&[0u8; format::HEADER_SIZE], 0)
            .map_err(|e| Error::io(tmp.path(), e))?;
        let block_thread = opts
            .block_thread
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()) >= 3);
        let encoder = Encoder::start(
            &file,
            &target,
            format::HEADER_SIZE as u64,
            block_thread,
            opts.compress,
        )?;
        Ok(Slog2Writer {
            target,
            output,
            registered: Some(temp::Registered::new(tmp.path())),
            tmp: Some(tmp),
            file,
            encoder,
            offset: format::HEADER_SIZE as u64,
            opts,
            header,
            categories: FxHashMap::default(),
            category_order: Vec::new(),
            used_topology: Vec::new(),
            topologies_used: [false; 3],
            ycoordmaps: Vec::new(),
            trunk: vec![OpenNode::new(NodeId::new(0, 0), f64::INFINITY)],
            last_end: None,
            summary: WriteSummary::default(),
            tail: Vec::new(),
            tail_offset: 0,
            finished: false,
        })
    }

    pub fn options(&self) -> WriterOptions {
        self.opts
    }

    /// Define (or redefine: last definition wins) a category. Summary fields
    /// of `c` are ignored; the writer computes them.
    pub fn add_category(&mut self, mut c: Category) -> Result<()> {
        if c.index < 0 {
            return Err(Error::InvalidArgument(format!(
                "category index {} is negative; negative indices are reserved for preview categories",
                c.index
            )));
        }
        format::check_len("category name", c.name.len())?;
        format::check_len("info keys", c.info.keys.len())?;
        format::check_len("info tokens", c.info.tokens.len())?;
        format::check_len("category methods", c.methods.len())?;
        for k in &c.info.keys {
            format::check_len("info key", k.len())?;
        }
        // A token the format does not define would make every payload of the
        // category undecodable (and the file fail `check`): refuse it here.
        if let Some(&t) = c
            .info
            .tokens
            .iter()
            .find(|t| !crate::model::INFO_TOKENS.contains(t))
        {
            return Err(Error::InvalidArgument(format!(
                "category {} ({:?}): info token '%{}' is not one of %{}",
                c.index,
                c.name,
                (t as char).escape_default(),
                String::from_utf8_lossy(crate::model::INFO_TOKENS)
            )));
        }
        c.incl_ratio = 0.0;
        c.excl_ratio = 0.0;
        c.count = 0;
        let index = c.index;
        if let Some(t) = self.used_topology.get_mut(index as usize) {
            // A redefinition may change the topology.
            *t = None;
        }
        match self.categories.get_mut(&index) {
            Some(e) => e.0 = c,
            None => {
                self.categories.insert(index, (c, false));
                self.category_order.push(index);
            }
        }
        Ok(())
    }

    /// Add a y-coordinate (line ID) map. Rows are sorted by line ID on output
    /// and a repeated line ID keeps its last row.
    pub fn add_ycoordmap(&mut self, m: YCoordMap) -> Result<()> {
        format::check_len("map title", m.title.len())?;
        format::check_len("map methods", m.methods.len())?;
        for l in &m.column_labels {
            format::check_len("map column label", l.len())?;
        }
        if m.title == "Identity Map" {
            // The writer adds its own identity map; a second one would confuse viewers.
            return Ok(());
        }
        self.ycoordmaps.push(m);
        Ok(())
    }

    /// Topology of a category, marking it used.
    #[inline]
    fn topology_of(&mut self, category: i32) -> Topology {
        if let Some(Some(t)) = self.used_topology.get(category as usize) {
            return *t;
        }
        self.topology_of_slow(category)
    }

    fn topology_of_slow(&mut self, category: i32) -> Topology {
        const FAST: usize = 1 << 16;
        let topology = match self.categories.get_mut(&category) {
            Some((c, used)) => {
                *used = true;
                Some(c.topology)
            }
            None => None,
        };
        if let Some(t) = topology {
            if (0..FAST as i32).contains(&category) {
                let i = category as usize;
                if self.used_topology.len() <= i {
                    self.used_topology.resize(i + 1, None);
                }
                self.used_topology[i] = Some(t);
            }
            return t;
        }
        // Like the reference: invent a placeholder category.
        let c = Category::placeholder(category);
        self.categories.insert(category, (c, true));
        self.category_order.push(category);
        Topology::State
    }
}

#[cfg(test)]
mod adaptive_sort_tests {
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn adaptive_sort_sorts(mut v in prop::collection::vec((0u8..20, 0u16..1000), 0..300), shuffle in any::<bool>()) {
            if !shuffle {
                v.sort_unstable();
                let n = v.len();
                if n > 2 { v.swap(0, n / 2); }
            }
            let mut want = v.clone();
            want.sort_unstable();
            super::shadow::sort_adaptive(&mut v);
            prop_assert_eq!(v, want);
        }
    }
}
