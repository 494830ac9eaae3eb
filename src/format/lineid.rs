//! The line-ID map list block (spec §5): the trace's "y-coordinate maps"
//! that turn a drawable's line ID into a row of the viewer (one map per
//! view: threads, processes, …), plus the Identity Map the writer appends.
//! Each map is a title, column labels, rows `lineID -> coordinates` and
//! method IDs. Counts are checked against the bytes left before anything is
//! allocated for them.

use super::bytes::{put_i16, put_i32, put_str, Decoder};
use crate::error::Result;
use crate::model::*;

pub fn encode_ycoordmaps<'m>(
    out: &mut Vec<u8>,
    maps: impl ExactSizeIterator<Item = &'m YCoordMap>,
) {
    put_i32(out, maps.len() as i32);
    for m in maps {
        put_str(out, &m.title);
        put_i32(out, m.column_labels.len() as i32);
        for l in &m.column_labels {
            put_str(out, l);
        }
        put_i32(out, m.rows.len() as i32);
        for (line, vals) in &m.rows {
            put_i32(out, *line);
            for i in 0..m.column_labels.len() {
                put_i32(out, vals.get(i).copied().unwrap_or(0));
            }
        }
        put_i16(out, m.methods.len() as i16);
        for x in &m.methods {
            put_i32(out, *x);
        }
    }
}

pub fn decode_ycoordmaps(block: &[u8], base: u64) -> Result<Vec<YCoordMap>> {
    let mut d = Decoder::new(block, base, "line-ID map list");
    let n = d.count(12)?;
    let mut maps = Vec::with_capacity(n);
    for _ in 0..n {
        let title = d.str()?;
        let ncols = d.count(2)?;
        let mut column_labels = Vec::with_capacity(ncols);
        for _ in 0..ncols {
            column_labels.push(d.str()?);
        }
        let nrows = d.count(4 * (ncols + 1))?;
        let mut rows = Vec::with_capacity(nrows);
        for _ in 0..nrows {
            let line = d.i32()?;
            let mut vals = Vec::with_capacity(ncols);
            for _ in 0..ncols {
                vals.push(d.i32()?);
            }
            rows.push((line, vals));
        }
        let nmeth = d.count16(4)?;
        let mut methods = Vec::with_capacity(nmeth);
        for _ in 0..nmeth {
            methods.push(d.i32()?);
        }
        maps.push(YCoordMap {
            title,
            column_labels,
            rows,
            methods,
        });
    }
    d.expect_end()?;
    Ok(maps)
}
