//! An SLOG-2 file as a trace source: re-tree a file with another leaf size or
//! children per node, or round-trip it through the writer.
//!
//! Records come in this order:
//!
//! 1. the categories, without the preview categories (index < 0) and with
//!    their summaries (`incl_ratio`, `excl_ratio`, `count`) reset to 0 — the
//!    writer re-creates both;
//! 2. every drawable, in non-decreasing **end** time (the TRACE-API rule),
//!    equal ends in file order (directory order, then drawing order inside a
//!    node). The stated box of a primitive is its vertex envelope, a
//!    composite's the envelope of its members, and `member_boxes` the
//!    members' envelopes — exactly what the file stores;
//! 3. the y-coordinate maps, without the trailing "Identity Map" (the writer
//!    builds a new one).
//!
//! A file's nodes are in post-order and each holds the drawables that fit it,
//! so end order has to be rebuilt. [`Slog2Source::open`] merges: it reads
//! the nodes in order of their start time, sorts each node's drawables by
//! end, and merges the nodes read through a heap (one entry per node); a
//! drawable is delivered once no unread node starts before its end. As no
//! drawable ends before its node starts (drawables lie inside their node's
//! box, invariant 16 of the file format), nothing read later can end
//! earlier. Memory: the undelivered drawables of the nodes read, i.e. of the
//! nodes overlapping the current time (about one root-to-leaf path plus the
//! long drawables still open), not the file; each node is decoded once.
//! Measured on a 1M-drawable, 1080-node file (41 MB): 0.28 s, 45 MB peak RSS
//! of which 41 MB is the mapped file.
//!
//! The reference writer places a drawable by its *stated* start, so a file
//! it wrote from input whose stated boxes differ from the vertex envelopes
//! (e.g. a swapped TimeBBox) can hold a drawable that ends before its node
//! starts. If such a drawable ends before one already delivered, `open`'s
//! merge returns an error naming the node; [`Slog2Source::open_sorted`]
//! handles any readable file by reading every drawable into memory and
//! sorting them (memory proportional to the file: about 190 bytes per
//! drawable, 0.54 s and 229 MB peak RSS for the same file).

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::path::Path;

use crate::error::{Error, Result};
use crate::format::NodeParts;
use crate::model::*;
use crate::read::Slog2File;
use crate::trace::{Checkpoint, Record, TraceComposite, TracePrimitive, TraceSource};

/// The first bytes of every SLOG-2 file: the 2-byte length `00 0a` of the
/// version string and its start, `SLOG 2`.
pub const MAGIC: &[u8; 8] = b"\x00\x0aSLOG 2";

/// An SLOG-2 file delivering its records the way a trace does.
pub struct Slog2Source {
    file: Slog2File,
    name: String,
    /// Categories, delivered first (`head[head_next..]` still to come).
    head: Vec<Record>,
    head_next: usize,
    /// Y-maps, delivered last.
    tail: Vec<Record>,
    tail_next: usize,
    mode: Mode,
    delivered: u64,
    /// Directory position of the node the last drawable came from.
    last_node: Option<usize>,
    bytes_total: u64,
    bytes_loaded: u64,
    /// Node bytes decoded since the file was opened (restores included).
    bytes_decoded: u64,
}

/// The undelivered drawables of a node being merged, sorted by end.
type NodeRest = std::iter::Peekable<std::vec::IntoIter<(usize, TimeBox, Drawable)>>;

enum Mode {
    Merge {
        /// Directory positions in order of node start time.
        order: Vec<usize>,
        next: usize,
        /// The unread drawables of each node read, sorted by end, and how
        /// many it had.
        nodes: Vec<(NodeRest, usize)>,
        /// Free slots of `nodes`.
        free: Vec<usize>,
        /// One entry per node in `nodes` with drawables left: its next one.
        heap: BinaryHeap<Head>,
        last_end: f64,
    },
    Sorted(std::vec::IntoIter<(usize, TimeBox, Drawable)>),
}

/// Where a merging [`Slog2Source`] was (see [`TraceSource::checkpoint`]).
struct Slog2Checkpoint {
    head_next: usize,
    tail_next: usize,
    delivered: u64,
    last_node: Option<usize>,
    bytes_loaded: u64,
    next: usize,
    last_end: f64,
    /// (directory position, drawables delivered) of each node being merged.
    active: Vec<(usize, usize)>,
}

/// The next drawable of a node read: the max-heap pops the smallest end
/// first, then file order (directory position, then drawing order).
#[derive(PartialEq)]
struct Head {
    end: f64,
    node: usize,
    pos: usize,
    slot: usize,
}

impl Eq for Head {}
impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Head {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .end
            .total_cmp(&self.end)
            .then_with(|| other.node.cmp(&self.node))
            .then_with(|| other.pos.cmp(&self.pos))
    }
}

impl Slog2Source {
    /// True when the file starts with the SLOG-2 version string (a 2-byte
    /// length `00 0a` and `SLOG 2`).
    ///
    /// Reads from the path: do not use it on a pipe that is read afterwards
    /// ([`crate::trace::open_source`] sniffs without losing bytes).
    pub fn looks_like(path: &Path) -> bool {
        let mut head = [0u8; 8];
        match std::fs::File::open(path)
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        {
            Ok(()) => head == *MAGIC,
            Err(_) => false,
        }
    }

    /// Open a file for delivery in end order by merging its nodes (bounded
    /// memory; see the module documentation).
    pub fn open(path: &Path) -> Result<Self> {
        Ok(Self::from_file(Slog2File::open(path)?, path))
    }

    /// [`open`](Self::open) of a file already opened (e.g. read from a
    /// stream: [`Slog2File::read_from`]); `path` names it in messages.
    pub fn from_file(file: Slog2File, path: &Path) -> Self {
        let dir = file.directory();
        let mut order: Vec<usize> = (0..dir.len()).collect();
        order.sort_by(|&a, &b| {
            dir[a]
                .time_box
                .start
                .total_cmp(&dir[b].time_box.start)
                .then(a.cmp(&b))
        });
        let mode = Mode::Merge {
            order,
            next: 0,
            nodes: Vec::new(),
            free: Vec::new(),
            heap: BinaryHeap::new(),
            last_end: f64::NEG_INFINITY,
        };
        Self::new(file, path, mode)
    }

    /// Open a file for delivery in end order by reading all its drawables and
    /// sorting them: works for any readable file, memory proportional to the
    /// number of drawables.
    pub fn open_sorted(path: &Path) -> Result<Self> {
        let file = Slog2File::open(path)?;
        let mut all = Vec::new();
        for i in 0..file.directory().len() {
            for (_, stated, d) in node_drawables(&file, i)? {
                all.push((i, stated, d));
            }
        }
        // Stable: equal ends keep file order.
        all.sort_by(|a, b| a.1.end.total_cmp(&b.1.end));
        Ok(Self::new(file, path, Mode::Sorted(all.into_iter())))
    }

    fn new(file: Slog2File, path: &Path, mode: Mode) -> Self {
        let head: Vec<Record> = file
            .categories()
            .iter()
            .filter(|c| c.index >= 0)
            .map(|c| {
                let mut c = c.clone();
                c.incl_ratio = 0.0;
                c.excl_ratio = 0.0;
                c.count = 0;
                Record::Category(Box::new(c))
            })
            .collect();
        let mut maps = file.ycoordmaps().to_vec();
        if maps.last().is_some_and(|m| m.title == "Identity Map") {
            maps.pop();
        }
        let tail: Vec<Record> = maps
            .into_iter()
            .map(|m| Record::YCoordMap(Box::new(m)))
            .collect();
        let bytes_total = file
            .directory()
            .iter()
            .map(|e| e.ptr.size.max(0) as u64)
            .sum();
        Slog2Source {
            name: path.display().to_string(),
            file,
            head,
            head_next: 0,
            tail,
            tail_next: 0,
            mode,
            delivered: 0,
            last_node: None,
            bytes_total,
            bytes_loaded: 0,
            bytes_decoded: 0,
        }
    }

    /// Node bytes decoded since the file was opened, including those a
    /// [`restore`](TraceSource::restore) decodes again (shows that a seek
    /// does not read the file from the start).
    pub fn node_bytes_decoded(&self) -> u64 {
        self.bytes_decoded
    }

    /// The next drawable in end order, with its node's directory position.
    fn next_drawable(&mut self) -> Result<Option<(usize, TimeBox, Drawable)>> {
        match &mut self.mode {
            Mode::Sorted(it) => Ok(it.next()),
            Mode::Merge {
                order,
                next,
                nodes,
                free,
                heap,
                last_end,
            } => {
                // Read every node that starts no later than the smallest
                // pending end: only then is that drawable the next one.
                while let Some(&i) = order.get(*next) {
                    let start = self.file.directory()[i].time_box.start;
                    if heap.peek().is_some_and(|h| h.end < start) {
                        break;
                    }
                    *next += 1;
                    let entry = &self.file.directory()[i];
                    self.bytes_loaded += entry.ptr.size.max(0) as u64;
                    self.bytes_decoded += entry.ptr.size.max(0) as u64;
                    let mut ds = node_drawables(&self.file, i)?;
                    // Stable: equal ends stay in drawing order.
                    ds.sort_by(|a, b| a.1.end.total_cmp(&b.1.end));
                    let Some(&(pos, first, _)) = ds.first() else {
                        continue;
                    };
                    let ds_len = ds.len();
                    if first.end < *last_end {
                        return Err(Error::malformed(
                            "tree node",
                            entry.ptr.offset as u64,
                            format!(
                                "node ({}, {}) [{}, {}] holds a drawable ending at {}, \
                                 before drawables already delivered (up to {}): the \
                                 drawables are not inside their nodes' boxes \
                                 (invariant 16; the file was written from input \
                                 whose stated time boxes differ from the vertices), \
                                 so this file can only be re-treed with \
                                 Slog2Source::open_sorted",
                                entry.id.depth,
                                entry.id.xpos,
                                entry.time_box.start,
                                entry.time_box.end,
                                first.end,
                                last_end
                            ),
                        ));
                    }
                    let it = (ds.into_iter().peekable(), ds_len);
                    let slot = match free.pop() {
                        Some(k) => {
                            nodes[k] = it;
                            k
                        }
                        None => {
                            nodes.push(it);
                            nodes.len() - 1
                        }
                    };
                    heap.push(Head {
                        end: first.end,
                        node: i,
                        pos,
                        slot,
                    });
                }
                let Some(h) = heap.pop() else {
                    return Ok(None);
                };
                let it = &mut nodes[h.slot].0;
                let item = it.next().expect("a heap entry has a drawable");
                match it.peek() {
                    Some(&(pos, tb, _)) => heap.push(Head {
                        end: tb.end,
                        node: h.node,
                        pos,
                        slot: h.slot,
                    }),
                    None => free.push(h.slot),
                }
                *last_end = h.end;
                // The node's directory position, not the drawable's position
                // in the node (`location` indexes the directory with it).
                let (_, tb, d) = item;
                Ok(Some((h.node, tb, d)))
            }
        }
    }
}

/// The drawables of directory entry `i` in drawing order, numbered, each
/// with its time box (computed once).
fn node_drawables(file: &Slog2File, i: usize) -> Result<Vec<(usize, TimeBox, Drawable)>> {
    let node = file.read_node(&file.directory()[i], NodeParts::Drawables)?;
    let mut keyed: Vec<(TimeBox, Drawable)> = node
        .nestless
        .into_iter()
        .chain(node.nestable)
        .map(|d| (d.time_box(), d))
        .collect();
    keyed.sort_by(|a, b| drawing_order(a.1.rank(a.0), b.1.rank(b.0)));
    Ok(keyed
        .into_iter()
        .enumerate()
        .map(|(pos, (tb, d))| (pos, tb, d))
        .collect())
}

impl TraceSource for Slog2Source {
    fn next_record(&mut self) -> Result<Option<Record>> {
        if let Some(c) = self.head.get(self.head_next) {
            self.head_next += 1;
            return Ok(Some(c.clone()));
        }
        if let Some((node, stated, d)) = self.next_drawable()? {
            self.delivered += 1;
            self.last_node = Some(node);
            // A damaged payload would be copied into a file that fails
            // `check` (invariant 17): stop at it, naming the drawable.
            let bad = std::iter::once((d.category(), d.info()))
                .chain(d.primitives().iter().map(|p| (p.category, &p.info[..])))
                .find_map(|(cat, info)| {
                    let tokens = &self.file.category(cat)?.info.tokens;
                    crate::read::info_problem(tokens, info).map(|p| (cat, p))
                });
            if let Some((cat, p)) = bad {
                return Err(Error::InvalidDrawable {
                    index: self.delivered,
                    detail: format!("its info payload does not fit category {cat}'s format: {p:?}"),
                    location: format!(" ({})", self.location()),
                });
            }
            return Ok(Some(match d {
                Drawable::Primitive(primitive) => {
                    Record::Primitive(TracePrimitive { stated, primitive })
                }
                Drawable::Composite(composite) => Record::Composite(Box::new(TraceComposite {
                    stated,
                    member_boxes: composite.members.iter().map(Primitive::time_box).collect(),
                    composite,
                })),
            }));
        }
        self.last_node = None;
        let t = self.tail.get(self.tail_next).cloned();
        self.tail_next += t.is_some() as usize;
        Ok(t)
    }

    /// In merge mode ([`Slog2Source::open`]): the records delivered so far
    /// and, for each node whose drawables are being merged, its directory
    /// position and how many of them were delivered — a few words per node
    /// overlapping the current time. `None` in sorted mode.
    fn checkpoint(&mut self) -> Option<Checkpoint> {
        let Mode::Merge {
            next,
            nodes,
            heap,
            last_end,
            ..
        } = &self.mode
        else {
            return None;
        };
        let mut active: Vec<(usize, usize)> = heap
            .iter()
            .map(|h| (h.node, nodes[h.slot].1 - nodes[h.slot].0.len()))
            .collect();
        active.sort_unstable();
        Some(Checkpoint::new(Slog2Checkpoint {
            head_next: self.head_next,
            tail_next: self.tail_next,
            delivered: self.delivered,
            last_node: self.last_node,
            bytes_loaded: self.bytes_loaded,
            next: *next,
            last_end: *last_end,
            active,
        }))
    }

    /// Decode again only the nodes that were being merged at the checkpoint
    /// (their delivered drawables dropped): the merge then goes on exactly
    /// as it did from there.
    fn restore(&mut self, cp: &Checkpoint) -> Result<()> {
        let cp = cp.get::<Slog2Checkpoint>().ok_or_else(|| {
            Error::InvalidArgument(format!(
                "{}: not a checkpoint of an SLOG-2 source",
                self.name
            ))
        })?;
        let Mode::Merge {
            next,
            nodes,
            free,
            heap,
            last_end,
            ..
        } = &mut self.mode
        else {
            return Err(Error::Unsupported(format!(
                "{}: a sorted SLOG-2 source cannot go back",
                self.name
            )));
        };
        nodes.clear();
        free.clear();
        heap.clear();
        for &(i, taken) in &cp.active {
            let entry = self.file.directory().get(i).ok_or_else(|| {
                Error::InvalidArgument(format!("{}: checkpoint of another file", self.name))
            })?;
            self.bytes_decoded += entry.ptr.size.max(0) as u64;
            let mut ds = node_drawables(&self.file, i)?;
            ds.sort_by(|a, b| a.1.end.total_cmp(&b.1.end));
            let total = ds.len();
            let mut it = ds
                .into_iter()
                .skip(taken)
                .collect::<Vec<_>>()
                .into_iter()
                .peekable();
            if let Some(&(pos, tb, _)) = it.peek() {
                nodes.push((it, total));
                heap.push(Head {
                    end: tb.end,
                    node: i,
                    pos,
                    slot: nodes.len() - 1,
                });
            }
        }
        *next = cp.next;
        *last_end = cp.last_end;
        self.head_next = cp.head_next;
        self.tail_next = cp.tail_next;
        self.delivered = cp.delivered;
        self.last_node = cp.last_node;
        self.bytes_loaded = cp.bytes_loaded;
        Ok(())
    }

    /// `FILE: drawable #N (node (depth, xpos))` for drawables, `FILE` otherwise.
    fn location(&self) -> String {
        match self
            .last_node
            .and_then(|i| self.file.directory().get(i))
            .map(|e| e.id)
        {
            Some(id) => format!(
                "{}: drawable #{} (node ({}, {}))",
                self.name, self.delivered, id.depth, id.xpos
            ),
            None => self.name.clone(),
        }
    }

    /// Share of the tree's node bytes read so far (all of it in sorted mode).
    fn progress(&self) -> Option<f64> {
        match &self.mode {
            Mode::Sorted(it) => {
                let left = it.len() as f64;
                Some(self.delivered as f64 / (self.delivered as f64 + left).max(1.0))
            }
            Mode::Merge { .. } => Some(if self.bytes_total == 0 {
                1.0
            } else {
                self.bytes_loaded as f64 / self.bytes_total as f64
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::write::{Slog2Writer, WriterOptions};

    fn all(mut s: Slog2Source) -> Vec<Record> {
        let mut v = Vec::new();
        while let Some(r) = s.next_record().unwrap() {
            v.push(r);
        }
        assert_eq!(s.progress(), Some(1.0));
        v
    }

    fn end_of(r: &Record) -> Option<f64> {
        match r {
            Record::Primitive(p) => Some(p.stated.end),
            Record::Composite(c) => Some(c.stated.end),
            _ => None,
        }
    }

    /// Merge and sort deliver the same records: categories without previews
    /// and summaries, every drawable once in end order, the y-maps minus the
    /// identity map.
    fn check(path: &Path) -> usize {
        let f = Slog2File::open(path).unwrap();
        let merged = all(Slog2Source::open(path).unwrap());
        let sorted = all(Slog2Source::open_sorted(path).unwrap());
        assert_eq!(merged, sorted, "{}", path.display());
        let ncat = f.categories().iter().filter(|c| c.index >= 0).count();
        let nd = f.drawables().count();
        let nmaps = f.ycoordmaps().len() - 1;
        assert_eq!(merged.len(), ncat + nd + nmaps);
        for (i, r) in merged.iter().enumerate() {
            match r {
                Record::Category(c) => {
                    assert!(i < ncat && c.index >= 0);
                    assert_eq!((c.count, c.incl_ratio, c.excl_ratio), (0, 0.0, 0.0));
                }
                Record::YCoordMap(m) => {
                    assert!(i >= ncat + nd);
                    assert_ne!(m.title, "Identity Map");
                }
                Record::Primitive(p) => {
                    assert_eq!(p.stated, p.primitive.time_box());
                }
                Record::Composite(c) => {
                    assert_eq!(c.stated, c.composite.time_box());
                    let b: Vec<TimeBox> =
                        c.composite.members.iter().map(|m| m.time_box()).collect();
                    assert_eq!(c.member_boxes, b);
                }
            }
        }
        let ends: Vec<f64> = merged.iter().filter_map(end_of).collect();
        assert!(ends.windows(2).all(|w| w[0] <= w[1]), "{}", path.display());
        // Same multiset of drawables as the file.
        let mut a: Vec<String> = f.drawables().map(|d| format!("{:?}", d.unwrap())).collect();
        let mut b: Vec<String> = merged
            .iter()
            .filter_map(|r| match r {
                Record::Primitive(p) => {
                    Some(format!("{:?}", Drawable::Primitive(p.primitive.clone())))
                }
                Record::Composite(c) => {
                    Some(format!("{:?}", Drawable::Composite(c.composite.clone())))
                }
                _ => None,
            })
            .collect();
        a.sort();
        b.sort();
        assert_eq!(a, b);
        nd
    }

    #[test]
    fn fixtures_in_end_order() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures");
        let mut n = 0;
        for dir in ["slog2", "trace-sample"] {
            for e in std::fs::read_dir(root.join(dir)).unwrap() {
                let p = e.unwrap().path();
                if p.extension().is_some_and(|x| x == "slog2") {
                    assert!(Slog2Source::looks_like(&p));
                    check(&p);
                    n += 1;
                }
            }
        }
        assert!(n >= 10);
        assert!(!Slog2Source::looks_like(
            &root.join("trace-sample/data.txt")
        ));
    }

    /// A deep tree (small leaves): the merge holds only a small part of the
    /// file at any time.
    #[test]
    fn many_nodes_bounded_memory() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.slog2");
        let mut w = Slog2Writer::create(
            &path,
            WriterOptions {
                children_per_node: 3,
                leaf_bytesize: 2048,
                ..Default::default()
            },
        )
        .unwrap();
        for c in crate::synth::categories() {
            w.add_category(c).unwrap();
        }
        for d in crate::synth::Synthetic::new(20_000, 8, 7) {
            w.add_drawable(d).unwrap();
        }
        w.finish().unwrap();
        assert_eq!(check(&path), 20_000);
        let f = Slog2File::open(&path).unwrap();
        assert!(f.directory().len() > 100);
        let mut s = Slog2Source::open(&path).unwrap();
        let mut max_heap = 0;
        while s.next_record().unwrap().is_some() {
            if let Mode::Merge { nodes, .. } = &s.mode {
                max_heap = max_heap.max(nodes.iter().map(|n| n.0.len()).sum::<usize>());
            }
            assert!(s.location().contains("t.slog2"));
        }
        assert!(max_heap < 2_000, "heap held {max_heap} of 20000 drawables");
    }
}
