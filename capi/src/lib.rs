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
//! * Handles are keys into a `slog2_handles::Registry` of live objects (the
//!   registry the JNI binding uses too), drawn from one counter for both
//!   APIs, so a closed, made-up or other-API handle is an error, never a
//!   crash. The registry lock is held only to look a handle up; each object
//!   then has its own lock (or none: a reader's queries run concurrently on
//!   one handle). A call that panics retires its handle: later calls get
//!   the bad-handle code, never a half-updated object.
//! * Four-argument arrays `(n_out, base, pos, max)` are checked *before*
//!   anything is written; on failure nothing is written and `pos`/`n_out`
//!   are unchanged. Arrays, columns and positions are written only through
//!   the raw pointers `slots`/`column` checked (`Slots::fill`), never through
//!   Rust references: a position is read once and written once, so ints a
//!   caller passes twice cannot make two `&mut` to one int (the last write
//!   wins; where that cannot be meant, the function refuses it, e.g.
//!   `SLOG2_Get_next_category`). Scalar outputs (`out`) are references and
//!   must be distinct objects.
//! * `Api` gives each API its codes: the mapping from `Error` is
//!   exhaustive (no catch-all), so a new error kind cannot silently become
//!   "bad argument".

pub mod compress;
pub mod counts;
pub mod overview;
pub mod scan_range;
pub mod slog2;
pub mod stats;
pub mod trace;

use std::borrow::Cow;
use std::cell::RefCell;
use std::ffi::{c_char, c_int, CStr, CString};
use std::marker::PhantomData;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, MutexGuard};

use slog2_handles::{Missing, Registry};

use ::slog2::error::{Error, ErrorKind};

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
    /// A NULL, unknown, closed or retired handle.
    const BAD_HANDLE: c_int;
    const BAD_ARG: c_int;
    const TOO_SMALL: c_int;
    const PANIC: c_int;
    /// The code of each kind of library error (exhaustive over
    /// [`ErrorKind`]: a new kind does not compile until it has a code).
    fn code_of(kind: ErrorKind) -> c_int;

    /// The code of a library error: the code of its kind.
    fn code(e: &Error) -> c_int {
        Self::code_of(e.kind())
    }
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

/// Exactly the room for `n` elements of a caller's array, checked;
/// [`Slots::fill`] writes them and, for a four-argument array, advances its
/// position.
///
/// Nothing here is a Rust reference to caller memory: the destination and
/// the position are raw pointers, the position was read once (copied) and
/// is written back once. So a C caller that passes one position for two
/// arrays (or overlapping arrays) gets the writes one after the other, the
/// last winning, never two live `&mut` to the same memory.
pub(crate) struct Slots<'a, T> {
    /// The first slot; NULL for a skipped optional column (nothing written).
    dst: *mut T,
    n: usize,
    /// The array's position and the value read from it.
    pos: Option<(*mut c_int, c_int)>,
    _caller: PhantomData<&'a mut T>,
}

/// Check that `n` more elements fit at `*pos` of a four-argument array of
/// capacity `max`, and return `*pos` (read once). NULL `pos` is
/// `A::NULL_ARG`, negative `pos`/`max` `A::BAD_ARG`, `pos + n > max`
/// `A::TOO_SMALL`. Writes nothing.
///
/// # Safety
/// `pos` is NULL or valid for reads of a `c_int`.
pub(crate) unsafe fn room<A: Api>(
    pos: *const c_int,
    max: c_int,
    n: usize,
    name: &str,
) -> Res<usize> {
    if pos.is_null() {
        return Err(fail(A::NULL_ARG, format!("NULL argument: {name} position")));
    }
    // SAFETY: non-NULL; valid for reads (the caller's promise). A copy: no
    // reference to the caller's int outlives this line.
    let p = unsafe { pos.read() };
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
/// or valid for writes of `max` elements; both for `'a`.
pub(crate) unsafe fn slots<'a, A: Api, T>(
    base: *mut T,
    pos: *mut c_int,
    max: c_int,
    n: usize,
    name: &str,
) -> Res<Slots<'a, T>> {
    // SAFETY: the caller's promise on `pos`.
    let p = unsafe { room::<A>(pos, max, n, name) }?;
    if n > 0 && base.is_null() {
        return Err(fail(A::NULL_ARG, format!("NULL argument: {name} array")));
    }
    // SAFETY: `base` holds `max` >= p + n elements (checked by `room`).
    let mut s = unsafe { column::<A, T>(base, p, n, max, name) }?;
    s.pos = Some((pos, p as c_int));
    Ok(s)
}

/// The `n` slots at `at` of an optional output column of capacity `max`
/// (a NULL `col` is skipped: its [`Slots::fill`] writes nothing); `at + n >
/// max` is `A::TOO_SMALL`. The columns of a query share one position, which
/// the caller advances once (see `query.rs`).
///
/// # Safety
/// `col` is NULL or valid for writes of `max` elements for `'a`.
pub(crate) unsafe fn column<'a, A: Api, T>(
    col: *mut T,
    at: usize,
    n: usize,
    max: c_int,
    name: &str,
) -> Res<Slots<'a, T>> {
    let fits = at
        .checked_add(n)
        .is_some_and(|end| end <= usize::try_from(max).unwrap_or(0));
    if !fits && n > 0 {
        return Err(fail(
            A::TOO_SMALL,
            format!("{name}: array too small (pos {at} + {n} > max {max})"),
        ));
    }
    let dst = if col.is_null() || n == 0 {
        std::ptr::null_mut()
    } else {
        // SAFETY: `at + n <= max` (checked above) and the column holds
        // `max` elements (the caller's promise), so the offset stays inside.
        unsafe { col.add(at) }
    };
    Ok(Slots {
        dst,
        n,
        pos: None,
        _caller: PhantomData,
    })
}

impl<'a, T> Slots<'a, T> {
    /// The array's position as read (0 for a column without one).
    pub fn start(&self) -> c_int {
        self.pos.map_or(0, |(_, p)| p)
    }

    /// Copy `src` (exactly as many elements as checked) in one block move,
    /// and advance the position: the fast path of [`fill`](Self::fill) for
    /// columns the library already holds in the caller's type.
    pub fn copy_from(self, src: &[T])
    where
        T: Copy,
    {
        debug_assert_eq!(src.len(), self.n);
        let n = src.len().min(self.n);
        if !self.dst.is_null() {
            // SAFETY: `dst` is valid for `self.n` >= n writes (checked when
            // made) and `src` for n reads; `ptr::copy` allows overlap (a
            // caller cannot make library memory an output, but it costs
            // nothing to not rely on it).
            unsafe { std::ptr::copy(src.as_ptr(), self.dst, n) };
        }
        if let Some((pos, p)) = self.pos {
            // SAFETY: checked non-NULL and valid for writes by `slots`.
            unsafe { pos.write(p + n as c_int) };
        }
    }

    /// Write the elements (at most as many as checked) and advance the
    /// position by the number written.
    pub fn fill(self, src: impl IntoIterator<Item = T>) {
        let mut k = 0;
        if !self.dst.is_null() {
            // SAFETY: `dst` is valid for `n` writes (checked when made). The
            // slice lives only for this loop and no other reference to
            // caller memory exists meanwhile (positions are raw pointers),
            // so even arrays a caller made overlap are written in turn.
            let dst = unsafe { std::slice::from_raw_parts_mut(self.dst, self.n) };
            for (d, s) in dst.iter_mut().zip(src) {
                *d = s;
                k += 1;
            }
            debug_assert_eq!(k, self.n);
        } else {
            k = self.n;
        }
        if let Some((pos, p)) = self.pos {
            // SAFETY: checked non-NULL and valid for writes by `slots`.
            unsafe { pos.write(p + k as c_int) };
        }
    }
}

/// Set a four-argument array's position `pos` (checked by [`room`]) to `to`.
///
/// # Safety
/// `pos` is valid for writes of a `c_int`.
pub(crate) unsafe fn set_pos(pos: *mut c_int, to: usize) {
    // SAFETY: the caller's promise; `to` <= the array's max, a c_int.
    unsafe { pos.write(to as c_int) };
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
// Handles (keys into `slog2_handles::Registry`s, see that crate)

/// The object behind handle `key` of `reg`; `what` names the handle type
/// in the detail ("SLOG2_File"). NULL, unknown, closed and retired
/// handles fail with `A::BAD_HANDLE`.
pub(crate) fn lookup<A: Api, T>(reg: &Registry<T>, key: usize, what: &str) -> Res<Arc<T>> {
    if key == 0 {
        return Err(fail(A::BAD_HANDLE, format!("NULL {what} handle")));
    }
    reg.lookup(key as u64).map_err(|why| match why {
        Missing::Unknown => fail(A::BAD_HANDLE, format!("unknown or closed {what} handle")),
        Missing::Retired => fail(
            A::BAD_HANDLE,
            format!(
                "the {what} handle was retired: an earlier call on it met an internal error \
                 (a panic, reported then), so its state is unknown"
            ),
        ),
    })
}

/// Run `f` on the object of handle `key` ([`lookup`]); if `f` panics, the
/// handle is retired before the panic reaches [`entry`].
pub(crate) fn call_on<A: Api, T, R>(
    reg: &Registry<T>,
    key: usize,
    what: &str,
    f: impl FnOnce(&T) -> Res<R>,
) -> Res<R> {
    let obj = lookup::<A, T>(reg, key, what)?;
    reg.retire_on_panic(key as u64, || f(&obj))
}

/// Close the handle at `*p` of `reg` (`arg` names the pointer argument):
/// unregister it, set `*p` to NULL and return its object. A NULL `p` is
/// `A::NULL_ARG`; a NULL, unknown, closed or retired handle `A::BAD_HANDLE`.
///
/// # Safety
/// `p` is NULL or valid for reads and writes of one handle.
pub(crate) unsafe fn close_handle<A: Api, T, H>(
    reg: &Registry<T>,
    p: *mut *mut H,
    arg: &str,
    what: &str,
) -> Res<Arc<T>> {
    // SAFETY: the caller's promise on `p`.
    let slot = unsafe { out::<A, _>(p, arg) }?;
    let key = *slot as usize;
    lookup::<A, T>(reg, key, what)?;
    // Another thread may have closed it since: then this close fails.
    let obj = reg
        .remove(key as u64)
        .ok_or_else(|| fail(A::BAD_HANDLE, format!("unknown or closed {what} handle")))?;
    *slot = std::ptr::null_mut();
    Ok(obj)
}

/// Lock a handle's mutex; a poisoned lock (a panic caught earlier on this
/// handle) is still usable: every state change is completed or not started.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Test helpers of this crate's unit tests.
#[cfg(test)]
pub(crate) mod test_util {
    use ::slog2::error::{Error, TextLocation};

    /// One error of every variant of [`Error`] (a new variant does not
    /// compile until it has a sample here: see the match below).
    pub fn every_variant() -> Vec<Error> {
        let v = vec![
            Error::io("x", std::io::Error::other("e")),
            Error::BadVersion { found: "x".into() },
            Error::Truncated {
                what: "w",
                offset: 1,
                need: 2,
                have: 1,
            },
            Error::BlockOutOfRange {
                what: "w",
                offset: 1,
                size: 2,
                file_len: 1,
            },
            Error::Malformed {
                what: "w",
                offset: 1,
                detail: "d".into(),
            },
            Error::OrderViolation {
                index: 1,
                end: 0.0,
                prev_end: 1.0,
                location: String::new(),
            },
            Error::InvalidDrawable {
                index: 1,
                detail: "d".into(),
                location: String::new(),
            },
            Error::Parse {
                loc: TextLocation {
                    file: "f".into(),
                    line: 1,
                    column: 1,
                },
                detail: "d".into(),
            },
            Error::InvalidArgument("a".into()),
            Error::Source("s".into()),
            Error::NoDrawables,
            Error::Unsupported("u".into()),
            Error::Closed { what: "w".into() },
            Error::State("s".into()),
            Error::NeedsConversion {
                source: Box::new(Error::NoDrawables),
                path: "p".into(),
                what: "w",
                out: "o".into(),
            },
            Error::FileChanged { path: "p".into() },
        ];
        for e in &v {
            match e {
                Error::Io { .. }
                | Error::BadVersion { .. }
                | Error::Truncated { .. }
                | Error::BlockOutOfRange { .. }
                | Error::Malformed { .. }
                | Error::OrderViolation { .. }
                | Error::InvalidDrawable { .. }
                | Error::Parse { .. }
                | Error::InvalidArgument(_)
                | Error::Source(_)
                | Error::NoDrawables
                | Error::Unsupported(_)
                | Error::Closed { .. }
                | Error::State(_)
                | Error::NeedsConversion { .. }
                | Error::FileChanged { .. } => {}
            }
        }
        v
    }
}
