//! Damaged input never panics: for every fixture, hundreds of truncated and
//! byte-edited copies (deterministic xorshift) go through open, check,
//! window, preview, drawables and popup text; each must return Ok or Err.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::Instant;

use slog2::read::Slog2File;

fn all_slog2() -> Vec<PathBuf> {
    let root = common::fixtures();
    let mut v = Vec::new();
    for sub in ["slog2", "trace-sample", "clog2"] {
        for e in std::fs::read_dir(root.join(sub)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "slog2") {
                v.push(p);
            }
        }
    }
    v.sort();
    assert!(v.len() >= 20);
    v
}

struct XorShift(u64);
impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Values that stress counts, lengths and pointers.
const NASTY: [u32; 8] = [
    0,
    1,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    0x0000_7fff,
    0x0000_8000,
    0x7ff8_0000,
];

fn mutate(orig: &[u8], rng: &mut XorShift, meta_start: usize) -> Vec<u8> {
    let mut b = orig.to_vec();
    let len = b.len();
    match rng.below(8) {
        // Truncate anywhere.
        0 => b.truncate(rng.below(len)),
        // Truncate inside the metadata at the end.
        1 => b.truncate(meta_start + rng.below(len - meta_start)),
        // Flip 1-4 random bits/bytes anywhere.
        2 => {
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(len);
                b[i] ^= 1 + rng.below(255) as u8;
            }
        }
        // Flip a byte of the header (pointers, depth, sizes).
        3 => {
            let i = rng.below(108);
            b[i] ^= 1 << rng.below(8);
        }
        // Flip bytes in the metadata blocks (categories, maps, directory).
        4 => {
            for _ in 0..1 + rng.below(3) {
                let i = meta_start + rng.below(len - meta_start);
                b[i] ^= 1 + rng.below(255) as u8;
            }
        }
        // A nasty 32-bit value at a random offset (counts, lengths, sizes).
        5 | 6 => {
            let v = NASTY[rng.below(NASTY.len())].to_be_bytes();
            let i = rng.below(len.saturating_sub(4));
            b[i..i + 4].copy_from_slice(&v);
        }
        // Append garbage.
        _ => {
            for _ in 0..rng.below(64) {
                b.push(rng.next() as u8);
            }
        }
    }
    b
}

/// Everything a viewer would do with the file; errors are fine, panics are
/// not. `light` skips the whole-file queries (debug builds are slow on the
/// 1 MB fixture); `check` still decodes every node.
fn exercise(bytes: Vec<u8>, rng: &mut XorShift, light: bool) -> bool {
    let Ok(f) = Slog2File::from_bytes(bytes) else {
        return false;
    };
    let _ = f.check();
    let tb = f.total_time();
    let span = if tb.duration().is_finite() {
        tb.duration()
    } else {
        1.0
    };
    let a = tb.start + span * rng.unit();
    let b = a + span * rng.unit() * 0.5;
    if let Ok(w) = f.window(a, b) {
        for d in w.drawables.iter().take(50) {
            let _ = f.popup_text(d);
        }
    }
    same_preview_rows(&f, a, b, 1);
    same_preview_rows(&f, tb.start, tb.end, f.root_depth());
    if !light {
        let _ = f.window(tb.start, tb.end);
        let _ = f.window_each(f64::NEG_INFINITY, f64::INFINITY, |_| {});
        for depth in [0, 1, 2, i16::MAX] {
            same_preview_rows(&f, tb.start, tb.end, depth);
        }
    }
    for d in f.drawables().take(if light { 300 } else { 2000 }).flatten() {
        let _ = f.popup_text(&d);
        for m in d.primitives() {
            let _ = f.primitive_popup_text(m);
        }
    }
    for e in f.directory().iter().take(50) {
        let _ = f.read_node(e, slog2::format::NodeParts::All);
        let _ = f.children(e.id).count();
    }
    true
}

/// Mutates every fixture selected by `pick` and exercises each copy.
fn damage(pick: impl Fn(&Path, usize) -> bool) -> usize {
    let mut total = 0;
    for p in all_slog2() {
        let orig = std::fs::read(&p).unwrap();
        if !pick(&p, orig.len()) {
            continue;
        }
        let t = Instant::now();
        let probe = Slog2File::from_bytes(orig.clone()).unwrap();
        let h = probe.header();
        // Metadata (categories, maps, directory) sits after the nodes.
        let meta_start = [h.categories.offset, h.lineidmaps.offset, h.treedir.offset]
            .into_iter()
            .min()
            .unwrap() as usize;
        // Big files cost more per copy in a debug build.
        let light = orig.len() > 16_000;
        let rounds = if orig.len() > 200_000 { 30 } else { 250 };
        let mut rng =
            XorShift(0x2545_f491_4f6c_dd1d ^ (orig.len() as u64) << 7 ^ p.as_os_str().len() as u64);
        let mut opened = 0;
        for round in 0..rounds {
            let m = mutate(&orig, &mut rng, meta_start);
            let mut r2 = XorShift(rng.next() | 1);
            match catch_unwind(AssertUnwindSafe(|| exercise(m, &mut r2, light))) {
                Ok(ok) => opened += ok as usize,
                Err(_) => panic!("{}: damaged copy #{round} panicked", p.display()),
            }
            total += 1;
        }
        eprintln!(
            "  {}: {rounds} damaged copies, {opened} still opened, {:.2} s",
            p.file_name().unwrap().to_string_lossy(),
            t.elapsed().as_secs_f64()
        );
    }
    total
}

// Three groups so that the test harness runs them on parallel threads.

#[test]
fn damaged_copies_never_panic_big() {
    assert!(damage(|_, len| len > 200_000) >= 30);
}

#[test]
fn damaged_copies_never_panic_clog2() {
    assert!(damage(|p, len| len <= 200_000 && p.to_string_lossy().contains("clog2")) >= 1000);
}

#[test]
fn damaged_copies_never_panic_others() {
    assert!(damage(|p, _| !p.to_string_lossy().contains("clog2")) >= 4000);
}

#[test]
fn every_truncation_of_a_small_file() {
    let p = common::fixture("trace-sample/data.slog2");
    let orig = std::fs::read(p).unwrap();
    let mut rng = XorShift(7);
    for n in 0..orig.len() {
        let m = orig[..n].to_vec();
        let r = catch_unwind(AssertUnwindSafe(|| exercise(m, &mut rng, false)));
        assert!(r.is_ok(), "truncation to {n} bytes panicked");
    }
    // Every single-byte corruption of the header and directory.
    for i in (0..108).chain(1772..orig.len()) {
        for x in [0x01u8, 0x80, 0xff] {
            let mut m = orig.clone();
            m[i] ^= x;
            let r = catch_unwind(AssertUnwindSafe(|| exercise(m, &mut rng, false)));
            assert!(r.is_ok(), "byte {i} ^ {x:#x} panicked");
        }
    }
}

/// A preview of a damaged file: the columns read in place
/// (`preview_rows`) fail exactly when the decoded preview does, and
/// otherwise hold the same rows.
fn same_preview_rows(f: &Slog2File, t0: f64, t1: f64, depth: i16) {
    let p = f.preview(t0, t1, depth);
    let r = f.preview_rows(t0, t1, depth as i32);
    match (p, r) {
        (Ok(p), Ok(mut r)) => {
            let want = slog2::read::Rows::from(p);
            r.stats = want.stats;
            // Compared as text: a damaged file's times may be NaN.
            assert_eq!(
                format!("{r:?}"),
                format!("{want:?}"),
                "preview_rows [{t0}, {t1}] depth {depth}"
            );
        }
        (Err(_), Err(_)) => {}
        (p, r) => panic!(
            "preview [{t0}, {t1}] depth {depth}: preview ok {} but preview_rows ok {}",
            p.is_ok(),
            r.is_ok()
        ),
    }
}
