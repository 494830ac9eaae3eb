//! The natives of `slog2.api.Overview`: Ocelotl's overview of a time range
//! (`slog2::analysis::overview`). This module only translates.
//!
//! An overview is a `Registry` key for a `Mutex<Overview>` (the p slider
//! re-aggregates it in place: [`Overview::set_p`]). Every answer is one
//! native call filling primitive arrays, column after column in one array
//! where a table is asked for (curve, rectangles), and a partition is one
//! `Overview.Partition` built by its constructor from ten arrays, under the
//! lock, so that a partition is never read half-updated. Errors are thrown
//! as the `slog2.api` exception class of their kind, with the library's
//! message.

use std::sync::{Mutex, OnceLock};

use jni::objects::{GlobalRef, JClass, JMethodID, JObject, JString};
use jni::sys::{jboolean, jdouble, jint, jlong, jvalue};
use jni::JNIEnv;

use slog2::analysis::{overview, render_rects, CacheUse, Metric, Overview, OverviewSpec, PChoice};

use crate::api::{doubles, ids, ints, jv, strings, EXC};
use crate::{guard, Fail, JResult, Registry};
use slog2::ErrorKind;

fn overviews() -> &'static Registry<Mutex<Overview>> {
    static R: OnceLock<Registry<Mutex<Overview>>> = OnceLock::new();
    R.get_or_init(Registry::new)
}

/// Run `f` on the overview of key `h` (locked); a panic inside retires
/// the handle (`crate::call_on`).
fn with<T>(h: jlong, f: impl FnOnce(&mut Overview) -> JResult<T>) -> JResult<T> {
    crate::call_on(
        overviews(),
        h,
        "slog2: overview",
        || format!("slog2: overview handle {h} is closed or invalid (the Overview was closed)"),
        |ov| f(&mut ov.lock().unwrap_or_else(|p| p.into_inner())),
    )
}

/// A native's whole body: an array computed from the overview of `h`,
/// copied into Java by `to` (`ints`, `doubles`).
fn answer<'l, T>(
    env: &mut JNIEnv<'l>,
    h: jlong,
    f: impl FnOnce(&mut Overview) -> JResult<Vec<T>>,
    to: fn(&mut JNIEnv<'l>, &[T]) -> JResult<JObject<'l>>,
) -> JObject<'l> {
    guard(env, EXC, |env| {
        let v = with(h, f)?;
        to(env, &v)
    })
}

/// `Java_slog2_api_Overview_<name>(env, class, h, args…)`: a native whose
/// answer is one array computed by `body` from the overview `o` of `h`,
/// copied into Java by `to` (`ints`, `doubles`).
macro_rules! array_native {
    ($(#[$m:meta])* $jname:ident ($($a:ident : $t:ty),*) -> $to:ident, |$o:ident| $body:expr) => {
        $(#[$m])*
        #[no_mangle]
        pub extern "system" fn $jname<'l>(
            mut env: JNIEnv<'l>,
            _class: JClass<'l>,
            h: jlong,
            $($a: $t),*
        ) -> JObject<'l> {
            answer(&mut env, h, |$o: &mut Overview| $body, $to)
        }
    };
}

/// The constructor of `Overview.Partition`, looked up once.
fn partition_class(env: &mut JNIEnv) -> JResult<&'static (GlobalRef, JMethodID)> {
    static P: OnceLock<(GlobalRef, JMethodID)> = OnceLock::new();
    if let Some(p) = P.get() {
        return Ok(p);
    }
    let c = crate::class_ctor(env, "slog2/api/Overview$Partition", "(DDD[I[I[I[I[D[D[D)V")?;
    let _ = P.set(c);
    Ok(P.get().expect("set above"))
}

fn check_len(n: usize) -> JResult<i32> {
    i32::try_from(n).map_err(|_| {
        Fail::new(
            ErrorKind::InvalidArgument,
            format!("slog2: {n} entries do not fit a Java array"),
        )
    })
}

/// The current partition as one `Overview.Partition`.
fn partition<'l>(env: &mut JNIEnv<'l>, ov: &Overview) -> JResult<JObject<'l>> {
    let (class, ctor) = partition_class(env)?;
    let parts = &ov.partition.parts;
    let c = &ov.cube;
    let mut node = Vec::with_capacity(parts.len());
    let mut first = Vec::with_capacity(parts.len());
    let mut last = Vec::with_capacity(parts.len());
    for p in parts {
        node.push(p.node.map_or(Ok(-1), check_len)?);
        first.push(check_len(p.first)?);
        last.push(check_len(p.last)?);
    }
    let mode: Vec<i32> = ov
        .modes
        .iter()
        .map(|m| m.map_or(-1, |k| c.categories[k]))
        .collect();
    let gain: Vec<f64> = parts.iter().map(|p| p.gain).collect();
    let loss: Vec<f64> = parts.iter().map(|p| p.loss).collect();
    let values: Vec<f64> = ov.values.iter().flatten().copied().collect();
    env.with_local_frame_returning_local(16, |env| {
        let arrays = [
            ints(env, &node)?,
            ints(env, &first)?,
            ints(env, &last)?,
            ints(env, &mode)?,
            doubles(env, &gain)?,
            doubles(env, &loss)?,
            doubles(env, &values)?,
        ];
        let mut args = vec![
            jvalue { d: ov.p },
            jvalue {
                d: ov.partition.gain,
            },
            jvalue {
                d: ov.partition.loss,
            },
        ];
        args.extend(arrays.iter().map(jv));
        // SAFETY: constructor ID and arguments match the descriptor.
        Ok(unsafe { env.new_object_unchecked(class, *ctor, &args)? })
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_slog2_api_Overview_open(
    mut env: JNIEnv,
    _class: JClass,
    file_handle: jlong,
    t0: jdouble,
    t1: jdouble,
    slices: jint,
    metric: jint,
    spatiotemporal: jboolean,
    hierarchy: JString,
    p: jdouble,
    bisect: jdouble,
    cache: jboolean,
) -> jlong {
    guard(&mut env, EXC, |env| {
        let hier: Option<String> = if hierarchy.is_null() {
            None
        } else {
            Some(env.get_string(&hierarchy)?.into())
        };
        let metric = match metric {
            0 => Metric::Duration,
            1 => Metric::Count,
            m => {
                return Err(Fail::new(
                    ErrorKind::InvalidArgument,
                    format!(
                        "slog2: unknown overview metric {m} (Overview.DURATION or Overview.COUNT)"
                    ),
                ))
            }
        };
        let slices = usize::try_from(slices).map_err(|_| {
            Fail::new(
                ErrorKind::InvalidArgument,
                format!("slog2: {slices} slices: at least 1"),
            )
        })?;
        let spec = OverviewSpec {
            t0: (!t0.is_nan()).then_some(t0),
            t1: (!t1.is_nan()).then_some(t1),
            slices,
            metric,
            spatiotemporal: (spatiotemporal != 0).then_some(hier),
            p: if p < 0.0 {
                PChoice::Auto
            } else {
                PChoice::Value(p)
            },
            bisect: (bisect > 0.0).then_some(bisect),
            cache: if cache != 0 {
                CacheUse::default()
            } else {
                CacheUse::Off
            },
        };
        let ov = crate::api::on_file(file_handle, |f| Ok(overview(f, &spec)?))?;
        Ok(crate::handle(overviews().insert(Mutex::new(ov))))
    })
}

#[no_mangle]
pub extern "system" fn Java_slog2_api_Overview_close(mut env: JNIEnv, _class: JClass, h: jlong) {
    guard(&mut env, EXC, |_| {
        overviews().remove(crate::key(h));
        Ok(())
    })
}

array_native!(
    /// `t0, t1, slices, metric, exact, fromCache, unmapped, nodes`, then
    /// the wall seconds of the stages (cube, qualities, curve, best).
    Java_slog2_api_Overview_info() -> doubles,
    |o| {
        let c = &o.cube;
        let t = o.timings;
        Ok(vec![
            c.grid.t0,
            c.grid.t1,
            c.grid.n as f64,
            f64::from(u8::from(c.metric == Metric::Count)),
            f64::from(u8::from(o.exact)),
            f64::from(u8::from(o.from_cache)),
            c.unmapped as f64,
            o.hierarchy.as_ref().map_or(0, |h| h.len()) as f64,
            t.cube,
            t.qualities,
            t.curve,
            t.best,
        ])
    }
);

array_native!(
    /// `which` 0: the line IDs, else the category indices (cube order).
    Java_slog2_api_Overview_axis(which: jint) -> ints,
    |o| Ok(if which == 0 {
        o.cube.lines.clone()
    } else {
        o.cube.categories.clone()
    })
);

array_native!(
    /// The cube, `[line][slice][category]`.
    Java_slog2_api_Overview_cube() -> doubles,
    |o| Ok(o.cube.line_major())
);

#[no_mangle]
pub extern "system" fn Java_slog2_api_Overview_partition<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    h: jlong,
) -> JObject<'l> {
    guard(&mut env, EXC, |env| with(h, |o| partition(env, o)))
}

#[no_mangle]
pub extern "system" fn Java_slog2_api_Overview_setP<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    h: jlong,
    p: jdouble,
) -> JObject<'l> {
    guard(&mut env, EXC, |env| {
        with(h, |o| {
            o.set_p(p)?;
            partition(env, o)
        })
    })
}

array_native!(
    /// `which` 0: parents (-1 for the root), 1: line counts, 2: the lines
    /// of each node (IDs, flat), 3: the line ID of each picture row, 4: the
    /// first row of each node. Empty for a temporal overview.
    Java_slog2_api_Overview_hierarchy(which: jint) -> ints,
    |o| {
        let Some(hi) = &o.hierarchy else {
            return Ok(Vec::new());
        };
        let lines = &o.cube.lines;
        let v: Vec<usize> = match which {
            0 => {
                return hi
                    .nodes
                    .iter()
                    .map(|n| n.parent.map_or(Ok(-1), check_len))
                    .collect()
            }
            1 => hi.nodes.iter().map(|n| n.lines.len()).collect(),
            2 => {
                return Ok(hi
                    .nodes
                    .iter()
                    .flat_map(|n| n.lines.iter().map(|&l| lines[l]))
                    .collect())
            }
            3 => return Ok(hi.rows().0.iter().map(|&l| lines[l]).collect()),
            _ => hi.rows().1,
        };
        v.into_iter().map(check_len).collect()
    }
);

#[no_mangle]
pub extern "system" fn Java_slog2_api_Overview_labels<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    h: jlong,
) -> JObject<'l> {
    guard(&mut env, EXC, |env| {
        let ids = ids(env)?;
        let v: Vec<String> = with(h, |o| {
            Ok(o.hierarchy
                .as_ref()
                .map(|hi| hi.nodes.iter().map(|n| n.label.clone()).collect())
                .unwrap_or_default())
        })?;
        env.with_local_frame_returning_local(4, |env| strings(env, ids, &v))
    })
}

array_native!(
    /// The p-curve as columns: p, gain, loss, parts.
    Java_slog2_api_Overview_curve() -> doubles,
    |o| {
        let c = &o.curve;
        let mut v: Vec<f64> = c.iter().map(|x| x.p).collect();
        v.extend(c.iter().map(|x| x.gain));
        v.extend(c.iter().map(|x| x.loss));
        v.extend(c.iter().map(|x| x.parts as f64));
        Ok(v)
    }
);

array_native!(
    /// The rectangles of the picture at `min_lines` lines per node, as
    /// columns: node, first, last, mode (category index or -1), kind.
    Java_slog2_api_Overview_rects(min_lines: jdouble) -> ints,
    |o| {
        let r = render_rects(o, min_lines);
        let cats = &o.cube.categories;
        let mut v = Vec::with_capacity(r.len() * 5);
        for col in 0..5 {
            for x in &r {
                v.push(match col {
                    0 => check_len(x.node)?,
                    1 => check_len(x.first)?,
                    2 => check_len(x.last)?,
                    3 => x.mode.map_or(-1, |m| cats[m]),
                    _ => x.kind as i32,
                });
            }
        }
        Ok(v)
    }
);
