//! The SLOG2 API's return codes: one constant per outcome, the exhaustive
//! mapping from the core's [`ErrorKind`] (a new kind does not compile until
//! it has a code here), and their static texts.
//!
//! Codes are positive and stable (they are in `slog2.h` and in every
//! binding's tables): `SLOG2_OK` is 0, `SLOG2_ERR_*` are 1..=16, and a
//! negative value from `SLOG2_Get_header` is a needed buffer length. The
//! detail of the last failure on a thread (file, record, byte offset) is
//! `SLOG2_Get_last_error`.

use std::ffi::{c_char, c_int, CStr};

use crate::{last_error_ptr, Api};
use ::slog2::error::ErrorKind;

/// Success.
pub const SLOG2_OK: c_int = 0;
/// A required pointer argument is NULL.
pub const SLOG2_ERR_NULL_ARG: c_int = 1;
/// Unknown, closed or NULL `SLOG2_File` handle (or a TRACE handle).
pub const SLOG2_ERR_BAD_HANDLE: c_int = 2;
/// The call needs the other mode ('r' vs 'w').
pub const SLOG2_ERR_WRONG_MODE: c_int = 3;
/// An output array is too small; nothing was written.
pub const SLOG2_ERR_ARRAY_TOO_SMALL: c_int = 4;
/// An argument is out of range (negative size, unknown mode, bad time box...).
pub const SLOG2_ERR_BAD_ARG: c_int = 5;
/// Operating-system I/O error (the detail names the file).
pub const SLOG2_ERR_IO: c_int = 6;
/// The file is not a valid SLOG-2 2.0.6 file (the detail gives the byte offset).
pub const SLOG2_ERR_FORMAT: c_int = 7;
/// A drawable ends before the previous one (drawables must come in non-decreasing end time).
pub const SLOG2_ERR_ORDER: c_int = 8;
/// No more items (categories, drawables).
pub const SLOG2_ERR_EOF: c_int = 9;
/// The call is not allowed in the handle's current state (e.g. tree-node calls unbalanced).
pub const SLOG2_ERR_STATE: c_int = 10;
/// Closing a file with no drawable: nothing is written.
pub const SLOG2_ERR_NO_DRAWABLES: c_int = 11;
/// Internal error caught at the C boundary.
pub const SLOG2_ERR_PANIC: c_int = 12;
/// A trace record could not be parsed (the detail gives file:line:column).
pub const SLOG2_ERR_PARSE: c_int = 13;
/// A drawable breaks a rule of the format (box, vertices, category, info payload).
pub const SLOG2_ERR_INVALID_DRAWABLE: c_int = 14;
/// The request is valid but not supported by this implementation.
pub const SLOG2_ERR_UNSUPPORTED: c_int = 15;
/// A trace source (e.g. an external TRACE-API library) reported an error.
pub const SLOG2_ERR_SOURCE: c_int = 16;

/// The SLOG2 API's codes.
pub(crate) struct Slog2Api;

impl Api for Slog2Api {
    const NULL_ARG: c_int = SLOG2_ERR_NULL_ARG;
    const BAD_HANDLE: c_int = SLOG2_ERR_BAD_HANDLE;
    const BAD_ARG: c_int = SLOG2_ERR_BAD_ARG;
    const TOO_SMALL: c_int = SLOG2_ERR_ARRAY_TOO_SMALL;
    const PANIC: c_int = SLOG2_ERR_PANIC;

    fn code_of(kind: ErrorKind) -> c_int {
        match kind {
            ErrorKind::Io => SLOG2_ERR_IO,
            ErrorKind::Format => SLOG2_ERR_FORMAT,
            ErrorKind::Order => SLOG2_ERR_ORDER,
            ErrorKind::InvalidDrawable => SLOG2_ERR_INVALID_DRAWABLE,
            ErrorKind::Parse => SLOG2_ERR_PARSE,
            ErrorKind::InvalidArgument => SLOG2_ERR_BAD_ARG,
            ErrorKind::Source => SLOG2_ERR_SOURCE,
            ErrorKind::NoDrawables => SLOG2_ERR_NO_DRAWABLES,
            ErrorKind::Unsupported => SLOG2_ERR_UNSUPPORTED,
            ErrorKind::Closed => SLOG2_ERR_BAD_HANDLE,
            ErrorKind::State => SLOG2_ERR_STATE,
        }
    }
}

/// Static text for an SLOG2 return code (never NULL).
#[no_mangle]
pub extern "C" fn SLOG2_Get_err_string(ierr: c_int) -> *const c_char {
    let s: &CStr = match ierr {
        SLOG2_OK => c"success",
        SLOG2_ERR_NULL_ARG => c"a required pointer argument is NULL",
        SLOG2_ERR_BAD_HANDLE => c"unknown, closed or NULL SLOG2_File handle",
        SLOG2_ERR_WRONG_MODE => c"the call needs a file open in the other mode",
        SLOG2_ERR_ARRAY_TOO_SMALL => c"an output array is too small; nothing was written",
        SLOG2_ERR_BAD_ARG => c"an argument is out of range",
        SLOG2_ERR_IO => c"I/O error",
        SLOG2_ERR_FORMAT => c"not a valid SLOG-2 2.0.6 file",
        SLOG2_ERR_ORDER => c"drawables must come in non-decreasing end time",
        SLOG2_ERR_EOF => c"no more items",
        SLOG2_ERR_STATE => c"call not allowed in the current state",
        SLOG2_ERR_NO_DRAWABLES => c"no drawable was written; no file created",
        SLOG2_ERR_PANIC => c"internal error (caught at the C boundary)",
        SLOG2_ERR_PARSE => c"a trace record could not be parsed",
        SLOG2_ERR_INVALID_DRAWABLE => c"a drawable breaks a rule of the format",
        SLOG2_ERR_UNSUPPORTED => c"not supported by this implementation",
        SLOG2_ERR_SOURCE => c"the trace source reported an error",
        _ if ierr < 0 => c"buffer too small: the negative value is the needed length",
        _ => c"unknown error code",
    };
    s.as_ptr()
}

/// Detail of the last error on the calling thread (file, record, byte
/// offset...); "" when none. Valid until the next failing call on this thread.
#[no_mangle]
pub extern "C" fn SLOG2_Get_last_error() -> *const c_char {
    last_error_ptr()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::every_variant;

    /// Every error kind has its own code, with a static text; every
    /// variant of `Error` gets the code of its kind.
    #[test]
    fn error_codes_are_distinct_and_named() {
        let codes: Vec<c_int> = ErrorKind::ALL
            .iter()
            .map(|&k| Slog2Api::code_of(k))
            .collect();
        let mut uniq = codes.clone();
        uniq.sort();
        uniq.dedup();
        assert_eq!(uniq.len(), ErrorKind::ALL.len(), "{codes:?}");
        for c in codes.iter().chain([
            &SLOG2_ERR_NULL_ARG,
            &SLOG2_ERR_WRONG_MODE,
            &SLOG2_ERR_ARRAY_TOO_SMALL,
            &SLOG2_ERR_EOF,
            &SLOG2_ERR_PANIC,
        ]) {
            assert!(*c > 0);
            // SAFETY: static NUL-terminated text.
            let s = unsafe { CStr::from_ptr(SLOG2_Get_err_string(*c)) };
            assert_ne!(s.to_str().unwrap(), "unknown error code", "{c}");
        }
        // The codes of the boundary's own failures are none of the kinds'.
        for c in [
            SLOG2_ERR_NULL_ARG,
            SLOG2_ERR_WRONG_MODE,
            SLOG2_ERR_ARRAY_TOO_SMALL,
            SLOG2_ERR_EOF,
            SLOG2_ERR_PANIC,
        ] {
            assert!(!codes.contains(&c), "{c}");
        }
        let mut kinds = std::collections::HashSet::new();
        for e in every_variant() {
            assert_eq!(Slog2Api::code(&e), Slog2Api::code_of(e.kind()), "{e}");
            kinds.insert(e.kind());
        }
        assert_eq!(kinds.len(), ErrorKind::ALL.len(), "a sample of every kind");
    }
}
