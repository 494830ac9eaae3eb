//! C-ABI items of issue #16, driven through the exported functions: each
//! failed before its fix (lost file, silently wrong file, read past a
//! payload, temporary file left at exit).

use std::ffi::{c_char, c_int, CString};
use std::path::{Path, PathBuf};

use slog2::*;
use slog2_capi::slog2::*;

fn cpath(p: &Path) -> CString {
    CString::new(p.to_str().unwrap()).unwrap()
}

fn open_w(p: &Path) -> SLOG2_File {
    let mut fp: SLOG2_File = std::ptr::null_mut();
    // SAFETY: valid string and out-pointer.
    assert_eq!(
        unsafe { SLOG2_Open(cpath(p).as_ptr(), b'w' as c_char, &mut fp) },
        SLOG2_OK
    );
    fp
}

fn state_category(fp: SLOG2_File, index: c_int, label: &str) -> c_int {
    let head = SLOG2_Category_head_t {
        index,
        shape: 1,
        width: 1,
        alpha: 255,
        ..Default::default()
    };
    let name = CString::new("s").unwrap();
    let label = CString::new(label).unwrap();
    // SAFETY: valid head and strings; no methods.
    unsafe {
        SLOG2_Write_category_ex(
            fp,
            &head,
            name.as_ptr(),
            label.as_ptr(),
            0,
            std::ptr::null(),
        )
    }
}

fn state(fp: SLOG2_File, cat: c_int, t0: f64, t1: f64, info: &[u8]) -> c_int {
    let ts = [t0, t1];
    let ys = [0, 0];
    // SAFETY: arrays of the stated lengths.
    unsafe {
        SLOG2_Write_drawable_object(
            fp,
            t0,
            t1,
            cat,
            2,
            ts.as_ptr(),
            2,
            ys.as_ptr(),
            info.len() as c_int,
            info.as_ptr() as *const c_char,
        )
    }
}

fn close(mut fp: SLOG2_File) -> c_int {
    // SAFETY: a valid out-pointer to a handle.
    unsafe { SLOG2_Close(&mut fp) }
}

/// A SLOG2_Write_dir mismatch deleted the file that already existed at the
/// target (the check ran after the rename).
#[test]
fn write_dir_mismatch_keeps_the_existing_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.slog2");
    std::fs::write(&out, b"the user's file").unwrap();
    let fp = open_w(&out);
    assert_eq!(state_category(fp, 0, ""), SLOG2_OK);
    assert_eq!(state(fp, 0, 0.0, 1.0, &[]), SLOG2_OK);
    let wrong = SLOG2_Treedir_node {
        depth: 5,
        xpos: 0,
        earliest_time: 0.0,
        latest_time: 1.0,
        block_offset: 0,
        block_size: 0,
        parent: -1,
        lchild: -1,
        rchild: -1,
    };
    // SAFETY: one node.
    assert_eq!(unsafe { SLOG2_Write_dir(fp, &wrong, 1) }, SLOG2_OK);
    assert_eq!(close(fp), SLOG2_ERR_STATE);
    assert_eq!(std::fs::read(&out).unwrap(), b"the user's file");
    assert_eq!(slog2_dev::names(dir.path()), vec!["out.slog2"]);
}

/// A negative category through SLOG2_Write_drawable_object gave a file
/// that SLOG2_Open and `check` reject.
#[test]
fn negative_category_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("neg.slog2");
    let fp = open_w(&out);
    assert_eq!(state_category(fp, 0, ""), SLOG2_OK);
    assert_eq!(state(fp, 0, 0.0, 1.0, &[]), SLOG2_OK);
    assert_eq!(state(fp, -2, 1.0, 2.0, &[]), SLOG2_ERR_INVALID_DRAWABLE);
    assert_eq!(close(fp), SLOG2_OK);
    let f = Slog2File::open(&out).unwrap();
    assert!(f.check().errors.is_empty());
    assert_eq!(f.drawables().count(), 1);
}

/// An info payload shorter than its category's format was accepted and
/// then rejected by `check`.
#[test]
fn short_info_payload_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("info.slog2");
    let fp = open_w(&out);
    assert_eq!(state_category(fp, 0, "a=%d b=%d"), SLOG2_OK);
    assert_eq!(
        state(fp, 0, 0.0, 1.0, &[0, 0, 0, 1]),
        SLOG2_ERR_INVALID_DRAWABLE
    );
    assert_eq!(state(fp, 0, 0.0, 1.0, &[0, 0, 0, 1, 0, 0, 0, 2]), SLOG2_OK);
    assert_eq!(close(fp), SLOG2_OK);
    let f = Slog2File::open(&out).unwrap();
    assert!(f.check().errors.is_empty(), "{:?}", f.check().errors);
}

/// A y-map written before SLOG2_Write_header_ex disappeared: now the call
/// order is enforced (or, were it accepted, the map would have to survive).
#[test]
fn ymap_before_header_ex_is_not_lost() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("map.slog2");
    let fp = open_w(&out);
    let title = CString::new("threads").unwrap();
    let label = CString::new("thread").unwrap();
    let labels = [label.as_ptr()];
    let elems = [0, 7, 1, 8];
    // SAFETY: 2 rows x 2 columns, one label.
    let rc = unsafe {
        SLOG2_Write_ycoordmap_ex(
            fp,
            title.as_ptr(),
            2,
            2,
            labels.as_ptr(),
            elems.as_ptr(),
            0,
            std::ptr::null(),
        )
    };
    assert_eq!(rc, SLOG2_OK);
    // SAFETY: a handle.
    let rc = unsafe { SLOG2_Write_header_ex(fp, 3, 4096) };
    assert_eq!(state_category(fp, 0, ""), SLOG2_OK);
    assert_eq!(state(fp, 0, 0.0, 1.0, &[]), SLOG2_OK);
    assert_eq!(close(fp), SLOG2_OK);
    let f = Slog2File::open(&out).unwrap();
    if rc == SLOG2_OK {
        assert!(
            f.ycoordmaps().iter().any(|m| m.title == "threads"),
            "map lost"
        );
    } else {
        assert_eq!(rc, SLOG2_ERR_STATE);
        assert!(f.ycoordmaps().iter().any(|m| m.title == "threads"));
    }
}

/// A damaged file's payload shorter than its category's format was handed
/// out by SLOG2_Get_next_drawable; the draft SLOG2_Get_drawable_text then
/// read past it (valgrind). Now the payload is refused before it is handed
/// out.
#[test]
fn short_payload_is_not_handed_out() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("short.slog2");
    // The writer refuses short payloads, so damage a good file: its
    // category's `%h` (2 bytes, the payload's size) becomes `%d` (4 bytes).
    let mut w = Slog2Writer::create(&out, WriterOptions::default()).unwrap();
    let mut c = Category::new(0, "s", Topology::State, Color::rgba(1, 2, 3, 255), 1);
    c.info = InfoFormat::parse("a=%h").unwrap();
    w.add_category(c).unwrap();
    let p = Primitive::new(
        0,
        vec![Vertex::new(0.0, 0), Vertex::new(1.0, 0)],
        vec![0u8, 1],
    );
    w.add_drawable(Drawable::Primitive(p)).unwrap();
    w.finish().unwrap();
    let mut bytes = std::fs::read(&out).unwrap();
    // The category stores its tokens as a count (i16) and their letters.
    let at: Vec<usize> = (0..bytes.len() - 2)
        .filter(|&i| bytes[i..i + 3] == [0, 1, b'h'])
        .collect();
    assert_eq!(at.len(), 1, "the category's token is stored once");
    bytes[at[0] + 2] = b'd';
    std::fs::write(&out, bytes).unwrap();
    let mut fp: SLOG2_File = std::ptr::null_mut();
    // SAFETY: valid string and out-pointer.
    assert_eq!(
        unsafe { SLOG2_Open(cpath(&out).as_ptr(), b'r' as c_char, &mut fp) },
        SLOG2_OK
    );
    let (mut s, mut e, mut cat, mut nc) = (0.0, 0.0, 0, 0);
    let mut coords = [0.0f64; 16];
    let mut text = [0 as c_char; 64];
    let (mut cpos, mut tpos) = (0, 0);
    // SAFETY: out-pointers and arrays of the stated sizes.
    let rc = unsafe {
        SLOG2_Get_next_drawable(
            fp,
            &mut s,
            &mut e,
            &mut cat,
            &mut nc,
            coords.as_mut_ptr(),
            &mut cpos,
            16,
            text.as_mut_ptr(),
            &mut tpos,
            64,
        )
    };
    assert_eq!(rc, SLOG2_ERR_FORMAT);
    assert_eq!(tpos, 0);
    assert_eq!(close(fp), SLOG2_OK);
}

/// A C program that exits without SLOG2_Close left its temporary file: the
/// child (this test binary again) opens a writer and exits.
#[test]
fn exit_without_close_leaves_no_temp_file() {
    if let Ok(target) = std::env::var("SLOG2_EXIT_CHILD") {
        let fp = open_w(Path::new(&target));
        assert_eq!(state_category(fp, 0, ""), SLOG2_OK);
        assert_eq!(state(fp, 0, 0.0, 1.0, &[]), SLOG2_OK);
        std::process::exit(0);
    }
    let dir = tempfile::tempdir().unwrap();
    let out: PathBuf = dir.path().join("gone.slog2");
    let st = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "exit_without_close_leaves_no_temp_file",
            "--test-threads=1",
        ])
        .env("SLOG2_EXIT_CHILD", &out)
        .status()
        .unwrap();
    assert!(st.success());
    assert!(
        slog2_dev::names(dir.path()).is_empty(),
        "{:?}",
        slog2_dev::names(dir.path())
    );
}
