//! Query results as columns: the one shape every binding hands to a viewer.
//!
//! # Why columns
//!
//! A viewer draws thousands of drawables per frame. Handing them over one
//! object each (a `Drawable` per row through JNI, a Python object per row,
//! a C struct with owned vertex arrays) costs more than the query itself, so
//! the C ABI, the JNI natives, the Python package and the CLI all read the
//! same [`Rows`]: one vector per column, filled once by the core, copied in
//! bulk by each skin. The rules a viewer needs live here, once:
//!
//! * **Direction.** `time0`/`line0` are the *first* vertex and
//!   `time1`/`line1` the *last*, not the box corners, so an arrow whose
//!   receive end lies on a lower line (or earlier in time, with clock skew)
//!   is drawn from sender to receiver. The box (`start`/`end`) is there for
//!   culling and sorting.
//! * **Composites.** A composite row is followed at once by its members, as
//!   primitive rows whose `parent` is the composite's row; every other row
//!   has `parent == -1`. So a viewer can draw members as primitives and still
//!   group them (the composite's own info is its popup).
//! * **Shadows.** Preview shadows come after the real drawables, with their
//!   per-category weights in [`ShadowWeights`], grouped by shadow row.
//!
//! Primitives with more than two vertices (allowed by the format, never
//! written by the reference's converters) expose their first and last
//! vertex only; [`Slog2File::window`] returns the whole drawable.

use crate::error::Result;
use crate::model::{Drawable, DrawingKey, Primitive, Shadow, TimeBox, Weight};

use super::{format_info, Preview, QueryStats, Slog2File, Window};

/// Row kind: a primitive (state, arrow, event), top level or composite member.
pub const ROW_PRIMITIVE: u8 = 0;
/// Row kind: a composite; its members follow it as [`ROW_PRIMITIVE`] rows.
pub const ROW_COMPOSITE: u8 = 1;
/// Row kind: a preview shadow (category -1 state, -2 arrow, -3 event).
pub const ROW_SHADOW: u8 = 2;

/// Per-category weights of the shadow rows of a preview, one entry per
/// (shadow, category), grouped by `row` ascending.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ShadowWeights {
    /// Row index of the shadow in [`Rows`].
    pub row: Vec<i32>,
    pub category: Vec<i32>,
    pub incl: Vec<f32>,
    pub excl: Vec<f32>,
    pub count: Vec<i64>,
}

impl ShadowWeights {
    pub fn len(&self) -> usize {
        self.row.len()
    }

    pub fn is_empty(&self) -> bool {
        self.row.is_empty()
    }
}

/// The result of a window or preview query as columns, one entry per row, in
/// drawing order (drawables first, then the shadows of a preview). See the
/// module docs for the meaning of each column.
#[derive(Debug, Clone, PartialEq)]
pub struct Rows {
    pub kind: Vec<u8>,
    pub category: Vec<i32>,
    /// Time box.
    pub start: Vec<f64>,
    pub end: Vec<f64>,
    /// Time of the first and of the last vertex (shadows: box start, end).
    pub time0: Vec<f64>,
    pub time1: Vec<f64>,
    /// Line ID of the first and of the last vertex.
    pub line0: Vec<i32>,
    pub line1: Vec<i32>,
    /// Row of the composite a member belongs to, else -1.
    pub parent: Vec<i32>,
    /// 1 for a primitive, the member count of a composite, the primitives a
    /// shadow summarises.
    pub num_real: Vec<i64>,
    /// `len() + 1` entries: row `i`'s info bytes are
    /// `info[info_offset[i]..info_offset[i + 1]]`.
    pub info_offset: Vec<u32>,
    pub info: Vec<u8>,
    pub weights: ShadowWeights,
    pub stats: QueryStats,
}

impl Default for Rows {
    fn default() -> Self {
        Rows {
            kind: Vec::new(),
            category: Vec::new(),
            start: Vec::new(),
            end: Vec::new(),
            time0: Vec::new(),
            time1: Vec::new(),
            line0: Vec::new(),
            line1: Vec::new(),
            parent: Vec::new(),
            num_real: Vec::new(),
            info_offset: vec![0],
            info: Vec::new(),
            weights: ShadowWeights::default(),
            stats: QueryStats::default(),
        }
    }
}

/// Borrowed columns of rows, as [`Rows`] (same meaning; `parent` and
/// `info_offset` count from the first row and first info byte of these
/// slices): what a [`WindowCursor`](super::WindowCursor) lends out, and what
/// the skins copy from.
#[derive(Debug, Clone, Copy)]
pub struct RowsRef<'a> {
    pub kind: &'a [u8],
    pub category: &'a [i32],
    pub start: &'a [f64],
    pub end: &'a [f64],
    pub time0: &'a [f64],
    pub time1: &'a [f64],
    pub line0: &'a [i32],
    pub line1: &'a [i32],
    pub parent: &'a [i32],
    pub num_real: &'a [i64],
    /// `len() + 1` entries.
    pub info_offset: &'a [u32],
    pub info: &'a [u8],
    pub stats: QueryStats,
}

impl<'a> RowsRef<'a> {
    pub fn len(&self) -> usize {
        self.kind.len()
    }

    pub fn is_empty(&self) -> bool {
        self.kind.is_empty()
    }

    /// The info bytes of a row (empty for rows without info).
    pub fn info_of(&self, row: usize) -> &'a [u8] {
        info_span(self.info_offset, self.info, row)
    }
}

/// Row `row`'s info bytes (empty if out of range).
fn info_span<'a>(offsets: &[u32], info: &'a [u8], row: usize) -> &'a [u8] {
    match (offsets.get(row), offsets.get(row + 1)) {
        (Some(&a), Some(&b)) => info.get(a as usize..b as usize).unwrap_or(&[]),
        _ => &[],
    }
}

impl Rows {
    pub fn len(&self) -> usize {
        self.kind.len()
    }

    pub fn is_empty(&self) -> bool {
        self.kind.is_empty()
    }

    /// All rows, borrowed (shadow weights aside).
    pub fn view(&self) -> RowsRef<'_> {
        self.view_from(0, 0)
    }

    /// Rows `head..` borrowed, their info bytes from `info_head` on (a
    /// cursor's live rows, whose `parent` and `info_offset` values already
    /// count from there).
    pub(super) fn view_from(&self, head: usize, info_head: usize) -> RowsRef<'_> {
        RowsRef {
            kind: &self.kind[head..],
            category: &self.category[head..],
            start: &self.start[head..],
            end: &self.end[head..],
            time0: &self.time0[head..],
            time1: &self.time1[head..],
            line0: &self.line0[head..],
            line1: &self.line1[head..],
            parent: &self.parent[head..],
            num_real: &self.num_real[head..],
            info_offset: &self.info_offset[head..],
            info: &self.info[info_head..],
            stats: self.stats,
        }
    }

    /// The info bytes of a row (empty for shadows and rows without info).
    pub fn info_of(&self, row: usize) -> &[u8] {
        info_span(&self.info_offset, &self.info, row)
    }

    /// Rows of drawables (composites expanded into their members) followed by
    /// shadows.
    pub fn from_parts(drawables: &[Drawable], shadows: &[Shadow], stats: QueryStats) -> Rows {
        let n = drawables
            .iter()
            .map(|d| 1 + composite_len(d))
            .sum::<usize>()
            + shadows.len();
        let mut r = Rows::with_capacity(n);
        for d in drawables {
            r.push_drawable(d);
        }
        for s in shadows {
            r.push_shadow(s);
        }
        r.stats = stats;
        r
    }

    pub(super) fn with_capacity(n: usize) -> Rows {
        let mut info_offset = Vec::with_capacity(n + 1);
        info_offset.push(0);
        Rows {
            kind: Vec::with_capacity(n),
            category: Vec::with_capacity(n),
            start: Vec::with_capacity(n),
            end: Vec::with_capacity(n),
            time0: Vec::with_capacity(n),
            time1: Vec::with_capacity(n),
            line0: Vec::with_capacity(n),
            line1: Vec::with_capacity(n),
            parent: Vec::with_capacity(n),
            num_real: Vec::with_capacity(n),
            info_offset,
            ..Rows::default()
        }
    }

    /// Keep the first `n` rows (and their info bytes). Shadow weights are
    /// not touched (scans and windows have none).
    pub fn truncate(&mut self, n: usize) {
        if n >= self.len() {
            return;
        }
        self.kind.truncate(n);
        self.category.truncate(n);
        self.start.truncate(n);
        self.end.truncate(n);
        self.time0.truncate(n);
        self.time1.truncate(n);
        self.line0.truncate(n);
        self.line1.truncate(n);
        self.parent.truncate(n);
        self.num_real.truncate(n);
        let info_end = self.info_offset.get(n).copied().unwrap_or(0) as usize;
        self.info_offset.truncate(n + 1);
        if self.info_offset.is_empty() {
            self.info_offset.push(0);
        }
        self.info.truncate(info_end);
    }

    /// Append the rows of `other` (parent rows, info offsets and weight
    /// rows renumbered; stats added).
    pub fn append(&mut self, other: &Rows) {
        let base = self.len() as i32;
        let ib = self.info.len() as u32;
        self.kind.extend_from_slice(&other.kind);
        self.category.extend_from_slice(&other.category);
        self.start.extend_from_slice(&other.start);
        self.end.extend_from_slice(&other.end);
        self.time0.extend_from_slice(&other.time0);
        self.time1.extend_from_slice(&other.time1);
        self.line0.extend_from_slice(&other.line0);
        self.line1.extend_from_slice(&other.line1);
        self.parent.extend(
            other
                .parent
                .iter()
                .map(|&p| if p >= 0 { p + base } else { p }),
        );
        self.num_real.extend_from_slice(&other.num_real);
        self.info_offset
            .extend(other.info_offset.iter().skip(1).map(|&o| o + ib));
        self.info.extend_from_slice(&other.info);
        let w = &other.weights;
        self.weights.row.extend(w.row.iter().map(|&r| r + base));
        self.weights.category.extend_from_slice(&w.category);
        self.weights.incl.extend_from_slice(&w.incl);
        self.weights.excl.extend_from_slice(&w.excl);
        self.weights.count.extend_from_slice(&w.count);
        self.stats.nodes_read += other.stats.nodes_read;
        self.stats.bytes_read += other.stats.bytes_read;
        self.stats.bytes_indexed += other.stats.bytes_indexed;
        self.stats.cache_hits += other.stats.cache_hits;
    }

    /// Make room for `n` more rows in every column (not in `info`).
    pub(super) fn reserve(&mut self, n: usize) {
        self.kind.reserve(n);
        self.category.reserve(n);
        self.start.reserve(n);
        self.end.reserve(n);
        self.time0.reserve(n);
        self.time1.reserve(n);
        self.line0.reserve(n);
        self.line1.reserve(n);
        self.parent.reserve(n);
        self.num_real.reserve(n);
        self.info_offset.reserve(n);
    }

    /// Bytes of info held.
    pub fn info_len(&self) -> usize {
        self.info.len()
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn push_row(
        &mut self,
        kind: u8,
        category: i32,
        (start, end): (f64, f64),
        (time0, line0): (f64, i32),
        (time1, line1): (f64, i32),
        parent: i32,
        num_real: i64,
        info: &[u8],
    ) {
        self.kind.push(kind);
        self.category.push(category);
        self.start.push(start);
        self.end.push(end);
        self.time0.push(time0);
        self.time1.push(time1);
        self.line0.push(line0);
        self.line1.push(line1);
        self.parent.push(parent);
        self.num_real.push(num_real);
        if !info.is_empty() {
            self.info.extend_from_slice(info);
        }
        // Info of one query is bounded by the file's bytes (< 4 GiB of info
        // per window is checked by the callers that need 32-bit offsets).
        self.info_offset.push(self.info.len() as u32);
    }

    /// One primitive's row from its decoded parts (the record sinks' shared
    /// row: box, first and last vertex, parent row or -1).
    #[inline(always)]
    pub(super) fn push_primitive_row(
        &mut self,
        category: i32,
        info: &[u8],
        tbox: crate::model::TimeBox,
        (first, last): (crate::model::Vertex, crate::model::Vertex),
        parent: i32,
    ) {
        self.push_row(
            ROW_PRIMITIVE,
            category,
            (tbox.start, tbox.end),
            (first.time, first.line),
            (last.time, last.line),
            parent,
            1,
            info,
        );
    }

    fn push_primitive(&mut self, p: &Primitive, parent: i32) {
        let b = p.time_box();
        let first = p
            .vertices
            .first()
            .map_or((b.start, 0), |v| (v.time, v.line));
        let last = p.vertices.last().map_or((b.end, 0), |v| (v.time, v.line));
        self.push_row(
            ROW_PRIMITIVE,
            p.category,
            (b.start, b.end),
            first,
            last,
            parent,
            1,
            &p.info,
        );
    }

    pub(super) fn push_drawable(&mut self, d: &Drawable) {
        match d {
            Drawable::Primitive(p) => self.push_primitive(p, -1),
            Drawable::Composite(c) => {
                let b = c.time_box();
                let row = self.len() as i32;
                self.push_row(
                    ROW_COMPOSITE,
                    c.category,
                    (b.start, b.end),
                    (b.start, d.first_line()),
                    (b.end, d.last_line()),
                    -1,
                    c.members.len() as i64,
                    &c.info,
                );
                for m in &c.members {
                    self.push_primitive(m, row);
                }
            }
        }
    }

    fn push_shadow_ref(&mut self, s: &crate::format::ShadowRef) {
        let (l0, l1) = s.lines();
        self.push_shadow_parts(s.category, s.time_box, (l0, l1), s.num_real, s.weights());
    }

    pub(super) fn push_shadow(&mut self, s: &Shadow) {
        let l0 = s.vertices.first().map_or(0, |v| v.line);
        let l1 = s.vertices.last().map_or(0, |v| v.line);
        let ws = s.weights.iter().copied();
        self.push_shadow_parts(s.category, s.time_box, (l0, l1), s.num_real, ws);
    }

    /// One shadow row (first and last vertex's lines `l0`, `l1`) and its
    /// weight rows.
    fn push_shadow_parts(
        &mut self,
        category: i32,
        b: TimeBox,
        (l0, l1): (i32, i32),
        num_real: i64,
        weights: impl Iterator<Item = Weight>,
    ) {
        let row = self.len() as i32;
        self.push_row(
            ROW_SHADOW,
            category,
            (b.start, b.end),
            (b.start, l0),
            (b.end, l1),
            -1,
            num_real,
            &[],
        );
        for w in weights {
            self.weights.row.push(row);
            self.weights.category.push(w.category);
            self.weights.incl.push(w.incl);
            self.weights.excl.push(w.excl);
            self.weights.count.push(w.count);
        }
    }
}

/// Pushes the parts of one record straight into the columns.
struct RowSink<'a> {
    rows: &'a mut Rows,
    /// The record's key: a composite's box and first/last lines.
    key: &'a crate::format::RecordKey,
    parent: i32,
}

impl crate::format::RecordSink for RowSink<'_> {
    fn composite(&mut self, category: i32, info: &[u8], members: usize) {
        let k = self.key;
        self.parent = self.rows.len() as i32;
        self.rows.push_row(
            ROW_COMPOSITE,
            category,
            (k.start, k.end),
            (k.start, k.first_line),
            (k.end, k.last_line),
            -1,
            members as i64,
            info,
        );
    }

    #[inline(always)]
    fn primitive(&mut self, p: &crate::format::PrimRef<'_>, member: bool) {
        let parent = if member { self.parent } else { -1 };
        self.rows
            .push_primitive_row(p.category, p.info, p.tbox, (p.first(), p.last()), parent);
    }
}

/// Pushes records into the columns when no [`RecordKey`] was computed
/// first (the whole-file scan decodes each record once, straight from the
/// block): a composite's row gets its box and first/last lines from its
/// members once the last member is in — the values [`RecordKey`] holds
/// for a window (box = union of the members' boxes, first line of the first
/// member, last line of the last).
///
/// [`RecordKey`]: crate::format::RecordKey
pub(super) struct ScanSink<'a> {
    pub rows: &'a mut Rows,
    parent: i32,
    members_left: usize,
    /// The composite's key, made as a window's key is.
    key: crate::format::KeyOf,
}

impl<'a> ScanSink<'a> {
    pub fn new(rows: &'a mut Rows) -> Self {
        ScanSink {
            rows,
            parent: -1,
            members_left: 0,
            key: crate::format::KeyOf::default(),
        }
    }
}

impl crate::format::RecordSink for ScanSink<'_> {
    fn composite(&mut self, category: i32, info: &[u8], members: usize) {
        self.parent = self.rows.len() as i32;
        self.members_left = members;
        self.key.composite(category, info, members);
        // Box and lines are filled in by the last member (`primitive`).
        self.rows.push_row(
            ROW_COMPOSITE,
            category,
            (f64::NAN, f64::NAN),
            (f64::NAN, 0),
            (f64::NAN, 0),
            -1,
            members as i64,
            info,
        );
    }

    #[inline(always)]
    fn primitive(&mut self, p: &crate::format::PrimRef<'_>, member: bool) {
        let parent = if member { self.parent } else { -1 };
        self.rows
            .push_primitive_row(p.category, p.info, p.tbox, (p.first(), p.last()), parent);
        if !member || self.members_left == 0 {
            return;
        }
        self.key.primitive(p, true);
        self.members_left -= 1;
        if self.members_left == 0 {
            let k = self.key.key(0, 0);
            let r = &mut *self.rows;
            let i = self.parent as usize;
            r.start[i] = k.start;
            r.end[i] = k.end;
            r.time0[i] = k.start;
            r.time1[i] = k.end;
            r.line0[i] = k.first_line;
            r.line1[i] = k.last_line;
        }
    }
}

fn composite_len(d: &Drawable) -> usize {
    match d {
        Drawable::Composite(c) => c.members.len(),
        Drawable::Primitive(_) => 0,
    }
}

impl From<Window> for Rows {
    fn from(w: Window) -> Rows {
        Rows::from_parts(&w.drawables, &[], w.stats)
    }
}

impl From<Preview> for Rows {
    fn from(p: Preview) -> Rows {
        Rows::from_parts(&p.drawables, &p.shadows, p.stats)
    }
}

impl Slog2File {
    /// [`window`](Self::window) as columns: the same index, tables and
    /// cache; each intersecting record is decoded on the stack and pushed
    /// straight into the columns (no `Vec<Drawable>` in between).
    pub fn window_rows(&self, t0: f64, t1: f64) -> Result<Rows> {
        self.settle((|| {
            let (h, stats) = self.window_hits(t0, t1)?;
            let mut rows = Rows::with_capacity(h.len());
            for (slot, k) in &h.hits {
                let (pos, t) = &h.tables[*slot as usize];
                let mut d = self.hit_decoder(*pos, t, k)?;
                let mut sink = RowSink {
                    rows: &mut rows,
                    key: k,
                    parent: -1,
                };
                crate::format::visit_drawable(&mut d, &mut sink)?;
            }
            rows.stats = stats;
            Ok(rows)
        })())
    }

    /// [`preview`](Self::preview) as columns. Any `depth` is accepted: `<= 0`
    /// is full detail, above the root's depth reads just the root.
    ///
    /// The same rows as `Rows::from(self.preview(..))`, built without a
    /// [`Shadow`] per stub record: shadows are read in place, put in
    /// drawing order by their keys, and written straight into the columns
    /// (a zoomed-out view of a large file returns 10⁴–10⁵ shadows).
    pub fn preview_rows(&self, t0: f64, t1: f64, depth: i32) -> Result<Rows> {
        self.settle((|| {
            let depth = clamp_depth(depth);
            if depth <= 0 {
                return self.window_rows(t0, t1);
            }
            let w = Self::check_window(t0, t1)?;
            let mut stats = QueryStats::default();
            let walk = self.preview_walk(w, depth, &mut stats)?;
            let mut shadows: Vec<crate::format::ShadowRef> = Vec::new();
            self.preview_shadows(&walk, w, depth, &mut stats, |s| shadows.push(s))?;
            let h = &walk.hits;
            // The stable drawing order of `preview` (the shadows come in
            // sorted runs, one per stub list).
            let order = super::drawing_permutation(
                shadows.len(),
                |i| shadows[i].time_box.start,
                |i| {
                    let s = &shadows[i];
                    let (l0, l1) = s.lines();
                    DrawingKey::new(s.time_box, s.category, l0, l1)
                },
            );
            let weights: usize = shadows.iter().map(|s| s.weights().len()).sum();
            let mut rows = Rows::with_capacity(h.len() + order.len());
            for (slot, k) in &h.hits {
                let (pos, t) = &h.tables[*slot as usize];
                self.push_hit(&mut rows, *pos, t, k)?;
            }
            let ws = &mut rows.weights;
            ws.row.reserve(weights);
            ws.category.reserve(weights);
            ws.incl.reserve(weights);
            ws.excl.reserve(weights);
            ws.count.reserve(weights);
            for &(_, i) in &order {
                rows.push_shadow_ref(&shadows[i as usize]);
            }
            rows.stats = stats;
            Ok(rows)
        })())
    }

    /// The popup text of a category's info payload (the text `slog2 print`
    /// and the viewers show); see [`format_info`].
    pub fn info_text(&self, category: i32, info: &[u8]) -> String {
        format_info(self.category(category), info)
    }
}

/// A preview depth from any integer, without wrapping: depths beyond `i16`
/// mean "just the root" (positive) or "full detail" (negative).
pub fn clamp_depth(depth: i32) -> i16 {
    depth.clamp(i16::MIN as i32, i16::MAX as i32) as i16
}

// Streaming window rows (issue #9: `slog2 query` holds no whole window).

impl Rows {
    /// Empty every column (the capacity stays, for the next piece).
    pub fn clear(&mut self) {
        self.kind.clear();
        self.category.clear();
        self.start.clear();
        self.end.clear();
        self.time0.clear();
        self.time1.clear();
        self.line0.clear();
        self.line1.clear();
        self.parent.clear();
        self.num_real.clear();
        self.info_offset.clear();
        self.info_offset.push(0);
        self.info.clear();
        self.weights = ShadowWeights::default();
        self.stats = QueryStats::default();
    }

    /// What row `i` is, by name: `composite`, `shadow`, or a primitive's
    /// category topology (`state`, `arrow`, `event`; `state` when the
    /// category is unknown) — the `kind` of `slog2 query`'s output.
    pub fn kind_name(&self, f: &Slog2File, i: usize) -> &'static str {
        match self.kind.get(i) {
            Some(&ROW_COMPOSITE) => "composite",
            Some(&ROW_SHADOW) => "shadow",
            _ => match self
                .category
                .get(i)
                .and_then(|&c| f.category(c))
                .map(|c| c.topology)
            {
                Some(crate::model::Topology::Event) => "event",
                Some(crate::model::Topology::Arrow) => "arrow",
                _ => "state",
            },
        }
    }
}

impl Slog2File {
    /// The rows of [`window_rows`](Self::window_rows), handed to `f` in
    /// pieces of about `chunk` rows (a composite and its members always in
    /// the same piece; `parent` is relative to the piece), in the same
    /// order. Memory holds the window's record keys (40 bytes per drawable)
    /// and one piece, not the window's rows: for output that streams
    /// (`slog2 query`). Returns the query's stats.
    pub fn window_rows_each<E: From<crate::Error>>(
        &self,
        t0: f64,
        t1: f64,
        chunk: usize,
        mut f: impl FnMut(&Rows) -> std::result::Result<(), E>,
    ) -> std::result::Result<QueryStats, E> {
        let (h, stats) = self.settle(self.window_hits(t0, t1))?;
        let chunk = chunk.max(1);
        let mut rows = Rows::with_capacity(chunk.min(h.len()) + 1);
        for (slot, k) in &h.hits {
            let (pos, t) = &h.tables[*slot as usize];
            let mut d = self.settle(self.hit_decoder(*pos, t, k))?;
            let mut sink = RowSink {
                rows: &mut rows,
                key: k,
                parent: -1,
            };
            let r = crate::format::visit_drawable(&mut d, &mut sink);
            self.settle(r)?;
            if rows.len() >= chunk {
                f(&rows)?;
                rows.clear();
            }
        }
        if !rows.is_empty() {
            f(&rows)?;
        }
        Ok(stats)
    }
}

impl Slog2File {
    /// Decode the record `k` of the node at `pos` (table `t`) straight into
    /// `rows` (one row, or a composite's row and its members').
    pub(super) fn push_hit(
        &self,
        rows: &mut Rows,
        pos: u32,
        t: &super::index::NodeTable,
        k: &crate::format::RecordKey,
    ) -> Result<()> {
        let mut d = self.hit_decoder(pos, t, k)?;
        let mut sink = RowSink {
            rows,
            key: k,
            parent: -1,
        };
        crate::format::visit_drawable(&mut d, &mut sink)
    }
}

/// Decode the record `k` of a node block (at file offset `base`) straight
/// into `rows`, as [`Slog2File::push_hit`] does.
#[inline]
pub(super) fn push_record(
    rows: &mut Rows,
    block: &[u8],
    base: u64,
    k: &crate::format::RecordKey,
) -> Result<()> {
    let at = k.offset as usize;
    let rec = block
        .get(at..at + k.len as usize)
        .ok_or_else(|| crate::Error::malformed("tree node", base, "record outside its block"))?;
    let mut d = crate::format::Decoder::new(rec, base + at as u64, "tree node");
    let mut sink = RowSink {
        rows,
        key: k,
        parent: -1,
    };
    crate::format::visit_drawable(&mut d, &mut sink)
}
