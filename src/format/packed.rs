//! Compressed tree nodes: the one extension this library makes to SLOG-2
//! 2.0.6, as the SLOG-2 draft designs it (§6.3: each node compressed as a
//! block, its header recording the method).
//!
//! # Marking
//!
//! A file with compressed nodes carries the version string
//! [`VERSION_COMPRESSED`] (`SLOG 2.0.Z`) instead of `SLOG 2.0.6`; every
//! other block (header layout, categories, line-ID maps, directory) is
//! 2.0.6 as it is. The reference tools compare the version with their own
//! and refuse the file with their own message ("Incompatible Version IDs
//! detected! … SLOG 2.0.Z, but this input program reads logfile of version
//! SLOG 2.0.6"), so no reference reader ever parses a compressed node as a
//! plain one. `slog2 convert FILE -o PLAIN` turns it back into 2.0.6.
//!
//! # A compressed node block
//!
//! ```text
//! 34 bytes   node header, plain: box, ID, own block pointer (on-disk size)
//! 2 × part   u8 method, i32 plain size, i32 stored size      (18 bytes)
//! payload    the drawables part, then the stubs part, as stored
//! ```
//!
//! A node's two parts are compressed separately because readers want them
//! separately: a window query needs the drawables (an upper node's are ~1
//! KB next to ~45 KB of stubs), a preview needs the stubs, the whole-file
//! scan only the drawables. Unpacked, a part is byte for byte its 2.0.6
//! layout — the drawables part from the first list count up to the stub
//! count, the stubs part from the stub count to the end — so the node
//! header followed by the unpacked parts *is* the 2.0.6 node block (with
//! this file's block pointers), and every reader of `format` works on it
//! unchanged. Methods ([`Method`]): stored, zlib, or the field pre-pass
//! (`format::fields`, private) then zlib. The zlib codec is libdeflate's
//! whole-buffer one (`format::zlib`, private; levels 1–12, [`MIN_LEVEL`] to
//! [`MAX_LEVEL`]): any zlib writer's streams read the same.
//!
//! # Hostile nodes
//!
//! A part's plain size is declared before its payload, and a reader checks
//! it against what zlib can produce from the stored bytes (at most
//! [`MAX_RATIO`] to 1) before it allocates anything; inflating then stops
//! the moment the output would pass the declared size, and a part that
//! ends short of it is an error too. So a damaged or hostile node costs at
//! most its declared size, itself bounded by its bytes on disk: no zip bomb.
//! zlib's checksum catches damage inside the payload.

use super::directory::{decode_entry_header, encode_entry_header, DirEntry, NODE_HEADER_SIZE};
use super::fields::{self, Join, Split, Values};
use super::header::BlockPtr;
pub use super::header::VERSION_COMPRESSED;
use super::node::NodeLayout;
use super::record::record_key;
use super::zlib::{self, Deflater, InflateError};
use super::Decoder;
use crate::error::{Error, Result};

/// Bytes of a compressed node before its payload.
pub const PACKED_PREFIX: usize = NODE_HEADER_SIZE + 2 * PART_HEADER;

const PART_HEADER: usize = 9;

/// The compression levels a writer takes: libdeflate's 1 (fastest) to 12
/// (smallest, slowest); its 1–9 trade size for time as zlib's 1–9 do.
pub const MIN_LEVEL: u32 = 1;
pub const MAX_LEVEL: u32 = 12;

/// Parts smaller than this are stored: zlib's setup (a hash table reset per
/// stream) costs more than a few bytes can save (a leaf's stub list is 4).
const SMALL_PART: usize = 64;

/// The most plain bytes a part may declare per stored byte (zlib's
/// deflate cannot expand more than about 1032 to 1), plus a constant for
/// tiny parts.
pub const MAX_RATIO: u64 = 1032;
const RATIO_SLACK: u64 = 1 << 16;

/// How a node part is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Method {
    /// As it is (compression would not make it smaller).
    Stored = 0,
    /// A zlib stream of the plain bytes.
    Zlib = 1,
    /// The field pre-pass (`format::fields`, private): the payload is the size of
    /// its zlib part once inflated (i32), the zlib stream's size (i32), the
    /// zlib stream, then the planes stored as they are (noise).
    Fields = 2,
}

impl Method {
    fn from_u8(m: u8) -> Option<Method> {
        match m {
            0 => Some(Method::Stored),
            1 => Some(Method::Zlib),
            2 => Some(Method::Fields),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Method::Stored => "stored",
            Method::Zlib => "zlib",
            Method::Fields => "fields+zlib",
        }
    }
}

/// The two parts of a node block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Drawables = 0,
    Stubs = 1,
}

/// One part's header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartHeader {
    pub method: Method,
    /// Bytes of the part in the 2.0.6 layout.
    pub plain: usize,
    /// Bytes of the part on disk.
    pub stored: usize,
}

/// A compressed node block, its prefix decoded and checked.
#[derive(Debug, Clone, Copy)]
pub struct PackedNode<'a> {
    pub entry: DirEntry,
    pub parts: [PartHeader; 2],
    payload: [&'a [u8]; 2],
    /// The block's file offset (for errors).
    base: u64,
}

fn node_error(entry: &DirEntry, at: u64, detail: impl std::fmt::Display) -> Error {
    Error::malformed(
        "compressed tree node",
        at,
        format!("node {}: {detail}", entry.id),
    )
}

impl<'a> PackedNode<'a> {
    /// Decode a compressed node's prefix (spec above) and check its sizes
    /// against the block and against what zlib can produce.
    pub fn parse(block: &'a [u8], base: u64) -> Result<PackedNode<'a>> {
        let mut d = Decoder::new(block, base, "compressed tree node");
        let entry = decode_entry_header(&mut d)?;
        let mut parts = [PartHeader {
            method: Method::Stored,
            plain: 0,
            stored: 0,
        }; 2];
        for p in &mut parts {
            let at = d.offset();
            let m = d.u8()?;
            let plain = d.i32()?;
            let stored = d.i32()?;
            let method = Method::from_u8(m)
                .ok_or_else(|| node_error(&entry, at, format!("unknown compression method {m}")))?;
            if plain < 0 || stored < 0 {
                return Err(node_error(
                    &entry,
                    at,
                    format!("negative part size ({plain} plain, {stored} stored)"),
                ));
            }
            let (plain, stored) = (plain as usize, stored as usize);
            let bound = match method {
                Method::Stored => stored as u64,
                _ => (stored as u64)
                    .saturating_mul(MAX_RATIO)
                    .saturating_add(RATIO_SLACK),
            };
            if plain as u64 > bound || (method == Method::Stored && plain != stored) {
                return Err(node_error(
                    &entry,
                    at,
                    format!(
                        "declares {plain} plain bytes from {stored} stored ({}): more than it can hold",
                        method.name()
                    ),
                ));
            }
            *p = PartHeader {
                method,
                plain,
                stored,
            };
        }
        let rest = d.remaining();
        if parts[0].stored.checked_add(parts[1].stored) != Some(rest) {
            return Err(node_error(
                &entry,
                d.offset(),
                format!(
                    "parts of {} + {} stored bytes in a payload of {rest}",
                    parts[0].stored, parts[1].stored
                ),
            ));
        }
        let a = d.bytes(parts[0].stored)?;
        let b = d.bytes(parts[1].stored)?;
        Ok(PackedNode {
            entry,
            parts,
            payload: [a, b],
            base,
        })
    }

    /// Bytes of the node in the 2.0.6 layout.
    pub fn plain_size(&self) -> usize {
        NODE_HEADER_SIZE + self.parts[0].plain + self.parts[1].plain
    }

    /// Append the plain bytes of `part` to `out`.
    pub fn unpack(&self, part: Part, out: &mut Vec<u8>) -> Result<()> {
        let h = self.parts[part as usize];
        let payload = self.payload[part as usize];
        let at = self.base
            + PACKED_PREFIX as u64
            + if part == Part::Stubs {
                self.parts[0].stored as u64
            } else {
                0
            };
        let start = out.len();
        let r = match h.method {
            Method::Stored => {
                out.extend_from_slice(payload);
                Ok(())
            }
            Method::Zlib => inflate(payload, h.plain, out),
            Method::Fields => unpack_fields(payload, part, h.plain, out),
        };
        r.map_err(|e| node_error(&self.entry, at, detail_of(&e)))?;
        if out.len() - start != h.plain {
            return Err(node_error(
                &self.entry,
                at,
                format!(
                    "inflates to {} bytes where {} are declared",
                    out.len() - start,
                    h.plain
                ),
            ));
        }
        Ok(())
    }

    /// The node's header and drawables in the 2.0.6 layout, with their
    /// layout — what [`scan_node`](super::scan_node) gives on those bytes —
    /// joined and keyed in one walk (`format::fields`, private: a cold
    /// window query's cost on a compressed file). `None` when the
    /// drawables are not fields-coded or anything is not exactly as the
    /// checked path ([`unpack_into`](Self::unpack_into), then `scan_node`)
    /// would accept it: that path then gives the result or the error.
    pub fn unpack_keyed(&self) -> Option<(Vec<u8>, NodeLayout)> {
        let h = self.parts[0];
        if h.method != Method::Fields {
            return None;
        }
        let (z, len, raw) = fields_payload(self.payload[0]).ok()?;
        let mut out = Vec::new();
        let keyed = SCRATCH.with(|s| {
            let (streams, values) = &mut *s.borrow_mut();
            streams.clear();
            inflate(z, len, streams).ok()?;
            let (bounds, info) = Join::values(streams, raw, h.plain, values).ok()?;
            out.reserve_exact(NODE_HEADER_SIZE + h.plain);
            encode_entry_header(&mut out, &self.entry);
            fields::join_drawables_keyed(values, &bounds, info, &mut out, h.plain)
        })?;
        let [mut nestless, mut nestable] = keyed.lists;
        for (list, i) in keyed.later {
            let k = if list == 0 {
                &mut nestless[i]
            } else {
                &mut nestable[i]
            };
            let mut d = Decoder::at(&out, k.offset as usize, self.base, "tree node");
            let key = record_key(&mut d).ok()?;
            if (key.offset, key.len) != (k.offset, k.len) {
                return None;
            }
            *k = key;
        }
        let layout = NodeLayout {
            entry: self.entry,
            nestless,
            nestable,
            stubs_at: out.len(),
        };
        Some((out, layout))
    }

    /// The node block in the 2.0.6 layout (header, then the parts asked
    /// for: `Drawables`, or both) into `out` (cleared first).
    pub fn unpack_into(&self, stubs: bool, out: &mut Vec<u8>) -> Result<()> {
        out.clear();
        encode_entry_header(out, &self.entry);
        self.unpack(Part::Drawables, out)?;
        if stubs {
            self.unpack(Part::Stubs, out)?;
        }
        Ok(())
    }
}

fn detail_of(e: &Error) -> String {
    match e {
        Error::Malformed { detail, .. } => detail.clone(),
        e => e.to_string(),
    }
}

/// Inflate the zlib stream `z` into `out`: exactly `plain` bytes
/// (`format::zlib`, private: libdeflate, stopping at once past `plain`).
fn inflate(z: &[u8], plain: usize, out: &mut Vec<u8>) -> Result<()> {
    zlib::inflate(z, plain, out).map_err(|e| {
        let detail = match e {
            InflateError::Beyond => format!("inflates beyond its declared {plain} bytes"),
            InflateError::Short(n) => {
                format!("zlib stream ends early: inflates to {n} bytes where {plain} are declared")
            }
            e => e.to_string(),
        };
        Error::malformed("compressed tree node", 0, detail)
    })
}

thread_local! {
    /// The pre-pass's streams and values of the last part unpacked on this
    /// thread (reused).
    static SCRATCH: std::cell::RefCell<(Vec<u8>, Vec<u64>)> =
        const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
}

/// A fields-coded payload's zlib stream, its inflated size and its stored
/// planes.
fn fields_payload(payload: &[u8]) -> Result<(&[u8], usize, &[u8])> {
    let bad = |d: &str| Error::malformed("compressed tree node", 0, d.to_string());
    let (head, rest) = payload
        .split_first_chunk::<8>()
        .ok_or_else(|| bad("field streams without their sizes"))?;
    let len = i32::from_be_bytes([head[0], head[1], head[2], head[3]]);
    let zlen = i32::from_be_bytes([head[4], head[5], head[6], head[7]]);
    if zlen < 0 || zlen as usize > rest.len() {
        return Err(bad("field streams' zlib part beyond the node"));
    }
    let (z, raw) = rest.split_at(zlen as usize);
    if len < 0 || len as u64 > (z.len() as u64).saturating_mul(MAX_RATIO) + RATIO_SLACK {
        return Err(bad("field streams larger than their zlib stream can hold"));
    }
    Ok((z, len as usize, raw))
}

fn unpack_fields(payload: &[u8], part: Part, plain: usize, out: &mut Vec<u8>) -> Result<()> {
    let (z, len, raw) = fields_payload(payload)?;
    SCRATCH.with(|s| {
        let (streams, values) = &mut *s.borrow_mut();
        streams.clear();
        inflate(z, len, streams)?;
        let (bounds, info) = Join::values(streams, raw, plain, values)?;
        // The part is written in place: `plain` bytes (bounded by the
        // stored bytes, checked on parse), cut to what the walk wrote.
        let start = out.len();
        out.resize(start + plain, 0);
        let n = join(values, &bounds, info, &mut out[start..], part);
        out.truncate(start + *n.as_ref().unwrap_or(&0));
        n.map(|_| ())
    })
}

/// Walk `part` joining the streams into `out`; returns the bytes written.
/// The join is a local of this function (not a parameter or behind a
/// pointer), so that its cursors can live in registers.
#[inline(never)]
fn join(
    values: &[u64],
    bounds: &[usize; fields::NUMERIC + 1],
    info: &[u8],
    out: &mut [u8],
    part: Part,
) -> Result<usize> {
    let mut j = Join::new(values, bounds, info, out);
    match part {
        Part::Drawables => fields::walk_drawables(&mut j)?,
        Part::Stubs => fields::walk_stubs(&mut j)?,
    }
    j.finish()
}

/// Walk `part` with the split `s`, held by value here (as [`join`]).
#[inline(never)]
fn split(mut s: Split<'_>, part: Part) -> Result<Split<'_>> {
    match part {
        Part::Drawables => fields::walk_drawables(&mut s)?,
        Part::Stubs => fields::walk_stubs(&mut s)?,
    }
    Ok(s)
}

// ---------------------------------------------------------------------------
// Packing (the writer's side)

/// Reusable state for packing nodes (the compressor and scratch buffers).
pub struct Packer {
    level: u32,
    z: Deflater,
    streams: Vec<u8>,
    raw: Vec<u8>,
    values: Values,
}

impl std::fmt::Debug for Packer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Packer")
            .field("level", &self.level)
            .finish()
    }
}

impl Packer {
    /// A packer at `level` (libdeflate's, [`MIN_LEVEL`] fastest …
    /// [`MAX_LEVEL`] smallest; clamped to that range).
    pub fn new(level: u32) -> Packer {
        let level = level.clamp(MIN_LEVEL, MAX_LEVEL);
        Packer {
            level,
            z: Deflater::new(level),
            streams: Vec::new(),
            raw: Vec::new(),
            values: Values::default(),
        }
    }

    pub fn level(&self) -> u32 {
        self.level
    }

    /// Append one part, packed, to `out`; returns its header. The part is
    /// stored as it is when compression does not make it smaller.
    fn part(&mut self, plain: &[u8], part: Part, out: &mut Vec<u8>) -> PartHeader {
        let start = out.len();
        if plain.len() < SMALL_PART {
            out.extend_from_slice(plain);
            return PartHeader {
                method: Method::Stored,
                plain: plain.len(),
                stored: plain.len(),
            };
        }
        let mut method = Method::Zlib;
        // The field pre-pass, when the part walks as SLOG-2.
        self.streams.clear();
        let walked = split(Split::new(plain, std::mem::take(&mut self.values)), part);
        let mut streams = std::mem::take(&mut self.streams);
        self.raw.clear();
        if let Ok(split) = walked {
            if let Ok(values) = split.finish(
                &mut streams,
                &mut self.raw,
                fields::noise_bits(self.level <= MIN_LEVEL),
            ) {
                self.values = values;
                if streams.len() <= i32::MAX as usize {
                    out.extend_from_slice(&(streams.len() as i32).to_be_bytes());
                    out.extend_from_slice(&[0; 4]);
                    let z = out.len();
                    if self.z.deflate(&streams, out) {
                        let zlen = (out.len() - z) as i32;
                        out[z - 4..z].copy_from_slice(&zlen.to_be_bytes());
                        out.extend_from_slice(&self.raw);
                        method = Method::Fields;
                    }
                }
            }
        }
        self.streams = streams;
        let mut packed = true;
        if method == Method::Zlib {
            out.truncate(start);
            packed = self.z.deflate(plain, out);
        }
        let stored = out.len() - start;
        let bound = (stored as u64) * MAX_RATIO + RATIO_SLACK;
        if !packed || stored >= plain.len() || plain.len() as u64 > bound {
            out.truncate(start);
            out.extend_from_slice(plain);
            method = Method::Stored;
        }
        PartHeader {
            method,
            plain: plain.len(),
            stored: out.len() - start,
        }
    }

    /// Point the header of the packed block `packed` (packed at another
    /// offset, e.g. 0 before its place was known: a null pointer) at
    /// `offset`.
    pub fn move_to(packed: &mut [u8], offset: u64) -> Result<()> {
        let mut d = Decoder::new(packed, offset, "compressed tree node");
        let mut entry = decode_entry_header(&mut d)?;
        entry.ptr = BlockPtr::new(offset, packed.len());
        let mut head = Vec::with_capacity(NODE_HEADER_SIZE);
        encode_entry_header(&mut head, &entry);
        packed[..NODE_HEADER_SIZE].copy_from_slice(&head);
        Ok(())
    }

    /// Pack the 2.0.6 node block `plain` (its stub count at `stubs_at`)
    /// into `out` as it goes at file offset `offset`: the header gets the
    /// packed block's own pointer. Returns the packed size.
    pub fn pack(
        &mut self,
        plain: &[u8],
        stubs_at: usize,
        offset: u64,
        out: &mut Vec<u8>,
    ) -> Result<usize> {
        let mut d = Decoder::new(plain, offset, "tree node");
        let mut entry = decode_entry_header(&mut d)?;
        let start = out.len();
        out.resize(start + PACKED_PREFIX, 0);
        let a = self.part(&plain[NODE_HEADER_SIZE..stubs_at], Part::Drawables, out);
        let b = self.part(&plain[stubs_at..], Part::Stubs, out);
        let size = out.len() - start;
        let size32 = i32::try_from(size).map_err(|_| {
            Error::InvalidArgument(format!("tree node {} would exceed 2 GiB", entry.id))
        })?;
        entry.ptr = BlockPtr {
            offset: offset as i64,
            size: size32,
        };
        let mut head = Vec::with_capacity(PACKED_PREFIX);
        encode_entry_header(&mut head, &entry);
        for p in [a, b] {
            head.push(p.method as u8);
            head.extend_from_slice(&(p.plain as i32).to_be_bytes());
            head.extend_from_slice(&(p.stored as i32).to_be_bytes());
        }
        out[start..start + PACKED_PREFIX].copy_from_slice(&head);
        Ok(size)
    }
}
