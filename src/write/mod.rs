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

mod output;
mod shadow;

use std::os::unix::fs::{FileExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::error::{Error, Result};
use crate::format::{self, BlockPtr, DirEntry, Header, Stub, NODE_OVERHEAD};
use crate::model::*;
use shadow::ShadowBuf;

pub mod temp;

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
}

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions {
            children_per_node: 2,
            leaf_bytesize: 65536,
            sync: false,
            block_thread: None,
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
    /// CPU seconds of each writer thread: `tree` (the caller's), then
    /// `shadows` and `blocks`, or `shadows+blocks` where one thread does
    /// both (fewer than three cores; see the module documentation).
    pub stage_cpu: Vec<(&'static str, f64)>,
}

/// The drawables of an open node in arrival order, with the drawing-order
/// key of each (computed once on arrival) in one list per class (nestless,
/// nestable), and the topology of every primitive (a composite: of each
/// member) in arrival order, for the node thread's shadows. Closing the node
/// sorts the keys (the index keeps equal keys in arrival order, as a stable
/// sort would) and encodes the drawables in that order; the drawables never
/// move.
#[derive(Default)]
struct NodeDrawables {
    drawables: Vec<Drawable>,
    /// Some drawable holds a heap block (a composite, or spilled info or
    /// vertices): `clear` must run the destructors.
    owns_heap: bool,
    /// `sort` has run since the last `clear`.
    sorted: bool,
    nestless: Vec<(DrawingKey, u32)>,
    nestable: Vec<(DrawingKey, u32)>,
    topologies: Vec<Topology>,
    /// Drawable indices in drawing order, per class (set by `sort`).
    nestless_order: Vec<u32>,
    nestable_order: Vec<u32>,
    scratch: SortScratch,
}

/// Reused buffers of [`sort_drawing_keys`].
#[derive(Debug, Default)]
pub(crate) struct SortScratch {
    /// (start, position in the key list) in bucket order.
    items: Vec<(u64, u32)>,
    counts: Vec<u32>,
}

/// The drawing order of a node's keys, as the drawable indices (the `u32`
/// of each key) in that order. Comparison sorts of a few thousand 40-byte
/// keys were the largest cost of writing. Keys arrive nearly in start order
/// (drawables come in end order, and most are short), so the start times
/// (distinct almost always) are spread over about one bucket per key by
/// their offset from the smallest, scattered stably, and each bucket — a
/// few keys — is put in order by insertion (a crowded bucket is sorted
/// outright). Only runs of equal starts are then ordered by the whole key.
pub(crate) fn sort_drawing_keys(
    keys: &[(DrawingKey, u32)],
    order: &mut Vec<u32>,
    s: &mut SortScratch,
) {
    order.clear();
    let n = keys.len();
    if keys.is_sorted() {
        order.extend(keys.iter().map(|k| k.1));
        return;
    }
    let (lo, hi) = keys.iter().fold((u64::MAX, 0u64), |(lo, hi), k| {
        let b = k.0.start_bits();
        (lo.min(b), hi.max(b))
    });
    // Buckets: the offset from the smallest start, shifted so that there
    // are between n and 2n of them (fewer when the starts span less).
    let span = hi - lo;
    let shift = (64 - span.leading_zeros()).saturating_sub(64 - (n as u64).leading_zeros());
    let buckets = (span >> shift) as usize + 1;
    s.counts.clear();
    s.counts.resize(buckets + 1, 0);
    for k in keys {
        s.counts[((k.0.start_bits() - lo) >> shift) as usize + 1] += 1;
    }
    for i in 0..buckets {
        s.counts[i + 1] += s.counts[i];
    }
    s.items.clear();
    s.items.resize(n, (0, 0));
    for (i, k) in keys.iter().enumerate() {
        let st = k.0.start_bits();
        let c = &mut s.counts[((st - lo) >> shift) as usize];
        s.items[*c as usize] = (st, i as u32);
        *c += 1;
    }
    // `counts[b]` is now the end of bucket b (the start of b + 1).
    let mut from = 0;
    for b in 0..buckets {
        let to = s.counts[b] as usize;
        let bucket = &mut s.items[from..to];
        from = to;
        if bucket.len() < 2 {
            continue;
        }
        if bucket.len() > 32 {
            bucket.sort_unstable();
        } else {
            for i in 1..bucket.len() {
                let x = bucket[i];
                let mut j = i;
                while j > 0 && bucket[j - 1].0 > x.0 {
                    bucket[j] = bucket[j - 1];
                    j -= 1;
                }
                bucket[j] = x;
            }
        }
        // Equal starts (always in one bucket): the whole key decides.
        let mut i = 0;
        while i < bucket.len() {
            let st = bucket[i].0;
            let mut j = i + 1;
            while j < bucket.len() && bucket[j].0 == st {
                j += 1;
            }
            if j - i > 1 {
                bucket[i..j].sort_unstable_by_key(|&(_, p)| keys[p as usize]);
            }
            i = j;
        }
    }
    order.extend(s.items.iter().map(|&(_, p)| keys[p as usize].1));
}

impl NodeDrawables {
    #[inline(always)]
    fn push(&mut self, d: Drawable, key: DrawingKey, nestable: bool) {
        let k = (key, self.drawables.len() as u32);
        if nestable {
            self.nestable.push(k);
        } else {
            self.nestless.push(k);
        }
        self.owns_heap |= match &d {
            Drawable::Primitive(p) => p.info.spilled() || p.vertices.spilled(),
            Drawable::Composite(_) => true,
        };
        self.drawables.push(d);
    }

    fn clear(&mut self) {
        self.sorted = false;
        if self.owns_heap {
            self.drawables.clear();
            self.owns_heap = false;
        } else {
            // SAFETY: no drawable holds a heap block (no composite, no
            // spilled info or vertices: `push` watched every one), so their
            // destructors would free nothing; skipping them leaks nothing and
            // spares a read of every drawable (3 % of a conversion's time,
            // most of it cache misses on lines the node thread last held).
            // A length of 0 is always within the capacity.
            unsafe { self.drawables.set_len(0) };
        }
        self.nestless.clear();
        self.nestable.clear();
        self.topologies.clear();
    }

    /// Room for a node like `other` and an eighth more, so that lists
    /// rarely grow (a grown list copies everything it holds).
    fn reserve_like(&mut self, other: &NodeDrawables) {
        let more = |n: usize| n + n / 8;
        self.drawables.reserve(more(other.drawables.len()));
        self.nestless.reserve(more(other.nestless.len()));
        self.nestable.reserve(more(other.nestable.len()));
        self.topologies.reserve(more(other.topologies.len()));
    }

    /// Put both classes into drawing order (`nestless_order`,
    /// `nestable_order`).
    fn sort(&mut self) {
        sort_drawing_keys(&self.nestless, &mut self.nestless_order, &mut self.scratch);
        sort_drawing_keys(&self.nestable, &mut self.nestable_order, &mut self.scratch);
        self.sorted = true;
    }

    /// Drawables in an order made by [`sort`](Self::sort).
    fn in_order<'a>(&'a self, order: &'a [u32]) -> impl Iterator<Item = &'a Drawable> + 'a {
        order.iter().map(move |i| &self.drawables[*i as usize])
    }
}

/// One open node of the trunk.
struct OpenNode {
    id: NodeId,
    start: f64,
    end: f64,
    drawables: NodeDrawables,
    /// 46 + Σ (1 + record size) of its drawables.
    bytes: usize,
}

impl OpenNode {
    fn new(id: NodeId, start: f64) -> Self {
        OpenNode {
            id,
            start,
            end: start,
            drawables: NodeDrawables::default(),
            bytes: NODE_OVERHEAD,
        }
    }
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
        let header = Header::placeholder(opts.children_per_node, opts.leaf_bytesize);
        // Placeholder header; the real one is written last. Its version is
        // zeroed so an interrupted file is never taken for a valid one.
        file.write_all_at(&[0u8; format::HEADER_SIZE], 0)
            .map_err(|e| Error::io(tmp.path(), e))?;
        let block_thread = opts
            .block_thread
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()) >= 3);
        let encoder = Encoder::start(&file, &target, format::HEADER_SIZE as u64, block_thread)?;
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

    /// Check an info payload against its category's format as `check` does
    /// (invariant 17) — for callers that build payloads by hand (the C ABI);
    /// the text source encodes them from the format already. An undefined
    /// category, one without tokens, or an empty payload pass.
    pub fn check_info(&self, category: i32, info: &[u8]) -> Result<()> {
        let Some((c, _)) = self.categories.get(&category) else {
            return Ok(());
        };
        match crate::read::info_problem(&c.info.tokens, info) {
            None => Ok(()),
            Some(p) => Err(Error::InvalidArgument(format!(
                "info payload of {} bytes does not fit category {category}'s format: {p:?}",
                info.len()
            ))),
        }
    }

    /// Add the next drawable. Drawables must come in non-decreasing end time.
    #[inline(always)]
    pub fn add_drawable(&mut self, d: Drawable) -> Result<()> {
        match d {
            Drawable::Primitive(p) => self.add_primitive(p),
            d => self.add_any(d),
        }
    }

    /// [`add_drawable`](Self::add_drawable) for a primitive: states, arrows
    /// and events (one or two vertices, finite times, in order) without
    /// the general path's passes; anything else goes there, which also
    /// reports the error.
    #[inline]
    fn add_primitive(&mut self, p: Primitive) -> Result<()> {
        let (first, last) = match &p.vertices[..] {
            [v] => (*v, *v),
            [v, w] => (*v, *w),
            _ => return self.add_any(Drawable::Primitive(p)),
        };
        let (a, b) = (first.time, last.time);
        // The vertex envelope exactly as `TimeBox::widen` builds it.
        let tbox = TimeBox::new(if b < a { b } else { a }, if b > a { b } else { a });
        let ordered = self.last_end.is_none_or(|prev| tbox.end >= prev);
        if !(a.is_finite()
            && b.is_finite()
            && ordered
            && p.category >= 0
            && p.info.len() <= i16::MAX as usize)
        {
            return self.add_any(Drawable::Primitive(p));
        }
        let rec = p.byte_size();
        self.make_room(rec)?;
        let topology = self.topology_of(p.category);
        let target = self.node_for(tbox.start);
        self.note_topology(target, topology);
        let key = DrawingKey::new(tbox, p.category, first.line, last.line);
        let nestable = topology == Topology::State;
        self.store(
            target,
            Drawable::Primitive(p),
            key,
            nestable,
            rec,
            1,
            tbox.end,
        );
        Ok(())
    }

    /// Close the leaf (and the ancestors it completes) first if a record of
    /// `rec` bytes would overfill it.
    #[inline(always)]
    fn make_room(&mut self, rec: usize) -> Result<()> {
        if self.last_end.is_some() && self.trunk[0].bytes + rec > self.opts.leaf_bytesize as usize {
            self.advance()?;
        }
        Ok(())
    }

    /// A primitive of `topology` goes into trunk node `target` (in arrival
    /// order; the node thread's shadows need each primitive's topology).
    #[inline(always)]
    fn note_topology(&mut self, target: usize, topology: Topology) {
        self.topologies_used[topology as usize] = true;
        self.trunk[target].drawables.topologies.push(topology);
    }

    /// Store a placed drawable of `rec` bytes and `primitives` primitives
    /// in trunk node `target`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn store(
        &mut self,
        target: usize,
        d: Drawable,
        key: DrawingKey,
        nestable: bool,
        rec: usize,
        primitives: usize,
        end: f64,
    ) {
        self.summary.primitives += primitives as u64;
        let node = &mut self.trunk[target];
        node.bytes += rec + 1;
        node.drawables.push(d, key, nestable);
        self.last_end = Some(end);
        self.summary.drawables += 1;
    }

    /// The trunk position of the node a drawable starting at `start` goes
    /// into: the deepest whose start is not after it, else the root (whose
    /// start moves back).
    #[inline]
    fn node_for(&mut self, start: f64) -> usize {
        match self.trunk.iter().position(|n| n.start <= start) {
            Some(i) => i,
            None => {
                let r = self.trunk.len() - 1;
                self.trunk[r].start = self.trunk[r].start.min(start);
                r
            }
        }
    }

    /// [`add_drawable`](Self::add_drawable) for every drawable.
    fn add_any(&mut self, d: Drawable) -> Result<()> {
        let index = self.summary.drawables + 1;
        // The rules `check` applies to a stored drawable too (one validation
        // for both: issue #27 class 8).
        if let Some(detail) = drawable_problem(&d) {
            return Err(Error::InvalidDrawable {
                index,
                detail,
                location: String::new(),
            });
        }
        let mut d = d;
        if let Drawable::Composite(c) = &mut d {
            c.members.sort_by(Primitive::drawing_cmp);
        }
        let mut tbox = TimeBox::EMPTY;
        for p in d.primitives() {
            for v in &p.vertices {
                tbox.widen(v.time);
            }
        }
        if let Some(prev) = self.last_end {
            if tbox.end < prev {
                return Err(Error::OrderViolation {
                    index,
                    end: tbox.end,
                    prev_end: prev,
                    location: String::new(),
                });
            }
        }
        let rec = d.byte_size();
        self.make_room(rec)?;

        // Resolve categories (and topologies of the members) before storing.
        let cat_topo = self.topology_of(d.category());
        let target = self.node_for(tbox.start);
        match &d {
            Drawable::Primitive(_) => self.note_topology(target, cat_topo),
            Drawable::Composite(c) => {
                for m in &c.members {
                    let t = self.topology_of(m.category);
                    self.note_topology(target, t);
                }
            }
        }
        let nestable = matches!(d, Drawable::Composite(_)) || cat_topo == Topology::State;
        let key = DrawingKey::of_drawable(&d, tbox);
        let primitives = d.primitives().len();
        self.store(target, d, key, nestable, rec, primitives, tbox.end);
        Ok(())
    }

    /// Close the leaf and every ancestor that has all its children (§9.3).
    fn advance(&mut self) -> Result<()> {
        let n = self.opts.children_per_node as i32;
        let mut next = NodeId::new(0, self.trunk[0].id.xpos + 1);
        let mut d = 0;
        while d < self.trunk.len() {
            if self.trunk[d].id == next {
                break;
            }
            self.close_node(d, false)?;
            let node = &mut self.trunk[d];
            let old_start = node.start;
            node.start = node.end;
            node.id = next;
            next = next.parent(n);
            if d == self.trunk.len() - 1 {
                self.trunk.push(OpenNode::new(next, old_start));
                break;
            }
            d += 1;
        }
        Ok(())
    }

    /// Close trunk node `d` (§9.4): fix its time box and hand it to the node
    /// thread, which writes it and keeps its outgoing buffer (stub) for the
    /// parent. The node is left empty for its next position.
    fn close_node(&mut self, d: usize, root: bool) -> Result<()> {
        let (below, rest) = self.trunk.split_at_mut(d);
        let node = &mut rest[0];
        node.end = match below.last() {
            None => self.last_end.unwrap_or(node.start),
            Some(c) => c.end,
        };
        if node.start > node.end {
            // Only possible for a node that never received anything.
            node.start = node.end;
        }
        let mut job = NodeJob {
            level: d,
            id: node.id,
            time_box: TimeBox::new(node.start, node.end),
            bytes: node.bytes,
            drawables: std::mem::replace(&mut node.drawables, self.encoder.recycled()),
            root,
        };
        // The drawing order is sorted on whichever side has time: here when
        // the node thread is behind (a source that is cheap to read, such as
        // CLOG2), there otherwise (a text trace, whose parsing is the longer
        // side). The bytes are the same either way.
        if !self.encoder.block_thread && self.encoder.node_thread_behind() {
            job.drawables.sort();
        }
        // Lists that come back new grow to the last node's size at once.
        node.drawables.reserve_like(&job.drawables);
        node.bytes = NODE_OVERHEAD;
        self.encoder.send(job)
    }

    /// Close every open node, write categories, maps, directory and header,
    /// and atomically rename the file over the target.
    pub fn finish(self) -> Result<WriteSummary> {
        self.finish_checked(|_| Ok(()))
    }

    /// [`finish`](Self::finish), with a last check of the tree directory
    /// (root first, then depth descending and xpos ascending) before the
    /// file is renamed over the target: an error from `check` leaves no
    /// file and any existing target untouched (checking after the rename
    /// had already replaced it).
    pub fn finish_checked(
        mut self,
        check: impl FnOnce(&[DirEntry]) -> Result<()>,
    ) -> Result<WriteSummary> {
        if self.last_end.is_none() {
            return Err(Error::NoDrawables);
        }
        if self.finished {
            return Err(Error::InvalidArgument("writer already finished".into()));
        }
        self.finished = true;
        let top = self.trunk.len() - 1;
        for d in 0..=top {
            self.close_node(d, d == top)?;
        }
        // Every node is written once the node thread is done.
        let nodes = self.encoder.finish()?;
        let (root_entry, root_buf, lines) = nodes.root.ok_or(Error::NoDrawables)?;
        self.offset = nodes.offset;
        self.header.max_buffer_bytesize = nodes.max_buffer_bytesize;
        self.tail_offset = self.offset;
        let mut sums = FxHashMap::default();
        shadow::summarize(&root_buf, &mut sums);

        // Categories: previews used, then the used ones in definition order.
        let mut cats: Vec<Category> = Vec::new();
        for t in [Topology::Event, Topology::State, Topology::Arrow] {
            if self.topologies_used[t as usize] {
                cats.push(Category::preview(t));
            }
        }
        for idx in &self.category_order {
            if let Some((c, true)) = self.categories.get(idx) {
                let mut c = c.clone();
                if let Some(&(count, incl, excl)) = sums.get(idx) {
                    c.count = count;
                    c.incl_ratio = incl;
                    c.excl_ratio = excl;
                }
                cats.push(c);
            }
        }
        let mut buf = Vec::new();
        format::encode_categories(&mut buf, cats.iter());
        self.header.categories = self.write_block(&buf)?;

        let mut maps: Vec<YCoordMap> = std::mem::take(&mut self.ycoordmaps);
        for m in maps.iter_mut() {
            let mut rows: std::collections::BTreeMap<i32, Vec<i32>> = Default::default();
            for (l, v) in m.rows.drain(..) {
                rows.insert(l, v);
            }
            m.rows = rows.into_iter().collect();
        }
        maps.push(YCoordMap::identity(lines));
        buf.clear();
        format::encode_ycoordmaps(&mut buf, maps.iter());
        self.header.lineidmaps = self.write_block(&buf)?;

        let mut dir = nodes.dir;
        dir.sort_by(|a, b| b.id.depth.cmp(&a.id.depth).then(a.id.xpos.cmp(&b.id.xpos)));
        buf.clear();
        format::encode_treedir(&mut buf, &dir);
        self.header.treedir = self.write_block(&buf)?;

        self.header.treeroot = root_entry.ptr;
        self.header.max_treedepth = root_entry.id.depth;
        let path = self.target.clone();
        let file = &self.file;
        file.write_all_at(&self.tail, self.tail_offset)
            .map_err(|e| Error::io(&path, e))?;
        buf.clear();
        self.header.encode(&mut buf);
        file.write_all_at(&buf, 0)
            .map_err(|e| Error::io(&path, e))?;
        file.set_len(self.offset).map_err(|e| Error::io(&path, e))?;
        check(&dir)?;
        if self.opts.sync {
            file.sync_all().map_err(|e| Error::io(&path, e))?;
        }
        let tmp = self
            .tmp
            .take()
            .ok_or_else(|| Error::InvalidArgument("writer already finished".into()))?;
        output::publish(tmp, &self.output, &path)?;
        self.registered = None;

        let mut s = std::mem::take(&mut self.summary);
        s.categories = cats.len();
        s.depth = root_entry.id.depth;
        s.nodes = dir.len();
        s.bytes = self.offset;
        s.max_buffer_bytesize = self.header.max_buffer_bytesize;
        s.time_box = Some(root_entry.time_box);
        s.stage_cpu = vec![("tree", crate::cputime::thread_cpu_seconds())];
        match nodes.blocks_cpu {
            Some(b) => s
                .stage_cpu
                .extend([("shadows", nodes.shadows_cpu), ("blocks", b)]),
            None => s.stage_cpu.push(("shadows+blocks", nodes.shadows_cpu)),
        }
        Ok(s)
    }

    /// Append a block after the tree (written by `finish`).
    fn write_block(&mut self, bytes: &[u8]) -> Result<BlockPtr> {
        // A block pointer's size is an i32: a larger block (2 GiB of
        // categories, maps or directory) would wrap silently.
        let size = i32::try_from(bytes.len()).map_err(|_| {
            Error::InvalidArgument(format!(
                "a metadata block of {} bytes exceeds the format's 2 GiB block limit",
                bytes.len()
            ))
        })?;
        self.tail.extend_from_slice(bytes);
        let p = BlockPtr::new(self.offset, bytes.len());
        self.offset += bytes.len() as u64;
        self.header.max_buffer_bytesize = self.header.max_buffer_bytesize.max(size);
        Ok(p)
    }
}

/// A closed node on its way to the node thread.
struct NodeJob {
    /// Its trunk position (0 = leaf): its children's stubs are the ones
    /// written by the nodes closed at `level - 1` since its last close.
    level: usize,
    id: NodeId,
    time_box: TimeBox,
    /// 46 + Σ (1 + record size) of its drawables (stubs not included).
    bytes: usize,
    drawables: NodeDrawables,
    /// The last node of all: its outgoing buffer and line IDs are kept for
    /// the category summaries and the identity map.
    root: bool,
}

/// What the node thread leaves when every node is written.
struct NodesWritten {
    /// CPU seconds of the node thread and of the block thread (`None`:
    /// blocks were written on the node thread).
    shadows_cpu: f64,
    blocks_cpu: Option<f64>,
    dir: Vec<DirEntry>,
    /// End of the tree's blocks.
    offset: u64,
    max_buffer_bytesize: i32,
    /// The root's entry, its outgoing buffer, and the line IDs of its
    /// drawables and of its children's shadows (the identity map's rows).
    root: Option<(DirEntry, Stub, std::collections::BTreeSet<i32>)>,
}

/// The node thread's end of the writer: see the module documentation.
/// Drawable lists come back empty for reuse.
struct Encoder {
    tx: Option<SyncSender<NodeJob>>,
    /// Jobs sent and not yet taken by the node thread.
    queued: Arc<AtomicUsize>,
    /// Blocks are sorted, encoded and written on a thread of their own.
    block_thread: bool,
    back: Receiver<NodeDrawables>,
    handle: Option<std::thread::JoinHandle<Result<NodesWritten>>>,
    /// The node thread's error, once reported, for later calls.
    failed: Option<String>,
}

impl Encoder {
    /// Start the node thread; the first node goes at `offset`.
    fn start(file: &std::fs::File, path: &Path, offset: u64, block_thread: bool) -> Result<Self> {
        let file = file.try_clone().map_err(|e| Error::io(path, e))?;
        let path = path.to_path_buf();
        // Closed nodes come in bursts (a leaf and the ancestors it
        // completes) and cost unequal work; a queue of 16 keeps both sides
        // busy through them (4 left both idle a tenth of the time), for a
        // few MB (BENCHMARKS.md).
        let (tx, rx) = sync_channel::<NodeJob>(16);
        let (back_tx, back) = sync_channel::<NodeDrawables>(24);
        let queued = Arc::new(AtomicUsize::new(0));
        let taken = queued.clone();
        let handle = std::thread::Builder::new()
            .name("slog2-nodes".into())
            .spawn(move || NodeWorker::run(file, path, offset, block_thread, rx, back_tx, taken))
            .map_err(|e| Error::io(Path::new("."), e))?;
        Ok(Encoder {
            tx: Some(tx),
            queued,
            block_thread,
            back,
            handle: Some(handle),
            failed: None,
        })
    }

    /// An empty drawable list, recycled when one came back. It is emptied
    /// here, on the tree side: the node thread, which is the longer of the
    /// two, sends it back full.
    fn recycled(&self) -> NodeDrawables {
        let mut nd = self.back.try_recv().unwrap_or_default();
        nd.clear();
        nd
    }

    /// The node thread has not yet taken the last job sent: it is the
    /// longer side of the conversion just now.
    fn node_thread_behind(&self) -> bool {
        self.queued.load(Ordering::Relaxed) > 1
    }

    fn send(&mut self, job: NodeJob) -> Result<()> {
        self.queued.fetch_add(1, Ordering::Relaxed);
        let sent = match &self.tx {
            Some(tx) => tx.send(job).is_ok(),
            None => false,
        };
        if sent {
            return Ok(());
        }
        // The node thread stopped: its error is the cause.
        self.finish()?;
        Err(Error::InvalidArgument("writer already finished".into()))
    }

    /// Wait until every node is written.
    fn finish(&mut self) -> Result<NodesWritten> {
        self.tx = None;
        let Some(h) = self.handle.take() else {
            let msg = self.failed.clone();
            return Err(Error::InvalidArgument(
                msg.unwrap_or_else(|| "writer already finished".into()),
            ));
        };
        let r = h
            .join()
            .unwrap_or_else(|_| Err(Error::InvalidArgument("node thread panicked".into())));
        if let Err(e) = &r {
            self.failed = Some(e.to_string());
        }
        r
    }
}

impl Drop for Encoder {
    fn drop(&mut self) {
        self.tx = None;
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// The node thread: shadows, sizes, offsets and directory of closed nodes,
/// in close order (post-order, so a node's children are done before it).
/// Each node then goes with its children's stubs to the block thread
/// ([`BlockWriter`]), which sorts, encodes and writes it.
struct NodeWorker {
    offset: u64,
    dir: Vec<DirEntry>,
    max_buffer_bytesize: i32,
    /// Outgoing buffers per trunk level, waiting for the parent's close.
    finished: Vec<Vec<Stub>>,
    /// Reused for every node: a node's shadows are built when it closes.
    shadows: ShadowBuf,
    root: Option<(DirEntry, Stub, std::collections::BTreeSet<i32>)>,
}

/// A node ready to be written: its entry (offset and size fixed), its
/// drawables and its children's stubs.
struct BlockJob {
    entry: DirEntry,
    drawables: NodeDrawables,
    held: Vec<Stub>,
}

impl NodeWorker {
    fn run(
        file: std::fs::File,
        path: PathBuf,
        offset: u64,
        block_thread: bool,
        rx: Receiver<NodeJob>,
        back: SyncSender<NodeDrawables>,
        queued: Arc<AtomicUsize>,
    ) -> Result<NodesWritten> {
        let rx = rx.iter().inspect(|_| {
            queued.fetch_sub(1, Ordering::Relaxed);
        });
        let mut w = NodeWorker {
            offset,
            dir: Vec::new(),
            max_buffer_bytesize: 0,
            finished: Vec::new(),
            shadows: ShadowBuf::default(),
            root: None,
        };
        // Without a block thread (fewer than three cores, by default) the
        // caller's thread and this one have a core each, instead of three
        // busy threads sharing two cores (BENCHMARKS.md).
        let (shadows_cpu, blocks_cpu) = if !block_thread {
            let mut bw = BlockWriter::new(file, path);
            for job in rx {
                let b = w.node(job)?;
                bw.block(b, &back)?;
            }
            bw.flush()?;
            (crate::cputime::thread_cpu_seconds(), None)
        } else {
            let (tx, blocks) = sync_channel::<BlockJob>(16);
            let writer = std::thread::Builder::new()
                .name("slog2-blocks".into())
                .spawn(move || BlockWriter::new(file, path).run(blocks, back))
                .map_err(|e| Error::io(Path::new("."), e))?;
            let mut failed = None;
            for job in rx {
                match w.node(job) {
                    Ok(b) => {
                        if tx.send(b).is_err() {
                            // The block thread stopped: its error is the cause.
                            break;
                        }
                    }
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                }
            }
            drop(tx);
            let shadows_cpu = crate::cputime::thread_cpu_seconds();
            let written = writer
                .join()
                .unwrap_or_else(|_| Err(Error::InvalidArgument("block thread panicked".into())));
            if let Some(e) = failed {
                return Err(e);
            }
            (shadows_cpu, Some(written?))
        };
        Ok(NodesWritten {
            shadows_cpu,
            blocks_cpu,
            dir: w.dir,
            offset: w.offset,
            max_buffer_bytesize: w.max_buffer_bytesize,
            root: w.root,
        })
    }

    /// Place one closed node (§9.4) in the file, build its shadows from its
    /// own primitives and its children's stubs, and keep its outgoing buffer.
    fn node(&mut self, job: NodeJob) -> Result<BlockJob> {
        let held: Vec<Stub> = match job.level.checked_sub(1) {
            Some(c) => self
                .finished
                .get_mut(c)
                .map(std::mem::take)
                .unwrap_or_default(),
            None => Vec::new(),
        };
        let size = job.bytes + held.iter().map(Stub::byte_size).sum::<usize>();
        if size > i32::MAX as usize {
            return Err(Error::InvalidArgument(format!(
                "tree node {} would exceed 2 GiB",
                job.id
            )));
        }
        let entry = DirEntry {
            id: job.id,
            time_box: job.time_box,
            ptr: BlockPtr::new(self.offset, size),
        };
        self.dir.push(entry);
        self.offset += size as u64;
        self.max_buffer_bytesize = self.max_buffer_bytesize.max(size as i32);

        // Shadows: own primitives in arrival order, then the children's.
        let nd = &job.drawables;
        let shadows = &mut self.shadows;
        let mut topologies = nd.topologies.iter();
        for d in &nd.drawables {
            for p in d.primitives() {
                let t = topologies.next().copied().unwrap_or(Topology::State);
                // The vertex envelope (as `Primitive::time_box`), without a loop
                // for the one or two vertices of nearly every primitive.
                let tbox = match p.vertices.as_slice() {
                    [v] => TimeBox::new(v.time, v.time),
                    [v, w] => TimeBox::new(
                        if w.time < v.time { w.time } else { v.time },
                        if w.time > v.time { w.time } else { v.time },
                    ),
                    _ => p.time_box(),
                };
                shadows.add_primitive(t, p, tbox);
            }
        }
        shadows.seal();
        for s in &held {
            shadows.merge_child(s);
        }
        let outgoing = shadows.finalize(entry);

        if job.root {
            let mut lines = std::collections::BTreeSet::new();
            for d in &nd.drawables {
                for p in d.primitives() {
                    lines.extend(p.vertices.iter().map(|v| v.line));
                }
            }
            for s in &held {
                for sh in s.shadows() {
                    lines.extend(sh.vertices.iter().map(|v| v.line));
                }
            }
            self.root = Some((entry, outgoing, lines));
        } else {
            if self.finished.len() <= job.level {
                self.finished.resize_with(job.level + 1, Vec::new);
            }
            self.finished[job.level].push(outgoing);
        }
        Ok(BlockJob {
            entry,
            drawables: job.drawables,
            held,
        })
    }
}

/// The block thread: sorts a node's drawables into drawing order, encodes
/// the block and writes it at its offset; consecutive blocks are gathered
/// into one write. Drawable lists go back to the tree side empty.
struct BlockWriter {
    file: std::fs::File,
    path: PathBuf,
    buf: Vec<u8>,
    buf_offset: u64,
}

impl BlockWriter {
    const FLUSH: usize = 1 << 20;

    fn new(file: std::fs::File, path: PathBuf) -> Self {
        BlockWriter {
            file,
            path,
            buf: Vec::with_capacity(Self::FLUSH + (1 << 17)),
            buf_offset: 0,
        }
    }

    /// Returns the thread's CPU seconds.
    fn run(mut self, rx: Receiver<BlockJob>, back: SyncSender<NodeDrawables>) -> Result<f64> {
        for job in rx {
            self.block(job, &back)?;
        }
        self.flush()?;
        Ok(crate::cputime::thread_cpu_seconds())
    }

    /// Sort, encode and (with the blocks before it) write one node.
    fn block(&mut self, mut job: BlockJob, back: &SyncSender<NodeDrawables>) -> Result<()> {
        let at = job.entry.ptr.offset as u64;
        if !self.buf.is_empty()
            && (self.buf_offset + self.buf.len() as u64 != at || self.buf.len() >= Self::FLUSH)
        {
            self.flush()?;
        }
        if self.buf.is_empty() {
            self.buf_offset = at;
        }
        let start = self.buf.len();
        self.buf.reserve(job.entry.ptr.size as usize);
        let nd = &mut job.drawables;
        if !nd.sorted {
            nd.sort();
        }
        format::encode_node(
            &mut self.buf,
            &job.entry,
            nd.nestless.len(),
            nd.in_order(&nd.nestless_order),
            nd.nestable.len(),
            nd.in_order(&nd.nestable_order),
            &job.held,
        );
        debug_assert_eq!(self.buf.len() - start, job.entry.ptr.size as usize);
        let _ = back.try_send(job.drawables);
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if !self.buf.is_empty() {
            self.file
                .write_all_at(&self.buf, self.buf_offset)
                .map_err(|e| Error::io(&self.path, e))?;
            self.buf.clear();
        }
        Ok(())
    }
}

#[cfg(test)]
mod sort_tests {
    use super::*;
    use proptest::prelude::*;

    /// Keys in the order `sort_drawing_keys` gives (each key's `u32` is its
    /// position here).
    fn sorted(keys: &[(DrawingKey, u32)]) -> Vec<(DrawingKey, u32)> {
        let mut order = Vec::new();
        sort_drawing_keys(keys, &mut order, &mut SortScratch::default());
        order.iter().map(|&i| keys[i as usize]).collect()
    }

    fn comparison_sorted(keys: &[(DrawingKey, u32)]) -> Vec<(DrawingKey, u32)> {
        let mut v = keys.to_vec();
        v.sort_unstable();
        v
    }

    proptest! {
        /// The bucket sort orders keys exactly as a comparison sort does,
        /// including runs of equal start times.
        #[test]
        fn sort_equals_comparison_sort_with_ties(
            raw in prop::collection::vec((0u32..50, 0u32..50, 0i32..3, 0i32..3, -1i32..2), 0..400),
            scale in prop_oneof![Just(1e-6), Just(1.0), Just(1e9), Just(-1e-3)],
        ) {
            let keys: Vec<(DrawingKey, u32)> = raw
                .iter()
                .enumerate()
                .map(|(i, &(s, d, c, f, l))| {
                    let start = s as f64 * scale;
                    let tbox = TimeBox::new(start.min(start + d as f64 * scale), start.max(start + d as f64 * scale));
                    (DrawingKey::new(tbox, c, f, l), i as u32)
                })
                .collect();
            prop_assert_eq!(sorted(&keys), comparison_sorted(&keys));
        }

        /// The same for starts of every shape: a node's usual stream (end
        /// order, short durations), any finite doubles of both signs, and a
        /// few far outliers that crowd the rest into one bucket.
        #[test]
        fn bucket_sort_equals_comparison_sort(
            raw in prop::collection::vec((any::<u64>(), 0u32..64, 0i32..3, 0i32..3), 0..3000),
            shape in 0u8..3,
        ) {
            let keys: Vec<(DrawingKey, u32)> = raw
                .iter()
                .enumerate()
                .map(|(i, &(r, d, c, f))| {
                    let start = match shape {
                        // Arrival in end order: start = end - short duration.
                        0 => i as f64 * 1e-6 - d as f64 * 1e-6,
                        1 => {
                            let x = f64::from_bits(r);
                            if x.is_finite() { x } else { r as f64 }
                        }
                        _ => if r % 97 == 0 { (r % 7) as f64 * -1e12 } else { i as f64 * 1e-7 },
                    };
                    let tbox = TimeBox::new(start, start + d as f64);
                    (DrawingKey::new(tbox, c, f, 0), i as u32)
                })
                .collect();
            prop_assert_eq!(sorted(&keys), comparison_sorted(&keys));
        }
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

#[cfg(test)]
mod balance_tests {
    use super::*;

    fn write(path: &Path, behind: bool, leaf: i32) -> Vec<u8> {
        let opts = WriterOptions {
            leaf_bytesize: leaf,
            block_thread: Some(false),
            ..Default::default()
        };
        let mut w = Slog2Writer::create(path, opts).unwrap();
        if behind {
            // The node thread always looks behind: every sort on this side.
            w.encoder.queued.fetch_add(1 << 40, Ordering::Relaxed);
        }
        for c in crate::synth::categories() {
            w.add_category(c).unwrap();
        }
        for d in crate::synth::Synthetic::new(20_000, 8, 3) {
            w.add_drawable(d).unwrap();
        }
        w.finish().unwrap();
        std::fs::read(path).unwrap()
    }

    /// Sorting the drawing order on the tree side or on the node thread
    /// gives the same bytes.
    #[test]
    fn sort_side_does_not_change_the_file() {
        let dir = tempfile::tempdir().unwrap();
        for leaf in [1024, 65536] {
            let a = write(&dir.path().join("a.slog2"), false, leaf);
            let b = write(&dir.path().join("b.slog2"), true, leaf);
            assert!(a.len() > 100_000);
            assert!(a == b, "leaf {leaf}: files differ");
        }
    }
}
