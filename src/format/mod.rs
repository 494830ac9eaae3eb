//! The SLOG-2 2.0.6 byte codec.
//!
//! This module knows bytes and nothing else. It does not know how the tree is
//! built (`write`) or navigated (`read`); it knows how each block of a file
//! is laid out (spec: `docs/slog2-file-format.md`), in one file per block
//! kind:
//!
//! | file | what | spec |
//! |---|---|---|
//! | [`bytes`] | big-endian numbers, Java strings, the bounds-checked [`Decoder`] | §1 |
//! | [`header`] | the 108-byte header and block pointers | §2 |
//! | [`category`] | the category map | §3 |
//! | [`lineid`] | the line-ID map list | §5 |
//! | [`directory`] | the tree directory, node and stub headers | §6 |
//! | [`record`] | drawable records and the one walk over them | §7.2–7.3 |
//! | [`shadow`] | child stubs and their shadows | §7.4–7.5 |
//! | [`node`] | tree node blocks: keys, resumable walk, full decode | §7.1 |
//! | [`packed`] | compressed tree nodes (`SLOG 2.0.Z`), this library's extension | draft §6.3 |
//! | `fields` | the field pre-pass of compressed nodes | draft §6.3 |
//!
//! Two rules hold everywhere:
//!
//! * **Decoding never panics.** Every read is bounds-checked, every count
//!   read from a file is checked against the bytes that remain before
//!   anything is allocated for it, and every failure is an
//!   [`Error`](crate::Error) carrying the block's name and the absolute byte
//!   offset.
//! * **A rule lives once.** Whatever a reader wants from a drawable record
//!   (its key, its columns, an owned drawable), the bytes go through one
//!   walk ([`visit_drawable`]) and the reader is a [`RecordSink`]; shadows
//!   likewise go through [`walk_stubs`]. The walk's fast path is a
//!   specialisation of its checked path, held to the same results by a
//!   property test.
//!
//! Encoding appends to a `Vec<u8>` with the std `to_be_bytes` methods (all
//! that is needed, so no `byteorder` dependency).

pub mod bytes;
pub mod category;
pub mod directory;
pub(crate) mod fields;
pub mod header;
pub mod lineid;
pub mod node;
pub mod packed;
pub mod record;
pub mod shadow;
mod zlib;

pub use bytes::{
    check_len, put_f32, put_f64, put_i16, put_i32, put_i64, put_i8, put_str, Decoder, MAX_I16,
};
pub use category::{decode_categories, encode_categories, encode_category};
pub use directory::{
    decode_treedir, encode_treedir, encode_treedir_entries, DirEntry, DIR_ENTRY_SIZE,
    NODE_HEADER_SIZE,
};
pub use header::{put_ptr, BlockPtr, Header, HEADER_SIZE, VERSION};
pub use lineid::{decode_ycoordmaps, encode_ycoordmaps};
pub use node::{
    decode_node, encode_node, scan_node, Node, NodeLayout, NodeParts, RecordWalk, NODE_OVERHEAD,
};
pub use packed::{
    Method, PackedNode, Packer, Part, MAX_LEVEL, MIN_LEVEL, PACKED_PREFIX, VERSION_COMPRESSED,
};
pub use record::{
    check_drawable, decode_drawable, decode_primitive, encode_drawable, encode_primitive,
    record_key, visit_drawable, DrawableOf, KeyOf, PrimRef, RecordKey, RecordSink,
};
pub use shadow::{
    decode_shadow, decode_shadow_ref, decode_stubs, encode_shadow, encode_stub, visit_stub_shadows,
    walk_stubs, ShadowRef, Stub, StubSink, STUB_OVERHEAD,
};
