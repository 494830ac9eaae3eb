//! The data model of SLOG-2: categories, drawables (primitives and composites),
//! shadows (preview drawables), y-coordinate maps and the tree's identifiers.
//!
//! These types know nothing of bytes or files. They use the spec's names
//! (`slog2-file-format.md`): a *category* describes how drawables look, a
//! *primitive* is a state, arrow or event made of vertices `(time, line ID)`,
//! a *composite* groups primitives, a *shadow* summarises many primitives of a
//! child subtree for zoomed-out views, a *tree node* is identified by
//! `(depth, xpos)` with leaves at depth 0.
//!
//! A drawable's time box is not stored on disk: it is always the envelope of
//! its vertices (or its members' boxes), so here it is computed, never kept.

use std::fmt;

/// A time (seconds) as messages show it: the shortest text that reads back
/// as the same double, in exponent form when very large or small (`1e308`,
/// `2.5e-9`, `0.125`), never the 309 digits of `{}` on `1e308`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeText(pub f64);

impl fmt::Display for TimeText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `Debug` of f64 is the shortest round-trip form, with an exponent
        // from 1e16 up and below 1e-4.
        write!(f, "{:?}", self.0)
    }
}

/// A closed time interval `[start, end]` in seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeBox {
    pub start: f64,
    pub end: f64,
}

impl TimeBox {
    pub const EMPTY: TimeBox = TimeBox {
        start: f64::INFINITY,
        end: f64::NEG_INFINITY,
    };

    pub fn new(start: f64, end: f64) -> Self {
        TimeBox { start, end }
    }

    pub fn duration(&self) -> f64 {
        self.end - self.start
    }

    /// True when the two closed intervals share at least one instant.
    pub fn overlaps(&self, other: &TimeBox) -> bool {
        self.start <= other.end && other.start <= self.end
    }

    pub fn contains(&self, other: &TimeBox) -> bool {
        self.start <= other.start && other.end <= self.end
    }

    pub fn union(&self, other: &TimeBox) -> TimeBox {
        TimeBox {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    pub fn widen(&mut self, t: f64) {
        if t < self.start {
            self.start = t;
        }
        if t > self.end {
            self.end = t;
        }
    }
}

/// Shape of a category's drawables. On disk an `i32`: 0, 1, 2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(i32)]
pub enum Topology {
    Event = 0,
    State = 1,
    Arrow = 2,
}

impl Topology {
    pub fn from_i32(v: i32) -> Option<Topology> {
        match v {
            0 => Some(Topology::Event),
            1 => Some(Topology::State),
            2 => Some(Topology::Arrow),
            _ => None,
        }
    }

    /// The spec's (and Java's) name: `Event`, `State`, `Arrow`.
    pub fn name(self) -> &'static str {
        match self {
            Topology::Event => "Event",
            Topology::State => "State",
            Topology::Arrow => "Arrow",
        }
    }

    /// Index of the preview category the writer uses for shadows of this topology.
    pub fn preview_index(self) -> i32 {
        match self {
            Topology::Event => -1,
            Topology::Arrow => -2,
            Topology::State => -3,
        }
    }
}

impl fmt::Display for Topology {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// RGBA colour plus the viewer's "may recolour" flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Color {
    pub red: u8,
    pub green: u8,
    pub blue: u8,
    pub alpha: u8,
    pub modifiable: bool,
}

impl Color {
    pub fn rgba(red: u8, green: u8, blue: u8, alpha: u8) -> Self {
        Color {
            red,
            green,
            blue,
            alpha,
            modifiable: true,
        }
    }

    /// Packed ARGB as stored on disk.
    pub fn to_argb(self) -> i32 {
        ((self.alpha as u32) << 24
            | (self.red as u32) << 16
            | (self.green as u32) << 8
            | self.blue as u32) as i32
    }

    pub fn from_argb(v: i32, modifiable: bool) -> Self {
        let v = v as u32;
        Color {
            alpha: (v >> 24) as u8,
            red: (v >> 16) as u8,
            green: (v >> 8) as u8,
            blue: v as u8,
            modifiable,
        }
    }
}

/// Method ID of the only predefined method: connect the states of a composite.
pub const METHOD_CONNECT_COMPOSITE_STATE: i32 = 1;

/// Token letters allowed in an info format (`%d` etc.), with the payload bytes
/// each one consumes (`%s` is variable: 2 + n).
pub const INFO_TOKENS: &[u8] = b"dhlxXeEs";

/// The popup format of a category split the way the reference does: text keys
/// and one type letter per `%` token.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct InfoFormat {
    pub keys: Vec<String>,
    pub tokens: Vec<u8>,
}

impl InfoFormat {
    /// Split a label such as `msg_tag=%d, msg_size=%d` at each `%`: the text
    /// before the first `%` (if any) is the first key, each `%` is followed by
    /// one type letter, and the text after the letter up to the next `%` is the
    /// next key (possibly empty). A trailing lone `%` is an error (it crashes
    /// the reference writer).
    pub fn parse(label: &str) -> Result<InfoFormat, String> {
        let mut keys = Vec::new();
        let mut tokens = Vec::new();
        if label.is_empty() {
            return Ok(InfoFormat { keys, tokens });
        }
        let mut parts = label.split('%');
        let first = parts.next().unwrap_or("");
        if !first.is_empty() {
            keys.push(first.to_string());
        }
        for part in parts {
            let mut chars = part.chars();
            let Some(letter) = chars.next() else {
                return Err(format!(
                    "label {label:?}: '%' must be followed by a type letter"
                ));
            };
            if !letter.is_ascii() {
                return Err(format!(
                    "label {label:?}: token letter {letter:?} is not ASCII"
                ));
            }
            tokens.push(letter as u8);
            keys.push(chars.as_str().to_string());
        }
        Ok(InfoFormat { keys, tokens })
    }

    /// Rebuild the label text (inverse of `parse` for labels it accepts).
    pub fn label(&self) -> String {
        let mut s = String::new();
        // Keys come first unless the label started with a token.
        let lead = self.keys.len() > self.tokens.len();
        let mut keys = self.keys.iter();
        if lead {
            if let Some(k) = keys.next() {
                s.push_str(k);
            }
        }
        for &t in &self.tokens {
            s.push('%');
            s.push(t as char);
            if let Some(k) = keys.next() {
                s.push_str(k);
            }
        }
        s
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty() && self.tokens.is_empty()
    }
}

/// A category: what a class of drawables is called and how it is drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct Category {
    pub index: i32,
    pub name: String,
    pub topology: Topology,
    pub color: Color,
    /// Line or marker width in pixels (one signed byte on disk).
    pub width: i8,
    pub info: InfoFormat,
    pub methods: Vec<i32>,
    /// Summary: inclusive duration ratio over the whole file.
    pub incl_ratio: f32,
    /// Summary: exclusive duration ratio over the whole file.
    pub excl_ratio: f32,
    /// Summary: number of real primitives of this category in the file.
    pub count: i64,
    /// Viewer-only flags, not stored on disk (default true).
    pub visible: bool,
    pub searchable: bool,
}

impl Category {
    pub fn new(
        index: i32,
        name: impl Into<String>,
        topology: Topology,
        color: Color,
        width: i8,
    ) -> Self {
        Category {
            index,
            name: name.into(),
            topology,
            color,
            width,
            info: InfoFormat::default(),
            methods: Vec::new(),
            incl_ratio: 0.0,
            excl_ratio: 0.0,
            count: 0,
            visible: true,
            searchable: true,
        }
    }

    /// The preview category the writer adds for shadows of `topology`.
    pub fn preview(topology: Topology) -> Self {
        let (name, color) = match topology {
            Topology::Event => ("Preview_Event", Color::rgba(255, 255, 255, 191)),
            Topology::Arrow => ("Preview_Arrow", Color::rgba(255, 255, 0, 255)),
            Topology::State => ("Preview_State", Color::rgba(255, 255, 255, 191)),
        };
        Category::new(topology.preview_index(), name, topology, color, 5)
    }

    /// The placeholder the reference invents for an undefined index
    /// (`UnknownType-<index>`, State, width 1). Its colour comes from a small
    /// fixed palette keyed by the index (the reference takes the "next" colour
    /// of its palette, which depends on discovery order; only determinism matters).
    pub fn placeholder(index: i32) -> Self {
        const PALETTE: [(u8, u8, u8); 6] = [
            (255, 0, 0),
            (0, 0, 255),
            (0, 255, 0),
            (255, 0, 255),
            (0, 255, 255),
            (255, 255, 0),
        ];
        let (r, g, b) = PALETTE[index.rem_euclid(PALETTE.len() as i32) as usize];
        Category::new(
            index,
            format!("UnknownType-{index}"),
            Topology::State,
            Color::rgba(r, g, b, 255),
            1,
        )
    }

    pub fn is_preview(&self) -> bool {
        self.index < 0
    }
}

/// One point of a primitive: a time and a line ID (timeline).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Vertex {
    pub time: f64,
    pub line: i32,
}

impl Vertex {
    pub fn new(time: f64, line: i32) -> Self {
        Vertex { time, line }
    }
}

/// A primitive's vertices. States and arrows have two and events one, so
/// they live inline: a converter moves millions of primitives between
/// threads, and two heap blocks per primitive cost more than the parsing.
pub type Vertices = smallvec::SmallVec<[Vertex; 2]>;

/// A drawable's popup payload. Up to 32 bytes live inline: MPE's cargo (a
/// user state's or event's info) is exactly 32 bytes, and MPI arrows carry
/// 8; a heap block per drawable, allocated by the reading thread and freed
/// by the writer's node thread, was 15 % of a CLOG2 conversion's CPU.
pub type InfoBytes = smallvec::SmallVec<[u8; 32]>;

/// A state (2 vertices on one line), arrow (from, to) or event (1 vertex).
#[derive(Debug, Clone, PartialEq)]
pub struct Primitive {
    pub category: i32,
    /// Opaque popup payload, decoded with the category's info tokens.
    pub info: InfoBytes,
    pub vertices: Vertices,
}

impl Primitive {
    pub fn new(category: i32, vertices: impl Into<Vertices>, info: impl Into<InfoBytes>) -> Self {
        Primitive {
            category,
            info: info.into(),
            vertices: vertices.into(),
        }
    }

    pub fn state(category: i32, line: i32, start: f64, end: f64) -> Self {
        Self::new(
            category,
            smallvec::smallvec![Vertex::new(start, line), Vertex::new(end, line)],
            InfoBytes::new(),
        )
    }

    pub fn arrow(category: i32, from: i32, to: i32, t0: f64, t1: f64) -> Self {
        Self::new(
            category,
            smallvec::smallvec![Vertex::new(t0, from), Vertex::new(t1, to)],
            InfoBytes::new(),
        )
    }

    pub fn event(category: i32, line: i32, t: f64) -> Self {
        Self::new(
            category,
            smallvec::smallvec![Vertex::new(t, line)],
            InfoBytes::new(),
        )
    }

    /// Envelope of the vertex times.
    pub fn time_box(&self) -> TimeBox {
        let mut b = TimeBox::EMPTY;
        for v in &self.vertices {
            b.widen(v.time);
        }
        b
    }

    /// Bytes of the record on disk without its tag: `8 + info + 12·nverts`.
    pub fn byte_size(&self) -> usize {
        8 + self.info.len() + 12 * self.vertices.len()
    }

    pub fn first_line(&self) -> i32 {
        self.vertices.first().map_or(0, |v| v.line)
    }

    pub fn last_line(&self) -> i32 {
        self.vertices.last().map_or(0, |v| v.line)
    }
}

/// A group of primitives drawn as one object (e.g. a user-defined phase).
#[derive(Debug, Clone, PartialEq)]
pub struct Composite {
    pub category: i32,
    pub info: InfoBytes,
    pub members: Vec<Primitive>,
}

impl Composite {
    pub fn time_box(&self) -> TimeBox {
        let mut b = TimeBox::EMPTY;
        for m in &self.members {
            b = b.union(&m.time_box());
        }
        b
    }

    /// Bytes on disk without the tag: `8 + info + Σ member sizes`.
    pub fn byte_size(&self) -> usize {
        8 + self.info.len() + self.members.iter().map(Primitive::byte_size).sum::<usize>()
    }
}

/// A real drawable: a primitive or a composite.
#[derive(Debug, Clone, PartialEq)]
pub enum Drawable {
    Primitive(Primitive),
    Composite(Composite),
}

impl Drawable {
    pub fn category(&self) -> i32 {
        match self {
            Drawable::Primitive(p) => p.category,
            Drawable::Composite(c) => c.category,
        }
    }

    pub fn info(&self) -> &[u8] {
        match self {
            Drawable::Primitive(p) => &p.info,
            Drawable::Composite(c) => &c.info,
        }
    }

    pub fn time_box(&self) -> TimeBox {
        match self {
            Drawable::Primitive(p) => p.time_box(),
            Drawable::Composite(c) => c.time_box(),
        }
    }

    pub fn byte_size(&self) -> usize {
        match self {
            Drawable::Primitive(p) => p.byte_size(),
            Drawable::Composite(c) => c.byte_size(),
        }
    }

    /// Line ID of the first vertex (a composite: of its first member).
    pub fn first_line(&self) -> i32 {
        match self {
            Drawable::Primitive(p) => p.first_line(),
            Drawable::Composite(c) => c.members.first().map_or(0, Primitive::first_line),
        }
    }

    /// Line ID of the last vertex (a composite: of its last member).
    pub fn last_line(&self) -> i32 {
        match self {
            Drawable::Primitive(p) => p.last_line(),
            Drawable::Composite(c) => c.members.last().map_or(0, Primitive::last_line),
        }
    }

    /// Every primitive: itself, or a composite's members.
    pub fn primitives(&self) -> &[Primitive] {
        match self {
            Drawable::Primitive(p) => std::slice::from_ref(p),
            Drawable::Composite(c) => &c.members,
        }
    }
}

/// A shadow's per-category weights: a few categories per timeline are the
/// rule, so they live inline (the writer makes and drops thousands of
/// shadows per second).
pub type Weights = smallvec::SmallVec<[Weight; 6]>;

/// Per-category weight of a shadow.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weight {
    pub category: i32,
    pub incl: f32,
    pub excl: f32,
    pub count: i64,
}

/// A preview drawable: summary of all primitives of one key
/// `(topology, vertex line IDs)` in a child subtree.
#[derive(Debug, Clone, PartialEq)]
pub struct Shadow {
    /// Preview category: -1 event, -2 arrow, -3 state.
    pub category: i32,
    /// Line IDs are the key; times are count-weighted means.
    pub vertices: Vertices,
    /// Stored box: union of the summarised primitives' boxes.
    pub time_box: TimeBox,
    pub num_real: i64,
    /// Sorted by increasing inclusive ratio.
    pub weights: Weights,
}

impl Shadow {
    pub fn topology(&self) -> Option<Topology> {
        match self.category {
            -1 => Some(Topology::Event),
            -2 => Some(Topology::Arrow),
            -3 => Some(Topology::State),
            _ => None,
        }
    }

    /// Bytes on disk: `8 + 12·nverts + 16 + 8 + 4 + 20·nweights`.
    pub fn byte_size(&self) -> usize {
        8 + 12 * self.vertices.len() + 28 + 20 * self.weights.len()
    }
}

/// A y-coordinate (line ID) map: rows `line ID -> ncols values` with labels.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct YCoordMap {
    pub title: String,
    /// Labels of the value columns (the line-ID column is implicit).
    pub column_labels: Vec<String>,
    /// `(line ID, values)`; on disk sorted by line ID, each once.
    pub rows: Vec<(i32, Vec<i32>)>,
    pub methods: Vec<i32>,
}

impl YCoordMap {
    /// The map the writer appends: every line ID maps to itself.
    pub fn identity(lines: impl IntoIterator<Item = i32>) -> Self {
        YCoordMap {
            title: "Identity Map".to_string(),
            column_labels: vec!["LineID".to_string()],
            rows: lines.into_iter().map(|l| (l, vec![l])).collect(),
            methods: Vec::new(),
        }
    }
}

/// Tree node identifier `ID(depth, xpos)`; leaves have depth 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId {
    pub depth: i16,
    pub xpos: i32,
}

impl NodeId {
    pub fn new(depth: i16, xpos: i32) -> Self {
        NodeId { depth, xpos }
    }

    pub fn parent(self, children_per_node: i32) -> NodeId {
        NodeId::new(self.depth + 1, self.xpos / children_per_node)
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ID({},{})", self.depth, self.xpos)
    }
}

/// What drawing order looks at: the time box, the category index, and the
/// line IDs of the first and of the last vertex.
pub type DrawRank = (TimeBox, i32, i32, i32);

/// Drawing order of the spec (§7.1): increasing start; equal start → decreasing
/// end; then increasing category; then first line ID; then last line ID.
pub fn drawing_order(a: DrawRank, b: DrawRank) -> std::cmp::Ordering {
    let ((a_box, a_cat, a_first, a_last), (b_box, b_cat, b_first, b_last)) = (a, b);
    a_box
        .start
        .total_cmp(&b_box.start)
        .then_with(|| b_box.end.total_cmp(&a_box.end))
        .then_with(|| a_cat.cmp(&b_cat))
        .then_with(|| a_first.cmp(&b_first))
        .then_with(|| a_last.cmp(&b_last))
}

/// An `f64` as a `u64` with the same order as `f64::total_cmp`.
#[inline(always)]
pub fn total_order_bits(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | (1 << 63)
    }
}

/// [`drawing_order`] as a plain value: keys compare as their drawables do, so
/// a writer can compute them once and sort keys instead of drawables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DrawingKey {
    start: u64,
    end_desc: u64,
    category: i32,
    first_line: i32,
    last_line: i32,
}

impl DrawingKey {
    pub fn new(tbox: TimeBox, category: i32, first_line: i32, last_line: i32) -> Self {
        DrawingKey {
            start: total_order_bits(tbox.start),
            end_desc: !total_order_bits(tbox.end),
            category,
            first_line,
            last_line,
        }
    }

    /// The start time as an order-preserving integer (the primary key).
    pub fn start_bits(&self) -> u64 {
        self.start
    }

    pub fn of_drawable(d: &Drawable, tbox: TimeBox) -> Self {
        Self::new(tbox, d.category(), d.first_line(), d.last_line())
    }
}

impl Drawable {
    /// The drawable's [`DrawRank`], given its time box `tbox` (computed once
    /// by callers that sort).
    pub fn rank(&self, tbox: TimeBox) -> DrawRank {
        (tbox, self.category(), self.first_line(), self.last_line())
    }

    /// Compare two drawables in drawing order.
    pub fn drawing_cmp(&self, other: &Drawable) -> std::cmp::Ordering {
        drawing_order(self.rank(self.time_box()), other.rank(other.time_box()))
    }
}

impl Primitive {
    pub fn drawing_cmp(&self, other: &Primitive) -> std::cmp::Ordering {
        let rank = |p: &Primitive| (p.time_box(), p.category, p.first_line(), p.last_line());
        drawing_order(rank(self), rank(other))
    }
}

impl Shadow {
    pub fn drawing_cmp(&self, other: &Shadow) -> std::cmp::Ordering {
        let f = |s: &Shadow| {
            (
                s.vertices.first().map_or(0, |v| v.line),
                s.vertices.last().map_or(0, |v| v.line),
            )
        };
        let (a0, a1) = f(self);
        let (b0, b1) = f(other);
        drawing_order(
            (self.time_box, self.category, a0, a1),
            (other.time_box, other.category, b0, b1),
        )
    }
}
