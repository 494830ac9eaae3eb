//! How many drawables a file holds: the one definition every skin prints.
//!
//! # Why a definition of its own
//!
//! One file with composites used to give four different "drawable counts"
//! depending on the door: the CLI's CSV row count (top-level records), the
//! Python and Java row counts (members included), `File.drawable_count`
//! (the sum of the categories' stored counts) and `slog2 info`'s category
//! table (stored counts, 0 for composites). Each was right about something
//! different. This module names each number once, counts them in one walk
//! of the file, and every binding reports these values under these names
//! (the C ABI's `SLOG2_Get_counts`, Java's `Slog2Reader.counts()`, Python's
//! `File.counts()`, `slog2 info`).
//!
//! The words, as in the spec and the reference:
//!
//! * a **drawable** is one record of the tree: a primitive (state, arrow,
//!   event) or a composite. `drawables = top-level primitives + composites`;
//!   it is what the converter's summary, `slog2 check` and the reference's
//!   "Number of Drawables" count.
//! * a composite's **members** are primitives inside it; they are not
//!   drawables of their own.
//! * **primitives** counts every primitive, members included
//!   (`drawables - composites + members`).
//! * **rows**: every table (window and preview queries, scans, `slog2 query`
//!   CSV/text/JSON, Python data frames, Java `Drawables`) has one row per
//!   drawable and one per member, a member's row right after its composite's
//!   with `parent` = the composite's row (`-1` for every other row), so
//!   `rows = drawables + members`.
//! * a category's **stored count** is what the file's category block holds:
//!   the reference (and our writer, which writes the same files) counts the
//!   primitives of the category there, members included, and stores **0 for
//!   a composite category**. [`CategoryCount`] gives the counted numbers
//!   beside it.
//!
//! Counting is a whole-file [`scan`](super::scan) (each record once, at the
//! speed of reading the bytes), done once per open file and kept.

use rustc_hash::FxHashMap;

use crate::error::Result;

use super::rows::ROW_COMPOSITE;
use super::scan::DEFAULT_BATCH_ROWS;
use super::{Rows, Slog2File};

/// The definition of the counts, in words, for the skins to print.
pub const DEFINITION: &str = "drawables = the file's top-level records: primitives (states, arrows, \
events) and composites; a composite's members are primitives inside it, not drawables of their own; \
primitives = every primitive, members included; rows = drawables + members (every table has one row \
per drawable and one per member, a member's row after its composite's, with parent = that row, -1 \
otherwise); a category's stored count (the file's category block, as the reference writes it) counts \
its primitives, members included, and is 0 for composite categories.";

/// The counts of one category (see the module docs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CategoryCount {
    /// The category's index.
    pub index: i32,
    /// Drawables of this category: top-level primitives and composites.
    pub drawables: u64,
    /// Composite members of this category.
    pub members: u64,
    /// The count stored in the file's category block (`None`: the category
    /// is used by drawables but not defined in the file).
    pub stored: Option<i64>,
}

/// What a file holds, by the definitions of the module docs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    /// Top-level records: primitives and composites.
    pub drawables: u64,
    /// Composites (drawables too).
    pub composites: u64,
    /// Primitives inside composites.
    pub members: u64,
    /// Per category, sorted by index: every category of the file, then any
    /// index used by drawables without a definition.
    pub by_category: Vec<CategoryCount>,
}

impl Counts {
    /// Every primitive, members included: `drawables - composites + members`.
    pub fn primitives(&self) -> u64 {
        self.drawables - self.composites + self.members
    }

    /// Rows of every table of the whole file: `drawables + members`.
    pub fn rows(&self) -> u64 {
        self.drawables + self.members
    }

    /// One line: `9 drawables (3 composites with 14 members), 20 primitives, 23 rows`.
    pub fn summary(&self) -> String {
        format!(
            "{} drawables ({} composites with {} members), {} primitives, {} rows",
            self.drawables,
            self.composites,
            self.members,
            self.primitives(),
            self.rows()
        )
    }

    /// The counts of category `index`, if the file defines or uses it.
    pub fn category(&self, index: i32) -> Option<&CategoryCount> {
        self.by_category
            .binary_search_by_key(&index, |c| c.index)
            .ok()
            .map(|i| &self.by_category[i])
    }

    /// Add one batch of rows (members follow their composite, as in every
    /// table).
    fn add(&mut self, rows: &Rows, per: &mut FxHashMap<i32, (u64, u64)>) {
        for i in 0..rows.len() {
            let e = per.entry(rows.category[i]).or_default();
            if rows.parent[i] >= 0 {
                self.members += 1;
                e.1 += 1;
            } else {
                self.drawables += 1;
                e.0 += 1;
                if rows.kind[i] == ROW_COMPOSITE {
                    self.composites += 1;
                }
            }
        }
    }
}

impl Slog2File {
    /// The file's counts (module docs): a whole-file scan the first time,
    /// kept for later calls. A damaged node is the scan's error.
    pub fn counts(&self) -> Result<&Counts> {
        if let Some(c) = self.counts.get() {
            return Ok(c);
        }
        let c = self.count_now()?;
        Ok(self.counts.get_or_init(|| c))
    }

    fn count_now(&self) -> Result<Counts> {
        let mut counts = Counts::default();
        let mut per: FxHashMap<i32, (u64, u64)> = FxHashMap::default();
        let mut scan = self.scan();
        let mut rows = Rows::default();
        while scan.next_into(&mut rows, DEFAULT_BATCH_ROWS, usize::MAX)? {
            counts.add(&rows, &mut per);
        }
        let mut by: Vec<CategoryCount> = self
            .categories()
            .iter()
            .map(|c| {
                let (d, m) = per.remove(&c.index).unwrap_or_default();
                CategoryCount {
                    index: c.index,
                    drawables: d,
                    members: m,
                    stored: Some(c.count),
                }
            })
            .collect();
        by.extend(per.into_iter().map(|(index, (d, m))| CategoryCount {
            index,
            drawables: d,
            members: m,
            stored: None,
        }));
        by.sort_by_key(|c| c.index);
        // A file may define an index twice: keep the first (as `category`).
        by.dedup_by_key(|c| c.index);
        counts.by_category = by;
        Ok(counts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_names_every_number() {
        let c = Counts {
            drawables: 9,
            composites: 3,
            members: 14,
            by_category: Vec::new(),
        };
        assert_eq!(c.primitives(), 20);
        assert_eq!(c.rows(), 23);
        assert_eq!(
            c.summary(),
            "9 drawables (3 composites with 14 members), 20 primitives, 23 rows"
        );
    }
}
