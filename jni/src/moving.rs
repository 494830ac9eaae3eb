//! Natives of `slog2.api.WindowCursor` and `slog2.api.Scan`: the core's
//! moving window ([`WindowCursor`]) and its whole-file and time-range scans
//! ([`Scan`]) behind registry keys, each answer one `Drawables` built by
//! `api::drawables_of` (the same columns as a
//! window query).
//!
//! Both keep the reader's `Arc<Slog2File>` (the map stays valid) and the key
//! of the reader they came from: once that `Slog2Reader` is closed, their
//! calls throw, as the C API's scans do. A cursor or a scan serialises its
//! own calls (a `Mutex`); different ones run concurrently. A move or a batch
//! that panics retires its cursor or scan (`crate::call_on`): its state is
//! then unknown, and later calls throw `ClosedException` ("retired").

use std::sync::{Arc, Mutex, OnceLock};

use jni::objects::{JClass, JObject};
use jni::sys::{jboolean, jdouble, jint, jlong};
use jni::JNIEnv;

use slog2::read::{Rows, Scan, ShadowWeights, WindowCursor};
use slog2::Slog2File;

use crate::api::{drawables_of, file, ids, registry, EXC};
use crate::{guard, handle, key, Fail, JResult, Registry};
use slog2::ErrorKind;

/// A cursor and the reader key it belongs to.
struct CursorObj {
    reader: jlong,
    file: Arc<Slog2File>,
    cur: Mutex<WindowCursor>,
}

/// A scan, its reused batch and the reader key it belongs to.
struct ScanObj {
    reader: jlong,
    state: Mutex<(Scan<Arc<Slog2File>>, Rows)>,
}

fn cursors() -> &'static Registry<CursorObj> {
    static R: OnceLock<Registry<CursorObj>> = OnceLock::new();
    R.get_or_init(Registry::new)
}

fn scans() -> &'static Registry<ScanObj> {
    static R: OnceLock<Registry<ScanObj>> = OnceLock::new();
    R.get_or_init(Registry::new)
}

/// Fail when the reader `key` was closed (its cursors and scans end with it).
fn reader_open(key: jlong, what: &str) -> JResult<()> {
    if registry().get(crate::key(key)).is_none() {
        return Err(Fail::new(
            ErrorKind::Closed,
            format!("slog2: the Slog2Reader of this {what} was closed"),
        ));
    }
    Ok(())
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A call that panicked retired its handle (`crate::call_on`); a poisoned
    // lock is only met by a call that was already running then.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

#[no_mangle]
pub extern "system" fn Java_slog2_api_Native_cursorOpen(
    mut env: JNIEnv,
    _class: JClass,
    h: jlong,
) -> jlong {
    guard(&mut env, EXC, |_| {
        let f = file(h)?;
        Ok(handle(cursors().insert(CursorObj {
            reader: h,
            file: f,
            cur: Mutex::new(WindowCursor::new()),
        })))
    })
}

#[no_mangle]
pub extern "system" fn Java_slog2_api_Native_cursorMove<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    c: jlong,
    t0: jdouble,
    t1: jdouble,
) -> JObject<'l> {
    guard(&mut env, EXC, |env| {
        let ids = ids(env)?;
        crate::call_on(
            cursors(),
            c,
            "slog2: cursor",
            || format!("slog2: cursor handle {c} is closed or invalid"),
            |obj| {
                reader_open(obj.reader, "cursor")?;
                let mut cur = lock(&obj.cur);
                let rows = cur.move_to(&obj.file, t0, t1)?;
                drawables_of(env, ids, rows, &ShadowWeights::default())
            },
        )
    })
}

#[no_mangle]
pub extern "system" fn Java_slog2_api_Native_cursorClose(
    mut env: JNIEnv,
    _class: JClass,
    c: jlong,
) {
    guard(&mut env, EXC, |_| {
        cursors().remove(key(c));
        Ok(())
    })
}

#[no_mangle]
pub extern "system" fn Java_slog2_api_Native_scanOpen(
    mut env: JNIEnv,
    _class: JClass,
    h: jlong,
    range: jboolean,
    t0: jdouble,
    t1: jdouble,
) -> jlong {
    guard(&mut env, EXC, |_| {
        let f = file(h)?;
        let scan = if range != 0 {
            Scan::with_range(f, t0, t1)?
        } else {
            Scan::new(f)
        };
        Ok(handle(scans().insert(ScanObj {
            reader: h,
            state: Mutex::new((scan, Rows::default())),
        })))
    })
}

/// The next batch of at most `max_rows` rows (whole records; a record larger
/// than that comes alone), or null at the end.
#[no_mangle]
pub extern "system" fn Java_slog2_api_Native_scanNext<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    s: jlong,
    max_rows: jint,
) -> JObject<'l> {
    guard(&mut env, EXC, |env| {
        let ids = ids(env)?;
        crate::call_on(
            scans(),
            s,
            "slog2: scan",
            || format!("slog2: scan handle {s} is closed or invalid"),
            |obj| {
                reader_open(obj.reader, "scan")?;
                if max_rows < 1 {
                    return Err(Fail::new(
                        ErrorKind::InvalidArgument,
                        format!("slog2: batch rows must be >= 1, not {max_rows}"),
                    ));
                }
                let mut st = lock(&obj.state);
                let (scan, rows) = &mut *st;
                // Info bytes per batch are bounded by Java's 2 GiB arrays.
                if !scan.next_into(rows, max_rows as usize, 1 << 30)? {
                    return Ok(JObject::null());
                }
                drawables_of(env, ids, rows.view(), &ShadowWeights::default())
            },
        )
    })
}

#[no_mangle]
pub extern "system" fn Java_slog2_api_Native_scanClose(mut env: JNIEnv, _class: JClass, s: jlong) {
    guard(&mut env, EXC, |_| {
        scans().remove(key(s));
        Ok(())
    })
}
