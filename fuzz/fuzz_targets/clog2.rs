//! MPE's CLOG2 logs on arbitrary bytes: the record→drawable source (every
//! record until the first error), the conversion of what it yields, and the
//! clog2print dump.
#![no_main]

use libfuzzer_sys::fuzz_target;
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
        let _ = slog2::convert::convert(
            &mut s,
            &dir.path().join("o.slog2"),
            &Default::default(),
            &mut |_| {},
            &mut |_| {},
        );
    }
    let _ = slog2::trace::clog2::print::print_bytes(data, &mut std::io::sink());
});
