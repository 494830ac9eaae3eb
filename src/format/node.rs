//! Tree node blocks (spec §7.1): the unit a reader loads.
//!
//! ```text
//! header      f64 start, f64 end, i16 depth, i32 xpos, i64 offset, i32 size
//! i32 n       nestless records (arrows, events)     — see `record`
//! i32 n       nestable records (states, composites)
//! i32 n       child stubs with their shadows        — see `shadow`
//! ```
//!
//! Each list is in drawing order. A reader rarely wants all of a node, so
//! this module offers the node at three depths of decoding, all over the
//! same walk of the lists ([`visit_drawable`] with a sink per purpose):
//!
//! * [`scan_node`]: the [`RecordKey`] of every record and where the stubs
//!   begin — what a window query searches (no allocation per drawable);
//! * [`RecordWalk`]: a resumable walk that hands records to any
//!   [`RecordSink`] and can stop between any two (the whole-file scan
//!   fills batches with it);
//! * [`decode_node`]: owned drawables and stubs, for tools and tests.

use super::bytes::{put_i32, Decoder};
use super::directory::{decode_entry_header, encode_entry_header, DirEntry};
use super::record::{
    encode_drawable, record_key, visit_drawable, DrawableOf, RecordKey, RecordSink,
};
use super::shadow::{encode_stub, walk_stubs, Stub, StubsOf};
use crate::error::{Error, Result};
use crate::model::*;

/// Node header plus the three list counts.
pub const NODE_OVERHEAD: usize = 46;

/// The smallest drawable record (tag, category, info length, vertex count),
/// for bounding counts.
const MIN_RECORD: usize = 9;

/// A decoded tree node block.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub entry: DirEntry,
    /// Arrows and events.
    pub nestless: Vec<Drawable>,
    /// States and composites.
    pub nestable: Vec<Drawable>,
    pub stubs: Vec<Stub>,
}

impl Node {
    pub fn drawables(&self) -> impl Iterator<Item = &Drawable> {
        self.nestless.iter().chain(self.nestable.iter())
    }
}

/// Encode a node block; each drawable list is given as its length and the
/// drawables in the order to store them (drawing order). `entry.ptr` must
/// already hold the block's final offset and size (a block to be packed:
/// any). Returns where the stub count lies, from the start of the block.
pub fn encode_node<'a>(
    out: &mut Vec<u8>,
    entry: &DirEntry,
    nestless_len: usize,
    nestless: impl Iterator<Item = &'a Drawable>,
    nestable_len: usize,
    nestable: impl Iterator<Item = &'a Drawable>,
    stubs: &[Stub],
) -> usize {
    let start = out.len();
    encode_entry_header(out, entry);
    put_i32(out, nestless_len as i32);
    for d in nestless {
        encode_drawable(out, d);
    }
    put_i32(out, nestable_len as i32);
    for d in nestable {
        encode_drawable(out, d);
    }
    let stubs_at = out.len() - start;
    put_i32(out, stubs.len() as i32);
    for s in stubs {
        encode_stub(out, s);
    }
    stubs_at
}

/// The layout of a node block's drawables: one [`RecordKey`] per record of
/// each list (in stored order) and where the child stubs begin.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeLayout {
    pub entry: DirEntry,
    pub nestless: Vec<RecordKey>,
    pub nestable: Vec<RecordKey>,
    /// Offset of the stub count from the start of the block.
    pub stubs_at: usize,
}

/// Walk a node block's drawables (spec §7.1) and return their layout; the
/// stubs are not read. Node blocks are at most `i32::MAX` bytes, so `u32`
/// offsets hold.
pub fn scan_node(block: &[u8], base: u64) -> Result<NodeLayout> {
    let mut d = Decoder::new(block, base, "tree node");
    let entry = decode_entry_header(&mut d)?;
    let nestless = scan_list(&mut d)?;
    let nestable = scan_list(&mut d)?;
    Ok(NodeLayout {
        entry,
        nestless,
        nestable,
        stubs_at: d.pos(),
    })
}

/// A list's count, then each record's key.
fn scan_list(d: &mut Decoder) -> Result<Vec<RecordKey>> {
    let n = d.count(MIN_RECORD)?;
    let mut keys = Vec::with_capacity(n);
    for _ in 0..n {
        keys.push(record_key(d)?);
    }
    Ok(keys)
}

/// A resumable walk over the drawable records of one node block (spec
/// §7.1): the nestless list, then the nestable list, each in stored order;
/// the stubs are not read. It holds only positions, so a caller can stop
/// between any two records (e.g. when a batch of rows is full), keep a copy
/// to step back over the last record, and go on later with the same block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordWalk {
    /// Offset of the next record (or of the nestable count) in the block.
    pos: usize,
    /// Records left in the current list.
    left: usize,
    /// 0: in the nestless list, 1: in the nestable list, 2: done (`pos`
    /// is the stub count).
    list: u8,
}

impl RecordWalk {
    /// Start a walk: decode the node header and the nestless count (checked
    /// against the bytes left).
    pub fn new(block: &[u8], base: u64) -> Result<RecordWalk> {
        let mut d = Decoder::new(block, base, "tree node");
        decode_entry_header(&mut d)?;
        let left = d.count(MIN_RECORD)?;
        Ok(RecordWalk {
            pos: d.pos(),
            left,
            list: 0,
        })
    }

    /// Offset of the next record in the block (after the last one: the
    /// stub count).
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Decode the next record of `block` (the block this walk was started
    /// on) into `sink`; `Ok(false)` when both lists are done.
    #[inline(always)]
    pub fn next(&mut self, block: &[u8], base: u64, sink: &mut impl RecordSink) -> Result<bool> {
        if self.pos > block.len() {
            return Err(Error::malformed(
                "tree node",
                base,
                "record walk beyond its block (a walk resumed on another block)",
            ));
        }
        let mut d = Decoder::at(block, self.pos, base, "tree node");
        while self.left == 0 {
            if self.list >= 1 {
                self.list = 2;
                return Ok(false);
            }
            self.left = d.count(MIN_RECORD)?;
            self.list = 1;
            self.pos = d.pos();
        }
        visit_drawable(&mut d, sink)?;
        self.left -= 1;
        self.pos = d.pos();
        Ok(true)
    }
}

impl RecordWalk {
    /// Decode every record left of `block` into `sink`, each one after
    /// `at(sink, offset)` with the offset of its tag in the block: a whole
    /// block's walk without [`next`](Self::next)'s checks of a resumed one
    /// (one decoder for the block, not one per record).
    #[inline(always)]
    pub fn run<S: RecordSink>(
        &mut self,
        block: &[u8],
        base: u64,
        sink: &mut S,
        mut at: impl FnMut(&mut S, usize),
    ) -> Result<()> {
        // The check is `next`'s, written out: factored into a function
        // (three ways tried), walk_nodes' code around `run` came out 2 %
        // more instructions (BENCHMARKS.md, "Statistics").
        if self.pos > block.len() {
            return Err(Error::malformed(
                "tree node",
                base,
                "record walk beyond its block (a walk resumed on another block)",
            ));
        }
        let mut d = Decoder::at(block, self.pos, base, "tree node");
        loop {
            while self.left == 0 {
                if self.list >= 1 {
                    self.list = 2;
                    self.pos = d.pos();
                    return Ok(());
                }
                self.left = d.count(MIN_RECORD)?;
                self.list = 1;
            }
            at(sink, d.pos());
            visit_drawable(&mut d, sink)?;
            self.left -= 1;
        }
    }
}

/// What to decode from a node block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeParts {
    /// Drawables and stubs.
    All,
    /// Only the header and drawables (skip the shadows).
    Drawables,
}

/// Decode a node block (spec §7). Checks the tags, counts and that the block is
/// consumed exactly (invariants 5, 12).
pub fn decode_node(block: &[u8], base: u64, parts: NodeParts) -> Result<Node> {
    let mut d = Decoder::new(block, base, "tree node");
    let entry = decode_entry_header(&mut d)?;
    let mut lists = [Vec::new(), Vec::new()];
    for list in &mut lists {
        let n = d.count(MIN_RECORD)?;
        list.reserve_exact(n);
        let mut sink = DrawableOf::default();
        for _ in 0..n {
            visit_drawable(&mut d, &mut sink)?;
            list.extend(sink.take());
        }
    }
    let [nestless, nestable] = lists;
    let mut stubs = StubsOf::default();
    if parts == NodeParts::All {
        walk_stubs(&mut d, &mut stubs)?;
    }
    Ok(Node {
        entry,
        nestless,
        nestable,
        stubs: stubs.0,
    })
}

#[cfg(test)]
mod tests {
    //! The record walk's fast path against its checked path, on valid
    //! nodes and on the same nodes with bytes changed or cut: the keys of
    //! [`scan_node`] must equal those of a walk that takes the checked path
    //! for every record, and the errors must be the same.
    use super::super::bytes::Decoder;
    use super::super::header::BlockPtr;
    use super::super::record::{KeyOf, PrimRef};
    use super::*;
    use proptest::prelude::*;

    /// The layout with every record read field by field (the fast path
    /// defeated by handing the walk one record's bytes at a time would
    /// change offsets, so the checked path is called directly).
    fn slow_scan(block: &[u8], base: u64) -> Result<(Vec<RecordKey>, Vec<RecordKey>, usize)> {
        let mut d = Decoder::new(block, base, "tree node");
        decode_entry_header(&mut d)?;
        let mut lists = [Vec::new(), Vec::new()];
        for list in &mut lists {
            let n = d.count(MIN_RECORD)?;
            for _ in 0..n {
                let at = d.pos();
                let mut k = KeyOf::default();
                super::super::record::visit_checked_for_tests(&mut d, &mut k)?;
                list.push(k.key(at, d.pos() - at));
            }
        }
        let [a, b] = lists;
        Ok((a, b, d.pos()))
    }

    fn prim(cat: i32, info: Vec<u8>, verts: Vec<(f64, i32)>) -> Primitive {
        Primitive::new(
            cat,
            verts
                .into_iter()
                .map(|(t, l)| Vertex::new(t, l))
                .collect::<Vertices>(),
            InfoBytes::from_vec(info),
        )
    }

    fn drawable() -> impl Strategy<Value = Drawable> {
        let time = prop_oneof![
            -1e3..1e3f64,
            Just(f64::INFINITY),
            Just(f64::NAN),
            Just(-0.0)
        ];
        let p = (
            -3..40i32,
            proptest::collection::vec(any::<u8>(), 0..40),
            proptest::collection::vec((time, -2..9i32), 1..5),
        );
        prop_oneof![
            4 => p.clone().prop_map(|(c, i, v)| Drawable::Primitive(prim(c, i, v))),
            1 => (0..9i32, proptest::collection::vec(p, 1..4)).prop_map(|(c, ms)| {
                Drawable::Composite(Composite {
                    category: c,
                    info: InfoBytes::new(),
                    members: ms.into_iter().map(|(c, i, v)| prim(c, i, v)).collect(),
                })
            }),
        ]
    }

    fn bits(v: &[RecordKey]) -> Vec<(u64, u64, i32, i32, i32, u32, u32)> {
        // NaN times make keys unequal to themselves: compare bits.
        v.iter()
            .map(|k| {
                (
                    k.start.to_bits(),
                    k.end.to_bits(),
                    k.category,
                    k.first_line,
                    k.last_line,
                    k.offset,
                    k.len,
                )
            })
            .collect()
    }

    /// Every sink call, a primitive's box as bits (NaN times).
    #[derive(Default)]
    struct Calls(Vec<(bool, i32, u64, u64, usize)>);

    impl RecordSink for Calls {
        fn composite(&mut self, category: i32, _info: &[u8], members: usize) {
            self.0.push((true, category, 0, 0, members));
        }
        fn primitive(&mut self, p: &PrimRef<'_>, member: bool) {
            let b = (p.tbox.start.to_bits(), p.tbox.end.to_bits());
            self.0
                .push((false, p.category, b.0, b.1, usize::from(member)));
        }
    }

    /// A node at the origin holding `a` (nestless) and `b` (nestable).
    fn node_block(a: &[Drawable], b: &[Drawable]) -> Vec<u8> {
        let entry = DirEntry {
            id: NodeId { depth: 0, xpos: 0 },
            time_box: TimeBox::new(0.0, 1.0),
            ptr: BlockPtr::new(0, 0),
        };
        let mut block = Vec::new();
        encode_node(
            &mut block,
            &entry,
            a.len(),
            a.iter(),
            b.len(),
            b.iter(),
            &[],
        );
        block
    }

    proptest! {
        /// `run` makes the sink calls of `next` record by record, with the
        /// same error, and hands over each record's tag offset.
        #[test]
        fn run_equals_next(
            a in proptest::collection::vec(drawable(), 0..20),
            b in proptest::collection::vec(drawable(), 0..20),
            edit in any::<Option<(prop::sample::Index, u8)>>(),
            cut in any::<Option<prop::sample::Index>>(),
        ) {
            let mut block = node_block(&a, &b);
            let keys = scan_node(&block, 0).map(|l| {
                l.nestless.iter().chain(&l.nestable).map(|k| k.offset as usize).collect::<Vec<_>>()
            });
            if let Some((i, v)) = edit {
                let i = i.index(block.len());
                block[i] = v;
            }
            if let Some(c) = cut {
                let c = c.index(block.len() + 1);
                block.truncate(c);
            }
            let Ok(walk) = RecordWalk::new(&block, 0) else {
                return Ok(());
            };
            let (mut by_next, mut by_run) = (Calls::default(), Calls::default());
            let mut w = walk;
            let next = loop {
                match w.next(&block, 0, &mut by_next) {
                    Ok(true) => {}
                    Ok(false) => break Ok(()),
                    Err(e) => break Err(e.to_string()),
                }
            };
            let mut offsets = Vec::new();
            let mut w = walk;
            let run = w
                .run(&block, 0, &mut by_run, |_, at| offsets.push(at))
                .map_err(|e| e.to_string());
            prop_assert_eq!(&run, &next);
            prop_assert_eq!(by_run.0, by_next.0);
            if edit.is_none() && cut.is_none() {
                prop_assert_eq!(Ok(offsets), keys.map_err(|e| e.to_string()));
                prop_assert!(run.is_ok());
            }
        }

        #[test]
        fn fast_scan_equals_checked_scan(
            a in proptest::collection::vec(drawable(), 0..30),
            b in proptest::collection::vec(drawable(), 0..30),
            edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
            cut in any::<Option<prop::sample::Index>>(),
        ) {
            let mut block = node_block(&a, &b);
            let valid = block.clone();
            for (i, v) in &edits {
                let i = i.index(block.len());
                block[i] = *v;
            }
            if let Some(c) = cut {
                let c = c.index(block.len() + 1);
                block.truncate(c);
            }
            let fast = scan_node(&block, 1000);
            let slow = slow_scan(&block, 1000);
            match (fast, slow) {
                (Ok(f), Ok((sa, sb, at))) => {
                    prop_assert_eq!(bits(&f.nestless), bits(&sa));
                    prop_assert_eq!(bits(&f.nestable), bits(&sb));
                    prop_assert_eq!(f.stubs_at, at);
                }
                (Err(f), Err(s)) => prop_assert_eq!(f.to_string(), s.to_string()),
                (f, s) => prop_assert!(false, "fast {:?} vs checked {:?}", f.map(|_| ()), s.map(|_| ())),
            }
            // The owned decode of the intact block gives the drawables back,
            // with the keys' boxes.
            let node = decode_node(&valid, 0, NodeParts::All).unwrap();
            let keys = scan_node(&valid, 0).unwrap();
            let boxes = |v: &[Drawable]| v.iter().map(|d| {
                let b = d.time_box();
                (b.start.to_bits(), b.end.to_bits(), d.category())
            }).collect::<Vec<_>>();
            let kboxes = |v: &[RecordKey]| v.iter().map(|k| (k.start.to_bits(), k.end.to_bits(), k.category)).collect::<Vec<_>>();
            prop_assert_eq!(boxes(&node.nestless), kboxes(&keys.nestless));
            prop_assert_eq!(boxes(&node.nestable), kboxes(&keys.nestable));
            prop_assert_eq!(node.nestless.len(), a.len());
            prop_assert_eq!(node.nestable.len(), b.len());
        }
    }
}
