//! One error type for the whole library.
//!
//! Every variant that comes from bytes on disk carries the byte offset where the
//! problem was found, and every variant that comes from a text trace carries the
//! file, line and column, so a user can open the file at the right place.
//!
//! [`ErrorKind`] is the one classification of failures that every binding
//! maps, exhaustively and in one place each: the C ABI to its integer codes,
//! JNI to Java exception classes, Python to exception classes. A new variant
//! of [`Error`] must choose its kind here, and a new kind fails to compile in
//! every skin until it is mapped there.

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

/// What kind of failure an [`Error`] is: the stable classification every
/// binding maps (C codes, Java exception classes, Python exception classes).
///
/// Kinds are about what the *caller* can do: fix an argument, fix or replace
/// a file, fix the input's order, retry after an OS problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// Operating-system I/O failure (the message names the file).
    Io,
    /// A file is not valid SLOG-2 (or a binary input is damaged): the message
    /// gives the byte offset.
    Format,
    /// Drawables out of non-decreasing end-time order.
    Order,
    /// A drawable breaks a rule of the format (box, vertices, category, payload).
    InvalidDrawable,
    /// A text trace record could not be parsed (`file:line:column`).
    Parse,
    /// An argument is out of range or inconsistent.
    InvalidArgument,
    /// A trace source (a C TRACE library, a plugin) reported an error.
    Source,
    /// The input held no drawable; nothing was written.
    NoDrawables,
    /// Valid, but not supported by this implementation.
    Unsupported,
    /// A handle or object was used after it was closed (or never existed).
    Closed,
    /// A call is not allowed in the object's current state (e.g. unbalanced
    /// calls of a sequential protocol).
    State,
}

impl ErrorKind {
    /// Every kind, for tests that check a mapping is one-to-one.
    pub const ALL: [ErrorKind; 11] = [
        ErrorKind::Io,
        ErrorKind::Format,
        ErrorKind::Order,
        ErrorKind::InvalidDrawable,
        ErrorKind::Parse,
        ErrorKind::InvalidArgument,
        ErrorKind::Source,
        ErrorKind::NoDrawables,
        ErrorKind::Unsupported,
        ErrorKind::Closed,
        ErrorKind::State,
    ];
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

    /// A file changed under a reader that had it open (truncated or
    /// rewritten in place by another process; see `read::guard`).
    #[error(
        "{path} changed while it was open (another process truncated or rewrote it): reopen it"
    )]
    FileChanged { path: PathBuf },

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

    #[error("drawable #{index} ends at {} but the previous one ended at {}: input must come in non-decreasing end time{location}", crate::model::TimeText(*.end), crate::model::TimeText(*.prev_end))]
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

    /// `what` names the object, e.g. "SLOG2 file handle".
    #[error("{what} is closed or unknown")]
    Closed { what: String },

    #[error("{0}")]
    State(String),

    /// An SLOG-2 file was expected but `path` holds a trace slog2 converts
    /// (`what`, e.g. "an MPE CLOG2 log"): the reader's error plus the command
    /// that makes the SLOG-2 file.
    #[error("{source}; {path} is {what}: convert it first with `slog2 convert {path} -o {out}`")]
    NeedsConversion {
        source: Box<Error>,
        path: String,
        what: &'static str,
        out: String,
    },
}

impl Error {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
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

    /// The kind of failure (what the bindings map to codes and classes).
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Io { .. } | Error::FileChanged { .. } => ErrorKind::Io,
            Error::BadVersion { .. }
            | Error::Truncated { .. }
            | Error::BlockOutOfRange { .. }
            | Error::Malformed { .. } => ErrorKind::Format,
            Error::OrderViolation { .. } => ErrorKind::Order,
            Error::InvalidDrawable { .. } => ErrorKind::InvalidDrawable,
            Error::Parse { .. } => ErrorKind::Parse,
            Error::InvalidArgument(_) => ErrorKind::InvalidArgument,
            Error::Source(_) => ErrorKind::Source,
            Error::NoDrawables => ErrorKind::NoDrawables,
            Error::Unsupported(_) => ErrorKind::Unsupported,
            Error::Closed { .. } => ErrorKind::Closed,
            Error::State(_) => ErrorKind::State,
            Error::NeedsConversion { source, .. } => source.kind(),
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
