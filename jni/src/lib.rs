//! JNI binding of slog2 (`libslog2jni.so`).
//!
//! Two sets of natives live in this one library:
//!
//! * [`inputlog`]: the eight `Java_logformat_trace_InputLog_*` natives of the
//!   slog2sdk TRACE bridge. Installed (or symlinked) as `libTraceInput.so`,
//!   the **unmodified** `traceTOslog2.jar` / `traceprint.jar` (and Jumpshot's
//!   log-convertor dialog, which spawns `traceTOslog2.jar`) read every TRACE
//!   source slog2 has through it, or an external C TRACE-API library named by
//!   `-Dslog2.trace.lib=` / `SLOG2_TRACE_LIB`.
//! * [`api`]: the `Java_slog2_api_Native_*` natives behind the `slog2.api`
//!   viewer classes (`java/api`).
//! * [`overview`]: the `Java_slog2_api_Overview_*` natives of
//!   `slog2.api.Overview` (Ocelotl's overview, `slog2::analysis`).
//!
//! This crate only translates: it owns no format rule. Everything it hands
//! to Java comes from `slog2::trace` (sources) or `slog2::read` (queries and
//! rows). It is a separate workspace member so that `libslog2.so` and its C
//! users never compile or link the `jni` crate.
//!
//! Boundary rules, for both sets:
//! * handles stored in Java (`long`) are keys into a `Registry`, never
//!   pointers; every call validates its key;
//! * every native body runs under `guard`: a Rust error becomes a Java
//!   exception carrying the library's message, a panic becomes a
//!   `java.lang.Error`; nothing unwinds into the JVM;
//! * class, method and field IDs are looked up once and cached;
//! * natives that create many objects run inside JNI local frames, so local
//!   references never pile up (composites free theirs member by member).

use std::any::Any;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use jni::JNIEnv;

pub mod api;
pub mod inputlog;
pub mod overview;

/// Why a native failed.
pub(crate) enum Fail {
    /// A library error (or a usage error), thrown as the native's exception
    /// class with this message.
    Lib(String),
    /// A JNI call failed; usually a Java exception is already pending
    /// (e.g. a constructor threw), which then propagates unchanged.
    Jni(jni::errors::Error),
}

impl From<jni::errors::Error> for Fail {
    fn from(e: jni::errors::Error) -> Self {
        Fail::Jni(e)
    }
}

impl From<slog2::Error> for Fail {
    fn from(e: slog2::Error) -> Self {
        Fail::Lib(e.to_string())
    }
}

pub(crate) type JResult<T> = std::result::Result<T, Fail>;

/// A class kept alive as a global reference, with the constructor of `sig`
/// (looked up once, when the natives first run).
pub(crate) fn class_ctor(
    env: &mut JNIEnv,
    name: &str,
    sig: &str,
) -> JResult<(jni::objects::GlobalRef, jni::objects::JMethodID)> {
    let c = env.find_class(name)?;
    let m = env.get_method_id(&c, "<init>", sig)?;
    let g = env.new_global_ref(&c)?;
    env.delete_local_ref(c)?;
    Ok((g, m))
}

fn panic_text(p: &(dyn Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

/// Throw `class` with `msg` unless an exception is already pending (the
/// first one is the real cause and must not be replaced).
fn throw(env: &mut JNIEnv, class: &str, msg: &str) {
    if env.exception_check().unwrap_or(true) {
        return;
    }
    if env.throw_new(class, msg).is_err() && !env.exception_check().unwrap_or(true) {
        // Could not even find the class: fall back to the JDK's own.
        let _ = env.throw_new("java/lang/RuntimeException", msg);
    }
}

/// Run a native body: library errors are thrown as `exc_class`, JNI errors
/// leave their pending exception (or throw one describing them), panics are
/// caught and thrown as `java.lang.Error`. Returns `T::default()` (null, 0,
/// false) whenever an exception is pending, as JNI requires.
pub(crate) fn guard<'l, T: Default>(
    env: &mut JNIEnv<'l>,
    exc_class: &str,
    f: impl FnOnce(&mut JNIEnv<'l>) -> JResult<T>,
) -> T {
    match catch_unwind(AssertUnwindSafe(|| f(env))) {
        Ok(Ok(v)) => v,
        Ok(Err(Fail::Lib(msg))) => {
            throw(env, exc_class, &msg);
            T::default()
        }
        Ok(Err(Fail::Jni(e))) => {
            throw(
                env,
                "java/lang/RuntimeException",
                &format!("slog2 JNI: {e}"),
            );
            T::default()
        }
        Err(p) => {
            let msg = format!("slog2 native panic (a bug): {}", panic_text(&*p));
            throw(env, "java/lang/Error", &msg);
            T::default()
        }
    }
}

/// Live native objects behind Java `long` handles. Keys are non-zero, never
/// reused within a process (a stale handle cannot reach a newer object) and
/// never addresses. Values are shared (`Arc`): a call holds its object while
/// it runs, so `close` on another thread cannot free it under the call.
pub(crate) struct Registry<T> {
    map: Mutex<HashMap<i64, Arc<T>>>,
}

/// One key space for every registry: a drop-in handle is never a valid
/// viewer handle and vice versa.
static NEXT_KEY: AtomicI64 = AtomicI64::new(1);

impl<T> Registry<T> {
    pub(crate) fn new() -> Self {
        Registry {
            map: Mutex::new(HashMap::new()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<i64, Arc<T>>> {
        // A panic while holding the lock cannot leave the map inconsistent
        // (single insert/remove/get), so a poisoned lock is still usable.
        self.map.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn insert(&self, v: T) -> i64 {
        let key = NEXT_KEY.fetch_add(1, Ordering::Relaxed);
        self.lock().insert(key, Arc::new(v));
        key
    }

    pub(crate) fn get(&self, key: i64) -> Option<Arc<T>> {
        self.lock().get(&key).cloned()
    }

    pub(crate) fn remove(&self, key: i64) -> Option<Arc<T>> {
        self.lock().remove(&key)
    }
}
