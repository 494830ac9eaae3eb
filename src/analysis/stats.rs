//! The statistics of a scope in one pass: profile (per category and per
//! line × category), communication matrix and idle time, computed by one
//! nesting-aware walk ([`walk_nested`](super::nest::walk_nested)) — the call behind `SLOG2_Stats_open`,
//! `File.profile()`, `slog2 stats`.
//!
//! ```no_run
//! use slog2::analysis::{Scope, Stats, StatsOptions};
//! # fn main() -> slog2::Result<()> {
//! let f = slog2::Slog2File::open("run.slog2")?;
//! let s = Stats::compute(&f, &Scope::whole(&f), &StatsOptions::default())?;
//! for r in &s.by_category {
//!     println!("{} {} {}", r.category, r.cell.count, r.cell.exclusive);
//! }
//! # Ok(()) }
//! ```
//!
//! A [`Stats`] of a partition ([`Scope::part`]) is a partial result: partials
//! of partitions that tile the time axis [`merge`](Stats::merge) into the
//! statistics of the whole window (counts exactly, times up to the order of
//! float sums).

use std::collections::BTreeSet;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::error::Result;
use crate::model::Topology;
use crate::read::Slog2File;

use super::comm::{Comm, CommRow, SizeField, SizeFields};
use super::idle::{idle_rows, wait_categories, IdleCell, IdleRow};
use super::imbalance::{imbalance, ImbalanceMetric, ImbalanceRow};
use super::keys::{file_keys, Keys, Table};
use super::lookup::Lookup;
use super::nest::{walk_nested_mode, NestVisitor, StateRef, NONE};
use super::profile::{by_category, ProfileAcc, ProfileCell, ProfileRow};
use super::scope::Scope;
use super::walk::{CompositeRef, PrimitiveRef};

/// Options of [`Stats::compute`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StatsOptions {
    /// Wait categories for idle time, by name (wildcards `*`, `?`).
    pub wait: Vec<String>,
}

/// Profile, communication matrix and idle time of a scope (module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct Stats {
    pub scope: Scope,
    /// Per line × category, by line then category.
    pub by_line: Vec<ProfileRow>,
    /// Per category (sums of `by_line`), by category.
    pub by_category: Vec<ProfileRow>,
    /// The communication matrix, by (from, to, category).
    pub comm: Vec<CommRow>,
    /// The lines: those of the file's y-maps and those drawables used.
    pub lines: Vec<i32>,
    /// Per line `busy` and `wait` time (lines with a state), by line.
    pub idle_cells: Vec<(i32, IdleCell)>,
    /// Wait categories matched by the options (empty: idle = no state).
    pub wait: Vec<i32>,
    /// The file's state categories (for imbalance).
    pub state_categories: Vec<i32>,
}

impl Stats {
    /// One nesting-aware pass over the scope's drawables (module docs).
    pub fn compute(file: &Slog2File, scope: &Scope, opts: &StatsOptions) -> Result<Stats> {
        Stats::compute_mode(file, scope, opts, false)
    }

    /// [`compute`](Self::compute), in the nesting walk's general mode when
    /// `general` (tests compare the two modes).
    #[doc(hidden)]
    pub fn compute_mode(
        file: &Slog2File,
        scope: &Scope,
        opts: &StatsOptions,
        general: bool,
    ) -> Result<Stats> {
        let (lines, cats) = file_keys(file);
        let sizes = SizeFields::new(file);
        let wait = wait_categories(file, &opts.wait);
        let waits = Lookup::new(wait.iter().map(|&c| (c, true)));
        let ctx = Ctx {
            sizes: &sizes,
            waits: &waits,
            has_wait: !wait.is_empty(),
        };
        let arrows = Arc::new(Keys::new(
            file.categories()
                .iter()
                .filter(|c| !c.is_preview() && c.topology == Topology::Arrow)
                .map(|c| c.index)
                .collect(),
        ));
        let acc = walk_nested_mode(file, scope, general, || {
            Acc::new(&ctx, lines.clone(), cats.clone(), arrows.clone())
        })?;
        let mut state_categories: Vec<i32> = file
            .categories()
            .iter()
            .filter(|c| !c.is_preview() && c.topology == Topology::State)
            .map(|c| c.index)
            .collect();
        state_categories.sort_unstable();
        state_categories.dedup();
        Ok(acc.finish(*scope, wait.into_iter().collect(), state_categories))
    }

    /// Absorb the statistics of another partition of the same window.
    pub fn merge(&mut self, other: Stats) {
        let mut m: FxHashMap<(i32, i32), ProfileCell> = FxHashMap::default();
        for r in self.by_line.drain(..).chain(other.by_line) {
            m.entry((r.line.unwrap_or(i32::MIN), r.category))
                .or_default()
                .merge(&r.cell);
        }
        let mut rows: Vec<ProfileRow> = m
            .into_iter()
            .map(|((l, c), cell)| ProfileRow {
                line: Some(l),
                category: c,
                cell,
            })
            .collect();
        rows.sort_by_key(|r| (r.line, r.category));
        self.by_category = by_category(&rows);
        self.by_line = rows;
        let mut comm = Comm::default();
        comm.merge_rows(std::mem::take(&mut self.comm));
        comm.merge_rows(other.comm);
        self.comm = comm.rows();
        let lines: BTreeSet<i32> = self.lines.iter().chain(&other.lines).copied().collect();
        self.lines = lines.into_iter().collect();
        let mut idle: std::collections::BTreeMap<i32, IdleCell> = Default::default();
        for (l, c) in self.idle_cells.drain(..).chain(other.idle_cells) {
            let e = idle.entry(l).or_default();
            e.busy += c.busy;
            e.wait += c.wait;
        }
        self.idle_cells = idle.into_iter().collect();
    }

    /// Idle time of every line (see [`mod@super::idle`]).
    pub fn idle(&self) -> Vec<IdleRow> {
        let cell = |l: i32| {
            self.idle_cells
                .binary_search_by_key(&l, |x| x.0)
                .map_or(IdleCell::default(), |i| self.idle_cells[i].1)
        };
        idle_rows(
            &self.lines,
            cell,
            self.scope.length(),
            !self.wait.is_empty(),
        )
    }

    /// Load imbalance of each state category over the lines (see
    /// [`mod@super::imbalance`]), with the `top` worst lines.
    pub fn imbalance(&self, metric: ImbalanceMetric, top: usize) -> Vec<ImbalanceRow> {
        imbalance(
            &self.by_line,
            &self.lines,
            &self.state_categories,
            metric,
            top,
        )
    }

    /// The per-category row of `category` (zeros if absent).
    pub fn category(&self, category: i32) -> ProfileCell {
        self.by_category
            .binary_search_by_key(&category, |r| r.category)
            .map_or(ProfileCell::default(), |i| self.by_category[i].cell)
    }
}

struct Ctx<'a> {
    sizes: &'a SizeFields,
    waits: &'a Lookup<bool>,
    has_wait: bool,
}

/// What an arrow's or event's category resolves to, kept for the next
/// primitive: runs of one category (the messages) then cost one comparison
/// instead of three lookups.
#[derive(Clone, Copy)]
struct PrimMemo<'a> {
    category: i32,
    /// Among the profile's categories (`NONE`: undeclared).
    cpos: u32,
    /// Among the matrix's arrow categories.
    apos: Option<usize>,
    size: Option<&'a SizeField>,
}

/// The one-pass accumulator.
struct Acc<'a> {
    ctx: &'a Ctx<'a>,
    memo: Option<PrimMemo<'a>>,
    profile: ProfileAcc,
    comm: Comm,
    idle: Vec<IdleCell>,
    idle_extra: FxHashMap<i32, IdleCell>,
    seen: BTreeSet<i32>,
    last_line: i32,
}

impl<'a> Acc<'a> {
    fn new(ctx: &'a Ctx<'a>, lines: Arc<Keys>, cats: Arc<Keys>, arrows: Arc<Keys>) -> Acc<'a> {
        let n = lines.len();
        Acc {
            ctx,
            memo: None,
            comm: Comm::new(lines.clone(), arrows),
            profile: ProfileAcc {
                table: Table::new(lines, cats),
            },
            idle: vec![IdleCell::default(); n],
            idle_extra: FxHashMap::default(),
            seen: BTreeSet::new(),
            last_line: i32::MIN,
        }
    }

    #[inline(always)]
    fn idle_cell(&mut self, pos: Option<usize>, line: i32) -> &mut IdleCell {
        match pos {
            Some(p) => &mut self.idle[p],
            None => self.idle_extra.entry(line).or_default(),
        }
    }

    /// Remember a line no y-map declares.
    #[inline(always)]
    fn see(&mut self, pos: Option<usize>, line: i32) {
        if pos.is_none() && line != self.last_line {
            self.last_line = line;
            self.seen.insert(line);
        }
    }

    /// Resolve a primitive's category ([`PrimMemo`]).
    #[inline(never)]
    fn remember(&mut self, category: i32) -> PrimMemo<'a> {
        let m = PrimMemo {
            category,
            cpos: self
                .profile
                .table
                .cats
                .get(category)
                .map_or(NONE, |c| c as u32),
            apos: self.comm.category_pos(category),
            size: self.ctx.sizes.get(category),
        };
        self.memo = Some(m);
        m
    }

    fn finish(mut self, scope: Scope, wait: Vec<i32>, state_categories: Vec<i32>) -> Stats {
        let by_line = self.profile.by_line();
        let lines_keys = self.profile.table.lines.clone();
        let mut lines: BTreeSet<i32> = lines_keys.ids.iter().copied().collect();
        lines.extend(self.seen.iter().copied());
        let mut idle_cells: Vec<(i32, IdleCell)> = lines_keys
            .ids
            .iter()
            .zip(&self.idle)
            .filter(|(_, c)| **c != IdleCell::default())
            .map(|(&l, &c)| (l, c))
            .collect();
        idle_cells.extend(self.idle_extra.drain());
        idle_cells.sort_by_key(|x| x.0);
        Stats {
            scope,
            by_category: by_category(&by_line),
            by_line,
            comm: self.comm.rows(),
            lines: lines.into_iter().collect(),
            idle_cells,
            wait,
            state_categories,
        }
    }
}

impl Acc<'_> {
    #[inline(never)]
    fn state_general(&mut self, s: &StateRef) {
        let d = s.duration;
        let lp = (s.line_pos != NONE).then_some(s.line_pos as usize);
        self.see(lp, s.line);
        let t = &mut self.profile.table;
        let i = t.index_of(lp, s.cat_pos);
        t.at(i, s.line, s.category).add(d, d);
        match s.parent {
            Some(pc) => {
                let i = t.index_of(lp, s.parent_pos);
                t.at(i, s.line, pc).exclusive -= d;
            }
            None => self.idle_cell(lp, s.line).busy += d,
        }
        if self.ctx.has_wait && self.ctx.waits.get(s.category).is_some() {
            let nested_in_wait = s.parent.is_some_and(|p| self.ctx.waits.get(p).is_some());
            if !nested_in_wait {
                self.idle_cell(lp, s.line).wait += d;
            }
        }
    }
}

impl NestVisitor for Acc<'_> {
    /// The usual state (declared line and categories, dense cells, no
    /// wait categories) straight into its row; the others in
    /// [`state_general`](Acc::state_general). The same additions in the
    /// same order either way.
    #[inline(always)]
    fn state(&mut self, s: &StateRef) {
        let (cells, nc) = self.profile.table.dense_rows();
        if nc != 0
            && s.line_pos != NONE
            && s.cat_pos != NONE
            && (s.parent.is_none() || s.parent_pos != NONE)
            && !self.ctx.has_wait
        {
            let d = s.duration;
            let lp = s.line_pos as usize;
            let row = lp * nc;
            cells[row + s.cat_pos as usize].add(d, d);
            if s.parent.is_some() {
                cells[row + s.parent_pos as usize].exclusive -= d;
            } else {
                self.idle[lp].busy += d;
            }
            return;
        }
        self.state_general(s);
    }

    #[inline(always)]
    fn primitive(&mut self, p: &PrimitiveRef<'_>, d: f64) {
        let m = match self.memo {
            Some(m) if m.category == p.category => m,
            _ => self.remember(p.category),
        };
        let lp = self.profile.table.lines.get(p.line0);
        self.see(lp, p.line0);
        let t = &mut self.profile.table;
        let i = t.index_of(lp, m.cpos);
        t.at(i, p.line0, p.category).add(d, d);
        if p.topology == Topology::Arrow {
            let lp1 = self.profile.table.lines.get(p.line1);
            self.see(lp1, p.line1);
            // The matrix's lines are the table's.
            let size = m.size.and_then(|f| f.read(p.info));
            self.comm.add_at(p, lp.zip(lp1), Some(m.apos), size);
        }
    }

    fn composite(&mut self, c: &CompositeRef<'_>) {
        let lp = self.profile.table.lines.get(c.line0);
        self.see(lp, c.line0);
        self.profile.table.cell(c.line0, c.category).count += 1;
    }

    fn merge(&mut self, o: Self) {
        self.profile.merge(o.profile);
        self.comm.merge(o.comm);
        for (a, b) in self.idle.iter_mut().zip(&o.idle) {
            a.busy += b.busy;
            a.wait += b.wait;
        }
        for (l, c) in o.idle_extra {
            let e = self.idle_extra.entry(l).or_default();
            e.busy += c.busy;
            e.wait += c.wait;
        }
        self.seen.extend(o.seen);
    }
}
