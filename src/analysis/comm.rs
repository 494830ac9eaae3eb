//! The communication matrix: arrows per (from line, to line, category), with
//! their count and the bytes their payloads say they carried.
//!
//! # Where the bytes come from
//!
//! SLOG-2 has no message-size field of its own: a converter puts the size in
//! the arrow's info payload, described by its category's label — MPE writes
//! `msg_tag=%d, msg_size=%d`, the OTF2 reader `comm=%d tag=%d size=%l`. A
//! category's **size field** is found once, from its label:
//!
//! * the first *integer* token (`%d`, `%h`, `%l`, `%x`, `%X`) whose **key** —
//!   the label text right before the token, without trailing blanks, `=` or
//!   `:` — ends in a word that ends with `size` or `bytes`, case-insensitive
//!   (a word is a run of letters, digits and `_`): `msg_size=%d`,
//!   `size=%l`, `Bytes: %d`, `nbytes=%l`, `MsgSize %d` all qualify;
//!   `tag=%d`, `count=%d`, `sizes=%d`, `size=%E` do not;
//! * its value is read from the payload as the spec's decoder reads it
//!   (big-endian; the tokens before it are skipped by their sizes, `%s` by
//!   its length prefix). A payload too short for it, or a negative value,
//!   leaves that arrow **unsized**.
//!
//! When the category has **no size field**, or an arrow is unsized, the
//! arrow still counts (`count`) but adds no bytes; each cell also keeps how
//! many of its arrows were `sized`, so a reader can tell "0 bytes" from
//! "unknown" ([`CommRow::bytes`] is `None` when no arrow of the cell was
//! sized, and the CLI prints an empty field).
//!
//! An arrow goes from its first vertex's line to its last vertex's line,
//! whatever the direction in time (arrows backwards in time count the same).

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::model::{Category, Topology};
use crate::read::Slog2File;

use super::keys::Keys;
use super::lookup::Lookup;
use super::walk::PrimitiveRef;

/// Where a category's size value lies in its payloads (module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SizeField {
    /// Position of the token among the label's tokens.
    pub token: usize,
    /// Byte offset when every token before it has a fixed size.
    offset: Option<usize>,
    letter: u8,
    tokens: Vec<u8>,
}

fn fixed_len(t: u8) -> Option<usize> {
    match t {
        b'h' => Some(2),
        b'd' | b'x' | b'e' => Some(4),
        b'l' | b'X' | b'E' => Some(8),
        _ => None,
    }
}

/// Whether a label key names a size (module docs).
pub fn is_size_key(key: &str) -> bool {
    let k = key.trim_end_matches(|c: char| c.is_whitespace() || c == '=' || c == ':');
    let start = k
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphanumeric() || *c == '_')
        .last()
        .map_or(k.len(), |(i, _)| i);
    let word = k[start..].to_ascii_lowercase();
    !word.is_empty() && (word.ends_with("size") || word.ends_with("bytes"))
}

impl SizeField {
    /// The size field of a category's label, if it has one (module docs).
    pub fn of(cat: &Category) -> Option<SizeField> {
        let f = &cat.info;
        let lead = f.keys.len() > f.tokens.len();
        for (i, &t) in f.tokens.iter().enumerate() {
            let key = if lead {
                f.keys.get(i)
            } else {
                i.checked_sub(1).and_then(|j| f.keys.get(j))
            };
            if matches!(t, b'd' | b'h' | b'l' | b'x' | b'X') && key.is_some_and(|k| is_size_key(k))
            {
                let offset = f.tokens[..i]
                    .iter()
                    .try_fold(0usize, |a, &t| fixed_len(t).map(|n| a + n));
                return Some(SizeField {
                    token: i,
                    offset,
                    letter: t,
                    tokens: f.tokens[..i].to_vec(),
                });
            }
        }
        None
    }

    /// The value in `info`, if it is there and not negative.
    #[inline(always)]
    pub fn read(&self, info: &[u8]) -> Option<i64> {
        // The usual field (`msg_size=%d` after fixed-size tokens) inline.
        if let (Some(at), b'd') = (self.offset, self.letter) {
            let b: &[u8; 4] = info.get(at..)?.first_chunk()?;
            let v = i64::from(i32::from_be_bytes(*b));
            return (v >= 0).then_some(v);
        }
        self.read_any(info)
    }

    #[inline(never)]
    fn read_any(&self, info: &[u8]) -> Option<i64> {
        let at = match self.offset {
            Some(o) => o,
            None => self.walk(info)?,
        };
        let b = info.get(at..at + fixed_len(self.letter)?)?;
        let v = match self.letter {
            b'h' => i64::from(i16::from_be_bytes([b[0], b[1]])),
            b'd' => i64::from(i32::from_be_bytes([b[0], b[1], b[2], b[3]])),
            b'x' => i64::from(u32::from_be_bytes([b[0], b[1], b[2], b[3]])),
            _ => i64::from_be_bytes(b.try_into().ok()?),
        };
        (v >= 0).then_some(v)
    }

    /// Offset of the field past variable-length tokens.
    fn walk(&self, info: &[u8]) -> Option<usize> {
        let mut at = 0usize;
        for &t in &self.tokens {
            at += match fixed_len(t) {
                Some(n) => n,
                None if t == b's' => {
                    let b = info.get(at..at + 2)?;
                    2 + i16::from_be_bytes([b[0], b[1]]).max(0) as usize
                }
                None => return None,
            };
        }
        Some(at)
    }
}

/// Size fields of a file's arrow categories, by category index.
#[derive(Debug, Clone)]
pub(crate) struct SizeFields {
    of: Lookup<u32>,
    fields: Vec<SizeField>,
}

impl SizeFields {
    pub fn new(file: &Slog2File) -> SizeFields {
        let mut fields = Vec::new();
        let mut pairs = Vec::new();
        for c in file.categories() {
            if c.is_preview() || c.topology != Topology::Arrow {
                continue;
            }
            if let Some(f) = SizeField::of(c) {
                pairs.push((c.index, fields.len() as u32));
                fields.push(f);
            }
        }
        SizeFields {
            of: Lookup::new(pairs),
            fields,
        }
    }

    #[inline(always)]
    pub fn get(&self, category: i32) -> Option<&SizeField> {
        self.of.get(category).map(|i| &self.fields[i as usize])
    }

    /// The size an arrow's payload gives (`None`: no field or unsized).
    #[inline(always)]
    pub fn size(&self, p: &PrimitiveRef<'_>) -> Option<i64> {
        self.get(p.category)?.read(p.info)
    }
}

/// One cell of the matrix.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CommCell {
    pub count: u64,
    /// Arrows whose size was read.
    pub sized: u64,
    pub bytes: i64,
}

/// One row of the matrix (module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct CommRow {
    pub from_line: i32,
    pub to_line: i32,
    pub category: i32,
    pub count: u64,
    pub sized: u64,
    /// `None` when no arrow of the cell carried a size.
    pub bytes: Option<i64>,
}

/// Largest dense matrix (cells); beyond it cells are hashed.
const DENSE_CELLS: usize = 1 << 22;

/// The matrix accumulator (mergeable): cells of declared lines and arrow
/// categories in a dense `[from][to][category]` array, the others hashed.
#[derive(Debug, Clone, Default)]
pub(crate) struct Comm {
    keys: Option<(Arc<Keys>, Arc<Keys>)>,
    dense: Vec<CommCell>,
    cells: FxHashMap<(i32, i32, i32), CommCell>,
    /// One-entry cache of the last hashed cell (runs of arrows between the
    /// same pair are common).
    last: Option<((i32, i32, i32), CommCell)>,
}

impl Comm {
    /// A matrix with dense cells over `lines` × `lines` × `arrow_cats`
    /// (when that is small enough).
    pub fn new(lines: Arc<Keys>, arrow_cats: Arc<Keys>) -> Comm {
        let n = lines
            .len()
            .saturating_mul(lines.len())
            .saturating_mul(arrow_cats.len());
        if n == 0 || n > DENSE_CELLS {
            return Comm::default();
        }
        Comm {
            keys: Some((lines, arrow_cats)),
            dense: vec![CommCell::default(); n],
            ..Default::default()
        }
    }

    #[inline(always)]
    fn dense_index(
        &self,
        p: &PrimitiveRef<'_>,
        lines: Option<(usize, usize)>,
        cat: Option<Option<usize>>,
    ) -> Option<usize> {
        let (l, c) = self.keys.as_ref()?;
        let (a, b) = match lines {
            Some(ab) => ab,
            None => (l.get(p.line0)?, l.get(p.line1)?),
        };
        let k = match cat {
            Some(k) => k?,
            None => c.get(p.category)?,
        };
        Some((a * l.len() + b) * c.len() + k)
    }

    /// Position of an arrow category among the matrix's dense categories
    /// (`None`: hashed), for [`add_at`](Self::add_at).
    #[inline]
    pub fn category_pos(&self, category: i32) -> Option<usize> {
        self.keys.as_ref()?.1.get(category)
    }

    /// Count an arrow; `lines`: the positions of its lines among the
    /// matrix's lines, `cat`: its category's
    /// ([`category_pos`](Self::category_pos)), when the caller has them
    /// (`None`: looked up here).
    #[inline(always)]
    pub fn add_at(
        &mut self,
        p: &PrimitiveRef<'_>,
        lines: Option<(usize, usize)>,
        cat: Option<Option<usize>>,
        size: Option<i64>,
    ) {
        if let Some(i) = self.dense_index(p, lines, cat) {
            let c = &mut self.dense[i];
            c.count += 1;
            if let Some(s) = size {
                c.sized += 1;
                c.bytes = c.bytes.saturating_add(s);
            }
            return;
        }
        let key = (p.line0, p.line1, p.category);
        let c = match &mut self.last {
            Some((k, c)) if *k == key => c,
            slot => {
                if let Some((k, c)) = slot.take() {
                    add_cell(self.cells.entry(k).or_default(), c);
                }
                &mut slot.insert((key, CommCell::default())).1
            }
        };
        c.count += 1;
        if let Some(s) = size {
            c.sized += 1;
            c.bytes = c.bytes.saturating_add(s);
        }
    }

    fn settle(&mut self) {
        if let Some((k, c)) = self.last.take() {
            add_cell(self.cells.entry(k).or_default(), c);
        }
    }

    pub fn merge(&mut self, mut other: Comm) {
        self.settle();
        other.settle();
        if self.dense.len() == other.dense.len() {
            for (a, b) in self.dense.iter_mut().zip(other.dense) {
                add_cell(a, b);
            }
        } else {
            other.spill();
            self.spill();
        }
        for (k, c) in other.cells {
            add_cell(self.cells.entry(k).or_default(), c);
        }
    }

    /// Move the dense cells into the hash map.
    fn spill(&mut self) {
        if let Some((l, c)) = self.keys.take() {
            let dense = std::mem::take(&mut self.dense);
            let (nl, nc) = (l.len(), c.len());
            for (i, x) in dense.into_iter().enumerate() {
                if x.count > 0 {
                    let key = (l.ids[i / (nl * nc)], l.ids[(i / nc) % nl], c.ids[i % nc]);
                    add_cell(self.cells.entry(key).or_default(), x);
                }
            }
        }
    }

    /// Absorb rows of another matrix (a partial result).
    pub fn merge_rows(&mut self, rows: Vec<CommRow>) {
        self.settle();
        for r in rows {
            let c = CommCell {
                count: r.count,
                sized: r.sized,
                bytes: r.bytes.unwrap_or(0),
            };
            add_cell(
                self.cells
                    .entry((r.from_line, r.to_line, r.category))
                    .or_default(),
                c,
            );
        }
    }

    /// The rows, by (from, to, category).
    pub fn rows(mut self) -> Vec<CommRow> {
        self.settle();
        self.spill();
        let mut v: Vec<CommRow> = self
            .cells
            .into_iter()
            .map(|((f, t, c), x)| CommRow {
                from_line: f,
                to_line: t,
                category: c,
                count: x.count,
                sized: x.sized,
                bytes: (x.sized > 0).then_some(x.bytes),
            })
            .collect();
        v.sort_by_key(|r| (r.from_line, r.to_line, r.category));
        v
    }
}

fn add_cell(a: &mut CommCell, b: CommCell) {
    a.count += b.count;
    a.sized += b.sized;
    a.bytes = a.bytes.saturating_add(b.bytes);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Color, InfoFormat};

    fn cat(label: &str) -> Category {
        let mut c = Category::new(0, "m", Topology::Arrow, Color::rgba(0, 0, 0, 255), 1);
        c.info = InfoFormat::parse(label).unwrap();
        c
    }

    #[test]
    fn size_keys() {
        for k in [
            "msg_size=",
            ", msg_size=",
            " size=",
            "Bytes: ",
            "nbytes=",
            "MsgSize ",
        ] {
            assert!(is_size_key(k), "{k:?}");
        }
        for k in ["tag=", "count=", "sizes=", "", "size of ="] {
            assert!(!is_size_key(k), "{k:?}");
        }
    }

    #[test]
    fn fields_found_and_read() {
        let f = SizeField::of(&cat("msg_tag=%d, msg_size=%d")).unwrap();
        assert_eq!((f.token, f.offset), (1, Some(4)));
        assert_eq!(f.read(&[0, 0, 0, 1, 0, 0, 1, 0]), Some(256));
        assert_eq!(f.read(&[0, 0, 0, 1, 0, 0]), None);
        assert_eq!(f.read(&[0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff]), None);
        let f = SizeField::of(&cat("comm=%d tag=%d size=%l")).unwrap();
        assert_eq!(f.token, 2);
        let mut p = vec![0u8; 8];
        p.extend_from_slice(&1_000_000_000_000i64.to_be_bytes());
        assert_eq!(f.read(&p), Some(1_000_000_000_000));
        // A %s before the field: walked by its length prefix.
        let f = SizeField::of(&cat("name=%s size=%d")).unwrap();
        assert_eq!(f.offset, None);
        assert_eq!(f.read(&[0, 2, b'a', b'b', 0, 0, 0, 9]), Some(9));
        assert_eq!(f.read(&[0, 9, b'a']), None);
        assert!(SizeField::of(&cat("size=%E")).is_none());
        assert!(SizeField::of(&cat("tag=%d")).is_none());
        assert!(SizeField::of(&cat("")).is_none());
        // A label that starts with a token: the key before token i is key i-1.
        let f = SizeField::of(&cat("%d bytes=%d")).unwrap();
        assert_eq!((f.token, f.offset), (1, Some(4)));
    }
}
