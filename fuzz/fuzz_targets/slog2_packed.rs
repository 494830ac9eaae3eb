//! Compressed tree nodes (`SLOG 2.0.Z`) from arbitrary bytes: the bytes
//! replace the tail of one node of a small valid compressed file — from its
//! part headers (method, declared sizes) or from its payload on — and every
//! reader path (the analyses too) runs on the result; the same bytes are also unpacked as a
//! node block of their own. Any panic, abort, sanitizer report or
//! allocation past the fuzzer's limit (a zip bomb: a declared size that is
//! allocated or inflated beyond the node's bytes) is a bug; errors are fine.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use slog2::format::{PackedNode, PACKED_PREFIX};
use slog2::{Slog2File, Slog2Writer, WriterOptions};

mod common;

/// A valid compressed file of a few nodes (made once).
fn base() -> &'static Vec<u8> {
    static FILE: OnceLock<Vec<u8>> = OnceLock::new();
    FILE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("z.slog2");
        let opts = WriterOptions {
            leaf_bytesize: 1024,
            compress: Some(6),
            ..Default::default()
        };
        let mut w = Slog2Writer::create(&p, opts).unwrap();
        for c in slog2_dev::synth::categories() {
            w.add_category(c).unwrap();
        }
        for d in slog2_dev::synth::Synthetic::new(150, 4, 1) {
            w.add_drawable(d).unwrap();
        }
        w.finish().unwrap();
        std::fs::read(&p).unwrap()
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, data)) = data.split_first() else {
        return;
    };
    // The bytes alone, as a node block.
    if let Ok(p) = PackedNode::parse(data, 0) {
        let mut out = Vec::new();
        let _ = p.unpack_into(sel & 1 == 1, &mut out);
    }
    // The bytes over one node of a valid file, from its part headers
    // (sel even) or its payload (odd) on; the node's size stays.
    let file = base();
    let f = Slog2File::from_bytes(file.clone()).unwrap();
    let dir = f.directory();
    let e = dir[sel as usize % dir.len()];
    let from = e.ptr.offset as usize + if sel & 1 == 0 { 34 } else { PACKED_PREFIX };
    let end = e.ptr.offset as usize + e.ptr.size as usize;
    let mut bytes = file.clone();
    let n = data.len().min(end.saturating_sub(from));
    bytes[from..from + n].copy_from_slice(&data[..n]);
    let Ok(f) = Slog2File::from_bytes(bytes) else {
        return;
    };
    let tb = f.total_time();
    let _ = f.window_rows(tb.start, tb.end);
    let _ = f.preview_rows(tb.start, tb.end, 1);
    let _ = f.scan_rows();
    let _ = f.check();
    let _ = f.node_storage();
    let mut c = slog2::read::WindowCursor::new();
    let _ = c.move_to(&f, tb.start, tb.end);
    for e in f.directory() {
        let _ = f.read_node(e, slog2::format::NodeParts::All);
    }
    common::analyses(&f);
});
