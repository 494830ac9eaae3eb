//! Chunk mode: the parser a worker thread of [`crate::trace::text_par`]
//! runs over one chunk of a large file (whole lines, whole composites).
//!
//! It is the same record parser as the sequential [`super::TextSource`]
//! with one difference, made by its [`Infos`] rather than by flags: info
//! text is not encoded but recorded as a [`DeferredInfo`], because the
//! category label it needs may be defined in an earlier chunk that another
//! thread parses. The consumer encodes the deferred info in file order
//! ([`super::InfoFormats`]), so records, errors and line numbers are those
//! of the sequential parser.

use std::ops::Range;

use super::info::{DeferredInfo, InfoAt, Infos};
use super::lexer::{Cur, PResult};
use super::lines::Lines;
use super::records::Parser;
use crate::error::Error;
use crate::model::{Category, InfoBytes};
use crate::trace::Record;

/// Records info text for later instead of encoding it.
#[derive(Default)]
struct Defer(Vec<DeferredInfo>);

impl Infos for Defer {
    /// Labels are defined by the consumer, in file order.
    fn define(&mut self, _: &Category) {}

    fn info(&mut self, c: &mut Cur, at: InfoAt) -> PResult<InfoBytes> {
        self.0.push(DeferredInfo {
            record: 0,
            target: at.member,
            category: at.category,
            line_no: c.line,
            line: at.line,
            open: at.open,
            body: at.body,
            close: at.close,
        });
        Ok(InfoBytes::new())
    }
}

/// Parses chunks of one text file (see the module documentation); one per
/// worker thread, reused for every chunk it parses.
pub(crate) struct ChunkParser {
    p: Parser,
    deferred: Defer,
}

impl ChunkParser {
    /// Lines of the last parsed chunk that were no record, and the first
    /// of them (a line number of the file).
    pub(crate) fn skipped(&self) -> (u64, usize) {
        (self.p.skipped_lines, self.p.first_skipped)
    }

    /// A parser for chunks of the file called `name` (in messages).
    pub(crate) fn new(name: &str) -> Self {
        ChunkParser {
            p: Parser::new(name, Lines::from_vec(Vec::new())),
            deferred: Defer::default(),
        }
    }

    /// Parse `buf`, whose first line is line `first_line` of the file:
    /// append its records to `recs`, the line of each to `lines`, and its
    /// info texts to `deferred` (with the index of their record in `recs`).
    /// Returns the buffer (what the `DeferredInfo` ranges refer to) and the
    /// first error; the records before it are kept.
    pub(crate) fn parse(
        &mut self,
        buf: Vec<u8>,
        first_line: usize,
        recs: &mut Vec<Record>,
        lines: &mut Vec<usize>,
        deferred: &mut Vec<DeferredInfo>,
    ) -> (Vec<u8>, Option<Error>) {
        let p = &mut self.p;
        p.lines = Lines::from_vec(buf);
        p.line_no = first_line - 1;
        p.cur = 0..0;
        p.pending_line = false;
        p.skipped_lines = 0;
        p.first_skipped = 0;
        self.deferred.0.clear();
        let mut error = None;
        let (mut pos, mut line) = (0, first_line);
        loop {
            let buf = &p.lines.buf[..p.lines.len];
            if pos >= buf.len() {
                break;
            }
            // Primitive lines, the bulk of a trace, are cut out here
            // directly; everything else goes through the parser's own line
            // handling.
            let r = if buf[pos..].starts_with(b"Primitive") {
                let (nl, next) = match memchr::memchr(b'\n', &buf[pos..]) {
                    Some(k) => (pos + k, pos + k + 1),
                    None => (buf.len(), buf.len()),
                };
                let end = if nl > pos && buf[nl - 1] == b'\r' {
                    nl - 1
                } else {
                    nl
                };
                let r = primitive_at(p, &mut self.deferred, pos..end, line)
                    .map(|prim| Some(Record::Primitive(prim)));
                pos = next;
                line += 1;
                r
            } else {
                p.lines.pos = pos;
                p.lines.scanned = pos;
                p.line_no = line - 1;
                let r = p.next_record(&mut self.deferred);
                (pos, line) = (p.lines.pos, p.line_no + 1);
                r
            };
            for mut d in self.deferred.0.drain(..) {
                d.record = recs.len() as u32;
                deferred.push(d);
            }
            match r {
                Ok(Some(r)) => {
                    recs.push(r);
                    lines.push(p.record_line);
                }
                Ok(None) => break,
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
        let buf = std::mem::replace(&mut p.lines, Lines::from_vec(Vec::new())).buf;
        (buf, error)
    }
}

/// Parse `range` of the chunk, line `line`, as a primitive line (what
/// `next_record` does with a line starting `Primitive`, without the line
/// splitting around it).
fn primitive_at(
    p: &mut Parser,
    deferred: &mut Defer,
    range: Range<usize>,
    line: usize,
) -> crate::Result<crate::trace::TracePrimitive> {
    p.cur = range;
    p.line_no = line;
    p.record_line = line;
    p.parse_primitive_line(deferred, 0).map_err(|e| *e)
}
