//! The input-opening layer (`trace::input`, issue #27 classes 3 and 6, issue
//! #28 gzip inputs) on arbitrary bytes: the first byte chooses how the rest
//! arrives — a regular file, or gzip-compressed (a file named `.gz`), and
//! whether the source is read to its end or its SLOG-2 reading
//! (`Slog2File::read_from`, the stream path) is taken; then every record the
//! chosen source yields is read. What is checked: no crash, no hang, memory
//! bounded by the format's limits (libFuzzer's -rss_limit_mb), the sniffed
//! bytes never lost (a text input gives the same records as the text parser
//! reading the bytes directly).
#![no_main]

use std::io::Write;

use libfuzzer_sys::fuzz_target;
use slog2::trace::TraceSource;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, body)) = data.split_first() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let gz = mode & 1 != 0;
    let p = dir.path().join(if gz { "in.gz" } else { "in" });
    let bytes = if gz {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(body).unwrap();
        e.finish().unwrap()
    } else {
        body.to_vec()
    };
    std::fs::write(&p, &bytes).unwrap();
    if mode & 2 != 0 {
        let _ = slog2::Slog2File::read_from(std::io::Cursor::new(body.to_vec()), &p)
            .map(|f| f.check());
        return;
    }
    let Ok(mut src) = slog2::trace::open_source_with(&p, 1) else {
        return;
    };
    let mut got = Vec::new();
    while let Ok(Some(r)) = src.next_record() {
        got.push(r);
    }
    // A text input: the sniffed head must not be lost.
    if let Ok(slog2::trace::input::Format::Text) =
        slog2::trace::input::open(&p).map(|i| i.format())
    {
        let mut direct =
            slog2::trace::text::TextSource::from_read("in", std::io::Cursor::new(body.to_vec()));
        let mut want = Vec::new();
        while let Ok(Some(r)) = direct.next_record() {
            want.push(r);
        }
        assert_eq!(got, want, "records lost by sniffing");
    }
});
