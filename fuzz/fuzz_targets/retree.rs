//! Re-tree: arbitrary bytes as an SLOG-2 source (merge and sorted modes)
//! into the writer; what is written must open and check clean.
#![no_main]

use libfuzzer_sys::fuzz_target;
use slog2::trace::slog2::Slog2Source;

fuzz_target!(|data: &[u8]| {
    if slog2::Slog2File::from_bytes(data.to_vec()).is_err() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.slog2");
    std::fs::write(&input, data).unwrap();
    let out = dir.path().join("out.slog2");
    for sorted in [false, true] {
        let src = if sorted { Slog2Source::open_sorted(&input) } else { Slog2Source::open(&input) };
        let Ok(mut src) = src else { continue };
        let opts = slog2::convert::ConvertOptions {
            writer: slog2::WriterOptions { leaf_bytesize: 512, children_per_node: 2, ..Default::default() },
            ..Default::default()
        };
        if slog2::convert::convert(&mut src, &out, &opts, &mut |_| {}, &mut |_| {}).is_ok() {
            let f = slog2::Slog2File::open(&out).expect("our output opens");
            let r = f.check();
            assert!(r.errors.is_empty(), "our output fails check: {:?}", r.errors);
        }
    }
});
