//! OTF2 archives through the shipped reader plugin (`libslog2-otf2.so`,
//! readers/otf2, found like `slog2 convert` finds it: `SLOG2_PLUGIN_PATH`
//! first). An input is a whole small archive: its files joined by
//! [`SEP`], in the order of [`FILES`] (a part left out is a missing file,
//! parts beyond the list are ignored), so mutations damage any file, drop
//! files or merge them. The archive is converted (every record the plugin
//! yields, through the converter's checks and the writer): it must end in
//! a result, never a crash. (libotf2 opens each archive with chunk buffers
//! of megabytes, ≈ 15 ms per open under ASan: one open per input.)
//!
//! The plugin and libotf2 are C built without coverage instrumentation:
//! libFuzzer steers by this crate's coverage (what the plugin hands over
//! and how the converter takes it), and finds crashes anywhere.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;
use slog2::trace::plugin::{find_plugin, PluginOpen, PluginSource};

/// Separates the archive's files in an input (scripts/fuzz-seeds.sh).
pub const SEP: &[u8] = b"\n--slog2-otf2-file--\n";

/// The files of an archive of at most 8 locations, in input order.
const FILES: [&str; 18] = [
    "traces.otf2",
    "traces.def",
    "traces/0.def",
    "traces/0.evt",
    "traces/1.def",
    "traces/1.evt",
    "traces/2.def",
    "traces/2.evt",
    "traces/3.def",
    "traces/3.evt",
    "traces/4.def",
    "traces/4.evt",
    "traces/5.def",
    "traces/5.evt",
    "traces/6.def",
    "traces/6.evt",
    "traces/7.def",
    "traces/7.evt",
];

/// The plugin's path. The library stays loaded for the whole run (a handle
/// held here), so each input does not load libotf2 again and leak reports
/// can name the plugin's and libotf2's functions.
fn plugin() -> &'static PathBuf {
    static P: OnceLock<(PathBuf, libloading::Library)> = OnceLock::new();
    &P.get_or_init(|| {
        let p = find_plugin("libslog2-otf2.so");
        assert!(
            p.is_file(),
            "the OTF2 plugin libslog2-otf2.so was not found: set SLOG2_PLUGIN_PATH \
             (scripts/fuzz-run.sh builds it into fuzz/target/otf2-plugin)"
        );
        // SAFETY: the same library PluginSource::open loads for every input.
        let lib = unsafe { libloading::Library::new(&p) }.expect("load the OTF2 plugin");
        (p, lib)
    })
    .0
}

fn split(data: &[u8]) -> Vec<&[u8]> {
    let mut parts = Vec::new();
    let mut rest = data;
    while parts.len() < FILES.len() {
        match rest.windows(SEP.len()).position(|w| w == SEP) {
            Some(i) => {
                parts.push(&rest[..i]);
                rest = &rest[i + SEP.len()..];
            }
            None => {
                parts.push(rest);
                break;
            }
        }
    }
    parts
}

fuzz_target!(|data: &[u8]| {
    let lib = plugin();
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("traces")).unwrap();
    for (name, bytes) in FILES.iter().zip(split(data)) {
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    let anchor = dir.path().join("traces.otf2");
    let spec = anchor.to_str().unwrap();
    if let Ok(PluginOpen::Source(mut s)) = PluginSource::open(lib, spec) {
        common::convert_into(&mut s, dir.path());
    }
});
