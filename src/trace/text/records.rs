//! The record parser: lines into records, with the general (checked,
//! any spelling) parsers for primitives and composites. Info text goes
//! through an [`Infos`]: encoded at once by the sequential source, recorded
//! for later by a chunk parser. Categories and y-maps: [`super::defs`];
//! the whole-line fast path for usual primitive lines: [`super::fast`].

use std::ops::Range;

use super::fast::fast_primitive;
use super::info::{InfoAt, Infos};
use super::lexer::{angle, find, Cur, PResult};
use super::lines::Lines;
use crate::error::{Error, Result, TextLocation};
use crate::model::*;
use crate::trace::{Record, TraceComposite, TracePrimitive};

/// Lines and the parsing state of one text input: where the current line
/// is, its number, what was skipped. Shared by [`super::TextSource`] and
/// [`super::chunk::ChunkParser`].
pub(super) struct Parser {
    pub name: String,
    pub lines: Lines,
    /// The current line, as a range of `lines.buf`.
    pub cur: Range<usize>,
    pub line_no: usize,
    pub record_line: usize,
    /// Bytes of the input consumed (the offset of the next line).
    pub bytes_read: u64,
    /// The current line has been read but not parsed yet.
    pub pending_line: bool,
    /// Lines that are no record (e.g. a mistyped keyword; blank lines and `#`
    /// comments are not counted): the
    /// reference skips them silently; we skip them too but count them and
    /// keep the first one's line number for the report.
    pub skipped_lines: u64,
    pub first_skipped: usize,
}

impl Parser {
    pub(super) fn new(name: &str, lines: Lines) -> Self {
        Parser {
            name: name.to_string(),
            lines,
            cur: 0..0,
            line_no: 0,
            record_line: 0,
            bytes_read: 0,
            pending_line: false,
            skipped_lines: 0,
            first_skipped: 0,
        }
    }

    /// The next record of the lines (from the pending line first, if
    /// any), skipping lines that are no record; `None` at the end.
    pub(super) fn next_record<I: Infos>(&mut self, infos: &mut I) -> Result<Option<Record>> {
        loop {
            // `next_records` may have read the line already.
            if !std::mem::take(&mut self.pending_line) && !self.next_line()? {
                return Ok(None);
            }
            self.record_line = self.line_no;
            let l = &self.lines.buf[self.cur.clone()];
            match l.first() {
                Some(b'P') if l.starts_with(b"Primitive") => {
                    return Ok(Some(Record::Primitive(
                        self.parse_primitive_line(infos, 0).map_err(|e| *e)?,
                    )))
                }
                Some(b'C') if l.starts_with(b"Category") => {
                    return Ok(Some(Record::Category(Box::new(
                        self.parse_category(infos).map_err(|e| *e)?,
                    ))))
                }
                Some(b'C') if l.starts_with(b"Composite") => {
                    return Ok(Some(Record::Composite(Box::new(
                        self.parse_composite(infos).map_err(|e| *e)?,
                    ))))
                }
                Some(b'Y') if l.starts_with(b"YCoordMap") => {
                    return Ok(Some(Record::YCoordMap(Box::new(
                        self.parse_ycoordmap().map_err(|e| *e)?,
                    ))))
                }
                _ => {
                    // Blank lines and `#` comments are no records by design;
                    // anything else (a mistyped keyword) is counted.
                    let first = l.iter().find(|b| !b.is_ascii_whitespace());
                    if first.is_some_and(|&b| b != b'#') {
                        if self.skipped_lines == 0 {
                            self.first_skipped = self.line_no;
                        }
                        self.skipped_lines += 1;
                    }
                }
            }
        }
    }

    /// Next physical line becomes the current line (without its `\n` or
    /// `\r\n`); false at EOF.
    pub(super) fn next_line(&mut self) -> Result<bool> {
        let next = self.lines.next().map_err(|e| {
            if super::lines::LineTooLong::is(&e) {
                Error::Parse {
                    loc: crate::error::TextLocation {
                        file: self.name.clone(),
                        line: self.line_no + 1,
                        column: 1,
                    },
                    detail: e.to_string(),
                }
            } else {
                Error::io(&self.name, e)
            }
        })?;
        match next {
            None => Ok(false),
            Some((range, consumed)) => {
                self.cur = range;
                self.bytes_read += consumed as u64;
                self.line_no += 1;
                Ok(true)
            }
        }
    }

    pub(super) fn cursor(&self) -> Cur<'_> {
        Cur {
            s: &self.lines.buf[self.cur.clone()],
            p: 0,
            file: &self.name,
            line: self.line_no,
        }
    }

    pub(super) fn parse_primitive_line<I: Infos>(
        &self,
        infos: &mut I,
        member: u32,
    ) -> PResult<TracePrimitive> {
        let mut c = self.cursor();
        if let Some((stated, category, vertices, p)) = fast_primitive(c.s) {
            c.p = p;
            let info = self.info(&mut c, category, infos, member)?;
            return Ok(TracePrimitive {
                stated,
                primitive: Primitive::new(category, vertices, info),
            });
        }
        let (stated, category) = c.drawable_head()?;
        let mut vertices = Vertices::new();
        while c.peek() == Some(b'(') {
            c.p += 1;
            let t = c.double()?;
            c.lit(b",")?;
            let l = c.int()?;
            c.lit(b")")?;
            c.ws();
            vertices.push(Vertex::new(t, l));
        }
        if vertices.is_empty() {
            return Err(c.err("expected at least one vertex '(time, lineID)'"));
        }
        let info = self.info(&mut c, category, infos, member)?;
        Ok(TracePrimitive {
            stated,
            primitive: Primitive::new(category, vertices, info),
        })
    }

    /// Optional `< TEXT >` after the cursor, encoded with the category's
    /// label. Only whitespace may come before it (or before the closing `]`
    /// or the end of the line): anything else would be a vertex or count
    /// that the reference silently drops, e.g. `(0.1, 0) , (0.2, 0)`.
    /// `infos` encodes it now or records it for later (chunk mode);
    /// `member` is 0 for the record's own info, k for composite member k-1.
    fn info<I: Infos>(
        &self,
        c: &mut Cur,
        category: i32,
        infos: &mut I,
        member: u32,
    ) -> PResult<InfoBytes> {
        c.ws();
        if c.peek().is_some_and(|b| b != b'<' && b != b']') {
            return Err(c.err(
                "unexpected text: expected a vertex '(time, lineID)', info '< ... >' or ']'",
            ));
        }
        // Most lines end in ` ]`: no `<`, no info.
        if !c.s[c.p..].contains(&b'<') {
            return Ok(InfoBytes::new());
        }
        let Some((open, body, close)) = angle(c.s, c.p) else {
            if let Some(open) = find(c.s, c.p, b"< ") {
                c.p = open;
                return Err(c.err("info '< ' has no closing ' >'"));
            }
            return Ok(InfoBytes::new());
        };
        c.p = open;
        infos.info(
            c,
            InfoAt {
                category,
                member,
                line: self.cur.clone(),
                open,
                body,
                close,
            },
        )
    }

    fn parse_composite<I: Infos>(&mut self, infos: &mut I) -> PResult<TraceComposite> {
        let (stated, category, n, info) = {
            let mut c = self.cursor();
            let (stated, category) = c.drawable_head()?;
            c.lit(b"NumPrimes=")?;
            c.ws();
            let n_at = c.p;
            let n = c.int()?;
            if n < 1 {
                c.p = n_at;
                return Err(c.err(&format!(
                    "NumPrimes={n}: a composite needs at least one member"
                )));
            }
            c.ws();
            let info = self.info(&mut c, category, infos, 0)?;
            (stated, category, n as usize, info)
        };
        let header_line = self.line_no;
        let mut members = Vec::with_capacity(n.min(1 << 16));
        let mut member_boxes = Vec::with_capacity(n.min(1 << 16));
        for i in 0..n {
            if !self.next_line().map_err(Box::new)? {
                return Err(Box::new(Error::Parse {
                    loc: TextLocation {
                        file: self.name.clone(),
                        line: self.line_no + 1,
                        column: 1,
                    },
                    detail: format!(
                        "end of file inside the composite of line {header_line}: \
                         member {} of NumPrimes={n} missing",
                        i + 1
                    ),
                }));
            }
            if !self.cursor().s.starts_with(b"Primitive") {
                return Err(self.cursor().err(&format!(
                    "the composite of line {header_line} needs {n} member lines; \
                     member {} of {n} is not a Primitive line",
                    i + 1
                )));
            }
            let p = self.parse_primitive_line(infos, i as u32 + 1)?;
            member_boxes.push(p.stated);
            members.push(p.primitive);
        }
        Ok(TraceComposite {
            stated,
            member_boxes,
            composite: Composite {
                category,
                info,
                members,
            },
        })
    }
}

/// `NumPrimes` of a composite header line, if it parses (for cutting a
/// file into chunks that hold whole composites; errors are left to the
/// parser of the chunk).
pub(crate) fn composite_member_count(line: &[u8]) -> Option<usize> {
    let mut c = Cur {
        s: line,
        p: 0,
        file: "",
        line: 0,
    };
    c.drawable_head().ok()?;
    c.lit(b"NumPrimes=").ok()?;
    c.ws();
    let n = c.int().ok()?;
    usize::try_from(n).ok().filter(|n| *n >= 1)
}
