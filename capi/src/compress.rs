//! Compressed tree nodes (`SLOG 2.0.Z`) from C: the writer's option
//! `SLOG2_Write_compression`, and `SLOG2_Get_compressed` for a reader.

use std::ffi::c_int;

use slog2::format::MAX_LEVEL;

use super::slog2::{with_file, with_options, SLOG2_File, Slog2Api, SLOG2_ERR_BAD_ARG, SLOG2_OK};
use super::{fail, out};

type A = Slog2Api;

/// Compress the tree nodes of the file being written at `level` (1
/// fastest … 12 smallest: libdeflate's levels, whose 1–9 trade size for
/// time as zlib's do; `slog2 convert --compress` takes 1), or write plain
/// SLOG-2 2.0.6 (`level` 0, the default). A compressed file has the version `SLOG 2.0.Z`: libslog2, the
/// `slog2` tool and its bindings read it like any other; the reference
/// tools (Jumpshot-4, slog2print) refuse it with their version message, and
/// `slog2 convert FILE -o PLAIN` turns it back into 2.0.6. Call it, like
/// SLOG2_Write_header_ex, before the first category, y-map or drawable.
/// Returns SLOG2_OK; SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE,
/// SLOG2_ERR_STATE (too late), SLOG2_ERR_BAD_ARG (`level` outside 0..12),
/// SLOG2_ERR_IO.
///
/// # Safety
/// None beyond a handle from SLOG2_Open (any value is checked).
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Write_compression(fp: SLOG2_File, level: c_int) -> c_int {
    with_options(fp, "SLOG2_Write_compression", |o| {
        o.compress = match level {
            0 => None,
            1.. if level as u32 <= MAX_LEVEL => Some(level as u32),
            _ => {
                let msg = format!("compression level must be 0 to {MAX_LEVEL}");
                return Err(fail(SLOG2_ERR_BAD_ARG, msg));
            }
        };
        Ok(())
    })
}

/// `*compressed` = 1 when the file read through `fp` has compressed tree
/// nodes (version `SLOG 2.0.Z`), else 0. SLOG2_Get_header reports the
/// layout version 206 for both: a compressed file is SLOG-2 2.0.6 with its
/// tree nodes deflated. Returns SLOG2_OK; SLOG2_ERR_NULL_ARG,
/// SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// `compressed` is NULL or valid for writing one int.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Get_compressed(fp: SLOG2_File, compressed: *mut c_int) -> c_int {
    with_file(fp, |file| {
        // SAFETY: the caller's promise on `compressed`.
        let o = unsafe { out::<A, _>(compressed, "compressed") }?;
        *o = c_int::from(file.header().is_compressed());
        Ok(SLOG2_OK)
    })
}
