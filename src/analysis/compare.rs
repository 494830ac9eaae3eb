//! Comparing two runs: their profiles and time profiles aligned by category
//! name (pipit's `multirun_analysis`; `slog2 diff A B`).
//!
//! Category indices differ between runs (converters number categories in
//! the order they meet them), so rows are matched by **name**; categories of
//! one file that share a name are summed. A name present in one run only
//! compares against zeros. Differences are `b - a`; relative differences
//! `(b - a) / a`, NaN when `a` is 0.

use std::collections::BTreeMap;

use crate::error::{Error, Result};
use crate::read::Slog2File;

use super::profile::{ProfileCell, ProfileRow};
use super::timeprofile::TimeProfile;

/// `(b - a) / a`, NaN when `a` is 0.
pub fn relative(a: f64, b: f64) -> f64 {
    if a == 0.0 {
        f64::NAN
    } else {
        (b - a) / a
    }
}

fn name_of(file: &Slog2File, category: i32) -> String {
    file.category(category)
        .map_or_else(|| format!("category {category}"), |c| c.name.clone())
}

/// One category name in both runs.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareRow {
    pub name: String,
    pub a: ProfileCell,
    pub b: ProfileCell,
}

impl CompareRow {
    pub fn count_diff(&self) -> i64 {
        self.b.count as i64 - self.a.count as i64
    }
    pub fn inclusive_diff(&self) -> f64 {
        self.b.inclusive - self.a.inclusive
    }
    pub fn exclusive_diff(&self) -> f64 {
        self.b.exclusive - self.a.exclusive
    }
    pub fn inclusive_rel(&self) -> f64 {
        relative(self.a.inclusive, self.b.inclusive)
    }
    pub fn exclusive_rel(&self) -> f64 {
        relative(self.a.exclusive, self.b.exclusive)
    }
}

fn by_name(file: &Slog2File, rows: &[ProfileRow]) -> BTreeMap<String, ProfileCell> {
    let mut m: BTreeMap<String, ProfileCell> = BTreeMap::new();
    for r in rows {
        m.entry(name_of(file, r.category))
            .or_default()
            .merge(&r.cell);
    }
    m
}

/// Per-category profile rows of two runs aligned by name, by name.
pub fn compare_profiles(
    fa: &Slog2File,
    a: &[ProfileRow],
    fb: &Slog2File,
    b: &[ProfileRow],
) -> Vec<CompareRow> {
    let (ma, mut mb) = (by_name(fa, a), by_name(fb, b));
    let mut out: Vec<CompareRow> = ma
        .into_iter()
        .map(|(name, a)| {
            let b = mb.remove(&name).unwrap_or_default();
            CompareRow { name, a, b }
        })
        .collect();
    out.extend(mb.into_iter().map(|(name, b)| CompareRow {
        name,
        a: ProfileCell::default(),
        b,
    }));
    out.sort_by(|x, y| x.name.cmp(&y.name));
    out
}

/// Two time profiles with the same slice count aligned by category name:
/// slice `k` of each run's own range against each other.
#[derive(Debug, Clone, PartialEq)]
pub struct TimeCompare {
    pub slices: usize,
    pub names: Vec<String>,
    /// `[slice][name]`.
    pub a: Vec<f64>,
    pub b: Vec<f64>,
}

fn columns(file: &Slog2File, tp: &TimeProfile) -> BTreeMap<String, Vec<usize>> {
    let mut m: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, &c) in tp.categories.iter().enumerate() {
        m.entry(name_of(file, c)).or_default().push(i);
    }
    m
}

/// Align two time profiles by category name (module docs).
pub fn compare_time_profiles(
    fa: &Slog2File,
    a: &TimeProfile,
    fb: &Slog2File,
    b: &TimeProfile,
) -> Result<TimeCompare> {
    if a.grid.n != b.grid.n {
        return Err(Error::InvalidArgument(format!(
            "time profiles of {} and {} slices do not align",
            a.grid.n, b.grid.n
        )));
    }
    let (ca, cb) = (columns(fa, a), columns(fb, b));
    let mut names: Vec<String> = ca.keys().chain(cb.keys()).cloned().collect();
    names.sort();
    names.dedup();
    let n = a.grid.n;
    let w = names.len();
    let (mut va, mut vb) = (vec![0.0; n * w], vec![0.0; n * w]);
    for (j, name) in names.iter().enumerate() {
        for k in 0..n {
            if let Some(cols) = ca.get(name) {
                va[k * w + j] = cols.iter().map(|&c| a.get(k, c)).sum();
            }
            if let Some(cols) = cb.get(name) {
                vb[k * w + j] = cols.iter().map(|&c| b.get(k, c)).sum();
            }
        }
    }
    Ok(TimeCompare {
        slices: n,
        names,
        a: va,
        b: vb,
    })
}
