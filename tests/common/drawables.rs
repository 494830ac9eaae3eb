//! Random drawables for the property tests that write files and check what
//! comes back (window queries, analyses): times on a 1/64 grid so that ties
//! and zero lengths are common, a few lines, the categories of [`cats`]
//! (states 1, 2 and the composite 5, arrow 3, event 4).

use proptest::prelude::*;
use slog2::*;

/// States 1 and 2, arrow 3 (`tag=%d`), event 4, composite state 5.
pub fn cats() -> Vec<Category> {
    let mut v = vec![
        Category::new(1, "S1", Topology::State, Color::rgba(1, 2, 3, 255), 1),
        Category::new(2, "S2", Topology::State, Color::rgba(4, 5, 6, 255), 1),
        Category::new(3, "A", Topology::Arrow, Color::rgba(7, 8, 9, 255), 3),
        Category::new(4, "E", Topology::Event, Color::rgba(9, 9, 9, 255), 5),
        Category::new(5, "C", Topology::State, Color::rgba(1, 1, 1, 255), 1),
    ];
    v[2].info = InfoFormat::parse("tag=%d").unwrap();
    v
}

/// A time on the 1/64 grid, up to 31.25.
pub fn time() -> impl Strategy<Value = f64> + Clone {
    (0u32..2000).prop_map(|x| x as f64 / 64.0)
}

/// One of lines 0..6.
pub fn line() -> impl Strategy<Value = i32> + Clone {
    0i32..6
}

/// A state of category 1 or 2, up to about 3 long.
pub fn state() -> impl Strategy<Value = Primitive> + Clone {
    (time(), 0u32..200, line(), 1i32..3)
        .prop_map(|(s, d, l, c)| Primitive::state(c, l, s, s + d as f64 / 64.0))
}

/// A state of category 1 crossing much of the time range.
pub fn long_state() -> impl Strategy<Value = Primitive> + Clone {
    (time(), line()).prop_map(|(s, l)| Primitive::state(1, l, s / 8.0, s + 20.0))
}

/// An arrow of category 3 between two lines, forwards or backwards in time,
/// and a tag for its info.
pub fn arrow() -> impl Strategy<Value = (Primitive, i32)> + Clone {
    (
        time(),
        0u32..100,
        line(),
        line(),
        any::<bool>(),
        any::<i32>(),
    )
        .prop_map(|(s, d, a, b, back, tag)| {
            let e = s + d as f64 / 64.0;
            let p = if back {
                Primitive::arrow(3, a, b, e, s)
            } else {
                Primitive::arrow(3, a, b, s, e)
            };
            (p, tag)
        })
}

/// An event of category 4.
pub fn event() -> impl Strategy<Value = Primitive> + Clone {
    (time(), line()).prop_map(|(s, l)| Primitive::event(4, l, s))
}

/// `prim` as top-level drawables, and one time in seven a composite of
/// category 5 holding one to four of them.
pub fn with_composites(
    prim: impl Strategy<Value = Primitive> + Clone + 'static,
) -> impl Strategy<Value = Drawable> {
    let composite = proptest::collection::vec(prim.clone(), 1..5).prop_map(|members| {
        Drawable::Composite(Composite {
            category: 5,
            info: Default::default(),
            members,
        })
    });
    prop_oneof![6 => prim.prop_map(Drawable::Primitive), 1 => composite]
}
