//! A record walk for sparse sets of tree nodes (a file's inner nodes), with
//! no kernel advice.
//!
//! The fold's walk (`walk::walk_nodes`) asks the kernel to map runs of
//! nearby blocks at once and to read ahead: the right thing for a whole
//! pass, the wrong one for inner nodes alone — their blocks are mostly
//! child shadows (40 % of a 10⁷-drawable file) that nothing here reads, and
//! the runs between them are leaves. Walked here, an inner node faults in
//! only the pages of its drawable lists (usually its first page).
//!
//! It hands records to a [`Visitor`] exactly as the fold's walk does (same
//! [`PrimitiveRef`] / [`CompositeRef`] values, members before their
//! composite), every record of the nodes (no selection).

use crate::error::Result;
use crate::format::{PrimRef, RecordSink, RecordWalk};
use crate::model::{TimeBox, Topology};
use crate::read::Slog2File;

use super::lookup::Lookup;
use super::walk::{drawable_bytes, CompositeRef, PrimitiveRef, RecordAt, Visitor};

/// Walk every record of `nodes` (directory positions) into `v`.
pub(crate) fn walk_sparse<V: Visitor>(file: &Slog2File, nodes: &[u32], v: &mut V) -> Result<()> {
    let topo = Lookup::new(
        file.categories()
            .iter()
            .filter(|c| !c.is_preview())
            .map(|c| (c.index, c.topology)),
    );
    let mut unpacked = Vec::new();
    let mut sink = Sink {
        v,
        topo: &topo,
        at: RecordAt {
            node: 0,
            offset: 0,
            member: -1,
        },
        comp: (0, Vec::new(), TimeBox::EMPTY, (0, 0), 0, 0),
    };
    for &pos in nodes {
        let (block, base) = drawable_bytes(file, pos, &mut unpacked)?;
        let mut walk = RecordWalk::new(block, base)?;
        sink.at.node = pos;
        loop {
            sink.at.offset = walk.pos() as u32;
            sink.at.member = -1;
            if !walk.next(block, base, &mut sink)? {
                break;
            }
        }
    }
    Ok(())
}

struct Sink<'a, V> {
    v: &'a mut V,
    topo: &'a Lookup<Topology>,
    at: RecordAt,
    /// The composite being read: category, info, box, (first, last) line,
    /// members, members left.
    comp: (i32, Vec<u8>, TimeBox, (i32, i32), usize, usize),
}

impl<V: Visitor> RecordSink for Sink<'_, V> {
    fn composite(&mut self, category: i32, info: &[u8], members: usize) {
        let c = &mut self.comp;
        c.0 = category;
        c.1.clear();
        c.1.extend_from_slice(info);
        c.2 = TimeBox::EMPTY;
        c.4 = members;
        c.5 = members;
        self.at.member = 0;
    }

    fn primitive(&mut self, p: &PrimRef<'_>, member: bool) {
        let (category, info, tbox) = (p.category, p.info, p.tbox);
        let (first, last) = (p.first(), p.last());
        self.v.primitive(&PrimitiveRef {
            category,
            topology: self.topo.get(category).unwrap_or(Topology::State),
            info,
            start: tbox.start,
            end: tbox.end,
            time0: first.time,
            line0: first.line,
            time1: last.time,
            line1: last.line,
            composite: member.then_some(self.comp.0),
            at: self.at,
        });
        let c = &mut self.comp;
        if !member || c.5 == 0 {
            return;
        }
        if c.5 == c.4 {
            c.3 .0 = first.line;
        }
        c.3 .1 = last.line;
        c.2 = c.2.union(&tbox);
        c.5 -= 1;
        self.at.member += 1;
        if c.5 == 0 {
            let c = &self.comp;
            self.v.composite(&CompositeRef {
                category: c.0,
                info: &c.1,
                start: c.2.start,
                end: c.2.end,
                line0: c.3 .0,
                line1: c.3 .1,
                members: c.4,
                at: RecordAt {
                    member: -1,
                    ..self.at
                },
            });
        }
    }
}
