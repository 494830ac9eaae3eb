//! Category and y-coordinate map records (`trace-api.md` §3): checked
//! field by field; a category's label is handed to the [`Infos`] that
//! encodes the info of later drawables.

use super::info::Infos;
use super::lexer::{angle, find, Cur, PResult};
use super::records::Parser;
use crate::model::*;

impl Parser {
    pub(super) fn parse_category<I: Infos>(&mut self, infos: &mut I) -> PResult<Category> {
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
        infos.define(&cat);
        Ok(cat)
    }

    pub(super) fn parse_ycoordmap(&self) -> PResult<YCoordMap> {
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
