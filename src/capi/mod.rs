//! The C ABI: slog2sdk's TRACE-API (`include/trace_API.h`) and our SLOG2 API
//! (`include/slog2.h`), both generated from this module by cbindgen.
//!
//! This layer only translates: it checks pointers and sizes, maps handles to
//! Rust objects, calls the core, and turns `Error`s into integer codes plus a
//! per-thread detail string. Done the way rustls-ffi and SQLite do it:
//! - every `extern "C"` function runs inside `guard`, which catches panics
//!   (a panic is reported as a code, never unwinds into C);
//! - handles are keys into a registry of live objects (never reused), so a
//!   closed or made-up handle is an error, not a crash;
//! - four-argument arrays `(n_out, base, pos, max)` are checked *before*
//!   anything is written; on failure nothing is written and `pos`/`n_out`
//!   are unchanged.
//!
//! # Safety
//!
//! One contract for every `unsafe extern "C"` function here (and in the
//! generated headers): each pointer argument is NULL (checked, reported as a
//! code) or valid for the reads/writes its documentation states (arrays for
//! their stated capacity, C strings NUL-terminated), and handles come from
//! this library. Hence no per-function `# Safety` section.

// The contract is stated once above, for all C entry points (see # Safety).
#[allow(clippy::missing_safety_doc)]
pub mod slog2;
// The contract is stated once above, for all C entry points (see # Safety).
#[allow(clippy::missing_safety_doc)]
pub mod trace;

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{c_char, c_int, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// Remember the detail of the last error on this thread.
pub(crate) fn set_last_error(msg: impl Into<String>) {
    let s = msg.into().replace('\0', " ");
    LAST_ERROR.with(|e| *e.borrow_mut() = CString::new(s).unwrap_or_default());
}

pub(crate) fn last_error_ptr() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// Run `f`, turning a panic into `panic_code` (and a last-error detail).
pub(crate) fn guard(panic_code: c_int, f: impl FnOnce() -> c_int) -> c_int {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(c) => c,
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            set_last_error(format!(
                "internal error (panic caught at the C boundary): {msg}"
            ));
            panic_code
        }
    }
}

/// A registry of live objects keyed by never-reused non-zero IDs.
pub(crate) struct Registry<T> {
    next: AtomicUsize,
    map: Mutex<Option<HashMap<usize, T>>>,
}

impl<T> Registry<T> {
    pub const fn new() -> Self {
        Registry {
            next: AtomicUsize::new(1),
            map: Mutex::new(None),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<HashMap<usize, T>>> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn insert(&self, v: T) -> usize {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.lock().get_or_insert_with(HashMap::new).insert(id, v);
        id
    }

    pub fn remove(&self, id: usize) -> Option<T> {
        self.lock().as_mut().and_then(|m| m.remove(&id))
    }

    /// Run `f` on the object `id` (under the registry lock: calls on all
    /// handles of one registry serialise).
    pub fn with<R>(&self, id: usize, f: impl FnOnce(&mut T) -> R) -> Option<R> {
        let mut g = self.lock();
        g.as_mut().and_then(|m| m.get_mut(&id)).map(f)
    }
}

/// Result of checking one four-argument array.
pub(crate) enum Room {
    Ok,
    NullArg,
    BadArg,
    TooSmall,
}

/// Check that `n` elements fit at `*pos` of an array of capacity `max`.
pub(crate) unsafe fn room(pos: *const c_int, max: c_int, n: usize, base_null: bool) -> Room {
    if pos.is_null() {
        return Room::NullArg;
    }
    let p = *pos;
    if p < 0 || max < 0 {
        return Room::BadArg;
    }
    if n == 0 {
        return Room::Ok;
    }
    if base_null {
        return Room::NullArg;
    }
    if (p as i64) + (n as i64) > max as i64 {
        return Room::TooSmall;
    }
    Room::Ok
}

/// Copy `src` to `base[*pos..]`, advance `*pos`, set `*n_out` (all checked before).
pub(crate) unsafe fn put<T: Copy>(n_out: *mut c_int, base: *mut T, pos: *mut c_int, src: &[T]) {
    if !src.is_empty() {
        std::ptr::copy_nonoverlapping(src.as_ptr(), base.add(*pos as usize), src.len());
        *pos += src.len() as c_int;
    }
    if !n_out.is_null() {
        *n_out = src.len() as c_int;
    }
}

/// Copy a Rust string into a C buffer of `max` bytes with a NUL.
pub(crate) unsafe fn put_cstr(dst: *mut c_char, max: usize, s: &str) -> bool {
    if dst.is_null() || s.len() + 1 > max {
        return false;
    }
    std::ptr::copy_nonoverlapping(s.as_ptr() as *const c_char, dst, s.len());
    *dst.add(s.len()) = 0;
    true
}
