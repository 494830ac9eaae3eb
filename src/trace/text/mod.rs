//! The slog2sdk sample text trace format (`trace-api.md` §3), read strictly.
//!
//! The reference reader parses this format with unchecked `sscanf` into
//! fixed-size buffers; we keep its grammar (records start in column 0 with
//! `Category`, `YCoordMap`, `Primitive` or `Composite`; every other line is a
//! comment; a space in a pattern matches any run of whitespace, including
//! none) but check everything: a malformed record is an
//! [`Error::Parse`](crate::Error::Parse) naming file, 1-based line and column, never garbage.
//! Lines are at most [`MAX_LINE`] (16 MiB) long, checked while a line is
//! read; names and labels at most 32,767 bytes (the format's limit).
//!
//! Records come back in file order; nothing is sorted and time order is not
//! checked here (the converter checks it).
//!
//! Where we are stricter than, or differ from, the reference:
//!
//! * Info payloads are encoded from the category's label, one value per `%`
//!   token, big-endian (`%d %x` 4 bytes, `%h` 2, `%l %X` 8, `%e` f32, `%E`
//!   f64, `%s` i16 length + bytes), matching the label's literal text with the
//!   scanf whitespace rule (a whitespace character of the label matches any
//!   run of whitespace, including none). For labels of two 4-byte tokens (all
//!   reference fixtures) this gives the reference's bytes exactly. Info that
//!   does not match the label, info on a category without a label, and info on
//!   a category not defined yet are errors (the reference produces garbage or
//!   drops the bytes). `%s` reads a whitespace-free word, as scanf does.
//! * Methods `{ … }` keep **every** integer (the reference keeps only the
//!   first: `{ 1 2 }` gives it the single ID 1).
//! * The colour flag must be `true)` or `false)`; it sets
//!   [`Color::modifiable`](crate::model::Color::modifiable) (the reference ignores it).
//! * Category indices must be `>= 0` (negative ones are the converter's
//!   preview categories), colour components 0..=255, the width must fit an
//!   `i8`, `topo=` must start with `Event`, `State` or `Arrow`.
//! * A primitive needs at least one vertex (any number is accepted); a
//!   composite needs `NumPrimes >= 1` and exactly that many following lines,
//!   each a `Primitive` line (the reference parses whatever comes).
//! * A y-map needs `Ncolumns >= 2`, `Nrows >= 1`, exactly `Ncolumns - 1`
//!   column names, exactly `Nrows` rows and `Nmethods` method IDs. Rows are
//!   returned in file order.
//! * Doubles: anything `strtod` accepts (decimal with exponent,
//!   `inf`/`infinity`, `nan`/`nan(…)`, hexadecimal floats `0x1.8p3`);
//!   integers: optional sign and decimal digits, range-checked.
//!
//! Speed: the file is read in large chunks into one reused buffer and parsed
//! in place (no per-line allocation); a gzip input's inflated chunks are
//! parsed where the inflating thread put them (`lines::HandedOver`). Primitive lines in their usual
//! spelling — the bulk of a trace — are parsed whole straight from the
//! buffer by a fixed-window parser that finds the line's end by parsing it
//! (no newline search, no per-byte bounds checks, vertex times that repeat
//! the box's text compared instead of parsed, `%d` info matched against the
//! label word by word); anything else goes line by line through the general
//! parser, which gives the same records for what the fast path accepts and
//! all the error messages (`tests/text_fast_path.rs` holds them to that).
//! Numbers are parsed straight from the bytes (eight digits at a time, exact
//! Clinger fast path for plain decimals, fast-float2 for the rest).
//!
//! # Pieces
//!
//! * `lexer`: the line cursor and number parsing;
//! * `records`: lines into records, the general primitive and composite
//!   parsers; `defs`: category and y-map records;
//! * `fast`: the whole-line fast path for usual primitive lines;
//! * `info`: category labels prepared for encoding info text, and when the
//!   text is encoded (`Infos`: at once, or deferred in chunk mode);
//! * `lines`: the input in one growable buffer, seekable when it can be;
//! * [`TextSource`] (`source`): the sequential source, with checkpoints;
//! * `chunk`: `ChunkParser`, chunk mode for the parallel parser
//!   ([`crate::trace::text_par`]).

mod chunk;
mod defs;
mod fast;
mod info;
mod lexer;
mod lines;
mod records;
mod source;

pub(crate) use chunk::ChunkParser;
pub(crate) use info::{DeferredInfo, InfoFormats};
pub(crate) use lines::LineTooLong;
pub use lines::MAX_LINE;
pub(crate) use records::composite_member_count;
pub(crate) use source::skipped_message;
pub use source::{from_read, TextSource};
