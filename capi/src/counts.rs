//! The counts of a file (`SLOG2_Get_counts`, `SLOG2_Get_category_counts`,
//! `SLOG2_Count_definition`): the core's [`Counts`](::slog2::read::Counts),
//! whose module gives the one definition of a drawable count that every
//! binding and `slog2 info` report.

#![allow(non_camel_case_types, non_snake_case)]

use std::ffi::{c_char, c_int, CString};
use std::sync::OnceLock;

use crate::slog2::{core, with_file, SLOG2_File, Slog2Api, SLOG2_OK};
use crate::{c_len, out, room};

type A = Slog2Api;

/// What a file holds (the definitions: SLOG2_Count_definition).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct SLOG2_Counts {
    /// Top-level records: primitives and composites.
    pub drawables: i64,
    /// Composites (drawables too).
    pub composites: i64,
    /// Primitives inside composites (not drawables of their own).
    pub members: i64,
    /// Every primitive, members included (drawables - composites + members).
    pub primitives: i64,
    /// Rows of every table of the whole file (drawables + members).
    pub rows: i64,
}

fn i(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// The file's counts. The first call on a file scans it once (each record
/// decoded once, at the speed of reading the bytes); later calls return the
/// kept result. Safe to call from many threads. Returns SLOG2_OK;
/// SLOG2_ERR_NULL_ARG, SLOG2_ERR_FORMAT (a damaged node), SLOG2_ERR_BAD_HANDLE,
/// SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// `counts` is NULL or valid for writing one struct.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Get_counts(fp: SLOG2_File, counts: *mut SLOG2_Counts) -> c_int {
    with_file(fp, |file| {
        // SAFETY: the caller's promise on `counts`.
        let o = unsafe { out::<A, _>(counts, "counts") }?;
        let c = core(file.counts())?;
        *o = SLOG2_Counts {
            drawables: i(c.drawables),
            composites: i(c.composites),
            members: i(c.members),
            primitives: i(c.primitives()),
            rows: i(c.rows()),
        };
        Ok(SLOG2_OK)
    })
}

/// Write one optional column at `pos`.
///
/// # Safety
/// `col` is NULL or valid for writes of `pos + vals.len()` elements.
unsafe fn column<T: Copy>(col: *mut T, pos: usize, vals: &[T]) {
    if !col.is_null() {
        // SAFETY: the caller's promise.
        unsafe { std::ptr::copy_nonoverlapping(vals.as_ptr(), col.add(pos), vals.len()) };
    }
}

/// Per category, sorted by index: the category `index`, its `drawables`
/// (top-level primitives and composites of the category), its composite
/// `members`, and the count `stored` in the file's category block (the
/// reference counts members there and stores 0 for composite categories; -1
/// for an index used by drawables but not defined). Every category of the
/// file has an entry. The four columns share `pos`/`max` (any column may be
/// NULL); on SLOG2_ERR_ARRAY_TOO_SMALL nothing is written and `*n_out`
/// holds the entries needed (a call with `max` 0 sizes the arrays). Counts
/// as SLOG2_Get_counts. Returns SLOG2_OK; SLOG2_ERR_ARRAY_TOO_SMALL,
/// SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_ARG (negative pos/max),
/// SLOG2_ERR_FORMAT, SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// `n_out` and `pos` NULL or valid for one int; each non-NULL column valid
/// for `max` elements.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Get_category_counts(
    fp: SLOG2_File,
    n_out: *mut c_int,
    index: *mut c_int,
    drawables: *mut i64,
    members: *mut i64,
    stored: *mut i64,
    pos: *mut c_int,
    max: c_int,
) -> c_int {
    with_file(fp, |file| {
        // SAFETY: the caller's promise on `n_out`.
        let n_out = unsafe { out::<A, _>(n_out, "n_out") }?;
        let c = core(file.counts())?;
        let by = &c.by_category;
        let n = c_len::<A>(by.len(), "categories")?;
        // SAFETY: the caller's promise on `pos`.
        let p0 = match unsafe { room::<A>(pos, max, by.len(), "categories") } {
            Ok(p) => p,
            Err(f) => {
                *n_out = n;
                return Err(f);
            }
        };
        let idx: Vec<c_int> = by.iter().map(|c| c.index).collect();
        let d: Vec<i64> = by.iter().map(|c| i(c.drawables)).collect();
        let m: Vec<i64> = by.iter().map(|c| i(c.members)).collect();
        let s: Vec<i64> = by.iter().map(|c| c.stored.unwrap_or(-1)).collect();
        // SAFETY: each non-NULL column holds `max` >= p0 + n elements (the
        // caller's promise, checked against `max` by `room`); `pos` checked
        // non-NULL by `room`.
        unsafe {
            column(index, p0, &idx);
            column(drawables, p0, &d);
            column(members, p0, &m);
            column(stored, p0, &s);
            *pos += n;
        }
        *n_out = n;
        Ok(SLOG2_OK)
    })
}

/// The definition of the counts, in words (static NUL-terminated text,
/// never NULL): the same text `slog2 info --help` prints.
#[no_mangle]
pub extern "C" fn SLOG2_Count_definition() -> *const c_char {
    static TEXT: OnceLock<CString> = OnceLock::new();
    TEXT.get_or_init(|| CString::new(::slog2::read::counts::DEFINITION).unwrap_or_default())
        .as_ptr()
}
