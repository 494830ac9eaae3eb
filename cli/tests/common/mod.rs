//! Helpers shared by the CLI tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The shared fixtures, `../shared/fixtures` beside the repository (never
/// copied into it).
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures")
}

/// `../shared/fixtures/REL`.
pub fn fixture(rel: &str) -> PathBuf {
    fixtures().join(rel)
}
