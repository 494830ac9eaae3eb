//! The SLOG-2 2.0.6 byte codec.
//!
//! This module knows bytes and nothing else: big-endian fixed-width numbers,
//! Java-style strings (i16 byte count), the 108-byte header, block pointers and
//! the layout of every block (category map, line-ID map list, tree directory,
//! tree nodes with their drawables and child stubs with shadows). It does not
//! know how the tree is built or navigated; `write` and `read` do.
//!
//! Decoding never panics: every read is bounds-checked and failures carry the
//! absolute byte offset. Encoding appends to a `Vec<u8>` (plain `to_be_bytes`
//! — the std methods are all we need, so no `byteorder` dependency).

use crate::error::{Error, Result};
use crate::model::*;

pub const VERSION: &str = "SLOG 2.0.6";
pub const HEADER_SIZE: usize = 108;
/// Node header (box 16 + ID 6 + pointer 12) = 34 bytes.
pub const NODE_HEADER_SIZE: usize = 34;
/// Node header plus the three list counts.
pub const NODE_OVERHEAD: usize = 46;
/// Stub header plus its two shadow-list counts.
pub const STUB_OVERHEAD: usize = 42;
pub const DIR_ENTRY_SIZE: usize = 34;
/// Largest count a signed 16-bit length field can hold.
pub const MAX_I16: usize = i16::MAX as usize;

/// A file block pointer: `(offset, size)`; null when offset == 0 or size <= 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BlockPtr {
    pub offset: i64,
    pub size: i32,
}

impl BlockPtr {
    pub const NULL: BlockPtr = BlockPtr { offset: 0, size: 0 };

    pub fn new(offset: u64, size: usize) -> Self {
        BlockPtr {
            offset: offset as i64,
            size: size as i32,
        }
    }

    pub fn is_null(&self) -> bool {
        self.offset == 0 || self.size <= 0
    }

    /// The byte range, if it lies inside a file of `file_len` bytes.
    pub fn range(&self, what: &'static str, file_len: u64) -> Result<std::ops::Range<usize>> {
        let bad = || Error::BlockOutOfRange {
            what,
            offset: self.offset,
            size: self.size,
            file_len,
        };
        if self.offset < 0 || self.size < 0 {
            return Err(bad());
        }
        let end = (self.offset as u64)
            .checked_add(self.size as u64)
            .ok_or_else(bad)?;
        if end > file_len {
            return Err(bad());
        }
        Ok(self.offset as usize..end as usize)
    }
}

/// The 108-byte file header.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    pub version: String,
    pub num_children_per_node: i16,
    pub treeleaf_bytesize: i32,
    pub max_treedepth: i16,
    pub max_buffer_bytesize: i32,
    pub categories: BlockPtr,
    pub methoddefs: BlockPtr,
    pub lineidmaps: BlockPtr,
    pub treeroot: BlockPtr,
    pub treedir: BlockPtr,
    pub annotations: BlockPtr,
    pub postamble: BlockPtr,
}

/// At most 16 bytes of a would-be version string, printable ASCII kept and
/// everything else escaped, for error messages.
fn version_preview(b: &[u8]) -> String {
    b.iter()
        .take(16)
        .flat_map(|c| c.escape_ascii())
        .map(char::from)
        .collect()
}

impl Header {
    pub fn placeholder(num_children_per_node: i16, treeleaf_bytesize: i32) -> Self {
        Header {
            version: VERSION.to_string(),
            num_children_per_node,
            treeleaf_bytesize,
            max_treedepth: 0,
            max_buffer_bytesize: 0,
            categories: BlockPtr::NULL,
            methoddefs: BlockPtr::NULL,
            lineidmaps: BlockPtr::NULL,
            treeroot: BlockPtr::NULL,
            treedir: BlockPtr::NULL,
            annotations: BlockPtr::NULL,
            postamble: BlockPtr::NULL,
        }
    }

    pub fn encode(&self, out: &mut Vec<u8>) {
        let start = out.len();
        put_str(out, &self.version);
        put_i16(out, self.num_children_per_node);
        put_i32(out, self.treeleaf_bytesize);
        put_i16(out, self.max_treedepth);
        put_i32(out, self.max_buffer_bytesize);
        for p in [
            self.categories,
            self.methoddefs,
            self.lineidmaps,
            self.treeroot,
            self.treedir,
            self.annotations,
            self.postamble,
        ] {
            put_ptr(out, p);
        }
        debug_assert_eq!(out.len() - start, HEADER_SIZE);
    }

    /// Decode and validate the header (spec §2.1, invariants 1–2).
    pub fn decode(file: &[u8]) -> Result<Header> {
        let mut d = Decoder::new(file, 0, "header");
        let vlen = d.i16()?;
        if vlen != 10 {
            // Show the first bytes only (a text file's first two bytes read
            // as a length of up to 32767), escaped: they are not text.
            let found = if vlen > 0 {
                version_preview(d.peek_bytes((vlen as usize).min(16)))
            } else {
                version_preview(&file[..file.len().min(16)])
            };
            return Err(Error::BadVersion { found });
        }
        let raw = d.bytes(10)?;
        if raw != VERSION.as_bytes() {
            return Err(Error::BadVersion {
                found: version_preview(raw),
            });
        }
        let num_children_per_node = d.i16()?;
        let treeleaf_bytesize = d.i32()?;
        let max_treedepth = d.i16()?;
        let max_buffer_bytesize = d.i32()?;
        let mut ptrs = [BlockPtr::NULL; 7];
        for p in ptrs.iter_mut() {
            *p = d.ptr()?;
        }
        if num_children_per_node < 2 {
            return Err(Error::malformed(
                "header",
                12,
                format!("num_children_per_node {num_children_per_node} < 2"),
            ));
        }
        if treeleaf_bytesize <= 0 {
            return Err(Error::malformed(
                "header",
                14,
                format!("treeleaf_bytesize {treeleaf_bytesize} <= 0"),
            ));
        }
        if max_treedepth < 0 {
            return Err(Error::malformed(
                "header",
                18,
                format!("max_treedepth {max_treedepth} < 0"),
            ));
        }
        Ok(Header {
            version: VERSION.to_string(),
            num_children_per_node,
            treeleaf_bytesize,
            max_treedepth,
            max_buffer_bytesize,
            categories: ptrs[0],
            methoddefs: ptrs[1],
            lineidmaps: ptrs[2],
            treeroot: ptrs[3],
            treedir: ptrs[4],
            annotations: ptrs[5],
            postamble: ptrs[6],
        })
    }
}

// ---------------------------------------------------------------------------
// Encoding helpers

pub fn put_i8(out: &mut Vec<u8>, v: i8) {
    out.push(v as u8);
}
pub fn put_i16(out: &mut Vec<u8>, v: i16) {
    out.extend_from_slice(&v.to_be_bytes());
}
pub fn put_i32(out: &mut Vec<u8>, v: i32) {
    out.extend_from_slice(&v.to_be_bytes());
}
pub fn put_i64(out: &mut Vec<u8>, v: i64) {
    out.extend_from_slice(&v.to_be_bytes());
}
/// `v` big-endian, NaN canonical as Java writes it.
#[inline(always)]
fn f64_bytes(v: f64) -> [u8; 8] {
    if v.is_nan() {
        f64::from_bits(0x7ff8_0000_0000_0000)
    } else {
        v
    }
    .to_be_bytes()
}

/// `v` big-endian, NaN canonical as Java writes it.
#[inline(always)]
fn f32_bytes(v: f32) -> [u8; 4] {
    if v.is_nan() {
        f32::from_bits(0x7fc0_0000)
    } else {
        v
    }
    .to_be_bytes()
}

pub fn put_f32(out: &mut Vec<u8>, v: f32) {
    out.extend_from_slice(&f32_bytes(v));
}
pub fn put_f64(out: &mut Vec<u8>, v: f64) {
    out.extend_from_slice(&f64_bytes(v));
}
/// Java-style string. Callers guarantee `s.len() <= 32767` (checked by `check_len`).
pub fn put_str(out: &mut Vec<u8>, s: &str) {
    put_i16(out, s.len().min(MAX_I16) as i16);
    out.extend_from_slice(&s.as_bytes()[..s.len().min(MAX_I16)]);
}
pub fn put_ptr(out: &mut Vec<u8>, p: BlockPtr) {
    if p.is_null() {
        out.extend_from_slice(&[0u8; 12]);
    } else {
        put_i64(out, p.offset);
        put_i32(out, p.size);
    }
}

/// Reject lengths that do not fit a signed 16-bit count (the reference casts
/// them silently and corrupts the file).
pub fn check_len(what: &str, len: usize) -> Result<()> {
    if len > MAX_I16 {
        return Err(Error::InvalidArgument(format!(
            "{what} has {len} elements/bytes; SLOG-2 2.0.6 stores at most {MAX_I16}"
        )));
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Decoder

/// Bounds-checked big-endian reader over one block; `base` is the block's
/// absolute file offset (for error messages).
pub struct Decoder<'a> {
    buf: &'a [u8],
    pos: usize,
    base: u64,
    what: &'static str,
}

impl<'a> Decoder<'a> {
    pub fn new(buf: &'a [u8], base: u64, what: &'static str) -> Self {
        Decoder {
            buf,
            pos: 0,
            base,
            what,
        }
    }

    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Bytes consumed so far.
    pub fn pos(&self) -> usize {
        self.pos
    }

    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub fn is_at_end(&self) -> bool {
        self.pos == self.buf.len()
    }

    pub fn set_what(&mut self, what: &'static str) {
        self.what = what;
    }

    pub fn malformed(&self, detail: impl Into<String>) -> Error {
        Error::malformed(self.what, self.offset(), detail)
    }

    #[inline]
    fn take<const N: usize>(&mut self) -> Result<[u8; N]> {
        let have = self.remaining();
        if have < N {
            return Err(Error::Truncated {
                what: self.what,
                offset: self.offset(),
                need: N,
                have,
            });
        }
        let mut a = [0u8; N];
        a.copy_from_slice(&self.buf[self.pos..self.pos + N]);
        self.pos += N;
        Ok(a)
    }

    #[inline]
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        let have = self.remaining();
        if have < n {
            return Err(Error::Truncated {
                what: self.what,
                offset: self.offset(),
                need: n,
                have,
            });
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn peek_bytes(&self, n: usize) -> &'a [u8] {
        &self.buf[self.pos..(self.pos + n).min(self.buf.len())]
    }

    pub fn skip(&mut self, n: usize) -> Result<()> {
        self.bytes(n).map(|_| ())
    }

    #[inline]
    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.take::<1>()?[0])
    }
    #[inline]
    pub fn i8(&mut self) -> Result<i8> {
        Ok(self.take::<1>()?[0] as i8)
    }
    #[inline]
    pub fn i16(&mut self) -> Result<i16> {
        Ok(i16::from_be_bytes(self.take()?))
    }
    #[inline]
    pub fn i32(&mut self) -> Result<i32> {
        Ok(i32::from_be_bytes(self.take()?))
    }
    #[inline]
    pub fn i64(&mut self) -> Result<i64> {
        Ok(i64::from_be_bytes(self.take()?))
    }
    #[inline]
    pub fn f32(&mut self) -> Result<f32> {
        Ok(f32::from_be_bytes(self.take()?))
    }
    #[inline]
    pub fn f64(&mut self) -> Result<f64> {
        Ok(f64::from_be_bytes(self.take()?))
    }

    /// A Java-style string; a count <= 0 is the empty string (no bytes follow).
    pub fn str(&mut self) -> Result<String> {
        let n = self.i16()?;
        if n <= 0 {
            return Ok(String::new());
        }
        Ok(String::from_utf8_lossy(self.bytes(n as usize)?).into_owned())
    }

    pub fn ptr(&mut self) -> Result<BlockPtr> {
        Ok(BlockPtr {
            offset: self.i64()?,
            size: self.i32()?,
        })
    }

    /// A non-negative i32 count whose elements need at least `min_elem` bytes each.
    pub fn count(&mut self, min_elem: usize) -> Result<usize> {
        let at = self.offset();
        let n = self.i32()?;
        self.check_count(n as i64, min_elem, at)
    }

    /// A non-negative i16 count.
    pub fn count16(&mut self, min_elem: usize) -> Result<usize> {
        let at = self.offset();
        let n = self.i16()?;
        self.check_count(n as i64, min_elem, at)
    }

    fn check_count(&self, n: i64, min_elem: usize, at: u64) -> Result<usize> {
        if n < 0 {
            return Err(Error::malformed(
                self.what,
                at,
                format!("negative count {n}"),
            ));
        }
        let n = n as usize;
        if n.saturating_mul(min_elem) > self.remaining() {
            return Err(Error::malformed(
                self.what,
                at,
                format!(
                    "count {n} does not fit the {} bytes left in the block",
                    self.remaining()
                ),
            ));
        }
        Ok(n)
    }

    pub fn expect_end(&self) -> Result<()> {
        if !self.is_at_end() {
            return Err(self.malformed(format!(
                "{} unread byte(s) at the end of the block",
                self.remaining()
            )));
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// Category map block (§3)

pub fn encode_categories<'c>(out: &mut Vec<u8>, cats: impl ExactSizeIterator<Item = &'c Category>) {
    put_i32(out, cats.len() as i32);
    for c in cats {
        encode_category(out, c);
    }
}

pub fn encode_category(out: &mut Vec<u8>, c: &Category) {
    put_i32(out, c.index);
    put_str(out, &c.name);
    put_i32(out, c.topology as i32);
    put_i32(out, c.color.to_argb());
    put_i8(out, c.color.modifiable as i8);
    put_i8(out, c.width);
    put_i16(out, c.info.keys.len() as i16);
    for k in &c.info.keys {
        put_str(out, k);
    }
    put_i16(out, c.info.tokens.len() as i16);
    out.extend_from_slice(&c.info.tokens);
    put_i16(out, c.methods.len() as i16);
    for m in &c.methods {
        put_i32(out, *m);
    }
    put_f32(out, c.incl_ratio);
    put_f32(out, c.excl_ratio);
    put_i64(out, c.count);
}

pub fn decode_categories(block: &[u8], base: u64) -> Result<Vec<Category>> {
    let mut d = Decoder::new(block, base, "category map");
    let n = d.count(38)?;
    let mut cats = Vec::with_capacity(n);
    let mut seen = std::collections::HashSet::new();
    for _ in 0..n {
        let at = d.offset();
        let index = d.i32()?;
        let name = d.str()?;
        let topo_at = d.offset();
        let topo = d.i32()?;
        let topology = Topology::from_i32(topo).ok_or_else(|| {
            Error::malformed(
                "category map",
                topo_at,
                format!("category {index}: topology {topo} is not 0, 1 or 2"),
            )
        })?;
        let argb = d.i32()?;
        let modifiable = d.u8()? != 0;
        let width = d.i8()?;
        let nkeys = d.count16(2)?;
        let mut keys = Vec::with_capacity(nkeys);
        for _ in 0..nkeys {
            keys.push(d.str()?);
        }
        let ntok = d.count16(1)?;
        let tokens = d.bytes(ntok)?.to_vec();
        let nmeth = d.count16(4)?;
        let mut methods = Vec::with_capacity(nmeth);
        for _ in 0..nmeth {
            methods.push(d.i32()?);
        }
        let incl_ratio = d.f32()?;
        let excl_ratio = d.f32()?;
        let count = d.i64()?;
        if !seen.insert(index) {
            return Err(Error::malformed(
                "category map",
                at,
                format!("duplicate category index {index}"),
            ));
        }
        let expected_preview = match index {
            -1 => Some(Topology::Event),
            -2 => Some(Topology::Arrow),
            -3 => Some(Topology::State),
            _ => None,
        };
        if let Some(t) = expected_preview {
            if t != topology {
                return Err(Error::malformed(
                    "category map",
                    at,
                    format!("preview category {index} must have topology {t}, has {topology}"),
                ));
            }
        }
        cats.push(Category {
            index,
            name,
            topology,
            color: Color::from_argb(argb, modifiable),
            width,
            info: InfoFormat { keys, tokens },
            methods,
            incl_ratio,
            excl_ratio,
            count,
            visible: true,
            searchable: true,
        });
    }
    d.expect_end()?;
    Ok(cats)
}

// ---------------------------------------------------------------------------
// Line-ID map list block (§5)

pub fn encode_ycoordmaps<'m>(
    out: &mut Vec<u8>,
    maps: impl ExactSizeIterator<Item = &'m YCoordMap>,
) {
    put_i32(out, maps.len() as i32);
    for m in maps {
        put_str(out, &m.title);
        put_i32(out, m.column_labels.len() as i32);
        for l in &m.column_labels {
            put_str(out, l);
        }
        put_i32(out, m.rows.len() as i32);
        for (line, vals) in &m.rows {
            put_i32(out, *line);
            for i in 0..m.column_labels.len() {
                put_i32(out, vals.get(i).copied().unwrap_or(0));
            }
        }
        put_i16(out, m.methods.len() as i16);
        for x in &m.methods {
            put_i32(out, *x);
        }
    }
}

pub fn decode_ycoordmaps(block: &[u8], base: u64) -> Result<Vec<YCoordMap>> {
    let mut d = Decoder::new(block, base, "line-ID map list");
    let n = d.count(12)?;
    let mut maps = Vec::with_capacity(n);
    for _ in 0..n {
        let title = d.str()?;
        let ncols = d.count(2)?;
        let mut column_labels = Vec::with_capacity(ncols);
        for _ in 0..ncols {
            column_labels.push(d.str()?);
        }
        let nrows = d.count(4 * (ncols + 1))?;
        let mut rows = Vec::with_capacity(nrows);
        for _ in 0..nrows {
            let line = d.i32()?;
            let mut vals = Vec::with_capacity(ncols);
            for _ in 0..ncols {
                vals.push(d.i32()?);
            }
            rows.push((line, vals));
        }
        let nmeth = d.count16(4)?;
        let mut methods = Vec::with_capacity(nmeth);
        for _ in 0..nmeth {
            methods.push(d.i32()?);
        }
        maps.push(YCoordMap {
            title,
            column_labels,
            rows,
            methods,
        });
    }
    d.expect_end()?;
    Ok(maps)
}

// ---------------------------------------------------------------------------
// Tree directory block (§6)

/// One directory entry: a node's ID, time box and block pointer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DirEntry {
    pub id: NodeId,
    pub time_box: TimeBox,
    pub ptr: BlockPtr,
}

pub fn encode_treedir(out: &mut Vec<u8>, entries: &[DirEntry]) {
    put_i32(out, entries.len() as i32);
    for e in entries {
        put_i16(out, e.id.depth);
        put_i32(out, e.id.xpos);
        put_f64(out, e.time_box.start);
        put_f64(out, e.time_box.end);
        put_ptr(out, e.ptr);
    }
}

pub fn decode_treedir(block: &[u8], base: u64) -> Result<Vec<DirEntry>> {
    let mut d = Decoder::new(block, base, "tree directory");
    let n = d.count(DIR_ENTRY_SIZE)?;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        let depth = d.i16()?;
        let xpos = d.i32()?;
        let start = d.f64()?;
        let end = d.f64()?;
        let ptr = d.ptr()?;
        v.push(DirEntry {
            id: NodeId::new(depth, xpos),
            time_box: TimeBox::new(start, end),
            ptr,
        });
    }
    d.expect_end()?;
    Ok(v)
}

// ---------------------------------------------------------------------------
// Drawables and shadows inside node blocks (§7)

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
            let t = if v.time.is_nan() {
                f64::from_bits(0x7ff8_0000_0000_0000)
            } else {
                v.time
            };
            r[o..o + 8].copy_from_slice(&t.to_be_bytes());
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
        put_f64(out, v.time);
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
/// A vertex count (i16) checked against the bytes left: at least one vertex,
/// 12 bytes each. `what` and `kind` name the block and the item in errors.
fn vertex_count(d: &mut Decoder, what: &'static str, kind: &str) -> Result<usize> {
    let at = d.offset();
    let nv = d.i16()?;
    if nv < 1 {
        return Err(Error::malformed(
            what,
            at,
            format!("{kind} with {nv} vertices"),
        ));
    }
    let nv = nv as usize;
    if nv * 12 > d.remaining() {
        return Err(Error::malformed(
            what,
            at,
            format!("{nv} vertices do not fit the block"),
        ));
    }
    Ok(nv)
}

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

pub fn decode_primitive(d: &mut Decoder) -> Result<Primitive> {
    let category = d.i32()?;
    let ilen = d.i16()?;
    let info = if ilen > 0 {
        d.bytes(ilen as usize)?.into()
    } else {
        InfoBytes::new()
    };
    let nv = vertex_count(d, "tree node", "primitive")?;
    let mut vertices = Vertices::with_capacity(nv);
    for _ in 0..nv {
        let time = d.f64()?;
        let line = d.i32()?;
        vertices.push(Vertex { time, line });
    }
    Ok(Primitive {
        category,
        info,
        vertices,
    })
}

pub fn decode_drawable(d: &mut Decoder) -> Result<Drawable> {
    let at = d.offset();
    match d.u8()? {
        0 => Ok(Drawable::Primitive(decode_primitive(d)?)),
        1 => {
            let category = d.i32()?;
            let ilen = d.i16()?;
            let info = if ilen > 0 {
                d.bytes(ilen as usize)?.into()
            } else {
                InfoBytes::new()
            };
            let nat = d.offset();
            let n = d.i16()?;
            if n < 1 {
                return Err(Error::malformed(
                    "tree node",
                    nat,
                    format!("composite with {n} members"),
                ));
            }
            let mut members = Vec::with_capacity(n as usize);
            for _ in 0..n {
                members.push(decode_primitive(d)?);
            }
            Ok(Drawable::Composite(Composite {
                category,
                info,
                members,
            }))
        }
        t => Err(Error::malformed(
            "tree node",
            at,
            format!("drawable tag {t} is neither 0 nor 1"),
        )),
    }
}

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

pub fn decode_shadow(d: &mut Decoder) -> Result<Shadow> {
    decode_shadow_ref(d).map(|s| s.to_shadow())
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

/// Read one shadow record in place; the checks of [`decode_shadow`].
pub fn decode_shadow_ref<'a>(d: &mut Decoder<'a>) -> Result<ShadowRef<'a>> {
    let at = d.offset();
    let category = d.i32()?;
    let ilen = d.i16()?;
    if ilen > 0 {
        d.skip(ilen as usize)?;
    }
    let nv = vertex_count(d, "shadow", "shadow")?;
    let vertices = d.bytes(nv * 12)?;
    let start = d.f64()?;
    let end = d.f64()?;
    let num_real = d.i64()?;
    let nw = d.count(20)?;
    if num_real < 1 || nw < 1 {
        return Err(Error::malformed(
            "shadow",
            at,
            format!("shadow with num_real {num_real} and {nw} weights (both must be >= 1)"),
        ));
    }
    let weights = d.bytes(nw * 20)?;
    let sum = weights
        .chunks_exact(20)
        .fold(0i64, |sum, w| sum.wrapping_add(be_i64(w, 12)));
    if sum != num_real {
        return Err(Error::malformed(
            "shadow",
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

/// Walk the stub list that ends a node block (at `stubs_at`) with the
/// checks of [`decode_stubs`], handing each shadow in place to `f` with
/// its child's entry (nestless shadows of a stub, then its nestable ones).
pub fn visit_stub_shadows<'a>(
    block: &'a [u8],
    base: u64,
    stubs_at: usize,
    mut f: impl FnMut(&DirEntry, ShadowRef<'a>),
) -> Result<()> {
    let mut d = stub_decoder(block, base, stubs_at)?;
    let ns = d.count(STUB_OVERHEAD)?;
    for _ in 0..ns {
        let entry = decode_entry_header(&mut d)?;
        for _list in 0..2 {
            let n = d.count(36)?;
            for _ in 0..n {
                f(&entry, decode_shadow_ref(&mut d)?);
            }
        }
    }
    d.set_what("tree node");
    d.expect_end()
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

fn encode_entry_header(out: &mut Vec<u8>, e: &DirEntry) {
    put_f64(out, e.time_box.start);
    put_f64(out, e.time_box.end);
    put_i16(out, e.id.depth);
    put_i32(out, e.id.xpos);
    put_ptr(out, e.ptr);
}

fn decode_entry_header(d: &mut Decoder) -> Result<DirEntry> {
    let start = d.f64()?;
    let end = d.f64()?;
    let depth = d.i16()?;
    let xpos = d.i32()?;
    let ptr = d.ptr()?;
    Ok(DirEntry {
        id: NodeId::new(depth, xpos),
        time_box: TimeBox::new(start, end),
        ptr,
    })
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

/// Encode a node. `entry.ptr` must already hold the block's final offset and size.
/// Encode a node block; each drawable list is given as its length and the
/// drawables in the order to store them (drawing order).
pub fn encode_node<'a>(
    out: &mut Vec<u8>,
    entry: &DirEntry,
    nestless_len: usize,
    nestless: impl Iterator<Item = &'a Drawable>,
    nestable_len: usize,
    nestable: impl Iterator<Item = &'a Drawable>,
    stubs: &[Stub],
) {
    encode_entry_header(out, entry);
    put_i32(out, nestless_len as i32);
    for d in nestless {
        encode_drawable(out, d);
    }
    put_i32(out, nestable_len as i32);
    for d in nestable {
        encode_drawable(out, d);
    }
    put_i32(out, stubs.len() as i32);
    for s in stubs {
        encode_stub(out, s);
    }
}

/// What a window query needs to know about one drawable record without
/// decoding it: its time box, the rest of its drawing-order key and where the
/// record (tag included) lies in its node block. Built by [`scan_node`].
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

/// The layout of a node block's drawables, walked without allocating per
/// drawable: one [`RecordKey`] per record of each list (in stored order) and
/// where the child stubs begin.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeLayout {
    pub entry: DirEntry,
    pub nestless: Vec<RecordKey>,
    pub nestable: Vec<RecordKey>,
    /// Offset of the stub count from the start of the block.
    pub stubs_at: usize,
}

/// Box, first and last line of one primitive record (after its tag), checked
/// as [`decode_primitive`] checks it, without allocating.
fn scan_primitive(d: &mut Decoder) -> Result<(TimeBox, i32, i32, i32)> {
    let category = d.i32()?;
    let ilen = d.i16()?;
    if ilen > 0 {
        d.skip(ilen as usize)?;
    }
    let nv = vertex_count(d, "tree node", "primitive")?;
    let mut b = TimeBox::EMPTY;
    let (mut first, mut last) = (0, 0);
    for i in 0..nv {
        let t = d.f64()?;
        let line = d.i32()?;
        b.widen(t);
        if i == 0 {
            first = line;
        }
        last = line;
    }
    Ok((b, category, first, last))
}

/// The key of one drawable record (tag included), as [`decode_drawable`]
/// would compute it from the decoded drawable.
pub fn scan_drawable(d: &mut Decoder) -> Result<RecordKey> {
    let at = d.offset();
    let begin = d.pos();
    let (b, category, first, last) = match d.u8()? {
        0 => scan_primitive(d)?,
        1 => {
            let category = d.i32()?;
            let ilen = d.i16()?;
            if ilen > 0 {
                d.skip(ilen as usize)?;
            }
            let nat = d.offset();
            let n = d.i16()?;
            if n < 1 {
                return Err(Error::malformed(
                    "tree node",
                    nat,
                    format!("composite with {n} members"),
                ));
            }
            let mut b = TimeBox::EMPTY;
            let (mut first, mut last) = (0, 0);
            for i in 0..n {
                let (mb, _, f, l) = scan_primitive(d)?;
                b = b.union(&mb);
                if i == 0 {
                    first = f;
                }
                last = l;
            }
            (b, category, first, last)
        }
        t => {
            return Err(Error::malformed(
                "tree node",
                at,
                format!("drawable tag {t} is neither 0 nor 1"),
            ))
        }
    };
    Ok(RecordKey {
        start: b.start,
        end: b.end,
        category,
        first_line: first,
        last_line: last,
        offset: begin as u32,
        len: (d.pos() - begin) as u32,
    })
}

/// Receives the parts of one drawable record from [`visit_drawable`],
/// so a caller can lay them out as it likes (e.g. into columns) without
/// building a [`Drawable`].
pub trait RecordSink {
    /// A composite's header; its `members` primitives follow.
    fn composite(&mut self, category: i32, info: &[u8], members: usize);
    /// A primitive (`member`: of the composite announced before it): its
    /// box and its first and last vertex.
    fn primitive(
        &mut self,
        category: i32,
        info: &[u8],
        tbox: TimeBox,
        first: Vertex,
        last: Vertex,
        member: bool,
    );
}

/// Big-endian reads at fixed offsets of a slice whose length the caller
/// has checked (the fast path of [`visit_primitive`]).
#[inline(always)]
fn be_i16(b: &[u8], at: usize) -> i16 {
    i16::from_be_bytes([b[at], b[at + 1]])
}
#[inline(always)]
fn be_i32(b: &[u8], at: usize) -> i32 {
    i32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}
#[inline(always)]
fn be_i64(b: &[u8], at: usize) -> i64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    i64::from_be_bytes(a)
}
#[inline(always)]
fn be_f64(b: &[u8], at: usize) -> f64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    f64::from_be_bytes(a)
}

/// One primitive record (after its tag) into `sink`.
///
/// Why two paths: the whole-file scan and large windows decode millions of
/// records, and the field-by-field reads of [`Decoder`] (a bounds check and
/// a `Result` per field) cost more than the record's bytes. A well-formed
/// record is checked once — head, info and vertex list inside the block —
/// and then read at fixed offsets. Anything else (negative or oversized
/// counts, a truncated record) takes the checked path, which reports the
/// same errors as before.
#[inline(always)]
fn visit_primitive(d: &mut Decoder, sink: &mut impl RecordSink, member: bool) -> Result<()> {
    let rest = &d.buf[d.pos..];
    if rest.len() >= 8 {
        let ilen = be_i16(rest, 4).max(0) as usize;
        let vat = 6 + ilen;
        if rest.len() >= vat + 2 {
            let nv = be_i16(rest, vat);
            let vend = vat + 2 + 12 * nv.max(0) as usize;
            if nv >= 1 && rest.len() >= vend {
                let category = be_i32(rest, 0);
                let vs = &rest[vat + 2..vend];
                let mut b = TimeBox::EMPTY;
                for v in vs.chunks_exact(12) {
                    b.widen(be_f64(v, 0));
                }
                let first = Vertex::new(be_f64(vs, 0), be_i32(vs, 8));
                let l = vs.len() - 12;
                let last = Vertex::new(be_f64(vs, l), be_i32(vs, l + 8));
                sink.primitive(category, &rest[6..vat], b, first, last, member);
                d.pos += vend;
                return Ok(());
            }
        }
    }
    visit_primitive_checked(d, sink, member)
}

#[cold]
fn visit_primitive_checked(
    d: &mut Decoder,
    sink: &mut impl RecordSink,
    member: bool,
) -> Result<()> {
    let category = d.i32()?;
    let ilen = d.i16()?;
    let info = if ilen > 0 {
        d.bytes(ilen as usize)?
    } else {
        &[]
    };
    let at = d.offset();
    let nv = d.i16()?;
    if nv < 1 || nv as usize * 12 > d.remaining() {
        return Err(Error::malformed(
            "tree node",
            at,
            format!("primitive with {nv} vertices that do not fit the block"),
        ));
    }
    let mut b = TimeBox::EMPTY;
    let mut first = Vertex::new(0.0, 0);
    let mut last = first;
    for i in 0..nv {
        let v = Vertex::new(d.f64()?, d.i32()?);
        b.widen(v.time);
        if i == 0 {
            first = v;
        }
        last = v;
    }
    sink.primitive(category, info, b, first, last, member);
    Ok(())
}

/// Decode one drawable record (tag included) into `sink`: the same checks
/// and values as [`decode_drawable`], without allocating.
#[inline(always)]
pub fn visit_drawable(d: &mut Decoder, sink: &mut impl RecordSink) -> Result<()> {
    let at = d.offset();
    match d.u8()? {
        0 => visit_primitive(d, sink, false),
        1 => {
            let category = d.i32()?;
            let ilen = d.i16()?;
            let info = if ilen > 0 {
                d.bytes(ilen as usize)?
            } else {
                &[]
            };
            let nat = d.offset();
            let n = d.i16()?;
            if n < 1 {
                return Err(Error::malformed(
                    "tree node",
                    nat,
                    format!("composite with {n} members"),
                ));
            }
            sink.composite(category, info, n as usize);
            for _ in 0..n {
                visit_primitive(d, sink, true)?;
            }
            Ok(())
        }
        t => Err(Error::malformed(
            "tree node",
            at,
            format!("drawable tag {t} is neither 0 nor 1"),
        )),
    }
}

/// Walk a node block's drawables (spec §7.1) and return their layout; the
/// stubs are not read. Node blocks are at most `i32::MAX` bytes, so `u32`
/// offsets hold.
pub fn scan_node(block: &[u8], base: u64) -> Result<NodeLayout> {
    let mut d = Decoder::new(block, base, "tree node");
    let entry = decode_entry_header(&mut d)?;
    let n1 = d.count(9)?;
    let mut nestless = Vec::with_capacity(n1);
    scan_list(&mut d, n1, &mut nestless)?;
    let n2 = d.count(9)?;
    let mut nestable = Vec::with_capacity(n2);
    scan_list(&mut d, n2, &mut nestable)?;
    Ok(NodeLayout {
        entry,
        nestless,
        nestable,
        stubs_at: d.pos(),
    })
}

/// `n` records' keys into `out`. The common record — a primitive whose
/// fields all lie inside the block — is read straight from the bytes with
/// one bounds check (a window jump walks thousands of records per cold
/// node); anything else (composites, a count or length out of range) goes
/// through [`scan_drawable`], which gives the same key or the error.
fn scan_list(d: &mut Decoder, n: usize, out: &mut Vec<RecordKey>) -> Result<()> {
    let buf = d.buf;
    for _ in 0..n {
        let p = d.pos;
        if let Some((key, next)) = scan_primitive_fast(buf, p) {
            out.push(key);
            d.pos = next;
        } else {
            out.push(scan_drawable(d)?);
        }
    }
    Ok(())
}

/// The key of the primitive record at `p` and the offset after it, if it is
/// one (tag 0) that lies wholly inside `buf` with at least one vertex; else
/// `None` (the checked path decides).
#[inline(always)]
fn scan_primitive_fast(buf: &[u8], p: usize) -> Option<(RecordKey, usize)> {
    let head: &[u8; 7] = buf.get(p..p + 7)?.try_into().ok()?;
    if head[0] != 0 {
        return None;
    }
    let category = i32::from_be_bytes([head[1], head[2], head[3], head[4]]);
    let ilen = i16::from_be_bytes([head[5], head[6]]).max(0) as usize;
    let q = p + 7 + ilen;
    let nv: &[u8; 2] = buf.get(q..q + 2)?.try_into().ok()?;
    let nv = i16::from_be_bytes(*nv);
    if nv < 1 {
        return None;
    }
    let end = q + 2 + 12 * nv as usize;
    let verts = buf.get(q + 2..end)?;
    let mut b = TimeBox::EMPTY;
    let line = |v: &[u8]| i32::from_be_bytes([v[8], v[9], v[10], v[11]]);
    for v in verts.chunks_exact(12) {
        b.widen(f64::from_be_bytes([
            v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7],
        ]));
    }
    let first = line(&verts[..12]);
    let last = line(&verts[verts.len() - 12..]);
    Some((
        RecordKey {
            start: b.start,
            end: b.end,
            category,
            first_line: first,
            last_line: last,
            offset: p as u32,
            len: (end - p) as u32,
        },
        end,
    ))
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
    /// 0: in the nestless list, 1: in the nestable list.
    list: u8,
}

impl RecordWalk {
    /// Start a walk: decode the node header and the nestless count (checked
    /// against the bytes left, as [`decode_node`] checks it).
    pub fn new(block: &[u8], base: u64) -> Result<RecordWalk> {
        let mut d = Decoder::new(block, base, "tree node");
        decode_entry_header(&mut d)?;
        let left = d.count(9)?;
        Ok(RecordWalk {
            pos: d.pos(),
            left,
            list: 0,
        })
    }

    /// Offset of the next record in the block.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Decode the next record of `block` (the block this walk was started
    /// on) into `sink`; `Ok(false)` when both lists are done. Records come
    /// with the same checks and values as [`visit_drawable`].
    #[inline(always)]
    pub fn next(&mut self, block: &[u8], base: u64, sink: &mut impl RecordSink) -> Result<bool> {
        if self.pos > block.len() {
            return Err(Error::malformed(
                "tree node",
                base,
                "record walk beyond its block (a walk resumed on another block)",
            ));
        }
        let mut d = Decoder {
            buf: block,
            pos: self.pos,
            base,
            what: "tree node",
        };
        while self.left == 0 {
            if self.list == 1 {
                return Ok(false);
            }
            self.left = d.count(9)?;
            self.list = 1;
            self.pos = d.pos;
        }
        visit_drawable(&mut d, sink)?;
        self.left -= 1;
        self.pos = d.pos;
        Ok(true)
    }
}

/// A decoder over the stub list of a node block, from the stub count at
/// `stubs_at`.
fn stub_decoder(block: &[u8], base: u64, stubs_at: usize) -> Result<Decoder<'_>> {
    let rest = block.get(stubs_at..).ok_or_else(|| {
        Error::malformed(
            "tree node",
            base,
            "stub offset beyond the block".to_string(),
        )
    })?;
    Ok(Decoder::new(rest, base + stubs_at as u64, "child stub"))
}

/// Decode the child stubs of a node block, starting at the stub count
/// (`stubs_at` of [`scan_node`]); checks that the block ends with them.
pub fn decode_stubs(block: &[u8], base: u64, stubs_at: usize) -> Result<Vec<Stub>> {
    let mut d = stub_decoder(block, base, stubs_at)?;
    decode_stub_list(&mut d)
}

/// The stub list that ends a node block (count, then each stub's entry and
/// shadows); checks that the block ends with it.
fn decode_stub_list(d: &mut Decoder) -> Result<Vec<Stub>> {
    let ns = d.count(STUB_OVERHEAD)?;
    let mut stubs = Vec::with_capacity(ns);
    for _ in 0..ns {
        let entry = decode_entry_header(d)?;
        let a = d.count(36)?;
        let nestless = (0..a)
            .map(|_| decode_shadow(d))
            .collect::<Result<Vec<_>>>()?;
        let b = d.count(36)?;
        let nestable = (0..b)
            .map(|_| decode_shadow(d))
            .collect::<Result<Vec<_>>>()?;
        stubs.push(Stub {
            entry,
            nestless,
            nestable,
        });
    }
    d.set_what("tree node");
    d.expect_end()?;
    Ok(stubs)
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
    let n1 = d.count(9)?;
    let mut nestless = Vec::with_capacity(n1);
    for _ in 0..n1 {
        nestless.push(decode_drawable(&mut d)?);
    }
    let n2 = d.count(9)?;
    let mut nestable = Vec::with_capacity(n2);
    for _ in 0..n2 {
        nestable.push(decode_drawable(&mut d)?);
    }
    let mut stubs = Vec::new();
    if parts == NodeParts::All {
        d.set_what("child stub");
        stubs = decode_stub_list(&mut d)?;
    }
    Ok(Node {
        entry,
        nestless,
        nestable,
        stubs,
    })
}

#[cfg(test)]
mod scan_tests {
    //! `scan_node`'s fast path (`scan_primitive_fast`) against the checked
    //! per-record walk (`scan_drawable` alone), on valid nodes and on the
    //! same nodes with bytes changed or cut: the same keys or an error.
    use super::*;
    use proptest::prelude::*;

    /// The layout by the checked path only.
    fn slow_scan(block: &[u8], base: u64) -> Result<(Vec<RecordKey>, Vec<RecordKey>, usize)> {
        let mut d = Decoder::new(block, base, "tree node");
        decode_entry_header(&mut d)?;
        let mut lists = [Vec::new(), Vec::new()];
        for list in &mut lists {
            let n = d.count(9)?;
            for _ in 0..n {
                list.push(scan_drawable(&mut d)?);
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

    proptest! {
        #[test]
        fn fast_scan_equals_checked_scan(
            a in proptest::collection::vec(drawable(), 0..30),
            b in proptest::collection::vec(drawable(), 0..30),
            edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
            cut in any::<Option<prop::sample::Index>>(),
        ) {
            let entry = DirEntry {
                id: NodeId { depth: 0, xpos: 0 },
                time_box: TimeBox::new(0.0, 1.0),
                ptr: BlockPtr::new(0, 0),
            };
            let mut block = Vec::new();
            encode_node(&mut block, &entry, a.len(), a.iter(), b.len(), b.iter(), &[]);
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
                    // NaN times make keys unequal to themselves: compare bits.
                    let bits = |v: &[RecordKey]| v.iter().map(|k| (k.start.to_bits(), k.end.to_bits(), k.category, k.first_line, k.last_line, k.offset, k.len)).collect::<Vec<_>>();
                    prop_assert_eq!(bits(&f.nestless), bits(&sa));
                    prop_assert_eq!(bits(&f.nestable), bits(&sb));
                    prop_assert_eq!(f.stubs_at, at);
                }
                (Err(f), Err(s)) => prop_assert_eq!(f.to_string(), s.to_string()),
                (f, s) => prop_assert!(false, "fast {:?} vs checked {:?}", f.map(|_| ()), s.map(|_| ())),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_roundtrip() {
        let mut h = Header::placeholder(2, 65536);
        h.treeroot = BlockPtr::new(108, 791);
        let mut v = Vec::new();
        h.encode(&mut v);
        assert_eq!(v.len(), HEADER_SIZE);
        assert_eq!(Header::decode(&v).unwrap(), h);
        assert!(matches!(
            Header::decode(&v[..50]),
            Err(Error::Truncated { .. })
        ));
    }

    #[test]
    fn info_format_parse() {
        let f = InfoFormat::parse("msg_tag=%d, msg_size=%d").unwrap();
        assert_eq!(f.keys, vec!["msg_tag=", ", msg_size=", ""]);
        assert_eq!(f.tokens, b"dd");
        assert_eq!(f.label(), "msg_tag=%d, msg_size=%d");
        let f = InfoFormat::parse("%d items").unwrap();
        assert_eq!(f.keys, vec![" items"]);
        assert_eq!(f.label(), "%d items");
        assert!(InfoFormat::parse("abc%").is_err());
        assert_eq!(InfoFormat::parse("abc").unwrap().keys, vec!["abc"]);
    }
}
