//! Histograms: the durations of a category's drawables, the sizes of
//! messages — on linear or logarithmic bins with outlier cut-offs — and the
//! instances behind any bar, as rows a viewer can blink and Python can list.
//!
//! # Bins and cut-offs
//!
//! [`Bins`] are `n` bins between two cut-offs `lo < hi`, equal in width
//! (linear) or in ratio (log, `lo > 0`), or explicit edges. Bin `k` holds
//! `[e_k, e_(k+1))`, the last bin also `hi`. Values below `lo` or above `hi`
//! are **outliers**: they are not binned but counted (and summed) in
//! `below` and `above`, so the bars plus the outliers always account for
//! every instance. Without cut-offs the bins span the measured values'
//! minimum and maximum ([`value_range`], a first pass), so there are none.
//!
//! (slog2sdk's Jumpshot "histogram window", `viewer/histogram`, is the
//! per-timeline summary of a duration — summary states and arrows, which
//! this library gives as the per-line profile and communication matrix —
//! and has no duration bins: its only settings are `HISTOGRAM_ZERO_ORIGIN`
//! and the summary borders. The bins, cut-offs and outlier counts here
//! follow what analysts expect of a duration histogram, e.g. Vampir's and
//! Trace Compass's.)
//!
//! # What is measured ([`Measure`])
//!
//! * `Duration(category)`: each primitive of the category the [`Scope`]
//!   selects (members of composites included), measured as the scope
//!   measures (clipped to the window by default): the same instances and
//!   times as the category's profile row.
//! * `MessageSize(category or all)`: each selected arrow whose size is read
//!   from its payload ([`mod@super::comm`]), in bytes; arrows without a size are
//!   left out (counted in `no_size`).
//!
//! A histogram is a mergeable partial result when the bins are shared
//! (explicit cut-offs): Dask partitions add bin by bin.

use crate::error::{Error, Result};
use crate::model::Topology;
use crate::read::Slog2File;

use super::comm::SizeFields;
use super::fold::{fold, Accumulator};
use super::scope::Scope;
use super::walk::{PrimitiveRef, Visitor};

/// Bin spacing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Spacing {
    #[default]
    Linear,
    Log,
}

/// Bin edges (module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct Bins {
    pub edges: Vec<f64>,
}

/// Which bin a value falls in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOf {
    Below,
    In(usize),
    Above,
}

impl Bins {
    /// `n` bins from `lo` to `hi` (`lo < hi`, both finite; `lo > 0` for log).
    /// `lo == hi` (all values equal) gives one bin `[lo, lo]`.
    pub fn new(lo: f64, hi: f64, n: usize, spacing: Spacing) -> Result<Bins> {
        if n == 0 || n > 1 << 24 {
            return Err(Error::InvalidArgument(format!(
                "a histogram needs 1 to 2^24 bins, not {n}"
            )));
        }
        if !(lo.is_finite() && hi.is_finite() && lo <= hi) {
            return Err(Error::InvalidArgument(format!(
                "histogram cut-offs [{lo}, {hi}] must be finite and ordered"
            )));
        }
        if spacing == Spacing::Log && lo <= 0.0 {
            return Err(Error::InvalidArgument(format!(
                "log bins need a positive low cut-off, not {lo}"
            )));
        }
        if lo == hi {
            return Ok(Bins {
                edges: vec![lo, hi],
            });
        }
        let mut edges: Vec<f64> = (0..=n)
            .map(|k| {
                let f = k as f64 / n as f64;
                match spacing {
                    Spacing::Linear => lo + (hi - lo) * f,
                    Spacing::Log => lo * (hi / lo).powf(f),
                }
            })
            .collect();
        edges[0] = lo;
        edges[n] = hi;
        for k in 1..=n {
            if edges[k] < edges[k - 1] {
                edges[k] = edges[k - 1];
            }
        }
        Ok(Bins { edges })
    }

    /// Explicit edges (at least two, non-decreasing, finite).
    pub fn from_edges(edges: Vec<f64>) -> Result<Bins> {
        if edges.len() < 2
            || edges.iter().any(|e| !e.is_finite())
            || edges.windows(2).any(|w| w[0] > w[1])
        {
            return Err(Error::InvalidArgument(
                "histogram edges must be at least two finite, non-decreasing values".into(),
            ));
        }
        Ok(Bins { edges })
    }

    pub fn len(&self) -> usize {
        self.edges.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bin of `v` (`None` for NaN).
    #[inline]
    pub fn of(&self, v: f64) -> Option<BinOf> {
        let (lo, hi) = (self.edges[0], self.edges[self.len()]);
        if v.is_nan() {
            None
        } else if v < lo {
            Some(BinOf::Below)
        } else if v > hi {
            Some(BinOf::Above)
        } else {
            let k = self.edges.partition_point(|&e| e <= v);
            Some(BinOf::In(k.clamp(1, self.len()) - 1))
        }
    }
}

/// What a histogram measures (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    Duration(i32),
    MessageSize(Option<i32>),
}

/// Measures values of selected primitives.
struct Meter<'a> {
    scope: Scope,
    measure: Measure,
    sizes: &'a SizeFields,
}

impl Meter<'_> {
    /// The value of `p` if it is measured: `Some(Some(v))`; an arrow the
    /// measure takes but cannot size: `Some(None)`.
    #[inline]
    fn value(&self, p: &PrimitiveRef<'_>) -> Option<Option<f64>> {
        if !self.scope.selects(p.start, p.end) {
            return None;
        }
        match self.measure {
            Measure::Duration(c) => {
                (p.category == c).then(|| Some(self.scope.duration(p.start, p.end)))
            }
            Measure::MessageSize(c) => {
                if p.topology != Topology::Arrow || c.is_some_and(|c| c != p.category) {
                    return None;
                }
                Some(self.sizes.size(p).map(|b| b as f64))
            }
        }
    }
}

/// A histogram (module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct Histogram {
    pub bins: Bins,
    pub counts: Vec<u64>,
    /// Sum of the values in each bin.
    pub sums: Vec<f64>,
    pub below: u64,
    pub above: u64,
    pub below_sum: f64,
    pub above_sum: f64,
    /// Arrows a message-size histogram could not size.
    pub no_size: u64,
}

impl Histogram {
    pub fn empty(bins: Bins) -> Histogram {
        let n = bins.len();
        Histogram {
            bins,
            counts: vec![0; n],
            sums: vec![0.0; n],
            below: 0,
            above: 0,
            below_sum: 0.0,
            above_sum: 0.0,
            no_size: 0,
        }
    }

    #[inline]
    pub fn add(&mut self, v: f64) {
        match self.bins.of(v) {
            Some(BinOf::In(k)) => {
                self.counts[k] += 1;
                self.sums[k] += v;
            }
            Some(BinOf::Below) => {
                self.below += 1;
                self.below_sum += v;
            }
            Some(BinOf::Above) => {
                self.above += 1;
                self.above_sum += v;
            }
            None => {}
        }
    }

    /// Add a partial histogram on the same bins.
    pub fn merge(&mut self, o: &Histogram) -> Result<()> {
        if self.bins != o.bins {
            return Err(Error::InvalidArgument(
                "histograms on different bins do not merge".into(),
            ));
        }
        for k in 0..self.counts.len() {
            self.counts[k] += o.counts[k];
            self.sums[k] += o.sums[k];
        }
        self.below += o.below;
        self.above += o.above;
        self.below_sum += o.below_sum;
        self.above_sum += o.above_sum;
        self.no_size += o.no_size;
        Ok(())
    }

    /// Instances counted, outliers included (not the arrows without a size).
    pub fn total(&self) -> u64 {
        self.counts.iter().sum::<u64>() + self.below + self.above
    }
}

struct HistAcc<'a> {
    meter: &'a Meter<'a>,
    h: Histogram,
}

impl Visitor for HistAcc<'_> {
    #[inline]
    fn primitive(&mut self, p: &PrimitiveRef<'_>) {
        match self.meter.value(p) {
            Some(Some(v)) => self.h.add(v),
            Some(None) => self.h.no_size += 1,
            None => {}
        }
    }
}

impl Accumulator for HistAcc<'_> {
    fn merge(&mut self, o: Self) {
        // Same bins by construction.
        let _ = self.h.merge(&o.h);
    }
}

/// Count, minimum and maximum of the measured values of a scope (the bins'
/// default cut-offs); `None` when there is no value.
pub fn value_range(
    file: &Slog2File,
    scope: &Scope,
    measure: Measure,
) -> Result<Option<(u64, f64, f64)>> {
    Ok(extremes(file, scope, measure)?.map(|r| (r.n, r.min, r.max)))
}

/// Count, minimum, maximum and smallest positive value of the measured
/// values, in one pass.
fn extremes(file: &Slog2File, scope: &Scope, measure: Measure) -> Result<Option<RangeOut>> {
    scope.check()?;
    let sizes = SizeFields::new(file);
    let meter = Meter {
        scope: *scope,
        measure,
        sizes: &sizes,
    };
    let r = fold(file, scope.fold_range(), || RangeAcc {
        meter: &meter,
        r: RangeOut {
            n: 0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
            pos_min: f64::INFINITY,
        },
    })?;
    Ok((r.r.n > 0).then_some(r.r))
}

struct RangeOut {
    n: u64,
    min: f64,
    max: f64,
    pos_min: f64,
}

struct RangeAcc<'a> {
    meter: &'a Meter<'a>,
    r: RangeOut,
}

impl Visitor for RangeAcc<'_> {
    #[inline]
    fn primitive(&mut self, p: &PrimitiveRef<'_>) {
        if let Some(Some(v)) = self.meter.value(p) {
            if !v.is_nan() {
                let r = &mut self.r;
                r.n += 1;
                r.min = r.min.min(v);
                r.max = r.max.max(v);
                if v > 0.0 {
                    r.pos_min = r.pos_min.min(v);
                }
            }
        }
    }
}

impl Accumulator for RangeAcc<'_> {
    fn merge(&mut self, o: Self) {
        let (r, o) = (&mut self.r, o.r);
        r.n += o.n;
        r.min = r.min.min(o.min);
        r.max = r.max.max(o.max);
        r.pos_min = r.pos_min.min(o.pos_min);
    }
}

/// The histogram of a scope's measured values on `bins` (module docs).
pub fn histogram(
    file: &Slog2File,
    scope: &Scope,
    measure: Measure,
    bins: Bins,
) -> Result<Histogram> {
    scope.check()?;
    let sizes = SizeFields::new(file);
    let meter = Meter {
        scope: *scope,
        measure,
        sizes: &sizes,
    };
    let empty = Histogram::empty(bins);
    let acc = fold(file, scope.fold_range(), || HistAcc {
        meter: &meter,
        h: empty.clone(),
    })?;
    Ok(acc.h)
}

/// Bins of `n` between the measured values' extremes when `lo`/`hi` are
/// not given (a first pass); log bins start at the smallest positive value
/// when `lo` is not given. `None` when the scope has no value to bin (log
/// bins: no positive value).
pub fn auto_bins(
    file: &Slog2File,
    scope: &Scope,
    measure: Measure,
    n: usize,
    spacing: Spacing,
    lo: Option<f64>,
    hi: Option<f64>,
) -> Result<Option<Bins>> {
    let (lo, hi) = match (lo, hi) {
        (Some(a), Some(b)) => (a, b),
        _ => {
            let Some(RangeOut {
                min: mn,
                max: mx,
                pos_min,
                ..
            }) = extremes(file, scope, measure)?
            else {
                return Ok(None);
            };
            let mut mn = lo.unwrap_or(mn);
            let mx = hi.unwrap_or(mx);
            if spacing == Spacing::Log && mn <= 0.0 && lo.is_none() {
                // Log bins start at the smallest positive value; none: nothing to bin.
                if !pos_min.is_finite() {
                    return Ok(None);
                }
                mn = pos_min;
            }
            (mn, mx.max(mn))
        }
    };
    Bins::new(lo, hi, n, spacing).map(Some)
}

/// The instances of one bin (or of the outliers) as window rows, by start
/// time: what a viewer blinks and Python lists.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Instances {
    pub start: Vec<f64>,
    pub end: Vec<f64>,
    pub line0: Vec<i32>,
    pub line1: Vec<i32>,
    pub category: Vec<i32>,
    /// The measured value (duration or bytes).
    pub value: Vec<f64>,
    /// Popup text (the category's label filled with the payload).
    pub text: Vec<String>,
    /// Instances in the bin (the rows are the first `limit` by start).
    pub total: u64,
}

#[derive(Clone)]
struct Hit {
    start: f64,
    end: f64,
    line0: i32,
    line1: i32,
    category: i32,
    value: f64,
    info: Vec<u8>,
}

struct InstAcc<'a> {
    meter: &'a Meter<'a>,
    bins: &'a Bins,
    want: BinOf,
    limit: usize,
    hits: Vec<Hit>,
    total: u64,
}

fn hit_order(a: &Hit, b: &Hit) -> std::cmp::Ordering {
    a.start
        .total_cmp(&b.start)
        .then(a.line0.cmp(&b.line0))
        .then(a.end.total_cmp(&b.end))
        .then(a.category.cmp(&b.category))
        .then(a.line1.cmp(&b.line1))
        .then(a.info.cmp(&b.info))
}

impl InstAcc<'_> {
    fn trim(&mut self) {
        self.hits.sort_by(hit_order);
        self.hits.truncate(self.limit);
    }
}

impl Visitor for InstAcc<'_> {
    fn primitive(&mut self, p: &PrimitiveRef<'_>) {
        if let Some(Some(v)) = self.meter.value(p) {
            if self.bins.of(v) == Some(self.want) {
                self.total += 1;
                self.hits.push(Hit {
                    start: p.start,
                    end: p.end,
                    line0: p.line0,
                    line1: p.line1,
                    category: p.category,
                    value: v,
                    info: p.info.to_vec(),
                });
                if self.hits.len() >= 2 * self.limit.max(512) {
                    self.trim();
                }
            }
        }
    }
}

impl Accumulator for InstAcc<'_> {
    fn merge(&mut self, mut o: Self) {
        self.total += o.total;
        self.hits.append(&mut o.hits);
        if self.hits.len() > self.limit {
            self.trim();
        }
    }
}

/// The instances in bin `bin` of `bins` (or the outliers, [`BinOf`]), the
/// first `limit` by start time, with their total.
pub fn instances(
    file: &Slog2File,
    scope: &Scope,
    measure: Measure,
    bins: &Bins,
    bin: BinOf,
    limit: usize,
) -> Result<Instances> {
    scope.check()?;
    if let BinOf::In(k) = bin {
        if k >= bins.len() {
            return Err(Error::InvalidArgument(format!(
                "bin {k} out of range (the histogram has {} bins)",
                bins.len()
            )));
        }
    }
    let sizes = SizeFields::new(file);
    let meter = Meter {
        scope: *scope,
        measure,
        sizes: &sizes,
    };
    let mut acc = fold(file, scope.fold_range(), || InstAcc {
        meter: &meter,
        bins,
        want: bin,
        limit,
        hits: Vec::new(),
        total: 0,
    })?;
    acc.trim();
    let mut out = Instances {
        total: acc.total,
        ..Default::default()
    };
    for h in acc.hits {
        out.start.push(h.start);
        out.end.push(h.end);
        out.line0.push(h.line0);
        out.line1.push(h.line1);
        out.category.push(h.category);
        out.value.push(h.value);
        out.text.push(file.info_text(h.category, &h.info));
    }
    Ok(out)
}
