//! Window cursors (`SLOG2_Cursor_*`): a viewer's moving window, see
//! [`::slog2::read::cursor`].

use std::ffi::{c_char, c_int};
use std::sync::{Arc, Mutex};

use slog2_handles::Registry;

use super::codes::*;
use super::query::{fill_rows, put_stats, SLOG2_Query_columns, SLOG2_Query_stats};
use super::{core, handle, Handle, SLOG2_File, A, FILES};
use crate::{c_len, call_on, close_handle, entry, fail, lock, out, set_opt, Res};
use ::slog2::read::{Slog2File, WindowCursor};

/// Opaque cursor state.
pub struct SLOG2_Cursor_s {
    _private: [u8; 0],
}

/// Handle of a window cursor (SLOG2_Cursor_open).
pub type SLOG2_Cursor = *mut SLOG2_Cursor_s;

/// Read-only view of a cursor's current rows (SLOG2_Cursor_get_view), the same
/// columns SLOG2_Query_window fills, in the library's own arrays. Valid until
/// the next SLOG2_Cursor_move or SLOG2_Cursor_close on that cursor. Row `i`'s
/// info bytes are `info[info_offset[i] .. info_offset[i + 1]]`
/// (`info_offset` has `n_rows + 1` entries). The column pointers are NULL
/// when `n_rows` is 0, `info` when `n_info_bytes` is 0.
#[repr(C)]
pub struct SLOG2_Cursor_view {
    pub n_rows: c_int,
    pub n_info_bytes: c_int,
    /// SLOG2_KIND_PRIMITIVE or SLOG2_KIND_COMPOSITE (one byte per row).
    pub kind: *const u8,
    pub category: *const i32,
    pub start: *const f64,
    pub end: *const f64,
    /// Time and line of the first and of the last vertex (arrow direction).
    pub time0: *const f64,
    pub time1: *const f64,
    pub line0: *const i32,
    pub line1: *const i32,
    /// Row of the composite a member row belongs to, else -1.
    pub parent: *const i32,
    pub num_real: *const i64,
    pub info_offset: *const u32,
    pub info: *const c_char,
    /// The window of these rows.
    pub t0: f64,
    pub t1: f64,
}

struct CursorObj {
    /// The key of the file handle the cursor belongs to (checked on every
    /// call: closing the file ends its cursors, as it ends its scans).
    file_key: usize,
    /// The file's data (its map), kept alive until the cursor is closed:
    /// the rows of a view stay valid until then.
    file: Arc<Slog2File>,
    cur: Mutex<WindowCursor>,
}

static CURSORS: Registry<CursorObj> = Registry::new();

/// Run `f` on a cursor whose file is still open (under the cursor's lock);
/// a panic retires the cursor.
fn with_cursor(
    c: SLOG2_Cursor,
    f: impl FnOnce(&Slog2File, &mut WindowCursor) -> Res<c_int>,
) -> c_int {
    entry::<A>(|| {
        call_on::<A, _, _>(&CURSORS, c as usize, "SLOG2_Cursor", |obj| {
            if !FILES.contains(obj.file_key as u64) {
                return Err(fail(
                    SLOG2_ERR_BAD_HANDLE,
                    "the SLOG2_File of this cursor was closed",
                ));
            }
            f(&obj.file, &mut lock(&obj.cur))
        })
    })
}

/// Open a window cursor on a read-mode file: one per viewer. A cursor keeps
/// the current window's rows and, on each SLOG2_Cursor_move, drops the rows
/// that left and decodes only the drawables entering (a move that does not
/// overlap the previous window is a fresh query). A cursor belongs to its
/// file handle: after SLOG2_Close(file) every call on the cursor but
/// SLOG2_Cursor_close returns SLOG2_ERR_BAD_HANDLE (close it then, too).
/// Calls on one cursor serialise on its lock; cursors and queries on one file
/// run concurrently. `*cursor` is set to the handle, or NULL on failure.
/// Returns SLOG2_OK; SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// `cursor` is NULL or valid for one handle.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Cursor_open(fp: SLOG2_File, cursor: *mut SLOG2_Cursor) -> c_int {
    entry::<A>(|| {
        // SAFETY: the caller's promise on `cursor`.
        let out_c = unsafe { out::<A, _>(cursor, "cursor") }?;
        *out_c = std::ptr::null_mut();
        let file = match &*handle(fp)? {
            Handle::R(r) => r.file.clone(),
            Handle::W(_) => return Err(fail(SLOG2_ERR_WRONG_MODE, "the file is open for writing")),
        };
        let id = CURSORS.insert(CursorObj {
            file_key: fp as usize,
            file,
            cur: Mutex::new(WindowCursor::new()),
        });
        *out_c = id as usize as SLOG2_Cursor;
        Ok(SLOG2_OK)
    })
}

/// Move the cursor to the window `[t0, t1]`: afterwards it holds exactly the
/// rows SLOG2_Query_window(t0, t1) returns, in drawing order (start
/// ascending, then end descending, category, first line, last line; a
/// composite's row is followed by its members' rows). Rows with equal
/// drawing keys may come in another order than from SLOG2_Query_window.
/// `n_rows`, `n_info_bytes`, `stats` may be NULL; `stats->bytes_read` counts
/// the records this move decoded (the entering ones, or the next chunk of a
/// node the cursor holds as rows in drawing order). On failure the cursor
/// is emptied (its next move is a fresh query). Read the rows with
/// SLOG2_Cursor_get_view (no copy) or SLOG2_Cursor_rows (into your arrays).
/// Returns SLOG2_OK; SLOG2_ERR_BAD_ARG (t0 > t1, NaN, over 2^31 rows),
/// SLOG2_ERR_FORMAT (a damaged node), SLOG2_ERR_BAD_HANDLE.
///
/// # Safety
/// `n_rows`, `n_info_bytes` NULL or valid for one int; `stats` NULL or valid
/// for one struct.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Cursor_move(
    c: SLOG2_Cursor,
    t0: f64,
    t1: f64,
    n_rows: *mut c_int,
    n_info_bytes: *mut c_int,
    stats: *mut SLOG2_Query_stats,
) -> c_int {
    with_cursor(c, |file, cur| {
        let rows = core(cur.move_to(file, t0, t1))?;
        let (nr, ni) = (
            c_len::<A>(rows.len(), "rows")?,
            c_len::<A>(rows.info.len(), "info bytes")?,
        );
        // SAFETY: the caller's promises (see # Safety).
        unsafe {
            set_opt(n_rows, nr);
            set_opt(n_info_bytes, ni);
            put_stats(stats, &rows.stats);
        }
        Ok(SLOG2_OK)
    })
}

/// The cursor's current rows without a copy (see SLOG2_Cursor_view). Before
/// the first successful move, `n_rows` is 0. Returns SLOG2_OK;
/// SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_ARG (over 2^31 rows), SLOG2_ERR_BAD_HANDLE.
///
/// # Safety
/// `view` is NULL or valid for one struct.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Cursor_get_view(
    c: SLOG2_Cursor,
    view: *mut SLOG2_Cursor_view,
) -> c_int {
    with_cursor(c, |_, cur| {
        // SAFETY: the caller's promise on `view`.
        let v = unsafe { out::<A, _>(view, "view") }?;
        let r = cur.rows();
        let n = c_len::<A>(r.len(), "rows")?;
        let (t0, t1) = cur
            .window()
            .map_or((f64::NAN, f64::NAN), |w| (w.start, w.end));
        *v = SLOG2_Cursor_view {
            n_rows: n,
            n_info_bytes: c_len::<A>(r.info.len(), "info bytes")?,
            kind: col_ptr(r.kind),
            category: col_ptr(r.category),
            start: col_ptr(r.start),
            end: col_ptr(r.end),
            time0: col_ptr(r.time0),
            time1: col_ptr(r.time1),
            line0: col_ptr(r.line0),
            line1: col_ptr(r.line1),
            parent: col_ptr(r.parent),
            num_real: col_ptr(r.num_real),
            info_offset: if n == 0 {
                std::ptr::null()
            } else {
                r.info_offset.as_ptr()
            },
            info: col_ptr(r.info) as *const c_char,
            t0,
            t1,
        };
        Ok(SLOG2_OK)
    })
}

/// Copy the cursor's current rows into the caller's columns, with the array
/// conventions of SLOG2_Query_window (on SLOG2_ERR_ARRAY_TOO_SMALL nothing is
/// written and `*n_out` holds the rows needed). `stats` gets the last move's.
/// Returns as SLOG2_Query_window.
///
/// # Safety
/// As SLOG2_Query_window.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Cursor_rows(
    c: SLOG2_Cursor,
    n_out: *mut c_int,
    columns: *const SLOG2_Query_columns,
    pos: *mut c_int,
    max: c_int,
    info_base: *mut c_char,
    info_pos: *mut c_int,
    info_max: c_int,
    stats: *mut SLOG2_Query_stats,
) -> c_int {
    with_cursor(c, |_, cur| {
        // SAFETY: the caller's promises (see # Safety).
        unsafe {
            fill_rows(
                cur.rows(),
                0,
                0..cur.rows().len(),
                n_out,
                columns,
                pos,
                max,
                info_base,
                info_pos,
                info_max,
                stats,
            )
        }
    })
}

/// A column's address, NULL when it is empty.
fn col_ptr<T>(v: &[T]) -> *const T {
    if v.is_empty() {
        std::ptr::null()
    } else {
        v.as_ptr()
    }
}

/// Close a cursor and set `*cursor` to NULL (its views become invalid).
/// Returns SLOG2_OK; SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_HANDLE (NULL, unknown
/// or already closed).
///
/// # Safety
/// `cursor` is NULL or valid for one handle.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Cursor_close(cursor: *mut SLOG2_Cursor) -> c_int {
    entry::<A>(|| {
        // SAFETY: the caller's promise on `cursor`.
        unsafe { close_handle::<A, _, _>(&CURSORS, cursor, "cursor", "SLOG2_Cursor") }?;
        Ok(SLOG2_OK)
    })
}

/// A call on `c` that panics (tests of handle retirement).
#[cfg(test)]
pub(super) fn panic_in(c: SLOG2_Cursor) -> c_int {
    with_cursor(c, |_, _| panic!("half done"))
}
