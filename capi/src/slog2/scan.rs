//! Whole-file scans (`SLOG2_Scan_*`): every drawable exactly once, batch
//! after batch, into the caller's columns.
//!
//! The scan itself — the worker thread decoding ahead, batches of whole
//! records sized to the room left in the caller's arrays, errors deferred
//! until the rows before them are taken — is the core's
//! [`PrefetchScan`]; this file checks the caller's arrays, hands the room
//! to the core and copies what it hands over ([`fill_rows`]). A scan
//! belongs to its file handle: once `SLOG2_Close` closed that, every call
//! but `SLOG2_Scan_close` is `SLOG2_ERR_BAD_HANDLE`.

use std::ffi::{c_char, c_int};
use std::sync::Mutex;

use slog2_handles::Registry;

use super::codes::*;
use super::query::{fill_rows, put_stats, SLOG2_Query_columns, SLOG2_Query_stats};
use super::{core, reader, SLOG2_File, A, FILES};
use crate::{c_len, call_on, close_handle, entry, fail, input, lock, out, room, Res};
use ::slog2::read::scan::{Batch, PrefetchScan};

/// Opaque scan state.
pub struct SLOG2_Scan_s {
    _private: [u8; 0],
}

/// Handle of a whole-file scan (SLOG2_Scan_open).
pub type SLOG2_Scan = *mut SLOG2_Scan_s;

/// A scan: the core's prefetching scan, and the key of the file handle it
/// belongs to (checked on every call: closing the file ends its scans).
struct ScanHandle {
    file: usize,
    scan: Mutex<PrefetchScan>,
}

static SCANS: Registry<ScanHandle> = Registry::new();

/// Run `f` on a scan whose file is still open (under the scan's lock); a
/// panic retires the scan.
fn scan_op(sc: SLOG2_Scan, f: impl FnOnce(&mut PrefetchScan) -> Res<c_int>) -> c_int {
    entry::<A>(|| {
        call_on::<A, _, _>(&SCANS, sc as usize, "SLOG2_Scan", |h| {
            if !FILES.contains(h.file as u64) {
                return Err(fail(
                    SLOG2_ERR_BAD_HANDLE,
                    "the SLOG2_File of this scan was closed",
                ));
            }
            f(&mut lock(&h.scan))
        })
    })
}

/// Start a whole-file scan of a file open for reading: SLOG2_Scan_next then
/// returns every drawable of the file exactly once, batch after batch, and
/// SLOG2_Scan_close ends it. Order: the node blocks in file order (the order
/// the writer wrote them, a node after its children), in each node its arrows
/// and events, then its states and composites, each in drawing order; a
/// composite row is followed by its member rows. Unlike consecutive
/// SLOG2_Query_window calls, no drawable is returned twice and every stored
/// drawable is returned (also those with NaN times). Node bytes are read
/// sequentially, one ≈ 8 MiB chunk of the map at a time, so memory stays
/// flat. A thread of the scan's own decodes up to two sub-batches of 16 k
/// rows ahead, overlapping the copy into the caller's arrays and the
/// caller's work; it stops at SLOG2_Scan_close (which also frees the file's
/// data if SLOG2_Close came first). Scans are independent of each other and of queries on the same file; one
/// scan handle may be used from any thread (calls serialise on it). `*scan` is
/// set to the handle, or to NULL on failure. Returns SLOG2_OK;
/// SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// `scan` is NULL or valid for writing one handle.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Scan_open(fp: SLOG2_File, scan: *mut SLOG2_Scan) -> c_int {
    // SAFETY: forwarded (the caller's promise on `scan`).
    unsafe { scan_open_with(fp, scan, |f| Ok(::slog2::read::Scan::new(f))) }
}

/// SLOG2_Scan_open with the core's scan made by `make` (a whole-file scan,
/// or one over a time range: `scan_range.rs`).
///
/// # Safety
/// `scan` is NULL or valid for writing one handle.
pub(crate) unsafe fn scan_open_with(
    fp: SLOG2_File,
    scan: *mut SLOG2_Scan,
    make: impl FnOnce(
        std::sync::Arc<::slog2::read::Slog2File>,
    )
        -> ::slog2::Result<::slog2::read::Scan<std::sync::Arc<::slog2::read::Slog2File>>>,
) -> c_int {
    // SAFETY: the caller's promise on `scan`.
    if let Some(s) = unsafe { scan.as_mut() } {
        *s = std::ptr::null_mut();
    }
    reader(fp, |r| {
        // SAFETY: the caller's promise on `scan`.
        let out_scan = unsafe { out::<A, _>(scan, "scan") }?;
        let inner = core(make(r.file.clone()))?;
        let scan = core(PrefetchScan::of(
            inner,
            ::slog2::read::scan::DEFAULT_SUB_ROWS,
        ))?;
        let h = ScanHandle {
            file: fp as usize,
            scan: Mutex::new(scan),
        };
        *out_scan = SCANS.insert(h) as usize as SLOG2_Scan;
        Ok(SLOG2_OK)
    })
}

/// The next batch of the scan, written like SLOG2_Query_window's rows: columns
/// at `pos` (capacity `max` rows; any column may be NULL), info bytes packed
/// into `info_base` at `*info_pos` (capacity `info_max`), `*n_out` rows. A
/// batch is as many whole records as fit in the room left (`max - *pos` rows,
/// `info_max - *info_pos` bytes), so callers choose the batch size by the
/// arrays they pass. `parent` rows are numbered from the first row this call
/// writes (row 0 = the row at the entry value of `*pos`), as in
/// SLOG2_Query_window; info offsets index `info_base`. `stats` (may be NULL) gets the nodes started and the
/// record bytes decoded by this batch. At the end: SLOG2_ERR_EOF with `*n_out`
/// 0. When the next record alone does not fit (a composite with more members
/// than `max`, or more info bytes than the room): SLOG2_ERR_ARRAY_TOO_SMALL,
/// nothing written, `*n_out` = its rows; SLOG2_Scan_next_size gives rows and
/// info bytes, and the next call returns that batch. A damaged node:
/// SLOG2_ERR_FORMAT, and the scan is over (later calls return SLOG2_ERR_EOF).
/// Returns SLOG2_OK; SLOG2_ERR_EOF, SLOG2_ERR_ARRAY_TOO_SMALL,
/// SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_ARG (negative pos/max), SLOG2_ERR_FORMAT,
/// SLOG2_ERR_IO, SLOG2_ERR_BAD_HANDLE (unknown or closed scan, or its file
/// closed).
///
/// # Safety
/// As SLOG2_Query_window's pointer arguments.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Scan_next(
    scan: SLOG2_Scan,
    n_out: *mut c_int,
    columns: *const SLOG2_Query_columns,
    pos: *mut c_int,
    max: c_int,
    info_base: *mut c_char,
    info_pos: *mut c_int,
    info_max: c_int,
    stats: *mut SLOG2_Query_stats,
) -> c_int {
    scan_op(scan, |sc| {
        if n_out.is_null() {
            return Err(fail(SLOG2_ERR_NULL_ARG, "NULL argument: n_out"));
        }
        // SAFETY: the caller's promises on `columns`, `pos`, `info_pos`;
        // nothing is written here.
        let (p0, ip0) = unsafe {
            input::<A, _>(columns, "columns")?;
            (
                room::<A>(pos, max, 0, "rows")?,
                room::<A>(info_pos, info_max, 0, "info")?,
            )
        };
        // `n_out` is written through its pointer (never a reference), as
        // in `fill_rows`: it may be the int of a position.
        let set_n_out = |n: c_int| {
            // SAFETY: checked non-NULL above; valid (the caller's promise).
            unsafe { n_out.write(n) }
        };
        // No info array: no room for info bytes (a record with info then
        // fails with nothing written, as in SLOG2_Query_window).
        let room_info = if info_base.is_null() {
            0
        } else {
            (info_max as usize).saturating_sub(ip0)
        };
        let room_rows = (max as usize).saturating_sub(p0);
        // The core hands over runs of whole records sized to the room, so
        // every copy below fits; a failure would be a bug, reported as such.
        let mut copy_failed = None;
        let batch = core(sc.next_batch(room_rows, room_info, |rows, range, first| {
            if copy_failed.is_some() {
                return;
            }
            let mut n = 0;
            // SAFETY: the caller's promises (see # Safety); the range fits.
            let r = unsafe {
                c_len::<A>(first, "rows").and_then(|first| {
                    fill_rows(
                        rows,
                        first,
                        range,
                        &mut n,
                        columns,
                        pos,
                        max,
                        info_base,
                        info_pos,
                        info_max,
                        std::ptr::null_mut(),
                    )
                })
            };
            copy_failed = r.err();
        }))?;
        if let Some(f) = copy_failed {
            return Err(f);
        }
        let (wrote, st) = match batch {
            Batch::TooBig { rows, info } => {
                set_n_out(c_len::<A>(rows, "rows")?);
                return Err(fail(
                    SLOG2_ERR_ARRAY_TOO_SMALL,
                    format!(
                        "scan: the next record needs {rows} rows and {info} info bytes; \
                         the arrays have room for {room_rows} and {room_info}"
                    ),
                ));
            }
            Batch::Rows { rows, stats } => (rows, stats),
            Batch::End { stats } => (0, stats),
        };
        set_n_out(c_len::<A>(wrote, "rows")?);
        // SAFETY: the caller's promise on `stats`.
        unsafe { put_stats(stats, &st) };
        if wrote == 0 {
            return Err(fail(SLOG2_ERR_EOF, "the scan has returned every drawable"));
        }
        Ok(SLOG2_OK)
    })
}

/// Rows and info bytes of the batch SLOG2_Scan_next could not write
/// (after SLOG2_ERR_ARRAY_TOO_SMALL): arrays this large take it. 0 and 0 when
/// no batch is waiting. Returns SLOG2_OK; SLOG2_ERR_NULL_ARG,
/// SLOG2_ERR_BAD_HANDLE.
///
/// # Safety
/// `n_rows` and `n_info_bytes` are NULL or valid for one int each.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Scan_next_size(
    scan: SLOG2_Scan,
    n_rows: *mut c_int,
    n_info_bytes: *mut c_int,
) -> c_int {
    scan_op(scan, |sc| {
        // SAFETY: the caller's promises.
        let (nr, ni) = unsafe {
            (
                out::<A, _>(n_rows, "n_rows")?,
                out::<A, _>(n_info_bytes, "n_info_bytes")?,
            )
        };
        let (r, i) = sc.pending().unwrap_or((0, 0));
        *nr = c_len::<A>(r, "rows")?;
        *ni = c_len::<A>(i, "info bytes")?;
        Ok(SLOG2_OK)
    })
}

/// End a scan, free its buffers and set `*scan` to NULL (also after its file
/// was closed). Returns SLOG2_OK; SLOG2_ERR_NULL_ARG (`scan`),
/// SLOG2_ERR_BAD_HANDLE (unknown or already closed).
///
/// # Safety
/// `scan` is NULL or valid for reading and writing one handle.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Scan_close(scan: *mut SLOG2_Scan) -> c_int {
    entry::<A>(|| {
        // SAFETY: the caller's promise on `scan`.
        unsafe { close_handle::<A, _, _>(&SCANS, scan, "scan", "SLOG2_Scan") }?;
        Ok(SLOG2_OK)
    })
}

/// A call on `sc` that panics (tests of handle retirement).
#[cfg(test)]
pub(super) fn panic_in(sc: SLOG2_Scan) -> c_int {
    scan_op(sc, |_| panic!("half done"))
}
