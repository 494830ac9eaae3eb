//! Placing drawables (spec §9.2–9.3): the tree side of the writer.
//!
//! The caller's thread only decides *where* each drawable goes: it checks
//! the drawable, finds the deepest open node whose start is not after the
//! drawable's start (the trunk holds one open node per depth, leaf first),
//! and closes the leaf — and every ancestor that has all its children —
//! when the next record would overfill it. Nothing here depends on shadows
//! or on file offsets; a closed node goes to the node thread (`nodes.rs`)
//! with its drawables and its byte count.
//!
//! Two paths: [`Slog2Writer::add_drawable`] sends states, arrows and events
//! with one or two finite vertices through a short path (nearly every
//! drawable of a real trace); composites, longer vertex lists and anything
//! that fails a check take the general path, which also reports the error.

use super::nodes::NodeJob;
use super::{NodeDrawables, Slog2Writer};
use crate::error::{Error, Result};
use crate::format::NODE_OVERHEAD;
use crate::model::*;

/// One open node of the trunk.
pub(super) struct OpenNode {
    pub(super) id: NodeId,
    pub(super) start: f64,
    pub(super) end: f64,
    pub(super) drawables: NodeDrawables,
    /// 46 + Σ (1 + record size) of its drawables.
    pub(super) bytes: usize,
}

impl OpenNode {
    pub(super) fn new(id: NodeId, start: f64) -> Self {
        OpenNode {
            id,
            start,
            end: start,
            drawables: NodeDrawables::default(),
            bytes: NODE_OVERHEAD,
        }
    }
}

impl Slog2Writer {
    /// Add the next drawable. Drawables must come in non-decreasing end time;
    /// info payloads must fit their category's format (`payload.rs`).
    #[inline(always)]
    pub fn add_drawable(&mut self, d: Drawable) -> Result<()> {
        self.check_payloads(&d)?;
        match d {
            Drawable::Primitive(p) => self.add_primitive(p),
            d => self.add_any(d),
        }
    }

    /// [`add_drawable`](Self::add_drawable) for a primitive: states, arrows
    /// and events (one or two vertices, finite times, in order) without
    /// the general path's passes; anything else goes there, which also
    /// reports the error.
    #[inline]
    fn add_primitive(&mut self, p: Primitive) -> Result<()> {
        let (first, last) = match &p.vertices[..] {
            [v] => (*v, *v),
            [v, w] => (*v, *w),
            _ => return self.add_any(Drawable::Primitive(p)),
        };
        let (a, b) = (first.time, last.time);
        // The vertex envelope exactly as `TimeBox::widen` builds it.
        let tbox = TimeBox::new(if b < a { b } else { a }, if b > a { b } else { a });
        let ordered = self.last_end.is_none_or(|prev| tbox.end >= prev);
        if !(a.is_finite()
            && b.is_finite()
            && ordered
            && p.category >= 0
            && p.info.len() <= i16::MAX as usize)
        {
            return self.add_any(Drawable::Primitive(p));
        }
        let rec = p.byte_size();
        self.make_room(rec)?;
        let topology = self.topology_of(p.category);
        let target = self.node_for(tbox.start);
        self.note_topology(target, topology);
        let key = DrawingKey::new(tbox, p.category, first.line, last.line);
        let nestable = topology == Topology::State;
        self.store(
            target,
            Drawable::Primitive(p),
            key,
            nestable,
            rec,
            1,
            tbox.end,
        );
        Ok(())
    }

    /// Close the leaf (and the ancestors it completes) first if a record of
    /// `rec` bytes would overfill it.
    #[inline(always)]
    fn make_room(&mut self, rec: usize) -> Result<()> {
        if self.last_end.is_some() && self.trunk[0].bytes + rec > self.opts.leaf_bytesize as usize {
            self.advance()?;
        }
        Ok(())
    }

    /// A primitive of `topology` goes into trunk node `target` (in arrival
    /// order; the node thread's shadows need each primitive's topology).
    #[inline(always)]
    fn note_topology(&mut self, target: usize, topology: Topology) {
        self.topologies_used[topology as usize] = true;
        self.trunk[target].drawables.topologies.push(topology);
    }

    /// Store a placed drawable of `rec` bytes and `primitives` primitives
    /// in trunk node `target`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn store(
        &mut self,
        target: usize,
        d: Drawable,
        key: DrawingKey,
        nestable: bool,
        rec: usize,
        primitives: usize,
        end: f64,
    ) {
        self.summary.primitives += primitives as u64;
        let node = &mut self.trunk[target];
        node.bytes += rec + 1;
        node.drawables.push(d, key, nestable);
        self.last_end = Some(end);
        self.summary.drawables += 1;
    }

    /// The trunk position of the node a drawable starting at `start` goes
    /// into: the deepest whose start is not after it, else the root (whose
    /// start moves back).
    #[inline]
    fn node_for(&mut self, start: f64) -> usize {
        match self.trunk.iter().position(|n| n.start <= start) {
            Some(i) => i,
            None => {
                let r = self.trunk.len() - 1;
                self.trunk[r].start = self.trunk[r].start.min(start);
                r
            }
        }
    }

    /// [`add_drawable`](Self::add_drawable) for every drawable.
    fn add_any(&mut self, d: Drawable) -> Result<()> {
        let index = self.summary.drawables + 1;
        // The rules `check` applies to a stored drawable too (one validation
        // for both: issue #27 class 8).
        if let Some(detail) = super::drawable_problem(&d) {
            return Err(Error::InvalidDrawable {
                index,
                detail,
                location: String::new(),
            });
        }
        let mut d = d;
        if let Drawable::Composite(c) = &mut d {
            c.members.sort_by(Primitive::drawing_cmp);
        }
        let mut tbox = TimeBox::EMPTY;
        for p in d.primitives() {
            for v in &p.vertices {
                tbox.widen(v.time);
            }
        }
        if let Some(prev) = self.last_end {
            if tbox.end < prev {
                return Err(Error::OrderViolation {
                    index,
                    end: tbox.end,
                    prev_end: prev,
                    location: String::new(),
                });
            }
        }
        let rec = d.byte_size();
        self.make_room(rec)?;

        // Resolve categories (and topologies of the members) before storing.
        let cat_topo = self.topology_of(d.category());
        let target = self.node_for(tbox.start);
        match &d {
            Drawable::Primitive(_) => self.note_topology(target, cat_topo),
            Drawable::Composite(c) => {
                for m in &c.members {
                    let t = self.topology_of(m.category);
                    self.note_topology(target, t);
                }
            }
        }
        let nestable = matches!(d, Drawable::Composite(_)) || cat_topo == Topology::State;
        let key = DrawingKey::of_drawable(&d, tbox);
        let primitives = d.primitives().len();
        self.store(target, d, key, nestable, rec, primitives, tbox.end);
        Ok(())
    }

    /// Close the leaf and every ancestor that has all its children (§9.3).
    fn advance(&mut self) -> Result<()> {
        let n = self.opts.children_per_node as i32;
        let mut next = NodeId::new(0, self.trunk[0].id.xpos + 1);
        let mut d = 0;
        while d < self.trunk.len() {
            if self.trunk[d].id == next {
                break;
            }
            self.close_node(d, false)?;
            let node = &mut self.trunk[d];
            let old_start = node.start;
            node.start = node.end;
            node.id = next;
            next = next.parent(n);
            if d == self.trunk.len() - 1 {
                self.trunk.push(OpenNode::new(next, old_start));
                break;
            }
            d += 1;
        }
        Ok(())
    }

    /// Close trunk node `d` (§9.4): fix its time box and hand it to the node
    /// thread, which writes it and keeps its outgoing buffer (stub) for the
    /// parent. The node is left empty for its next position.
    pub(super) fn close_node(&mut self, d: usize, root: bool) -> Result<()> {
        let (below, rest) = self.trunk.split_at_mut(d);
        let node = &mut rest[0];
        node.end = match below.last() {
            None => self.last_end.unwrap_or(node.start),
            Some(c) => c.end,
        };
        if node.start > node.end {
            // Only possible for a node that never received anything.
            node.start = node.end;
        }
        let mut job = NodeJob {
            level: d,
            id: node.id,
            time_box: TimeBox::new(node.start, node.end),
            bytes: node.bytes,
            drawables: std::mem::replace(&mut node.drawables, self.encoder.recycled()),
            root,
        };
        // The drawing order is sorted on whichever side has time: here when
        // the node thread is behind (a source that is cheap to read, such as
        // CLOG2), there otherwise (a text trace, whose parsing is the longer
        // side). The bytes are the same either way.
        if !self.encoder.block_thread && self.encoder.node_thread_behind() {
            job.drawables.sort();
        }
        // Lists that come back new grow to the last node's size at once.
        node.drawables.reserve_like(&job.drawables);
        node.bytes = NODE_OVERHEAD;
        self.encoder.send(job)
    }
}
