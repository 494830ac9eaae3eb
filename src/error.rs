//! One error type for the whole library.
//!
//! Every variant that comes from bytes on disk carries the byte offset where the
//! problem was found, and every variant that comes from a text trace carries the
//! file, line and column, so a user can open the file at the right place. The C
//! ABI maps each variant to a stable integer code (`Error::code`).

use std::path::PathBuf;

/// Result alias used across the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Where in a text input something went wrong (1-based line and column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextLocation {
    pub file: String,
    pub line: usize,
    pub column: usize,
}

impl std::fmt::Display for TextLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("I/O error on {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// `found`: the first bytes where the version belongs, escaped (at most 16).
    #[error("not an SLOG-2 2.0.6 file: it starts with \"{found}\" where \"SLOG 2.0.6\" belongs")]
    BadVersion { found: String },

    #[error("truncated {what} at byte offset {offset}: need {need} more byte(s), {have} left")]
    Truncated {
        what: &'static str,
        offset: u64,
        need: usize,
        have: usize,
    },

    #[error("{what} block pointer ({size} bytes @ {offset}) is outside the file of {file_len} bytes or invalid")]
    BlockOutOfRange {
        what: &'static str,
        offset: i64,
        size: i32,
        file_len: u64,
    },

    #[error("malformed {what} at byte offset {offset}: {detail}")]
    Malformed {
        what: &'static str,
        offset: u64,
        detail: String,
    },

    #[error("drawable #{index} ends at {end} but the previous one ended at {prev_end}: input must come in non-decreasing end time{location}")]
    OrderViolation {
        index: u64,
        end: f64,
        prev_end: f64,
        /// Source location text such as " (data.txt:15)", may be empty.
        location: String,
    },

    #[error("invalid drawable #{index}: {detail}{location}")]
    InvalidDrawable {
        index: u64,
        detail: String,
        location: String,
    },

    #[error("{loc}: {detail}")]
    Parse { loc: TextLocation, detail: String },

    #[error("invalid argument: {0}")]
    InvalidArgument(String),

    #[error("trace source error: {0}")]
    Source(String),

    #[error("no drawable found in the input; no output file written")]
    NoDrawables,

    #[error("unsupported: {0}")]
    Unsupported(String),
}

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn malformed(what: &'static str, offset: u64, detail: impl Into<String>) -> Self {
        Error::Malformed {
            what,
            offset,
            detail: detail.into(),
        }
    }

    /// Byte offset in the file where the error was found, when known.
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Truncated { offset, .. } | Error::Malformed { offset, .. } => Some(*offset),
            Error::BlockOutOfRange { offset, .. } => Some((*offset).max(0) as u64),
            _ => None,
        }
    }
}
