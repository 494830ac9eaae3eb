//! Handle lifetimes at the boundary: a handle whose call panicked is
//! retired; closing a file ends its scans and cursors.

use std::ffi::{c_char, CStr, CString};
use std::path::Path;

use super::*;

fn cpath(p: &Path) -> CString {
    CString::new(p.to_str().unwrap()).unwrap()
}

fn last_error() -> String {
    // SAFETY: the library's NUL-terminated per-thread text.
    unsafe { CStr::from_ptr(SLOG2_Get_last_error()) }
        .to_string_lossy()
        .into_owned()
}

/// A small valid file of 100 states.
fn small_file(dir: &Path) -> std::path::PathBuf {
    let out = dir.join("small.slog2");
    let mut w = Slog2Writer::create(&out, WriterOptions::default()).unwrap();
    let c = ::slog2::model::Category::new(
        0,
        "s",
        ::slog2::model::Topology::State,
        ::slog2::model::Color::rgba(1, 2, 3, 255),
        1,
    );
    w.add_category(c).unwrap();
    for i in 0..100 {
        let t = f64::from(i);
        let v = vec![
            ::slog2::model::Vertex::new(t, 0),
            ::slog2::model::Vertex::new(t + 0.5, 0),
        ];
        w.add_drawable(::slog2::model::Drawable::Primitive(
            ::slog2::model::Primitive::new(0, v, vec![]),
        ))
        .unwrap();
    }
    w.finish().unwrap();
    out
}

fn open(p: &Path, mode: u8) -> SLOG2_File {
    let mut fp: SLOG2_File = std::ptr::null_mut();
    // SAFETY: valid string and out-pointer.
    assert_eq!(
        unsafe { SLOG2_Open(cpath(p).as_ptr(), mode as c_char, &mut fp) },
        SLOG2_OK
    );
    fp
}

fn total_time(fp: SLOG2_File) -> c_int {
    let (mut a, mut b) = (0.0, 0.0);
    // SAFETY: valid out-pointers.
    unsafe { SLOG2_Get_total_time(fp, &mut a, &mut b) }
}

#[test]
fn a_reader_whose_call_panicked_is_retired() {
    let dir = tempfile::tempdir().unwrap();
    let p = small_file(dir.path());
    let fp = open(&p, b'r');
    let other = open(&p, b'r');
    assert_eq!(total_time(fp), SLOG2_OK);
    assert_eq!(reader(fp, |_| panic!("half done")), SLOG2_ERR_PANIC);
    assert!(last_error().contains("half done"), "{}", last_error());
    // Every later call: the bad-handle code, saying why.
    assert_eq!(total_time(fp), SLOG2_ERR_BAD_HANDLE);
    assert!(last_error().contains("retired"), "{}", last_error());
    let mut scan: SLOG2_Scan = std::ptr::null_mut();
    // SAFETY: valid out-pointer.
    assert_eq!(
        unsafe { SLOG2_Scan_open(fp, &mut scan) },
        SLOG2_ERR_BAD_HANDLE
    );
    let mut gone = fp;
    // SAFETY: valid pointer to a handle.
    assert_eq!(unsafe { SLOG2_Close(&mut gone) }, SLOG2_ERR_BAD_HANDLE);
    // Other handles are untouched.
    assert_eq!(total_time(other), SLOG2_OK);
    let mut other = other;
    // SAFETY: valid pointer to a handle.
    assert_eq!(unsafe { SLOG2_Close(&mut other) }, SLOG2_OK);
}

#[test]
fn a_writer_whose_call_panicked_is_retired_and_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("w.slog2");
    let fp = open(&out, b'w');
    // SAFETY: a handle; no pointer argument.
    assert_eq!(unsafe { SLOG2_Write_start_treenode(fp) }, SLOG2_OK);
    assert_eq!(
        writer(fp, |w| {
            w.open_nodes += 5;
            panic!("half done")
        }),
        SLOG2_ERR_PANIC
    );
    // SAFETY: a handle.
    assert_eq!(
        unsafe { SLOG2_Write_end_treenode(fp) },
        SLOG2_ERR_BAD_HANDLE
    );
    let mut gone = fp;
    // SAFETY: valid pointer to a handle.
    assert_eq!(unsafe { SLOG2_Close(&mut gone) }, SLOG2_ERR_BAD_HANDLE);
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(
        left.is_empty(),
        "the retired writer's temporary file is gone: {left:?}"
    );
}

/// Rows of one scan or cursor call, into small arrays.
fn scan_next(sc: SLOG2_Scan) -> c_int {
    let mut kind = [0 as c_int; 64];
    let cols = SLOG2_Query_columns {
        kind: kind.as_mut_ptr(),
        category: std::ptr::null_mut(),
        start: std::ptr::null_mut(),
        end: std::ptr::null_mut(),
        line0: std::ptr::null_mut(),
        line1: std::ptr::null_mut(),
        num_real: std::ptr::null_mut(),
        info_offset: std::ptr::null_mut(),
        info_len: std::ptr::null_mut(),
        time0: std::ptr::null_mut(),
        time1: std::ptr::null_mut(),
        parent: std::ptr::null_mut(),
    };
    let (mut n, mut pos, mut ipos) = (0, 0, 0);
    // SAFETY: arrays of the stated sizes; no info array.
    unsafe {
        SLOG2_Scan_next(
            sc,
            &mut n,
            &cols,
            &mut pos,
            64,
            std::ptr::null_mut(),
            &mut ipos,
            0,
            std::ptr::null_mut(),
        )
    }
}

fn cursor_move(c: SLOG2_Cursor) -> c_int {
    let mut n = 0;
    // SAFETY: a handle and out-pointers.
    unsafe {
        SLOG2_Cursor_move(
            c,
            0.0,
            10.0,
            &mut n,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    }
}

#[test]
fn scans_and_cursors_whose_call_panicked_are_retired() {
    let dir = tempfile::tempdir().unwrap();
    let p = small_file(dir.path());
    let fp = open(&p, b'r');
    let (mut sc, mut cur): (SLOG2_Scan, SLOG2_Cursor) =
        (std::ptr::null_mut(), std::ptr::null_mut());
    // SAFETY: valid out-pointers.
    unsafe {
        assert_eq!(SLOG2_Scan_open(fp, &mut sc), SLOG2_OK);
        assert_eq!(SLOG2_Cursor_open(fp, &mut cur), SLOG2_OK);
    }
    assert_eq!(scan_next(sc), SLOG2_OK);
    assert_eq!(cursor_move(cur), SLOG2_OK);
    assert_eq!(scan::panic_in(sc), SLOG2_ERR_PANIC);
    assert_eq!(cursor::panic_in(cur), SLOG2_ERR_PANIC);
    assert_eq!(scan_next(sc), SLOG2_ERR_BAD_HANDLE);
    assert!(
        last_error().contains("SLOG2_Scan handle was retired"),
        "{}",
        last_error()
    );
    assert_eq!(cursor_move(cur), SLOG2_ERR_BAD_HANDLE);
    assert!(
        last_error().contains("SLOG2_Cursor handle was retired"),
        "{}",
        last_error()
    );
    // The file itself is fine.
    assert_eq!(total_time(fp), SLOG2_OK);
    let mut fp = fp;
    // SAFETY: valid pointers to handles.
    unsafe {
        assert_eq!(SLOG2_Scan_close(&mut sc), SLOG2_ERR_BAD_HANDLE);
        assert_eq!(SLOG2_Cursor_close(&mut cur), SLOG2_ERR_BAD_HANDLE);
        assert_eq!(SLOG2_Close(&mut fp), SLOG2_OK);
    }
}

#[test]
fn closing_a_file_ends_its_scans_and_cursors() {
    let dir = tempfile::tempdir().unwrap();
    let p = small_file(dir.path());
    let mut fp = open(&p, b'r');
    let (mut sc, mut cur): (SLOG2_Scan, SLOG2_Cursor) =
        (std::ptr::null_mut(), std::ptr::null_mut());
    // SAFETY: valid out-pointers and handles.
    unsafe {
        assert_eq!(SLOG2_Scan_open(fp, &mut sc), SLOG2_OK);
        assert_eq!(SLOG2_Cursor_open(fp, &mut cur), SLOG2_OK);
        assert_eq!(cursor_move(cur), SLOG2_OK);
        let mut v = std::mem::MaybeUninit::<SLOG2_Cursor_view>::zeroed().assume_init();
        assert_eq!(SLOG2_Cursor_get_view(cur, &mut v), SLOG2_OK);
        assert!(v.n_rows > 0);
        assert_eq!(SLOG2_Close(&mut fp), SLOG2_OK);
        assert_eq!(scan_next(sc), SLOG2_ERR_BAD_HANDLE);
        assert!(last_error().contains("SLOG2_File of this scan was closed"));
        assert_eq!(cursor_move(cur), SLOG2_ERR_BAD_HANDLE);
        assert!(last_error().contains("SLOG2_File of this cursor was closed"));
        assert_eq!(SLOG2_Cursor_get_view(cur, &mut v), SLOG2_ERR_BAD_HANDLE);
        // Closing them still works (and frees them), once.
        assert_eq!(SLOG2_Scan_close(&mut sc), SLOG2_OK);
        assert_eq!(SLOG2_Cursor_close(&mut cur), SLOG2_OK);
        assert!(sc.is_null() && cur.is_null());
    }
}
