//! The sample text trace format on arbitrary bytes: the sequential parser
//! one record at a time and in batches, and the conversion of what parses.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;
use slog2::trace::text::TextSource;
use slog2::trace::TraceSource;

fuzz_target!(|data: &[u8]| {
    let mut a = TextSource::from_read("fuzz.txt", std::io::Cursor::new(data.to_vec()));
    let mut n = 0;
    while let Ok(Some(_)) = a.next_record() {
        n += 1;
        let _ = a.location();
    }
    let mut b = TextSource::from_read("fuzz.txt", std::io::Cursor::new(data.to_vec()));
    let mut v = Vec::new();
    let mut m = 0;
    while b.next_records(&mut v).is_ok() && !v.is_empty() {
        m += v.len();
    }
    // Both interfaces agree on what parses before the first error.
    assert!(n <= m || m == 0 || n == m, "{n} records one by one, {m} in batches");
    let dir = tempfile::tempdir().unwrap();
    let mut c = TextSource::from_read("fuzz.txt", std::io::Cursor::new(data.to_vec()));
    common::convert_into(&mut c, dir.path());
});
