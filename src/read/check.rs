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
    let mut f = Findings::default();
    let mut report = CheckReport::default();
    let h = &file.header;
    let max_buf = h.max_buffer_bytesize as i64;

    // --- Header and metadata blocks (#3, #4, #27) ---------------------------
    let required = [
        ("category map", h.categories),
        ("line-ID map list", h.lineidmaps),
        ("tree root", h.treeroot),
        ("tree directory", h.treedir),
    ];
    for (what, p) in required {
        if p.size as i64 > max_buf {
            f.e(
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
            f.w(
                4,
                format!(
                    "header @ {at}: the {what} pointer is not null ({}); 2.0.6 never writes it",
                    fmt_ptr(&p)
                ),
            );
        }
    }

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
        f.w(
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
            f.e(
                3,
                format!("{} block @ {} overlaps the 108-byte header", b.2, b.0),
            );
        }
    }
    for pair in blocks.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        if b.0 < a.1 {
            f.e(
                3,
                format!(
                    "{} block [{}, {}) overlaps {} block [{}, {})",
                    a.2, a.0, a.1, b.2, b.0, b.1
                ),
            );
        }
    }

    // --- Categories (#7) and maps (#8) --------------------------------------
    let cat_base = h.categories.offset as u64;
    for c in &file.categories {
        let at = format!(
            "category map @ {cat_base}: category {} ({:?})",
            c.index, c.name
        );
        for &t in &c.info.tokens {
            if !INFO_TOKENS.contains(&t) {
                f.w(
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
                f.w(7, format!("{at}: preview category should be named {n:?}"));
            }
        }
        if !c.incl_ratio.is_finite() || !c.excl_ratio.is_finite() {
            f.w(
                7,
                format!(
                    "{at}: non-finite summary ratios incl={} excl={}",
                    c.incl_ratio, c.excl_ratio
                ),
            );
        }
    }
    let map_base = h.lineidmaps.offset as u64;
    for m in &file.ycoordmaps {
        for pair in m.rows.windows(2) {
            if pair[1].0 <= pair[0].0 {
                f.w(
                    8,
                    format!(
                        "line-ID map list @ {map_base}: map {:?}: line ID {} follows {} (rows must increase)",
                        m.title, pair[1].0, pair[0].0
                    ),
                );
            }
        }
    }

    // --- Directory (#9, #10) -------------------------------------------------
    let n_children = h.num_children_per_node.max(1) as i64;
    let dir_base = h.treedir.offset as u64 + 4;
    let dir_at = |i: usize| dir_base + (i * crate::format::DIR_ENTRY_SIZE) as u64;
    let mut by_id: FxHashMap<NodeId, usize> = FxHashMap::default();
    let mut per_depth: BTreeMap<i16, Vec<i32>> = BTreeMap::new();
    for (i, e) in file.directory.iter().enumerate() {
        if by_id.insert(e.id, i).is_some() {
            f.e(
                9,
                format!(
                    "tree directory @ {}: node {} is listed twice",
                    dir_at(i),
                    e.id
                ),
            );
        }
        if e.id.depth < 0 || e.id.xpos < 0 {
            f.e(
                9,
                format!(
                    "tree directory @ {}: node {} has a negative depth or xpos",
                    dir_at(i),
                    e.id
                ),
            );
        }
        if e.id.depth > h.max_treedepth {
            f.e(
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
            f.e(
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
                f.w(
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
    match by_id.get(&root_id) {
        None => f.e(
            9,
            format!("tree directory @ {dir_base}: the root {root_id} (max_treedepth) is missing"),
        ),
        Some(&i) => {
            let e = &file.directory[i];
            if e.ptr != h.treeroot {
                f.e(
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
            f.e(
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
    let parent_of = |id: NodeId| -> Option<NodeId> {
        let d = i16::try_from(id.depth as i32 + 1).ok()?;
        let x = i32::try_from((id.xpos as i64).div_euclid(n_children)).ok()?;
        Some(NodeId::new(d, x))
    };
    for (i, e) in file.directory.iter().enumerate() {
        if e.id == root_id || i == file.root {
            continue;
        }
        match parent_of(e.id) {
            Some(p) if by_id.contains_key(&p) => {}
            _ => f.e(
                9,
                format!(
                    "tree directory @ {}: the parent of node {} does not exist",
                    dir_at(i),
                    e.id
                ),
            ),
        }
    }

    // --- Nodes ----------------------------------------------------------------
    let mut prim_count: FxHashMap<i32, i64> = FxHashMap::default();
    let mut missing_cats: BTreeMap<i32, (usize, String)> = BTreeMap::new();
    let mut lines_used: FxHashSet<i32> = FxHashSet::default();
    // child ID -> number of stubs naming it; node -> stub child IDs.
    let mut referenced: FxHashMap<NodeId, usize> = FxHashMap::default();
    let mut edges: FxHashMap<NodeId, Vec<NodeId>> = FxHashMap::default();
    let mut decoded: FxHashSet<NodeId> = FxHashSet::default();

    for e in &file.directory {
        let base = e.ptr.offset.max(0) as u64;
        let here = format!("node {} @ {base}", e.id);
        let node = match file.read_node(e, NodeParts::All) {
            Ok(n) => n,
            Err(err) => {
                f.e(12, format!("{here}: {err}"));
                continue;
            }
        };
        report.nodes += 1;
        decoded.insert(e.id);

        // #11 node header == directory entry.
        if node.entry.id != e.id
            || !same_box(&node.entry.time_box, &e.time_box)
            || node.entry.ptr != e.ptr
        {
            f.e(
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

        // Drawables: #14, #15, #16, #17, #18, #23, #25 (lines).
        let mut pos = base + NODE_HEADER_SIZE as u64 + 4;
        let nodebox = e.time_box;
        let n_draw = node.nestless.len() + node.nestable.len();
        for (list, nestable) in [(&node.nestless, false), (&node.nestable, true)] {
            let list_name = if nestable { "nestable" } else { "nestless" };
            let mut prev: Option<&Drawable> = None;
            for d in list.iter() {
                let at = pos;
                pos += 1 + d.byte_size() as u64;
                report.drawables += 1;
                let tb = d.time_box();
                if let Some(p) = prev {
                    if p.drawing_cmp(d) == std::cmp::Ordering::Greater {
                        f.w(
                            14,
                            format!("{here}: {list_name} drawable @ {at} is out of drawing order"),
                        );
                    }
                }
                prev = Some(d);
                // The writer's own rules (one validation: convert refuses
                // what check reports here).
                if let Some(problem) = crate::write::drawable_problem(d) {
                    f.e(12, format!("{here}: drawable @ {at}: {problem}"));
                }
                if !inside(&nodebox, &tb) {
                    f.w(
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
                            f.w(
                                15,
                                format!("{here}: composite @ {at} is in the nestless list"),
                            );
                        }
                    }
                    Drawable::Primitive(p) => {
                        if let Some(c) = cat {
                            let is_state = c.topology == Topology::State;
                            if is_state != nestable {
                                f.w(
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
                                f.e(
                                    17,
                                    format!(
                                        "{here}: {what} @ {at} (category {cat_idx} {:?}): {p}",
                                        c.name
                                    ),
                                );
                            }
                        }
                        None => {
                            missing_cats
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
                    report.primitives += 1;
                    *prim_count.entry(p.category).or_insert(0) += 1;
                    for v in &p.vertices {
                        lines_used.insert(v.line);
                    }
                }
            }
            pos += 4; // the next list's count
        }

        // #26 leaf size.
        if e.id.depth == 0 && e.ptr.size as i64 > h.treeleaf_bytesize as i64 + 1 && n_draw > 1 {
            f.w(
                26,
                format!(
                    "{here}: leaf of {} bytes exceeds treeleaf_bytesize {} + 1",
                    e.ptr.size, h.treeleaf_bytesize
                ),
            );
        }

        // #13 stubs: one per existing child, in xpos order, equal to the child's entry.
        let expected: Vec<&DirEntry> = if e.id.depth > 0 {
            file.children(e.id).collect()
        } else {
            Vec::new()
        };
        if e.id.depth == 0 && !node.stubs.is_empty() {
            f.e(
                13,
                format!("{here}: leaf has {} child stub(s)", node.stubs.len()),
            );
        }
        let got: Vec<NodeId> = node.stubs.iter().map(|s| s.entry.id).collect();
        let want: Vec<NodeId> = expected.iter().map(|c| c.id).collect();
        if e.id.depth > 0 && got != want {
            f.e(
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
            *referenced.entry(stub.entry.id).or_insert(0) += 1;
            edges.entry(e.id).or_default().push(stub.entry.id);
            let sid = stub.entry.id;
            match file.entry(sid) {
                None => f.e(
                    13,
                    format!("{here}: stub @ {at} names node {sid}, which is not in the directory"),
                ),
                Some(c) => {
                    if !same_box(&c.time_box, &stub.entry.time_box) || c.ptr != stub.entry.ptr {
                        f.e(
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
                f.w(
                    16,
                    format!(
                        "{here}: child {sid} box {} is not inside the node box {}",
                        fmt_box(&stub.entry.time_box),
                        fmt_box(&nodebox)
                    ),
                );
            }
            // Shadows: #19 (weights' categories), #20, #14.
            for (list, nestable) in [(&stub.nestless, false), (&stub.nestable, true)] {
                let mut prev: Option<&Shadow> = None;
                for s in list.iter() {
                    report.shadows += 1;
                    let sat = format!("{here}: shadow of child {sid}");
                    if let Some(p) = prev {
                        if p.drawing_cmp(s) == std::cmp::Ordering::Greater {
                            f.w(14, format!("{sat} is out of drawing order"));
                        }
                    }
                    prev = Some(s);
                    for v in &s.vertices {
                        lines_used.insert(v.line);
                    }
                    let topo = s.topology();
                    match topo {
                        None => f.w(
                            20,
                            format!("{sat}: category {} is not a preview category", s.category),
                        ),
                        Some(t) => {
                            if (t == Topology::State) != nestable {
                                f.w(20, format!("{sat}: {t} shadow is in the wrong list"));
                            }
                            if file.category(s.category).is_none() {
                                f.w(
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
                            None => f.e(
                                19,
                                format!("{sat}: weight category {} does not exist", w.category),
                            ),
                            Some(c) => {
                                if let Some(t) = topo {
                                    if c.topology != t {
                                        f.w(
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
                        f.w(
                            20,
                            format!("{sat}: weights are not sorted by inclusive ratio"),
                        );
                    }
                    if !inside(&stub.entry.time_box, &s.time_box) {
                        f.w(
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
                        f.w(
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
    }

    // #13 reachability: every node reached from the root exactly once.
    let root = file.root().id;
    for (id, &n) in &referenced {
        if n > 1 {
            f.e(13, format!("node {id} is named by {n} stubs"));
        }
    }
    if referenced.contains_key(&root) {
        f.e(13, format!("the root {root} is named by a stub"));
    }
    let mut reached: FxHashSet<NodeId> = FxHashSet::default();
    let mut stack = vec![root];
    while let Some(id) = stack.pop() {
        if !reached.insert(id) {
            continue;
        }
        if let Some(children) = edges.get(&id) {
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
        // Only blame the tree when the parent decoded (else #12 already fired).
        let parent_ok = parent_of(e.id).is_some_and(|p| decoded.contains(&p));
        if parent_ok || !decoded.contains(&e.id) {
            f.e(
                13,
                format!(
                    "node {} @ {} is not reachable from the root {root}",
                    e.id, e.ptr.offset
                ),
            );
        }
    }

    // #18 undefined categories (one message per index).
    for (idx, (n, first)) in &missing_cats {
        f.w(
            18,
            format!("category {idx} is used by {n} drawable(s) but not defined (first: {first}); shown as UnknownType-{idx}"),
        );
    }

    // #23 category counts.
    for c in &file.categories {
        let n = prim_count.get(&c.index).copied().unwrap_or(0);
        if c.count != n {
            f.w(
                23,
                format!(
                    "category map @ {cat_base}: category {} ({:?}) says count {} but the file has {n} primitive(s)",
                    c.index, c.name, c.count
                ),
            );
        }
    }

    // #25 Identity Map last, k -> k, covering every line ID used; every other
    // map must list every line ID too (the viewer maps lines through it).
    match file.ycoordmaps.last() {
        Some(m) if m.title == "Identity Map" => {
            if m.column_labels != ["LineID"] {
                f.w(
                    25,
                    format!(
                        "line-ID map list @ {map_base}: Identity Map labels are {:?}",
                        m.column_labels
                    ),
                );
            }
            if m.rows.iter().any(|(k, v)| v.as_slice() != [*k]) {
                f.w(
                    25,
                    format!(
                        "line-ID map list @ {map_base}: Identity Map has a row that is not k -> k"
                    ),
                );
            }
        }
        _ => f.w(
            25,
            format!("line-ID map list @ {map_base}: the last map is not the Identity Map"),
        ),
    }
    let mut used: Vec<i32> = lines_used.into_iter().collect();
    used.sort_unstable();
    for m in &file.ycoordmaps {
        let have: FxHashSet<i32> = m.rows.iter().map(|r| r.0).collect();
        let missing: Vec<i32> = used.iter().copied().filter(|l| !have.contains(l)).collect();
        if !missing.is_empty() {
            let shown: Vec<String> = missing.iter().take(10).map(|l| l.to_string()).collect();
            f.w(
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

    let (errors, warnings) = f.finish();
    report.errors = errors;
    report.warnings = warnings;
    report
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
