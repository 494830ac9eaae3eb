//! A whole-file scan limited to a time range (`SLOG2_Scan_open_range`):
//! the core's [`Scan::with_range`](::slog2::read::Scan::with_range), read
//! batch by batch with the ordinary `SLOG2_Scan_next`/`_close`. Bindings
//! walk part of a file with it instead of stepping windows and filtering
//! rows themselves.

#![allow(non_snake_case)]

use std::ffi::c_int;

use crate::slog2::{scan_open_with, SLOG2_File, SLOG2_Scan};

/// Start a scan of the drawables whose **end** time lies in `[t0, t1]`,
/// read like a whole-file scan (SLOG2_Scan_next, SLOG2_Scan_next_size,
/// SLOG2_Scan_close; same order: node blocks in file order, whole records).
/// Only the nodes whose box meets the range are read; consecutive ranges
/// `[a, b]`, `(b, c]`... return each drawable once (a composite with its
/// members, by the composite's end). `*scan` is set to the handle, or to
/// NULL on failure. Returns SLOG2_OK; SLOG2_ERR_BAD_ARG (a NaN bound or
/// t0 > t1), SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// `scan` is NULL or valid for writing one handle.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Scan_open_range(
    fp: SLOG2_File,
    t0: f64,
    t1: f64,
    scan: *mut SLOG2_Scan,
) -> c_int {
    // SAFETY: forwarded (the caller's promise on `scan`).
    unsafe { scan_open_with(fp, scan, |f| ::slog2::read::Scan::with_range(f, t0, t1)) }
}
