//! Shadows (previews) while a node is open, and their sealing, merging and
//! exclusive-ratio steps (spec §8.2).
//!
//! The arithmetic follows the reference writer step by step — single-precision
//! accumulation, the same order of rescaling and adding — because the stored
//! ratios are compared with the reference's files. The one deliberate change: a
//! ratio over a zero duration is 0, not NaN (spec §8.2 advice), so one
//! zero-length state cannot poison every summary above it.

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::format::Stub;
use crate::model::*;

/// `(topology, vertex line IDs)`: shadows are kept per key. Keys of one or
/// two vertices (every state, arrow and event) are packed without allocation.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum ShadowKey {
    Small {
        topology: Topology,
        n: u8,
        a: i32,
        b: i32,
    },
    Large {
        topology: Topology,
        lines: Box<[i32]>,
    },
}

impl ShadowKey {
    fn new(topology: Topology, lines: impl ExactSizeIterator<Item = i32>) -> Self {
        let n = lines.len();
        if n <= 2 {
            let mut it = lines;
            let a = it.next().unwrap_or(0);
            let b = it.next().unwrap_or(0);
            ShadowKey::Small {
                topology,
                n: n as u8,
                a,
                b,
            }
        } else {
            ShadowKey::Large {
                topology,
                lines: lines.collect(),
            }
        }
    }

    fn topology(&self) -> Topology {
        match self {
            ShadowKey::Small { topology, .. } | ShadowKey::Large { topology, .. } => *topology,
        }
    }

    fn of_primitive(topology: Topology, p: &Primitive) -> Self {
        Self::new(topology, p.vertices.iter().map(|v| v.line))
    }

    fn of_shadow(s: &Shadow) -> Option<Self> {
        Some(Self::new(s.topology()?, s.vertices.iter().map(|v| v.line)))
    }
}

/// `a / b` as the reference computes ratios, but 0 instead of NaN for 0/0.
fn ratio(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        0.0
    } else {
        a / b
    }
}

/// One of a shadow's own primitives (stored in the node being built).
#[derive(Debug, Clone, Copy)]
struct OwnPrim {
    category: i32,
    tbox: TimeBox,
    key: DrawingKey,
}

#[derive(Debug)]
struct PendingShadow {
    vertices: SmallVec<[Vertex; 2]>,
    tbox: TimeBox,
    num_real: i64,
    /// Own primitives in insertion order (only until the node closes).
    own: Vec<OwnPrim>,
    /// Per-category weights (set when sealed, then merged into).
    weights: SmallVec<[Weight; 4]>,
    /// Boxes of child shadows merged into a State key that has own primitives.
    child_boxes: Vec<TimeBox>,
    has_own_states: bool,
}

impl PendingShadow {
    fn weight_mut(&mut self, category: i32) -> Option<&mut Weight> {
        self.weights.iter_mut().find(|w| w.category == category)
    }
}

/// The pending shadow map of one open node: a key index into a slab kept in
/// insertion order (so output never depends on hashing).
#[derive(Debug, Default)]
pub(crate) struct ShadowBuf {
    index: FxHashMap<ShadowKey, u32>,
    slots: Vec<(Topology, PendingShadow)>,
}

impl ShadowBuf {
    /// Fold one primitive stored in the node into its key's shadow.
    pub fn add_primitive(&mut self, topology: Topology, p: &Primitive) {
        let key = ShadowKey::of_primitive(topology, p);
        let tbox = p.time_box();
        let own = OwnPrim {
            category: p.category,
            tbox,
            key: DrawingKey::new(tbox, p.category, p.first_line(), p.last_line()),
        };
        match self.index.get(&key) {
            Some(&i) => {
                let s = &mut self.slots[i as usize].1;
                let n = s.num_real as f64;
                for (sv, pv) in s.vertices.iter_mut().zip(&p.vertices) {
                    sv.time = (sv.time * n + pv.time) / (n + 1.0);
                }
                s.tbox = s.tbox.union(&tbox);
                s.num_real += 1;
                s.own.push(own);
            }
            None => {
                self.index.insert(key, self.slots.len() as u32);
                self.slots.push((
                    topology,
                    PendingShadow {
                        vertices: p.vertices.iter().copied().collect(),
                        tbox,
                        num_real: 1,
                        own: vec![own],
                        weights: SmallVec::new(),
                        child_boxes: Vec::new(),
                        has_own_states: topology == Topology::State,
                    },
                ));
            }
        }
    }

    /// Step 1: the node's end is known; compute inclusive ratios of own primitives.
    pub fn seal(&mut self) {
        for (_, s) in self.slots.iter_mut() {
            let dur = s.tbox.duration();
            for p in &s.own {
                let r = ratio(p.tbox.duration(), dur) as f32;
                match s.weights.iter_mut().find(|w| w.category == p.category) {
                    Some(w) => {
                        w.incl += r;
                        w.count += 1;
                    }
                    None => s.weights.push(Weight {
                        category: p.category,
                        incl: r,
                        excl: 0.0,
                        count: 1,
                    }),
                }
            }
        }
    }

    /// Step 2: merge a child's outgoing buffer (its stub) into this one.
    pub fn merge_child(&mut self, child: &Stub) {
        for cs in child.shadows() {
            let Some(key) = ShadowKey::of_shadow(cs) else {
                continue;
            };
            match self.index.get(&key) {
                None => {
                    let topology = key.topology();
                    self.index.insert(key, self.slots.len() as u32);
                    self.slots.push((
                        topology,
                        PendingShadow {
                            vertices: cs.vertices.iter().copied().collect(),
                            tbox: cs.time_box,
                            num_real: cs.num_real,
                            own: Vec::new(),
                            weights: cs.weights.iter().copied().collect(),
                            child_boxes: Vec::new(),
                            has_own_states: false,
                        },
                    ));
                }
                Some(&i) => {
                    let s = &mut self.slots[i as usize].1;
                    let old = s.tbox.duration();
                    let (n, m) = (s.num_real as f64, cs.num_real as f64);
                    for (sv, cv) in s.vertices.iter_mut().zip(&cs.vertices) {
                        sv.time = (sv.time * n + cv.time * m) / (n + m);
                    }
                    s.tbox = s.tbox.union(&cs.time_box);
                    s.num_real += cs.num_real;
                    let new = s.tbox.duration();
                    if old != new {
                        let f = ratio(old, new) as f32;
                        for w in s.weights.iter_mut() {
                            w.incl *= f;
                            w.excl *= f;
                        }
                    }
                    let r = ratio(cs.time_box.duration(), new) as f32;
                    for cw in &cs.weights {
                        match s.weight_mut(cw.category) {
                            Some(w) => {
                                w.count += cw.count;
                                w.incl += cw.incl * r;
                                w.excl += cw.excl * r;
                            }
                            None => s.weights.push(Weight {
                                category: cw.category,
                                incl: cw.incl * r,
                                excl: cw.excl * r,
                                count: cw.count,
                            }),
                        }
                    }
                    if s.has_own_states {
                        s.child_boxes.push(cs.time_box);
                    }
                }
            }
        }
    }

    /// Steps 3–4: exclusive ratios, then turn the map into the node's outgoing
    /// buffer (shadows split and sorted as they are written in a stub).
    pub fn finalize(self, entry: crate::format::DirEntry) -> Stub {
        let mut nestless = Vec::new();
        let mut nestable = Vec::new();
        for (topology, mut s) in self.slots {
            if s.has_own_states {
                exclusive_ratios(&mut s);
            }
            s.weights
                .sort_by(|a, b| a.incl.total_cmp(&b.incl).then(a.category.cmp(&b.category)));
            let shadow = Shadow {
                category: topology.preview_index(),
                vertices: s.vertices.into_vec(),
                time_box: s.tbox,
                num_real: s.num_real,
                weights: s.weights.into_vec(),
            };
            if topology == Topology::State {
                nestable.push(shadow);
            } else {
                nestless.push(shadow);
            }
        }
        nestless.sort_by(Shadow::drawing_cmp);
        nestable.sort_by(Shadow::drawing_cmp);
        Stub {
            entry,
            nestless,
            nestable,
        }
    }
}

/// Exclusive time of each own state: its duration minus time covered by child
/// shadows on the same key and by directly nested own states (spec §8.2 step 3).
fn exclusive_ratios(s: &mut PendingShadow) {
    let own = std::mem::take(&mut s.own);
    let mut excl = vec![0.0f64; own.len()];
    // Drawing order; the index keeps equal keys in insertion order.
    let mut idx: Vec<(DrawingKey, u32)> = own
        .iter()
        .enumerate()
        .map(|(i, p)| (p.key, i as u32))
        .collect();
    if !idx.is_sorted() {
        idx.sort_unstable();
    }
    let mut stack: Vec<usize> = Vec::new();
    let mut prev: Option<DrawingKey> = None;
    for &(key, i) in &idx {
        let i = i as usize;
        // Exact duplicates (equal in drawing order) are left at 0, as the
        // reference's sorted set drops them.
        if prev == Some(key) {
            continue;
        }
        prev = Some(key);
        let b = own[i].tbox;
        let mut x = b.duration();
        for cb in s.child_boxes.iter().rev() {
            if b.overlaps(cb) {
                x -= b.end.min(cb.end) - b.start.max(cb.start);
            }
        }
        excl[i] = x;
        while let Some(&top) = stack.last() {
            if own[top].tbox.contains(&b) {
                excl[top] -= x;
                break;
            }
            stack.pop();
        }
        stack.push(i);
    }
    let dur = s.tbox.duration();
    // Per category, sum in insertion order in single precision, then add.
    let mut sums: SmallVec<[(i32, f32); 4]> = SmallVec::new();
    for (p, x) in own.iter().zip(&excl) {
        let r = ratio(*x, dur) as f32;
        match sums.iter_mut().find(|(c, _)| *c == p.category) {
            Some((_, v)) => *v += r,
            None => sums.push((p.category, r)),
        }
    }
    for (c, v) in sums {
        if let Some(w) = s.weight_mut(c) {
            w.excl += v;
        }
    }
}

/// Category summaries from the root's outgoing buffer (spec §11):
/// `(count, incl, excl)` per category.
pub(crate) fn summarize(root: &Stub, out: &mut FxHashMap<i32, (i64, f32, f32)>) {
    let total = root.entry.time_box.duration();
    for s in root.shadows() {
        let r = ratio(s.time_box.duration(), total) as f32;
        for w in &s.weights {
            let e = out.entry(w.category).or_insert((0, 0.0, 0.0));
            e.0 += w.count;
            e.1 += w.incl * r;
            e.2 += w.excl * r;
        }
    }
}
