//! The C TRACE-API on arbitrary files (text, SLOG-2 or CLOG2, told apart by
//! content as `TRACE_Open` does), in a call sequence chosen by the first
//! bytes: peek/get of every record kind with arrays sized from the peeks
//! (sometimes one short, which must be `TRACE_ERR_ARRAY_TOO_SMALL`, never a
//! write), positions saved and restored, unsupported calls.
#![no_main]

use std::ffi::{c_char, c_int, CString};

use libfuzzer_sys::fuzz_target;
use slog2_capi::trace::*;

/// The next primitive (also a composite's member).
///
/// # Safety
/// As [`step`].
unsafe fn primitive(fp: TRACE_file, short: bool) -> bool {
    let cut = |n: c_int| if short { (n - 1).max(0) } else { n };
    // SAFETY: pointers to live locals and Vecs as large as the sizes passed.
    unsafe {
        let (mut s, mut e, mut nt, mut ny, mut nb) = (0.0, 0.0, 0, 0, 0);
        if TRACE_Peek_next_primitive(fp, &mut s, &mut e, &mut nt, &mut ny, &mut nb) != 0 {
            return false;
        }
        let mut t = vec![0.0f64; nt as usize + 1];
        let mut y = vec![0 as c_int; ny as usize + 1];
        let mut b = vec![0 as c_char; nb as usize + 1];
        let (mut cat, mut tp, mut yp, mut bp) = (0, 0, 0, 0);
        let rc = TRACE_Get_next_primitive(
            fp, &mut cat, &mut nt, t.as_mut_ptr(), &mut tp, cut(nt), &mut ny, y.as_mut_ptr(),
            &mut yp, ny, &mut nb, b.as_mut_ptr(), &mut bp, nb,
        );
        rc == 0 || (short && rc == TRACE_ERR_ARRAY_TOO_SMALL)
    }
}

/// One record of whatever kind comes next; `short` makes one array a slot
/// too small. Returns false when the stream ended or failed.
///
/// # Safety
/// `fp` is a handle from `TRACE_Open` (or a closed one).
unsafe fn step(fp: TRACE_file, short: bool) -> bool {
    let mut kind = TRACE_Rec_Kind_t::TRACE_EOF;
    // SAFETY (whole body): every pointer is to a live local or a Vec as
    // large as the size passed with it.
    unsafe {
        if TRACE_Peek_next_kind(fp, &mut kind) != 0 {
            return false;
        }
        let cut = |n: c_int| if short { (n - 1).max(0) } else { n };
        match kind {
            TRACE_Rec_Kind_t::TRACE_CATEGORY => {
                let (mut nl, mut nb, mut nm) = (0, 0, 0);
                if TRACE_Peek_next_category(fp, &mut nl, &mut nb, &mut nm) != 0 {
                    return false;
                }
                let mut head = TRACE_Category_head_t::default();
                let mut legend = vec![0 as c_char; nl as usize + 1];
                let mut label = vec![0 as c_char; nb as usize + 1];
                let mut ids = vec![0 as c_int; nm as usize + 1];
                let (mut lp, mut bp, mut ip) = (0, 0, 0);
                let rc = TRACE_Get_next_category(
                    fp, &mut head, &mut nl, legend.as_mut_ptr(), &mut lp, cut(nl), &mut nb,
                    label.as_mut_ptr(), &mut bp, nb, &mut nm, ids.as_mut_ptr(), &mut ip, nm,
                );
                rc == 0 || (short && rc == TRACE_ERR_ARRAY_TOO_SMALL && nl > 0)
            }
            TRACE_Rec_Kind_t::TRACE_YCOORDMAP => {
                let (mut nr, mut nc, mut mc, mut mt, mut nm) = (0, 0, 0, 0, 0);
                if TRACE_Peek_next_ycoordmap(fp, &mut nr, &mut nc, &mut mc, &mut mt, &mut nm) != 0 {
                    return false;
                }
                let mut title = vec![0 as c_char; mt as usize + 1];
                let mut bufs: Vec<Vec<c_char>> =
                    (0..nc.max(1)).map(|_| vec![0 as c_char; mc as usize + 1]).collect();
                let mut names: Vec<*mut c_char> = bufs.iter_mut().map(|b| b.as_mut_ptr()).collect();
                let cells = (nr as usize) * (nc as usize);
                let mut map = vec![0 as c_int; cells + 1];
                let mut ids = vec![0 as c_int; nm as usize + 1];
                let (mut sz, mut mp, mut n_m, mut ip) = (0, 0, 0, 0);
                let rc = TRACE_Get_next_ycoordmap(
                    fp, title.as_mut_ptr(), names.as_mut_ptr(), &mut sz, map.as_mut_ptr(), &mut mp,
                    cut(cells as c_int), &mut n_m, ids.as_mut_ptr(), &mut ip, nm,
                );
                rc == 0 || (short && rc == TRACE_ERR_ARRAY_TOO_SMALL)
            }
            TRACE_Rec_Kind_t::TRACE_PRIMITIVE_DRAWABLE => primitive(fp, short),
            TRACE_Rec_Kind_t::TRACE_COMPOSITE_DRAWABLE => {
                let (mut s, mut e, mut np, mut nb) = (0.0, 0.0, 0, 0);
                if TRACE_Peek_next_composite(fp, &mut s, &mut e, &mut np, &mut nb) != 0 {
                    return false;
                }
                let mut b = vec![0 as c_char; nb as usize + 1];
                let (mut cat, mut bp) = (0, 0);
                let rc = TRACE_Get_next_composite(fp, &mut cat, &mut nb, b.as_mut_ptr(), &mut bp, cut(nb));
                if rc != 0 {
                    return short && rc == TRACE_ERR_ARRAY_TOO_SMALL;
                }
                // The members follow as primitives (Peek_next_kind reports
                // the composite until the first member is peeked).
                (0..np).all(|_| primitive(fp, false))
            }
            _ => false,
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let (ops, file) = data.split_at(data.len().min(8));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.in");
    std::fs::write(&path, file).unwrap();
    let cpath = CString::new(path.to_str().unwrap()).unwrap();
    let mut fp: TRACE_file = std::ptr::null_mut();
    // SAFETY: valid string and out-pointers; `step` keeps its arrays sized.
    unsafe {
        if TRACE_Open(cpath.as_ptr(), &mut fp) != 0 {
            assert!(fp.is_null());
            return;
        }
        let mut saved: Vec<TRACE_int64_t> = Vec::new();
        for &op in ops {
            match op % 6 {
                0 | 1 => {
                    for _ in 0..(1 + op as usize / 6) {
                        if !step(fp, false) {
                            break;
                        }
                    }
                }
                2 => {
                    step(fp, true);
                }
                3 => {
                    let mut at: TRACE_int64_t = 0;
                    if TRACE_Get_position(fp, &mut at) == 0 {
                        saved.push(at);
                    }
                }
                4 => {
                    let to = saved.pop().unwrap_or(i64::from(op) * 7 - 100);
                    TRACE_Set_position(fp, to);
                }
                _ => {
                    let (mut a, mut b) = ([0 as c_char; 64], [0 as c_char; 64]);
                    let mut id = 0;
                    assert_eq!(
                        TRACE_Get_next_method(fp, a.as_mut_ptr(), b.as_mut_ptr(), &mut id),
                        TRACE_ERR_UNSUPPORTED
                    );
                }
            }
        }
        while step(fp, false) {}
        assert_eq!(TRACE_Close(&mut fp), 0);
        assert!(fp.is_null());
    }
});
