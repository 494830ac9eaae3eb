//! The natives of `slog2.api.Stats` (issue #30): static methods of the
//! package-private class `slog2.api.StatsNative`.
//!
//! Each native is one call that asks the core (`slog2::analysis`) for one
//! result and returns it as an `Object[]` of column arrays (`int[]`,
//! `long[]`, `double[]`, `String[]`), which `slog2.api.Stats` wraps into its
//! result classes — bulk, no object per row, and no constructor IDs to keep
//! in step with the Java classes. A window is `[t0, t1]` (NaN: the file's
//! start / end), states clipped unless `whole`. Each runs on its reader
//! through `crate::api::on_file`, so a panic retires the handle as in every
//! other native.

use jni::objects::{JClass, JDoubleArray, JObject, JObjectArray, JString};
use jni::sys::{jboolean, jdouble, jint, jlong};
use jni::JNIEnv;

use slog2::analysis::compare::compare_profiles;
use slog2::analysis::histogram::{auto_bins, histogram, instances, BinOf};
use slog2::analysis::imbalance::ImbalanceMetric;
use slog2::analysis::{Bins, Measure, Scope, Spacing, Stats, StatsOptions, TimeProfile};
use slog2::Slog2File;

use crate::api::on_file;
use crate::{guard, Fail, JResult};
use slog2::ErrorKind;

/// Errors are thrown as the `slog2.api` class of their kind.
const EXC: fn(ErrorKind) -> &'static str = crate::exception_class;

fn scope(f: &Slog2File, t0: f64, t1: f64, whole: jboolean) -> JResult<Scope> {
    let opt = |t: f64| (!t.is_nan()).then_some(t);
    let sc = Scope::of(f, opt(t0), opt(t1)).clipped(whole == 0);
    sc.check()?;
    Ok(sc)
}

/// A column: one Java array.
enum Col {
    I(Vec<i32>),
    J(Vec<i64>),
    D(Vec<f64>),
    S(Vec<String>),
}

fn len(n: usize) -> JResult<jint> {
    jint::try_from(n).map_err(|_| {
        Fail::new(
            ErrorKind::InvalidArgument,
            format!("slog2: {n} entries do not fit a Java array"),
        )
    })
}

/// `Object[]` of the columns, built in one local frame.
fn columns<'l>(env: &mut JNIEnv<'l>, cols: Vec<Col>) -> JResult<JObject<'l>> {
    env.with_local_frame_returning_local(cols.len() as i32 + 8, |env| {
        let arr = env.new_object_array(len(cols.len())?, "java/lang/Object", JObject::null())?;
        for (i, c) in cols.iter().enumerate() {
            let o: JObject = match c {
                Col::I(v) => {
                    let a = env.new_int_array(len(v.len())?)?;
                    env.set_int_array_region(&a, 0, v)?;
                    a.into()
                }
                Col::J(v) => {
                    let a = env.new_long_array(len(v.len())?)?;
                    env.set_long_array_region(&a, 0, v)?;
                    a.into()
                }
                Col::D(v) => {
                    let a = env.new_double_array(len(v.len())?)?;
                    env.set_double_array_region(&a, 0, v)?;
                    a.into()
                }
                Col::S(v) => {
                    let a =
                        env.new_object_array(len(v.len())?, "java/lang/String", JObject::null())?;
                    for (k, s) in v.iter().enumerate() {
                        let js = env.new_string(s)?;
                        env.set_object_array_element(&a, k as jint, &js)?;
                        env.delete_local_ref(js)?;
                    }
                    a.into()
                }
            };
            env.set_object_array_element(&arr, i as jint, &o)?;
            env.delete_local_ref(o)?;
        }
        Ok(arr.into())
    })
}

fn stats(f: &Slog2File, sc: &Scope, wait: Vec<String>) -> JResult<Stats> {
    Ok(Stats::compute(f, sc, &StatsOptions { wait })?)
}

#[no_mangle]
pub extern "system" fn Java_slog2_api_StatsNative_profile<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    h: jlong,
    t0: jdouble,
    t1: jdouble,
    whole: jboolean,
    by_line: jboolean,
) -> JObject<'l> {
    guard(&mut env, EXC, |env| {
        on_file(h, |f| {
            let s = stats(f, &scope(f, t0, t1, whole)?, Vec::new())?;
            let rows = if by_line != 0 {
                &s.by_line
            } else {
                &s.by_category
            };
            let c =
                |g: fn(&slog2::analysis::ProfileRow) -> f64| Col::D(rows.iter().map(g).collect());
            columns(
                env,
                vec![
                    Col::I(rows.iter().map(|r| r.line.unwrap_or(-1)).collect()),
                    Col::I(rows.iter().map(|r| r.category).collect()),
                    Col::J(rows.iter().map(|r| r.cell.count as i64).collect()),
                    c(|r| r.cell.inclusive),
                    c(|r| r.cell.exclusive),
                    c(|r| r.cell.min_or_nan()),
                    c(|r| r.cell.mean()),
                    c(|r| r.cell.max_or_nan()),
                ],
            )
        })
    })
}

#[no_mangle]
pub extern "system" fn Java_slog2_api_StatsNative_comm<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    h: jlong,
    t0: jdouble,
    t1: jdouble,
    whole: jboolean,
) -> JObject<'l> {
    guard(&mut env, EXC, |env| {
        on_file(h, |f| {
            let s = stats(f, &scope(f, t0, t1, whole)?, Vec::new())?;
            let r = &s.comm;
            columns(
                env,
                vec![
                    Col::I(r.iter().map(|x| x.from_line).collect()),
                    Col::I(r.iter().map(|x| x.to_line).collect()),
                    Col::I(r.iter().map(|x| x.category).collect()),
                    Col::J(r.iter().map(|x| x.count as i64).collect()),
                    Col::J(r.iter().map(|x| x.bytes.unwrap_or(-1)).collect()),
                ],
            )
        })
    })
}

fn string_list(env: &mut JNIEnv, a: &JObjectArray) -> JResult<Vec<String>> {
    if a.is_null() {
        return Ok(Vec::new());
    }
    let n = env.get_array_length(a)?;
    let mut v = Vec::with_capacity(n.max(0) as usize);
    for i in 0..n {
        let o = env.get_object_array_element(a, i)?;
        if o.is_null() {
            return Err(Fail::new(
                ErrorKind::InvalidArgument,
                format!("slog2: wait category {i} is null"),
            ));
        }
        let s: String = env.get_string(&JString::from(o))?.into();
        v.push(s);
    }
    Ok(v)
}

#[no_mangle]
pub extern "system" fn Java_slog2_api_StatsNative_idle<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    h: jlong,
    t0: jdouble,
    t1: jdouble,
    wait: JObjectArray<'l>,
) -> JObject<'l> {
    guard(&mut env, EXC, |env| {
        on_file(h, |f| {
            let wait = string_list(env, &wait)?;
            let rows = stats(f, &scope(f, t0, t1, 0)?, wait)?.idle();
            columns(
                env,
                vec![
                    Col::I(rows.iter().map(|x| x.line).collect()),
                    Col::D(rows.iter().map(|x| x.idle).collect()),
                    Col::D(rows.iter().map(|x| x.fraction).collect()),
                    Col::D(rows.iter().map(|x| x.no_state).collect()),
                    Col::D(rows.iter().map(|x| x.wait).collect()),
                ],
            )
        })
    })
}

#[no_mangle]
pub extern "system" fn Java_slog2_api_StatsNative_imbalance<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    h: jlong,
    t0: jdouble,
    t1: jdouble,
    inclusive: jboolean,
    top: jint,
) -> JObject<'l> {
    guard(&mut env, EXC, |env| {
        on_file(h, |f| {
            let top = usize::try_from(top)
                .map_err(|_| Fail::new(ErrorKind::InvalidArgument, "slog2: top must be >= 0"))?;
            let m = if inclusive != 0 {
                ImbalanceMetric::Inclusive
            } else {
                ImbalanceMetric::Exclusive
            };
            let rows = stats(f, &scope(f, t0, t1, 0)?, Vec::new())?.imbalance(m, top);
            let pad = |r: &slog2::analysis::imbalance::ImbalanceRow, i: usize| {
                r.worst.get(i).copied().unwrap_or((-1, f64::NAN))
            };
            columns(
                env,
                vec![
                    Col::I(rows.iter().map(|x| x.category).collect()),
                    Col::I(rows.iter().map(|x| x.lines as i32).collect()),
                    Col::D(rows.iter().map(|x| x.mean).collect()),
                    Col::D(rows.iter().map(|x| x.max).collect()),
                    Col::D(rows.iter().map(|x| x.ratio).collect()),
                    Col::I(
                        rows.iter()
                            .flat_map(|x| (0..top).map(move |i| pad(x, i).0))
                            .collect(),
                    ),
                    Col::D(
                        rows.iter()
                            .flat_map(|x| (0..top).map(move |i| pad(x, i).1))
                            .collect(),
                    ),
                ],
            )
        })
    })
}

fn measure(kind: jint, category: jint) -> JResult<Measure> {
    match kind {
        0 => Ok(Measure::Duration(category)),
        1 => Ok(Measure::MessageSize((category != -1).then_some(category))),
        k => Err(Fail::new(
            ErrorKind::InvalidArgument,
            format!("slog2: unknown histogram measure {k}"),
        )),
    }
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_slog2_api_StatsNative_histogram<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    h: jlong,
    t0: jdouble,
    t1: jdouble,
    whole: jboolean,
    kind: jint,
    category: jint,
    bins: jint,
    log: jboolean,
    lo: jdouble,
    hi: jdouble,
) -> JObject<'l> {
    guard(&mut env, EXC, |env| {
        on_file(h, |f| {
            let sc = scope(f, t0, t1, whole)?;
            let m = measure(kind, category)?;
            let n = usize::try_from(bins)
                .map_err(|_| Fail::new(ErrorKind::InvalidArgument, "slog2: bins must be >= 1"))?;
            let spacing = if log != 0 {
                Spacing::Log
            } else {
                Spacing::Linear
            };
            let opt = |t: f64| (!t.is_nan()).then_some(t);
            let cols = match auto_bins(f, &sc, m, n, spacing, opt(lo), opt(hi))? {
                None => vec![
                    Col::D(vec![]),
                    Col::J(vec![]),
                    Col::D(vec![]),
                    Col::J(vec![0, 0, 0]),
                ],
                Some(b) => {
                    let hg = histogram(f, &sc, m, b)?;
                    vec![
                        Col::D(hg.bins.edges.clone()),
                        Col::J(hg.counts.iter().map(|&c| c as i64).collect()),
                        Col::D(hg.sums.clone()),
                        Col::J(vec![hg.below as i64, hg.above as i64, hg.no_size as i64]),
                    ]
                }
            };
            columns(env, cols)
        })
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_slog2_api_StatsNative_instances<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    h: jlong,
    t0: jdouble,
    t1: jdouble,
    whole: jboolean,
    kind: jint,
    category: jint,
    edges: JDoubleArray<'l>,
    bin: jint,
    limit: jint,
) -> JObject<'l> {
    guard(&mut env, EXC, |env| {
        on_file(h, |f| {
            let sc = scope(f, t0, t1, whole)?;
            let m = measure(kind, category)?;
            if edges.is_null() {
                return Err(Fail::new(
                    ErrorKind::InvalidArgument,
                    "slog2: edges is null",
                ));
            }
            let n = env.get_array_length(&edges)?;
            let mut e = vec![0f64; n.max(0) as usize];
            env.get_double_array_region(&edges, 0, &mut e)?;
            let b = Bins::from_edges(e)?;
            let which = match bin {
                -1 => BinOf::Below,
                k if k >= 0 && (k as usize) < b.len() => BinOf::In(k as usize),
                k if k as usize == b.len() => BinOf::Above,
                k => {
                    return Err(Fail::new(
                        ErrorKind::InvalidArgument,
                        format!("slog2: bin {k} out of range"),
                    ))
                }
            };
            let limit = usize::try_from(limit).unwrap_or(0);
            let i = instances(f, &sc, m, &b, which, limit)?;
            columns(
                env,
                vec![
                    Col::D(i.start),
                    Col::D(i.end),
                    Col::I(i.line0),
                    Col::I(i.line1),
                    Col::I(i.category),
                    Col::D(i.value),
                    Col::S(i.text),
                    Col::J(vec![i.total as i64]),
                ],
            )
        })
    })
}

#[no_mangle]
pub extern "system" fn Java_slog2_api_StatsNative_timeProfile<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    h: jlong,
    t0: jdouble,
    t1: jdouble,
    slices: jint,
) -> JObject<'l> {
    guard(&mut env, EXC, |env| {
        on_file(h, |f| {
            let sc = scope(f, t0, t1, 0)?;
            let n = usize::try_from(slices)
                .map_err(|_| Fail::new(ErrorKind::InvalidArgument, "slog2: slices must be >= 1"))?;
            let tp = TimeProfile::compute(f, Some(sc.t0), Some(sc.t1), n, None)?;
            columns(
                env,
                vec![
                    Col::I(tp.categories.clone()),
                    Col::D(tp.values.clone()),
                    Col::D(vec![tp.grid.t0, tp.grid.t1]),
                ],
            )
        })
    })
}

#[no_mangle]
pub extern "system" fn Java_slog2_api_StatsNative_compare<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    ha: jlong,
    hb: jlong,
    t0: jdouble,
    t1: jdouble,
    whole: jboolean,
) -> JObject<'l> {
    guard(&mut env, EXC, |env| {
        on_file(ha, |fa| {
            on_file(hb, |fb| {
                let sa = stats(fa, &scope(fa, t0, t1, whole)?, Vec::new())?;
                let sb = stats(fb, &scope(fb, t0, t1, whole)?, Vec::new())?;
                let r = compare_profiles(fa, &sa.by_category, fb, &sb.by_category);
                let d = |g: fn(&slog2::analysis::compare::CompareRow) -> f64| {
                    Col::D(r.iter().map(g).collect())
                };
                columns(
                    env,
                    vec![
                        Col::S(r.iter().map(|x| x.name.clone()).collect()),
                        Col::J(r.iter().map(|x| x.a.count as i64).collect()),
                        Col::J(r.iter().map(|x| x.b.count as i64).collect()),
                        d(|x| x.a.inclusive),
                        d(|x| x.b.inclusive),
                        d(|x| x.inclusive_diff()),
                        d(|x| x.inclusive_rel()),
                        d(|x| x.a.exclusive),
                        d(|x| x.b.exclusive),
                        d(|x| x.exclusive_diff()),
                        d(|x| x.exclusive_rel()),
                    ],
                )
            })
        })
    })
}
