//! Dense positions for the line IDs and category indices of a file, shared
//! by the statistics' tables: a table cell is found with two lookups and a
//! multiply, not a hash (statistics touch a cell per drawable, 10⁸ times a
//! second). Keys the file does not declare (a drawable on a line no y-map
//! lists, an undefined category) are not dropped: tables keep them in a
//! hash map beside the dense cells.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::model::YCoordMap;
use crate::read::Slog2File;

use super::lookup::Lookup;

/// Largest dense table (cells); beyond it every cell is hashed.
const DENSE_CELLS: usize = 1 << 22;

/// Ordered IDs and their positions.
#[derive(Debug, Clone)]
pub(crate) struct Keys {
    pub ids: Vec<i32>,
    /// Position of `id - min` (`NONE`: absent), when the IDs span few values.
    dense: Vec<u32>,
    min: i32,
    /// Otherwise.
    pos: Lookup<u32>,
}

const NONE: u32 = u32::MAX;
/// Widest span of IDs kept in `dense`.
const DENSE_SPAN: i64 = 1 << 20;

impl Keys {
    pub fn new(mut ids: Vec<i32>) -> Keys {
        ids.sort_unstable();
        ids.dedup();
        let (min, max) = (
            ids.first().copied().unwrap_or(0),
            ids.last().copied().unwrap_or(-1),
        );
        let span = i64::from(max) - i64::from(min) + 1;
        let mut dense = Vec::new();
        if !ids.is_empty() && span <= DENSE_SPAN {
            dense = vec![NONE; span as usize];
            for (i, &k) in ids.iter().enumerate() {
                dense[(i64::from(k) - i64::from(min)) as usize] = i as u32;
            }
        }
        let pos = Lookup::new(ids.iter().enumerate().map(|(i, &k)| (k, i as u32)));
        Keys {
            ids,
            dense,
            min,
            pos,
        }
    }

    #[inline(always)]
    pub fn get(&self, id: i32) -> Option<usize> {
        if !self.dense.is_empty() {
            // An ID below `min` wraps to an index of at least `2^32 - 2^31
            // - min`, past the table's `max - min + 1` entries: out of
            // range too, with no second comparison.
            let i = id.wrapping_sub(self.min) as u32 as usize;
            return match self.dense.get(i) {
                Some(&p) if p != NONE => Some(p as usize),
                _ => None,
            };
        }
        self.pos.get(id).map(|p| p as usize)
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }
}

/// The lines a file declares in its y-maps, and its categories (previews
/// left out).
pub(crate) fn file_keys(file: &Slog2File) -> (Arc<Keys>, Arc<Keys>) {
    let lines = file
        .ycoordmaps()
        .iter()
        .flat_map(|m: &YCoordMap| m.rows.iter().map(|r| r.0))
        .collect();
    let cats = file
        .categories()
        .iter()
        .filter(|c| !c.is_preview())
        .map(|c| c.index)
        .collect();
    (Arc::new(Keys::new(lines)), Arc::new(Keys::new(cats)))
}

/// Cells keyed by (line, category): dense over the declared keys, hashed
/// for the others.
#[derive(Debug, Clone)]
pub(crate) struct Table<T> {
    pub lines: Arc<Keys>,
    pub cats: Arc<Keys>,
    /// `cats.len()` when the cells are dense, 0 otherwise (one load on the
    /// per-drawable path instead of two and a test).
    ncats: usize,
    dense: Vec<T>,
    extra: FxHashMap<(i32, i32), T>,
}

impl<T: Default + Clone> Table<T> {
    pub fn new(lines: Arc<Keys>, cats: Arc<Keys>) -> Table<T> {
        let n = lines.len().saturating_mul(cats.len());
        let dense = if n <= DENSE_CELLS {
            vec![T::default(); n]
        } else {
            Vec::new()
        };
        Table {
            ncats: if dense.is_empty() { 0 } else { cats.len() },
            lines,
            cats,
            dense,
            extra: FxHashMap::default(),
        }
    }

    /// The dense cell index of a (line position, category) pair.
    #[inline(always)]
    pub fn index(&self, line_pos: Option<usize>, cat: i32) -> Option<usize> {
        if self.ncats == 0 {
            return None;
        }
        Some(line_pos? * self.ncats + self.cats.get(cat)?)
    }

    /// The dense cell index from a line position and a category position
    /// (`u32::MAX`: undeclared).
    #[inline(always)]
    pub fn index_of(&self, line_pos: Option<usize>, cat_pos: u32) -> Option<usize> {
        if self.ncats == 0 || cat_pos == u32::MAX {
            return None;
        }
        Some(line_pos? * self.ncats + cat_pos as usize)
    }

    /// The dense cells and the number of categories of a row (0: no
    /// dense cells), for a caller that indexes rows itself.
    #[inline(always)]
    pub fn dense_rows(&mut self) -> (&mut [T], usize) {
        (&mut self.dense, self.ncats)
    }

    #[inline(always)]
    pub fn at(&mut self, index: Option<usize>, line: i32, cat: i32) -> &mut T {
        match index {
            Some(i) => &mut self.dense[i],
            None => self.extra.entry((line, cat)).or_default(),
        }
    }

    #[inline(always)]
    pub fn cell(&mut self, line: i32, cat: i32) -> &mut T {
        let i = self.index(self.lines.get(line), cat);
        self.at(i, line, cat)
    }

    /// Merge `other` (same keys) cell by cell.
    pub fn merge_with(&mut self, other: Table<T>, mut f: impl FnMut(&mut T, T)) {
        debug_assert_eq!(self.dense.len(), other.dense.len());
        for (a, b) in self.dense.iter_mut().zip(other.dense) {
            f(a, b);
        }
        for (k, b) in other.extra {
            f(self.extra.entry(k).or_default(), b);
        }
    }

    /// Every cell with its (line, category), in (line, category) order;
    /// `keep` chooses the cells worth listing.
    pub fn cells(&self, keep: impl Fn(&T) -> bool) -> Vec<(i32, i32, T)> {
        let nc = self.cats.len();
        let mut v: Vec<(i32, i32, T)> = Vec::new();
        for (i, c) in self.dense.iter().enumerate() {
            if keep(c) {
                v.push((self.lines.ids[i / nc], self.cats.ids[i % nc], c.clone()));
            }
        }
        for (&(l, k), c) in &self.extra {
            if keep(c) {
                v.push((l, k, c.clone()));
            }
        }
        v.sort_by_key(|x| (x.0, x.1));
        v
    }
}
