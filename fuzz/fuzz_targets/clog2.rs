//! MPE's CLOG2 logs on arbitrary bytes: the record→drawable source (every
//! record until the first error), the conversion of what it yields, and the
//! clog2print dump.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;
use slog2::trace::clog2::Clog2Source;
use slog2::trace::TraceSource;

fuzz_target!(|data: &[u8]| {
    if let Ok(mut s) = Clog2Source::from_bytes(data) {
        while let Ok(Some(_)) = s.next_record() {
            let _ = s.location();
        }
    }
    if let Ok(mut s) = Clog2Source::from_bytes(data) {
        let dir = tempfile::tempdir().unwrap();
        common::convert_into(&mut s, dir.path());
    }
    let _ = slog2::trace::clog2::print::print_bytes(data, &mut std::io::sink());
});
