//! Drawable records inside node blocks (spec §7.2, §7.3), and the one walk
//! that reads them.
//!
//! A record is a tag byte (0 primitive, 1 composite) and then:
//!
//! * primitive: `i32 category`, `i16 info_len` + payload, `i16 nverts`,
//!   `nverts × (f64 time, i32 line)`;
//! * composite: `i32 category`, `i16 info_len` + payload, `i16 nprims`,
//!   then that many primitive records *without* tags.
//!
//! A drawable's box is not stored: it is the envelope of its vertex times
//! (of its members' boxes, for a composite).
//!
//! # One walk, many results
//!
//! Readers want different things from the same bytes: a window query wants
//! each record's *key* (box, drawing-order key, byte range) to search a
//! node; a row query wants columns; `read_node` wants owned [`Drawable`]s.
//! All of them go through [`visit_drawable`], which checks a record and
//! hands its parts to a [`RecordSink`] — [`PrimRef`]s that point into the
//! block — and each reader is a sink: [`KeyOf`] (keys), [`DrawableOf`]
//! (drawables), the row sinks of `read::rows` (columns). So the rules of
//! what a valid record is, and what box and lines it has, exist once.
//!
//! The walk has two paths, and the fast one is a specialisation of the
//! other, not a second reader: a primitive whose head, payload and vertex
//! list all lie inside the block (nearly every record) is checked with one
//! bounds check and read at fixed offsets; everything else — composites,
//! negative or oversized counts, a record cut by the block's end — takes
//! the checked path, which reads field by field through the
//! [`Decoder`] and reports the error with its byte offset.
//! The whole-file scan decodes 10⁷ records a second, where the checked
//! path's bounds check and `Result` per field cost more than the record's
//! bytes. A property test (`tests` below) holds the two paths to the same
//! keys and the same errors on valid and on damaged blocks.

use super::bytes::{be_f64, be_i32, check_len, f64_bytes, put_i16, put_i32, Decoder, MAX_I16};
use crate::error::{Error, Result};
use crate::model::*;

// ---------------------------------------------------------------------------
// Encoding

#[inline(always)]
pub fn encode_primitive(out: &mut Vec<u8>, p: &Primitive) {
    // States, arrows and events with short info (nearly all) in one copy.
    let (info, vs) = (p.info.as_slice(), p.vertices.as_slice());
    let (ni, nv) = (info.len(), vs.len());
    if (ni == 0 || ni == 8 || ni == 32) && nv <= 2 {
        // Fixed-size copies only (no `memcpy` calls): no info, two 4-byte
        // values (the MPE message labels) or an MPE cargo of 32 bytes, and
        // the record written whole.
        let mut r = [0u8; 72];
        r[0..4].copy_from_slice(&p.category.to_be_bytes());
        r[4..6].copy_from_slice(&(ni as i16).to_be_bytes());
        if ni == 8 {
            r[6..14].copy_from_slice(&info[..8]);
        } else if ni == 32 {
            r[6..38].copy_from_slice(&info[..32]);
        }
        let at = 6 + ni;
        r[at..at + 2].copy_from_slice(&(nv as i16).to_be_bytes());
        for (k, v) in vs.iter().enumerate() {
            let o = at + 2 + 12 * k;
            r[o..o + 8].copy_from_slice(&f64_bytes(v.time));
            r[o + 8..o + 12].copy_from_slice(&v.line.to_be_bytes());
        }
        let len = out.len();
        out.extend_from_slice(&r);
        out.truncate(len + 8 + ni + 12 * nv);
        return;
    }
    put_i32(out, p.category);
    put_i16(out, p.info.len() as i16);
    out.extend_from_slice(&p.info);
    put_i16(out, p.vertices.len() as i16);
    for v in &p.vertices {
        out.extend_from_slice(&f64_bytes(v.time));
        put_i32(out, v.line);
    }
}

#[inline(always)]
pub fn encode_drawable(out: &mut Vec<u8>, d: &Drawable) {
    match d {
        Drawable::Primitive(p) => {
            out.push(0);
            encode_primitive(out, p);
        }
        Drawable::Composite(c) => {
            out.push(1);
            put_i32(out, c.category);
            put_i16(out, c.info.len() as i16);
            out.extend_from_slice(&c.info);
            put_i16(out, c.members.len() as i16);
            for m in &c.members {
                encode_primitive(out, m);
            }
        }
    }
}

/// Check that a drawable's length fields fit their on-disk widths.
pub fn check_drawable(d: &Drawable) -> Result<()> {
    // The usual case in two comparisons.
    if let Drawable::Primitive(p) = d {
        if p.info.len() <= MAX_I16 && (1..=MAX_I16).contains(&p.vertices.len()) {
            return Ok(());
        }
    }
    check_len("info payload", d.info().len())?;
    if let Drawable::Composite(c) = d {
        check_len("composite member list", c.members.len())?;
        if c.members.is_empty() {
            return Err(Error::InvalidArgument("composite has no members".into()));
        }
    }
    for p in d.primitives() {
        check_len("info payload", p.info.len())?;
        check_len("vertex list", p.vertices.len())?;
        if p.vertices.is_empty() {
            return Err(Error::InvalidArgument("primitive has no vertices".into()));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// The walk

/// One primitive record (or composite member) as it lies in its block: the
/// fixed fields decoded and checked, the payload and the vertices (12 bytes
/// each, at least one) left as slices of the block, and the box computed.
#[derive(Debug, Clone, Copy)]
pub struct PrimRef<'a> {
    pub category: i32,
    pub info: &'a [u8],
    /// Envelope of the vertex times.
    pub tbox: TimeBox,
    vertices: &'a [u8],
    first: &'a [u8; 12],
    last: &'a [u8; 12],
}

/// A vertex from its 12 bytes.
#[inline(always)]
fn vertex(v: &[u8; 12]) -> Vertex {
    let [t0, t1, t2, t3, t4, t5, t6, t7, l0, l1, l2, l3] = *v;
    Vertex::new(
        f64::from_be_bytes([t0, t1, t2, t3, t4, t5, t6, t7]),
        i32::from_be_bytes([l0, l1, l2, l3]),
    )
}

impl<'a> PrimRef<'a> {
    /// A record from its parts; `None` without a vertex.
    #[inline(always)]
    fn new(category: i32, info: &'a [u8], vertices: &'a [u8]) -> Option<PrimRef<'a>> {
        let first: &[u8; 12] = vertices.first_chunk()?;
        let last: &[u8; 12] = vertices.last_chunk()?;
        // The envelope in vertex order, without a loop for the one or two
        // vertices of nearly every record (widening twice by the same time
        // changes nothing).
        let mut tbox = TimeBox::EMPTY;
        tbox.widen(vertex(first).time);
        if vertices.len() > 24 {
            for v in vertices[12..vertices.len() - 12].chunks_exact(12) {
                tbox.widen(be_f64(v, 0));
            }
        }
        tbox.widen(vertex(last).time);
        Some(PrimRef {
            category,
            info,
            tbox,
            vertices,
            first,
            last,
        })
    }

    /// The first vertex.
    #[inline(always)]
    pub fn first(&self) -> Vertex {
        vertex(self.first)
    }

    /// The last vertex (the first, for an event).
    #[inline(always)]
    pub fn last(&self) -> Vertex {
        vertex(self.last)
    }

    pub fn vertices(&self) -> impl ExactSizeIterator<Item = Vertex> + 'a {
        self.vertices
            .chunks_exact(12)
            .map(|v| Vertex::new(be_f64(v, 0), be_i32(v, 8)))
    }

    pub fn to_primitive(&self) -> Primitive {
        // One or two vertices (nearly every record) without an iterator.
        let vertices = match self.vertices.len() {
            12 => Vertices::from_buf_and_len([self.first(), self.first()], 1),
            24 => Vertices::from_buf([self.first(), self.last()]),
            _ => self.vertices().collect(),
        };
        Primitive {
            category: self.category,
            info: InfoBytes::from_slice(self.info),
            vertices,
        }
    }
}

/// Receives the parts of one drawable record from [`visit_drawable`], so a
/// caller lays them out as it likes (keys, columns, drawables).
pub trait RecordSink {
    /// A composite's header; its `members` primitives follow.
    fn composite(&mut self, category: i32, info: &[u8], members: usize);
    /// A primitive (`member`: of the composite announced before it).
    fn primitive(&mut self, p: &PrimRef<'_>, member: bool);
}

/// The primitive record at `at` (after a tag byte 0 when `TAG`), if it
/// lies wholly inside `b` with at least one vertex: the record and the
/// offset after it. `None` leaves the verdict (and the error) to the checked
/// path.
#[inline(always)]
fn primitive_at<const TAG: bool>(b: &[u8], at: usize) -> Option<(PrimRef<'_>, usize)> {
    let rec = b.get(at..)?;
    let rec = if TAG {
        let (&tag, rec) = rec.split_first()?;
        if tag != 0 {
            return None;
        }
        rec
    } else {
        rec
    };
    let head: &[u8; 6] = rec.first_chunk()?;
    let category = i32::from_be_bytes([head[0], head[1], head[2], head[3]]);
    let vat = 6 + i16::from_be_bytes([head[4], head[5]]).max(0) as usize;
    let nv: &[u8; 2] = rec.get(vat..)?.first_chunk()?;
    let nv = i16::from_be_bytes(*nv);
    if nv < 1 {
        return None;
    }
    let end = vat + 2 + 12 * nv as usize;
    let (info_at, vertices) = rec.get(..end)?.split_at(vat + 2);
    let p = PrimRef::new(category, &info_at[6..vat], vertices)?;
    Some((p, at + usize::from(TAG) + end))
}

/// A vertex count (i16) checked against the bytes left: at least one
/// vertex, 12 bytes each. `kind` names the item in errors.
pub(super) fn vertex_count(d: &mut Decoder, kind: &str) -> Result<usize> {
    let at = d.offset();
    let nv = d.i16()?;
    if nv < 1 {
        return Err(d.malformed_at(at, format!("{kind} with {nv} vertices")));
    }
    let nv = nv as usize;
    if nv * 12 > d.remaining() {
        return Err(d.malformed_at(at, format!("{nv} vertices do not fit the block")));
    }
    Ok(nv)
}

/// One primitive record (no tag) field by field, with the errors.
#[cold]
fn primitive_checked<'a>(d: &mut Decoder<'a>) -> Result<PrimRef<'a>> {
    let category = d.i32()?;
    let info = d.info()?;
    let nv = vertex_count(d, "primitive")?;
    let vertices = d.bytes(nv * 12)?;
    // `vertex_count` checked that there is at least one.
    PrimRef::new(category, info, vertices).ok_or_else(|| d.malformed("primitive without vertices"))
}

/// One primitive record (no tag) into `sink`: the fast path (when `FAST`),
/// else the checked one.
#[inline(always)]
fn visit_primitive<const FAST: bool>(
    d: &mut Decoder,
    sink: &mut impl RecordSink,
    member: bool,
) -> Result<()> {
    if FAST {
        if let Some((p, end)) = primitive_at::<false>(d.buf, d.pos) {
            sink.primitive(&p, member);
            d.pos = end;
            return Ok(());
        }
    }
    let p = primitive_checked(d)?;
    sink.primitive(&p, member);
    Ok(())
}

/// Decode one drawable record (tag included) into `sink`.
#[inline(always)]
pub fn visit_drawable(d: &mut Decoder, sink: &mut impl RecordSink) -> Result<()> {
    if let Some((p, end)) = primitive_at::<true>(d.buf, d.pos) {
        sink.primitive(&p, false);
        d.pos = end;
        return Ok(());
    }
    visit_drawable_checked::<true>(d, sink)
}

/// [`visit_drawable`] for everything but a well-formed primitive: field by
/// field, except composite members (when `FAST`).
#[inline(never)]
fn visit_drawable_checked<const FAST: bool>(
    d: &mut Decoder,
    sink: &mut impl RecordSink,
) -> Result<()> {
    let at = d.offset();
    match d.u8()? {
        0 => visit_primitive::<FAST>(d, sink, false),
        1 => {
            let category = d.i32()?;
            let info = d.info()?;
            let nat = d.offset();
            let n = d.i16()?;
            if n < 1 {
                return Err(d.malformed_at(nat, format!("composite with {n} members")));
            }
            sink.composite(category, info, n as usize);
            for _ in 0..n {
                visit_primitive::<FAST>(d, sink, true)?;
            }
            Ok(())
        }
        t => Err(d.malformed_at(at, format!("drawable tag {t} is neither 0 nor 1"))),
    }
}

/// [`visit_drawable`] with the fast path switched off: the property test
/// holds the two to the same results.
#[cfg(test)]
pub(super) fn visit_checked_for_tests(d: &mut Decoder, sink: &mut impl RecordSink) -> Result<()> {
    visit_drawable_checked::<false>(d, sink)
}

// ---------------------------------------------------------------------------
// Sinks

/// What a window query needs to know about one drawable record without
/// decoding it: its time box, the rest of its drawing-order key and where the
/// record (tag included) lies in its node block. Built by [`scan_node`](super::scan_node).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RecordKey {
    pub start: f64,
    pub end: f64,
    pub category: i32,
    pub first_line: i32,
    pub last_line: i32,
    /// Offset of the tag byte from the start of the node block.
    pub offset: u32,
    /// Bytes of the record, tag included.
    pub len: u32,
}

impl RecordKey {
    /// The key of a primitive record at `offset` of `len` bytes: its own box
    /// and the lines of its first and last vertex.
    #[inline(always)]
    pub fn of_primitive(p: &PrimRef<'_>, offset: usize, len: usize) -> RecordKey {
        RecordKey {
            start: p.tbox.start,
            end: p.tbox.end,
            category: p.category,
            first_line: p.first().line,
            last_line: p.last().line,
            offset: offset as u32,
            len: len as u32,
        }
    }
}

/// The sink that makes a record's [`RecordKey`]: a primitive's own box and
/// lines; a composite's category, the union of its members' boxes, its first
/// member's first line and its last member's last line.
#[derive(Debug, Clone, Copy)]
pub struct KeyOf {
    tbox: TimeBox,
    category: i32,
    first_line: i32,
    last_line: i32,
    /// Members of the current composite seen so far.
    members: usize,
}

impl Default for KeyOf {
    fn default() -> Self {
        KeyOf {
            tbox: TimeBox::EMPTY,
            category: 0,
            first_line: 0,
            last_line: 0,
            members: 0,
        }
    }
}

impl KeyOf {
    /// The key of the record just visited, which lies at `offset` and has
    /// `len` bytes (tag included).
    #[inline(always)]
    pub fn key(&self, offset: usize, len: usize) -> RecordKey {
        RecordKey {
            start: self.tbox.start,
            end: self.tbox.end,
            category: self.category,
            first_line: self.first_line,
            last_line: self.last_line,
            offset: offset as u32,
            len: len as u32,
        }
    }
}

impl RecordSink for KeyOf {
    #[inline(always)]
    fn composite(&mut self, category: i32, _info: &[u8], _members: usize) {
        self.category = category;
        self.tbox = TimeBox::EMPTY;
        self.members = 0;
    }

    #[inline(always)]
    fn primitive(&mut self, p: &PrimRef<'_>, member: bool) {
        if !member {
            let k = RecordKey::of_primitive(p, 0, 0);
            self.category = k.category;
            self.tbox = TimeBox::new(k.start, k.end);
            self.first_line = k.first_line;
        } else {
            self.tbox = self.tbox.union(&p.tbox);
            if self.members == 0 {
                self.first_line = p.first().line;
            }
            self.members += 1;
        }
        self.last_line = p.last().line;
    }
}

/// The key of the drawable record (tag included) at the decoder's position:
/// [`visit_drawable`] with [`KeyOf`], its fast path making the key of a
/// primitive straight from the record (a window's cold node walks
/// thousands of records to search a few).
#[inline(always)]
pub fn record_key(d: &mut Decoder) -> Result<RecordKey> {
    let at = d.pos;
    if let Some((p, end)) = primitive_at::<true>(d.buf, at) {
        d.pos = end;
        return Ok(RecordKey::of_primitive(&p, at, end - at));
    }
    let mut k = KeyOf::default();
    visit_drawable_checked::<true>(d, &mut k)?;
    Ok(k.key(at, d.pos - at))
}

/// The sink that builds an owned [`Drawable`].
#[derive(Debug, Default)]
pub struct DrawableOf {
    drawable: Option<Drawable>,
}

impl DrawableOf {
    /// The drawable of the record just visited.
    pub fn take(&mut self) -> Option<Drawable> {
        self.drawable.take()
    }
}

impl RecordSink for DrawableOf {
    fn composite(&mut self, category: i32, info: &[u8], members: usize) {
        self.drawable = Some(Drawable::Composite(Composite {
            category,
            info: info.into(),
            // Each member needs at least 20 bytes; the count is an i16.
            members: Vec::with_capacity(members.min(1024)),
        }));
    }

    fn primitive(&mut self, p: &PrimRef<'_>, member: bool) {
        match (&mut self.drawable, member) {
            (Some(Drawable::Composite(c)), true) => c.members.push(p.to_primitive()),
            _ => self.drawable = Some(Drawable::Primitive(p.to_primitive())),
        }
    }
}

/// Decode one drawable record (tag included) into an owned [`Drawable`].
pub fn decode_drawable(d: &mut Decoder) -> Result<Drawable> {
    let mut sink = DrawableOf::default();
    visit_drawable(d, &mut sink)?;
    // The walk calls the sink at least once on success.
    sink.take()
        .ok_or_else(|| d.malformed("record without a drawable"))
}

/// Decode one primitive record (no tag) into an owned [`Primitive`].
pub fn decode_primitive(d: &mut Decoder) -> Result<Primitive> {
    let mut p = None;
    struct One<'s>(&'s mut Option<Primitive>);
    impl RecordSink for One<'_> {
        fn composite(&mut self, _: i32, _: &[u8], _: usize) {}
        fn primitive(&mut self, p: &PrimRef<'_>, _: bool) {
            *self.0 = Some(p.to_primitive());
        }
    }
    visit_primitive::<true>(d, &mut One(&mut p), false)?;
    p.ok_or_else(|| d.malformed("record without a primitive"))
}
