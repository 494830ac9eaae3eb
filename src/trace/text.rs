//! The slog2sdk sample text trace format (`trace-api.md` §3), read strictly.
//!
//! The reference reader parses this format with unchecked `sscanf` into
//! fixed-size buffers; we keep its grammar (records start in column 0 with
//! `Category`, `YCoordMap`, `Primitive` or `Composite`; every other line is a
//! comment; a space in a pattern matches any run of whitespace, including
//! none) but check everything: a malformed record is an error naming file,
//! line and column, never garbage. There are no length limits.
//!
//! Info payloads are encoded from the category's label, one value per `%`
//! token, big-endian (`%d %x` 4 bytes, `%h` 2, `%l %X` 8, `%e` f32, `%E` f64,
//! `%s` i16 length + bytes), matching the label's literal text with the same
//! whitespace rule. For labels of two 4-byte tokens (all reference fixtures)
//! this gives the reference's bytes exactly. Methods in `{ … }` keep every
//! integer (the reference keeps only the first).
//!
//! Lines are read one at a time into a reused buffer, so memory does not
//! depend on the file size.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use crate::error::{Error, Result, TextLocation};
use crate::model::*;
use crate::trace::{Record, TraceComposite, TracePrimitive, TraceSource};

/// A trace in the sample text format.
pub struct TextSource {
    name: String,
    reader: Box<dyn BufRead + Send>,
    line: Vec<u8>,
    line_no: usize,
    record_line: usize,
    bytes_read: u64,
    total_bytes: Option<u64>,
    formats: rustc_hash::FxHashMap<i32, InfoFormat>,
}

impl TextSource {
    pub fn open(path: &Path) -> Result<Self> {
        let f = File::open(path).map_err(|e| Error::io(path, e))?;
        let total = f.metadata().ok().map(|m| m.len());
        let mut s = Self::from_reader(
            &path.display().to_string(),
            BufReader::with_capacity(1 << 16, f),
        );
        s.total_bytes = total;
        Ok(s)
    }

    /// Read from any buffered reader; `name` is used in error messages.
    pub fn from_reader(name: &str, r: impl BufRead + Send + 'static) -> Self {
        TextSource {
            name: name.to_string(),
            reader: Box::new(r),
            line: Vec::with_capacity(256),
            line_no: 0,
            record_line: 0,
            bytes_read: 0,
            total_bytes: None,
            formats: Default::default(),
        }
    }

    /// Parse a whole text (tests, small inputs).
    pub fn from_str(name: &str, text: &str) -> Self {
        Self::from_reader(name, std::io::Cursor::new(text.as_bytes().to_vec()))
    }

    /// Next physical line into `self.line` (without the line end); false at EOF.
    fn next_line(&mut self) -> Result<bool> {
        self.line.clear();
        let n = self
            .reader
            .read_until(b'\n', &mut self.line)
            .map_err(|e| Error::io(&self.name, e))?;
        if n == 0 {
            return Ok(false);
        }
        self.bytes_read += n as u64;
        self.line_no += 1;
        while matches!(self.line.last(), Some(b'\n' | b'\r')) {
            self.line.pop();
        }
        Ok(true)
    }

    fn cursor(&self) -> Cur<'_> {
        Cur {
            s: &self.line,
            p: 0,
            file: &self.name,
            line: self.line_no,
        }
    }

    fn parse_primitive_line(&self) -> Result<TracePrimitive> {
        let mut c = self.cursor();
        let (stated, category) = c.drawable_head()?;
        let mut vertices = Vec::with_capacity(2);
        while c.peek() == Some(b'(') {
            c.p += 1;
            let t = c.double()?;
            c.lit(",")?;
            let l = c.int()?;
            c.lit(")")?;
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

    /// Optional `< TEXT >` after the cursor, encoded with the category's label.
    fn info(&self, c: &mut Cur, category: i32) -> Result<Vec<u8>> {
        let Some(open) = find(c.s, c.p, b"< ") else {
            return Ok(Vec::new());
        };
        let body = open + 2;
        let Some(close) = find(c.s, body, b" >") else {
            c.p = open;
            return Err(c.err("info '< ' has no closing ' >'"));
        };
        c.p = open;
        let Some(fmt) = self.formats.get(&category) else {
            return Err(c.err(&format!(
                "info given but category {category} is not defined yet (define categories before the drawables that use them)"
            )));
        };
        if fmt.is_empty() {
            return Err(c.err(&format!(
                "info given but category {category} has no label to encode it with"
            )));
        }
        encode_info(fmt, &c.s[..close], body, c)
    }

    fn parse_category(&mut self) -> Result<Category> {
        let mut c = self.cursor();
        c.skip_token();
        c.ws();
        c.lit("index=")?;
        let index_at = c.p;
        let index = c.int()?;
        if index < 0 {
            c.p = index_at;
            return Err(c.err("category index must be >= 0 (negative indices are reserved for preview categories)"));
        }
        c.ws();
        c.lit("name=")?;
        let name = String::from_utf8_lossy(c.name()?).into_owned();
        c.ws();
        c.lit("topo=")?;
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
        c.lit("color=(")?;
        let mut rgba = [0u8; 4];
        for (i, v) in rgba.iter_mut().enumerate() {
            let at = c.p;
            let x = c.int()?;
            *v = u8::try_from(x).map_err(|_| {
                c.p = at;
                c.err(&format!("colour component {x} is outside 0..255"))
            })?;
            if i < 3 {
                c.lit(",")?;
            }
        }
        c.lit(",")?;
        let flag = c.name()?;
        let modifiable = !flag.starts_with(b"false");
        c.ws();
        c.lit("width=")?;
        let wat = c.p;
        let w = c.int()?;
        let width = i8::try_from(w).map_err(|_| {
            c.p = wat;
            c.err(&format!("width {w} does not fit one signed byte"))
        })?;
        let mut label = String::new();
        let mut after = c.p;
        if let Some(open) = find(c.s, c.p, b"< ") {
            let Some(close) = find(c.s, open + 2, b" >") else {
                c.p = open;
                return Err(c.err("label '< ' has no closing ' >'"));
            };
            label = String::from_utf8_lossy(&c.s[open + 2..close]).into_owned();
            after = close + 2;
        }
        let info = InfoFormat::parse(&label).map_err(|e| {
            c.p = after;
            c.err(&e)
        })?;
        for &t in &info.tokens {
            if !INFO_TOKENS.contains(&t) {
                return Err(c.err(&format!(
                    "label token '%{}' is not one of %d %h %l %x %X %e %E %s",
                    t as char
                )));
            }
        }
        c.p = after;
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
        self.formats.insert(index, cat.info.clone());
        Ok(cat)
    }

    fn parse_ycoordmap(&self) -> Result<YCoordMap> {
        let mut c = self.cursor();
        c.skip_token();
        c.ws();
        c.lit("Nrows=")?;
        let nrows_at = c.p;
        let nrows = c.int()?;
        c.ws();
        c.lit("Ncolumns=")?;
        let ncols_at = c.p;
        let ncols = c.int()?;
        c.ws();
        c.lit("Nmethods=")?;
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
        c.ws();
        c.lit("title=")?;
        let title = String::from_utf8_lossy(c.name()?).into_owned();
        c.ws();
        c.lit("colnames=<")?;
        let mut column_labels = Vec::new();
        loop {
            c.ws();
            if c.peek() == Some(b'>') {
                c.p += 1;
                break;
            }
            if c.peek().is_none() {
                return Err(c.err("column names '<' have no closing '>'"));
            }
            column_labels.push(String::from_utf8_lossy(c.name()?).into_owned());
        }
        if column_labels.len() != ncols as usize - 1 {
            return Err(c.err(&format!(
                "{} column name(s) given, Ncolumns={ncols} needs {}",
                column_labels.len(),
                ncols - 1
            )));
        }
        let mut rows = Vec::with_capacity(nrows as usize);
        for r in 0..nrows {
            c.ws();
            if c.peek() != Some(b'(') {
                return Err(c.err(&format!(
                    "expected row {} of {nrows} '( lineID values... )'",
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
            c.lit(")")?;
            rows.push((line, vals));
        }
        let methods = braces(&mut c)?.unwrap_or_default();
        if methods.len() != nmethods.max(0) as usize {
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

    fn parse_composite(&mut self) -> Result<TraceComposite> {
        let (stated, category, n, info) = {
            let mut c = self.cursor();
            let (stated, category) = c.drawable_head()?;
            c.lit("NumPrimes=")?;
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
        let mut members = Vec::with_capacity(n);
        let mut member_boxes = Vec::with_capacity(n);
        for i in 0..n {
            if !self.next_line()? {
                return Err(Error::Parse {
                    loc: TextLocation {
                        file: self.name.clone(),
                        line: self.line_no + 1,
                        column: 1,
                    },
                    detail: format!(
                        "end of file inside the composite of line {header_line}: member {} of {n} missing",
                        i + 1
                    ),
                });
            }
            if !self.line.starts_with(b"Primitive") {
                return Err(self.cursor().err(&format!(
                    "composite of line {header_line} needs {n} member lines; member {} of {n} is not a Primitive line",
                    i + 1
                )));
            }
            let p = self.parse_primitive_line()?;
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
            if !self.next_line()? {
                return Ok(None);
            }
            self.record_line = self.line_no;
            let l = &self.line;
            if l.starts_with(b"Primitive") {
                return Ok(Some(Record::Primitive(self.parse_primitive_line()?)));
            } else if l.starts_with(b"Category") {
                return Ok(Some(Record::Category(self.parse_category()?)));
            } else if l.starts_with(b"Composite") {
                return Ok(Some(Record::Composite(self.parse_composite()?)));
            } else if l.starts_with(b"YCoordMap") {
                return Ok(Some(Record::YCoordMap(self.parse_ycoordmap()?)));
            }
        }
    }

    fn location(&self) -> String {
        format!("{}:{}", self.name, self.record_line)
    }

    fn progress(&self) -> Option<f64> {
        self.total_bytes
            .filter(|t| *t > 0)
            .map(|t| self.bytes_read as f64 / t as f64)
    }
}

/// Read from any `Read` (unbuffered) — convenience for callers.
pub fn from_read(name: &str, r: impl Read + Send + 'static) -> TextSource {
    TextSource::from_reader(name, BufReader::new(r))
}

/// First occurrence of a two-byte pattern at or after `from`.
fn find(s: &[u8], from: usize, pat: &[u8; 2]) -> Option<usize> {
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

/// Optional `{ INT ... }` after the cursor.
fn braces(c: &mut Cur) -> Result<Option<Vec<i32>>> {
    let Some(open) = find(c.s, c.p, b"{ ") else {
        return Ok(None);
    };
    let Some(close) = find(c.s, open + 1, b" }") else {
        c.p = open;
        return Err(c.err("methods '{ ' have no closing ' }'"));
    };
    let mut inner = Cur {
        s: &c.s[..close],
        p: open + 2,
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

/// Match `text[from..]` against the label (scanf rules) and encode the values.
fn encode_info(fmt: &InfoFormat, text: &[u8], from: usize, c: &Cur) -> Result<Vec<u8>> {
    let mut t = Cur {
        s: text,
        p: from,
        file: c.file,
        line: c.line,
    };
    let mut out = Vec::with_capacity(4 * fmt.tokens.len());
    let lead = fmt.keys.len() > fmt.tokens.len();
    let mut keys = fmt.keys.iter();
    let literal = |t: &mut Cur, k: &str| -> Result<()> {
        for &b in k.as_bytes() {
            if b.is_ascii_whitespace() {
                t.ws();
            } else if t.peek() == Some(b) {
                t.p += 1;
            } else {
                return Err(t.err(&format!(
                    "info does not match the category label: expected {:?}",
                    b as char
                )));
            }
        }
        Ok(())
    };
    if lead {
        if let Some(k) = keys.next() {
            literal(&mut t, k)?;
        }
    }
    for &tok in &fmt.tokens {
        match tok {
            b'd' => out.extend_from_slice(&t.int()?.to_be_bytes()),
            b'h' => {
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
            b'e' => out.extend_from_slice(&(t.double()? as f32).to_be_bytes()),
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
        if let Some(k) = keys.next() {
            literal(&mut t, k)?;
        }
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
    fn err(&self, detail: &str) -> Error {
        Error::Parse {
            loc: TextLocation {
                file: self.file.to_string(),
                line: self.line,
                column: self.p + 1,
            },
            detail: detail.to_string(),
        }
    }

    /// `KIND[ TimeBBox(start,end) Category=N ` — the head of a primitive or composite line.
    fn drawable_head(&mut self) -> Result<(TimeBox, i32)> {
        self.skip_token();
        self.ws();
        self.lit("TimeBBox(")?;
        let start = self.double()?;
        self.lit(",")?;
        let end = self.double()?;
        self.lit(")")?;
        self.ws();
        self.lit("Category=")?;
        let category = self.int()?;
        self.ws();
        Ok((TimeBox::new(start, end), category))
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.p).copied()
    }

    fn ws(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.p += 1;
        }
    }

    /// Skip the record's first token (e.g. `Primitive[`).
    fn skip_token(&mut self) {
        while self.peek().is_some_and(|b| !b.is_ascii_whitespace()) {
            self.p += 1;
        }
    }

    fn lit(&mut self, l: &str) -> Result<()> {
        if self.s[self.p.min(self.s.len())..].starts_with(l.as_bytes()) {
            self.p += l.len();
            Ok(())
        } else {
            Err(self.err(&format!("expected '{l}'")))
        }
    }

    fn name(&mut self) -> Result<&'a [u8]> {
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

    /// A floating-point number (anything `strtod` reads in decimal: `1e-3`,
    /// `.5`, `inf`, ...), parsed straight from the bytes by fast-float2.
    fn double(&mut self) -> Result<f64> {
        self.ws();
        match fast_float2::parse_partial::<f64, _>(&self.s[self.p..]) {
            Ok((v, n)) if n > 0 => {
                self.p += n;
                Ok(v)
            }
            _ => Err(self.err("expected a number")),
        }
    }

    fn signed(&mut self, what: &str, min: i64, max: i64) -> Result<i64> {
        self.ws();
        let st = self.p;
        let neg = match self.peek() {
            Some(b'-') => {
                self.p += 1;
                true
            }
            Some(b'+') => {
                self.p += 1;
                false
            }
            _ => false,
        };
        let ds = self.p;
        let mut v: i64 = 0;
        while let Some(b) = self.peek().filter(u8::is_ascii_digit) {
            v = match v
                .checked_mul(10)
                .and_then(|v| v.checked_add((b - b'0') as i64))
            {
                Some(v) => v,
                None => {
                    self.p = st;
                    return Err(self.err(&format!("{what} out of range")));
                }
            };
            self.p += 1;
        }
        if self.p == ds {
            self.p = st;
            return Err(self.err(&format!("expected {what}")));
        }
        let v = if neg { -v } else { v };
        if v < min || v > max {
            self.p = st;
            return Err(self.err(&format!("{what} {v} out of range")));
        }
        Ok(v)
    }

    fn int(&mut self) -> Result<i32> {
        self.signed("a 32-bit integer", i32::MIN as i64, i32::MAX as i64)
            .map(|v| v as i32)
    }

    fn int64(&mut self) -> Result<i64> {
        self.signed("a 64-bit integer", i64::MIN + 1, i64::MAX)
    }

    /// Hex integer (optional 0x), `bits` wide.
    fn hex(&mut self, bits: u32) -> Result<u64> {
        self.ws();
        let st = self.p;
        if self.s[self.p..].starts_with(b"0x") || self.s[self.p..].starts_with(b"0X") {
            self.p += 2;
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
