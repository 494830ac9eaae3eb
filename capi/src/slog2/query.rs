//! Window and preview queries into the caller's columns.
//!
//! The core answers a query with [`Rows`](::slog2::read::Rows), the
//! columns every binding shares; this file copies a range of them into the
//! caller's four-argument arrays (`SLOG2_Query_columns` at `pos`, info
//! bytes at `info_pos`), after checking that everything fits, so that a
//! failing call writes nothing. Scans and window cursors reuse the same
//! copy (`fill_rows`).

use std::ffi::{c_char, c_int};

use super::codes::*;
use super::{core, reader, SLOG2_File, A};
use crate::{c_len, column, fail, input, out, room, set_opt, set_pos, slots, Res, Slots};
use ::slog2::read::{QueryStats, RowsRef};

/// What a query read. Both depend only on the file and the window (not on
/// the node cache).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct SLOG2_Query_stats {
    /// Tree nodes whose time box intersects the window (their drawables
    /// were searched).
    pub nodes_read: c_int,
    /// Bytes of the drawables decoded: the records of the drawables
    /// returned (tags included), plus, for a preview, the bytes of the
    /// child stubs (which hold the shadows) decoded. Not the size of the
    /// nodes touched: a query decodes only the records that intersect the
    /// window (see the README, "Window queries").
    pub bytes_read: i64,
}

/// Row kind: a primitive (top level, or a member after its composite's row).
pub const SLOG2_KIND_PRIMITIVE: c_int = 0;
/// Row kind: a composite (its members follow it).
pub const SLOG2_KIND_COMPOSITE: c_int = 1;
/// Row kind: a preview shadow.
pub const SLOG2_KIND_SHADOW: c_int = 2;
const _: () = assert!(
    SLOG2_KIND_PRIMITIVE == ::slog2::read::ROW_PRIMITIVE as c_int
        && SLOG2_KIND_COMPOSITE == ::slog2::read::ROW_COMPOSITE as c_int
        && SLOG2_KIND_SHADOW == ::slog2::read::ROW_SHADOW as c_int
);

/// Column outputs of a query; any column pointer may be NULL to skip it.
#[repr(C)]
pub struct SLOG2_Query_columns {
    /// SLOG2_KIND_PRIMITIVE, _COMPOSITE or _SHADOW.
    pub kind: *mut c_int,
    pub category: *mut c_int,
    pub start: *mut f64,
    pub end: *mut f64,
    /// Line ID of the first and of the last vertex.
    pub line0: *mut c_int,
    pub line1: *mut c_int,
    /// Primitives summarised (shadows), members (composites), 1 (primitives).
    pub num_real: *mut i64,
    /// Offset of the row's info bytes in `info_base` (-1 when none), and their count.
    pub info_offset: *mut c_int,
    pub info_len: *mut c_int,
    /// Time of the first and of the last vertex (shadows: box start and end):
    /// an arrow goes from (time0, line0) to (time1, line1), whatever the box.
    pub time0: *mut f64,
    pub time1: *mut f64,
    /// Row of the composite a member row belongs to (members follow their
    /// composite's row), else -1.
    pub parent: *mut c_int,
}

/// Write a query's rows into the caller's columns (see SLOG2_Query_window).
/// `parent_base` is added to the parent rows (0 for a query; a scan writing
/// several batches in one call numbers them from the call's first row).
///
/// Every array is checked before anything is written (through the
/// toolkit's `room`, `slots` and `column`), and caller memory is written
/// only through the raw pointers those checks return: `n_out`, `pos` and
/// `info_pos` are read once and written once, so a caller passing one int
/// for two of them gets the last write, not undefined behaviour.
///
/// # Safety
/// As SLOG2_Query_window's pointer arguments.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn fill_rows(
    rows: RowsRef<'_>,
    parent_base: c_int,
    range: std::ops::Range<usize>,
    n_out: *mut c_int,
    cols: *const SLOG2_Query_columns,
    pos: *mut c_int,
    max: c_int,
    info_base: *mut c_char,
    info_pos: *mut c_int,
    info_max: c_int,
    stats: *mut SLOG2_Query_stats,
) -> Res<c_int> {
    let (r0, r1) = (range.start, range.end);
    let (i0, i1) = (rows.info_offset[r0] as usize, rows.info_offset[r1] as usize);
    let info = &rows.info[i0..i1];
    let nrows = r1 - r0;
    let n = c_len::<A>(nrows, "rows")?;
    c_len::<A>(info.len(), "info bytes")?;
    if n_out.is_null() {
        return Err(fail(SLOG2_ERR_NULL_ARG, "NULL argument: n_out"));
    }
    // SAFETY: the caller's promise on `cols` (a copy of its pointers).
    let cols = unsafe { input::<A, SLOG2_Query_columns>(cols, "columns")?.copy() };
    // The columns share `pos`/`max`; the info bytes have their own array.
    // SAFETY: the caller's promises; every array is checked before writing.
    let checked = unsafe {
        room::<A>(pos, max, nrows, "rows").and_then(|p0| {
            let info = slots::<A, c_char>(info_base, info_pos, info_max, info.len(), "info")?;
            let c = Columns {
                kind: column::<A, _>(cols.kind, p0, nrows, max, "kind")?,
                category: column::<A, _>(cols.category, p0, nrows, max, "category")?,
                start: column::<A, _>(cols.start, p0, nrows, max, "start")?,
                end: column::<A, _>(cols.end, p0, nrows, max, "end")?,
                time0: column::<A, _>(cols.time0, p0, nrows, max, "time0")?,
                time1: column::<A, _>(cols.time1, p0, nrows, max, "time1")?,
                line0: column::<A, _>(cols.line0, p0, nrows, max, "line0")?,
                line1: column::<A, _>(cols.line1, p0, nrows, max, "line1")?,
                parent: column::<A, _>(cols.parent, p0, nrows, max, "parent")?,
                num_real: column::<A, _>(cols.num_real, p0, nrows, max, "num_real")?,
                info_offset: column::<A, _>(cols.info_offset, p0, nrows, max, "info_offset")?,
                info_len: column::<A, _>(cols.info_len, p0, nrows, max, "info_len")?,
            };
            Ok((p0, info.start(), info, c))
        })
    };
    let (p0, ip0, info_room, c) = match checked {
        Ok(c) => c,
        Err(f) => {
            // SAFETY: checked non-NULL above.
            unsafe { n_out.write(n) };
            return Err(f);
        }
    };
    let spans = rows.info_offset[r0..=r1].windows(2);
    let ib = i0 as u32;
    c.kind
        .fill(rows.kind[r0..r1].iter().map(|&k| c_int::from(k)));
    c.category.copy_from(&rows.category[r0..r1]);
    c.start.copy_from(&rows.start[r0..r1]);
    c.end.copy_from(&rows.end[r0..r1]);
    c.time0.copy_from(&rows.time0[r0..r1]);
    c.time1.copy_from(&rows.time1[r0..r1]);
    c.line0.copy_from(&rows.line0[r0..r1]);
    c.line1.copy_from(&rows.line1[r0..r1]);
    // Parents relative to the range's first row, plus the caller's base.
    let pb = parent_base - r0 as c_int;
    c.parent.fill(
        rows.parent[r0..r1]
            .iter()
            .map(|&p| if p >= 0 { p + pb } else { p }),
    );
    c.num_real.copy_from(&rows.num_real[r0..r1]);
    c.info_offset.fill(spans.clone().map(|w| {
        if w[1] > w[0] {
            ip0 + (w[0] - ib) as c_int
        } else {
            -1
        }
    }));
    c.info_len.fill(spans.map(|w| (w[1] - w[0]) as c_int));
    // c_char and u8 have the same size and alignment.
    // SAFETY: the same bytes, seen as the caller's `char`s.
    let info_chars =
        unsafe { std::slice::from_raw_parts(info.as_ptr() as *const c_char, info.len()) };
    info_room.copy_from(info_chars);
    // SAFETY: `pos` checked by `room`, `n_out` above, `stats` as promised.
    unsafe {
        put_stats(stats, &rows.stats);
        set_pos(pos, p0 + nrows);
        n_out.write(n);
    }
    Ok(SLOG2_OK)
}

/// The checked slots of every column of one call.
struct Columns<'a> {
    kind: Slots<'a, c_int>,
    category: Slots<'a, c_int>,
    start: Slots<'a, f64>,
    end: Slots<'a, f64>,
    time0: Slots<'a, f64>,
    time1: Slots<'a, f64>,
    line0: Slots<'a, c_int>,
    line1: Slots<'a, c_int>,
    parent: Slots<'a, c_int>,
    num_real: Slots<'a, i64>,
    info_offset: Slots<'a, c_int>,
    info_len: Slots<'a, c_int>,
}

impl SLOG2_Query_columns {
    /// A copy of the caller's column pointers.
    fn copy(&self) -> SLOG2_Query_columns {
        SLOG2_Query_columns { ..*self }
    }
}

/// # Safety
/// `stats` is NULL or valid for one struct.
pub(super) unsafe fn put_stats(stats: *mut SLOG2_Query_stats, st: &QueryStats) {
    // SAFETY: forwarded.
    unsafe {
        set_opt(
            stats,
            SLOG2_Query_stats {
                nodes_read: c_int::try_from(st.nodes_read).unwrap_or(c_int::MAX),
                bytes_read: i64::try_from(st.bytes_read).unwrap_or(i64::MAX),
            },
        )
    };
}

/// Every drawable whose time box intersects `[t0, t1]`, in drawing order, one
/// row each (a composite row is followed by its members' rows), written in
/// columns at `pos` (capacity `max` rows) with info bytes packed into
/// `info_base`. On SLOG2_ERR_ARRAY_TOO_SMALL nothing is written and `*n_out`
/// holds the rows needed (so a first call with `max` 0 sizes the arrays;
/// SLOG2_Query_window_size gives both sizes). `stats` (may be NULL) gets the
/// nodes and bytes the query read. Safe to call from many threads on one
/// handle. Returns SLOG2_OK; SLOG2_ERR_ARRAY_TOO_SMALL, SLOG2_ERR_NULL_ARG,
/// SLOG2_ERR_BAD_ARG (t0 > t1, NaN, negative pos/max, over 2^31 rows),
/// SLOG2_ERR_FORMAT (a damaged node), SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// `n_out`, `pos`, `info_pos` NULL or valid for one int; `columns` NULL or a
/// valid struct whose non-NULL columns hold `max` elements; `info_base` NULL
/// or valid for `info_max` bytes; `stats` NULL or valid for one struct.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Query_window(
    fp: SLOG2_File,
    t0: f64,
    t1: f64,
    n_out: *mut c_int,
    columns: *const SLOG2_Query_columns,
    pos: *mut c_int,
    max: c_int,
    info_base: *mut c_char,
    info_pos: *mut c_int,
    info_max: c_int,
    stats: *mut SLOG2_Query_stats,
) -> c_int {
    reader(fp, |r| {
        let rows = core(r.file.window_rows(t0, t1))?;
        // SAFETY: the caller's promises (see # Safety).
        unsafe {
            fill_rows(
                rows.view(),
                0,
                0..rows.len(),
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

/// Rows and info bytes SLOG2_Query_window (depth < 0) or SLOG2_Query_preview
/// (depth >= 0) would return. Returns as SLOG2_Query_window.
///
/// # Safety
/// `n_rows` and `n_info_bytes` are NULL or valid for one int each.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Query_window_size(
    fp: SLOG2_File,
    t0: f64,
    t1: f64,
    depth: c_int,
    n_rows: *mut c_int,
    n_info_bytes: *mut c_int,
) -> c_int {
    reader(fp, |r| {
        // SAFETY: the caller's promises (see # Safety).
        let (nr, ni) = unsafe {
            (
                out::<A, _>(n_rows, "n_rows")?,
                out::<A, _>(n_info_bytes, "n_info_bytes")?,
            )
        };
        let rows = core(if depth < 0 {
            r.file.window_rows(t0, t1)
        } else {
            r.file.preview_rows(t0, t1, depth)
        })?;
        *nr = c_len::<A>(rows.len(), "rows")?;
        *ni = c_len::<A>(rows.info.len(), "info bytes")?;
        Ok(SLOG2_OK)
    })
}

/// Zoomed-out view: reads only tree levels >= `depth` intersecting the window;
/// rows are their real drawables, then the shadows (kind SLOG2_KIND_SHADOW,
/// category -1/-2/-3, num_real) summarising the levels below. Same array
/// conventions as SLOG2_Query_window; per-category weights of the shadows:
/// SLOG2_Query_preview_weights. `depth` 0 is full detail; a depth above the
/// root's reads just the root. Returns as SLOG2_Query_window
/// (SLOG2_ERR_BAD_ARG also for depth < 0).
///
/// # Safety
/// As SLOG2_Query_window.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Query_preview(
    fp: SLOG2_File,
    t0: f64,
    t1: f64,
    depth: c_int,
    n_out: *mut c_int,
    columns: *const SLOG2_Query_columns,
    pos: *mut c_int,
    max: c_int,
    info_base: *mut c_char,
    info_pos: *mut c_int,
    info_max: c_int,
    stats: *mut SLOG2_Query_stats,
) -> c_int {
    reader(fp, |r| {
        if depth < 0 {
            return Err(fail(SLOG2_ERR_BAD_ARG, "depth must be >= 0"));
        }
        let rows = core(r.file.preview_rows(t0, t1, depth))?;
        // SAFETY: the caller's promises (see # Safety).
        unsafe {
            fill_rows(
                rows.view(),
                0,
                0..rows.len(),
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

/// Weights of the shadows of SLOG2_Query_preview (same t0, t1, depth): one
/// entry per (shadow, category): `shadow` = the shadow's row in the preview's
/// rows (0-based), category, inclusive and exclusive ratio, count; grouped by
/// row ascending. Four-argument convention on `pos`/`max` (all five arrays
/// share them); on SLOG2_ERR_ARRAY_TOO_SMALL `*n_out` holds the entries
/// needed. Returns as SLOG2_Query_preview.
///
/// # Safety
/// `n_out` and `pos` NULL or valid for one int; the five arrays NULL or valid
/// for `max` elements each.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Query_preview_weights(
    fp: SLOG2_File,
    t0: f64,
    t1: f64,
    depth: c_int,
    n_out: *mut c_int,
    shadow: *mut c_int,
    category: *mut c_int,
    incl: *mut f32,
    excl: *mut f32,
    count: *mut i64,
    pos: *mut c_int,
    max: c_int,
) -> c_int {
    reader(fp, |r| {
        if n_out.is_null() {
            return Err(fail(SLOG2_ERR_NULL_ARG, "NULL argument: n_out"));
        }
        if depth < 0 {
            return Err(fail(SLOG2_ERR_BAD_ARG, "depth must be >= 0"));
        }
        let rows = core(r.file.preview_rows(t0, t1, depth))?;
        let ws = &rows.weights;
        let nw = ws.len();
        let n = c_len::<A>(nw, "weights")?;
        // SAFETY: the caller's promises on `pos` and the five arrays;
        // nothing is written until all are checked.
        let checked = unsafe {
            room::<A>(pos, max, nw, "weights").and_then(|p0| {
                let any_null = shadow.is_null()
                    || category.is_null()
                    || incl.is_null()
                    || excl.is_null()
                    || count.is_null();
                if any_null && nw > 0 {
                    return Err(fail(SLOG2_ERR_NULL_ARG, "NULL weights array"));
                }
                Ok((
                    p0,
                    column::<A, _>(shadow, p0, nw, max, "shadow")?,
                    column::<A, _>(category, p0, nw, max, "category")?,
                    column::<A, _>(incl, p0, nw, max, "incl")?,
                    column::<A, _>(excl, p0, nw, max, "excl")?,
                    column::<A, _>(count, p0, nw, max, "count")?,
                ))
            })
        };
        let (p0, c_shadow, c_category, c_incl, c_excl, c_count) = match checked {
            Ok(c) => c,
            Err(f) => {
                // SAFETY: checked non-NULL above.
                unsafe { n_out.write(n) };
                return Err(f);
            }
        };
        c_shadow.copy_from(&ws.row);
        c_category.copy_from(&ws.category);
        c_incl.copy_from(&ws.incl);
        c_excl.copy_from(&ws.excl);
        c_count.copy_from(&ws.count);
        // SAFETY: `pos` checked by `room`, `n_out` above.
        unsafe {
            set_pos(pos, p0 + nw);
            n_out.write(n);
        }
        Ok(SLOG2_OK)
    })
}
