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
//! * handles stored in Java (`long`) are keys into a `slog2_handles`
//!   registry (the one the C ABI uses), never pointers; every call
//!   validates its key, and a call that panics retires its handle
//!   (`call_on`): later calls throw `ClosedException` ("retired") instead
//!   of working on a half-updated object;
//! * every native body runs under `guard`: a Rust error becomes a Java
//!   exception carrying the library's message — for the viewer natives the
//!   `slog2.api` subclass of `Slog2Exception` of its `ErrorKind`
//!   (`exception_class`, exhaustive), for the drop-in a
//!   `RuntimeException` as the reference threw — and a panic becomes a
//!   `java.lang.Error`; nothing unwinds into the JVM;
//! * class, method and field IDs are looked up once and cached;
//! * natives that create many objects run inside JNI local frames, so local
//!   references never pile up (composites free theirs member by member).

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use jni::JNIEnv;
use slog2::ErrorKind;
use slog2_handles::Missing;

pub mod api;
pub mod counts;
pub mod inputlog;
pub mod moving;
pub mod overview;
pub mod stats;

/// Why a native failed.
pub(crate) enum Fail {
    /// A library error (or a usage error of that kind), thrown as the
    /// kind's exception class with this message.
    Lib { kind: ErrorKind, msg: String },
    /// A JNI call failed; usually a Java exception is already pending
    /// (e.g. a constructor threw), which then propagates unchanged.
    Jni(jni::errors::Error),
}

impl Fail {
    /// A failure of `kind` with `msg`.
    pub(crate) fn new(kind: ErrorKind, msg: impl Into<String>) -> Fail {
        Fail::Lib {
            kind,
            msg: msg.into(),
        }
    }
}

impl From<jni::errors::Error> for Fail {
    fn from(e: jni::errors::Error) -> Self {
        Fail::Jni(e)
    }
}

impl From<slog2::Error> for Fail {
    fn from(e: slog2::Error) -> Self {
        Fail::new(e.kind(), e.to_string())
    }
}

/// The `slog2.api` exception class of each error kind (exhaustive: a new
/// kind does not compile until it has a class here and in `java/api`).
pub(crate) fn exception_class(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Closed => "slog2/api/ClosedException",
        ErrorKind::Format => "slog2/api/FormatException",
        ErrorKind::Io => "slog2/api/Slog2IOException",
        ErrorKind::InvalidArgument => "slog2/api/InvalidArgumentException",
        ErrorKind::Order => "slog2/api/OrderException",
        ErrorKind::Parse => "slog2/api/ParseException",
        ErrorKind::InvalidDrawable => "slog2/api/InvalidDrawableException",
        ErrorKind::Source => "slog2/api/SourceException",
        ErrorKind::Unsupported => "slog2/api/UnsupportedException",
        ErrorKind::State => "slog2/api/StateException",
        ErrorKind::NoDrawables => "slog2/api/NoDrawablesException",
    }
}

/// Exception classes for the drop-in `InputLog` natives: the slog2sdk jars
/// that load them do not have `slog2.api` on their class path, and the
/// reference bridge threw plain runtime exceptions.
pub(crate) fn runtime_exception(_: ErrorKind) -> &'static str {
    "java/lang/RuntimeException"
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

/// Run a native body: library errors are thrown as `class_of(kind)`, JNI errors
/// leave their pending exception (or throw one describing them), panics are
/// caught and thrown as `java.lang.Error`. Returns `T::default()` (null, 0,
/// false) whenever an exception is pending, as JNI requires.
pub(crate) fn guard<'l, T: Default>(
    env: &mut JNIEnv<'l>,
    class_of: fn(ErrorKind) -> &'static str,
    f: impl FnOnce(&mut JNIEnv<'l>) -> JResult<T>,
) -> T {
    match catch_unwind(AssertUnwindSafe(|| f(env))) {
        Ok(Ok(v)) => v,
        Ok(Err(Fail::Lib { kind, msg })) => {
            throw(env, class_of(kind), &msg);
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

/// Live native objects behind Java `long` handles: the registry the C ABI
/// uses too (`slog2_handles`). Keys are non-zero, never reused within a
/// process and never addresses; values are shared (`Arc`), so a `close` on
/// another thread cannot free an object under a running call. A Java `long`
/// is the key's bits (a negative or made-up value is simply not found).
pub(crate) type Registry<T> = slog2_handles::Registry<T>;

/// A Java `long` handle as a registry key.
pub(crate) fn key(h: i64) -> u64 {
    h as u64
}

/// The object behind Java handle `h` of `reg`. An unknown or closed handle,
/// and one retired after a panic, fail as [`ErrorKind::Closed`]; `closed`
/// makes the message of the first (each set of natives words it for its
/// users; made only on failure).
pub(crate) fn lookup<T>(
    reg: &Registry<T>,
    h: i64,
    what: &str,
    closed: impl FnOnce() -> String,
) -> JResult<Arc<T>> {
    reg.lookup(key(h)).map_err(|why| match why {
        Missing::Unknown => Fail::new(ErrorKind::Closed, closed()),
        Missing::Retired => Fail::new(
            ErrorKind::Closed,
            format!(
                "{what} handle {h} was retired: an earlier call on it met an internal error \
                 (a panic, reported then), so its state is unknown"
            ),
        ),
    })
}

/// Run `f` on the object of handle `h` ([`lookup`]); if `f` panics, the
/// handle is retired before the panic reaches [`guard`] (which throws it as
/// a `java.lang.Error`), so no later call works on a half-updated object —
/// the rule the C ABI follows (`slog2_handles::Registry::retire_on_panic`).
pub(crate) fn call_on<T, R>(
    reg: &Registry<T>,
    h: i64,
    what: &str,
    closed: impl FnOnce() -> String,
    f: impl FnOnce(&T) -> JResult<R>,
) -> JResult<R> {
    let obj = lookup(reg, h, what, closed)?;
    reg.retire_on_panic(key(h), || f(&obj))
}

/// A registry key as a Java `long` handle.
pub(crate) fn handle(key: u64) -> i64 {
    key as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A call that panics retires its handle: the panic goes on to `guard`,
    /// later calls fail as `Closed` saying "retired", a closed handle still
    /// says "closed", other handles are untouched.
    #[test]
    fn call_on_retires_a_handle_whose_call_panicked() {
        let reg: Registry<std::sync::Mutex<i32>> = Registry::new();
        let (a, b) = (handle(reg.insert(0.into())), handle(reg.insert(0.into())));
        let closed = || "closed".to_string();
        let caught = catch_unwind(AssertUnwindSafe(|| {
            call_on(&reg, a, "test", closed, |m| -> JResult<()> {
                *m.lock().unwrap() = 1;
                panic!("half done")
            })
        }));
        assert!(caught.is_err(), "the panic continues to guard");
        let msg = |r: JResult<i32>| match r {
            Err(Fail::Lib { kind, msg }) => (kind, msg),
            _ => panic!("expected a library failure"),
        };
        let (kind, m) = msg(call_on(&reg, a, "test", closed, |_| Ok(7)));
        assert_eq!(kind, ErrorKind::Closed);
        assert!(m.contains(&format!("test handle {a} was retired")), "{m}");
        assert!(matches!(call_on(&reg, b, "test", closed, |_| Ok(7)), Ok(7)));
        reg.remove(key(b));
        let (kind, m) = msg(call_on(&reg, b, "test", closed, |_| Ok(7)));
        assert_eq!((kind, m.as_str()), (ErrorKind::Closed, "closed"));
    }

    /// Every error kind has its own `slog2.api` class, and each class is in
    /// the Java sources as a subclass of `Slog2Exception`.
    #[test]
    fn every_kind_has_its_own_exception_class() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../java/api/src/main/java");
        let mut seen = std::collections::HashSet::new();
        for kind in ErrorKind::ALL {
            let class = exception_class(kind);
            assert!(seen.insert(class), "{kind:?}: {class} is used twice");
            let src = std::fs::read_to_string(dir.join(format!("{class}.java")))
                .unwrap_or_else(|e| panic!("{kind:?}: {class}.java: {e}"));
            let name = class.rsplit('/').next().unwrap();
            assert!(
                src.contains(&format!("public class {name} extends Slog2Exception")),
                "{class} must extend Slog2Exception"
            );
        }
        assert_eq!(seen.len(), ErrorKind::ALL.len());
    }
}
