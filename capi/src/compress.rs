//! The writer's compression option (issue 28): `SLOG2_Write_compression`.

use std::ffi::c_int;

use super::fail;
use super::slog2::{with_options, SLOG2_File, SLOG2_ERR_BAD_ARG};

/// Compress the tree nodes of the file being written at zlib `level` (1
/// fastest … 9 smallest), or write plain SLOG-2 2.0.6 (`level` 0, the
/// default). A compressed file has the version `SLOG 2.0.Z`: libslog2, the
/// `slog2` tool and its bindings read it like any other; the reference
/// tools (Jumpshot-4, slog2print) refuse it with their version message, and
/// `slog2 convert FILE -o PLAIN` turns it back into 2.0.6. Call it, like
/// SLOG2_Write_header_ex, before the first category, y-map or drawable.
/// Returns SLOG2_OK; SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE,
/// SLOG2_ERR_STATE (too late), SLOG2_ERR_BAD_ARG (`level` outside 0..9),
/// SLOG2_ERR_IO.
///
/// # Safety
/// None beyond a handle from SLOG2_Open (any value is checked).
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Write_compression(fp: SLOG2_File, level: c_int) -> c_int {
    with_options(fp, "SLOG2_Write_compression", |o| {
        o.compress = match level {
            0 => None,
            1..=9 => Some(level as u32),
            _ => return Err(fail(SLOG2_ERR_BAD_ARG, "compression level must be 0 to 9")),
        };
        Ok(())
    })
}
