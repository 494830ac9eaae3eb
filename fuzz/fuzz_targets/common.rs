//! What several fuzz targets do last: convert a source, whatever it yields.

use std::path::Path;

/// Convert `source` into `dir/o.slog2` with the default options; the result
/// (a file or an error) is what the converter gives, never a crash.
pub fn convert_into(source: &mut dyn slog2::trace::TraceSource, dir: &Path) {
    let _ = slog2::convert::convert(
        source,
        &dir.join("o.slog2"),
        &Default::default(),
        &mut |_| {},
        &mut |_| {},
    );
}
