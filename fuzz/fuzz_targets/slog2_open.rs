//! The light SLOG-2 target, for volume: open, check, the tree directory, and
//! one window and one preview over a range chosen by the first input byte.
//! `slog2_read` drives every reader path on each input; this one spends far
//! less per input so a long campaign reaches many more executions (meant to
//! be run with a small `-max_len`, RELIABILITY.md).
#![no_main]

use libfuzzer_sys::fuzz_target;
use slog2::Slog2File;

fuzz_target!(|data: &[u8]| {
    let sel = data.first().copied().unwrap_or(0);
    let Ok(f) = Slog2File::from_bytes(data.to_vec()) else {
        return;
    };
    let _ = f.check();
    let _ = f.tree_directory();
    let tb = f.total_time();
    let mid = tb.start + (tb.end - tb.start) / 2.0;
    let (t0, t1) = match sel % 4 {
        0 => (tb.start, tb.end),
        1 => (tb.start, mid),
        2 => (mid, mid),
        _ => (f64::NEG_INFINITY, f64::INFINITY),
    };
    if sel & 4 == 0 {
        if let Ok(w) = f.window(t0, t1) {
            if let Some(d) = w.drawables.first() {
                let _ = f.popup_text(d);
            }
        }
    } else {
        let _ = f.preview(t0, t1, i16::from(sel >> 3));
    }
});
