//! What several fuzz targets do last: convert a source, whatever it yields;
//! run the analyses on a file, whatever they find.

use std::path::Path;

/// Convert `source` into `dir/o.slog2` with the default options; the result
/// (a file or an error) is what the converter gives, never a crash.
#[allow(dead_code)]
pub fn convert_into(source: &mut dyn slog2::trace::TraceSource, dir: &Path) {
    let _ = slog2::convert::convert(
        source,
        &dir.join("o.slog2"),
        &Default::default(),
        &mut |_| {},
        &mut |_| {},
    );
}

/// The analyses' walks on `f`: the statistics of the whole file and of
/// half of it, and both overviews (drawables, no cache).
#[allow(dead_code)]
pub fn analyses(f: &slog2::Slog2File) {
    use slog2::analysis::{overview, CacheUse, OverviewSpec, PChoice, Scope, Stats};
    let _ = Stats::compute(f, &Scope::whole(f), &Default::default());
    let tb = f.total_time();
    let mid = tb.start + (tb.end - tb.start) / 2.0;
    let _ = Stats::compute(f, &Scope::window(tb.start, mid), &Default::default());
    for st in [None, Some(None)] {
        let spec = OverviewSpec {
            slices: 6,
            spatiotemporal: st,
            p: PChoice::Value(0.5),
            cache: CacheUse::Off,
            ..OverviewSpec::default()
        };
        let _ = overview(f, &spec);
    }
}
