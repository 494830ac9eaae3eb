//! Which state each state is nested in, found in one parallel pass over the
//! tree: the engine of exclusive time and idle time.
//!
//! # The rule
//!
//! A state's **parent** is, among the states on its line whose box contains
//! its box (`p.start <= s.start && s.end <= p.end`), the last one before it
//! in drawing order (start ascending, end descending, then category, line
//! and place in the file). That is what the viewer draws as nesting and what
//! the reference writer's stack computes (spec §8.2 step 3: a state's
//! exclusive time is its duration minus its directly nested states). Members
//! of composites nest like any state; a composite's own box nests nothing.
//!
//! # Why this is not a plain fold
//!
//! A fold sees each tree node on its own, in no order, but a parent can
//! live in another node. The tree bounds where: a drawable goes to the
//! deepest open node whose start is not after its own (spec §9.2), so a
//! state and its containers share a leaf unless one of them crosses a
//! leaf's edge, in which case it sits in an inner node. Hence, for leaves
//! whose boxes do not overlap (the reference writer's trees, ours) and
//! drawables inside their node's box (invariant #16):
//!
//! * every container of a leaf's state is in the same leaf or in an inner
//!   node (a container in another leaf would make the state a single instant
//!   on a shared leaf edge: zero duration, which nests nothing and subtracts
//!   nothing);
//! * an inner-node state has containers in a leaf only when it lies inside
//!   that leaf's box (it is then *foreign* to that leaf).
//!
//! So the walk is:
//!
//! 1. the inner nodes, in parallel: their states become the (small) **global
//!    index** `G`, one drawing-ordered array per line with each entry's last
//!    container within `G` (a stack sweep);
//! 2. `G` states foreign to no leaf get their parent from `G` alone;
//! 3. the leaves, in parallel runs (the fold's runs of nearby blocks): each
//!    leaf's states in drawing order — swept as they are read (the stored
//!    order); if a leaf breaks the order (composites, a writer that does
//!    not sort), the leaves are walked again, each one buffered and sorted
//!    (module `sweep`) — swept per line together with the
//!    line's `G` entries, merged in drawing order, on one stack of open
//!    containers: pop the entries that do not contain the next one; the
//!    top is its parent; push it. The stack starts as the container chain
//!    of the last `G` entry before the line's first state in the leaf (what
//!    a sweep of `G` alone holds there: an entry popped by a later one that
//!    does not contain it can contain no later state the later one does not
//!    contain too), and a `G` entry is pushed when the sweep passes it —
//!    emitted there if it is foreign to this leaf (the cursor starts at the
//!    line's first foreign entry at the latest, and runs on past the last
//!    state to the last one).
//!
//! Each state costs a few comparisons (one against the start of the next
//! `G` entry of its line); `G` costs one sort of the inner nodes' states (a
//! few percent of a file). A file whose leaves overlap, or
//! with a drawable outside its leaf's box, is walked in the **general** mode:
//! every state goes to `G` (one sort per line: exact, slower).
//!
//! # What a visitor gets
//!
//! [`NestVisitor::state`] receives every *selected* state (the [`Scope`])
//! with its measured duration and its parent's category — the parent itself
//! need not be selected (it may start in an earlier partition or window). Arrows,
//! events and composites that the scope selects come through
//! [`NestVisitor::primitive`] and [`NestVisitor::composite`] as in a fold.

use std::cmp::Ordering;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::error::Result;
use crate::model::Topology;
use crate::read::Slog2File;

use super::keys::{file_keys, Keys};
use super::scope::Scope;
use super::sparse::walk_sparse;
use super::sweep::{sweep_leaves, LeafCtx, Open, Swept};
use super::walk::{chunks, walk_nodes, CompositeRef, PrimitiveRef, Range, Topologies, Visitor};

pub(super) const NONE: u32 = u32::MAX;

/// A selected state with its nesting (module docs).
#[derive(Debug, Clone, Copy)]
pub struct StateRef {
    pub category: i32,
    pub line: i32,
    pub start: f64,
    pub end: f64,
    /// Duration as the scope measures it (clipped or whole).
    pub duration: f64,
    /// Category of the state it is nested in (module docs), if any.
    pub parent: Option<i32>,
    /// Positions of `line`, `category` and the parent's category among the
    /// file's declared lines and categories (`keys::file_keys`), `u32::MAX`
    /// when undeclared or absent: what lets a statistic find its table cell
    /// without looking keys up.
    pub line_pos: u32,
    pub cat_pos: u32,
    pub parent_pos: u32,
}

/// What a nesting-aware statistic does with the selected drawables. Partial
/// visitors of disjoint parts of the work merge.
pub trait NestVisitor: Send {
    fn state(&mut self, s: &StateRef);
    /// A selected arrow or event, and its duration as the scope measures
    /// it (clipped or whole).
    fn primitive(&mut self, p: &PrimitiveRef<'_>, duration: f64) {
        let _ = (p, duration);
    }
    /// A selected composite (its members come as states and primitives).
    fn composite(&mut self, c: &CompositeRef<'_>) {
        let _ = c;
    }
    fn merge(&mut self, other: Self)
    where
        Self: Sized;
}

/// A state as the sweep holds it.
#[derive(Debug, Clone, Copy)]
pub(super) struct St {
    pub start: f64,
    pub end: f64,
    pub category: i32,
    pub line: i32,
    /// Place in the file (node position, offset): the last tie-break.
    pub uid: u64,
    pub member: i32,
    /// Position of `category` among the file's categories (`NONE`: none).
    pub cpos: u32,
    /// Leaf sweep: the line's slot (`NONE` in `G`).
    pub slot: u32,
}

/// `a` strictly before `b` in drawing order (module docs).
#[inline(always)]
pub(super) fn cmp_key(a: &St, b: &St) -> Ordering {
    a.start
        .total_cmp(&b.start)
        .then_with(|| b.end.total_cmp(&a.end))
        .then_with(|| a.category.cmp(&b.category))
        .then_with(|| a.line.cmp(&b.line))
        .then_with(|| a.uid.cmp(&b.uid))
        .then_with(|| a.member.cmp(&b.member))
}

#[inline(always)]
pub(super) fn before(a: &St, b: &St) -> bool {
    if a.start < b.start {
        return true;
    }
    if a.start > b.start {
        return false;
    }
    cmp_key(a, b) == Ordering::Less
}

#[inline(always)]
fn contains(p: &St, s: &St) -> bool {
    p.start <= s.start && s.end <= p.end
}

/// The states of one line in `G`, drawing-ordered, with their last
/// container in `G` (`NONE` if none).
pub(super) struct GLine {
    pub states: Vec<St>,
    pub gpar: Vec<u32>,
}

/// The global index (module docs, step 1).
pub(super) struct GIndex {
    pub lines: Vec<GLine>,
    pub of_line: FxHashMap<i32, u32>,
}

impl GIndex {
    fn build(all: Vec<Vec<St>>) -> GIndex {
        // Per line, the states come in runs already in drawing order (one
        // per node): bucketed by line, a run-adaptive stable sort merges
        // them (one sort of everything by line and order cost 3 % of the
        // statistics' pass). The order is total, so any sort gives it.
        let mut bucket: FxHashMap<i32, usize> = FxHashMap::default();
        let mut buckets: Vec<Vec<St>> = Vec::new();
        for s in all.into_iter().flatten() {
            let b = *bucket.entry(s.line).or_insert_with(|| {
                buckets.push(Vec::new());
                buckets.len() - 1
            });
            buckets[b].push(s);
        }
        buckets.sort_unstable_by_key(|b| b[0].line);
        buckets.par_iter_mut().for_each(|b| b.sort_by(cmp_key));
        let mut lines = Vec::new();
        let mut of_line = FxHashMap::default();
        for states in buckets {
            let l = states[0].line;
            let mut gpar = vec![NONE; states.len()];
            let mut stack: Vec<u32> = Vec::new();
            for (k, s) in states.iter().enumerate() {
                while let Some(&t) = stack.last() {
                    if contains(&states[t as usize], s) {
                        break;
                    }
                    stack.pop();
                }
                gpar[k] = stack.last().copied().unwrap_or(NONE);
                stack.push(k as u32);
            }
            of_line.insert(l, lines.len() as u32);
            lines.push(GLine { states, gpar });
        }
        GIndex { lines, of_line }
    }
}

/// Leaves of the file in time order, if they do not overlap.
struct Leaves {
    /// (box start, box end, directory position), by start.
    boxes: Vec<(f64, f64, u32)>,
}

impl Leaves {
    fn of(file: &Slog2File) -> Option<Leaves> {
        let mut boxes: Vec<(f64, f64, u32)> = file
            .directory()
            .iter()
            .enumerate()
            .filter(|(_, e)| e.id.depth == 0)
            .map(|(p, e)| (e.time_box.start, e.time_box.end, p as u32))
            .collect();
        if boxes
            .iter()
            .any(|b| b.0.is_nan() || b.1.is_nan() || b.0 > b.1)
        {
            return None;
        }
        boxes.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
        if boxes.windows(2).any(|w| w[0].1 > w[1].0) {
            return None;
        }
        Some(Leaves { boxes })
    }

    /// Directory position of a leaf whose box contains `[s, e]`.
    fn holding(&self, s: f64, e: f64) -> Option<u32> {
        let k = self.boxes.partition_point(|b| b.0 <= s);
        let b = self.boxes.get(k.checked_sub(1)?)?;
        (s >= b.0 && e <= b.1).then_some(b.2)
    }
}

/// Walk the selected drawables of `scope` with nesting (module docs) into
/// visitors made by `init`, merged into one.
pub fn walk_nested<V, I>(file: &Slog2File, scope: &Scope, init: I) -> Result<V>
where
    V: NestVisitor,
    I: Fn() -> V + Sync + Send,
{
    walk_nested_mode(file, scope, false, init)
}

/// [`walk_nested`], forced into the general mode when `general` (for tests
/// that compare the two modes).
#[doc(hidden)]
pub fn walk_nested_mode<V, I>(file: &Slog2File, scope: &Scope, general: bool, init: I) -> Result<V>
where
    V: NestVisitor,
    I: Fn() -> V + Sync + Send,
{
    scope.check()?;
    let leaves = if general { None } else { Leaves::of(file) };
    if let Some(leaves) = &leaves {
        if let Some(v) = walk_tree(file, scope, leaves, &init)? {
            return Ok(v);
        }
    }
    walk_general(file, scope, &init)
}

/// Directory positions of the nodes that may hold selected drawables or
/// their containers, by block offset; split into inner nodes and leaves
/// (all inner in the general mode).
fn selected_nodes(file: &Slog2File, scope: &Scope, general: bool) -> (Vec<u32>, Vec<u32>) {
    let dir = file.directory();
    let mut v: Vec<u32> = (0..dir.len() as u32)
        .filter(|&p| {
            let b = &dir[p as usize].time_box;
            scope.may_hold(b.start, b.end)
        })
        .collect();
    v.sort_unstable_by_key(|&p| dir[p as usize].ptr.offset);
    if general {
        return (v, Vec::new());
    }
    v.into_iter().partition(|&p| dir[p as usize].id.depth != 0)
}

/// Step 1 (and the whole of the general mode's walk): the states of
/// `nodes` into one list, their other selected drawables into `V`s.
fn collect_states<V, I>(
    file: &Slog2File,
    scope: &Scope,
    nodes: &[u32],
    sparse: bool,
    keys: &(Arc<Keys>, Arc<Keys>),
    init: &I,
) -> Result<(Vec<Vec<St>>, V)>
where
    V: NestVisitor,
    I: Fn() -> V + Sync + Send,
{
    let topo = Topologies::new(file);
    // Inner nodes: walked without the fold's page advice (see `sparse`).
    let runs = if sparse {
        let per = nodes
            .len()
            .div_ceil(rayon::current_num_threads() * 8)
            .max(1);
        (0..nodes.len())
            .step_by(per)
            .map(|i| i..(i + per).min(nodes.len()))
            .collect()
    } else {
        chunks(file, nodes)
    };
    let all = Range::all();
    runs.par_iter()
        .try_fold(
            || Collect {
                scope: *scope,
                cats: &keys.1,
                states: Vec::new(),
                v: init(),
            },
            |mut c, run| {
                if sparse {
                    walk_sparse(file, &nodes[run.clone()], &mut c)?;
                } else {
                    walk_nodes(file, &nodes[run.clone()], &all, &topo, &mut c)?;
                }
                Ok(c)
            },
        )
        .map(|c: Result<Collect<'_, V>>| c.map(|c| (vec![c.states], c.v)))
        .try_reduce(
            || (Vec::new(), init()),
            |mut a, mut b| {
                a.0.append(&mut b.0);
                a.1.merge(b.1);
                Ok(a)
            },
        )
}

/// The state of a primitive with a comparable box.
#[inline(always)]
fn st_of(p: &PrimitiveRef<'_>, cats: &Keys) -> Option<St> {
    if p.start.is_nan() || p.end.is_nan() {
        return None;
    }
    Some(st(p, cats))
}

/// [`st_of`] without the NaN test: for a walk whose range drops NaN boxes.
#[inline(always)]
pub(super) fn st(p: &PrimitiveRef<'_>, cats: &Keys) -> St {
    St {
        // + 0.0 turns -0.0 into 0.0, so the order and `<=` agree.
        start: p.start + 0.0,
        end: p.end + 0.0,
        category: p.category,
        line: p.line0,
        uid: (u64::from(p.at.node) << 32) | u64::from(p.at.offset),
        member: p.at.member,
        cpos: cats.get(p.category).map_or(NONE, |c| c as u32),
        slot: NONE,
    }
}

struct Collect<'k, V> {
    scope: Scope,
    cats: &'k Keys,
    states: Vec<St>,
    v: V,
}

impl<V: NestVisitor> Visitor for Collect<'_, V> {
    #[inline(always)]
    fn primitive(&mut self, p: &PrimitiveRef<'_>) {
        if p.topology == Topology::State {
            if let Some(s) = st_of(p, self.cats) {
                self.states.push(s);
            }
        } else if self.scope.selects(p.start, p.end) {
            self.v.primitive(p, self.scope.duration(p.start, p.end));
        }
    }

    fn composite(&mut self, c: &CompositeRef<'_>) {
        if self.scope.selects(c.start, c.end) {
            self.v.composite(c);
        }
    }
}

#[inline(always)]
pub(super) fn emit<V: NestVisitor>(
    v: &mut V,
    scope: &Scope,
    s: &St,
    line_pos: u32,
    parent: Option<Open>,
) {
    emit_in(v, scope, false, s, line_pos, parent)
}

/// [`emit`]; `inside`: the state lies in a box the scope selects whole
/// ([`Scope::selects_all_in`]: a leaf inside the window and, for a
/// partition, inside its range of starts), so it is selected and its
/// duration is its box.
#[inline(always)]
pub(super) fn emit_in<V: NestVisitor>(
    v: &mut V,
    scope: &Scope,
    inside: bool,
    s: &St,
    line_pos: u32,
    parent: Option<Open>,
) {
    if inside || scope.selects(s.start, s.end) {
        v.state(&StateRef {
            category: s.category,
            line: s.line,
            start: s.start,
            end: s.end,
            duration: if inside {
                s.end - s.start
            } else {
                scope.duration(s.start, s.end)
            },
            parent: parent.map(|p| p.category),
            line_pos,
            cat_pos: s.cpos,
            parent_pos: parent.map_or(NONE, |p| p.cpos),
        });
    }
}

fn line_pos(keys: &(Arc<Keys>, Arc<Keys>), line: i32) -> u32 {
    keys.0.get(line).map_or(NONE, |l| l as u32)
}

/// The general mode: every state in `G`.
fn walk_general<V, I>(file: &Slog2File, scope: &Scope, init: &I) -> Result<V>
where
    V: NestVisitor,
    I: Fn() -> V + Sync + Send,
{
    let keys = file_keys(file);
    let (nodes, _) = selected_nodes(file, scope, true);
    let (states, mut v) = collect_states(file, scope, &nodes, false, &keys, init)?;
    let g = GIndex::build(states);
    for gl in &g.lines {
        let lp = gl.states.first().map_or(NONE, |s| line_pos(&keys, s.line));
        for (s, &p) in gl.states.iter().zip(&gl.gpar) {
            let parent = (p != NONE).then(|| Open::of(&gl.states[p as usize]));
            emit(&mut v, scope, s, lp, parent);
        }
    }
    Ok(v)
}

/// The tree mode (module docs); `None` when a leaf breaks the assumptions
/// (the caller falls back to the general mode).
fn walk_tree<V, I>(file: &Slog2File, scope: &Scope, leaves: &Leaves, init: &I) -> Result<Option<V>>
where
    V: NestVisitor,
    I: Fn() -> V + Sync + Send,
{
    let keys = file_keys(file);
    let (inner, leaf_nodes) = selected_nodes(file, scope, false);
    let (states, mut v) = collect_states(file, scope, &inner, true, &keys, init)?;
    let g = GIndex::build(states);

    // Step 2: foreign entries to their leaf, the others emitted now.
    let mut foreign: FxHashMap<u32, Vec<(u32, u32)>> = FxHashMap::default();
    for (li, gl) in g.lines.iter().enumerate() {
        let lp = gl.states.first().map_or(NONE, |s| line_pos(&keys, s.line));
        for (k, s) in gl.states.iter().enumerate() {
            if let Some(leaf) = leaves.holding(s.start, s.end) {
                foreign.entry(leaf).or_default().push((li as u32, k as u32));
                continue;
            }
            let p = gl.gpar[k];
            emit(
                &mut v,
                scope,
                s,
                lp,
                (p != NONE).then(|| Open::of(&gl.states[p as usize])),
            );
        }
    }

    // Step 3: the leaves, streamed, else (a leaf out of drawing order)
    // buffered (`sweep` module docs).
    let ctx = LeafCtx {
        scope: *scope,
        g: &g,
        foreign: &foreign,
        dir: file.directory(),
        keys: &keys,
        abort: AtomicBool::new(false),
    };
    let mut swept = sweep_leaves::<V, I, true>(file, &leaf_nodes, &ctx, init)?;
    if swept.unsorted && !swept.broken {
        swept = sweep_leaves::<V, I, false>(file, &leaf_nodes, &ctx, init)?;
    }
    let Swept {
        v: w,
        broken,
        mut flushed,
        ..
    } = swept;
    if broken {
        return Ok(None);
    }
    v.merge(w);
    // Foreign states of leaves without a record (empty leaves): no state of
    // the leaf can contain them, so their parent is in G.
    flushed.sort_unstable();
    let mut rest: Vec<u32> = foreign
        .keys()
        .copied()
        .filter(|k| flushed.binary_search(k).is_err())
        .collect();
    rest.sort_unstable();
    for leaf in rest {
        for &(li, k) in &foreign[&leaf] {
            let gl = &g.lines[li as usize];
            let p = gl.gpar[k as usize];
            let s = &gl.states[k as usize];
            let lp = line_pos(&keys, s.line);
            emit(
                &mut v,
                scope,
                s,
                lp,
                (p != NONE).then(|| Open::of(&gl.states[p as usize])),
            );
        }
    }
    Ok(Some(v))
}
