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
    slot: u32,
    category: i32,
    tbox: TimeBox,
}

/// A key of one or two line IDs (every state, arrow and event) packed into
/// one integer, so the per-primitive lookup hashes a single value.
fn packed_key(topology: Topology, lines: &[Vertex]) -> Option<u128> {
    let (n, a, b) = match lines {
        [v] => (1u128, v.line, 0),
        [v, w] => (2u128, v.line, w.line),
        _ => return None,
    };
    Some(((topology as u128) << 72) | (n << 64) | ((a as u32 as u128) << 32) | (b as u32 as u128))
}

#[derive(Debug)]
struct PendingShadow {
    topology: Topology,
    vertices: SmallVec<[Vertex; 2]>,
    tbox: TimeBox,
    num_real: i64,
    /// Per-category weights (set when sealed, then merged into).
    weights: Weights,
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
/// insertion order (so output never depends on hashing). The own primitives
/// of all keys are one list in insertion order. A node's buffer is reused
/// after every close, so its tables keep their capacity.
#[derive(Debug, Default)]
pub(crate) struct ShadowBuf {
    /// Keys of one or two vertices, packed.
    small: PackedIndex,
    index: FxHashMap<ShadowKey, u32>,
    slots: Vec<PendingShadow>,
    own: Vec<OwnPrim>,
    // Scratch space for the exclusive ratios.
    order: Vec<u32>,
    starts: Vec<u32>,
    excl: Vec<f64>,
    sorted: Vec<(u128, u64)>,
    stack: Vec<usize>,
}

/// Slots of packed keys: an open-addressing table (linear probing, at most
/// half full) whose entries carry the generation that wrote them, so that
/// emptying it for the next node is one increment. A node has a few dozen
/// keys; a lookup is usually one compare, where a general hash map costs
/// several times that on the hottest path of the shadows.
#[derive(Debug, Default)]
struct PackedIndex {
    /// (key, slot, generation); generation 0 is never current.
    entries: Vec<(u128, u32, u32)>,
    generation: u32,
    len: usize,
}

impl PackedIndex {
    #[inline(always)]
    fn home(&self, k: u128) -> usize {
        let h = (k as u64 ^ ((k >> 64) as u64).rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> 32) as usize & (self.entries.len() - 1)
    }

    /// The slot of `k`, or `None` after recording `next` as its slot.
    #[inline(always)]
    fn get_or_insert(&mut self, k: u128, next: u32) -> Option<u32> {
        if (self.len + 1) * 2 > self.entries.len() {
            self.grow();
        }
        let mask = self.entries.len() - 1;
        let generation = self.generation;
        let mut i = self.home(k);
        loop {
            let e = &mut self.entries[i & mask];
            if e.2 != generation {
                *e = (k, next, generation);
                self.len += 1;
                return None;
            }
            if e.0 == k {
                return Some(e.1);
            }
            i += 1;
        }
    }

    fn get(&self, k: u128) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        let mask = self.entries.len() - 1;
        let mut i = self.home(k);
        loop {
            let e = &self.entries[i];
            if e.2 != self.generation {
                return None;
            }
            if e.0 == k {
                return Some(e.1);
            }
            i = (i + 1) & mask;
        }
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let old = std::mem::take(&mut self.entries);
        let generation = self.generation.max(1);
        self.entries = vec![(0, 0, 0); (old.len() * 2).max(256)];
        self.generation = generation;
        self.len = 0;
        for (k, slot, g) in old {
            if g == generation {
                self.get_or_insert(k, slot);
            }
        }
    }

    fn clear(&mut self) {
        self.len = 0;
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.entries.fill((0, 0, 0));
            self.generation = 1;
        }
    }
}

impl ShadowBuf {
    /// Fold one primitive stored in the node into its key's shadow.
    pub fn add_primitive(&mut self, topology: Topology, p: &Primitive, tbox: TimeBox) {
        let found = match packed_key(topology, &p.vertices) {
            Some(k) => self.small.get_or_insert(k, self.slots.len() as u32),
            None => {
                let key = ShadowKey::of_primitive(topology, p);
                match self.index.get(&key) {
                    Some(&i) => Some(i),
                    None => {
                        self.index.insert(key, self.slots.len() as u32);
                        None
                    }
                }
            }
        };
        let slot = match found {
            Some(i) => {
                let s = &mut self.slots[i as usize];
                let n = s.num_real as f64;
                for (sv, pv) in s.vertices.iter_mut().zip(&p.vertices) {
                    sv.time = (sv.time * n + pv.time) / (n + 1.0);
                }
                s.tbox = s.tbox.union(&tbox);
                s.num_real += 1;
                i
            }
            None => {
                let i = self.slots.len() as u32;
                self.slots.push(PendingShadow {
                    topology,
                    vertices: p.vertices.iter().copied().collect(),
                    tbox,
                    num_real: 1,
                    weights: SmallVec::new(),
                    child_boxes: Vec::new(),
                    has_own_states: topology == Topology::State,
                });
                i
            }
        };
        self.own.push(OwnPrim {
            slot,
            category: p.category,
            tbox,
        });
    }

    /// Step 1: the node's end is known; compute inclusive ratios of own
    /// primitives (per key in insertion order).
    pub fn seal(&mut self) {
        for p in &self.own {
            let s = &mut self.slots[p.slot as usize];
            let r = ratio(p.tbox.duration(), s.tbox.duration()) as f32;
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

    /// Step 2: merge a child's outgoing buffer (its stub) into this one.
    pub fn merge_child(&mut self, child: &Stub) {
        for cs in child.shadows() {
            let Some(topology) = cs.topology() else {
                continue;
            };
            let found = match packed_key(topology, &cs.vertices) {
                Some(k) => self.small.get(k),
                None => ShadowKey::of_shadow(cs).and_then(|k| self.index.get(&k).copied()),
            };
            match found {
                None => {
                    match packed_key(topology, &cs.vertices) {
                        Some(k) => {
                            self.small.get_or_insert(k, self.slots.len() as u32);
                        }
                        None => {
                            if let Some(k) = ShadowKey::of_shadow(cs) {
                                self.index.insert(k, self.slots.len() as u32);
                            }
                        }
                    }
                    self.slots.push(PendingShadow {
                        topology,
                        vertices: cs.vertices.iter().copied().collect(),
                        tbox: cs.time_box,
                        num_real: cs.num_real,
                        weights: cs.weights.iter().copied().collect(),
                        child_boxes: Vec::new(),
                        has_own_states: false,
                    });
                }
                Some(i) => {
                    let s = &mut self.slots[i as usize];
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
    /// buffer (shadows split and sorted as they are written in a stub), and
    /// leave the buffer empty for the node's next use.
    pub fn finalize(&mut self, entry: crate::format::DirEntry) -> Stub {
        self.exclusive_ratios();
        let mut nestless = Vec::new();
        let mut nestable = Vec::new();
        for mut s in self.slots.drain(..) {
            s.weights
                .sort_by(|a, b| a.incl.total_cmp(&b.incl).then(a.category.cmp(&b.category)));
            let shadow = Shadow {
                category: s.topology.preview_index(),
                vertices: s.vertices,
                time_box: s.tbox,
                num_real: s.num_real,
                weights: s.weights,
            };
            if s.topology == Topology::State {
                nestable.push(shadow);
            } else {
                nestless.push(shadow);
            }
        }
        self.index.clear();
        self.small.clear();
        self.own.clear();
        nestless.sort_by(Shadow::drawing_cmp);
        nestable.sort_by(Shadow::drawing_cmp);
        Stub {
            entry,
            nestless,
            nestable,
        }
    }

    /// Exclusive time of each own state: its duration minus time covered by
    /// child shadows on the same key and by directly nested own states (spec
    /// §8.2 step 3), summed per category in insertion order.
    fn exclusive_ratios(&mut self) {
        // Own primitives grouped by key, insertion order kept (counting sort).
        let nslots = self.slots.len();
        self.starts.clear();
        self.starts.resize(nslots + 1, 0);
        for p in &self.own {
            self.starts[p.slot as usize + 1] += 1;
        }
        for k in 0..nslots {
            self.starts[k + 1] += self.starts[k];
        }
        self.order.clear();
        self.order.resize(self.own.len(), 0);
        {
            let mut next: SmallVec<[u32; 64]> = self.starts[..nslots].iter().copied().collect();
            for (i, p) in self.own.iter().enumerate() {
                let k = &mut next[p.slot as usize];
                self.order[*k as usize] = i as u32;
                *k += 1;
            }
        }
        self.excl.clear();
        self.excl.resize(self.own.len(), 0.0);
        for k in 0..nslots {
            let s = &mut self.slots[k];
            if !s.has_own_states {
                continue;
            }
            let group = &self.order[self.starts[k] as usize..self.starts[k + 1] as usize];
            // Drawing order. The primitives of one key share their line IDs,
            // so (start, end descending, category) decides, packed into two
            // words; the index keeps equal keys in insertion order.
            self.sorted.clear();
            self.sorted.extend(group.iter().map(|&i| {
                let p = &self.own[i as usize];
                (
                    (total_order_bits(p.tbox.start) as u128) << 64
                        | !total_order_bits(p.tbox.end) as u128,
                    ((p.category as u32 ^ 0x8000_0000) as u64) << 32 | i as u64,
                )
            }));
            sort_adaptive(&mut self.sorted);
            self.stack.clear();
            let mut prev: Option<(u128, u64)> = None;
            for &(hi, lo) in &self.sorted {
                let i = lo as u32 as usize;
                // Exact duplicates (equal in drawing order) are left at 0, as
                // the reference's sorted set drops them.
                if prev == Some((hi, lo >> 32)) {
                    continue;
                }
                prev = Some((hi, lo >> 32));
                let b = self.own[i].tbox;
                let mut x = b.duration();
                for cb in s.child_boxes.iter().rev() {
                    if b.overlaps(cb) {
                        x -= b.end.min(cb.end) - b.start.max(cb.start);
                    }
                }
                self.excl[i] = x;
                while let Some(&top) = self.stack.last() {
                    if self.own[top].tbox.contains(&b) {
                        self.excl[top] -= x;
                        break;
                    }
                    self.stack.pop();
                }
                self.stack.push(i);
            }
            let dur = s.tbox.duration();
            // Per category, sum in insertion order in single precision, then add.
            let mut sums: SmallVec<[(i32, f32); 8]> = SmallVec::new();
            for &i in group {
                let p = &self.own[i as usize];
                let r = ratio(self.excl[i as usize], dur) as f32;
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
    }
}

/// Sort nearly sorted keys: insertion sort while it stays cheap (own states
/// of one timeline mostly arrive in start order too), else a full sort.
pub(crate) fn sort_adaptive<T: Ord + Copy>(v: &mut [T]) {
    let budget = 8 * v.len() + 64;
    let mut moves = 0;
    for i in 1..v.len() {
        let x = v[i];
        let mut j = i;
        while j > 0 && v[j - 1] > x {
            v[j] = v[j - 1];
            j -= 1;
            moves += 1;
        }
        v[j] = x;
        if moves > budget {
            v.sort_unstable();
            return;
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
