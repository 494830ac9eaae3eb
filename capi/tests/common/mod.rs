//! Helpers shared by the C ABI's Rust tests: where the shared fixtures are.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `../shared/fixtures/REL`, beside the repository (never copied into it).
pub fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/fixtures")
        .join(rel)
}
