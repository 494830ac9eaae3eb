//! Load imbalance per state category: how unevenly the lines share its time
//! (pipit's `load_imbalance`).
//!
//! For a category, each line `l` of the scope's lines (the file's declared
//! lines and any other line a drawable used, so a line that never entered
//! the category counts as 0) has a value `v_l` — its exclusive time by
//! default, or its inclusive time. `mean = Σ v_l / lines`, `max = max v_l`,
//! `ratio = max / mean` (1 = perfectly balanced, `lines` = all the time on
//! one line; NaN when the category has no time), and the `top` lines with
//! the largest values (ties: smaller line ID first). Categories with no
//! state in the scope are left out.

use std::collections::BTreeMap;

use super::profile::ProfileRow;

/// Which time the imbalance compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ImbalanceMetric {
    #[default]
    Exclusive,
    Inclusive,
}

impl ImbalanceMetric {
    pub fn parse(s: &str) -> crate::Result<ImbalanceMetric> {
        match s {
            "exclusive" | "excl" => Ok(ImbalanceMetric::Exclusive),
            "inclusive" | "incl" => Ok(ImbalanceMetric::Inclusive),
            _ => Err(crate::Error::InvalidArgument(format!(
                "unknown imbalance metric {s:?} (expected exclusive or inclusive)"
            ))),
        }
    }
}

/// One category's imbalance (module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct ImbalanceRow {
    pub category: i32,
    pub lines: usize,
    pub mean: f64,
    pub max: f64,
    pub ratio: f64,
    /// The worst lines and their values, largest first.
    pub worst: Vec<(i32, f64)>,
}

/// Imbalance of each of `categories` from per-line profile rows.
pub fn imbalance(
    by_line: &[ProfileRow],
    lines: &[i32],
    categories: &[i32],
    metric: ImbalanceMetric,
    top: usize,
) -> Vec<ImbalanceRow> {
    let mut per: BTreeMap<i32, Vec<(i32, f64)>> = BTreeMap::new();
    for r in by_line {
        if r.cell.timed == 0 || categories.binary_search(&r.category).is_err() {
            continue;
        }
        let v = match metric {
            ImbalanceMetric::Exclusive => r.cell.exclusive,
            ImbalanceMetric::Inclusive => r.cell.inclusive,
        };
        per.entry(r.category)
            .or_default()
            .push((r.line.unwrap_or(i32::MIN), v));
    }
    let n = lines.len().max(1);
    per.into_iter()
        .map(|(category, mut vals)| {
            let sum: f64 = vals.iter().map(|x| x.1).sum();
            // Lines without the category count as 0 (they are not in `vals`).
            let max = vals.iter().map(|x| x.1).fold(0f64, f64::max);
            let lines_n = n.max(vals.len());
            let mean = sum / lines_n as f64;
            vals.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            vals.truncate(top);
            ImbalanceRow {
                category,
                lines: lines_n,
                mean,
                max,
                ratio: if mean != 0.0 { max / mean } else { f64::NAN },
                worst: vals,
            }
        })
        .collect()
}
