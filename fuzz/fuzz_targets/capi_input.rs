//! The SLOG2 C input API on arbitrary files, in a call sequence chosen by
//! the first bytes: header, directory, categories, drawables (with the
//! draft popup-text call on every payload handed out), y-maps, queries.
#![no_main]

use std::ffi::{c_char, c_int, CString};

use libfuzzer_sys::fuzz_target;
use slog2_capi::slog2::*;

fuzz_target!(|data: &[u8]| {
    let (ops, file) = data.split_at(data.len().min(8));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.slog2");
    std::fs::write(&path, file).unwrap();
    let cpath = CString::new(path.to_str().unwrap()).unwrap();
    let mut fp: SLOG2_File = std::ptr::null_mut();
    // SAFETY: valid string and out-pointer; every array below is as large as
    // the size passed with it.
    unsafe {
        if SLOG2_Open(cpath.as_ptr(), b'r' as c_char, &mut fp) != SLOG2_OK {
            return;
        }
        let (mut t0, mut t1) = (0.0f64, 0.0f64);
        SLOG2_Get_total_time(fp, &mut t0, &mut t1);
        for &op in ops {
            match op % 5 {
                0 => {
                    let mut n: c_int = 0;
                    let mut nodes = vec![SLOG2_Treedir_node::default(); 64];
                    SLOG2_Read_dir(fp, nodes.as_mut_ptr(), 64, &mut n);
                }
                1 => {
                    for _ in 0..64 {
                        let mut head = SLOG2_Category_head_t::default();
                        let mut text = [0 as c_char; 256];
                        let mut legend = [0 as c_char; 256];
                        let (mut tp, mut lp) = (0, 0);
                        if SLOG2_Get_next_category(
                            fp, &mut head, text.as_mut_ptr(), &mut tp, 256, legend.as_mut_ptr(), &mut lp, 256,
                        ) != SLOG2_OK
                        {
                            break;
                        }
                    }
                }
                2 => {
                    for _ in 0..256 {
                        let (mut s, mut e, mut cat, mut nc) = (0.0, 0.0, 0, 0);
                        let mut coords = vec![0.0f64; 512];
                        let mut text = vec![0 as c_char; 4096];
                        let (mut cpos, mut tpos) = (0, 0);
                        let rc = SLOG2_Get_next_drawable(
                            fp, &mut s, &mut e, &mut cat, &mut nc, coords.as_mut_ptr(), &mut cpos, 512,
                            text.as_mut_ptr(), &mut tpos, 4096,
                        );
                        if rc != SLOG2_OK {
                            break;
                        }
                        if tpos > 0 {
                            // The draft call walks the payload by its format.
                            let mut out = [0 as c_char; 256];
                            SLOG2_Get_drawable_text(fp, cat, text.as_ptr(), out.as_mut_ptr(), 256);
                        }
                    }
                }
                3 => {
                    let (mut nr, mut ni) = (0, 0);
                    SLOG2_Query_window_size(fp, t0, t1, -1, &mut nr, &mut ni);
                    SLOG2_Query_window_size(fp, t0, t1, (op >> 3) as c_int, &mut nr, &mut ni);
                }
                _ => {
                    let mut n = 0;
                    SLOG2_Get_ycoordmap_count(fp, &mut n);
                }
            }
        }
        SLOG2_Close(&mut fp);
    }
});
