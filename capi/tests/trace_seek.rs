//! Going back in a trace (issue #9: `TRACE_Set_position` must not re-read
//! the source from the start). Sources hand out checkpoints as they read
//! ([`TraceSource::checkpoint`]); restoring one must give exactly the
//! records a fresh read gives from there, reading from the checkpoint's
//! place only. Checked on the text source (byte offset), the SLOG-2 source
//! (the nodes being merged) and through the C ABI on a file whose start is
//! overwritten after reading it.

use std::ffi::{c_char, c_int, CString};
use std::path::Path;

use slog2::trace::slog2::Slog2Source;
use slog2::trace::text::TextSource;
use slog2::trace::{Checkpoint, Record, TraceSource};
use slog2::write::WriterOptions;
use slog2_capi::trace::*;

/// A text trace: two categories with info labels, primitives with distinct
/// times and info, composites, a skipped line, a category defined halfway,
/// a y-map at the end.
fn text_trace(n: usize) -> String {
    let mut t = String::from(
        "Category[ index=1 name=S topo=State color=(255,0,0,255,true) width=1 < a=%d > ]\n\
         Category[ index=2 name=C topo=State color=(0,255,0,255,true) width=1 < b=%d > ]\n",
    );
    for i in 0..n {
        let (s, e) = (i as f64 * 0.001, i as f64 * 0.001 + 0.0005);
        if i == n / 2 {
            t.push_str(
                "Category[ index=3 name=L topo=Event color=(0,0,255,255,true) width=1 < c=%d > ]\n",
            );
            t.push_str("Primitve[ mistyped ]\n");
        }
        if i % 97 == 5 {
            t.push_str(&format!(
                "Composite[ TimeBBox({s},{e}) Category=2 NumPrimes=2 < b={i} > ]\n\
                 Primitive[ TimeBBox({s},{e}) Category=1 ({s}, 0) ({e}, 0) < a=1 > ]\n\
                 Primitive[ TimeBBox({s},{e}) Category=1 ({s}, 1) ({e}, 1) < a=2 > ]\n"
            ));
        } else if i > n / 2 && i % 13 == 0 {
            t.push_str(&format!(
                "Primitive[ TimeBBox({e},{e}) Category=3 ({e}, {}) < c={i} > ]\n",
                i % 4
            ));
        } else {
            t.push_str(&format!(
                "Primitive[ TimeBBox({s},{e}) Category=1 ({s}, {}) ({e}, {}) < a={i} > ]\n",
                i % 4,
                i % 4
            ));
        }
    }
    t.push_str(
        "YCoordMap[ Nrows=2 Ncolumns=2 Nmethods=0 title=T colnames=< a > ( 0 1 ) ( 1 2 ) ]\n",
    );
    t
}

/// Every record with a checkpoint taken just before it.
fn read_with_checkpoints(s: &mut dyn TraceSource) -> (Vec<Record>, Vec<Checkpoint>) {
    let (mut recs, mut cps) = (Vec::new(), Vec::new());
    loop {
        let cp = s.checkpoint().expect("a seekable source gives checkpoints");
        match s.next_record().unwrap() {
            Some(r) => {
                recs.push(r);
                cps.push(cp);
            }
            None => break,
        }
    }
    (recs, cps)
}

fn rest(s: &mut dyn TraceSource) -> Vec<Record> {
    let mut v = Vec::new();
    while let Some(r) = s.next_record().unwrap() {
        v.push(r);
    }
    v
}

#[test]
fn text_source_goes_back_to_a_checkpoint_without_reading_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.txt");
    let text = text_trace(20_000);
    std::fs::write(&path, &text).unwrap();
    let len = text.len() as u64;
    let mut s = TextSource::open(&path).unwrap();
    let (all, cps) = read_with_checkpoints(&mut s);
    assert!(all.len() > 20_000);
    assert_eq!(s.bytes_fetched(), len);
    // Backwards through the file, then a jump forward, then the start.
    let mut picks: Vec<usize> = (0..all.len()).rev().step_by(1777).collect();
    picks.extend([all.len() / 3, all.len() - 1, 0, all.len() / 2 + 1]);
    for k in picks {
        let before = s.bytes_fetched();
        s.restore(&cps[k]).unwrap();
        assert_eq!(rest(&mut s), all[k..], "records after checkpoint {k}");
        // Read again: the bytes from the record's line to the end, never
        // the whole file for a late checkpoint.
        let again = s.bytes_fetched() - before;
        assert!(again <= len, "checkpoint {k}: read {again} bytes of {len}");
        if k > all.len() / 2 {
            assert!(
                again < len * 6 / 10,
                "checkpoint {k}: read {again} bytes of {len}: from the start?"
            );
        }
        assert!(s.skipped().is_some());
    }
    // Restoring after the end and after an error works too.
    s.restore(&cps[3]).unwrap();
    assert_eq!(s.next_record().unwrap().as_ref(), Some(&all[3]));
}

#[test]
fn text_checkpoint_forgets_categories_defined_after_it() {
    // Info on category 3 before its definition is an error in a fresh read;
    // after going back before the definition it must be again.
    let text = text_trace(400);
    let mut s = TextSource::from_str("t.txt", &text);
    let (all, cps) = read_with_checkpoints(&mut s);
    let def = all
        .iter()
        .position(|r| matches!(r, Record::Category(c) if c.index == 3))
        .unwrap();
    s.restore(&cps[def]).unwrap();
    assert_eq!(rest(&mut s), all[def..]);
    let bad = text.replacen(
        "Category[ index=3 name=L topo=Event color=(0,0,255,255,true) width=1 < c=%d > ]\n",
        "",
        1,
    ) + "Primitive[ TimeBBox(99,99) Category=3 (99, 0) < c=1 > ]\n";
    let mut s = TextSource::from_str("t.txt", &bad);
    let mut cps = Vec::new();
    let e = loop {
        cps.push(s.checkpoint().unwrap());
        match s.next_record() {
            Ok(Some(_)) => {}
            Ok(None) => panic!("the undefined category must fail"),
            Err(e) => break e.to_string(),
        }
    };
    s.restore(&cps[cps.len() - 1]).unwrap();
    assert_eq!(s.next_record().unwrap_err().to_string(), e);
}

#[test]
fn a_pipe_gives_no_checkpoint() {
    let text = text_trace(10);
    let mut s = TextSource::from_read("pipe", std::io::Cursor::new(text.into_bytes()));
    assert!(s.checkpoint().is_none());
}

/// A multi-level SLOG-2 file with overlapping long states (several nodes
/// are merged at once).
fn slog2_file(path: &Path) {
    let text = text_trace(30_000);
    let mut src = TextSource::from_str("t.txt", &text);
    let opts = WriterOptions {
        leaf_bytesize: 4096,
        ..Default::default()
    };
    let opts = slog2::convert::ConvertOptions {
        writer: opts,
        ..Default::default()
    };
    slog2::convert::convert(&mut src, path, &opts, &mut |_| {}, &mut |_| {}).unwrap();
}

#[test]
fn slog2_source_goes_back_decoding_only_the_nodes_being_merged() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.slog2");
    slog2_file(&path);
    let mut s = Slog2Source::open(&path).unwrap();
    let (all, cps) = read_with_checkpoints(&mut s);
    let whole = s.node_bytes_decoded();
    assert_eq!(rest(&mut Slog2Source::open(&path).unwrap()), all);
    assert!(slog2::Slog2File::open(&path).unwrap().directory().len() > 20);
    let mut picks: Vec<usize> = (0..all.len()).rev().step_by(1313).collect();
    picks.extend([0, 1, all.len() - 1, all.len() / 2]);
    for k in picks {
        let before = s.node_bytes_decoded();
        s.restore(&cps[k]).unwrap();
        assert_eq!(rest(&mut s), all[k..], "records after checkpoint {k}");
        let again = s.node_bytes_decoded() - before;
        // Another kind of source refuses the checkpoint.
        assert!(TextSource::from_str("u.txt", "").restore(&cps[k]).is_err());
        if k > all.len() * 3 / 4 {
            assert!(
                again < whole / 2,
                "checkpoint {k}: decoded {again} of {whole} node bytes"
            );
        }
    }
}

fn prim(fp: TRACE_file) -> Option<(f64, f64, c_int, Vec<u8>)> {
    let mut kind = TRACE_Rec_Kind_t::TRACE_EOF;
    // SAFETY: valid handle and out-pointers; arrays sized from the peek.
    unsafe {
        assert_eq!(TRACE_Peek_next_kind(fp, &mut kind), 0);
        if kind == TRACE_Rec_Kind_t::TRACE_EOF {
            return None;
        }
        assert_eq!(kind, TRACE_Rec_Kind_t::TRACE_PRIMITIVE_DRAWABLE);
        let (mut s, mut e, mut nt, mut ny, mut nb) = (0.0, 0.0, 0, 0, 0);
        assert_eq!(
            TRACE_Peek_next_primitive(fp, &mut s, &mut e, &mut nt, &mut ny, &mut nb),
            0
        );
        let mut ts = vec![0.0; nt as usize];
        let mut ys = vec![0; ny as usize];
        let mut bs = vec![0 as c_char; nb as usize];
        let (mut cat, mut tp, mut yp, mut bp) = (0, 0, 0, 0);
        assert_eq!(
            TRACE_Get_next_primitive(
                fp,
                &mut cat,
                &mut nt,
                ts.as_mut_ptr(),
                &mut tp,
                nt,
                &mut ny,
                ys.as_mut_ptr(),
                &mut yp,
                ny,
                &mut nb,
                bs.as_mut_ptr(),
                &mut bp,
                nb
            ),
            0
        );
        Some((s, e, cat, bs.iter().map(|&b| b as u8).collect()))
    }
}

#[test]
fn trace_set_position_goes_back_without_reading_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.txt");
    let mut text = String::from(
        "Category[ index=1 name=S topo=State color=(255,0,0,255,true) width=1 < a=%d > ]\n",
    );
    for i in 0..5000 {
        let (s, e) = (i as f64, i as f64 + 0.5);
        text.push_str(&format!(
            "Primitive[ TimeBBox({s},{e}) Category=1 ({s}, 0) ({e}, 0) < a={i} > ]\n"
        ));
    }
    std::fs::write(&path, &text).unwrap();
    let c = CString::new(path.to_str().unwrap()).unwrap();
    let mut fp: TRACE_file = std::ptr::null_mut();
    // SAFETY: valid string and out-pointers; the handle is checked by the library.
    unsafe {
        assert_eq!(TRACE_Open(c.as_ptr(), &mut fp), 0);
        assert_eq!(TRACE_Set_position(fp, 1), 0); // past the category
        let mut seen = Vec::new();
        loop {
            let mut pos = 0;
            assert_eq!(TRACE_Get_position(fp, &mut pos), 0);
            match prim(fp) {
                Some(p) => seen.push((pos, p)),
                None => break,
            }
        }
        assert_eq!(seen.len(), 5000);
        // Near the start (the checkpoint is the start itself).
        assert_eq!(TRACE_Set_position(fp, seen[17].0), 0);
        assert_eq!(prim(fp).as_ref(), Some(&seen[17].1));
        // Damage the start of the file in place (same length): a reader
        // that went back to the start would now miss the category and fail
        // on the first primitive's info.
        let mut bytes = text.clone().into_bytes();
        bytes[..8].copy_from_slice(b"Xategory");
        std::fs::write(&path, &bytes).unwrap();
        // Positions from 256 on have a checkpoint after the damaged bytes.
        for &k in &[4321usize, 2999, 4999, 256, 255, 300, 4000] {
            let pos = seen[k].0;
            assert_eq!(TRACE_Set_position(fp, pos), 0, "position {pos}");
            for (_, w) in &seen[k..(k + 300).min(seen.len())] {
                assert_eq!(prim(fp).as_ref(), Some(w));
            }
        }
        // Sanity: the damage is real — a fresh reader fails at the info.
        let mut fresh: TRACE_file = std::ptr::null_mut();
        assert_eq!(TRACE_Open(c.as_ptr(), &mut fresh), 0);
        let mut kind = TRACE_Rec_Kind_t::TRACE_EOF;
        assert_ne!(TRACE_Peek_next_kind(fresh, &mut kind), 0);
        assert_eq!(TRACE_Close(&mut fresh), 0);
        assert_eq!(TRACE_Close(&mut fp), 0);
    }
}

#[test]
fn trace_set_position_on_an_slog2_file_equals_a_fresh_read() {
    let dir = tempfile::tempdir().unwrap();
    let txt = dir.path().join("s.txt");
    let mut text = String::from(
        "Category[ index=1 name=S topo=State color=(255,0,0,255,true) width=1 < a=%d > ]\n",
    );
    for i in 0..6000 {
        // Long states on line 0 overlap many short ones: several nodes merge at once.
        let (s, e) = if i % 50 == 0 {
            (i as f64, i as f64 + 40.0)
        } else {
            (i as f64 + 40.0, i as f64 + 40.5)
        };
        text.push_str(&format!(
            "Primitive[ TimeBBox({s},{e}) Category=1 ({s}, {}) ({e}, {}) < a={i} > ]\n",
            i % 7,
            i % 7
        ));
    }
    std::fs::write(&txt, &text).unwrap();
    let path = dir.path().join("s.slog2");
    let opts = slog2::convert::ConvertOptions {
        writer: WriterOptions {
            leaf_bytesize: 2048,
            ..Default::default()
        },
        check_order: slog2::convert::CheckOrder::Warn,
        ..Default::default()
    };
    let mut src = TextSource::open(&txt).unwrap();
    slog2::convert::convert(&mut src, &path, &opts, &mut |_| {}, &mut |_| {}).unwrap();
    let c = CString::new(path.to_str().unwrap()).unwrap();
    let mut fp: TRACE_file = std::ptr::null_mut();
    // SAFETY: valid string and out-pointers; the handle is checked by the library.
    unsafe {
        assert_eq!(TRACE_Open(c.as_ptr(), &mut fp), 0);
        assert_eq!(TRACE_Set_position(fp, 1), 0); // past the category
        let mut seen = Vec::new();
        loop {
            let mut pos = 0;
            assert_eq!(TRACE_Get_position(fp, &mut pos), 0);
            match prim(fp) {
                Some(p) => seen.push((pos, p)),
                None => break,
            }
        }
        assert_eq!(seen.len(), 6000);
        for &k in &[5999usize, 3000, 17, 4500, 256, 0, 5000] {
            assert_eq!(TRACE_Set_position(fp, seen[k].0), 0);
            for (_, w) in &seen[k..(k + 400).min(seen.len())] {
                assert_eq!(prim(fp).as_ref(), Some(w), "after position {}", seen[k].0);
            }
        }
        assert_eq!(TRACE_Close(&mut fp), 0);
    }
}
