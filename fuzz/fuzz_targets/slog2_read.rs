//! Every SLOG-2 reader path on arbitrary bytes: open, check, window,
//! preview at several depths, the reference-style print, popup text, rows,
//! the whole-file scan (its row count equals the window over everything on
//! files that pass `check`), the statistics and the overviews.
//! Any panic, abort or sanitizer report is a bug; errors are fine.
#![no_main]

use libfuzzer_sys::fuzz_target;
use slog2::Slog2File;

mod common;

fuzz_target!(|data: &[u8]| {
    let Ok(f) = Slog2File::from_bytes(data.to_vec()) else {
        return;
    };
    let valid = f.check().errors.is_empty();
    let tb = f.total_time();
    let mid = tb.start + (tb.end - tb.start) / 2.0;
    for (t0, t1) in [(tb.start, tb.end), (tb.start, mid), (mid, mid), (f64::NEG_INFINITY, f64::INFINITY)] {
        if let Ok(w) = f.window(t0, t1) {
            for d in w.drawables.iter().take(64) {
                let _ = f.popup_text(d);
            }
        }
        let _ = f.window_rows(t0, t1);
        for depth in [0, 1, 2, i16::MAX] {
            let _ = f.preview(t0, t1, depth);
        }
        let _ = f.preview_rows(t0, t1, i32::MIN);
        let _ = f.preview_rows(t0, t1, 40_000);
    }
    // The whole-file scan: every stored drawable once, so on a file whose
    // drawables a window over everything can find (no NaN times) it returns
    // as many rows as that window.
    if let (Ok(s), Ok(w)) = (
        f.scan_rows(),
        f.window_rows(f64::NEG_INFINITY, f64::INFINITY),
    ) {
        let finite = |r: &slog2::read::Rows| r.start.iter().chain(&r.end).all(|t| !t.is_nan());
        let dir_finite = f
            .directory()
            .iter()
            .all(|e| !e.time_box.start.is_nan() && !e.time_box.end.is_nan());
        if finite(&s) && dir_finite && valid {
            assert_eq!(s.len(), w.len(), "scan rows vs window over everything");
        }
    }
    let _ = slog2::read::print::print(&f, &mut std::io::sink());
    let _ = f.tree_directory();
    common::analyses(&f);
});
