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
    child_boxes: SmallVec<[TimeBox; 2]>,
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
    next: Vec<u32>,
    /// One key's own states (boxes, categories, exclusive times) by
    /// position in insertion order, and their drawing order.
    gbox: Vec<TimeBox>,
    gcat: Vec<i32>,
    gex: Vec<f64>,
    sorted: Vec<(u64, u64, u64)>,
    sums: Vec<(i32, f32)>,
    stack: Vec<u32>,
    /// (drawing key, slot) of each shadow, nestless and nestable, and
    /// their drawing order.
    keys: [Vec<(DrawingKey, u32)>; 2],
    key_order: Vec<u32>,
    key_scratch: super::SortScratch,
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
    #[inline(always)]
    pub fn add_primitive(&mut self, topology: Topology, p: &Primitive, tbox: TimeBox) {
        let vs = p.vertices.as_slice();
        let found = match packed_key(topology, vs) {
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
                for (sv, pv) in s.vertices.as_mut_slice().iter_mut().zip(vs) {
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
                    vertices: SmallVec::from_slice(vs),
                    tbox,
                    num_real: 1,
                    weights: SmallVec::new(),
                    child_boxes: SmallVec::new(),
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
                        vertices: SmallVec::from_slice(&cs.vertices),
                        tbox: cs.time_box,
                        num_real: cs.num_real,
                        weights: SmallVec::from_slice(&cs.weights),
                        child_boxes: SmallVec::new(),
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
        // Drawing order by sorting keys, not shadows (a shadow is ~200
        // bytes); the slot index in each key keeps equal keys in insertion
        // order, as the stable sort of the shadows did.
        self.keys[0].clear();
        self.keys[1].clear();
        for (i, s) in self.slots.iter().enumerate() {
            let first = s.vertices.first().map_or(0, |v| v.line);
            let last = s.vertices.last().map_or(0, |v| v.line);
            let key = DrawingKey::new(s.tbox, s.topology.preview_index(), first, last);
            self.keys[(s.topology == Topology::State) as usize].push((key, i as u32));
        }
        let mut lists = [Vec::new(), Vec::new()];
        for (c, list) in lists.iter_mut().enumerate() {
            super::sort_drawing_keys(&self.keys[c], &mut self.key_order, &mut self.key_scratch);
            list.reserve_exact(self.key_order.len());
            for &i in &self.key_order {
                let s = &mut self.slots[i as usize];
                let mut weights = std::mem::take(&mut s.weights);
                weights.sort_by(|a, b| a.incl.total_cmp(&b.incl).then(a.category.cmp(&b.category)));
                list.push(Shadow {
                    category: s.topology.preview_index(),
                    vertices: std::mem::take(&mut s.vertices),
                    time_box: s.tbox,
                    num_real: s.num_real,
                    weights,
                });
            }
        }
        let [nestless, nestable] = lists;
        self.slots.clear();
        self.index.clear();
        self.small.clear();
        self.own.clear();
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
        self.next.clear();
        self.next.extend_from_slice(&self.starts[..nslots]);
        self.order.clear();
        self.order.resize(self.own.len(), 0);
        for (i, p) in self.own.iter().enumerate() {
            let k = &mut self.next[p.slot as usize];
            self.order[*k as usize] = i as u32;
            *k += 1;
        }
        for k in 0..nslots {
            if !self.slots[k].has_own_states {
                continue;
            }
            let group = &self.order[self.starts[k] as usize..self.starts[k + 1] as usize];
            // The group's boxes and categories by position in the group
            // (insertion order), and its drawing order. The primitives of one
            // key share their line IDs, so (start, end descending, category)
            // decides; the position keeps equal keys in insertion order.
            let own = &self.own;
            self.gbox.clear();
            self.gbox
                .extend(group.iter().map(|&i| own[i as usize].tbox));
            self.gcat.clear();
            self.gcat
                .extend(group.iter().map(|&i| own[i as usize].category));
            self.sorted.clear();
            self.sorted.extend(
                self.gbox
                    .iter()
                    .zip(&self.gcat)
                    .enumerate()
                    .map(|(j, (b, &c))| {
                        (
                            total_order_bits(b.start),
                            !total_order_bits(b.end),
                            ((c as u32 ^ 0x8000_0000) as u64) << 32 | j as u64,
                        )
                    }),
            );
            sort_adaptive(&mut self.sorted);
            self.gex.clear();
            self.gex.resize(group.len(), 0.0);
            self.stack.clear();
            let s = &mut self.slots[k];
            let mut prev = None;
            for &(start, end, cj) in &self.sorted {
                // Exact duplicates (equal in drawing order) are left at 0, as
                // the reference's sorted set drops them.
                if prev == Some((start, end, cj >> 32)) {
                    continue;
                }
                prev = Some((start, end, cj >> 32));
                let j = cj as u32 as usize;
                let b = self.gbox[j];
                let mut x = b.duration();
                for cb in s.child_boxes.iter().rev() {
                    if b.overlaps(cb) {
                        x -= b.end.min(cb.end) - b.start.max(cb.start);
                    }
                }
                self.gex[j] = x;
                while let Some(&top) = self.stack.last() {
                    if self.gbox[top as usize].contains(&b) {
                        self.gex[top as usize] -= x;
                        break;
                    }
                    self.stack.pop();
                }
                self.stack.push(j as u32);
            }
            let dur = s.tbox.duration();
            // Per category, sum in insertion order in single precision, then add.
            self.sums.clear();
            for (&x, &c) in self.gex.iter().zip(&self.gcat) {
                let r = ratio(x, dur) as f32;
                match self.sums.iter_mut().find(|(sc, _)| *sc == c) {
                    Some((_, v)) => *v += r,
                    None => self.sums.push((c, r)),
                }
            }
            for &(c, v) in &self.sums {
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
