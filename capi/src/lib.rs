//! The C ABI: slog2sdk's TRACE-API (`include/trace_API.h`) and our SLOG2 API
//! (`include/slog2.h`), both generated from this module by cbindgen.
//!
//! This layer only translates: it checks pointers and sizes, maps handles to
//! Rust objects, calls the core, and turns `Error`s into integer codes plus a
//! per-thread detail string. Done the way rustls-ffi and SQLite do it, with
//! one checked place for each kind of step:
//!
//! * `entry` wraps every `extern "C"` body: it catches panics (a panic is
//!   reported as the API's panic code, never unwinds into C) and turns a
//!   `Fail` into its code. Bodies are written with `?`.
//! * Raw pointers become references, slices and strings only through the
//!   `unsafe fn`s below (`out`, `slice_in`, `cstr`, `slots`,
//!   `cbuf`), which check NULL, negative counts and array room first and
//!   whose `# Safety` sections state what the caller promises. No `extern`
//!   body dereferences a pointer itself.
//! * Handles are keys into a `Registry` of live objects, drawn from one
//!   counter for both APIs, so a closed, made-up or other-API handle is an
//!   error, never a crash. The registry lock is held only to look a handle
//!   up; each object then has its own lock (or none: a reader's queries run
//!   concurrently on one handle).
//! * Four-argument arrays `(n_out, base, pos, max)` are checked *before*
//!   anything is written; on failure nothing is written and `pos`/`n_out`
//!   are unchanged.
//! * `Api` gives each API its codes: the mapping from `Error` is
//!   exhaustive (no catch-all), so a new error kind cannot silently become
//!   "bad argument".

pub mod overview;
pub mod slog2;
pub mod trace;

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{c_char, c_int, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use ::slog2::error::Error;

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

/// The codes of one API for the failures every function can meet.
pub(crate) trait Api {
    const NULL_ARG: c_int;
    const BAD_ARG: c_int;
    const TOO_SMALL: c_int;
    const PANIC: c_int;
    /// The code of a library error (exhaustive over [`Error`]).
    fn code(e: &Error) -> c_int;
}

/// A failure whose detail is already recorded as the thread's last error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fail(pub c_int);

pub(crate) type Res<T> = Result<T, Fail>;

/// Record `msg` and fail with `code`.
pub(crate) fn fail(code: c_int, msg: impl Into<String>) -> Fail {
    set_last_error(msg);
    Fail(code)
}

/// Record a library error and fail with its code in API `A`.
pub(crate) fn fail_with<A: Api>(e: Error) -> Fail {
    let code = A::code(&e);
    set_last_error(e.to_string());
    Fail(code)
}

/// Run the body of an `extern "C"` function: `Ok(code)` is returned as is,
/// a [`Fail`] becomes its code, a panic becomes `A::PANIC` with a detail.
pub(crate) fn entry<A: Api>(f: impl FnOnce() -> Res<c_int>) -> c_int {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(c)) => c,
        Ok(Err(Fail(c))) => c,
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            set_last_error(format!(
                "internal error (panic caught at the C boundary): {msg}"
            ));
            A::PANIC
        }
    }
}

/// Convert a size to `c_int`, failing with `A::BAD_ARG` beyond 2^31 - 1.
pub(crate) fn c_len<A: Api>(n: usize, what: &str) -> Res<c_int> {
    c_int::try_from(n).map_err(|_| {
        fail(
            A::BAD_ARG,
            format!("{what}: {n} does not fit a C int; query a smaller range"),
        )
    })
}

// ---------------------------------------------------------------------------
// Pointers to references

/// A required output pointer as a reference.
///
/// # Safety
/// `p` is NULL or valid for reads and writes of one `T` for `'a`, and not
/// aliased by another reference made here during that time.
pub(crate) unsafe fn out<'a, A: Api, T>(p: *mut T, name: &str) -> Res<&'a mut T> {
    // SAFETY: non-NULL checked by `as_mut`; validity is the caller's promise.
    unsafe { p.as_mut() }.ok_or_else(|| fail(A::NULL_ARG, format!("NULL argument: {name}")))
}

/// A required input pointer as a reference.
///
/// # Safety
/// `p` is NULL or valid for reads of one `T` for `'a`.
pub(crate) unsafe fn input<'a, A: Api, T>(p: *const T, name: &str) -> Res<&'a T> {
    // SAFETY: non-NULL checked by `as_ref`; validity is the caller's promise.
    unsafe { p.as_ref() }.ok_or_else(|| fail(A::NULL_ARG, format!("NULL argument: {name}")))
}

/// `n` elements at `p` as a slice: `n < 0` is `A::BAD_ARG`, `n > 0` with a
/// NULL `p` is `A::NULL_ARG`, `n == 0` is empty whatever `p` is.
///
/// # Safety
/// When `n > 0` and `p` is not NULL, `p` points to `n` initialised `T`s that
/// stay valid and unmodified for `'a`.
pub(crate) unsafe fn slice_in<'a, A: Api, T>(p: *const T, n: c_int, name: &str) -> Res<&'a [T]> {
    match usize::try_from(n) {
        Err(_) => Err(fail(A::BAD_ARG, format!("{name}: negative count {n}"))),
        Ok(0) => Ok(&[]),
        Ok(_) if p.is_null() => Err(fail(A::NULL_ARG, format!("NULL argument: {name}"))),
        // SAFETY: non-NULL, count checked; the rest is the caller's promise.
        Ok(n) => Ok(unsafe { std::slice::from_raw_parts(p, n) }),
    }
}

/// [`slice_in`] for `usize` counts computed by the library.
///
/// # Safety
/// As [`slice_in`].
pub(crate) unsafe fn slice_n<'a, A: Api, T>(p: *const T, n: usize, name: &str) -> Res<&'a [T]> {
    let n = c_len::<A>(n, name)?;
    // SAFETY: forwarded.
    unsafe { slice_in::<A, T>(p, n, name) }
}

/// Bytes at `p` (a `char *` of the C API).
///
/// # Safety
/// As [`slice_in`].
pub(crate) unsafe fn bytes_in<'a, A: Api>(p: *const c_char, n: c_int, name: &str) -> Res<&'a [u8]> {
    // SAFETY: c_char and u8 have the same layout; forwarded.
    unsafe { slice_in::<A, u8>(p as *const u8, n, name) }
}

/// A required NUL-terminated string (invalid UTF-8 replaced).
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string valid for `'a`.
pub(crate) unsafe fn cstr<'a, A: Api>(p: *const c_char, name: &str) -> Res<Cow<'a, str>> {
    if p.is_null() {
        return Err(fail(A::NULL_ARG, format!("NULL argument: {name}")));
    }
    // SAFETY: non-NULL; NUL termination is the caller's promise.
    Ok(unsafe { CStr::from_ptr(p) }.to_string_lossy())
}

/// An optional NUL-terminated string: NULL is `None`.
///
/// # Safety
/// As [`cstr`].
pub(crate) unsafe fn opt_cstr<'a, A: Api>(
    p: *const c_char,
    name: &str,
) -> Res<Option<Cow<'a, str>>> {
    if p.is_null() {
        return Ok(None);
    }
    // SAFETY: forwarded.
    unsafe { cstr::<A>(p, name) }.map(Some)
}

/// A NULL-terminated array of strings (at most `limit` entries).
///
/// # Safety
/// `p` is NULL or points to an array of string pointers ending with NULL,
/// each a valid NUL-terminated string, all valid for `'a`.
pub(crate) unsafe fn cstr_list<'a, A: Api>(
    p: *const *const c_char,
    limit: usize,
    name: &str,
) -> Res<Vec<Cow<'a, str>>> {
    let mut v = Vec::new();
    if p.is_null() {
        return Ok(v);
    }
    for i in 0..=limit {
        // SAFETY: the array is NULL-terminated (caller), and we stop at NULL.
        let s = unsafe { *p.add(i) };
        if s.is_null() {
            return Ok(v);
        }
        // SAFETY: each entry is a valid string (caller).
        v.push(unsafe { cstr::<A>(s, name) }?);
    }
    Err(fail(
        A::BAD_ARG,
        format!("{name}: no NULL terminator within {limit} entries"),
    ))
}

/// A caller's character buffer of `max` bytes, for NUL-terminated text.
///
/// # Safety
/// `p` is NULL or valid for writes of `max` bytes for `'a`.
pub(crate) unsafe fn cbuf<'a, A: Api>(p: *mut c_char, max: c_int, name: &str) -> Res<&'a mut [u8]> {
    let Ok(n) = usize::try_from(max) else {
        return Err(fail(A::BAD_ARG, format!("{name}: negative size {max}")));
    };
    if p.is_null() {
        return Err(fail(A::NULL_ARG, format!("NULL argument: {name}")));
    }
    // SAFETY: non-NULL, size checked; the rest is the caller's promise.
    Ok(unsafe { std::slice::from_raw_parts_mut(p as *mut u8, n) })
}

/// Write `s` and a NUL into `buf`; `false` (nothing written) when it does not fit.
pub(crate) fn write_cstr(buf: &mut [u8], s: &str) -> bool {
    if s.len() >= buf.len() {
        return false;
    }
    buf[..s.len()].copy_from_slice(s.as_bytes());
    buf[s.len()] = 0;
    true
}

/// Exactly the room for `n` elements at `*pos` of a four-argument array,
/// checked; [`Slots::fill`] writes them and advances `*pos`.
pub(crate) struct Slots<'a, T> {
    dst: &'a mut [T],
    pos: Option<&'a mut c_int>,
}

/// Check that `n` more elements fit at `*pos` of a four-argument array of
/// capacity `max`, and return `*pos`. NULL `pos` is `A::NULL_ARG`, negative
/// `pos`/`max` `A::BAD_ARG`, `pos + n > max` `A::TOO_SMALL`. Writes nothing.
///
/// # Safety
/// `pos` is NULL or valid for reads of a `c_int`.
pub(crate) unsafe fn room<A: Api>(
    pos: *const c_int,
    max: c_int,
    n: usize,
    name: &str,
) -> Res<usize> {
    // SAFETY: the caller's promise on `pos`.
    let p = *unsafe { input::<A, c_int>(pos, &format!("{name} position")) }?;
    if p < 0 || max < 0 {
        return Err(fail(
            A::BAD_ARG,
            format!("{name}: negative pos ({p}) or max ({max})"),
        ));
    }
    if n > 0 && p as i64 + n as i64 > max as i64 {
        return Err(fail(
            A::TOO_SMALL,
            format!("{name}: array too small (pos {p} + {n} > max {max})"),
        ));
    }
    Ok(p as usize)
}

/// Check a four-argument array `(base, pos, max)` for `n` more elements
/// ([`room`], and a NULL `base` with `n > 0` is `A::NULL_ARG`).
///
/// # Safety
/// `pos` is NULL or valid for reads and writes of a `c_int`; `base` is NULL
/// or valid for writes of `max` elements; both for `'a`, unaliased.
pub(crate) unsafe fn slots<'a, A: Api, T>(
    base: *mut T,
    pos: *mut c_int,
    max: c_int,
    n: usize,
    name: &str,
) -> Res<Slots<'a, T>> {
    // SAFETY: the caller's promise on `pos`.
    let p = unsafe { room::<A>(pos, max, n, name) }?;
    // SAFETY: checked non-NULL by `room`.
    let pos = unsafe { &mut *pos };
    if n == 0 {
        return Ok(Slots {
            dst: &mut [],
            pos: Some(pos),
        });
    }
    if base.is_null() {
        return Err(fail(A::NULL_ARG, format!("NULL argument: {name} array")));
    }
    // SAFETY: base is valid for `max` elements (caller) and p + n <= max.
    let dst = unsafe { std::slice::from_raw_parts_mut(base.add(p), n) };
    Ok(Slots {
        dst,
        pos: Some(pos),
    })
}

impl<'a, T> Slots<'a, T> {
    /// Write the elements (exactly as many as checked) and advance `*pos`.
    pub fn fill(self, src: impl IntoIterator<Item = T>) {
        let mut k = 0;
        for (d, s) in self.dst.iter_mut().zip(src) {
            *d = s;
            k += 1;
        }
        debug_assert_eq!(k, self.dst.len());
        if let Some(pos) = self.pos {
            *pos += k as c_int;
        }
    }
}

/// Store `v` through an optional output pointer (`n_out` of an array).
///
/// # Safety
/// `p` is NULL or valid for writes of one `T`.
pub(crate) unsafe fn set_opt<T>(p: *mut T, v: T) {
    // SAFETY: forwarded.
    if let Some(r) = unsafe { p.as_mut() } {
        *r = v;
    }
}

// ---------------------------------------------------------------------------
// Handles

/// One counter for the handles of both APIs: a TRACE handle is never a valid
/// SLOG2 handle and vice versa, and no key is ever reused.
static NEXT_HANDLE: AtomicUsize = AtomicUsize::new(1);

/// A registry of live objects keyed by never-reused non-zero IDs. The map's
/// lock is held only to find, add or remove an object; callers get an `Arc`
/// and lock the object itself as it needs.
pub(crate) struct Registry<T> {
    map: RwLock<Option<HashMap<usize, Arc<T>>>>,
}

impl<T> Registry<T> {
    pub const fn new() -> Self {
        Registry {
            map: RwLock::new(None),
        }
    }

    pub fn insert(&self, v: T) -> usize {
        let id = NEXT_HANDLE.fetch_add(1, Ordering::Relaxed);
        let mut g = self.map.write().unwrap_or_else(|e| e.into_inner());
        g.get_or_insert_with(HashMap::new).insert(id, Arc::new(v));
        id
    }

    pub fn remove(&self, id: usize) -> Option<Arc<T>> {
        let mut g = self.map.write().unwrap_or_else(|e| e.into_inner());
        g.as_mut().and_then(|m| m.remove(&id))
    }

    pub fn get(&self, id: usize) -> Option<Arc<T>> {
        let g = self.map.read().unwrap_or_else(|e| e.into_inner());
        g.as_ref().and_then(|m| m.get(&id)).cloned()
    }
}

/// Lock a handle's mutex; a poisoned lock (a panic caught earlier on this
/// handle) is still usable: every state change is completed or not started.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
