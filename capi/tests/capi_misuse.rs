//! C-ABI misuse through the exported functions (the Rust side of the
//! misuse suite; the C side, under ASan+UBSan and valgrind, is
//! capi-tests/test_misuse.c): NULL, closed and made-up handles, short arrays with
//! canaries, 8 threads on one handle, 10,000 handles.

mod common;

use std::ffi::{c_char, c_int, CString};
use std::path::{Path, PathBuf};

use slog2_capi::slog2::*;

fn fixture() -> PathBuf {
    common::fixture("trace-sample/data.slog2")
}

fn open_r(p: &Path) -> SLOG2_File {
    let c = CString::new(p.to_str().unwrap()).unwrap();
    let mut fp: SLOG2_File = std::ptr::null_mut();
    // SAFETY: valid string and out-pointer.
    assert_eq!(
        unsafe { SLOG2_Open(c.as_ptr(), b'r' as c_char, &mut fp) },
        SLOG2_OK
    );
    fp
}

fn window_size(fp: SLOG2_File) -> (c_int, c_int, c_int) {
    let (mut nr, mut ni) = (0, 0);
    // SAFETY: valid out-pointers.
    let rc = unsafe { SLOG2_Query_window_size(fp, 0.0, 1.0, -1, &mut nr, &mut ni) };
    (rc, nr, ni)
}

#[test]
fn null_closed_and_made_up_handles_are_codes() {
    // SAFETY: every pointer is NULL or valid; handles are checked.
    unsafe {
        assert_eq!(
            SLOG2_Open(std::ptr::null(), b'r' as c_char, std::ptr::null_mut()),
            SLOG2_ERR_NULL_ARG
        );
        let mut fp: SLOG2_File = std::ptr::null_mut();
        assert_eq!(
            SLOG2_Open(std::ptr::null(), b'r' as c_char, &mut fp),
            SLOG2_ERR_NULL_ARG
        );
        assert!(fp.is_null());
        assert_eq!(window_size(std::ptr::null_mut()).0, SLOG2_ERR_BAD_HANDLE);
        assert_eq!(
            window_size(0xdead_beef_usize as SLOG2_File).0,
            SLOG2_ERR_BAD_HANDLE
        );
        let mut fp = open_r(&fixture());
        let kept = fp;
        assert_eq!(
            SLOG2_Query_window_size(fp, 0.0, 1.0, -1, std::ptr::null_mut(), std::ptr::null_mut()),
            SLOG2_ERR_NULL_ARG
        );
        assert_eq!(SLOG2_Close(&mut fp), SLOG2_OK);
        assert!(fp.is_null());
        let mut again = kept;
        assert_eq!(SLOG2_Close(&mut again), SLOG2_ERR_BAD_HANDLE);
        assert_eq!(window_size(kept).0, SLOG2_ERR_BAD_HANDLE);
        assert_eq!(SLOG2_Close(std::ptr::null_mut()), SLOG2_ERR_NULL_ARG);
        // Wrong call order: writing calls on a reader.
        let fp = open_r(&fixture());
        assert_eq!(SLOG2_Write_header_ex(fp, 2, 4096), SLOG2_ERR_WRONG_MODE);
        let mut fp = fp;
        assert_eq!(SLOG2_Close(&mut fp), SLOG2_OK);
    }
}

#[test]
fn short_arrays_leave_canaries_alone() {
    let mut fp = open_r(&fixture());
    let canary = SLOG2_Treedir_node {
        depth: 0x5a5a,
        xpos: 0x5a5a,
        ..Default::default()
    };
    let mut nodes = [canary; 4];
    let mut n = 0;
    // SAFETY: `nodes` holds 4 entries; we claim 0 to make it too small.
    let rc = unsafe { SLOG2_Read_dir(fp, nodes.as_mut_ptr(), 0, &mut n) };
    assert_eq!(rc, SLOG2_ERR_ARRAY_TOO_SMALL);
    assert!(n >= 1);
    assert!(nodes.iter().all(|x| x.depth == 0x5a5a && x.xpos == 0x5a5a));
    // SAFETY: a handle.
    assert_eq!(unsafe { SLOG2_Close(&mut fp) }, SLOG2_OK);
}

#[test]
fn eight_threads_on_one_handle_agree() {
    let fp = open_r(&fixture()) as usize;
    let one = window_size(fp as SLOG2_File);
    assert_eq!(one.0, SLOG2_OK);
    let hs: Vec<_> = (0..8)
        .map(|_| {
            std::thread::spawn(move || {
                (0..500)
                    .map(|_| window_size(fp as SLOG2_File))
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    for h in hs {
        assert!(h.join().unwrap().iter().all(|r| *r == one));
    }
    let mut fp = fp as SLOG2_File;
    // SAFETY: a handle.
    assert_eq!(unsafe { SLOG2_Close(&mut fp) }, SLOG2_OK);
}

#[test]
fn ten_thousand_handles() {
    let f = fixture();
    let mut hs: Vec<SLOG2_File> = (0..10_000).map(|_| open_r(&f)).collect();
    let mut sorted: Vec<usize> = hs.iter().map(|&h| h as usize).collect();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), 10_000);
    assert_eq!(window_size(hs[9_999]).0, SLOG2_OK);
    for h in &mut hs {
        // SAFETY: handles from SLOG2_Open.
        assert_eq!(unsafe { SLOG2_Close(h) }, SLOG2_OK);
    }
}
