//! The natives of the `slog2.api` viewer classes (`java/api`): static
//! methods of the package-private class `slog2.api.Native`.
//!
//! A handle is a `Registry` key for an `Arc<Slog2File>`. `Slog2File` is
//! `Send + Sync` and every query takes `&self`, so any number of Java threads
//! can query one handle at once; `close` removes the key, and a query already
//! running keeps its `Arc` until it returns.
//!
//! A window or preview is **one** native call: the core answers with
//! [`slog2::read::Rows`] (the columns every binding shares) and this module
//! copies each column into one Java array and calls the `Drawables`
//! constructor once. Errors are thrown as the `slog2.api` subclass of
//! `Slog2Exception` for their kind (`crate::exception_class`) with the
//! library's message.

use std::sync::{Arc, OnceLock};

use slog2::ErrorKind;

use jni::objects::{GlobalRef, JByteArray, JClass, JMethodID, JObject, JString};
use jni::sys::{jboolean, jdouble, jint, jlong, jvalue};
use jni::JNIEnv;

use slog2::read::{Rows, RowsRef, ShadowWeights};
use slog2::Slog2File;

use crate::{guard, handle, key, Fail, JResult, Registry};

/// Errors are thrown as the `slog2.api` class of their kind.
pub(crate) const EXC: fn(ErrorKind) -> &'static str = crate::exception_class;

pub(crate) fn registry() -> &'static Registry<Slog2File> {
    static R: Registry<Slog2File> = Registry::new();
    &R
}

/// The file of reader handle `h` (a closed or retired handle fails as
/// `Closed`), for natives that keep it (cursors, scans).
pub(crate) fn file(h: jlong) -> JResult<Arc<Slog2File>> {
    crate::lookup(registry(), h, "slog2: reader", || closed_reader(h))
}

fn closed_reader(h: jlong) -> String {
    format!("slog2: reader handle {h} is closed or invalid (the Slog2Reader was closed)")
}

/// Run `f` on the file of handle `h`; a panic inside retires the handle
/// (`crate::call_on`).
pub(crate) fn on_file<R>(h: jlong, f: impl FnOnce(&Slog2File) -> JResult<R>) -> JResult<R> {
    crate::call_on(registry(), h, "slog2: reader", || closed_reader(h), f)
}

/// Constructors looked up once (through the class loader of `slog2.api`).
pub(crate) struct Ids {
    drawables: GlobalRef,
    drawables_new: JMethodID,
    weights: GlobalRef,
    weights_new: JMethodID,
    category: GlobalRef,
    category_new: JMethodID,
    ymap: GlobalRef,
    ymap_new: JMethodID,
    string: GlobalRef,
}

static IDS: OnceLock<Ids> = OnceLock::new();

pub(crate) fn ids(env: &mut JNIEnv) -> JResult<&'static Ids> {
    if let Some(ids) = IDS.get() {
        return Ok(ids);
    }
    let mut class = |name: &str, sig: &str| crate::class_ctor(env, name, sig);
    let (drawables, drawables_new) = class(
        "slog2/api/Drawables",
        "(I[B[I[D[D[D[D[I[I[I[J[I[BLslog2/api/ShadowWeights;IJ)V",
    )?;
    let (weights, weights_new) = class("slog2/api/ShadowWeights", "([I[I[F[F[J)V")?;
    let (category, category_new) = class(
        "slog2/api/Category",
        "(ILjava/lang/String;IIILjava/lang/String;[IJFF)V",
    )?;
    let (ymap, ymap_new) = class(
        "slog2/api/YMap",
        "(Ljava/lang/String;[Ljava/lang/String;[I[I[I)V",
    )?;
    let s = env.find_class("java/lang/String")?;
    let string = env.new_global_ref(&s)?;
    env.delete_local_ref(s)?;
    let _ = IDS.set(Ids {
        drawables,
        drawables_new,
        weights,
        weights_new,
        category,
        category_new,
        ymap,
        ymap_new,
        string,
    });
    Ok(IDS.get().expect("set above"))
}

pub(crate) fn len(n: usize) -> JResult<jint> {
    jint::try_from(n).map_err(|_| {
        Fail::new(
            ErrorKind::InvalidArgument,
            format!("slog2: {n} entries do not fit a Java array"),
        )
    })
}

pub(crate) fn jv(o: &JObject) -> jvalue {
    jvalue { l: o.as_raw() }
}

pub(crate) fn ints<'l>(env: &mut JNIEnv<'l>, v: &[i32]) -> JResult<JObject<'l>> {
    let a = env.new_int_array(len(v.len())?)?;
    env.set_int_array_region(&a, 0, v)?;
    Ok(a.into())
}

pub(crate) fn longs<'l>(env: &mut JNIEnv<'l>, v: &[i64]) -> JResult<JObject<'l>> {
    let a = env.new_long_array(len(v.len())?)?;
    env.set_long_array_region(&a, 0, v)?;
    Ok(a.into())
}

pub(crate) fn doubles<'l>(env: &mut JNIEnv<'l>, v: &[f64]) -> JResult<JObject<'l>> {
    let a = env.new_double_array(len(v.len())?)?;
    env.set_double_array_region(&a, 0, v)?;
    Ok(a.into())
}

fn floats<'l>(env: &mut JNIEnv<'l>, v: &[f32]) -> JResult<JObject<'l>> {
    let a = env.new_float_array(len(v.len())?)?;
    env.set_float_array_region(&a, 0, v)?;
    Ok(a.into())
}

fn bytes<'l>(env: &mut JNIEnv<'l>, v: &[u8]) -> JResult<JObject<'l>> {
    Ok(env.byte_array_from_slice(v)?.into())
}

pub(crate) fn string<'l>(env: &mut JNIEnv<'l>, s: &str) -> JResult<JObject<'l>> {
    Ok(env.new_string(s)?.into())
}

pub(crate) fn strings<'l>(env: &mut JNIEnv<'l>, ids: &Ids, v: &[String]) -> JResult<JObject<'l>> {
    let a = env.new_object_array(len(v.len())?, &ids.string, JObject::null())?;
    for (i, s) in v.iter().enumerate() {
        let js = env.new_string(s)?;
        env.set_object_array_element(&a, i as jint, &js)?;
        env.delete_local_ref(js)?;
    }
    Ok(a.into())
}

/// The `Drawables` of a query: 16 arrays and two objects in one local frame.
fn drawables<'l>(env: &mut JNIEnv<'l>, ids: &Ids, r: &Rows) -> JResult<JObject<'l>> {
    drawables_of(env, ids, r.view(), &r.weights)
}

/// The `Drawables` of borrowed rows (a query's, a cursor's, a scan batch's)
/// with their shadow weights (empty but for previews).
pub(crate) fn drawables_of<'l>(
    env: &mut JNIEnv<'l>,
    ids: &Ids,
    r: RowsRef<'_>,
    w: &ShadowWeights,
) -> JResult<JObject<'l>> {
    let n = len(r.len())?;
    let info_offset: Vec<i32> = r
        .info_offset
        .iter()
        .map(|&o| i32::try_from(o))
        .collect::<Result<_, _>>()
        .map_err(|_| {
            Fail::new(
                ErrorKind::InvalidArgument,
                "slog2: query info exceeds 2 GiB",
            )
        })?;
    // The kind column as Java bytes (same values, 0..=2).
    let kind: Vec<i8> = r.kind.iter().map(|&k| k as i8).collect();
    // Info offsets of borrowed rows count from their first info byte.
    let base = info_offset.first().copied().unwrap_or(0);
    let mut info_offset: Vec<i32> = info_offset.iter().map(|&o| o - base).collect();
    if info_offset.is_empty() {
        info_offset.push(0); // n + 1 entries, also for no rows
    }
    let last = info_offset.last().copied().unwrap_or(0) + base;
    let info_bytes = r.info.get(base as usize..last as usize).unwrap_or(&[]);
    env.with_local_frame_returning_local(32, |env| {
        let jkind = env.new_byte_array(n)?;
        env.set_byte_array_region(&jkind, 0, &kind)?;
        let jkind: JObject = jkind.into();
        let category = ints(env, r.category)?;
        let start = doubles(env, r.start)?;
        let end = doubles(env, r.end)?;
        let time0 = doubles(env, r.time0)?;
        let time1 = doubles(env, r.time1)?;
        let line0 = ints(env, r.line0)?;
        let line1 = ints(env, r.line1)?;
        let parent = ints(env, r.parent)?;
        let num_real = longs(env, r.num_real)?;
        let offsets = ints(env, &info_offset)?;
        let info = bytes(env, info_bytes)?;
        let wrow = ints(env, &w.row)?;
        let wcat = ints(env, &w.category)?;
        let wincl = floats(env, &w.incl)?;
        let wexcl = floats(env, &w.excl)?;
        let wcount = longs(env, &w.count)?;
        let wargs = [jv(&wrow), jv(&wcat), jv(&wincl), jv(&wexcl), jv(&wcount)];
        // SAFETY: constructor ID and arguments match the descriptor.
        let weights = unsafe { env.new_object_unchecked(&ids.weights, ids.weights_new, &wargs)? };
        let nodes = jint::try_from(r.stats.nodes_read).unwrap_or(jint::MAX);
        let bytes_read = jlong::try_from(r.stats.bytes_read).unwrap_or(jlong::MAX);
        let args = [
            jvalue { i: n },
            jv(&jkind),
            jv(&category),
            jv(&start),
            jv(&end),
            jv(&time0),
            jv(&time1),
            jv(&line0),
            jv(&line1),
            jv(&parent),
            jv(&num_real),
            jv(&offsets),
            jv(&info),
            jv(&weights),
            jvalue { i: nodes },
            jvalue { j: bytes_read },
        ];
        // SAFETY: constructor ID and arguments match the descriptor.
        Ok(unsafe { env.new_object_unchecked(&ids.drawables, ids.drawables_new, &args)? })
    })
}

#[no_mangle]
pub extern "system" fn Java_slog2_api_Native_open(
    mut env: JNIEnv,
    _class: JClass,
    path: JString,
) -> jlong {
    guard(&mut env, EXC, |env| {
        ids(env)?;
        if path.is_null() {
            return Err(Fail::new(ErrorKind::InvalidArgument, "slog2: path is null"));
        }
        let p: String = env.get_string(&path)?.into();
        let f = Slog2File::open(&p)?;
        Ok(handle(registry().insert(f)))
    })
}

#[no_mangle]
pub extern "system" fn Java_slog2_api_Native_close(mut env: JNIEnv, _class: JClass, h: jlong) {
    guard(&mut env, EXC, |_| {
        registry().remove(key(h));
        Ok(())
    })
}

#[no_mangle]
pub extern "system" fn Java_slog2_api_Native_totalTime<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    h: jlong,
) -> JObject<'l> {
    guard(&mut env, EXC, |env| {
        let tb = on_file(h, |f| Ok(f.total_time()))?;
        doubles(env, &[tb.start, tb.end])
    })
}

#[no_mangle]
pub extern "system" fn Java_slog2_api_Native_rootDepth(
    mut env: JNIEnv,
    _class: JClass,
    h: jlong,
) -> jint {
    guard(&mut env, EXC, |_| {
        on_file(h, |f| Ok(jint::from(f.root_depth())))
    })
}

#[no_mangle]
pub extern "system" fn Java_slog2_api_Native_compressed(
    mut env: JNIEnv,
    _class: JClass,
    h: jlong,
) -> jboolean {
    guard(&mut env, EXC, |_| {
        on_file(h, |f| Ok(jboolean::from(f.header().is_compressed())))
    })
}

#[no_mangle]
pub extern "system" fn Java_slog2_api_Native_categories<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    h: jlong,
) -> JObject<'l> {
    guard(&mut env, EXC, |env| {
        on_file(h, |f| {
            let ids = ids(env)?;
            let cats = f.categories();
            env.with_local_frame_returning_local(8, |env| {
                let arr = env.new_object_array(len(cats.len())?, &ids.category, JObject::null())?;
                for (i, c) in cats.iter().enumerate() {
                    let o = env.with_local_frame_returning_local(8, |env| {
                        let name = string(env, &c.name)?;
                        let label_text = c.info.label();
                        let label = if label_text.is_empty() {
                            JObject::null()
                        } else {
                            string(env, &label_text)?
                        };
                        let methods = ints(env, &c.methods)?;
                        let args = [
                            jvalue { i: c.index },
                            jv(&name),
                            jvalue {
                                i: c.topology as i32,
                            },
                            jvalue {
                                i: c.color.to_argb(),
                            },
                            jvalue {
                                i: i32::from(c.width),
                            },
                            jv(&label),
                            jv(&methods),
                            jvalue { j: c.count },
                            jvalue { f: c.incl_ratio },
                            jvalue { f: c.excl_ratio },
                        ];
                        // SAFETY: constructor ID and arguments match the descriptor.
                        Ok::<_, Fail>(unsafe {
                            env.new_object_unchecked(&ids.category, ids.category_new, &args)?
                        })
                    })?;
                    env.set_object_array_element(&arr, i as jint, &o)?;
                    env.delete_local_ref(o)?;
                }
                Ok(arr.into())
            })
        })
    })
}

#[no_mangle]
pub extern "system" fn Java_slog2_api_Native_yMaps<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    h: jlong,
) -> JObject<'l> {
    guard(&mut env, EXC, |env| {
        on_file(h, |f| {
            let ids = ids(env)?;
            let maps = f.ycoordmaps();
            env.with_local_frame_returning_local(8, |env| {
                let arr = env.new_object_array(len(maps.len())?, &ids.ymap, JObject::null())?;
                for (i, m) in maps.iter().enumerate() {
                    let o = env.with_local_frame_returning_local(8, |env| {
                        let ncols = m.column_labels.len();
                        let title = string(env, &m.title)?;
                        let labels = strings(env, ids, &m.column_labels)?;
                        let lines: Vec<i32> = m.rows.iter().map(|(l, _)| *l).collect();
                        let mut values = Vec::with_capacity(m.rows.len() * ncols);
                        for (line, v) in &m.rows {
                            if v.len() != ncols {
                                return Err(Fail::new(
                                    ErrorKind::Format,
                                    format!(
                                    "slog2: y-map {:?}: line {line} has {} values, expected {ncols}",
                                    m.title,
                                    v.len()
                                ),
                                ));
                            }
                            values.extend_from_slice(v);
                        }
                        let lines = ints(env, &lines)?;
                        let values = ints(env, &values)?;
                        let methods = ints(env, &m.methods)?;
                        let args = [
                            jv(&title),
                            jv(&labels),
                            jv(&lines),
                            jv(&values),
                            jv(&methods),
                        ];
                        // SAFETY: constructor ID and arguments match the descriptor.
                        Ok(unsafe { env.new_object_unchecked(&ids.ymap, ids.ymap_new, &args)? })
                    })?;
                    env.set_object_array_element(&arr, i as jint, &o)?;
                    env.delete_local_ref(o)?;
                }
                Ok(arr.into())
            })
        })
    })
}

#[no_mangle]
pub extern "system" fn Java_slog2_api_Native_window<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    h: jlong,
    t0: jdouble,
    t1: jdouble,
) -> JObject<'l> {
    guard(&mut env, EXC, |env| {
        let ids = ids(env)?;
        on_file(h, |f| drawables(env, ids, &f.window_rows(t0, t1)?))
    })
}

#[no_mangle]
pub extern "system" fn Java_slog2_api_Native_preview<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    h: jlong,
    t0: jdouble,
    t1: jdouble,
    depth: jint,
) -> JObject<'l> {
    guard(&mut env, EXC, |env| {
        let ids = ids(env)?;
        on_file(h, |f| drawables(env, ids, &f.preview_rows(t0, t1, depth)?))
    })
}

#[no_mangle]
pub extern "system" fn Java_slog2_api_Native_popupText<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    h: jlong,
    category: jint,
    info: JByteArray<'l>,
    off: jint,
    n: jint,
) -> JObject<'l> {
    guard(&mut env, EXC, |env| {
        on_file(h, |f| {
            let mut buf = vec![0i8; usize::try_from(n).unwrap_or(0)];
            if n > 0 {
                if info.is_null() {
                    return Err(Fail::new(
                        ErrorKind::InvalidArgument,
                        "slog2: info array is null",
                    ));
                }
                let total = env.get_array_length(&info)?;
                if off < 0 || n < 0 || off > total - n {
                    return Err(Fail::new(
                        ErrorKind::InvalidArgument,
                        format!(
                            "slog2: info range {off}+{n} is outside the array of {total} bytes"
                        ),
                    ));
                }
                env.get_byte_array_region(&info, off, &mut buf)?;
            }
            let bytes: Vec<u8> = buf.into_iter().map(|b| b as u8).collect();
            string(env, &f.info_text(category, &bytes))
        })
    })
}

/// Test hook, not API (package-private in Java, for `RetiredHandleTest`): a
/// panic inside a call on handle `h`, so that a test can see the handle
/// retired by the rule every native follows. It cannot do more harm than
/// `close(h)`.
#[no_mangle]
pub extern "system" fn Java_slog2_api_Native_panicForTest(
    mut env: JNIEnv,
    _class: JClass,
    h: jlong,
) {
    guard(&mut env, EXC, |_| {
        on_file(h, |_| -> JResult<()> {
            panic!("slog2: test hook: a panic inside a call on reader handle {h}")
        })
    })
}
