//! Child stubs and their shadows: the preview half of a node block (spec
//! §7.4, §7.5).
//!
//! A non-leaf node ends with one *stub* per child: the child's header (box,
//! ID, block pointer) and two lists of *shadows* — records that summarise
//! every primitive of the child's subtree with the same topology and line
//! IDs (their count, averaged vertices, box and per-category weights). A
//! viewer that does not read the child draws these instead (spec §8.3).
//!
//! Shadows are read in place as [`ShadowRef`]s (fixed fields checked,
//! vertices and weights left as slices), so a zoomed-out preview that shows
//! 10⁵ shadows builds no vector per shadow. The stub list has one walk,
//! [`walk_stubs`], which hands each stub and each shadow to a [`StubSink`];
//! [`decode_stubs`] (owned [`Stub`]s) and [`visit_stub_shadows`] (previews)
//! are two sinks of it.

use super::bytes::{
    be_f64, be_i32, be_i64, f32_bytes, f64_bytes, put_f32, put_f64, put_i16, put_i32, put_i64,
    Decoder,
};
use super::directory::{decode_entry_header, encode_entry_header, DirEntry};
use super::record::vertex_count;
use crate::error::Result;
use crate::model::*;

/// Stub header plus its two shadow-list counts.
pub const STUB_OVERHEAD: usize = 42;

/// A lower bound of a shadow record's bytes, for bounding counts.
const MIN_SHADOW: usize = 36;

pub fn encode_shadow(out: &mut Vec<u8>, s: &Shadow) {
    let nv = s.vertices.len();
    if nv > 2 {
        return encode_shadow_any(out, s);
    }
    // Every state, arrow and event shadow: the fixed part in one copy, then
    // one per weight (no capacity check per field).
    let mut r = [0u8; 60];
    r[0..4].copy_from_slice(&s.category.to_be_bytes());
    r[6..8].copy_from_slice(&(nv as i16).to_be_bytes());
    for (k, v) in s.vertices.iter().enumerate() {
        let o = 8 + 12 * k;
        r[o..o + 8].copy_from_slice(&f64_bytes(v.time));
        r[o + 8..o + 12].copy_from_slice(&v.line.to_be_bytes());
    }
    let at = 8 + 12 * nv;
    r[at..at + 8].copy_from_slice(&f64_bytes(s.time_box.start));
    r[at + 8..at + 16].copy_from_slice(&f64_bytes(s.time_box.end));
    r[at + 16..at + 24].copy_from_slice(&s.num_real.to_be_bytes());
    r[at + 24..at + 28].copy_from_slice(&(s.weights.len() as i32).to_be_bytes());
    let len = out.len();
    out.extend_from_slice(&r);
    out.truncate(len + at + 28);
    for w in &s.weights {
        let mut b = [0u8; 20];
        b[0..4].copy_from_slice(&w.category.to_be_bytes());
        b[4..8].copy_from_slice(&f32_bytes(w.incl));
        b[8..12].copy_from_slice(&f32_bytes(w.excl));
        b[12..20].copy_from_slice(&w.count.to_be_bytes());
        out.extend_from_slice(&b);
    }
}

/// [`encode_shadow`] field by field, for any number of vertices.
fn encode_shadow_any(out: &mut Vec<u8>, s: &Shadow) {
    put_i32(out, s.category);
    put_i16(out, 0);
    put_i16(out, s.vertices.len() as i16);
    for v in &s.vertices {
        put_f64(out, v.time);
        put_i32(out, v.line);
    }
    put_f64(out, s.time_box.start);
    put_f64(out, s.time_box.end);
    put_i64(out, s.num_real);
    put_i32(out, s.weights.len() as i32);
    for w in &s.weights {
        put_i32(out, w.category);
        put_f32(out, w.incl);
        put_f32(out, w.excl);
        put_i64(out, w.count);
    }
}

/// A shadow record read in place (spec §7.5): its fixed fields decoded and
/// checked, its vertices (12 bytes each) and weights (20 bytes each) left
/// as slices of the block. Previews turn these into rows without building
/// a [`Shadow`] (vectors of vertices and weights) per record.
#[derive(Debug, Clone, Copy)]
pub struct ShadowRef<'a> {
    pub category: i32,
    pub time_box: TimeBox,
    pub num_real: i64,
    vertices: &'a [u8],
    weights: &'a [u8],
}

impl<'a> ShadowRef<'a> {
    pub fn vertices(&self) -> impl ExactSizeIterator<Item = Vertex> + 'a {
        self.vertices.chunks_exact(12).map(|v| Vertex {
            time: be_f64(v, 0),
            line: be_i32(v, 8),
        })
    }

    /// Line IDs of the first and of the last vertex (there is at least one).
    pub fn lines(&self) -> (i32, i32) {
        let n = self.vertices.len();
        (be_i32(self.vertices, 8), be_i32(self.vertices, n - 4))
    }

    pub fn weights(&self) -> impl ExactSizeIterator<Item = Weight> + 'a {
        self.weights.chunks_exact(20).map(|w| Weight {
            category: be_i32(w, 0),
            incl: f32::from_be_bytes([w[4], w[5], w[6], w[7]]),
            excl: f32::from_be_bytes([w[8], w[9], w[10], w[11]]),
            count: be_i64(w, 12),
        })
    }

    pub fn to_shadow(&self) -> Shadow {
        Shadow {
            category: self.category,
            vertices: self.vertices().collect(),
            time_box: self.time_box,
            num_real: self.num_real,
            weights: self.weights().collect(),
        }
    }
}

/// Read one shadow record in place, checking `num_real >= 1`, at least one
/// weight, and that the weights' counts sum to `num_real` (invariant 19).
pub fn decode_shadow_ref<'a>(d: &mut Decoder<'a>) -> Result<ShadowRef<'a>> {
    let at = d.offset();
    let category = d.i32()?;
    d.info()?;
    let nv = vertex_count(d, "shadow")?;
    let vertices = d.bytes(nv * 12)?;
    let start = d.f64()?;
    let end = d.f64()?;
    let num_real = d.i64()?;
    let nw = d.count(20)?;
    if num_real < 1 || nw < 1 {
        return Err(d.malformed_at(
            at,
            format!("shadow with num_real {num_real} and {nw} weights (both must be >= 1)"),
        ));
    }
    let weights = d.bytes(nw * 20)?;
    let sum = weights
        .chunks_exact(20)
        .fold(0i64, |sum, w| sum.wrapping_add(be_i64(w, 12)));
    if sum != num_real {
        return Err(d.malformed_at(
            at,
            format!("weight counts sum to {sum}, num_real is {num_real}"),
        ));
    }
    Ok(ShadowRef {
        category,
        time_box: TimeBox::new(start, end),
        num_real,
        vertices,
        weights,
    })
}

pub fn decode_shadow(d: &mut Decoder) -> Result<Shadow> {
    decode_shadow_ref(d).map(|s| s.to_shadow())
}

/// A child stub as stored in its parent: the child's entry plus its shadows.
#[derive(Debug, Clone, PartialEq)]
pub struct Stub {
    pub entry: DirEntry,
    pub nestless: Vec<Shadow>,
    pub nestable: Vec<Shadow>,
}

impl Stub {
    pub fn byte_size(&self) -> usize {
        STUB_OVERHEAD
            + self
                .nestless
                .iter()
                .chain(&self.nestable)
                .map(Shadow::byte_size)
                .sum::<usize>()
    }
    pub fn shadows(&self) -> impl Iterator<Item = &Shadow> {
        self.nestless.iter().chain(self.nestable.iter())
    }
}

pub fn encode_stub(out: &mut Vec<u8>, s: &Stub) {
    encode_entry_header(out, &s.entry);
    put_i32(out, s.nestless.len() as i32);
    for sh in &s.nestless {
        encode_shadow(out, sh);
    }
    put_i32(out, s.nestable.len() as i32);
    for sh in &s.nestable {
        encode_shadow(out, sh);
    }
}

/// Receives a stub list from [`walk_stubs`]: each stub's entry, then its
/// shadows (`list` 0: nestless, 1: nestable).
pub trait StubSink<'a> {
    fn stub(&mut self, entry: &DirEntry);
    fn shadow(&mut self, entry: &DirEntry, list: u8, s: ShadowRef<'a>);
}

/// The stub list that ends a node block (count, then each stub's entry and
/// shadows) into `sink`; checks that the block ends with it.
pub fn walk_stubs<'a>(d: &mut Decoder<'a>, sink: &mut impl StubSink<'a>) -> Result<()> {
    d.set_what("child stub");
    let ns = d.count(STUB_OVERHEAD)?;
    for _ in 0..ns {
        let entry = decode_entry_header(d)?;
        sink.stub(&entry);
        for list in 0..2 {
            let n = d.count(MIN_SHADOW)?;
            for _ in 0..n {
                sink.shadow(&entry, list, decode_shadow_ref(d)?);
            }
        }
    }
    d.set_what("tree node");
    d.expect_end()
}

/// A decoder over the stub list of a node block, from the stub count at
/// `stubs_at`.
fn stub_decoder(block: &[u8], base: u64, stubs_at: usize) -> Result<Decoder<'_>> {
    let rest = block.get(stubs_at..).ok_or_else(|| {
        crate::Error::malformed("tree node", base, "stub offset beyond the block")
    })?;
    Ok(Decoder::new(rest, base + stubs_at as u64, "child stub"))
}

/// Walk the stub list that ends a node block (at `stubs_at`, see
/// [`NodeLayout`](super::NodeLayout)), handing each shadow in place to `f`
/// with its child's entry (nestless shadows of a stub, then its nestable
/// ones).
pub fn visit_stub_shadows<'a>(
    block: &'a [u8],
    base: u64,
    stubs_at: usize,
    f: impl FnMut(&DirEntry, ShadowRef<'a>),
) -> Result<()> {
    struct Shadows<F>(F);
    impl<'a, F: FnMut(&DirEntry, ShadowRef<'a>)> StubSink<'a> for Shadows<F> {
        fn stub(&mut self, _: &DirEntry) {}
        fn shadow(&mut self, entry: &DirEntry, _: u8, s: ShadowRef<'a>) {
            (self.0)(entry, s)
        }
    }
    walk_stubs(&mut stub_decoder(block, base, stubs_at)?, &mut Shadows(f))
}

/// The sink of [`walk_stubs`] that builds owned [`Stub`]s.
#[derive(Default)]
pub(super) struct StubsOf(pub Vec<Stub>);

impl<'a> StubSink<'a> for StubsOf {
    fn stub(&mut self, entry: &DirEntry) {
        self.0.push(Stub {
            entry: *entry,
            nestless: Vec::new(),
            nestable: Vec::new(),
        });
    }

    fn shadow(&mut self, _: &DirEntry, list: u8, s: ShadowRef<'a>) {
        if let Some(stub) = self.0.last_mut() {
            let l = if list == 0 {
                &mut stub.nestless
            } else {
                &mut stub.nestable
            };
            l.push(s.to_shadow());
        }
    }
}

/// Decode the child stubs of a node block, starting at the stub count
/// (`stubs_at` of [`scan_node`](super::scan_node)); checks that the block
/// ends with them.
pub fn decode_stubs(block: &[u8], base: u64, stubs_at: usize) -> Result<Vec<Stub>> {
    let mut sink = StubsOf::default();
    walk_stubs(&mut stub_decoder(block, base, stubs_at)?, &mut sink)?;
    Ok(sink.0)
}
