//! Every SLOG-2 reader path on arbitrary bytes: open, check, window,
//! preview at several depths, the reference-style print, popup text, rows.
//! Any panic, abort or sanitizer report is a bug; errors are fine.
#![no_main]

use libfuzzer_sys::fuzz_target;
use slog2::Slog2File;

fuzz_target!(|data: &[u8]| {
    let Ok(f) = Slog2File::from_bytes(data.to_vec()) else {
        return;
    };
    let _ = f.check();
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
    let _ = slog2::read::print::print(&f, &mut std::io::sink());
    let _ = f.tree_directory();
});
