//! The invariant checker: spec §10.1, E-level findings as errors, W-level as
//! warnings, each message tagged `[#n]` with the invariant number and carrying
//! a byte offset.
//!
//! Why a separate pass: opening a file validates only what every query needs
//! (metadata and pointers), so that a damaged file can still be looked at;
//! `check` decodes every node in full and cross-checks the tree — the
//! directory against node headers and stubs, drawables against node boxes and
//! categories, shadows against their stubs, summaries against counts. Cost is
//! one sequential pass over the file.
//!
//! Not checked here: the shadow re-derivation invariants (#21, #22) and the
//! category-summary re-derivation (#24); they need the writer's shadow
//! algorithm.
//!
//! The checker is a `Checker` with one method per invariant (or per group
//! of invariants read from the same bytes: a node's header, drawables and
//! stubs are checked as the node is decoded once); the node pass collects
//! what the checks after it need (reachability, undefined categories,
//! counts, line IDs). A stored drawable is also held to the writer's own
//! rules (`write::drawable_problem`), so `check` and `convert` agree.
//!
//! To keep reports readable, each invariant reports at most
//! [`MAX_PER_INVARIANT`] messages per level, followed by a count of the rest.

use std::collections::BTreeMap;

use rustc_hash::{FxHashMap, FxHashSet};

use super::info::info_problem;
use super::Slog2File;
use crate::format::{BlockPtr, DirEntry, NodeParts, HEADER_SIZE, NODE_HEADER_SIZE};
use crate::model::*;

/// At most this many messages per invariant and level.
pub const MAX_PER_INVARIANT: usize = 25;

/// Outcome of [`Slog2File::check`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CheckReport {
    /// E-level findings: the reference reader would reject the file.
    pub errors: Vec<String>,
    /// W-level findings: suspicious but readable.
    pub warnings: Vec<String>,
    /// Tree nodes decoded successfully.
    pub nodes: usize,
    /// Real (top-level) drawables in those nodes.
    pub drawables: usize,
    /// Shadows in their stubs.
    pub shadows: usize,
    /// Primitives, counting composite members individually.
    pub primitives: usize,
}

impl CheckReport {
    /// No errors (warnings allowed).
    pub fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }
}

impl std::fmt::Display for CheckReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for e in &self.errors {
            writeln!(f, "error: {e}")?;
        }
        for w in &self.warnings {
            writeln!(f, "warning: {w}")?;
        }
        write!(
            f,
            "{} nodes, {} drawables ({} primitives), {} shadows; {} error(s), {} warning(s)",
            self.nodes,
            self.drawables,
            self.primitives,
            self.shadows,
            self.errors.len(),
            self.warnings.len()
        )
    }
}

/// Collects findings with a cap per (invariant, level).
#[derive(Default)]
struct Findings {
    errors: Vec<String>,
    warnings: Vec<String>,
    seen: BTreeMap<(u8, bool), usize>,
}

impl Findings {
    fn push(&mut self, inv: u8, error: bool, msg: String) {
        let n = self.seen.entry((inv, error)).or_insert(0);
        *n += 1;
        if *n <= MAX_PER_INVARIANT {
            let m = format!("[#{inv}] {msg}");
            if error {
                self.errors.push(m);
            } else {
                self.warnings.push(m);
            }
        }
    }
    fn e(&mut self, inv: u8, msg: String) {
        self.push(inv, true, msg);
    }
    fn w(&mut self, inv: u8, msg: String) {
        self.push(inv, false, msg);
    }
    fn finish(mut self) -> (Vec<String>, Vec<String>) {
        for (&(inv, error), &n) in &self.seen {
            if n > MAX_PER_INVARIANT {
                let m = format!("[#{inv}] … and {} more like this", n - MAX_PER_INVARIANT);
                if error {
                    self.errors.push(m);
                } else {
                    self.warnings.push(m);
                }
            }
        }
        (self.errors, self.warnings)
    }
}

fn same_f64(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || a == b
}

fn same_box(a: &TimeBox, b: &TimeBox) -> bool {
    same_f64(a.start, b.start) && same_f64(a.end, b.end)
}

fn fmt_box(b: &TimeBox) -> String {
    format!(
        "[{}, {}]",
        crate::model::TimeText(b.start),
        crate::model::TimeText(b.end)
    )
}

fn fmt_ptr(p: &BlockPtr) -> String {
    format!("{} bytes @ {}", p.size, p.offset)
}

/// `inner` inside `outer` (closed); NaN bounds count as outside.
fn inside(outer: &TimeBox, inner: &TimeBox) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}

pub(super) fn check(file: &Slog2File) -> CheckReport {
    let mut c = Checker::new(file);
    c.header_pointers();
    c.block_layout();
    c.categories();
    c.map_order();
    c.directory();
    for e in &file.directory {
        c.node(e);
    }
    c.reachability();
    c.undefined_categories();
    c.category_counts();
    c.line_maps();
    c.finish()
}

/// The state of one check: findings, the report, and what the node pass
/// collects for the checks after it. One method per invariant (or group of
/// invariants read from the same bytes), in the order they run.
struct Checker<'a> {
    file: &'a Slog2File,
    f: Findings,
    report: CheckReport,
    /// Directory position of each node ID (#9).
    by_id: FxHashMap<NodeId, usize>,
    /// Primitives per category (#23).
    prim_count: FxHashMap<i32, i64>,
    /// Undefined categories: drawables using each, and the first (#18).
    missing_cats: BTreeMap<i32, (usize, String)>,
    /// Line IDs used by drawables and shadows (#25).
    lines_used: FxHashSet<i32>,
    /// Child ID -> number of stubs naming it; node -> stub child IDs (#13).
    referenced: FxHashMap<NodeId, usize>,
    edges: FxHashMap<NodeId, Vec<NodeId>>,
    /// Nodes that decoded (#12, #13).
    decoded: FxHashSet<NodeId>,
}

impl<'a> Checker<'a> {
    fn new(file: &'a Slog2File) -> Self {
        Checker {
            file,
            f: Findings::default(),
            report: CheckReport::default(),
            by_id: FxHashMap::default(),
            prim_count: FxHashMap::default(),
            missing_cats: BTreeMap::new(),
            lines_used: FxHashSet::default(),
            referenced: FxHashMap::default(),
            edges: FxHashMap::default(),
            decoded: FxHashSet::default(),
        }
    }

    fn finish(self) -> CheckReport {
        let mut report = self.report;
        let (errors, warnings) = self.f.finish();
        report.errors = errors;
        report.warnings = warnings;
        report
    }

    /// The parent of a node ID (`None` when it cannot exist).
    fn parent_of(&self, id: NodeId) -> Option<NodeId> {
        let n_children = self.file.header.num_children_per_node.max(1) as i64;
        let d = i16::try_from(id.depth as i32 + 1).ok()?;
        let x = i32::try_from((id.xpos as i64).div_euclid(n_children)).ok()?;
        Some(NodeId::new(d, x))
    }

    /// #3 (required blocks within max_buffer_bytesize), #4 (optional blocks null).
    fn header_pointers(&mut self) {
        let file = self.file;
        let h = &file.header;
        let max_buf = h.max_buffer_bytesize as i64;
        let required = [
            ("category map", h.categories),
            ("line-ID map list", h.lineidmaps),
            ("tree root", h.treeroot),
            ("tree directory", h.treedir),
        ];
        for (what, p) in required {
            if p.size as i64 > max_buf {
                self.f.e(
                    3,
                    format!(
                        "{what} block ({}) is larger than max_buffer_bytesize {}",
                        fmt_ptr(&p),
                        h.max_buffer_bytesize
                    ),
                );
            }
        }
        for (what, at, p) in [
            ("method definitions", 36, h.methoddefs),
            ("annotations", 84, h.annotations),
            ("postamble", 96, h.postamble),
        ] {
            if !p.is_null() {
                self.f.w(
                    4,
                    format!(
                        "header @ {at}: the {what} pointer is not null ({}); 2.0.6 never writes it",
                        fmt_ptr(&p)
                    ),
                );
            }
        }
    }

    /// #3 (blocks inside the file, clear of the header and of each other),
    /// #27 (max_buffer_bytesize is the largest block).
    fn block_layout(&mut self) {
        let file = self.file;
        let h = &file.header;
        // Every block: metadata + nodes (the root pointer is the root node's
        // block, listed once unless it differs).
        let mut blocks: Vec<(u64, u64, String)> = Vec::new();
        for (what, p) in [
            ("category map", h.categories),
            ("line-ID map list", h.lineidmaps),
            ("tree directory", h.treedir),
        ] {
            blocks.push((
                p.offset as u64,
                p.offset as u64 + p.size as u64,
                what.to_string(),
            ));
        }
        if !file.directory.iter().any(|e| e.ptr == h.treeroot) {
            let p = h.treeroot;
            blocks.push((
                p.offset as u64,
                p.offset as u64 + p.size as u64,
                "tree root".to_string(),
            ));
        }
        for e in &file.directory {
            blocks.push((
                e.ptr.offset as u64,
                e.ptr.offset as u64 + e.ptr.size as u64,
                format!("node {}", e.id),
            ));
        }
        let largest = blocks.iter().map(|b| b.1 - b.0).max().unwrap_or(0);
        if largest != h.max_buffer_bytesize.max(0) as u64 {
            self.f.w(
                27,
                format!(
                    "header @ 20: max_buffer_bytesize is {} but the largest block has {largest} bytes",
                    h.max_buffer_bytesize
                ),
            );
        }
        blocks.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
        for b in &blocks {
            if b.0 < HEADER_SIZE as u64 {
                self.f.e(
                    3,
                    format!("{} block @ {} overlaps the 108-byte header", b.2, b.0),
                );
            }
        }
        for pair in blocks.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            if b.0 < a.1 {
                self.f.e(
                    3,
                    format!(
                        "{} block [{}, {}) overlaps {} block [{}, {})",
                        a.2, a.0, a.1, b.2, b.0, b.1
                    ),
                );
            }
        }
    }

    /// #7: token letters, preview names, finite ratios.
    fn categories(&mut self) {
        let file = self.file;
        let h = &file.header;
        let cat_base = h.categories.offset as u64;
        for c in &file.categories {
            let at = format!(
                "category map @ {cat_base}: category {} ({:?})",
                c.index, c.name
            );
            for &t in &c.info.tokens {
                if !INFO_TOKENS.contains(&t) {
                    self.f.w(
                        7,
                        format!(
                            "{at}: info token letter {:?} is not one of {:?}",
                            t as char, "shlxXeEd"
                        ),
                    );
                }
            }
            let preview_name = match c.index {
                -1 => Some("Preview_Event"),
                -2 => Some("Preview_Arrow"),
                -3 => Some("Preview_State"),
                _ => None,
            };
            if let Some(n) = preview_name {
                if c.name != n {
                    self.f
                        .w(7, format!("{at}: preview category should be named {n:?}"));
                }
            }
            if !c.incl_ratio.is_finite() || !c.excl_ratio.is_finite() {
                self.f.w(
                    7,
                    format!(
                        "{at}: non-finite summary ratios incl={} excl={}",
                        c.incl_ratio, c.excl_ratio
                    ),
                );
            }
        }
    }

    /// #8: line-ID map rows strictly increasing.
    fn map_order(&mut self) {
        let file = self.file;
        let h = &file.header;
        let map_base = h.lineidmaps.offset as u64;
        for m in &file.ycoordmaps {
            for pair in m.rows.windows(2) {
                if pair[1].0 <= pair[0].0 {
                    self.f.w(
                        8,
                        format!(
                            "line-ID map list @ {map_base}: map {:?}: line ID {} follows {} (rows must increase)",
                            m.title, pair[1].0, pair[0].0
                        ),
                    );
                }
            }
        }
    }

    /// #9 (IDs unique and in range, root, contiguous xpos, parents), #10 (order).
    fn directory(&mut self) {
        let file = self.file;
        let h = &file.header;
        let max_buf = h.max_buffer_bytesize as i64;
        let dir_base = h.treedir.offset as u64 + 4;
        let dir_at = |i: usize| dir_base + (i * crate::format::DIR_ENTRY_SIZE) as u64;
        let mut per_depth: BTreeMap<i16, Vec<i32>> = BTreeMap::new();
        for (i, e) in file.directory.iter().enumerate() {
            if self.by_id.insert(e.id, i).is_some() {
                self.f.e(
                    9,
                    format!(
                        "tree directory @ {}: node {} is listed twice",
                        dir_at(i),
                        e.id
                    ),
                );
            }
            if e.id.depth < 0 || e.id.xpos < 0 {
                self.f.e(
                    9,
                    format!(
                        "tree directory @ {}: node {} has a negative depth or xpos",
                        dir_at(i),
                        e.id
                    ),
                );
            }
            if e.id.depth > h.max_treedepth {
                self.f.e(
                    9,
                    format!(
                        "tree directory @ {}: node {} is deeper than max_treedepth {}",
                        dir_at(i),
                        e.id,
                        h.max_treedepth
                    ),
                );
            }
            if e.ptr.size as i64 > max_buf {
                self.f.e(
                    9,
                    format!(
                        "tree directory @ {}: node {} block ({}) is larger than max_buffer_bytesize {}",
                        dir_at(i),
                        e.id,
                        fmt_ptr(&e.ptr),
                        h.max_buffer_bytesize
                    ),
                );
            }
            per_depth.entry(e.id.depth).or_default().push(e.id.xpos);
            if i > 0 {
                let p = file.directory[i - 1].id;
                let ordered = p.depth > e.id.depth || (p.depth == e.id.depth && p.xpos < e.id.xpos);
                if !ordered {
                    self.f.w(
                        10,
                        format!(
                            "tree directory @ {}: node {} follows {} (order is depth descending, xpos ascending)",
                            dir_at(i),
                            e.id,
                            p
                        ),
                    );
                }
            }
        }
        let root_id = NodeId::new(h.max_treedepth, 0);
        match self.by_id.get(&root_id) {
            None => self.f.e(
                9,
                format!(
                    "tree directory @ {dir_base}: the root {root_id} (max_treedepth) is missing"
                ),
            ),
            Some(&i) => {
                let e = &file.directory[i];
                if e.ptr != h.treeroot {
                    self.f.e(
                        9,
                        format!(
                            "header @ 60: tree root pointer ({}) differs from the directory entry of {root_id} ({})",
                            fmt_ptr(&h.treeroot),
                            fmt_ptr(&e.ptr)
                        ),
                    );
                }
            }
        }
        for (&depth, xs) in per_depth.iter_mut() {
            xs.sort_unstable();
            xs.dedup();
            let contiguous = xs.iter().enumerate().all(|(i, &x)| x as i64 == i as i64);
            if !contiguous {
                self.f.e(
                    9,
                    format!(
                        "tree directory @ {dir_base}: xpos values at depth {depth} are not 0..{} (found {} distinct, max {})",
                        xs.len(),
                        xs.len(),
                        xs.last().copied().unwrap_or(0)
                    ),
                );
            }
        }
        for (i, e) in file.directory.iter().enumerate() {
            if e.id == root_id || i == file.root {
                continue;
            }
            match self.parent_of(e.id) {
                Some(p) if self.by_id.contains_key(&p) => {}
                _ => self.f.e(
                    9,
                    format!(
                        "tree directory @ {}: the parent of node {} does not exist",
                        dir_at(i),
                        e.id
                    ),
                ),
            }
        }
    }

    /// One node: #11 (header == entry), #12 (decodes; the writer's drawable
    /// rules), #14–#17 (drawables), #26 (leaf size), #13, #16, #19, #20
    /// (stubs and shadows); collects what #13, #18, #23 and #25 need.
    fn node(&mut self, e: &DirEntry) {
        let file = self.file;
        let base = e.ptr.offset.max(0) as u64;
        let here = format!("node {} @ {base}", e.id);
        let node = match file.read_node(e, NodeParts::All) {
            Ok(n) => n,
            Err(err) => {
                self.f.e(12, format!("{here}: {err}"));
                return;
            }
        };
        self.report.nodes += 1;
        self.decoded.insert(e.id);

        // #11 node header == directory entry.
        if node.entry.id != e.id
            || !same_box(&node.entry.time_box, &e.time_box)
            || node.entry.ptr != e.ptr
        {
            self.f.e(
                11,
                format!(
                    "{here}: node header says {} {} ({}), the directory says {} {} ({})",
                    node.entry.id,
                    fmt_box(&node.entry.time_box),
                    fmt_ptr(&node.entry.ptr),
                    e.id,
                    fmt_box(&e.time_box),
                    fmt_ptr(&e.ptr)
                ),
            );
        }

        let pos = self.node_drawables(e, &node, &here);
        self.leaf_size(e, node.nestless.len() + node.nestable.len(), &here);
        self.node_stubs(e, &node, &here, pos);
    }

    /// A node's drawables: #12 (the writer's rules), #14, #15, #16, #17;
    /// collects #18, #23 and #25's data. Returns the byte offset after the
    /// two lists (where the stubs start).
    fn node_drawables(&mut self, e: &DirEntry, node: &crate::format::Node, here: &str) -> u64 {
        let file = self.file;
        let base = e.ptr.offset.max(0) as u64;
        // Drawables: #14, #15, #16, #17, #18, #23, #25 (lines).
        let mut pos = base + NODE_HEADER_SIZE as u64 + 4;
        let nodebox = e.time_box;
        for (list, nestable) in [(&node.nestless, false), (&node.nestable, true)] {
            let list_name = if nestable { "nestable" } else { "nestless" };
            let mut prev: Option<&Drawable> = None;
            for d in list.iter() {
                let at = pos;
                pos += 1 + d.byte_size() as u64;
                self.report.drawables += 1;
                let tb = d.time_box();
                if let Some(p) = prev {
                    if p.drawing_cmp(d) == std::cmp::Ordering::Greater {
                        self.f.w(
                            14,
                            format!("{here}: {list_name} drawable @ {at} is out of drawing order"),
                        );
                    }
                }
                prev = Some(d);
                // The writer's own rules (one validation: convert refuses
                // what check reports here).
                if let Some(problem) = crate::write::drawable_problem(d) {
                    self.f.e(12, format!("{here}: drawable @ {at}: {problem}"));
                }
                if !inside(&nodebox, &tb) {
                    self.f.w(
                        16,
                        format!(
                            "{here}: drawable @ {at} {} lies outside the node box {}",
                            fmt_box(&tb),
                            fmt_box(&nodebox)
                        ),
                    );
                }
                let cat = file.category(d.category());
                match d {
                    Drawable::Composite(_) => {
                        if !nestable {
                            self.f.w(
                                15,
                                format!("{here}: composite @ {at} is in the nestless list"),
                            );
                        }
                    }
                    Drawable::Primitive(p) => {
                        if let Some(c) = cat {
                            let is_state = c.topology == Topology::State;
                            if is_state != nestable {
                                self.f.w(
                                    15,
                                    format!(
                                        "{here}: {} primitive @ {at} (category {}) is in the {list_name} list",
                                        c.topology, p.category
                                    ),
                                );
                            }
                        }
                    }
                }
                // Info payloads: the drawable's own, then composite members'.
                let mut check_info =
                    |cat_idx: i32, info: &[u8], what: &str| match file.category(cat_idx) {
                        Some(c) => {
                            if let Some(p) = info_problem(&c.info.tokens, info) {
                                self.f.e(
                                    17,
                                    format!(
                                        "{here}: {what} @ {at} (category {cat_idx} {:?}): {p}",
                                        c.name
                                    ),
                                );
                            }
                        }
                        None => {
                            self.missing_cats
                                .entry(cat_idx)
                                .or_insert((0, format!("{what} @ {at} in {here}")))
                                .0 += 1;
                        }
                    };
                match d {
                    Drawable::Primitive(p) => check_info(p.category, &p.info, "primitive"),
                    Drawable::Composite(c) => {
                        check_info(c.category, &c.info, "composite");
                        for m in &c.members {
                            check_info(m.category, &m.info, "composite member");
                        }
                    }
                }
                for p in d.primitives() {
                    self.report.primitives += 1;
                    *self.prim_count.entry(p.category).or_insert(0) += 1;
                    for v in &p.vertices {
                        self.lines_used.insert(v.line);
                    }
                }
            }
            pos += 4; // the next list's count
        }

        pos
    }

    /// #26: a leaf no larger than treeleaf_bytesize + 1 unless it holds one drawable.
    fn leaf_size(&mut self, e: &DirEntry, n_draw: usize, here: &str) {
        let h = &self.file.header;
        // #26 leaf size.
        if e.id.depth == 0 && e.ptr.size as i64 > h.treeleaf_bytesize as i64 + 1 && n_draw > 1 {
            self.f.w(
                26,
                format!(
                    "{here}: leaf of {} bytes exceeds treeleaf_bytesize {} + 1",
                    e.ptr.size, h.treeleaf_bytesize
                ),
            );
        }
    }

    /// #13 (one stub per existing child, equal to its entry), #16 (child box
    /// inside the node's), then each stub's shadows. `pos`: the offset of
    /// the first stub.
    fn node_stubs(&mut self, e: &DirEntry, node: &crate::format::Node, here: &str, pos: u64) {
        let file = self.file;
        let nodebox = e.time_box;
        // #13 stubs: one per existing child, in xpos order, equal to the child's entry.
        let expected: Vec<&DirEntry> = if e.id.depth > 0 {
            file.children(e.id).collect()
        } else {
            Vec::new()
        };
        if e.id.depth == 0 && !node.stubs.is_empty() {
            self.f.e(
                13,
                format!("{here}: leaf has {} child stub(s)", node.stubs.len()),
            );
        }
        let got: Vec<NodeId> = node.stubs.iter().map(|s| s.entry.id).collect();
        let want: Vec<NodeId> = expected.iter().map(|c| c.id).collect();
        if e.id.depth > 0 && got != want {
            self.f.e(
                13,
                format!(
                    "{here}: stubs name children {} but the directory has {}",
                    ids(&got),
                    ids(&want)
                ),
            );
        }
        let mut stub_pos = pos; // position of the first stub (after its count)
        for stub in &node.stubs {
            let at = stub_pos;
            stub_pos += stub.byte_size() as u64;
            *self.referenced.entry(stub.entry.id).or_insert(0) += 1;
            self.edges.entry(e.id).or_default().push(stub.entry.id);
            let sid = stub.entry.id;
            match file.entry(sid) {
                None => self.f.e(
                    13,
                    format!("{here}: stub @ {at} names node {sid}, which is not in the directory"),
                ),
                Some(c) => {
                    if !same_box(&c.time_box, &stub.entry.time_box) || c.ptr != stub.entry.ptr {
                        self.f.e(
                            13,
                            format!(
                                "{here}: stub @ {at} for {sid} has {} ({}), the directory has {} ({})",
                                fmt_box(&stub.entry.time_box),
                                fmt_ptr(&stub.entry.ptr),
                                fmt_box(&c.time_box),
                                fmt_ptr(&c.ptr)
                            ),
                        );
                    }
                }
            }
            if !inside(&nodebox, &stub.entry.time_box) {
                self.f.w(
                    16,
                    format!(
                        "{here}: child {sid} box {} is not inside the node box {}",
                        fmt_box(&stub.entry.time_box),
                        fmt_box(&nodebox)
                    ),
                );
            }
            self.shadows(stub, here);
        }
    }

    /// A stub's shadows: #19 (weight categories exist), #20 (preview
    /// category, list, weight order, box, vertices), #14 (drawing order).
    fn shadows(&mut self, stub: &crate::format::Stub, here: &str) {
        let file = self.file;
        let sid = stub.entry.id;
        for (list, nestable) in [(&stub.nestless, false), (&stub.nestable, true)] {
            let mut prev: Option<&Shadow> = None;
            for s in list.iter() {
                self.report.shadows += 1;
                let sat = format!("{here}: shadow of child {sid}");
                if let Some(p) = prev {
                    if p.drawing_cmp(s) == std::cmp::Ordering::Greater {
                        self.f.w(14, format!("{sat} is out of drawing order"));
                    }
                }
                prev = Some(s);
                for v in &s.vertices {
                    self.lines_used.insert(v.line);
                }
                let topo = s.topology();
                match topo {
                    None => self.f.w(
                        20,
                        format!("{sat}: category {} is not a preview category", s.category),
                    ),
                    Some(t) => {
                        if (t == Topology::State) != nestable {
                            self.f
                                .w(20, format!("{sat}: {t} shadow is in the wrong list"));
                        }
                        if file.category(s.category).is_none() {
                            self.f.w(
                                20,
                                format!(
                                    "{sat}: preview category {} is not in the category map",
                                    s.category
                                ),
                            );
                        }
                    }
                }
                for w in &s.weights {
                    match file.category(w.category) {
                        None => self.f.e(
                            19,
                            format!("{sat}: weight category {} does not exist", w.category),
                        ),
                        Some(c) => {
                            if let Some(t) = topo {
                                if c.topology != t {
                                    self.f.w(
                                        20,
                                        format!(
                                            "{sat}: {t} shadow has a weight of {} category {}",
                                            c.topology, w.category
                                        ),
                                    );
                                }
                            }
                        }
                    }
                }
                if s.weights.windows(2).any(|p| p[1].incl < p[0].incl) {
                    self.f.w(
                        20,
                        format!("{sat}: weights are not sorted by inclusive ratio"),
                    );
                }
                if !inside(&stub.entry.time_box, &s.time_box) {
                    self.f.w(
                        20,
                        format!(
                            "{sat}: box {} is not inside the stub box {}",
                            fmt_box(&s.time_box),
                            fmt_box(&stub.entry.time_box)
                        ),
                    );
                }
                if s.vertices
                    .iter()
                    .any(|v| !(s.time_box.start <= v.time && v.time <= s.time_box.end))
                {
                    self.f.w(
                        20,
                        format!(
                            "{sat}: a vertex lies outside the shadow box {}",
                            fmt_box(&s.time_box)
                        ),
                    );
                }
            }
        }
    }

    /// #13: every node reached from the root exactly once.
    fn reachability(&mut self) {
        let file = self.file;
        let root = file.root().id;
        for (id, &n) in &self.referenced {
            if n > 1 {
                self.f.e(13, format!("node {id} is named by {n} stubs"));
            }
        }
        if self.referenced.contains_key(&root) {
            self.f.e(13, format!("the root {root} is named by a stub"));
        }
        let mut reached: FxHashSet<NodeId> = FxHashSet::default();
        let mut stack = vec![root];
        while let Some(id) = stack.pop() {
            if !reached.insert(id) {
                continue;
            }
            if let Some(children) = self.edges.get(&id) {
                stack.extend(
                    children
                        .iter()
                        .copied()
                        .filter(|c| file.entry(*c).is_some()),
                );
            }
        }
        for e in &file.directory {
            if reached.contains(&e.id) {
                continue;
            }
            // Only blame the tree when the parent self.decoded (else #12 already fired).
            let parent_ok = self
                .parent_of(e.id)
                .is_some_and(|p| self.decoded.contains(&p));
            if parent_ok || !self.decoded.contains(&e.id) {
                self.f.e(
                    13,
                    format!(
                        "node {} @ {} is not reachable from the root {root}",
                        e.id, e.ptr.offset
                    ),
                );
            }
        }
    }

    /// #18: undefined categories (one message per index).
    fn undefined_categories(&mut self) {
        for (idx, (n, first)) in &self.missing_cats {
            self.f.w(
                18,
                format!("category {idx} is used by {n} drawable(s) but not defined (first: {first}); shown as UnknownType-{idx}"),
            );
        }
    }

    /// #23: stored category counts against the primitives found.
    fn category_counts(&mut self) {
        let file = self.file;
        let cat_base = file.header.categories.offset as u64;
        for c in &file.categories {
            let n = self.prim_count.get(&c.index).copied().unwrap_or(0);
            if c.count != n {
                self.f.w(
                    23,
                    format!(
                        "category map @ {cat_base}: category {} ({:?}) says count {} but the file has {n} primitive(s)",
                        c.index, c.name, c.count
                    ),
                );
            }
        }
    }

    /// #25: the Identity Map last, k -> k; every map covers every line ID used.
    fn line_maps(&mut self) {
        let file = self.file;
        let map_base = file.header.lineidmaps.offset as u64;
        // map must list every line ID too (the viewer maps lines through it).
        match file.ycoordmaps.last() {
            Some(m) if m.title == "Identity Map" => {
                if m.column_labels != ["LineID"] {
                    self.f.w(
                        25,
                        format!(
                            "line-ID map list @ {map_base}: Identity Map labels are {:?}",
                            m.column_labels
                        ),
                    );
                }
                if m.rows.iter().any(|(k, v)| v.as_slice() != [*k]) {
                    self.f.w(
                        25,
                        format!(
                            "line-ID map list @ {map_base}: Identity Map has a row that is not k -> k"
                        ),
                    );
                }
            }
            _ => self.f.w(
                25,
                format!("line-ID map list @ {map_base}: the last map is not the Identity Map"),
            ),
        }
        let mut used: Vec<i32> = self.lines_used.iter().copied().collect();
        used.sort_unstable();
        for m in &file.ycoordmaps {
            let have: FxHashSet<i32> = m.rows.iter().map(|r| r.0).collect();
            let missing: Vec<i32> = used.iter().copied().filter(|l| !have.contains(l)).collect();
            if !missing.is_empty() {
                let shown: Vec<String> = missing.iter().take(10).map(|l| l.to_string()).collect();
                self.f.w(
                    25,
                    format!(
                        "line-ID map list @ {map_base}: map {:?} lacks {} line ID(s) used by drawables: {}{}",
                        m.title,
                        missing.len(),
                        shown.join(", "),
                        if missing.len() > 10 { ", …" } else { "" }
                    ),
                );
            }
        }
    }
}

fn ids(v: &[NodeId]) -> String {
    if v.is_empty() {
        return "none".into();
    }
    v.iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
