//! Drop-in `libTraceInput`: the natives of `logformat.trace.InputLog`
//! (`trace-api.md` §4, `jni-tables.md` §2–3).
//!
//! `open()` opens the `filespec` field's trace with
//! [`slog2::trace::open_source_with`] (sample text, SLOG-2, and every source
//! the library learns later), or, when the system property
//! `slog2.trace.lib` or else the environment variable `SLOG2_TRACE_LIB`
//! names a shared library, through that external C TRACE-API reader
//! ([`slog2::trace::plugin`]). The property wins so that one JVM option
//! (Jumpshot's convertor dialog has a field for them) can override the
//! environment.
//!
//! The record protocol is the core's [`TraceReader`], the one the C
//! `TRACE_*` functions use: `peekNextKindIndex()` reads the next record and
//! keeps it; the matching `getNext*()` hands it to Java, and a `getNext*()`
//! of another kind is an error that leaves the record for its own call. Boxes given to the Java constructors are the
//! boxes the source *stated* (the TRACE peek boxes), so the converter's `-tc`
//! checks see what the reference bridge would show them.
//!
//! Differences from the reference bridge (its bugs, `trace-api.md` §5):
//! `filehandle` holds a registry key, not a pointer, and is zeroed by
//! `close()`; a read error is thrown as a `RuntimeException` carrying the
//! library's message (the reference printed it and reported EOF, so the
//! converter wrote a truncated file as if all was well); class references
//! are cached for the life of the process, so a second `InputLog` after
//! `close()` works; local references of composite members are freed member
//! by member.

use std::path::Path;
use std::sync::{Mutex, OnceLock};

use jni::objects::{GlobalRef, JClass, JFieldID, JMethodID, JObject, JString, JValue};
use jni::signature::{Primitive as JPrim, ReturnType};
use jni::sys::{jboolean, jint, jvalue, JNI_FALSE, JNI_TRUE};
use jni::JNIEnv;

use slog2::trace::plugin::{PluginOpen, PluginSource};
use slog2::trace::reader::{RecordKind, TraceReader};
use slog2::trace::{Record, TraceSource};
use slog2::{Category, ErrorKind, Primitive, TimeBox, YCoordMap};

use crate::{guard, handle, key, Fail, JResult, Registry};

/// System property naming an external TRACE-API library.
pub const TRACE_LIB_PROPERTY: &str = "slog2.trace.lib";
/// Environment variable naming an external TRACE-API library.
pub const TRACE_LIB_ENV: &str = "SLOG2_TRACE_LIB";

/// Errors are thrown as `RuntimeException`s (see [`crate::runtime_exception`]).
const EXC: fn(ErrorKind) -> &'static str = crate::runtime_exception;

/// Kind numbers of `base.drawable.Kind` (TRACE_Rec_Kind_t).
const KIND_EOF: jint = 0;
const KIND_PRIMITIVE: jint = 1;
const KIND_COMPOSITE: jint = 2;
const KIND_CATEGORY: jint = 3;
const KIND_YCOORDMAP: jint = 4;

/// A source read by one `InputLog`, through the core's TRACE protocol
/// (the one the C `TRACE_*` functions use): a peek reads the next record
/// and keeps it, a `getNext*` takes it whole, and a call for another kind
/// of record is an error that changes nothing.
type Input = TraceReader<dyn TraceSource>;

/// The sources behind live `InputLog` handles.
///
/// `Box<dyn TraceSource>` is not `Send` because an external C reader's state
/// is a raw pointer. Every access goes through the per-handle `Mutex`, so the
/// reader is only ever called by one thread at a time — what the TRACE-API
/// asks of its clients (the reference bridge did the same with no lock).
struct Handle(Mutex<Input>);
// SAFETY: see above; the `Input` is only reached through the mutex.
unsafe impl Send for Handle {}
unsafe impl Sync for Handle {}

fn registry() -> &'static Registry<Handle> {
    static R: Registry<Handle> = Registry::new();
    &R
}

/// IDs looked up once per process (the classes are loaded by the jar's class
/// loader; `FindClass` from an `InputLog` native resolves through it).
struct Ids {
    filespec: JFieldID,
    filehandle: JFieldID,
    dobjdef: GlobalRef,
    dobjdef_new: JMethodID,
    ymap: GlobalRef,
    ymap_new: JMethodID,
    prim: GlobalRef,
    prim_new: JMethodID,
    comp: GlobalRef,
    comp_new: JMethodID,
    string: GlobalRef,
}

static IDS: OnceLock<Ids> = OnceLock::new();

fn ids(env: &mut JNIEnv) -> JResult<&'static Ids> {
    if let Some(ids) = IDS.get() {
        return Ok(ids);
    }
    let inputlog = env.find_class("logformat/trace/InputLog")?;
    let filespec = env.get_field_id(&inputlog, "filespec", "Ljava/lang/String;")?;
    let filehandle = env.get_field_id(&inputlog, "filehandle", "J")?;
    let mut class = |name: &str, sig: &str| crate::class_ctor(env, name, sig);
    let (dobjdef, dobjdef_new) = class(
        "logformat/trace/DobjDef",
        "(ILjava/lang/String;IIIIIILjava/lang/String;[I)V",
    )?;
    let (ymap, ymap_new) = class(
        "base/drawable/YCoordMap",
        "(IILjava/lang/String;[Ljava/lang/String;[I[I)V",
    )?;
    let (prim, prim_new) = class("base/drawable/Primitive", "(IDD[D[I[B)V")?;
    let (comp, comp_new) = class(
        "base/drawable/Composite",
        "(IDD[Lbase/drawable/Primitive;[B)V",
    )?;
    let s = env.find_class("java/lang/String")?;
    let string = env.new_global_ref(&s)?;
    env.delete_local_ref(s)?;
    env.delete_local_ref(inputlog)?;
    let _ = IDS.set(Ids {
        filespec,
        filehandle,
        dobjdef,
        dobjdef_new,
        ymap,
        ymap_new,
        prim,
        prim_new,
        comp,
        comp_new,
        string,
    });
    Ok(IDS.get().expect("set above"))
}

fn get_handle(env: &mut JNIEnv, this: &JObject, ids: &Ids) -> JResult<i64> {
    Ok(env
        .get_field_unchecked(this, ids.filehandle, ReturnType::Primitive(JPrim::Long))?
        .j()?)
}

fn set_handle(env: &mut JNIEnv, this: &JObject, ids: &Ids, h: i64) -> JResult<()> {
    Ok(env.set_field_unchecked(this, ids.filehandle, JValue::Long(h))?)
}

/// Run `f` on the reader of this `InputLog` (its `filehandle`), under the
/// handle's lock; a panic inside retires the handle (`crate::call_on`).
fn with_input<R>(
    env: &mut JNIEnv,
    this: &JObject,
    ids: &Ids,
    f: impl FnOnce(&mut Input) -> JResult<R>,
) -> JResult<R> {
    let h = get_handle(env, this, ids)?;
    if h == 0 {
        return Err(Fail::new(
            ErrorKind::Closed,
            "slog2 TraceInput: InputLog is not open (filehandle 0)",
        ));
    }
    crate::call_on(
        registry(),
        h,
        "slog2 TraceInput: file",
        || format!("slog2 TraceInput: filehandle {h} is not an open trace (closed or invalid)"),
        |hd| f(&mut lock(hd)),
    )
}

/// `take` returned another kind than it was asked for (cannot happen).
fn taken_other() -> Fail {
    Fail::new(
        ErrorKind::State,
        "slog2 TraceInput: the reader returned another kind of record (a bug)",
    )
}

fn lock(h: &Handle) -> std::sync::MutexGuard<'_, Input> {
    h.0.lock().unwrap_or_else(|p| p.into_inner())
}

/// `System.getProperty(name)`, or None when unset or empty.
fn system_property(env: &mut JNIEnv, name: &str) -> JResult<Option<String>> {
    let key = env.new_string(name)?;
    let v = env
        .call_static_method(
            "java/lang/System",
            "getProperty",
            "(Ljava/lang/String;)Ljava/lang/String;",
            &[JValue::Object(&key)],
        )?
        .l()?;
    env.delete_local_ref(key)?;
    if v.is_null() {
        return Ok(None);
    }
    let js = JString::from(v);
    let s: String = env.get_string(&js)?.into();
    env.delete_local_ref(js)?;
    Ok(Some(s).filter(|s| !s.trim().is_empty()))
}

/// The external TRACE library to use, if one is named.
fn trace_lib(env: &mut JNIEnv) -> JResult<Option<String>> {
    if let Some(p) = system_property(env, TRACE_LIB_PROPERTY)? {
        return Ok(Some(p));
    }
    Ok(std::env::var(TRACE_LIB_ENV)
        .ok()
        .filter(|s| !s.trim().is_empty()))
}

const HELP: &str =
    "slog2 TraceInput (libslog2jni): reads a slog2sdk sample text trace or an SLOG-2 file.\n\
  Give the trace file as the filespec. To read through an external C TRACE-API library instead,\n\
  name it with -Dslog2.trace.lib=/path/libX.so or the environment variable SLOG2_TRACE_LIB;\n\
  the whole filespec is then handed to its TRACE_Open.";

#[no_mangle]
pub extern "system" fn Java_logformat_trace_InputLog_initIDs(mut env: JNIEnv, _class: JClass) {
    guard(&mut env, EXC, |env| ids(env).map(|_| ()))
}

#[no_mangle]
pub extern "system" fn Java_logformat_trace_InputLog_open(
    mut env: JNIEnv,
    this: JObject,
) -> jboolean {
    guard(&mut env, EXC, |env| {
        let ids = ids(env)?;
        let spec_obj = env
            .get_field_unchecked(&this, ids.filespec, ReturnType::Object)?
            .l()?;
        let spec: String = if spec_obj.is_null() {
            String::new()
        } else {
            let js = JString::from(spec_obj);
            let s = env.get_string(&js)?.into();
            env.delete_local_ref(js)?;
            s
        };
        let spec = spec.trim().to_string();
        // A second open() on the same InputLog releases the first trace.
        let old = get_handle(env, &this, ids)?;
        if old != 0 {
            registry().remove(key(old));
        }
        set_handle(env, &this, ids, 0)?;
        let opened: Result<Option<Box<dyn TraceSource>>, String> = match trace_lib(env)? {
            Some(lib) => match PluginSource::open(Path::new(&lib), &spec) {
                Ok(PluginOpen::Source(s)) => Ok(Some(Box::new(s))),
                Ok(PluginOpen::Help(text)) => {
                    println!("{text}");
                    Ok(None)
                }
                Err(e) => Err(e.to_string()),
            },
            None if spec.is_empty() || spec == "-h" || spec == "--help" => {
                println!("{HELP}");
                Ok(None)
            }
            None => slog2::trace::open_source_with(Path::new(&spec), 0)
                .map(|s| Some(s as Box<dyn TraceSource>))
                .map_err(|e| e.to_string()),
        };
        match opened {
            Ok(Some(src)) => {
                let k = registry().insert(Handle(Mutex::new(Input::new(src, None))));
                set_handle(env, &this, ids, handle(k))?;
                Ok(JNI_TRUE)
            }
            // Help shown: handle 0 + true = "exits normally".
            Ok(None) => Ok(JNI_TRUE),
            // Handle 0 + false: InputLog reports the failure and exits 1.
            Err(msg) => {
                eprintln!("slog2 TraceInput: {msg}");
                Ok(JNI_FALSE)
            }
        }
    })
}

#[no_mangle]
pub extern "system" fn Java_logformat_trace_InputLog_close(
    mut env: JNIEnv,
    this: JObject,
) -> jboolean {
    guard(&mut env, EXC, |env| {
        let ids = ids(env)?;
        let h = get_handle(env, &this, ids)?;
        set_handle(env, &this, ids, 0)?;
        Ok(if h != 0 && registry().remove(key(h)).is_some() {
            JNI_TRUE
        } else {
            JNI_FALSE
        })
    })
}

#[no_mangle]
pub extern "system" fn Java_logformat_trace_InputLog_peekNextKindIndex(
    mut env: JNIEnv,
    this: JObject,
) -> jint {
    guard(&mut env, EXC, |env| {
        let ids = ids(env)?;
        let kind = with_input(env, &this, ids, |input| {
            input.peek_kind().map_err(|e| {
                let msg = e.to_string();
                let loc = input.source().location();
                let msg = if loc.is_empty() || msg.contains(&loc) {
                    format!("slog2 TraceInput: {msg}")
                } else {
                    format!("slog2 TraceInput: {msg} (at {loc})")
                };
                Fail::new(e.kind(), msg)
            })
        })?;
        Ok(match kind {
            RecordKind::Eof => KIND_EOF,
            RecordKind::Primitive => KIND_PRIMITIVE,
            RecordKind::Composite => KIND_COMPOSITE,
            RecordKind::Category => KIND_CATEGORY,
            RecordKind::YCoordMap => KIND_YCOORDMAP,
        })
    })
}

/// Take the next record, which must be of kind `want` (peeking first if the
/// caller did not); a record of another kind stays for its own `getNext*`.
fn take(
    env: &mut JNIEnv,
    this: &JObject,
    ids: &Ids,
    want: RecordKind,
    call: &str,
) -> JResult<Record> {
    with_input(env, this, ids, |input| {
        input
            .take(want)
            .map_err(|e| Fail::new(e.kind(), format!("slog2 TraceInput: getNext{call}(): {e}")))
    })
}

fn jstring<'l>(env: &mut JNIEnv<'l>, s: &str) -> JResult<JObject<'l>> {
    Ok(env.new_string(s)?.into())
}

fn int_array<'l>(env: &mut JNIEnv<'l>, v: &[i32]) -> JResult<JObject<'l>> {
    let len = i32::try_from(v.len())
        .map_err(|_| Fail::new(ErrorKind::InvalidArgument, "array too large for Java"))?;
    let a = env.new_int_array(len)?;
    env.set_int_array_region(&a, 0, v)?;
    Ok(a.into())
}

fn int_array_or_null<'l>(env: &mut JNIEnv<'l>, v: &[i32]) -> JResult<JObject<'l>> {
    if v.is_empty() {
        Ok(JObject::null())
    } else {
        int_array(env, v)
    }
}

fn bytes_or_null<'l>(env: &mut JNIEnv<'l>, v: &[u8]) -> JResult<JObject<'l>> {
    if v.is_empty() {
        Ok(JObject::null())
    } else {
        Ok(env.byte_array_from_slice(v)?.into())
    }
}

fn jv(o: &JObject) -> jvalue {
    jvalue { l: o.as_raw() }
}

fn new_category<'l>(env: &mut JNIEnv<'l>, ids: &Ids, c: &Category) -> JResult<JObject<'l>> {
    env.with_local_frame_returning_local(8, |env| {
        let legend = jstring(env, &c.name)?;
        let label_text = c.info.label();
        let label = if label_text.is_empty() {
            JObject::null()
        } else {
            jstring(env, &label_text)?
        };
        let methods = int_array_or_null(env, &c.methods)?;
        let args = [
            jvalue { i: c.index },
            jv(&legend),
            jvalue {
                i: c.topology as i32,
            },
            jvalue {
                i: i32::from(c.color.red),
            },
            jvalue {
                i: i32::from(c.color.green),
            },
            jvalue {
                i: i32::from(c.color.blue),
            },
            jvalue {
                i: i32::from(c.color.alpha),
            },
            jvalue {
                i: i32::from(c.width),
            },
            jv(&label),
            jv(&methods),
        ];
        // SAFETY: constructor ID and argument types match the descriptor.
        Ok(unsafe { env.new_object_unchecked(&ids.dobjdef, ids.dobjdef_new, &args)? })
    })
}

fn new_ymap<'l>(env: &mut JNIEnv<'l>, ids: &Ids, m: &YCoordMap) -> JResult<JObject<'l>> {
    env.with_local_frame_returning_local(8, |env| {
        let ncols = m.column_labels.len() + 1;
        let nrows = m.rows.len();
        let title = jstring(env, &m.title)?;
        let len = i32::try_from(m.column_labels.len())
            .map_err(|_| Fail::new(ErrorKind::InvalidArgument, "too many y-map columns"))?;
        let names = env.new_object_array(len, &ids.string, JObject::null())?;
        for (i, l) in m.column_labels.iter().enumerate() {
            let s = env.new_string(l)?;
            env.set_object_array_element(&names, i as i32, &s)?;
            env.delete_local_ref(s)?;
        }
        let mut elems = Vec::with_capacity(nrows * ncols);
        for (line, vals) in &m.rows {
            if vals.len() != ncols - 1 {
                return Err(Fail::new(
                    ErrorKind::Format,
                    format!(
                        "y-coordinate map {:?}: row of line {line} has {} values, expected {}",
                        m.title,
                        vals.len(),
                        ncols - 1
                    ),
                ));
            }
            elems.push(*line);
            elems.extend_from_slice(vals);
        }
        let elems = int_array_or_null(env, &elems)?;
        let methods = int_array_or_null(env, &m.methods)?;
        let names: JObject = names.into();
        let args = [
            jvalue { i: nrows as i32 },
            jvalue { i: ncols as i32 },
            jv(&title),
            jv(&names),
            jv(&elems),
            jv(&methods),
        ];
        // SAFETY: constructor ID and argument types match the descriptor.
        Ok(unsafe { env.new_object_unchecked(&ids.ymap, ids.ymap_new, &args)? })
    })
}

fn new_primitive<'l>(
    env: &mut JNIEnv<'l>,
    ids: &Ids,
    stated: TimeBox,
    p: &Primitive,
) -> JResult<JObject<'l>> {
    env.with_local_frame_returning_local(8, |env| {
        let n = p.vertices.len() as i32;
        let times: Vec<f64> = p.vertices.iter().map(|v| v.time).collect();
        let lines: Vec<i32> = p.vertices.iter().map(|v| v.line).collect();
        let jt = env.new_double_array(n)?;
        env.set_double_array_region(&jt, 0, &times)?;
        let jt: JObject = jt.into();
        let jl = int_array(env, &lines)?;
        let info = bytes_or_null(env, &p.info)?;
        let args = [
            jvalue { i: p.category },
            jvalue { d: stated.start },
            jvalue { d: stated.end },
            jv(&jt),
            jv(&jl),
            jv(&info),
        ];
        // SAFETY: constructor ID and argument types match the descriptor.
        Ok(unsafe { env.new_object_unchecked(&ids.prim, ids.prim_new, &args)? })
    })
}

#[no_mangle]
pub extern "system" fn Java_logformat_trace_InputLog_getNextCategory<'l>(
    mut env: JNIEnv<'l>,
    this: JObject<'l>,
) -> JObject<'l> {
    guard(&mut env, EXC, |env| {
        let ids = ids(env)?;
        match take(env, &this, ids, RecordKind::Category, "Category")? {
            Record::Category(c) => new_category(env, ids, &c),
            _ => Err(taken_other()),
        }
    })
}

#[no_mangle]
pub extern "system" fn Java_logformat_trace_InputLog_getNextYCoordMap<'l>(
    mut env: JNIEnv<'l>,
    this: JObject<'l>,
) -> JObject<'l> {
    guard(&mut env, EXC, |env| {
        let ids = ids(env)?;
        match take(env, &this, ids, RecordKind::YCoordMap, "YCoordMap")? {
            Record::YCoordMap(m) => new_ymap(env, ids, &m),
            _ => Err(taken_other()),
        }
    })
}

#[no_mangle]
pub extern "system" fn Java_logformat_trace_InputLog_getNextPrimitive<'l>(
    mut env: JNIEnv<'l>,
    this: JObject<'l>,
) -> JObject<'l> {
    guard(&mut env, EXC, |env| {
        let ids = ids(env)?;
        match take(env, &this, ids, RecordKind::Primitive, "Primitive")? {
            Record::Primitive(p) => new_primitive(env, ids, p.stated, &p.primitive),
            _ => Err(taken_other()),
        }
    })
}

#[no_mangle]
pub extern "system" fn Java_logformat_trace_InputLog_getNextComposite<'l>(
    mut env: JNIEnv<'l>,
    this: JObject<'l>,
) -> JObject<'l> {
    guard(&mut env, EXC, |env| {
        let ids = ids(env)?;
        let c = match take(env, &this, ids, RecordKind::Composite, "Composite")? {
            Record::Composite(c) => c,
            _ => return Err(taken_other()),
        };
        let members = &c.composite.members;
        if members.is_empty() {
            return Err(Fail::new(
                ErrorKind::InvalidDrawable,
                "slog2 TraceInput: composite with no members",
            ));
        }
        let n = i32::try_from(members.len()).map_err(|_| {
            Fail::new(
                ErrorKind::InvalidArgument,
                "composite has too many members for Java",
            )
        })?;
        env.with_local_frame_returning_local(8, |env| {
            let arr = env.new_object_array(n, &ids.prim, JObject::null())?;
            for (i, p) in members.iter().enumerate() {
                let stated = c
                    .member_boxes
                    .get(i)
                    .copied()
                    .unwrap_or_else(|| p.time_box());
                let jp = new_primitive(env, ids, stated, p)?;
                env.set_object_array_element(&arr, i as i32, &jp)?;
                // One local reference per member at most, however many.
                env.delete_local_ref(jp)?;
            }
            let info = bytes_or_null(env, &c.composite.info)?;
            let arr: JObject = arr.into();
            let args = [
                jvalue {
                    i: c.composite.category,
                },
                jvalue { d: c.stated.start },
                jvalue { d: c.stated.end },
                jv(&arr),
                jv(&info),
            ];
            // SAFETY: constructor ID and argument types match the descriptor.
            Ok(unsafe { env.new_object_unchecked(&ids.comp, ids.comp_new, &args)? })
        })
    })
}
