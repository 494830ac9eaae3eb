//! Issue #27 class 2: a file truncated (or rewritten) under a reader. Every
//! query of a memory-mapped file that ran into the truncation returns
//! `Error::FileChanged` (kind `Io`), the process lives, and the reader stays
//! usable in the sense that it keeps answering (with that error).

use std::path::{Path, PathBuf};

use slog2::{Error, ErrorKind, Slog2File, Slog2Writer, WriterOptions};

/// A synthetic SLOG-2 file of `n` drawables (mapped: well over 64 KB).
fn synthetic(dir: &Path, n: u64) -> PathBuf {
    let p = dir.join(format!("synth-{n}.slog2"));
    let mut w = Slog2Writer::create(&p, WriterOptions::default()).unwrap();
    for c in slog2_dev::synth::categories() {
        w.add_category(c).unwrap();
    }
    for d in slog2_dev::synth::Synthetic::new(n, 16, 1) {
        w.add_drawable(d).unwrap();
    }
    w.finish().unwrap();
    p
}

fn truncate(p: &Path, len: u64) {
    std::fs::OpenOptions::new()
        .write(true)
        .open(p)
        .unwrap()
        .set_len(len)
        .unwrap();
}

fn is_changed(e: &Error) -> bool {
    matches!(e, Error::FileChanged { .. }) && e.kind() == ErrorKind::Io
}

#[test]
fn every_query_of_a_truncated_file_says_it_changed() {
    let dir = tempfile::tempdir().unwrap();
    let src = synthetic(dir.path(), 200_000);
    let len = std::fs::metadata(&src).unwrap().len();
    assert!(len > 4 << 20, "{len}");
    // One fresh copy per query kind: each is opened, queried once while
    // whole (the same answer as a copy in memory), truncated to a tenth,
    // and queried again.
    type Query = fn(&Slog2File) -> slog2::Result<usize>;
    let queries: [(&str, Query); 7] = [
        ("window", |f| {
            let tb = f.total_time();
            f.window(tb.start, tb.end).map(|w| w.drawables.len())
        }),
        ("window_rows", |f| {
            let tb = f.total_time();
            f.window_rows(tb.start, tb.end).map(|r| r.len())
        }),
        ("preview", |f| {
            let tb = f.total_time();
            f.preview(tb.start, tb.end, 1)
                .map(|p| p.drawables.len() + p.shadows.len())
        }),
        ("scan", |f| f.scan_rows().map(|r| r.len())),
        ("cursor", |f| {
            let tb = f.total_time();
            let mut c = slog2::read::WindowCursor::new();
            c.move_to(f, tb.start, tb.end).map(|r| r.len())
        }),
        ("drawables", |f| {
            f.drawables()
                .collect::<slog2::Result<Vec<_>>>()
                .map(|v| v.len())
        }),
        ("window_rows_each", |f| {
            let tb = f.total_time();
            let mut n = 0;
            f.window_rows_each::<Error>(tb.start, tb.end, 4096, |r| {
                n += r.len();
                Ok(())
            })
            .map(|_| n)
        }),
    ];
    let whole = Slog2File::from_bytes(std::fs::read(&src).unwrap()).unwrap();
    for (name, q) in queries {
        let p = dir.path().join(format!("{name}.slog2"));
        std::fs::copy(&src, &p).unwrap();
        let f = Slog2File::open(&p).unwrap();
        assert_eq!(
            q(&f).unwrap(),
            q(&whole).unwrap(),
            "{name} on the whole file"
        );
        assert!(!f.changed());
        // Drop the page mappings so the next touch faults (as a fresh
        // reader's would), then truncate under the open reader.
        drop(f);
        let f = Slog2File::open(&p).unwrap();
        truncate(&p, len / 10);
        let e = q(&f).expect_err(name);
        assert!(is_changed(&e), "{name}: {e}");
        assert!(e.to_string().contains(&format!("{name}.slog2")), "{e}");
        assert!(f.changed());
        // It keeps answering, with the same error.
        assert!(is_changed(&q(&f).unwrap_err()), "{name} again");
    }
    // `check` reports it as its first error.
    let p = dir.path().join("check.slog2");
    std::fs::copy(&src, &p).unwrap();
    let f = Slog2File::open(&p).unwrap();
    truncate(&p, len / 10);
    let r = f.check();
    assert!(
        r.errors[0].contains("changed while it was open"),
        "{:?}",
        &r.errors[..1]
    );
}

/// Rewritten in place without shrinking: no fault; a query that fails on
/// the new bytes says the file changed (its stamp did), not "damaged".
#[test]
fn a_file_rewritten_in_place_is_reported_as_changed() {
    let dir = tempfile::tempdir().unwrap();
    let p = synthetic(dir.path(), 100_000);
    let len = std::fs::metadata(&p).unwrap().len() as usize;
    let f = Slog2File::open(&p).unwrap();
    // Garbage over the nodes (the header and tail stay).
    let mut bytes = std::fs::read(&p).unwrap();
    for b in &mut bytes[200..len / 2] {
        *b = 0xA5;
    }
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&p, &bytes).unwrap();
    let tb = f.total_time();
    let e = f.window(tb.start, tb.end).expect_err("garbage nodes");
    assert!(is_changed(&e), "{e}");
}

/// A CLOG2 conversion whose input is truncated while mapped: an error (the
/// zeros read since would pass for an end-of-log record), no output.
#[test]
fn a_clog2_log_truncated_while_converted_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("big.clog2");
    slog2::trace::clog2::gen::generate_file(&log, 400_000, 16).unwrap();
    let len = std::fs::metadata(&log).unwrap().len();
    let mut src = slog2::trace::open_source(&log).unwrap();
    let mut batch = Vec::new();
    src.next_records(&mut batch).unwrap();
    assert!(!batch.is_empty());
    truncate(&log, len / 3);
    eprintln!(
        "len {len} installed {}",
        slog2::read::guard::handler_installed()
    );
    let e = loop {
        match src.next_records(&mut batch) {
            Ok(()) if batch.is_empty() => {
                panic!("the truncated log ended cleanly: {:?}", src.report())
            }
            Ok(()) => continue,
            Err(e) => break e,
        }
    };
    assert!(is_changed(&e), "{e}");
    assert!(e.to_string().contains("big.clog2"), "{e}");
}
