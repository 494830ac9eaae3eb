//! The tree directory block (spec §6): one 34-byte entry per tree node —
//! its ID `(depth, xpos)`, time box and block pointer — root first, leaves
//! last. It is the same triple a node repeats in its own header and its
//! parent keeps in the child's stub; readers index it on open to find the
//! nodes a time window needs without touching the tree.

use super::bytes::{put_f64, put_i16, put_i32, Decoder};
use super::header::{put_ptr, BlockPtr};
use crate::error::Result;
use crate::model::*;

/// Bytes of one directory entry.
pub const DIR_ENTRY_SIZE: usize = 34;

/// One directory entry: a node's ID, time box and block pointer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DirEntry {
    pub id: NodeId,
    pub time_box: TimeBox,
    pub ptr: BlockPtr,
}

pub fn encode_treedir(out: &mut Vec<u8>, entries: &[DirEntry]) {
    put_i32(out, entries.len() as i32);
    encode_treedir_entries(out, entries);
}

/// The entries of a tree directory without its count: a directory may be
/// encoded (and written) a slice of entries at a time.
pub fn encode_treedir_entries(out: &mut Vec<u8>, entries: &[DirEntry]) {
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

/// Bytes of a node header and of a stub header: the same triple as a
/// directory entry in another order (box, ID, pointer).
pub const NODE_HEADER_SIZE: usize = 34;

/// A node's or a stub's header (spec §7.1, §7.4).
pub(super) fn encode_entry_header(out: &mut Vec<u8>, e: &DirEntry) {
    put_f64(out, e.time_box.start);
    put_f64(out, e.time_box.end);
    put_i16(out, e.id.depth);
    put_i32(out, e.id.xpos);
    put_ptr(out, e.ptr);
}

pub(super) fn decode_entry_header(d: &mut Decoder) -> Result<DirEntry> {
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
