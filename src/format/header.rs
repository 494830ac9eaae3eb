//! The 108-byte file header and block pointers (spec §2).
//!
//! The header at offset 0 is a reader's only entry point: the version string,
//! the tree's shape (children per node, leaf size, depth), the largest block
//! a reader must buffer, and seven *file block pointers* `(i64 offset,
//! i32 size)` to the category map, method definitions, line-ID maps, tree
//! root, tree directory, annotations and postamble. A pointer is null when
//! its offset is 0 or its size is not positive.
//!
//! The writer puts a placeholder header first and rewrites it once every
//! block is on disk (spec §2.2), so a file whose pointers are null was never
//! finished.
//!
//! The version is checked before anything else: a file that is not SLOG-2
//! at all (a text trace, a CLOG2 log, a gzip file) is refused with a quote
//! of its first bytes, escaped, so the user sees what they opened.

use super::bytes::{put_i16, put_i32, put_i64, put_str, Decoder};
use crate::error::{Error, Result};

pub const VERSION: &str = "SLOG 2.0.6";
/// The version string of a file with compressed tree nodes (`super::packed`).
pub const VERSION_COMPRESSED: &str = "SLOG 2.0.Z";
pub const HEADER_SIZE: usize = 108;

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

pub fn put_ptr(out: &mut Vec<u8>, p: BlockPtr) {
    if p.is_null() {
        out.extend_from_slice(&[0u8; 12]);
    } else {
        put_i64(out, p.offset);
        put_i32(out, p.size);
    }
}

impl Decoder<'_> {
    pub fn ptr(&mut self) -> Result<BlockPtr> {
        Ok(BlockPtr {
            offset: self.i64()?,
            size: self.i32()?,
        })
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

/// At most 16 bytes, printable ASCII kept and everything else escaped, for
/// error messages.
fn quote(b: &[u8]) -> String {
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

    /// Whether the file's tree nodes are compressed ([`super::packed`]).
    pub fn is_compressed(&self) -> bool {
        self.version == VERSION_COMPRESSED
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
            // Not SLOG-2 at all (a text file's first two bytes read as a
            // length of up to 32767): quote the file's first bytes, from
            // byte 0, escaped — they are not text.
            return Err(Error::BadVersion {
                found: quote(&file[..file.len().min(16)]),
            });
        }
        let raw = d.bytes(10)?;
        let version = if raw == VERSION.as_bytes() {
            VERSION
        } else if raw == VERSION_COMPRESSED.as_bytes() {
            VERSION_COMPRESSED
        } else {
            return Err(Error::BadVersion { found: quote(raw) });
        };
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
            version: version.to_string(),
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

    /// The quote of a file that is not SLOG-2 starts at its first byte
    /// (it used to skip the two bytes read as the version length).
    #[test]
    fn bad_version_quotes_the_first_bytes() {
        let gzip = [
            0x1f, 0x8b, 0x08, 0x08, 0x12, 0x34, 0, 0, 0, 3, b'r', b'u', b'n',
        ];
        let Err(Error::BadVersion { found }) = Header::decode(&gzip) else {
            panic!("a gzip file is not SLOG-2");
        };
        assert_eq!(found, "\\x1f\\x8b\\x08\\x08\\x124\\x00\\x00\\x00\\x03run");
        let text = b"Category[ index=0 name=message topo=Arrow ]\n";
        let e = Header::decode(text).unwrap_err();
        assert!(
            e.to_string().contains("starts with \"Category[ index=\""),
            "{e}"
        );
        let mut v = Vec::new();
        Header::placeholder(2, 65536).encode(&mut v);
        v[2..12].copy_from_slice(b"SLOG 2.0.5");
        let e = Header::decode(&v).unwrap_err();
        assert!(e.to_string().contains("starts with \"SLOG 2.0.5\""), "{e}");
    }
}
