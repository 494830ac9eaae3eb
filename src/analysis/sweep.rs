//! The leaf sweep of the nesting walk (module docs of [`super::nest`],
//! step 3): each leaf's states in drawing order, swept per line together
//! with the line's entries of the global index `G`, on one stack of open
//! containers per line.
//!
//! # Two modes, one result
//!
//! A leaf's states are stored in drawing order by every writer we know of
//! (ours, the reference's), so the walk first **streams**: each state is
//! swept as it is read, with no buffer. Whether the order holds is checked
//! state by state against the one before; the first state out of order
//! (a composite's members, a writer that does not sort) spoils what was
//! already emitted, so the walk stops and the caller runs the leaves again
//! **buffered**: each leaf's states are read into a buffer, sorted when out
//! of order, then swept. Both modes sweep a sorted leaf in the same order,
//! so they give the same additions in the same order.
//!
//! A line's stack is started, before its first state of a leaf, from the
//! container chain of the `G` entry before that state (what a sweep of `G`
//! alone holds there); `G` entries are merged in as the sweep passes them,
//! and those foreign to the leaf are emitted there with their parent.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::error::Result;
use crate::model::Topology;
use crate::read::Slog2File;

use super::keys::Keys;
use super::nest::{before, cmp_key, emit, emit_in, st, GIndex, NestVisitor, St, NONE};
use super::scope::Scope;
use super::walk::{chunks, walk_nodes, CompositeRef, PrimitiveRef, Range, Topologies, Visitor};

/// Position of the first of `states` (drawing-ordered) not before `s`:
/// searched forward from `hint` by doubling steps when every state before
/// `hint` is before `s` (a line's cursor moves on a little from one leaf of
/// a run to the next), else over all of them.
pub(super) fn first_not_before(states: &[St], hint: u32, s: &St) -> usize {
    let h = hint as usize;
    if h > states.len() || (h > 0 && !before(&states[h - 1], s)) {
        return states.partition_point(|x| before(x, s));
    }
    // `states[..lo]` are before `s`.
    let (mut lo, mut step) = (h, 1);
    while lo + step <= states.len() && before(&states[lo + step - 1], s) {
        lo += step;
        step *= 2;
    }
    let hi = (lo + step).min(states.len());
    lo + states[lo..hi].partition_point(|x| before(x, s))
}

pub(super) struct LeafCtx<'a> {
    pub scope: Scope,
    pub g: &'a GIndex,
    /// Per leaf, its foreign `G` entries (line array, entry), in order.
    pub foreign: &'a FxHashMap<u32, Vec<(u32, u32)>>,
    pub dir: &'a [crate::format::DirEntry],
    pub keys: &'a (Arc<Keys>, Arc<Keys>),
    /// Set when a streaming walk met a leaf out of drawing order: the
    /// other runs stop early, their result is dropped.
    pub abort: AtomicBool,
}

/// What the walk of the leaves gives: the visitor, whether a state lay
/// outside its leaf (the tree mode does not apply) or, streaming, a leaf
/// was out of order (run again buffered), and the leaves whose foreign
/// `G` states were emitted.
pub(super) struct Swept<V> {
    pub v: V,
    pub broken: bool,
    pub unsorted: bool,
    pub flushed: Vec<u32>,
}

/// Walk the leaves (`leaf_nodes`, by block offset) in parallel runs of
/// nearby blocks, streamed when `STREAM` (module docs).
pub(super) fn sweep_leaves<V, I, const STREAM: bool>(
    file: &Slog2File,
    leaf_nodes: &[u32],
    ctx: &LeafCtx<'_>,
    init: &I,
) -> Result<Swept<V>>
where
    V: NestVisitor,
    I: Fn() -> V + Sync + Send,
{
    let topo = Topologies::new(file);
    let runs = chunks(file, leaf_nodes);
    let all = Range::all();
    runs.par_iter()
        .try_fold(
            || LeafWalk::<V, STREAM>::new(ctx, init()),
            |mut w, run| {
                if !(STREAM && ctx.abort.load(Ordering::Relaxed)) {
                    walk_nodes(file, &leaf_nodes[run.clone()], &all, &topo, &mut w)?;
                    w.flush();
                }
                Ok(w)
            },
        )
        .map(|r: Result<LeafWalk<'_, V, STREAM>>| {
            r.map(|w| Swept {
                v: w.v,
                broken: w.broken,
                unsorted: w.unsorted,
                flushed: w.flushed_foreign,
            })
        })
        .try_reduce(
            || Swept {
                v: init(),
                broken: false,
                unsorted: false,
                flushed: Vec::new(),
            },
            |mut a, mut b| {
                a.v.merge(b.v);
                a.flushed.append(&mut b.flushed);
                a.broken |= b.broken;
                a.unsorted |= b.unsorted;
                Ok(a)
            },
        )
}

/// Per line, during one leaf's sweep.
#[derive(Clone, Copy)]
struct Slot {
    /// Line array in `G` (`NONE`: none; `UNSET`: not looked up yet).
    gl: u32,
    /// Position of the line among the file's declared lines (`NONE`:
    /// undeclared).
    lpos: u32,
    /// Leaf sweep the fields below belong to.
    stamp: u32,
    /// Leaf sweep whose stack is built ([`LeafWalk::start`]): a state of
    /// the line then needs no preparation unless it reaches `gnext`.
    ready: u32,
    /// Depth of the line's stack of open containers (its entries are
    /// `LeafWalk::stacks[slot][..depth]`, outermost first).
    depth: u32,
    /// Next entry of the `G` line to merge into the sweep.
    gn: u32,
    /// Where the cursor stood after the line's last sweep: the next one
    /// (a later leaf of the run, as a rule) searches forward from there.
    hint: u32,
    /// Its start (`+inf`: none): a state starting before it merges
    /// nothing, at the cost of one comparison.
    gnext: f64,
}

const UNSET: u32 = u32::MAX - 1;
/// `Slot::depth` before the slot's stack is built ([`LeafWalk::start`]).
const PENDING: u32 = u32::MAX - 2;

impl Slot {
    fn new(lpos: u32) -> Slot {
        Slot {
            gl: UNSET,
            lpos,
            stamp: 0,
            ready: 0,
            depth: 0,
            gn: 0,
            hint: 0,
            gnext: f64::INFINITY,
        }
    }
}

/// An open container on a line's stack: what a nested state needs of its
/// parent, and the end that decides whether it contains the next entry.
#[derive(Debug, Clone, Copy)]
pub(super) struct Open {
    end: f64,
    pub category: i32,
    pub cpos: u32,
}

impl Open {
    #[inline(always)]
    pub fn of(s: &St) -> Open {
        Open {
            end: s.end,
            category: s.category,
            cpos: s.cpos,
        }
    }
}

/// Nest an entry ending at `e.end` on a line's stack (`stack[..*depth]`,
/// outermost first) and return its parent: the sweep runs in drawing
/// order, so every open entry starts no later than `e` and contains it
/// exactly when it ends no earlier — one comparison per entry, on a flat
/// array (the stack was a list linked through the leaf's buffer: each pop
/// a dependent load). Entries past `depth` are stale.
///
/// A branch-free count of the entries kept (each entry is contained in the
/// one below, so they are the leading ones ending at or after `e.end`)
/// halves the mispredictions callgrind simulates but costs ~50
/// instructions a state; measured, it was slower than this loop
/// (BENCHMARKS.md, "Statistics").
#[inline(always)]
fn nest_open(stack: &mut Vec<Open>, depth: &mut u32, e: Open) -> Option<Open> {
    let mut keep = (*depth as usize).min(stack.len());
    while keep > 0 && stack[keep - 1].end < e.end {
        keep -= 1;
    }
    let parent = keep.checked_sub(1).map(|k| stack[k]);
    put(stack, keep, e);
    *depth = keep as u32 + 1;
    parent
}

/// `stack[k] = o`, growing the stack by one when `k` is its length.
#[inline(always)]
fn put(stack: &mut Vec<Open>, k: usize, o: Open) {
    if k < stack.len() {
        stack[k] = o;
    } else {
        stack.push(o);
    }
}

/// The drawing-order key of a state read before, less its place in the
/// file: states are read in file order, so that one breaks ties in favour
/// of the earlier (as [`cmp_key`] does).
#[derive(Clone, Copy)]
struct Key {
    start: f64,
    end: f64,
    category: i32,
    line: i32,
}

impl Key {
    /// Before every state.
    const FIRST: Key = Key {
        start: f64::NEG_INFINITY,
        end: f64::INFINITY,
        category: i32::MIN,
        line: i32::MIN,
    };

    #[inline(always)]
    fn of(s: &St) -> Key {
        Key {
            start: s.start,
            end: s.end,
            category: s.category,
            line: s.line,
        }
    }

    /// Whether the state read before, with this key, comes before `s` in
    /// drawing order.
    #[inline(always)]
    fn before(&self, s: &St) -> bool {
        if self.start < s.start {
            return true;
        }
        self.start
            .total_cmp(&s.start)
            .then_with(|| s.end.total_cmp(&self.end))
            .then_with(|| self.category.cmp(&s.category))
            .then_with(|| self.line.cmp(&s.line))
            != std::cmp::Ordering::Greater
    }
}

/// The walk of a run of leaves into `v`: each leaf's states swept as read
/// (`STREAM`) or buffered and swept at the leaf's end (module docs).
struct LeafWalk<'a, V, const STREAM: bool> {
    ctx: &'a LeafCtx<'a>,
    /// The file's lines and categories (`ctx.keys`, one indirection less
    /// on the per-state path).
    lines: &'a Keys,
    cats: &'a Keys,
    v: V,
    node: u32,
    /// The current leaf's box.
    leaf: (f64, f64),
    /// Whether the scope selects the whole of the leaf's box
    /// ([`Scope::selects_all_in`]).
    inside: bool,
    /// Buffered: the leaf's states, in the order read.
    buf: Vec<St>,
    sorted: bool,
    /// Streaming: the drawing-order key of the leaf's last state, and
    /// whether a state came out of drawing order.
    /// came out of drawing order.
    prev: Key,
    unsorted: bool,
    broken: bool,
    stamp: u32,
    /// One per declared line (by position), then the undeclared lines met.
    slots: Vec<Slot>,
    /// Each slot's stack of open containers ([`nest_open`]).
    stacks: Vec<Vec<Open>>,
    /// Slots of undeclared lines.
    extra: FxHashMap<i32, u32>,
    /// Scratch: a `G` container chain.
    chain: Vec<u32>,
    /// The current leaf's foreign entries (by line array, then drawing
    /// order).
    foreign: &'a [(u32, u32)],
    /// Leaves whose foreign `G` states this walk emitted.
    flushed_foreign: Vec<u32>,
}

impl<'a, V: NestVisitor, const STREAM: bool> LeafWalk<'a, V, STREAM> {
    fn new(ctx: &'a LeafCtx<'a>, v: V) -> Self {
        let n = ctx.keys.0.len();
        LeafWalk {
            ctx,
            lines: &ctx.keys.0,
            cats: &ctx.keys.1,
            v,
            node: NONE,
            leaf: (0.0, 0.0),
            inside: false,
            buf: Vec::new(),
            sorted: true,
            prev: Key::FIRST,
            unsorted: false,
            broken: false,
            stamp: 0,
            slots: (0..n as u32).map(Slot::new).collect(),
            stacks: (0..n).map(|_| Vec::new()).collect(),
            extra: FxHashMap::default(),
            chain: Vec::new(),
            foreign: &[],
            flushed_foreign: Vec::new(),
        }
    }

    #[inline(always)]
    fn enter(&mut self, node: u32) {
        if node != self.node {
            self.flush();
            self.node = node;
            let b = &self.ctx.dir[node as usize].time_box;
            self.leaf = (b.start, b.end);
            self.inside = self.ctx.scope.selects_all_in(b.start, b.end);
            self.begin();
        }
    }

    /// The slot of a line: its position among the declared lines, else one
    /// made for it.
    #[inline(always)]
    fn slot_of(&mut self, line: i32) -> u32 {
        if let Some(p) = self.lines.get(line) {
            return p as u32;
        }
        let n = self.slots.len() as u32;
        let (slots, stacks) = (&mut self.slots, &mut self.stacks);
        *self.extra.entry(line).or_insert_with(|| {
            slots.push(Slot::new(NONE));
            stacks.push(Vec::new());
            n
        })
    }

    /// Bring a slot into the current sweep: its stack not built yet, no
    /// foreign entry noted.
    #[inline(always)]
    fn reset(&mut self, slot: u32, line: i32) {
        let g = self.ctx.g;
        let sl = &mut self.slots[slot as usize];
        sl.stamp = self.stamp;
        sl.depth = PENDING;
        sl.hint = if sl.gn == NONE { 0 } else { sl.gn };
        sl.gn = NONE;
        sl.gnext = f64::INFINITY;
        if sl.gl == UNSET {
            sl.gl = g.of_line.get(&line).copied().unwrap_or(NONE);
        }
    }

    /// Build a slot's stack before its first entry of the sweep: the `G`
    /// cursor at the first entry not before `s` (or at the line's first
    /// foreign entry, if earlier, noted in `gn`), and as the stack the
    /// chain of containers of the entry before it — what a sweep of `G`
    /// alone holds there.
    #[inline(never)]
    fn start(&mut self, slot: u32, s: Option<&St>) {
        let g = self.ctx.g;
        let sl = self.slots[slot as usize];
        if sl.gl == NONE {
            let sl = &mut self.slots[slot as usize];
            sl.depth = 0;
            sl.ready = self.stamp;
            return;
        }
        let gl = &g.lines[sl.gl as usize];
        let n = match s {
            Some(s) => (first_not_before(&gl.states, sl.hint, s) as u32).min(sl.gn),
            None => sl.gn,
        };
        self.chain.clear();
        let mut j = if n == 0 { NONE } else { n - 1 };
        while j != NONE {
            self.chain.push(j);
            j = gl.gpar[j as usize];
        }
        let stack = &mut self.stacks[slot as usize];
        for (k, &j) in self.chain.iter().rev().enumerate() {
            put(stack, k, Open::of(&gl.states[j as usize]));
        }
        let sl = &mut self.slots[slot as usize];
        sl.depth = self.chain.len() as u32;
        sl.ready = self.stamp;
        sl.gn = n;
        sl.gnext = gl.states.get(n as usize).map_or(f64::INFINITY, |q| q.start);
    }

    /// Merge into the sweep of `slot` the `G` entries before `s` (all up
    /// to entry `upto` inclusive when `s` is `None`): each goes on the
    /// line's stack, and one foreign to this leaf is emitted with its
    /// parent.
    #[inline(always)]
    fn merge_g(&mut self, slot: u32, s: Option<&St>, upto: u32) {
        let ctx = self.ctx;
        let sl = self.slots[slot as usize];
        if sl.gl == NONE {
            return;
        }
        let gl = &ctx.g.lines[sl.gl as usize];
        let mut n = sl.gn;
        let mut depth = sl.depth;
        while (n as usize) < gl.states.len() {
            let q = &gl.states[n as usize];
            let go = match s {
                Some(s) => before(q, s),
                None => n <= upto,
            };
            if !go {
                break;
            }
            let parent = nest_open(&mut self.stacks[slot as usize], &mut depth, Open::of(q));
            if self.is_foreign(sl.gl, n) {
                emit(&mut self.v, &ctx.scope, q, sl.lpos, parent);
            }
            n += 1;
        }
        let sl = &mut self.slots[slot as usize];
        sl.gn = n;
        sl.gnext = gl.states.get(n as usize).map_or(f64::INFINITY, |q| q.start);
        sl.depth = depth;
    }

    /// Before a state of the sweep: its line's stack built if it is the
    /// line's first state of the leaf, and the line's `G` entries before
    /// it merged.
    #[inline(never)]
    fn prepare(&mut self, s: &St) {
        let k = s.slot as usize;
        if self.slots[k].ready != self.stamp {
            if self.slots[k].stamp != self.stamp {
                self.reset(s.slot, s.line);
            }
            self.start(s.slot, Some(s));
        }
        // Only a `G` entry starting no later than `s` can be before it.
        if self.slots[k].gnext <= s.start {
            self.merge_g(s.slot, Some(s), 0);
        }
    }

    /// Whether `G` entry `k` of line array `gl` is foreign to this leaf.
    #[inline(always)]
    fn is_foreign(&self, gl: u32, k: u32) -> bool {
        !self.foreign.is_empty() && self.foreign.binary_search(&(gl, k)).is_ok()
    }

    /// Start the sweep of the entered leaf: a new stamp (every slot out
    /// of date), and the lines with foreign entries noting the first one
    /// (their cursor starts there at the latest).
    fn begin(&mut self) {
        let ctx = self.ctx;
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.slots.iter_mut().for_each(|s| {
                s.stamp = 0;
                s.ready = 0;
            });
            self.stamp = 1;
        }
        let foreign: &'a [(u32, u32)] = ctx.foreign.get(&self.node).map_or(&[], |f| &f[..]);
        self.foreign = foreign;
        if !foreign.is_empty() {
            self.flushed_foreign.push(self.node);
            for &(gl, k) in foreign {
                let line = ctx.g.lines[gl as usize].states[k as usize].line;
                let slot = self.slot_of(line);
                if self.slots[slot as usize].stamp != self.stamp {
                    self.reset(slot, line);
                }
                let sl = &mut self.slots[slot as usize];
                sl.gn = sl.gn.min(k);
            }
        }
    }

    /// Sweep one state of the leaf, in drawing order (module docs, step
    /// 3): per line, the leaf's states and the line's `G` entries merged
    /// in drawing order, one stack of open containers; a state's parent is
    /// the top of its line's stack once the entries that do not contain it
    /// are popped. Every state of a leaf lies in its box (else the walk is
    /// `broken` and its result dropped).
    #[inline(always)]
    fn sweep(&mut self, s: &St) {
        let k = s.slot as usize;
        let sl = &self.slots[k];
        if sl.ready != self.stamp || sl.gnext <= s.start {
            self.prepare(s);
        }
        let sl = &mut self.slots[k];
        let lpos = sl.lpos;
        let parent = nest_open(&mut self.stacks[k], &mut sl.depth, Open::of(s));
        emit_in(&mut self.v, &self.ctx.scope, self.inside, s, lpos, parent);
    }

    /// End the leaf: sweep its buffered states (sorted first when out of
    /// order), then its foreign entries after its last state on their line.
    fn flush(&mut self) {
        if self.node == NONE {
            return;
        }
        let ctx = self.ctx;
        if !STREAM {
            if !self.sorted {
                self.buf.sort_unstable_by(cmp_key);
            }
            let buf = std::mem::take(&mut self.buf);
            for s in &buf {
                self.sweep(s);
            }
            self.buf = buf;
            self.buf.clear();
            self.sorted = true;
        }
        for &(gl, k) in self.foreign {
            let line = ctx.g.lines[gl as usize].states[k as usize].line;
            let slot = self.slot_of(line);
            if self.slots[slot as usize].depth == PENDING {
                self.start(slot, None);
            }
            if self.slots[slot as usize].gn <= k {
                self.merge_g(slot, None, k);
            }
        }
        self.foreign = &[];
        self.node = NONE;
        self.prev = Key::FIRST;
    }
}

impl<V: NestVisitor, const STREAM: bool> Visitor for LeafWalk<'_, V, STREAM> {
    #[inline(always)]
    fn primitive(&mut self, p: &PrimitiveRef<'_>) {
        self.enter(p.at.node);
        if p.topology != Topology::State {
            // In a leaf the scope selects whole, a primitive inside the
            // leaf's box is selected and measured whole (no clip).
            if self.inside && p.start >= self.leaf.0 && p.end <= self.leaf.1 {
                self.v.primitive(p, p.end - p.start);
            } else if self.ctx.scope.selects(p.start, p.end) {
                self.v.primitive(p, self.ctx.scope.duration(p.start, p.end));
            }
            return;
        }
        // The walk's range (all) drops NaN boxes; the test below would
        // catch one too.
        let mut s = st(p, self.cats);
        if !(s.start >= self.leaf.0 && s.end <= self.leaf.1) {
            self.broken = true;
        }
        s.slot = self.slot_of(s.line);
        if STREAM {
            if !self.prev.before(&s) {
                self.unsorted = true;
                self.ctx.abort.store(true, Ordering::Relaxed);
            }
            self.prev = Key::of(&s);
            self.sweep(&s);
            return;
        }
        if self.sorted {
            if let Some(last) = self.buf.last() {
                if !before(last, &s) {
                    self.sorted = false;
                }
            }
        }
        self.buf.push(s);
    }

    fn composite(&mut self, c: &CompositeRef<'_>) {
        self.enter(c.at.node);
        if self.ctx.scope.selects(c.start, c.end) {
            self.v.composite(c);
        }
    }
}
