//! The SLOG2 C API: write and read SLOG-2 files from C.
//!
//! Names and argument order follow the SLOG-2 design draft (Appendices C and
//! D); where a draft signature is not valid C or cannot express something, the
//! nearest valid form is used and an `_ex` variant added (see each function).
//! Viewers get bulk calls: a time-window query and a preview that fill caller
//! arrays in columns ([`::slog2::read::Rows`]), one call per screen.
//!
//! Return codes: `SLOG2_OK` (0) or one of the positive `SLOG2_ERR_*` codes;
//! `SLOG2_Get_err_string` gives static text, `SLOG2_Get_last_error` the
//! detail of the last error on the calling thread (file, record, byte offset).
//! Every function can also return `SLOG2_ERR_PANIC` (an internal error caught
//! at the boundary); each function's comment lists its other codes.
//!
//! Handles: one `SLOG2_File` type for both modes, because the draft's API
//! opens both with `SLOG2_Open(name, mode)`; a call for the other mode
//! returns `SLOG2_ERR_WRONG_MODE`. Thread safety: any function may be called
//! from any thread. Calls on one writer serialise on that writer's lock; on a
//! reader, queries (`SLOG2_Query_*`, popup text, metadata) run concurrently,
//! and only the sequential cursor (`Get_next_*`, positions) takes a lock.
//! Different handles never wait for each other.
//!
//! # Where things are
//!
//! One file per concern; this one holds what they share: the handle
//! type and its registry, the mode dispatch (`writer`, `reader`), the
//! seam for query modules (`with_file`, `core`) and open/close.
//!
//! * `codes`: the return codes, their mapping from the core's
//!   [`ErrorKind`](::slog2::ErrorKind), and their texts;
//! * `write`: the output API (the draft's write protocol: header, categories,
//!   maps, drawables, tree-node hints, the directory check at close);
//! * `read`: the input API (header, directory, categories, the sequential
//!   `Get_next_*` cursor, popup text, y-maps);
//! * `query`: window and preview queries into caller columns;
//! * `scan`: whole-file scans (the core's prefetching scan, batch by batch);
//! * `cursor`: window cursors (a viewer's moving window).
//!
//! New SLOG2_* functions go in files of their own in `capi/src/` (one `mod`
//! line in `lib.rs`), calling `crate::slog2::with_file` for the handle and
//! `crate::slog2::core` for errors.

#![allow(non_camel_case_types, non_snake_case)]

use std::ffi::{c_char, c_int};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use slog2_handles::Registry;

use crate::{call_on, close_handle, cstr, entry, fail, fail_with, lock, lookup, out, Res};
use ::slog2::read::Slog2File;
use ::slog2::write::{Slog2Writer, WriterOptions};

mod codes;
mod cursor;
mod query;
mod read;
mod scan;
mod write;

#[cfg(test)]
mod tests;

pub use codes::*;
pub use cursor::*;
pub use query::*;
pub use read::*;
pub use scan::*;
pub use write::*;

pub(crate) use codes::Slog2Api;
use read::Cursor;
use write::{finish, WriterState};

type A = Slog2Api;

/// Opaque file state.
pub struct SLOG2_File_s {
    _private: [u8; 0],
}

/// Handle of an open SLOG-2 file.
pub type SLOG2_File = *mut SLOG2_File_s;

/// A category: the TRACE head fields plus the file's summary.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct SLOG2_Category_head_t {
    /// Category index (>= 0; -1 in SLOG2_Write_category closes the list; < 0 when read = preview category).
    pub index: c_int,
    /// 0 event, 1 state, 2 arrow.
    pub shape: c_int,
    pub red: c_int,
    pub green: c_int,
    pub blue: c_int,
    pub alpha: c_int,
    pub width: c_int,
    /// Read: number of primitives of this category in the file.
    pub count: i64,
    /// Read: inclusive duration ratio.
    pub incl_ratio: f32,
    /// Read: exclusive duration ratio.
    pub excl_ratio: f32,
}

/// One tree-directory node as returned by SLOG2_Read_dir (root first).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct SLOG2_Treedir_node {
    /// 0 = leaf; the root has the largest depth.
    pub depth: c_int,
    /// Position of the node among the nodes of its depth (0-based).
    pub xpos: c_int,
    pub earliest_time: f64,
    pub latest_time: f64,
    /// File block of the node.
    pub block_offset: i64,
    pub block_size: c_int,
    /// Indices into the returned array; -1 when none. rchild = last child.
    pub parent: c_int,
    pub lchild: c_int,
    pub rchild: c_int,
}

/// The draft's other name for the directory node.
pub type SLOG2_Treenode = SLOG2_Treedir_node;

struct Reader {
    /// Shared with the file's scans (SLOG2_Scan_open).
    file: Arc<Slog2File>,
    cursor: Mutex<Cursor>,
}

// One per open file, behind an Arc: the variants' sizes do not matter.
#[allow(clippy::large_enum_variant)]
enum Handle {
    /// `None` once closed by another thread's SLOG2_Close.
    W(Mutex<Option<WriterState>>),
    R(Reader),
}

static FILES: Registry<Handle> = Registry::new();

/// The object of a file handle (without running a call on it).
fn handle(fp: SLOG2_File) -> Res<Arc<Handle>> {
    lookup::<A, _>(&FILES, fp as usize, "SLOG2_File")
}

/// Run `f` on a file handle; a panic in `f` retires the handle.
fn on_file<R>(fp: SLOG2_File, f: impl FnOnce(&Handle) -> Res<R>) -> Res<R> {
    call_on::<A, _, _>(&FILES, fp as usize, "SLOG2_File", f)
}

/// Run `f` on a write-mode handle (under its lock).
fn writer(fp: SLOG2_File, f: impl FnOnce(&mut WriterState) -> Res<c_int>) -> c_int {
    entry::<A>(|| {
        on_file(fp, |h| match h {
            Handle::W(m) => match lock(m).as_mut() {
                Some(w) => f(w),
                None => Err(fail(SLOG2_ERR_BAD_HANDLE, "the SLOG2_File was closed")),
            },
            Handle::R(_) => Err(fail(SLOG2_ERR_WRONG_MODE, "the file is open for reading")),
        })
    })
}

/// Run `f` on a read-mode handle (no lock: queries run concurrently).
fn reader(fp: SLOG2_File, f: impl FnOnce(&Reader) -> Res<c_int>) -> c_int {
    entry::<A>(|| {
        on_file(fp, |h| match h {
            Handle::R(r) => f(r),
            Handle::W(_) => Err(fail(SLOG2_ERR_WRONG_MODE, "the file is open for writing")),
        })
    })
}

/// Run `f` on the file of a read-mode handle: the seam for query modules
/// of this crate that add SLOG2_* functions in files of their own.
#[allow(dead_code)] // until the first query module uses it
pub(crate) fn with_file(fp: SLOG2_File, f: impl FnOnce(&Arc<Slog2File>) -> Res<c_int>) -> c_int {
    reader(fp, |r| f(&r.file))
}

/// A core result in this API's codes (the detail recorded).
pub(crate) fn core<T>(r: ::slog2::Result<T>) -> Res<T> {
    r.map_err(fail_with::<A>)
}

// ---------------------------------------------------------------------------
// Open / close

/// Open `filename` for writing (`mode` 'w') or reading ('r'). Writing goes to a
/// temporary file beside `filename`, renamed over it by SLOG2_Close. `*fp` is
/// set to the handle, or to NULL on failure.
/// Returns SLOG2_OK; SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_ARG (mode),
/// SLOG2_ERR_IO, SLOG2_ERR_FORMAT (reading a damaged or non-SLOG-2 file).
///
/// # Safety
/// `filename` is NULL or a NUL-terminated string; `fp` is NULL or valid for
/// writing one handle.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Open(
    filename: *const c_char,
    mode: c_char,
    fp: *mut SLOG2_File,
) -> c_int {
    entry::<A>(|| {
        // SAFETY: the caller's promise on `fp` (see # Safety).
        let fp = unsafe { out::<A, _>(fp, "fp") }?;
        *fp = std::ptr::null_mut();
        // SAFETY: the caller's promise on `filename`.
        let path = PathBuf::from(unsafe { cstr::<A>(filename, "filename") }?.into_owned());
        let h = match mode as u8 {
            b'w' | b'W' => {
                remove_temps_at_exit();
                let writer = core(Slog2Writer::create(&path, WriterOptions::default()))?;
                Handle::W(Mutex::new(Some(WriterState {
                    path,
                    writer: Some(writer),
                    started: false,
                    categories_closed: false,
                    open_nodes: 0,
                    dir: None,
                })))
            }
            b'r' | b'R' => Handle::R(Reader {
                file: std::sync::Arc::new(core(Slog2File::open(&path))?),
                cursor: Mutex::new(Cursor::default()),
            }),
            _ => return Err(fail(SLOG2_ERR_BAD_ARG, "mode must be 'r' or 'w'")),
        };
        *fp = FILES.insert(h) as usize as SLOG2_File;
        Ok(SLOG2_OK)
    })
}

/// A C program that returns from `main` or calls `exit` without
/// SLOG2_Close leaves no temporary file: an `atexit` hook (registered once,
/// with the first write handle) removes those of unfinished writers.
fn remove_temps_at_exit() {
    extern "C" fn hook() {
        let _ = std::panic::catch_unwind(::slog2::write::temp::remove_temp_files);
    }
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: registers a function that takes no arguments and never
        // unwinds (panics are caught).
        unsafe {
            libc::atexit(hook);
        }
    });
}

/// Close and set `*fp` to NULL. Write mode: finishes the file (tree, categories,
/// maps, directory, header) and renames it into place; on any error no file is
/// left. Returns SLOG2_OK; SLOG2_ERR_NULL_ARG (`fp`), SLOG2_ERR_BAD_HANDLE
/// (unknown, closed: a second close), SLOG2_ERR_STATE (unbalanced tree-node
/// calls, a directory from SLOG2_Write_dir that differs), SLOG2_ERR_NO_DRAWABLES,
/// SLOG2_ERR_IO, SLOG2_ERR_INVALID_DRAWABLE.
///
/// # Safety
/// `fp` is NULL or valid for reading and writing one handle.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Close(fp: *mut SLOG2_File) -> c_int {
    entry::<A>(|| {
        // SAFETY: the caller's promise on `fp`.
        let h = unsafe { close_handle::<A, _, _>(&FILES, fp, "fp", "SLOG2_File") }?;
        match &*h {
            Handle::R(_) => Ok(SLOG2_OK),
            Handle::W(m) => {
                let Some(mut w) = lock(m).take() else {
                    return Err(fail(SLOG2_ERR_BAD_HANDLE, "the SLOG2_File was closed"));
                };
                finish(&mut w)
            }
        }
    })
}
