//! Natives of `Slog2Reader.counts()` and `Counts.DEFINITION`: the core's
//! [`Counts`](slog2::read::Counts), whose module holds the one definition of
//! a drawable count every binding reports.

use jni::objects::{JClass, JObject};
use jni::sys::jlong;
use jni::JNIEnv;

use crate::api::{longs, on_file, string, EXC};
use crate::guard;

/// `{drawables, composites, members, primitives, rows}` then, per category
/// (sorted by index), `index, drawables, members, stored` (stored -1 for an
/// index used but not defined): one long array, one call.
#[no_mangle]
pub extern "system" fn Java_slog2_api_Native_counts<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    h: jlong,
) -> JObject<'l> {
    guard(&mut env, EXC, |env| {
        let v = on_file(h, |f| {
            let c = f.counts()?;
            let i = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
            let mut v = vec![
                i(c.drawables),
                i(c.composites),
                i(c.members),
                i(c.primitives()),
                i(c.rows()),
            ];
            for k in &c.by_category {
                v.extend([
                    i64::from(k.index),
                    i(k.drawables),
                    i(k.members),
                    k.stored.unwrap_or(-1),
                ]);
            }
            Ok(v)
        })?;
        longs(env, &v)
    })
}

#[no_mangle]
pub extern "system" fn Java_slog2_api_Native_countDefinition<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
) -> JObject<'l> {
    guard(&mut env, EXC, |env| {
        string(env, slog2::read::counts::DEFINITION)
    })
}
