//! # slog2 — the SLOG-2 scalable trace format
//!
//! SLOG-2 stores the drawables of a parallel program's trace (states, arrows,
//! events, composites) in a bounding-box tree over time, built in one pass, so
//! that a viewer reads only the tree nodes that intersect the time window it
//! shows. This crate reads and writes SLOG-2 **2.0.6** files exactly as
//! slog2sdk does, converts traces to it, and exports the library through a C
//! ABI (TRACE-API and SLOG2 APIs).
//!
//! Layers (see `docs/architecture.md` in the shared contracts):
//! - [`model`]: categories, drawables, shadows, maps — no bytes, no files;
//! - [`mod@format`]: the byte codec of every block;
//! - [`mod@write`]: the one-pass tree writer (shadows, summaries, atomic output);
//! - [`read`]: the memory-mapped reader (window queries, previews, popups, dump);
//! - [`trace`]: trace sources and the converter;
//! - `capi`: the C ABI, a thin translation of the above.
//!
//! Only `capi` is scanned for the C headers: every other module is marked
//! `cbindgen:ignore` (its constants and types are not part of the C API).

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::missing_safety_doc, clippy::undocumented_unsafe_blocks)]

/// cbindgen:ignore
pub mod bench;
pub mod capi;
/// cbindgen:ignore
pub mod convert;
pub(crate) mod cputime;
/// cbindgen:ignore
pub mod error;
/// cbindgen:ignore
pub mod format;
/// cbindgen:ignore
pub mod javafmt;
/// cbindgen:ignore
pub mod model;
/// cbindgen:ignore
pub mod read;
/// cbindgen:ignore
pub mod synth;
/// cbindgen:ignore
pub mod trace;
/// cbindgen:ignore
pub mod write;

pub use error::{Error, Result};
pub use model::*;
pub use read::Slog2File;
pub use write::{Slog2Writer, WriteSummary, WriterOptions};
