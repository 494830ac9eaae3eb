//! # slog2 — the SLOG-2 scalable trace format
//!
//! SLOG-2 stores the drawables of a parallel program's trace (states, arrows,
//! events, composites) in a bounding-box tree over time, built in one pass, so
//! that a viewer reads only the tree nodes that intersect the time window it
//! shows. This crate reads and writes SLOG-2 **2.0.6** files exactly as
//! slog2sdk does, converts traces to it, and exports the library through a C
//! ABI (TRACE-API and SLOG2 APIs).
//!
//! Layers, from the model up (arrows point down: the model knows no bytes,
//! the codec no tree, and no layer knows a binding):
//! - [`model`]: categories, drawables, shadows, maps — no bytes, no files;
//! - [`mod@format`]: the byte codec of every block;
//! - [`mod@write`]: the one-pass tree writer (shadows, summaries, payload
//!   checks, atomic output);
//! - [`read`]: the memory-mapped reader (window queries, previews, window
//!   cursors, whole-file scans, popups, `check`, the reference-style dump);
//! - [`trace`]: trace sources (text, SLOG-2, CLOG2, C TRACE-API libraries)
//!   and the TRACE-API reading protocol;
//! - [`convert`]: source → checks → writer;
//! - [`error`]: [`Error`] and [`ErrorKind`], the one classification of
//!   failures that every binding maps.
//! - [`analysis`]: one-pass parallel folds over a time range's drawables: the
//!   overview cube (Ocelotl's aggregation) and the statistics (profiles,
//!   communication matrix, histograms, imbalance, idle time, comparison).
//!
//! The skins are crates of their own over this one and only translate:
//! `slog2-capi` (the C ABI, built as libslog2.{so,a} by `capi/lib`),
//! `slog2-jni` (the JVM binding) and the `slog2` CLI; `slog2-handles` is the
//! handle registry the two bindings share, `slog2-dev` the tooling
//! (synthetic traces, benchmark plans).

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::missing_safety_doc, clippy::undocumented_unsafe_blocks)]

pub mod analysis;
pub mod convert;
pub(crate) mod cputime;
pub mod error;
pub mod format;
pub(crate) mod javafmt;
pub mod model;
pub mod read;
#[cfg(test)]
#[path = "../dev/src/synth.rs"]
pub(crate) mod synth;
pub(crate) mod task;
pub mod trace;
pub mod write;

pub use error::{Error, ErrorKind, Result};
pub use model::*;
pub use read::Slog2File;
pub use write::{Slog2Writer, WriteSummary, WriterOptions};
