//! The slog2sdk sample text trace format (`trace-api.md` §3), read strictly.
//!
//! The reference reader parses this format with unchecked `sscanf` into
//! fixed-size buffers; we keep its grammar (records start in column 0 with
//! `Category`, `YCoordMap`, `Primitive` or `Composite`; every other line is a
//! comment; a space in a pattern matches any run of whitespace, including
//! none) but check everything: a malformed record is an
//! [`Error::Parse`] naming file, 1-based line and column, never garbage.
//! There are no length limits (lines, names, labels, vertices, columns).
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
//!   [`Color::modifiable`] (the reference ignores it).
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
//! in place (no per-line allocation). Primitive lines in their usual
//! spelling — the bulk of a trace — are parsed whole straight from the
//! buffer by a fixed-window parser that finds the line's end by parsing it
//! (no newline search, no per-byte bounds checks, vertex times that repeat
//! the box's text compared instead of parsed, `%d` info matched against the
//! label word by word); anything else goes line by line through the general
//! parser, which gives the same records for what the fast path accepts and
//! all the error messages (`tests/text_fast_path.rs` holds them to that).
//! Numbers are parsed straight from the bytes (eight digits at a time, exact
//! Clinger fast path for plain decimals, fast-float2 for the rest).

use std::fs::File;
use std::io::{BufRead, Read};
use std::ops::Range;
use std::path::Path;

use crate::error::{Error, Result, TextLocation};

/// Internal result: a boxed error keeps the hot parsing functions' results
/// small (returned in registers).
type PResult<T> = std::result::Result<T, Box<Error>>;
use crate::model::*;
use crate::trace::{Checkpoint, Record, TraceComposite, TracePrimitive, TraceSource};

/// A trace in the sample text format.
pub struct TextSource {
    name: String,
    lines: Lines,
    /// The current line, as a range of `lines.buf`.
    cur: Range<usize>,
    line_no: usize,
    record_line: usize,
    bytes_read: u64,
    total_bytes: Option<u64>,
    /// Each defined category's label, prepared for encoding info text
    /// (shared with the [`checkpoints`](TraceSource::checkpoint) taken since
    /// the last definition: copied on the next one only).
    formats: std::sync::Arc<rustc_hash::FxHashMap<i32, InfoPlan>>,
    /// Chunk mode (parallel parsing, `text_par`): info text is not encoded
    /// but recorded here, because the category labels it needs may be
    /// defined in an earlier chunk that another thread parses.
    deferred: Option<std::cell::RefCell<Vec<DeferredInfo>>>,
    /// Where deferred info goes: 0 the record itself, k composite member k-1.
    defer_target: std::cell::Cell<u32>,
    /// `next_records`: line of each record handed over, and an error to
    /// report after them.
    batch_lines: Vec<usize>,
    stashed: Option<Error>,
    /// The current line has been read but not parsed yet.
    pending_line: bool,
    /// Lines that are no record (e.g. a mistyped keyword; blank lines and `#`
    /// comments are not counted): the
    /// reference skips them silently; we skip them too but count them and
    /// keep the first one's line number for the report.
    skipped_lines: u64,
    first_skipped: usize,
}

/// Where a [`TextSource`] was between two records (see
/// [`TraceSource::checkpoint`]).
struct TextCheckpoint {
    offset: u64,
    line_no: usize,
    skipped_lines: u64,
    first_skipped: usize,
    formats: std::sync::Arc<rustc_hash::FxHashMap<i32, InfoPlan>>,
}

/// Info text found in chunk mode, to be encoded by the consumer in file order.
#[derive(Debug, Clone)]
pub(crate) struct DeferredInfo {
    /// Index of the record in its chunk (set by the chunk's parser thread).
    pub record: u32,
    /// 0: the record's own info; k: the info of composite member k-1.
    pub target: u32,
    pub category: i32,
    pub line_no: usize,
    /// The line, as a range of the chunk's buffer; the positions below are
    /// relative to it (as `angle` returns them).
    pub line: Range<usize>,
    pub open: usize,
    pub body: usize,
    pub close: usize,
}

impl TextSource {
    /// Open a file.
    pub fn open(path: &Path) -> Result<Self> {
        let f = File::open(path).map_err(|e| Error::io(path, e))?;
        let meta = f.metadata().ok();
        let total = meta.as_ref().map(|m| m.len());
        // A regular file can go back to a checkpoint; a FIFO or a device
        // named by its path cannot.
        let input: Box<dyn Input> = if meta.is_some_and(|m| m.is_file()) {
            Box::new(Seekable(f))
        } else {
            Box::new(Plain(f))
        };
        let mut s = Self::with_input(&path.display().to_string(), input);
        s.total_bytes = total;
        Ok(s)
    }

    /// Read from any buffered reader; `name` is used in error messages and
    /// [`location`](TraceSource::location).
    pub fn from_reader(name: &str, r: impl BufRead + Send + 'static) -> Self {
        Self::from_read(name, r)
    }

    /// Read from any reader (it is read in large chunks, so it need not be
    /// buffered).
    pub fn from_read(name: &str, r: impl Read + Send + 'static) -> Self {
        Self::with_input(name, Box::new(Plain(r)))
    }

    fn with_input(name: &str, input: Box<dyn Input>) -> Self {
        TextSource {
            name: name.to_string(),
            lines: Lines::new(input),
            cur: 0..0,
            line_no: 0,
            record_line: 0,
            bytes_read: 0,
            total_bytes: None,
            formats: Default::default(),
            deferred: None,
            defer_target: std::cell::Cell::new(0),
            batch_lines: Vec::new(),
            stashed: None,
            pending_line: false,
            skipped_lines: 0,
            first_skipped: 0,
        }
    }

    /// A parser for one chunk of a larger file (whole lines, whole
    /// composites) whose first line is line `first_line`, with info text
    /// deferred (see [`DeferredInfo`]).
    pub(crate) fn for_chunk(name: &str, buf: Vec<u8>, first_line: usize) -> Self {
        let mut s = Self::from_read(name, std::io::empty());
        s.lines = Lines::from_vec(buf);
        s.cur = 0..0;
        s.line_no = first_line - 1;
        s.deferred = Some(Default::default());
        s
    }

    /// Chunk mode: parse `buf` next, its first line being `first_line`.
    pub(crate) fn set_chunk(&mut self, buf: Vec<u8>, first_line: usize) {
        self.lines = Lines::from_vec(buf);
        self.line_no = first_line - 1;
        self.cur = 0..0;
        if let Some(d) = &self.deferred {
            d.borrow_mut().clear();
        }
    }

    /// Chunk mode: the chunk's buffer back (what [`DeferredInfo`] ranges
    /// refer to).
    pub(crate) fn take_chunk(&mut self) -> Vec<u8> {
        std::mem::replace(&mut self.lines, Lines::from_vec(Vec::new())).buf
    }

    /// Bytes read from the input so far (a seek to a checkpoint reads on
    /// from there: this shows how much was read again).
    pub fn bytes_fetched(&self) -> u64 {
        self.lines.fetched
    }

    /// Line number of the record last returned.
    pub(crate) fn record_line(&self) -> usize {
        self.record_line
    }

    /// Chunk mode: the chunk's bytes.
    pub(crate) fn chunk_buf(&self) -> &[u8] {
        &self.lines.buf[..self.lines.len]
    }

    /// Chunk mode: go on at byte `pos` of the chunk, which starts line `line`.
    pub(crate) fn seek_chunk(&mut self, pos: usize, line: usize) {
        self.lines.pos = pos;
        self.lines.scanned = pos;
        self.line_no = line - 1;
    }

    /// Chunk mode: the byte position and line number to go on at.
    pub(crate) fn chunk_pos(&self) -> (usize, usize) {
        (self.lines.pos, self.line_no + 1)
    }

    /// Chunk mode: parse `range` of the chunk, line `line`, as a primitive
    /// line (what `next_record` does with a line starting `Primitive`,
    /// without the line splitting around it).
    pub(crate) fn primitive_at(
        &mut self,
        range: Range<usize>,
        line: usize,
    ) -> Result<TracePrimitive> {
        self.cur = range;
        self.line_no = line;
        self.record_line = line;
        self.parse_primitive_line().map_err(|e| *e)
    }

    /// Chunk mode: take the info recorded since the last call.
    pub(crate) fn take_deferred(&self, into: &mut Vec<DeferredInfo>) {
        if let Some(d) = &self.deferred {
            into.append(&mut d.borrow_mut());
        }
    }

    /// Parse a text held in memory (tests, small inputs).
    pub fn from_str(name: &str, text: &str) -> Self {
        let mut s = Self::with_input(
            name,
            Box::new(Seekable(std::io::Cursor::new(text.as_bytes().to_vec()))),
        );
        s.total_bytes = Some(text.len() as u64);
        s
    }

    /// Next physical line becomes the current line (without its `\n` or
    /// `\r\n`); false at EOF.
    fn next_line(&mut self) -> Result<bool> {
        match self.lines.next().map_err(|e| Error::io(&self.name, e))? {
            None => Ok(false),
            Some((range, consumed)) => {
                self.cur = range;
                self.bytes_read += consumed as u64;
                self.line_no += 1;
                Ok(true)
            }
        }
    }

    fn cursor(&self) -> Cur<'_> {
        Cur {
            s: &self.lines.buf[self.cur.clone()],
            p: 0,
            file: &self.name,
            line: self.line_no,
        }
    }

    fn parse_primitive_line(&self) -> PResult<TracePrimitive> {
        let mut c = self.cursor();
        if let Some((stated, category, vertices, p)) = fast_primitive(c.s) {
            c.p = p;
            let info = self.info(&mut c, category)?;
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
        let info = self.info(&mut c, category)?;
        Ok(TracePrimitive {
            stated,
            primitive: Primitive::new(category, vertices, info),
        })
    }

    /// Optional `< TEXT >` after the cursor, encoded with the category's
    /// label. Only whitespace may come before it (or before the closing `]`
    /// or the end of the line): anything else would be a vertex or count
    /// that the reference silently drops, e.g. `(0.1, 0) , (0.2, 0)`.
    fn info(&self, c: &mut Cur, category: i32) -> PResult<InfoBytes> {
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
        if let Some(d) = &self.deferred {
            d.borrow_mut().push(DeferredInfo {
                record: 0,
                target: self.defer_target.get(),
                category,
                line_no: c.line,
                line: self.cur.clone(),
                open,
                body,
                close,
            });
            return Ok(InfoBytes::new());
        }
        encode_with(&self.formats, c, category, body, close)
    }

    fn parse_category(&mut self) -> PResult<Category> {
        let mut c = self.cursor();
        c.skip_token();
        c.ws();
        c.lit(b"index=")?;
        let index_at = c.p;
        let index = c.int()?;
        if index < 0 {
            c.p = index_at;
            return Err(c.err(
                "category index must be >= 0 (negative indices are reserved for preview categories)",
            ));
        }
        c.ws();
        c.lit(b"name=")?;
        let name = String::from_utf8_lossy(c.name()?).into_owned();
        c.ws();
        c.lit(b"topo=")?;
        c.ws();
        let topo_at = c.p;
        let topo = c.name()?;
        let topology = match topo.get(..5) {
            Some(b"Event") => Topology::Event,
            Some(b"State") => Topology::State,
            Some(b"Arrow") => Topology::Arrow,
            _ => {
                c.p = topo_at;
                return Err(c.err(&format!(
                    "unknown topology {:?} (expected Event, State or Arrow)",
                    String::from_utf8_lossy(topo)
                )));
            }
        };
        c.ws();
        c.lit(b"color=(")?;
        let mut rgba = [0u8; 4];
        for v in rgba.iter_mut() {
            c.ws();
            let at = c.p;
            let x = c.int()?;
            *v = u8::try_from(x).map_err(|_| {
                c.p = at;
                c.err(&format!("colour component {x} is outside 0..255"))
            })?;
            c.lit(b",")?;
        }
        c.ws();
        let flag_at = c.p;
        let modifiable = match c.name()? {
            b"true)" => true,
            b"false)" => false,
            other => {
                c.p = flag_at;
                return Err(c.err(&format!(
                    "expected the colour flag 'true)' or 'false)', found {:?}",
                    String::from_utf8_lossy(other)
                )));
            }
        };
        c.ws();
        c.lit(b"width=")?;
        c.ws();
        let wat = c.p;
        let w = c.int()?;
        let width = i8::try_from(w).map_err(|_| {
            c.p = wat;
            c.err(&format!(
                "width {w} does not fit one signed byte (-128..127)"
            ))
        })?;
        let mut info = InfoFormat::default();
        if let Some((_, body, close)) = angle(c.s, c.p) {
            let label = String::from_utf8_lossy(&c.s[body..close]).into_owned();
            c.p = body;
            info = InfoFormat::parse(&label).map_err(|e| c.err(&e))?;
            if let Some(&t) = info.tokens.iter().find(|t| !INFO_TOKENS.contains(t)) {
                return Err(c.err(&format!(
                    "label {label:?}: token '%{}' is not one of %d %h %l %x %X %e %E %s",
                    t as char
                )));
            }
            c.p = close + 2;
        } else if let Some(open) = find(c.s, c.p, b"< ") {
            c.p = open;
            return Err(c.err("label '< ' has no closing ' >'"));
        }
        let methods = braces(&mut c)?.unwrap_or_default();
        let mut cat = Category::new(
            index,
            name,
            topology,
            Color {
                modifiable,
                ..Color::rgba(rgba[0], rgba[1], rgba[2], rgba[3])
            },
            width,
        );
        cat.info = info;
        cat.methods = methods;
        std::sync::Arc::make_mut(&mut self.formats).insert(index, InfoPlan::new(&cat.info));
        Ok(cat)
    }

    fn parse_ycoordmap(&self) -> PResult<YCoordMap> {
        let mut c = self.cursor();
        c.skip_token();
        c.ws();
        c.lit(b"Nrows=")?;
        c.ws();
        let nrows_at = c.p;
        let nrows = c.int()?;
        c.ws();
        c.lit(b"Ncolumns=")?;
        c.ws();
        let ncols_at = c.p;
        let ncols = c.int()?;
        c.ws();
        c.lit(b"Nmethods=")?;
        c.ws();
        let nm_at = c.p;
        let nmethods = c.int()?;
        if ncols < 2 {
            c.p = ncols_at;
            return Err(c.err(&format!(
                "Ncolumns={ncols}: a y-map needs the line-ID column and at least one more"
            )));
        }
        if nrows < 1 {
            c.p = nrows_at;
            return Err(c.err(&format!("Nrows={nrows}: a y-map needs at least one row")));
        }
        if nmethods < 0 {
            c.p = nm_at;
            return Err(c.err(&format!("Nmethods={nmethods} is negative")));
        }
        c.ws();
        c.lit(b"title=")?;
        let title = String::from_utf8_lossy(c.name()?).into_owned();
        c.ws();
        c.lit(b"colnames=<")?;
        let mut column_labels = Vec::new();
        loop {
            c.ws();
            match c.peek() {
                Some(b'>') => {
                    c.p += 1;
                    break;
                }
                None => return Err(c.err("column names '<' have no closing '>'")),
                _ => column_labels.push(String::from_utf8_lossy(c.name()?).into_owned()),
            }
        }
        if column_labels.len() != ncols as usize - 1 {
            return Err(c.err(&format!(
                "{} column name(s) given, Ncolumns={ncols} needs {}",
                column_labels.len(),
                ncols - 1
            )));
        }
        let mut rows = Vec::with_capacity((nrows as usize).min(1 << 16));
        for r in 0..nrows {
            c.ws();
            if c.peek() != Some(b'(') {
                return Err(c.err(&format!(
                    "expected row {} of Nrows={nrows}: '( lineID value... )' with {ncols} integers",
                    r + 1
                )));
            }
            c.p += 1;
            let line = c.int()?;
            let mut vals = Vec::with_capacity(ncols as usize - 1);
            for _ in 1..ncols {
                vals.push(c.int()?);
            }
            c.ws();
            if c.peek() != Some(b')') {
                return Err(c.err(&format!(
                    "expected ')' closing row {} (Ncolumns={ncols} integers per row)",
                    r + 1
                )));
            }
            c.p += 1;
            rows.push((line, vals));
        }
        c.ws();
        if c.peek() == Some(b'(') {
            return Err(c.err(&format!("more rows than Nrows={nrows}")));
        }
        let methods = braces(&mut c)?.unwrap_or_default();
        if methods.len() != nmethods as usize {
            c.p = nm_at;
            return Err(c.err(&format!(
                "Nmethods={nmethods} but {} method ID(s) follow in '{{ }}'",
                methods.len()
            )));
        }
        Ok(YCoordMap {
            title,
            column_labels,
            rows,
            methods,
        })
    }

    fn parse_composite(&mut self) -> PResult<TraceComposite> {
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
            let info = self.info(&mut c, category)?;
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
            self.defer_target.set(i as u32 + 1);
            let p = self.parse_primitive_line();
            self.defer_target.set(0);
            let p = p?;
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

impl TraceSource for TextSource {
    fn next_record(&mut self) -> Result<Option<Record>> {
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
                        self.parse_primitive_line().map_err(|e| *e)?,
                    )))
                }
                Some(b'C') if l.starts_with(b"Category") => {
                    return Ok(Some(Record::Category(Box::new(
                        self.parse_category().map_err(|e| *e)?,
                    ))))
                }
                Some(b'C') if l.starts_with(b"Composite") => {
                    return Ok(Some(Record::Composite(Box::new(
                        self.parse_composite().map_err(|e| *e)?,
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

    /// `FILE:LINE` of the last record returned (a composite: its header line).
    fn location(&self) -> String {
        format!("{}:{}", self.name, self.record_line)
    }

    /// Up to 256 records at a time (a batch that stays in the first-level
    /// cache); an error comes after the records before it.
    fn next_records(&mut self, out: &mut Vec<Record>) -> Result<()> {
        out.clear();
        self.batch_lines.clear();
        if let Some(e) = self.stashed.take() {
            return Err(e);
        }
        let fast = self.deferred.is_none();
        while out.len() < 256 {
            // Usual primitive lines straight from the buffer.
            if fast {
                if let Some((p, n)) = window_line(self.lines.rest(), &self.formats) {
                    self.lines.pos += n;
                    self.bytes_read += n as u64;
                    self.line_no += 1;
                    self.record_line = self.line_no;
                    out.push(Record::Primitive(p));
                    self.batch_lines.push(self.line_no);
                    continue;
                }
            }
            // Other primitive lines, without the record dispatch of
            // `next_record`.
            if !self.next_line()? {
                break;
            }
            self.record_line = self.line_no;
            if self.lines.buf[self.cur.clone()].starts_with(b"Primitive") {
                match self.parse_primitive_line() {
                    Ok(p) => {
                        out.push(Record::Primitive(p));
                        self.batch_lines.push(self.record_line);
                        continue;
                    }
                    Err(e) if out.is_empty() => return Err(*e),
                    Err(e) => {
                        self.stashed = Some(*e);
                        break;
                    }
                }
            }
            // Anything else: hand the line back to `next_record`.
            self.pending_line = true;
            match self.next_record() {
                Ok(Some(r)) => {
                    out.push(r);
                    self.batch_lines.push(self.record_line);
                }
                Ok(None) => break,
                Err(e) if out.is_empty() => return Err(e),
                Err(e) => {
                    self.stashed = Some(e);
                    break;
                }
            }
        }
        Ok(())
    }

    fn skipped(&self) -> Option<String> {
        (self.skipped_lines > 0).then(|| {
            format!(
                "{} line(s) of {} are no record and were skipped (first: line {}; a mistyped keyword?)",
                self.skipped_lines, self.name, self.first_skipped
            )
        })
    }

    fn location_of(&self, i: usize) -> String {
        match self.batch_lines.get(i) {
            Some(l) => format!("{}:{}", self.name, l),
            None => self.location(),
        }
    }

    /// Between [`next_record`](TraceSource::next_record) calls on a
    /// seekable input (a regular file, a text in memory): the byte offset
    /// and line number of the next line, the skipped-line count and the
    /// categories defined so far (shared, not copied). `None` for a pipe,
    /// in chunk mode, and in the middle of a [`next_records`] batch.
    fn checkpoint(&mut self) -> Option<Checkpoint> {
        if !self.lines.src.can_seek()
            || self.deferred.is_some()
            || self.pending_line
            || self.stashed.is_some()
        {
            return None;
        }
        Some(Checkpoint::new(TextCheckpoint {
            offset: self.bytes_read,
            line_no: self.line_no,
            skipped_lines: self.skipped_lines,
            first_skipped: self.first_skipped,
            formats: self.formats.clone(),
        }))
    }

    /// Seek the file to the checkpoint's byte offset and restore the parser
    /// state it recorded: the records that follow are exactly those that
    /// followed when it was taken (categories defined later are forgotten,
    /// so info on them is an error again).
    fn restore(&mut self, cp: &Checkpoint) -> Result<()> {
        let cp = cp.get::<TextCheckpoint>().ok_or_else(|| {
            Error::InvalidArgument(format!("{}: not a checkpoint of a text trace", self.name))
        })?;
        match self.lines.seek(cp.offset) {
            None => {
                return Err(Error::Unsupported(format!(
                    "{}: cannot seek (not a regular file)",
                    self.name
                )))
            }
            Some(r) => r.map_err(|e| Error::io(&self.name, e))?,
        }
        self.cur = 0..0;
        self.line_no = cp.line_no;
        self.record_line = cp.line_no;
        self.bytes_read = cp.offset;
        self.formats = cp.formats.clone();
        self.skipped_lines = cp.skipped_lines;
        self.first_skipped = cp.first_skipped;
        self.pending_line = false;
        self.stashed = None;
        self.batch_lines.clear();
        Ok(())
    }

    /// A composite's members are the lines right after its header line
    /// (nothing may come between them).
    fn member_location(&self, i: usize, member: usize) -> String {
        let line = self.batch_lines.get(i).copied().unwrap_or(self.record_line);
        format!("{}:{}", self.name, line + 1 + member)
    }

    /// Bytes read so far over the file size (when the size is known).
    fn progress(&self) -> Option<f64> {
        self.total_bytes
            .filter(|t| *t > 0)
            .map(|t| (self.bytes_read as f64 / t as f64).min(1.0))
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

/// Read from any `Read` — kept for callers of the earlier free function.
pub fn from_read(name: &str, r: impl Read + Send + 'static) -> TextSource {
    TextSource::from_read(name, r)
}

/// Splits a reader into lines inside one growable buffer: a line is handed
/// out as a range of `buf`, valid until the next call. The unconsumed input
/// is also open to the whole-line fast path ([`window_line`]), which finds the
/// end of a line by parsing it, so most lines are never searched for their
/// newline.
struct Lines {
    src: Box<dyn Input>,
    /// Bytes read from `src` so far (tests check that a seek reads from
    /// the checkpoint, not from the start).
    fetched: u64,
    buf: Vec<u8>,
    /// Start of the unconsumed data.
    pos: usize,
    /// End of the valid data.
    len: usize,
    /// `buf[pos..scanned]` is known to hold no newline (a partial line).
    scanned: usize,
    eof: bool,
}

impl Lines {
    const CHUNK: usize = 1 << 18;

    fn new(src: Box<dyn Input>) -> Self {
        Lines {
            src,
            fetched: 0,
            buf: vec![0; Self::CHUNK],
            pos: 0,
            len: 0,
            scanned: 0,
            eof: false,
        }
    }

    /// Lines of a buffer holding the whole input.
    fn from_vec(buf: Vec<u8>) -> Self {
        Lines {
            src: Box::new(Plain(std::io::empty())),
            fetched: 0,
            len: buf.len(),
            buf,
            pos: 0,
            scanned: 0,
            eof: true,
        }
    }

    /// The unconsumed input in the buffer (whole lines and perhaps the
    /// start of one more).
    #[inline(always)]
    fn rest(&self) -> &[u8] {
        &self.buf[self.pos..self.len]
    }

    /// The next line without its line end (`\n` or `\r\n`), and the bytes
    /// it used up.
    fn next(&mut self) -> std::io::Result<Option<(Range<usize>, usize)>> {
        loop {
            let from = self.scanned.max(self.pos);
            let found = memchr::memchr(b'\n', &self.buf[from..self.len]).map(|k| from + k);
            let (nl, next) = match found {
                Some(nl) => (nl, nl + 1),
                None if self.eof => {
                    if self.pos == self.len {
                        return Ok(None);
                    }
                    // The last line, without a line end.
                    (self.len, self.len)
                }
                None => {
                    self.scanned = self.len;
                    self.fill()?;
                    continue;
                }
            };
            let st = self.pos;
            self.pos = next;
            let end = if nl > st && self.buf[nl - 1] == b'\r' {
                nl - 1
            } else {
                nl
            };
            return Ok(Some((st..end, next - st)));
        }
    }

    /// Move the partial line at `pos` to the front, grow the buffer if it
    /// is mostly full, and read more.
    fn fill(&mut self) -> std::io::Result<()> {
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.len, 0);
            self.len -= self.pos;
            self.scanned -= self.pos.min(self.scanned);
            self.pos = 0;
        }
        if self.buf.len() - self.len < Self::CHUNK / 2 {
            self.buf.resize(self.buf.len() * 2, 0);
        }
        let n = loop {
            match self.src.read(&mut self.buf[self.len..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        self.len += n;
        self.fetched += n as u64;
        self.eof = n == 0;
        Ok(())
    }

    /// Go on reading at byte `offset` of the input, with an empty buffer;
    /// `None` when the input cannot seek.
    fn seek(&mut self, offset: u64) -> Option<std::io::Result<()>> {
        let r = self.src.seek_to(offset)?;
        self.pos = 0;
        self.len = 0;
        self.scanned = 0;
        self.eof = false;
        Some(r)
    }
}

/// What a [`TextSource`] reads from: any reader, and a seekable one (a file,
/// a buffer in memory) can also go back to a checkpoint.
trait Input: Read + Send {
    /// Go to byte `offset` from the start; `None` when it cannot.
    fn seek_to(&mut self, offset: u64) -> Option<std::io::Result<()>> {
        let _ = offset;
        None
    }
    fn can_seek(&self) -> bool {
        false
    }
}

/// A reader that cannot seek (a pipe, a stream).
struct Plain<R>(R);

impl<R: Read> Read for Plain<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0.read(buf)
    }
}

impl<R: Read + Send> Input for Plain<R> {}

/// A reader that can seek (a regular file, a buffer in memory).
struct Seekable<R>(R);

impl<R: Read> Read for Seekable<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0.read(buf)
    }
}

impl<R: Read + std::io::Seek + Send> Input for Seekable<R> {
    fn seek_to(&mut self, offset: u64) -> Option<std::io::Result<()>> {
        Some(self.0.seek(std::io::SeekFrom::Start(offset)).map(|_| ()))
    }
    fn can_seek(&self) -> bool {
        true
    }
}

/// First occurrence of a two-byte pattern at or after `from`.
#[inline]
fn find(s: &[u8], from: usize, pat: &[u8; 2]) -> Option<usize> {
    if s.len() < from + 64 {
        // Short rests (usually " ]"): a plain scan beats memchr's setup.
        return s
            .get(from..)?
            .windows(2)
            .position(|w| w == pat)
            .map(|k| from + k);
    }
    let mut i = from;
    while i < s.len() {
        let j = i + memchr::memchr(pat[0], &s[i..])?;
        if s.get(j + 1) == Some(&pat[1]) {
            return Some(j);
        }
        i = j + 1;
    }
    None
}

/// `< TEXT >` at or after `from`: (position of `<`, start of TEXT, position of
/// the closing ` >`). `< >` is an empty TEXT.
fn angle(s: &[u8], from: usize) -> Option<(usize, usize, usize)> {
    let open = find(s, from, b"< ")?;
    let close = find(s, open + 1, b" >")?;
    Some((open, (open + 2).min(close), close))
}

/// Optional `{ INT ... }` after the cursor.
fn braces(c: &mut Cur) -> PResult<Option<Vec<i32>>> {
    let Some(open) = find(c.s, c.p, b"{ ") else {
        return Ok(None);
    };
    let Some(close) = find(c.s, open + 1, b" }") else {
        c.p = open;
        return Err(c.err("methods '{ ' have no closing ' }'"));
    };
    let mut inner = Cur {
        s: &c.s[..close],
        p: (open + 2).min(close),
        file: c.file,
        line: c.line,
    };
    let mut v = Vec::new();
    loop {
        inner.ws();
        if inner.peek().is_none() {
            break;
        }
        v.push(inner.int()?);
    }
    c.p = close + 2;
    Ok(Some(v))
}

/// A category label prepared for encoding info text: the literal text
/// before each token and after the last one, split into whitespace-free
/// pieces (matched exactly) and whitespace (matching any run, even empty).
#[derive(Clone)]
struct InfoPlan {
    fmt: InfoFormat,
    tokens: Vec<u8>,
    /// `tokens.len() + 1` literals: before each token, then the tail.
    lits: Vec<Vec<Piece>>,
    /// The same literals as written in the label, when the label is the
    /// usual MPE kind — at most four `%d` tokens, literals of at most 16
    /// bytes without a `>`: info spelled exactly like it is then encoded
    /// without the general matcher ([`InfoPlan::encode_exact`]), comparing
    /// a word at a time. Without a `>` in a literal the first ` >` after the
    /// info's `< ` (where the general parser ends the info) is the one right
    /// after the last literal, so the whole-line fast path ([`window_line`])
    /// can match info without first finding where it ends.
    exact: Option<Vec<Lit>>,
}

/// A short literal, compared with one 16-byte load where the input has room.
#[derive(Clone)]
struct Lit {
    text: Box<[u8]>,
    word: u128,
    mask: u128,
}

impl Lit {
    fn new(text: &[u8]) -> Lit {
        let mut b = [0u8; 16];
        b[..text.len()].copy_from_slice(text);
        Lit {
            text: text.into(),
            word: u128::from_le_bytes(b),
            mask: low_bytes_mask(text.len()),
        }
    }

    /// The position after the literal if `s[p..]` starts with it.
    #[inline(always)]
    fn matches(&self, s: &[u8], p: usize) -> Option<usize> {
        let n = self.text.len();
        let same = match s.get(p..p + 16) {
            Some(w) => (load16(w) ^ self.word) & self.mask == 0,
            None => s.get(p..p + n)? == &self.text[..],
        };
        same.then_some(p + n)
    }
}

/// 16 bytes as a little-endian integer.
#[inline(always)]
fn load16(w: &[u8]) -> u128 {
    let mut b = [0u8; 16];
    b.copy_from_slice(&w[..16]);
    u128::from_le_bytes(b)
}

/// `s[p..]` starts with `lit` (a literal of the format): whole-word
/// compares instead of a byte loop or a `memcmp` call.
#[inline(always)]
fn lit_at<const N: usize>(s: &[u8], p: usize, lit: &[u8; N]) -> bool {
    match s.get(p..p + N) {
        Some(x) => {
            let mut a = [0u8; N];
            a.copy_from_slice(x);
            a == *lit
        }
        None => false,
    }
}

#[derive(Clone)]
enum Piece {
    Exact(Box<[u8]>),
    Ws,
}

impl InfoPlan {
    fn new(fmt: &InfoFormat) -> Self {
        let split = |k: &str| -> Vec<Piece> {
            let mut v = Vec::new();
            let b = k.as_bytes();
            let mut i = 0;
            while i < b.len() {
                let st = i;
                if b[i].is_ascii_whitespace() {
                    while i < b.len() && b[i].is_ascii_whitespace() {
                        i += 1;
                    }
                    v.push(Piece::Ws);
                } else {
                    while i < b.len() && !b[i].is_ascii_whitespace() {
                        i += 1;
                    }
                    v.push(Piece::Exact(b[st..i].into()));
                }
            }
            v
        };
        let lead = fmt.keys.len() > fmt.tokens.len();
        let mut keys = fmt.keys.iter();
        let mut lits = vec![if lead {
            split(keys.next().map_or("", |k| k.as_str()))
        } else {
            Vec::new()
        }];
        for _ in &fmt.tokens {
            lits.push(split(keys.next().map_or("", |k| k.as_str())));
        }
        let exact = fmt
            .tokens
            .iter()
            .all(|t| *t == b'd')
            .then(|| {
                let mut keys = fmt.keys.iter().map(|k| k.as_bytes());
                let mut v: Vec<&[u8]> = vec![if lead {
                    keys.next().unwrap_or_default()
                } else {
                    b""
                }];
                for _ in &fmt.tokens {
                    v.push(keys.next().unwrap_or_default());
                }
                v
            })
            .filter(|e| e.len() <= 5 && e.iter().all(|l| l.len() <= 16 && !l.contains(&b'>')))
            .map(|e| e.into_iter().map(Lit::new).collect());
        InfoPlan {
            fmt: fmt.clone(),
            tokens: fmt.tokens.clone(),
            lits,
            exact,
        }
    }

    /// Info at `s[at..]` spelled exactly like the label (literals and `%d`
    /// values, see `exact`): its encoding and the position after the last
    /// literal; `None` for the general matcher (which gives the same bytes
    /// or the error).
    #[inline]
    fn encode_exact(&self, s: &[u8], at: usize) -> Option<(InfoBytes, usize)> {
        let lits = self.exact.as_deref()?;
        let mut out = [0u8; 16];
        let mut p = at;
        let (last, values) = lits.split_last()?;
        for (k, lit) in values.iter().enumerate() {
            p = lit.matches(s, p)?;
            let (v, n) = fast_int(s.get(p..)?)?;
            p += n;
            out[4 * k..4 * k + 4].copy_from_slice(&v.to_be_bytes());
        }
        p = last.matches(s, p)?;
        Some((InfoBytes::from_buf_and_len(out, 4 * values.len()), p))
    }

    /// Match literal `k` at the cursor.
    #[inline]
    fn literal(&self, t: &mut Cur, k: usize) -> PResult<()> {
        for piece in &self.lits[k] {
            match piece {
                Piece::Ws => t.ws(),
                Piece::Exact(e) => match t.s.get(t.p..t.p + e.len()) {
                    Some(x) if same_bytes(x, e) => t.p += e.len(),
                    _ => {
                        // Point at the first byte that differs.
                        let same = t.s[t.p..]
                            .iter()
                            .zip(e.iter())
                            .take_while(|(a, b)| a == b)
                            .count();
                        t.p += same;
                        return Err(t.err(&format!(
                            "info does not match the category label {:?}: expected {:?}",
                            self.fmt.label(),
                            String::from_utf8_lossy(&e[same..])
                        )));
                    }
                },
            }
        }
        Ok(())
    }
}

/// Info text `c.s[body..close]` (the cursor at its `<`) encoded with the
/// label of `category`.
fn encode_with(
    formats: &rustc_hash::FxHashMap<i32, InfoPlan>,
    c: &mut Cur,
    category: i32,
    body: usize,
    close: usize,
) -> PResult<InfoBytes> {
    let Some(fmt) = formats.get(&category) else {
        return Err(c.err(&format!(
            "info given but category {category} is not defined yet \
             (define categories before the drawables that use them)"
        )));
    };
    if fmt.fmt.is_empty() {
        return Err(c.err(&format!(
            "info given but category {category} has no label to encode it with"
        )));
    }
    encode_info(fmt, &c.s[..close], body, c)
}

/// The labels of the categories defined so far, for encoding deferred info
/// in file order (the consumer side of parallel parsing).
#[derive(Default)]
pub(crate) struct InfoFormats(rustc_hash::FxHashMap<i32, InfoPlan>);

impl InfoFormats {
    pub fn define(&mut self, c: &Category) {
        self.0.insert(c.index, InfoPlan::new(&c.info));
    }

    /// Encode one deferred info; `buf` is the chunk buffer it refers to.
    pub fn encode(&self, file: &str, buf: &[u8], d: &DeferredInfo) -> Result<InfoBytes> {
        let mut c = Cur {
            s: &buf[d.line.clone()],
            p: d.open,
            file,
            line: d.line_no,
        };
        encode_with(&self.0, &mut c, d.category, d.body, d.close).map_err(|e| *e)
    }
}

/// Match `text[from..]` against the label (scanf rules) and encode the values.
fn encode_info(plan: &InfoPlan, text: &[u8], from: usize, c: &Cur) -> PResult<InfoBytes> {
    if let Some((b, end)) = plan.encode_exact(text, from) {
        if text[end..].iter().all(|b| b.is_ascii_whitespace()) {
            return Ok(b);
        }
    }
    let mut t = Cur {
        s: text,
        p: from,
        file: c.file,
        line: c.line,
    };
    let mut out = InfoBytes::new();
    plan.literal(&mut t, 0)?;
    for (k, &tok) in plan.tokens.iter().enumerate() {
        match tok {
            b'd' => out.extend_from_slice(&t.int()?.to_be_bytes()),
            b'h' => {
                t.ws();
                let at = t.p;
                let v = t.int()?;
                let v = i16::try_from(v).map_err(|_| {
                    t.p = at;
                    t.err(&format!("%h value {v} does not fit 16 bits"))
                })?;
                out.extend_from_slice(&v.to_be_bytes());
            }
            b'l' => out.extend_from_slice(&t.int64()?.to_be_bytes()),
            b'x' => out.extend_from_slice(&(t.hex(32)? as u32).to_be_bytes()),
            b'X' => out.extend_from_slice(&t.hex(64)?.to_be_bytes()),
            b'e' => out.extend_from_slice(&t.float()?.to_be_bytes()),
            b'E' => out.extend_from_slice(&t.double()?.to_be_bytes()),
            b's' => {
                t.ws();
                let s = t.name()?;
                let n = i16::try_from(s.len())
                    .map_err(|_| t.err("%s value longer than 32767 bytes"))?;
                out.extend_from_slice(&n.to_be_bytes());
                out.extend_from_slice(s);
            }
            other => {
                return Err(t.err(&format!(
                    "label token '%{}' cannot be encoded",
                    other as char
                )))
            }
        }
        plan.literal(&mut t, k + 1)?;
    }
    t.ws();
    if t.peek().is_some() {
        return Err(t.err("info has text left over after the label's last value"));
    }
    if out.len() > i16::MAX as usize {
        return Err(t.err("info payload longer than 32767 bytes"));
    }
    Ok(out)
}

/// A cursor over one line, with scanf-like matchers that report columns.
struct Cur<'a> {
    s: &'a [u8],
    p: usize,
    file: &'a str,
    line: usize,
}

impl<'a> Cur<'a> {
    #[cold]
    #[inline(never)]
    fn err(&self, detail: &str) -> Box<Error> {
        Box::new(Error::Parse {
            loc: TextLocation {
                file: self.file.to_string(),
                line: self.line,
                column: self.p + 1,
            },
            detail: detail.to_string(),
        })
    }

    /// `KIND[ TimeBBox(start,end) Category=N ` — the head of a primitive or composite line.
    #[inline]
    fn drawable_head(&mut self) -> PResult<(TimeBox, i32)> {
        // The usual spelling first, without a byte-by-byte scan.
        match self.s.get(..20) {
            Some(h) if h == b"Primitive[ TimeBBox(" || h == b"Composite[ TimeBBox(" => self.p = 20,
            _ => {
                self.skip_token();
                self.ws();
                self.lit(b"TimeBBox(")?;
            }
        }
        let start = self.double()?;
        self.lit(b",")?;
        let end = self.double()?;
        self.lit(b")")?;
        self.ws();
        self.lit(b"Category=")?;
        let category = self.int()?;
        self.ws();
        Ok((TimeBox::new(start, end), category))
    }

    #[inline(always)]
    fn peek(&self) -> Option<u8> {
        self.s.get(self.p).copied()
    }

    #[inline(always)]
    fn ws(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.p += 1;
        }
    }

    /// Skip the record's first token (e.g. `Primitive[`).
    #[inline]
    fn skip_token(&mut self) {
        while self.peek().is_some_and(|b| !b.is_ascii_whitespace()) {
            self.p += 1;
        }
    }

    /// A literal, exactly (no whitespace skipped).
    #[inline(always)]
    fn lit(&mut self, l: &'static [u8]) -> PResult<()> {
        match self.s.get(self.p..self.p + l.len()) {
            Some(x) if x == l => {
                self.p += l.len();
                Ok(())
            }
            _ => Err(self.lit_err(l)),
        }
    }

    #[cold]
    #[inline(never)]
    fn lit_err(&self, l: &[u8]) -> Box<Error> {
        let found: String = String::from_utf8_lossy(&self.s[self.p.min(self.s.len())..])
            .chars()
            .take(12)
            .collect();
        if found.is_empty() {
            self.err(&format!(
                "expected '{}', found the end of the line",
                String::from_utf8_lossy(l)
            ))
        } else {
            self.err(&format!(
                "expected '{}', found {found:?}",
                String::from_utf8_lossy(l)
            ))
        }
    }

    /// A whitespace-free word (leading whitespace skipped).
    fn name(&mut self) -> PResult<&'a [u8]> {
        self.ws();
        let st = self.p;
        while self.peek().is_some_and(|b| !b.is_ascii_whitespace()) {
            self.p += 1;
        }
        if self.p == st {
            return Err(self.err("expected a name"));
        }
        Ok(&self.s[st..self.p])
    }

    /// A floating-point number: anything `strtod` reads (decimal with optional
    /// exponent, `inf`/`infinity`, `nan` and `nan(chars)`, case-insensitive,
    /// and C99 hexadecimal floats such as `0x1.8p3`). Leading whitespace is
    /// skipped, as by scanf.
    #[inline]
    fn double(&mut self) -> PResult<f64> {
        self.ws();
        let s = &self.s[self.p..];
        if let Some((v, n)) = fast_decimal(s) {
            self.p += n;
            return Ok(v);
        }
        self.double_slow()
    }

    #[inline(never)]
    fn double_slow(&mut self) -> PResult<f64> {
        let s = &self.s[self.p..];
        if let Some((v, n)) = hex_float(s) {
            self.p += n;
            return Ok(v);
        }
        match fast_float2::parse_partial::<f64, _>(s) {
            Ok((v, mut n)) if n > 0 => {
                // strtod also takes `nan(n-char-sequence)`.
                if v.is_nan() && s.get(n) == Some(&b'(') {
                    let rest = &s[n + 1..];
                    let k = rest
                        .iter()
                        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                        .count();
                    if rest.get(k) == Some(&b')') {
                        n += k + 2;
                    }
                }
                self.p += n;
                Ok(v)
            }
            _ => Err(self.err("expected a number")),
        }
    }

    /// A single-precision number (`%e` payloads): the same text as
    /// [`double`](Self::double), rounded once to `f32` (like `strtof`).
    fn float(&mut self) -> PResult<f32> {
        self.ws();
        let st = self.p;
        let v = self.double()?;
        Ok(fast_float2::parse::<f32, _>(&self.s[st..self.p]).unwrap_or(v as f32))
    }

    /// A decimal integer with optional sign (leading whitespace skipped),
    /// checked against `[min, max]`.
    #[inline]
    fn signed(&mut self, what: &str, min: i64, max: i64) -> PResult<i64> {
        self.ws();
        let s = self.s;
        let st = self.p;
        let mut i = st;
        let neg = match s.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let ds = i;
        let mut m = 0u64;
        i = digit_run(s, i, &mut m);
        let nd = i - ds;
        if nd == 0 {
            return Err(self.err(&format!("expected {what}")));
        }
        if nd > 19 {
            // Only leading zeros can make such a number fit.
            m = 0;
            for &b in &s[ds..i] {
                match m
                    .checked_mul(10)
                    .and_then(|m| m.checked_add((b - b'0') as u64))
                {
                    Some(v) => m = v,
                    None => return Err(self.err(&format!("{what} out of range"))),
                }
            }
        }
        let v = if neg { -(m as i128) } else { m as i128 };
        if v < min as i128 || v > max as i128 {
            return Err(self.err(&format!("{what} {v} out of range")));
        }
        self.p = i;
        Ok(v as i64)
    }

    #[inline]
    fn int(&mut self) -> PResult<i32> {
        self.ws();
        // The common `[-]digits` spelling; anything else (a `+`, too many
        // digits, an error to report) takes the general path.
        if let Some((v, n)) = self.s.get(self.p..).and_then(fast_int) {
            self.p += n;
            return Ok(v);
        }
        self.signed("a 32-bit integer", i32::MIN as i64, i32::MAX as i64)
            .map(|v| v as i32)
    }

    fn int64(&mut self) -> PResult<i64> {
        self.signed("a 64-bit integer", i64::MIN, i64::MAX)
    }

    /// Hex integer (optional `0x`), `bits` wide, as scanf `%x` reads it.
    fn hex(&mut self, bits: u32) -> PResult<u64> {
        self.ws();
        let st = self.p;
        if self.s[self.p..].starts_with(b"0x") || self.s[self.p..].starts_with(b"0X") {
            self.p += 2;
            if !self.peek().is_some_and(|b| b.is_ascii_hexdigit()) {
                // "0x" alone: scanf reads the 0.
                self.p -= 1;
            }
        }
        let ds = self.p;
        while self.peek().is_some_and(|b| b.is_ascii_hexdigit()) {
            self.p += 1;
        }
        let v = std::str::from_utf8(&self.s[ds..self.p])
            .ok()
            .and_then(|s| u64::from_str_radix(s, 16).ok())
            .filter(|v| bits == 64 || *v <= u32::MAX as u64);
        v.ok_or_else(|| {
            self.p = st;
            self.err(&format!("expected a {bits}-bit hexadecimal value"))
        })
    }
}

/// `10^n` for `n <= 19`.
const POW10_U64: [u64; 20] = {
    let mut t = [1u64; 20];
    let mut i = 1;
    while i < 20 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

/// The leading ASCII digits (at most 8) of `s[..8]`: (value, count).
#[inline(always)]
fn swar8(s: &[u8; 8]) -> (u64, usize) {
    let w = u64::from_le_bytes(*s);
    let sub = w.wrapping_sub(0x3030_3030_3030_3030);
    // High bit of each byte set for a non-digit (below '0': borrow wraps it
    // past 0x80; above '9': the +0x76 carries into the high bit). Borrows
    // and carries only travel towards later characters, so everything before
    // the first non-digit is exact.
    let non = (sub | sub.wrapping_add(0x7676_7676_7676_7676)) & 0x8080_8080_8080_8080;
    let n = (non.trailing_zeros() / 8) as usize;
    if n == 0 {
        return (0, 0);
    }
    // Keep the n digits, as the low-order end of an 8-digit number with
    // leading zeros (the first character is the lowest byte).
    let mut v = sub << (8 * (8 - n));
    v = (v.wrapping_mul(10).wrapping_add(v >> 8)) & 0x00FF_00FF_00FF_00FF;
    v = (v.wrapping_mul(100).wrapping_add(v >> 16)) & 0x0000_FFFF_0000_FFFF;
    v = (v.wrapping_mul(10_000).wrapping_add(v >> 32)) & 0xFFFF_FFFF;
    (v, n)
}

/// Accumulate the run of ASCII digits at `s[i..]` into `m` (wrapping: the
/// caller bounds the digit count) and return the index after it.
#[inline(always)]
fn digit_run(s: &[u8], mut i: usize, m: &mut u64) -> usize {
    while let Some(chunk) = s.get(i..i + 8) {
        let (v, n) = swar8(chunk.try_into().unwrap());
        *m = m.wrapping_mul(POW10_U64[n]).wrapping_add(v);
        i += n;
        if n < 8 {
            return i;
        }
    }
    while let Some(d) = s.get(i).map(|b| b.wrapping_sub(b'0')).filter(|d| *d < 10) {
        *m = m.wrapping_mul(10).wrapping_add(d as u64);
        i += 1;
    }
    i
}

/// The common spelling of a primitive line up to its info, parsed without
/// error reporting: `Primitive[ TimeBBox(S,E) Category=N (T, L) ... ` with
/// plain decimals and single spaces. `None` for anything else (the caller
/// then runs the general parser, which also produces the error message).
/// Returns the stated box, category, vertices and the position after them.
#[inline]
fn fast_primitive(s: &[u8]) -> Option<(TimeBox, i32, Vertices, usize)> {
    if !lit_at(s, 0, b"Primitive[ TimeBBox(") {
        return None;
    }
    let mut p = 20;
    let (start, start_len) = fast_decimal_then(s, p, b',')?;
    let start_at = p;
    p += start_len + 1;
    let (end, end_len) = fast_decimal_then(s, p, b')')?;
    let end_at = p;
    p += end_len;
    if !lit_at(s, p, b") Category=") {
        return None;
    }
    p += 11;
    let (category, n) = fast_int(s.get(p..)?)?;
    p += n;
    let mut first: [Vertex; 2] = [Vertex::new(0.0, 0); 2];
    let mut count = 0usize;
    let mut more = Vertices::new();
    while s.get(p) == Some(&b' ') && s.get(p + 1) == Some(&b'(') {
        p += 2;
        // Vertex times usually repeat the box's text: reuse its value.
        let (t, n) = if same_text(s, start_at, p, start_len) {
            (start, start_len)
        } else if same_text(s, end_at, p, end_len) {
            (end, end_len)
        } else {
            fast_decimal_then(s, p, b',')?
        };
        p += n;
        if s.get(p..p + 2)? != b", " {
            return None;
        }
        p += 2;
        let (l, n) = fast_int(s.get(p..)?)?;
        p += n;
        if s.get(p)? != &b')' {
            return None;
        }
        p += 1;
        // States and arrows have two vertices: keep them out of the vector's
        // bookkeeping.
        if count < 2 {
            first[count] = Vertex::new(t, l);
        } else {
            if count == 2 {
                more.extend_from_slice(&first);
            }
            more.push(Vertex::new(t, l));
        }
        count += 1;
    }
    if count == 0 || s.get(p).is_some_and(|b| !b.is_ascii_whitespace()) {
        return None;
    }
    let vertices = match count {
        1 => Vertices::from_slice(&first[..1]),
        2 => Vertices::from_buf(first),
        _ => more,
    };
    Some((TimeBox::new(start, end), category, vertices, p))
}

/// Bytes of input that [`window_line`] looks at: more than a usual line.
const WINDOW: usize = 256;

/// A whole primitive line in its usual spelling, parsed in place from the
/// unconsumed input `s` (which starts at the line and holds at least
/// [`WINDOW`] bytes): `Primitive[ TimeBBox(S,E) Category=N (T, L) (T, L)`
/// — times without a sign and with at most 7 integer and 15 fraction digits,
/// one or two vertices — then ` ]` and the newline, or info spelled exactly
/// like its category's label ([`InfoPlan::encode_exact`]) and ` > ]` and
/// the newline. Returns the record and the bytes used, newline included.
/// Indices are kept provably inside the window, so the reads need no bounds
/// checks. `None` for anything else (including the last lines of the buffer
/// and a line longer than the window): the line-by-line parser then takes
/// it, with the same result or the error message. Skipping the search for
/// the newline of every line is much of what this saves.
#[inline]
fn window_line(
    s: &[u8],
    formats: &rustc_hash::FxHashMap<i32, InfoPlan>,
) -> Option<(TracePrimitive, usize)> {
    let w: &[u8; WINDOW] = s.get(..WINDOW)?.try_into().ok()?;
    if !lit_at(w, 0, b"Primitive[ TimeBBox(") {
        return None;
    }
    let (start, start_len) = window_decimal(w, 20, b',')?;
    let end_at = 20 + start_len + 1;
    let (end, end_len) = window_decimal(w, end_at, b')')?;
    let mut p = end_at + end_len;
    if p > WINDOW - 64 || !lit_at(w, p, b") Category=") {
        return None;
    }
    p += 11;
    let (category, n) = fast_int(&w[p..])?;
    p += n;
    // Vertex times usually repeat a box time's text: compare, don't parse.
    let start_text = load16(&w[20..36]);
    let end_text = load16(&w[end_at..end_at + 16]);
    let start_mask = low_bytes_mask(start_len);
    let end_mask = low_bytes_mask(end_len);
    let mut vertices = [Vertex::new(0.0, 0); 2];
    let mut count = 0;
    while p <= WINDOW - 64 && w[p] == b' ' && w[p + 1] == b'(' {
        if count == 2 {
            return None;
        }
        p += 2;
        let here = load16(&w[p..p + 16]);
        let (t, n) =
            if start_len <= 16 && (here ^ start_text) & start_mask == 0 && w[p + start_len] == b','
            {
                (start, start_len)
            } else if end_len <= 16 && (here ^ end_text) & end_mask == 0 && w[p + end_len] == b',' {
                (end, end_len)
            } else {
                window_decimal(w, p, b',')?
            };
        p += n;
        if p > WINDOW - 64 || w[p + 1] != b' ' {
            return None;
        }
        p += 2;
        let (l, n) = fast_int(&w[p..])?;
        p += n;
        if p > WINDOW - 64 || w[p] != b')' {
            return None;
        }
        p += 1;
        vertices[count] = Vertex::new(t, l);
        count += 1;
    }
    if count == 0 || p > WINDOW - 64 {
        return None;
    }
    let (info, end_of_line) = if w[p] == b' ' && w[p + 1] == b']' && w[p + 2] == b'\n' {
        (InfoBytes::new(), p + 3)
    } else if w[p] == b' ' && w[p + 1] == b'<' && w[p + 2] == b' ' {
        let (info, q) = formats.get(&category)?.encode_exact(w, p + 3)?;
        if w.get(q..q + 5)? != b" > ]\n" {
            return None;
        }
        (info, q + 5)
    } else {
        return None;
    };
    let vertices = if count == 2 {
        Vertices::from_buf(vertices)
    } else {
        Vertices::from_slice(&vertices[..1])
    };
    Some((
        TracePrimitive {
            stated: TimeBox::new(start, end),
            primitive: Primitive {
                category,
                info,
                vertices,
            },
        },
        end_of_line,
    ))
}

/// Mask of the low `n` bytes of a 16-byte word (all of it for `n >= 16`).
#[inline(always)]
fn low_bytes_mask(n: usize) -> u128 {
    if n >= 16 {
        u128::MAX
    } else {
        (1u128 << (8 * n)) - 1
    }
}

/// `digits[.digits]` at `w[p..]` followed by `delim` (see
/// [`fast_decimal_then`], whose value it gives): at most 7 integer and 15
/// fraction digits, no sign. Three eight-byte digit scans at most.
#[inline(always)]
fn window_decimal(w: &[u8; WINDOW], p: usize, delim: u8) -> Option<(f64, usize)> {
    if p > WINDOW - 64 {
        return None;
    }
    let (int, ni) = swar8(w[p..p + 8].try_into().ok()?);
    if ni == 8 {
        return None;
    }
    let q = p + ni;
    let (m, nf, after) = if w[q] == b'.' {
        let (mut frac, mut nf) = swar8(w[q + 1..q + 9].try_into().ok()?);
        if nf == 8 {
            let (more, n2) = swar8(w[q + 9..q + 17].try_into().ok()?);
            if n2 == 8 {
                return None;
            }
            frac = frac * POW10_U64[n2] + more;
            nf += n2;
        }
        if ni + nf == 0 || ni + nf > 19 {
            return None;
        }
        (int * POW10_U64[nf] + frac, nf, q + 1 + nf)
    } else {
        if ni == 0 {
            return None;
        }
        (int, 0, q)
    };
    if w[after] != delim || m > (1u64 << 53) {
        return None;
    }
    Some((m as f64 / POW10[nf], after - p))
}

/// [`fast_decimal`] at `s[p..]` when the number must be followed by `delim`
/// (so no check for exponents or other tails is needed).
#[inline(always)]
fn fast_decimal_then(s: &[u8], p: usize, delim: u8) -> Option<(f64, usize)> {
    let t = s.get(p..)?;
    let mut i = 0;
    let neg = t.first() == Some(&b'-');
    i += neg as usize;
    let mut m: u64;
    let int_digits;
    // The common `0.` start without the eight-digit machinery.
    if t.get(i) == Some(&b'0') && t.get(i + 1) == Some(&b'.') {
        m = 0;
        int_digits = 1;
        i += 1;
    } else {
        m = 0;
        let d0 = i;
        i = digit_run(t, i, &mut m);
        int_digits = i - d0;
    }
    let mut frac = 0;
    if t.get(i) == Some(&b'.') {
        i += 1;
        let f0 = i;
        i = digit_run(t, i, &mut m);
        frac = i - f0;
    }
    if t.get(i) != Some(&delim)
        || int_digits + frac == 0
        || int_digits + frac > 19
        || frac > 22
        || m > (1u64 << 53)
    {
        return None;
    }
    let v = m as f64 / POW10[frac];
    Some((if neg { -v } else { v }, i))
}

/// `a == b` for the short slices of this format, without a `memcmp` call.
#[inline(always)]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// `s[b..b + n]` repeats `s[a..a + n]` and is followed by `,` (a vertex
/// time spelled like a box time): two 16-byte loads when the line has room.
#[inline(always)]
fn same_text(s: &[u8], a: usize, b: usize, n: usize) -> bool {
    if s.get(b + n) != Some(&b',') {
        return false;
    }
    if n <= 16 {
        if let (Some(x), Some(y)) = (s.get(a..a + 16), s.get(b..b + 16)) {
            let x = u128::from_le_bytes(x.try_into().unwrap_or([0; 16]));
            let y = u128::from_le_bytes(y.try_into().unwrap_or([0; 16]));
            return (x ^ y) & low_bytes_mask(n) == 0;
        }
    }
    s.get(a..a + n) == s.get(b..b + n)
}

/// `[-]digits` fitting an `i32`, without error reporting.
#[inline(always)]
fn fast_int(s: &[u8]) -> Option<(i32, usize)> {
    let neg = s.first() == Some(&b'-');
    let d0 = neg as usize;
    // Line IDs and category indices are short: one or two digits directly.
    if let Some(&a) = s.get(d0) {
        let a = a.wrapping_sub(b'0');
        if a < 10 {
            let b = s.get(d0 + 1).map_or(10, |b| b.wrapping_sub(b'0'));
            if b >= 10 {
                let v = a as i32;
                return Some((if neg { -v } else { v }, d0 + 1));
            }
            let c = s.get(d0 + 2).map_or(10, |c| c.wrapping_sub(b'0'));
            if c >= 10 {
                let v = (a * 10 + b) as i32;
                return Some((if neg { -v } else { v }, d0 + 2));
            }
        }
    }
    let mut m = 0u64;
    let i = digit_run(s, d0, &mut m);
    let nd = i - d0;
    if nd == 0 || nd > 10 {
        return None;
    }
    let v = if neg { -(m as i64) } else { m as i64 };
    Some((i32::try_from(v).ok()?, i))
}

/// Powers of ten exactly representable in an `f64`.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// Fast path for the common `[+-]digits[.digits]` form (no exponent): exact
/// when the digits fit 53 bits and there are at most 22 decimals (one
/// correctly rounded division, Clinger's fast path). `None` sends the caller
/// to the general parser.
#[inline(always)]
fn fast_decimal(s: &[u8]) -> Option<(f64, usize)> {
    let mut i = 0;
    let neg = match s.first() {
        Some(b'-') => {
            i = 1;
            true
        }
        Some(b'+') => {
            i = 1;
            false
        }
        _ => false,
    };
    let mut m: u64 = 0;
    let d0 = i;
    i = digit_run(s, i, &mut m);
    let int_digits = i - d0;
    let mut frac = 0;
    if s.get(i) == Some(&b'.') {
        i += 1;
        let f0 = i;
        i = digit_run(s, i, &mut m);
        frac = i - f0;
    }
    if int_digits + frac == 0 || int_digits + frac > 19 || frac > 22 || m > (1u64 << 53) {
        return None;
    }
    // An exponent, a hex prefix, `inf`/`nan` tails etc.: general parser.
    if s.get(i)
        .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'.')
    {
        return None;
    }
    let v = m as f64 / POW10[frac];
    Some((if neg { -v } else { v }, i))
}

/// A C99 hexadecimal float (`[+-]0x` hex digits, optional `.` fraction,
/// optional binary exponent `p[+-]N`), as `strtod` reads it. Rounding is
/// exact for up to 16 significant hex digits (everything `printf("%a")`
/// writes) outside the subnormal range; longer mantissas keep a sticky bit.
fn hex_float(s: &[u8]) -> Option<(f64, usize)> {
    let mut i = 0;
    let neg = match s.first() {
        Some(b'-') => {
            i = 1;
            true
        }
        Some(b'+') => {
            i = 1;
            false
        }
        _ => false,
    };
    if !(s.get(i) == Some(&b'0') && matches!(s.get(i + 1), Some(b'x' | b'X'))) {
        return None;
    }
    i += 2;
    let mut m: u64 = 0;
    let mut shift: i64 = 0; // binary exponent adjustment
    let mut sig = 0; // significant hex digits kept
    let mut any = false;
    let mut sticky = false;
    let mut seen_dot = false;
    loop {
        match s.get(i) {
            Some(b'.') if !seen_dot => seen_dot = true,
            Some(&b) if b.is_ascii_hexdigit() => {
                any = true;
                let d = (b as char).to_digit(16).unwrap() as u64;
                if sig < 16 {
                    if m != 0 || d != 0 {
                        m = (m << 4) | d;
                        sig += 1;
                    }
                    if seen_dot {
                        shift -= 4;
                    }
                } else {
                    sticky |= d != 0;
                    if !seen_dot {
                        shift += 4;
                    }
                }
            }
            _ => break,
        }
        i += 1;
    }
    if !any {
        // "0x" with no digits: strtod reads the "0" (the general parser does).
        return None;
    }
    if matches!(s.get(i), Some(b'p' | b'P')) {
        let mut j = i + 1;
        let eneg = match s.get(j) {
            Some(b'-') => {
                j += 1;
                true
            }
            Some(b'+') => {
                j += 1;
                false
            }
            _ => false,
        };
        let e0 = j;
        let mut e: i64 = 0;
        while let Some(d) = s.get(j).filter(|b| b.is_ascii_digit()) {
            e = (e * 10 + (d - b'0') as i64).min(100_000);
            j += 1;
        }
        if j > e0 {
            shift += if eneg { -e } else { e };
            i = j;
        }
    }
    if sticky {
        m |= 1;
    }
    // One rounding to 53 bits here, then exact scaling by powers of two
    // (except in the subnormal range).
    let mut v = m as f64;
    let mut k = shift;
    while k > 0 && v != 0.0 && v.is_finite() {
        let step = k.min(1000);
        v *= 2f64.powi(step as i32);
        k -= step;
    }
    while k < 0 && v != 0.0 {
        let step = (-k).min(1000);
        v /= 2f64.powi(step as i32);
        k += step;
    }
    Some((if neg { -v } else { v }, i))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swar_digits() {
        for (s, v, n) in [
            (&b"12345678"[..], 12345678, 8),
            (b"1234567x", 1234567, 7),
            (b"0000229,", 229, 7),
            (b"9, 0) ]x", 9, 1),
            (b"x1234567", 0, 0),
            (b"99999999", 99999999, 8),
            (b"12/45678", 12, 2),
            (b"12:45678", 12, 2),
        ] {
            assert_eq!(swar8(s.try_into().unwrap()), (v, n), "{s:?}");
        }
    }

    #[test]
    fn doubles_like_strtod() {
        let cases: &[(&str, f64, usize)] = &[
            ("0.0000229, ", 0.0000229, 9),
            ("-0.0010000)", -0.001, 10),
            ("1e-3,", 1e-3, 4),
            ("2E-3 ", 2e-3, 4),
            ("+.5)", 0.5, 3),
            ("5.)", 5.0, 2),
            ("123456789012345678901234567890 ", 1.2345678901234568e29, 30),
            ("0.1234567890123456789012345 ", 0.12345678901234568, 27),
            ("0x1.8p3,", 12.0, 7),
            ("-0X10)", -16.0, 5),
            ("0x.8p-1 ", 0.25, 7),
            ("0x1p-1074 ", 5e-324, 9),
            ("inf,", f64::INFINITY, 3),
            ("-Infinity)", f64::NEG_INFINITY, 9),
            ("1e,", 1.0, 1),
            ("0x,", 0.0, 1),
            ("00012)", 12.0, 5),
        ];
        for &(s, v, n) in cases {
            let mut c = Cur {
                s: s.as_bytes(),
                p: 0,
                file: "t",
                line: 1,
            };
            let got = c.double().unwrap();
            assert_eq!((got.to_bits(), c.p), (v.to_bits(), n), "{s}");
        }
        let mut c = Cur {
            s: b"nan(0x12) ",
            p: 0,
            file: "t",
            line: 1,
        };
        assert!(c.double().unwrap().is_nan());
        assert_eq!(c.p, 9);
        for bad in ["x", "", "-", ".", "e5", ",1"] {
            let mut c = Cur {
                s: bad.as_bytes(),
                p: 0,
                file: "t",
                line: 1,
            };
            assert!(c.double().is_err(), "{bad}");
        }
    }

    #[test]
    fn fast_path_agrees_with_std() {
        // Deterministic pseudo-random decimals of every length.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let int_len = (x % 8) as usize;
            let frac_len = ((x >> 8) % 20) as usize;
            let digits = format!("{:020}{:020}", x >> 3, x.rotate_left(29) >> 2);
            let s = format!(
                "{}{}.{} ",
                if x & 1 == 1 { "-" } else { "" },
                &digits[..int_len],
                &digits[20..20 + frac_len]
            );
            if int_len + frac_len == 0 {
                continue;
            }
            let want: f64 = s.trim_end().parse().unwrap();
            let mut c = Cur {
                s: s.as_bytes(),
                p: 0,
                file: "t",
                line: 1,
            };
            assert_eq!(c.double().unwrap().to_bits(), want.to_bits(), "{s}");
            assert_eq!(c.p, s.len() - 1);
        }
    }

    #[test]
    fn integers() {
        for (s, v) in [
            ("0", 0i64),
            ("-2147483648", -2147483648),
            ("+2147483647", 2147483647),
            ("000000000000000000000000042", 42),
            ("12345678901", -1),
        ] {
            let mut c = Cur {
                s: s.as_bytes(),
                p: 0,
                file: "t",
                line: 1,
            };
            match c.int() {
                Ok(x) => assert_eq!(x as i64, v, "{s}"),
                Err(_) => assert_eq!(v, -1, "{s}"),
            }
        }
        let mut c = Cur {
            s: b"-9223372036854775808",
            p: 0,
            file: "t",
            line: 1,
        };
        assert_eq!(c.int64().unwrap(), i64::MIN);
    }
}
