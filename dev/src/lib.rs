//! Tooling for slog2's benchmarks and tests, kept out of the core's public API.
//!
//! - [`synth`]: a deterministic synthetic MPI-like trace (the core's own unit
//!   tests compile the same file, as `crate::synth`);
//! - [`mod@bench`]: window-query benchmark plans and their timing (`slog2 bench`);
//! - [`replay`]: a plan replayed as a viewer moves (`slog2 bench replay`), our
//!   half of the comparison with the reference reader;
//! - [`names`]: a directory's entries, for tests that check what a write
//!   left behind.

// `synth.rs` is shared with the core's unit tests, where it names the model as
// `crate::model`: the same path resolves here through these re-exports.
pub(crate) use slog2::{error, model, read};

pub mod bench;
pub mod replay;
pub mod synth;

/// The names of the entries of `dir`, sorted (tests: no temporary file
/// left, the target replaced whole). Panics when `dir` cannot be read.
pub fn names(dir: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("a readable directory")
        .map(|e| {
            e.expect("a directory entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    v.sort();
    v
}
