//! `SLOG2_Stats_*`: the statistics of issue #30 from C — profiles,
//! communication matrix, idle time, load imbalance, histograms with their
//! instances, time profiles, run comparison, and the rows of a time
//! partition (for Dask).
//!
//! This layer only translates (`slog2::analysis` computes everything):
//!
//! * A **scope** (`SLOG2_Stats_scope`, NULL = the whole file) picks the
//!   window, clipped or whole states, and optionally a partition of box
//!   starts whose partial results add up (see `slog2::analysis::Scope`).
//! * `SLOG2_Stats_open` runs the one pass (profile, matrix, idle) and keeps
//!   the result behind a `SLOG2_Stats` handle; the other `SLOG2_Stats_*`
//!   calls on it copy parts of it into caller arrays. `SLOG2_Stats_count`
//!   sizes the arrays first.
//! * Arrays follow the four-argument convention of the rest of slog2.h
//!   (`n_out`, columns, `pos`, `max`): checked before anything is written;
//!   on SLOG2_ERR_ARRAY_TOO_SMALL nothing is written and `*n_out` holds the
//!   rows needed. Any column pointer may be NULL to skip that column.

#![allow(non_camel_case_types, non_snake_case)]

use std::ffi::{c_char, c_int};
use std::sync::{Arc, Mutex};

use ::slog2::analysis::compare::{compare_profiles, compare_time_profiles};
use ::slog2::analysis::histogram::{auto_bins, histogram, instances, BinOf};
use ::slog2::analysis::imbalance::ImbalanceMetric;
use ::slog2::analysis::{
    partition_rows, Bins, Measure, ProfileRow, Scope, Spacing, Stats, StatsOptions, TimeProfile,
};
use ::slog2::read::Slog2File;

use super::slog2::{
    core, with_file, SLOG2_File, SLOG2_Query_columns, Slog2Api as A, SLOG2_ERR_ARRAY_TOO_SMALL,
    SLOG2_ERR_BAD_ARG, SLOG2_ERR_BAD_HANDLE, SLOG2_OK,
};
use super::{
    c_len, call_on, close_handle, cstr_list, entry, fail, input, lock, lookup, out, room, set_opt,
    Registry, Res,
};

/// What a statistic covers (see `slog2::analysis::Scope`). A NULL scope is
/// the whole file, states clipped (which changes nothing there).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SLOG2_Stats_scope {
    /// The window `[t0, t1]`; NaN: the file's start / end.
    pub t0: f64,
    pub t1: f64,
    /// Non-zero: only the drawables whose box starts in `[part0, part1)`
    /// (partitions that tile the time axis see each drawable once, and
    /// their results add up to the window's).
    pub has_part: c_int,
    pub part0: f64,
    pub part1: f64,
    /// Non-zero: whole states; zero: durations clipped to the window.
    pub whole_states: c_int,
}

fn scope_of(file: &Slog2File, s: *const SLOG2_Stats_scope) -> Res<Scope> {
    // SAFETY: the callers' promise: NULL or a valid struct.
    let Some(s) = (unsafe { s.as_ref() }) else {
        return Ok(Scope::whole(file));
    };
    let opt = |t: f64| (!t.is_nan()).then_some(t);
    let mut sc = Scope::of(file, opt(s.t0), opt(s.t1)).clipped(s.whole_states == 0);
    if s.has_part != 0 {
        sc = sc.part(s.part0, s.part1);
    }
    core(sc.check())?;
    Ok(sc)
}

/// Opaque statistics state.
pub struct SLOG2_Stats_s {
    _private: [u8; 0],
}

/// Handle of the statistics of one scope (SLOG2_Stats_open).
pub type SLOG2_Stats = *mut SLOG2_Stats_s;

struct StatsObj {
    /// For category names (comparisons).
    file: Arc<Slog2File>,
    stats: Mutex<Stats>,
}

static STATS: Registry<StatsObj> = Registry::new();

fn stats_obj(h: SLOG2_Stats) -> Res<Arc<StatsObj>> {
    lookup::<A, _>(&STATS, h as usize, "SLOG2_Stats")
}

fn with_stats(h: SLOG2_Stats, f: impl FnOnce(&StatsObj) -> Res<c_int>) -> c_int {
    entry::<A>(|| call_on::<A, _, _>(&STATS, h as usize, "SLOG2_Stats", f))
}

/// Write `vals` into an optional column at `pos` (room checked by the caller).
///
/// # Safety
/// `col` is NULL or valid for writes of `pos + vals.len()` elements.
unsafe fn put<T>(col: *mut T, pos: usize, vals: impl ExactSizeIterator<Item = T>) {
    if col.is_null() {
        return;
    }
    // SAFETY: room for `pos + vals.len()` elements (caller).
    let dst = unsafe { std::slice::from_raw_parts_mut(col.add(pos), vals.len()) };
    for (d, v) in dst.iter_mut().zip(vals) {
        *d = v;
    }
}

/// The four-argument convention for `n` rows: check room at `*pos` (on
/// failure `*n_out = n` and nothing is written), let `write` fill the
/// columns from row `*pos`, then advance `*pos` and set `*n_out`.
///
/// # Safety
/// `n_out` and `pos` NULL or valid for one int each.
unsafe fn rows_out(
    n: usize,
    n_out: *mut c_int,
    pos: *mut c_int,
    max: c_int,
    what: &str,
    write: impl FnOnce(usize),
) -> Res<c_int> {
    let nc = c_len::<A>(n, what)?;
    // SAFETY: the caller's promise on `n_out` and `pos`.
    let (n_out, p0) = unsafe {
        let n_out = out::<A, _>(n_out, "n_out")?;
        match room::<A>(pos, max, n, what) {
            Ok(p) => (n_out, p),
            Err(f) => {
                *n_out = nc;
                return Err(f);
            }
        }
    };
    write(p0);
    // SAFETY: `pos` was checked non-NULL by `room`.
    unsafe { *pos += nc };
    *n_out = nc;
    Ok(SLOG2_OK)
}

/// Compute the profile, communication matrix and idle time of `scope`
/// (NULL: the whole file) in one pass, and keep them behind `*stats`.
/// `wait` is NULL or a NULL-terminated list of category names (wildcards
/// `*` and `?`) for idle time: with a list, a line's idle time is its time
/// in those states; without, its time in no state. Read the results with
/// SLOG2_Stats_count and SLOG2_Stats_profile / _comm / _idle / _imbalance;
/// close with SLOG2_Stats_close (the handle does not need the file open).
/// `*stats` is set to the handle, or NULL on failure. Returns SLOG2_OK;
/// SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_ARG (an empty or NaN window or
/// partition), SLOG2_ERR_FORMAT (a damaged node), SLOG2_ERR_BAD_HANDLE,
/// SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// `scope` NULL or a valid struct; `wait` NULL or a NULL-terminated array
/// of NUL-terminated strings; `stats` NULL or valid for one handle.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Stats_open(
    fp: SLOG2_File,
    scope: *const SLOG2_Stats_scope,
    wait: *const *const c_char,
    stats: *mut SLOG2_Stats,
) -> c_int {
    with_file(fp, |file| {
        // SAFETY: the caller's promises.
        let (h, wait) = unsafe {
            let h = out::<A, _>(stats, "stats")?;
            *h = std::ptr::null_mut();
            (h, cstr_list::<A>(wait, 1 << 16, "wait")?)
        };
        let sc = scope_of(file, scope)?;
        let opts = StatsOptions {
            wait: wait.into_iter().map(|s| s.into_owned()).collect(),
        };
        let s = core(Stats::compute(file, &sc, &opts))?;
        let id = STATS.insert(StatsObj {
            file: file.clone(),
            stats: Mutex::new(s),
        });
        *h = id as SLOG2_Stats;
        Ok(SLOG2_OK)
    })
}

/// Close a statistics handle and set `*stats` to NULL. Returns SLOG2_OK;
/// SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_HANDLE.
///
/// # Safety
/// `stats` NULL or valid for one handle.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Stats_close(stats: *mut SLOG2_Stats) -> c_int {
    entry::<A>(|| {
        // SAFETY: the caller's promise.
        unsafe { close_handle::<A, _, _>(&STATS, stats, "stats", "SLOG2_Stats") }?;
        Ok(SLOG2_OK)
    })
}

/// SLOG2_Stats_count: rows of SLOG2_Stats_profile (by category).
pub const SLOG2_STATS_PROFILE: c_int = 0;
/// SLOG2_Stats_count: rows of SLOG2_Stats_profile by line.
pub const SLOG2_STATS_PROFILE_BY_LINE: c_int = 1;
/// SLOG2_Stats_count: rows of SLOG2_Stats_comm.
pub const SLOG2_STATS_COMM: c_int = 2;
/// SLOG2_Stats_count: rows of SLOG2_Stats_idle (one per line).
pub const SLOG2_STATS_IDLE: c_int = 3;
/// SLOG2_Stats_count: rows of SLOG2_Stats_imbalance (state categories with time).
pub const SLOG2_STATS_IMBALANCE: c_int = 4;

/// `*n` = the rows a result `what` (SLOG2_STATS_PROFILE, _PROFILE_BY_LINE,
/// _COMM, _IDLE, _IMBALANCE) has. Returns SLOG2_OK; SLOG2_ERR_NULL_ARG,
/// SLOG2_ERR_BAD_ARG (unknown `what`), SLOG2_ERR_BAD_HANDLE.
///
/// # Safety
/// `n` NULL or valid for one int.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Stats_count(
    stats: SLOG2_Stats,
    what: c_int,
    n: *mut c_int,
) -> c_int {
    with_stats(stats, |o| {
        // SAFETY: the caller's promise.
        let n = unsafe { out::<A, _>(n, "n") }?;
        let s = lock(&o.stats);
        let k = match what {
            SLOG2_STATS_PROFILE => s.by_category.len(),
            SLOG2_STATS_PROFILE_BY_LINE => s.by_line.len(),
            SLOG2_STATS_COMM => s.comm.len(),
            SLOG2_STATS_IDLE => s.lines.len(),
            SLOG2_STATS_IMBALANCE => s.imbalance(ImbalanceMetric::Exclusive, 0).len(),
            _ => {
                return Err(fail(
                    SLOG2_ERR_BAD_ARG,
                    format!("unknown result kind {what}"),
                ))
            }
        };
        *n = c_len::<A>(k, "rows")?;
        Ok(SLOG2_OK)
    })
}

/// Columns of a profile (see `slog2::analysis::profile`): times in seconds.
#[repr(C)]
pub struct SLOG2_Profile_columns {
    /// Line ID (by-line rows; not written for per-category rows).
    pub line: *mut c_int,
    pub category: *mut c_int,
    /// Primitives of the category (members of composites included), and
    /// the composites of a composite category.
    pub count: *mut i64,
    pub inclusive: *mut f64,
    /// Inclusive minus the states nested directly inside, on the same line.
    pub exclusive: *mut f64,
    /// Of the primitives' durations; NaN when there is none.
    pub min: *mut f64,
    pub mean: *mut f64,
    pub max: *mut f64,
    /// Primitives among `count` (the mean's denominator; what partial
    /// results of partitions add to recompute the mean).
    pub timed: *mut i64,
}

/// The profile rows, per category (`by_line` 0; by category index) or per
/// line × category (by line, then category). Four-argument convention.
/// Returns SLOG2_OK; SLOG2_ERR_ARRAY_TOO_SMALL, SLOG2_ERR_NULL_ARG,
/// SLOG2_ERR_BAD_ARG, SLOG2_ERR_BAD_HANDLE.
///
/// # Safety
/// `n_out`, `pos` NULL or valid for one int; `columns` NULL or a valid
/// struct whose non-NULL columns hold `max` elements.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Stats_profile(
    stats: SLOG2_Stats,
    by_line: c_int,
    n_out: *mut c_int,
    columns: *const SLOG2_Profile_columns,
    pos: *mut c_int,
    max: c_int,
) -> c_int {
    with_stats(stats, |o| {
        let s = lock(&o.stats);
        let rows: &[ProfileRow] = if by_line != 0 {
            &s.by_line
        } else {
            &s.by_category
        };
        // SAFETY: the caller's promises; room is checked before writing.
        unsafe {
            let c = input::<A, _>(columns, "columns")?;
            rows_out(rows.len(), n_out, pos, max, "profile rows", |p| {
                let r = rows.iter();
                if by_line != 0 {
                    put(c.line, p, r.clone().map(|x| x.line.unwrap_or(-1)));
                }
                put(c.category, p, r.clone().map(|x| x.category));
                put(c.count, p, r.clone().map(|x| x.cell.count as i64));
                put(c.inclusive, p, r.clone().map(|x| x.cell.inclusive));
                put(c.exclusive, p, r.clone().map(|x| x.cell.exclusive));
                put(c.min, p, r.clone().map(|x| x.cell.min_or_nan()));
                put(c.mean, p, r.clone().map(|x| x.cell.mean()));
                put(c.max, p, r.clone().map(|x| x.cell.max_or_nan()));
                put(c.timed, p, r.map(|x| x.cell.timed as i64));
            })
        }
    })
}

/// Columns of the communication matrix (see `slog2::analysis::comm`).
#[repr(C)]
pub struct SLOG2_Comm_columns {
    pub from_line: *mut c_int,
    pub to_line: *mut c_int,
    pub category: *mut c_int,
    /// Arrows.
    pub count: *mut i64,
    /// Arrows whose payload gave a size.
    pub sized: *mut i64,
    /// Bytes of the sized arrows; -1 when none was sized (no size field).
    pub bytes: *mut i64,
}

/// The communication matrix, by (from line, to line, category).
/// Four-argument convention. Returns as SLOG2_Stats_profile.
///
/// # Safety
/// As SLOG2_Stats_profile.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Stats_comm(
    stats: SLOG2_Stats,
    n_out: *mut c_int,
    columns: *const SLOG2_Comm_columns,
    pos: *mut c_int,
    max: c_int,
) -> c_int {
    with_stats(stats, |o| {
        let s = lock(&o.stats);
        // SAFETY: as SLOG2_Stats_profile.
        unsafe {
            let c = input::<A, _>(columns, "columns")?;
            rows_out(s.comm.len(), n_out, pos, max, "matrix rows", |p| {
                let r = s.comm.iter();
                put(c.from_line, p, r.clone().map(|x| x.from_line));
                put(c.to_line, p, r.clone().map(|x| x.to_line));
                put(c.category, p, r.clone().map(|x| x.category));
                put(c.count, p, r.clone().map(|x| x.count as i64));
                put(c.sized, p, r.clone().map(|x| x.sized as i64));
                put(c.bytes, p, r.map(|x| x.bytes.unwrap_or(-1)));
            })
        }
    })
}

/// Columns of idle time (see `slog2::analysis::idle`), seconds.
#[repr(C)]
pub struct SLOG2_Idle_columns {
    pub line: *mut c_int,
    /// `wait` when SLOG2_Stats_open had wait categories, else `no_state`.
    pub idle: *mut f64,
    /// `idle` / window length.
    pub fraction: *mut f64,
    /// Window time in no state.
    pub no_state: *mut f64,
    /// Time in the wait categories (not nested in another wait).
    pub wait: *mut f64,
}

/// Idle time of every line (the file's y-map lines and any other line a
/// drawable used), by line. Four-argument convention. Returns as
/// SLOG2_Stats_profile.
///
/// # Safety
/// As SLOG2_Stats_profile.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Stats_idle(
    stats: SLOG2_Stats,
    n_out: *mut c_int,
    columns: *const SLOG2_Idle_columns,
    pos: *mut c_int,
    max: c_int,
) -> c_int {
    with_stats(stats, |o| {
        let rows = lock(&o.stats).idle();
        // SAFETY: as SLOG2_Stats_profile.
        unsafe {
            let c = input::<A, _>(columns, "columns")?;
            rows_out(rows.len(), n_out, pos, max, "idle rows", |p| {
                let r = rows.iter();
                put(c.line, p, r.clone().map(|x| x.line));
                put(c.idle, p, r.clone().map(|x| x.idle));
                put(c.fraction, p, r.clone().map(|x| x.fraction));
                put(c.no_state, p, r.clone().map(|x| x.no_state));
                put(c.wait, p, r.map(|x| x.wait));
            })
        }
    })
}

/// Columns of load imbalance (see `slog2::analysis::imbalance`).
#[repr(C)]
pub struct SLOG2_Imbalance_columns {
    pub category: *mut c_int,
    /// Lines the mean is taken over.
    pub lines: *mut c_int,
    pub mean: *mut f64,
    pub max: *mut f64,
    /// max / mean (NaN when the mean is 0).
    pub ratio: *mut f64,
    /// `top` entries per row (row i at `[i * top, (i + 1) * top)`): the
    /// worst lines and their times, largest first; padded with line -1
    /// and NaN. NULL to skip; else `max * top` elements.
    pub worst_line: *mut c_int,
    pub worst_value: *mut f64,
}

/// Load imbalance of each state category with time: exclusive time
/// (`inclusive` 0) or inclusive time per line, with the `top` worst lines.
/// Four-argument convention on the rows. Returns as SLOG2_Stats_profile
/// (SLOG2_ERR_BAD_ARG also for `top` < 0).
///
/// # Safety
/// As SLOG2_Stats_profile; the worst columns hold `max * top` elements.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Stats_imbalance(
    stats: SLOG2_Stats,
    inclusive: c_int,
    top: c_int,
    n_out: *mut c_int,
    columns: *const SLOG2_Imbalance_columns,
    pos: *mut c_int,
    max: c_int,
) -> c_int {
    with_stats(stats, |o| {
        let top = usize::try_from(top).map_err(|_| fail(SLOG2_ERR_BAD_ARG, "top must be >= 0"))?;
        let metric = if inclusive != 0 {
            ImbalanceMetric::Inclusive
        } else {
            ImbalanceMetric::Exclusive
        };
        let rows = lock(&o.stats).imbalance(metric, top);
        // SAFETY: as SLOG2_Stats_profile.
        unsafe {
            let c = input::<A, _>(columns, "columns")?;
            rows_out(rows.len(), n_out, pos, max, "imbalance rows", |p| {
                let r = rows.iter();
                put(c.category, p, r.clone().map(|x| x.category));
                put(c.lines, p, r.clone().map(|x| x.lines as c_int));
                put(c.mean, p, r.clone().map(|x| x.mean));
                put(c.max, p, r.clone().map(|x| x.max));
                put(c.ratio, p, r.clone().map(|x| x.ratio));
                let pad = |i: usize, x: &::slog2::analysis::imbalance::ImbalanceRow| {
                    x.worst.get(i).copied().unwrap_or((-1, f64::NAN))
                };
                let flat = || rows.iter().flat_map(|x| (0..top).map(move |i| pad(i, x)));
                let n = rows.len() * top;
                put(
                    c.worst_line,
                    p * top,
                    flat().map(|w| w.0).take(n).collect::<Vec<_>>().into_iter(),
                );
                put(
                    c.worst_value,
                    p * top,
                    flat().map(|w| w.1).take(n).collect::<Vec<_>>().into_iter(),
                );
            })
        }
    })
}

/// SLOG2_Histogram_spec.measure: durations of a category's drawables.
pub const SLOG2_MEASURE_DURATION: c_int = 0;
/// SLOG2_Histogram_spec.measure: bytes of messages (arrows with a size field).
pub const SLOG2_MEASURE_MESSAGE_SIZE: c_int = 1;

/// What a histogram measures and its bins (see `slog2::analysis::histogram`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SLOG2_Histogram_spec {
    /// SLOG2_MEASURE_DURATION or SLOG2_MEASURE_MESSAGE_SIZE.
    pub measure: c_int,
    /// The category (durations); for message sizes an arrow category or -1
    /// for all of them.
    pub category: c_int,
    /// Number of bins (>= 1).
    pub bins: c_int,
    /// Non-zero: logarithmic bins (equal ratios; needs a positive low cut-off).
    pub log: c_int,
    /// Cut-offs: values below `lo` or above `hi` are outliers; NaN: the
    /// smallest (log: smallest positive) / largest value in the scope.
    pub lo: f64,
    pub hi: f64,
}

fn measure_of(spec: &SLOG2_Histogram_spec) -> Res<Measure> {
    match spec.measure {
        SLOG2_MEASURE_DURATION => Ok(Measure::Duration(spec.category)),
        SLOG2_MEASURE_MESSAGE_SIZE => Ok(Measure::MessageSize(
            (spec.category != -1).then_some(spec.category),
        )),
        m => Err(fail(SLOG2_ERR_BAD_ARG, format!("unknown measure {m}"))),
    }
}

/// The histogram of `spec` over `scope` (NULL: the whole file). Writes
/// `*n_bins` (= spec->bins, or 0 when the scope has no value to bin and a
/// cut-off was left NaN), the `n_bins + 1` edges, per bin the count and the
/// sum of the values, and `outliers[0..3]` = values below `lo`, above `hi`,
/// and arrows without a size (message sizes). Arrays hold `spec->bins`
/// (+1 for `edges`) elements; any may be NULL. Returns SLOG2_OK;
/// SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_ARG (bins < 1, cut-offs not ordered,
/// log with lo <= 0, unknown measure, bad scope), SLOG2_ERR_FORMAT,
/// SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// `scope` NULL or valid; `spec` valid; `n_bins` NULL or valid for one
/// int; the arrays NULL or valid for their sizes.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Stats_histogram(
    fp: SLOG2_File,
    scope: *const SLOG2_Stats_scope,
    spec: *const SLOG2_Histogram_spec,
    n_bins: *mut c_int,
    edges: *mut f64,
    counts: *mut i64,
    sums: *mut f64,
    outliers: *mut i64,
) -> c_int {
    with_file(fp, |file| {
        // SAFETY: the caller's promise.
        let spec = *unsafe { input::<A, _>(spec, "spec") }?;
        let sc = scope_of(file, scope)?;
        let m = measure_of(&spec)?;
        let n =
            usize::try_from(spec.bins).map_err(|_| fail(SLOG2_ERR_BAD_ARG, "bins must be >= 1"))?;
        let spacing = if spec.log != 0 {
            Spacing::Log
        } else {
            Spacing::Linear
        };
        let opt = |t: f64| (!t.is_nan()).then_some(t);
        let bins = core(auto_bins(
            file,
            &sc,
            m,
            n,
            spacing,
            opt(spec.lo),
            opt(spec.hi),
        ))?;
        let Some(bins) = bins else {
            // SAFETY: the caller's promise.
            unsafe { set_opt(n_bins, 0) };
            return Ok(SLOG2_OK);
        };
        let k = bins.len();
        let h = core(histogram(file, &sc, m, bins))?;
        // SAFETY: the arrays hold spec->bins (+1) >= k (+1) elements.
        unsafe {
            set_opt(n_bins, c_len::<A>(k, "bins")?);
            put(edges, 0, h.bins.edges.iter().copied());
            put(counts, 0, h.counts.iter().map(|&c| c as i64));
            put(sums, 0, h.sums.iter().copied());
            put(
                outliers,
                0,
                [h.below as i64, h.above as i64, h.no_size as i64].into_iter(),
            );
        }
        Ok(SLOG2_OK)
    })
}

/// Columns of histogram instances.
#[repr(C)]
pub struct SLOG2_Instance_columns {
    pub start: *mut f64,
    pub end: *mut f64,
    pub line0: *mut c_int,
    pub line1: *mut c_int,
    pub category: *mut c_int,
    /// The measured value (duration or bytes).
    pub value: *mut f64,
    /// Offset of the row's popup text (NUL-terminated) in `text`.
    pub text_offset: *mut c_int,
}

/// The instances of one bin of a histogram (`edges`, `n_edges` as
/// SLOG2_Stats_histogram returned them; `bin` 0..n_edges-2, -1 for the
/// values below the first edge, n_edges-1 for those above the last): the
/// first `max - *pos` by start time as rows, their popup texts packed
/// NUL-terminated in `text` (`text_pos`/`text_max`: a second four-argument
/// array), and `*total` = the instances in the bin. Unlike the other
/// arrays, too small a row array is not an error: the first rows that fit
/// are written. Returns SLOG2_OK; SLOG2_ERR_ARRAY_TOO_SMALL (text),
/// SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_ARG, SLOG2_ERR_FORMAT,
/// SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// `scope` NULL or valid; `spec` valid; `edges` valid for `n_edges`;
/// `n_out`, `total`, `pos`, `text_pos` NULL or valid for one value;
/// `columns` valid with columns NULL or holding `max` elements; `text`
/// NULL or valid for `text_max` bytes.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Stats_histogram_instances(
    fp: SLOG2_File,
    scope: *const SLOG2_Stats_scope,
    spec: *const SLOG2_Histogram_spec,
    edges: *const f64,
    n_edges: c_int,
    bin: c_int,
    total: *mut i64,
    n_out: *mut c_int,
    columns: *const SLOG2_Instance_columns,
    pos: *mut c_int,
    max: c_int,
    text: *mut c_char,
    text_pos: *mut c_int,
    text_max: c_int,
) -> c_int {
    with_file(fp, |file| {
        // SAFETY: the caller's promises.
        let (spec, edges, c) = unsafe {
            (
                *input::<A, _>(spec, "spec")?,
                super::slice_in::<A, f64>(edges, n_edges, "edges")?,
                input::<A, _>(columns, "columns")?,
            )
        };
        let sc = scope_of(file, scope)?;
        let m = measure_of(&spec)?;
        let bins = core(Bins::from_edges(edges.to_vec()))?;
        let which = match bin {
            -1 => BinOf::Below,
            b if b >= 0 && (b as usize) < bins.len() => BinOf::In(b as usize),
            b if b as usize == bins.len() => BinOf::Above,
            b => return Err(fail(SLOG2_ERR_BAD_ARG, format!("bin {b} out of range"))),
        };
        // SAFETY: the caller's promise on `pos`.
        let p0 = *unsafe { input::<A, c_int>(pos, "pos") }?;
        let limit = usize::try_from(max.saturating_sub(p0)).unwrap_or(0);
        let inst = core(instances(file, &sc, m, &bins, which, limit))?;
        let mut packed = Vec::new();
        let mut offs = Vec::with_capacity(inst.text.len());
        for t in &inst.text {
            offs.push(packed.len());
            packed.extend(t.bytes().map(|b| if b == 0 { b' ' } else { b }));
            packed.push(0);
        }
        // SAFETY: the caller's promises; both arrays checked before writing.
        unsafe {
            let t0 = room::<A>(text_pos, text_max, packed.len(), "text")?;
            let toff = offs
                .iter()
                .map(|&o| c_len::<A>(t0 + o, "text offset"))
                .collect::<Res<Vec<c_int>>>()?;
            rows_out(inst.start.len(), n_out, pos, max, "instances", |p| {
                put(c.start, p, inst.start.iter().copied());
                put(c.end, p, inst.end.iter().copied());
                put(c.line0, p, inst.line0.iter().copied());
                put(c.line1, p, inst.line1.iter().copied());
                put(c.category, p, inst.category.iter().copied());
                put(c.value, p, inst.value.iter().copied());
                put(c.text_offset, p, toff.iter().copied());
            })?;
            if !packed.is_empty() {
                put(text, t0, packed.iter().map(|&b| b as c_char));
                *text_pos += c_len::<A>(packed.len(), "text")?;
            }
            set_opt(total, inst.total as i64);
        }
        Ok(SLOG2_OK)
    })
}

/// The time profile of `scope`'s window (NULL: the whole file) in `slices`
/// equal slices: time in each state category per slice, summed over lines
/// (the overview cube summed over its lines; nested states count in full).
/// With a partition in `scope`, only the states starting in it (partials
/// add up). `categories` gets the state categories (column order) and
/// `values` `slices × n` seconds, slice-major (`values[k * n + c]`), where
/// `*n_categories` = n. If `cat_max` < n, SLOG2_ERR_ARRAY_TOO_SMALL with
/// `*n_categories` set and nothing written (a first call with `cat_max` 0
/// sizes the arrays). `whole_states` is ignored (slices clip). Returns
/// SLOG2_OK; SLOG2_ERR_ARRAY_TOO_SMALL, SLOG2_ERR_NULL_ARG,
/// SLOG2_ERR_BAD_ARG (slices < 1, an empty window), SLOG2_ERR_FORMAT,
/// SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// `scope` NULL or valid; `n_categories` valid for one int; `categories`
/// NULL or valid for `cat_max` ints; `values` NULL or valid for
/// `slices * cat_max` doubles.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Stats_time_profile(
    fp: SLOG2_File,
    scope: *const SLOG2_Stats_scope,
    slices: c_int,
    n_categories: *mut c_int,
    categories: *mut c_int,
    values: *mut f64,
    cat_max: c_int,
) -> c_int {
    with_file(fp, |file| {
        // SAFETY: the caller's promise.
        let nc = unsafe { out::<A, _>(n_categories, "n_categories") }?;
        let sc = scope_of(file, scope)?;
        let n =
            usize::try_from(slices).map_err(|_| fail(SLOG2_ERR_BAD_ARG, "slices must be >= 1"))?;
        let tp = core(TimeProfile::compute(
            file,
            Some(sc.t0),
            Some(sc.t1),
            n,
            sc.part,
        ))?;
        let k = tp.categories.len();
        *nc = c_len::<A>(k, "categories")?;
        if (cat_max.max(0) as usize) < k {
            return Err(fail(
                SLOG2_ERR_ARRAY_TOO_SMALL,
                format!("time profile: {k} categories, room for {cat_max}"),
            ));
        }
        // SAFETY: room checked above.
        unsafe {
            put(categories, 0, tp.categories.iter().copied());
            put(values, 0, tp.values.iter().copied());
        }
        Ok(SLOG2_OK)
    })
}

/// Cut the time axis into `n` partitions of about equal work for
/// SLOG2_Stats_scope.part0/part1 (the leaves' bytes by time): `edges`
/// gets `n + 1` values, the first -inf and the last +inf, non-decreasing
/// (a partition may be empty). Every drawable starts in exactly one
/// `[edges[k], edges[k + 1])`. Returns SLOG2_OK; SLOG2_ERR_NULL_ARG,
/// SLOG2_ERR_BAD_ARG (n < 1), SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// `edges` NULL or valid for `n + 1` doubles.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Stats_partitions(
    fp: SLOG2_File,
    n: c_int,
    edges: *mut f64,
) -> c_int {
    with_file(fp, |file| {
        let n = usize::try_from(n)
            .ok()
            .filter(|&n| n >= 1)
            .ok_or_else(|| fail(SLOG2_ERR_BAD_ARG, "partitions: n must be >= 1"))?;
        if edges.is_null() {
            return Err(fail(
                super::slog2::SLOG2_ERR_NULL_ARG,
                "NULL argument: edges",
            ));
        }
        let e = ::slog2::analysis::partition::partition_edges(file, n);
        // SAFETY: `edges` holds n + 1 doubles (caller).
        unsafe { put(edges, 0, e.into_iter()) };
        Ok(SLOG2_OK)
    })
}

/// The rows of the drawables `scope` selects (its partition, if any: each
/// drawable whose box starts in `[part0, part1)` and meets the window),
/// in the columns of SLOG2_Query_window: one row per primitive (members of
/// composites too, parent -1) and per composite (kind
/// SLOG2_KIND_COMPOSITE, num_real = members); no info bytes (info_offset
/// -1, info_len 0). Tree-node order, not time order. Four-argument
/// convention (a call with `max` 0 sizes the arrays, at the price of a
/// second walk). Returns SLOG2_OK; SLOG2_ERR_ARRAY_TOO_SMALL,
/// SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_ARG, SLOG2_ERR_FORMAT,
/// SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// `scope` NULL or valid; `n_out`, `pos` NULL or valid for one int;
/// `columns` valid, its non-NULL columns holding `max` elements.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Stats_rows(
    fp: SLOG2_File,
    scope: *const SLOG2_Stats_scope,
    n_out: *mut c_int,
    columns: *const SLOG2_Query_columns,
    pos: *mut c_int,
    max: c_int,
) -> c_int {
    with_file(fp, |file| {
        let sc = scope_of(file, scope)?;
        let r = core(partition_rows(file, &sc))?;
        // SAFETY: the caller's promises; room is checked before writing.
        unsafe {
            let c = input::<A, _>(columns, "columns")?;
            rows_out(r.len(), n_out, pos, max, "rows", |p| {
                put(c.kind, p, r.kind.iter().map(|&k| c_int::from(k)));
                put(c.category, p, r.category.iter().copied());
                put(c.start, p, r.start.iter().copied());
                put(c.end, p, r.end.iter().copied());
                put(c.line0, p, r.line0.iter().copied());
                put(c.line1, p, r.line1.iter().copied());
                put(c.num_real, p, r.num_real.iter().copied());
                put(c.info_offset, p, r.kind.iter().map(|_| -1));
                put(c.info_len, p, r.kind.iter().map(|_| 0));
                put(c.time0, p, r.time0.iter().copied());
                put(c.time1, p, r.time1.iter().copied());
                put(c.parent, p, r.parent.iter().copied());
            })
        }
    })
}

/// Columns of a comparison of two profiles by category name.
#[repr(C)]
pub struct SLOG2_Compare_columns {
    /// Offset of the row's category name (NUL-terminated) in `names`.
    pub name_offset: *mut c_int,
    pub count_a: *mut i64,
    pub count_b: *mut i64,
    pub inclusive_a: *mut f64,
    pub inclusive_b: *mut f64,
    /// b - a.
    pub inclusive_diff: *mut f64,
    /// (b - a) / a; NaN when a is 0.
    pub inclusive_rel: *mut f64,
    pub exclusive_a: *mut f64,
    pub exclusive_b: *mut f64,
    pub exclusive_diff: *mut f64,
    pub exclusive_rel: *mut f64,
}

/// Compare the per-category profiles of two statistics handles (two runs,
/// or two windows) by category **name** (categories of one file sharing a
/// name are summed; a name in one run only compares with zeros), by name.
/// Rows: four-argument convention; names: a second one (`names_pos`,
/// `names_max`, bytes). Returns SLOG2_OK; SLOG2_ERR_ARRAY_TOO_SMALL,
/// SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_HANDLE.
///
/// # Safety
/// `n_out`, `pos`, `names_pos` NULL or valid for one int; `columns` valid
/// with columns NULL or holding `max` elements; `names` NULL or valid for
/// `names_max` bytes.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Stats_compare(
    a: SLOG2_Stats,
    b: SLOG2_Stats,
    n_out: *mut c_int,
    columns: *const SLOG2_Compare_columns,
    pos: *mut c_int,
    max: c_int,
    names: *mut c_char,
    names_pos: *mut c_int,
    names_max: c_int,
) -> c_int {
    entry::<A>(|| {
        let (oa, ob) = (stats_obj(a)?, stats_obj(b)?);
        let rows = {
            let (sa, sb) = (
                lock(&oa.stats).by_category.clone(),
                lock(&ob.stats).by_category.clone(),
            );
            compare_profiles(&oa.file, &sa, &ob.file, &sb)
        };
        // SAFETY: the caller's promises; both arrays checked before writing.
        unsafe {
            let c = input::<A, _>(columns, "columns")?;
            let (packed, offs) = pack(rows.iter().map(|r| r.name.as_str()));
            let t0 = room::<A>(names_pos, names_max, packed.len(), "names")?;
            let offs = offs
                .iter()
                .map(|&o| c_len::<A>(t0 + o, "name offset"))
                .collect::<Res<Vec<c_int>>>()?;
            rows_out(rows.len(), n_out, pos, max, "comparison rows", |p| {
                let r = rows.iter();
                put(c.name_offset, p, offs.iter().copied());
                put(c.count_a, p, r.clone().map(|x| x.a.count as i64));
                put(c.count_b, p, r.clone().map(|x| x.b.count as i64));
                put(c.inclusive_a, p, r.clone().map(|x| x.a.inclusive));
                put(c.inclusive_b, p, r.clone().map(|x| x.b.inclusive));
                put(c.inclusive_diff, p, r.clone().map(|x| x.inclusive_diff()));
                put(c.inclusive_rel, p, r.clone().map(|x| x.inclusive_rel()));
                put(c.exclusive_a, p, r.clone().map(|x| x.a.exclusive));
                put(c.exclusive_b, p, r.clone().map(|x| x.b.exclusive));
                put(c.exclusive_diff, p, r.clone().map(|x| x.exclusive_diff()));
                put(c.exclusive_rel, p, r.map(|x| x.exclusive_rel()));
            })?;
            if !packed.is_empty() {
                put(names, t0, packed.iter().map(|&b| b as c_char));
                *names_pos += c_len::<A>(packed.len(), "names")?;
            }
        }
        Ok(SLOG2_OK)
    })
}

/// Names packed NUL-terminated (inner NULs become spaces), with offsets.
fn pack<'a>(names: impl Iterator<Item = &'a str>) -> (Vec<u8>, Vec<usize>) {
    let (mut packed, mut offs) = (Vec::new(), Vec::new());
    for n in names {
        offs.push(packed.len());
        packed.extend(n.bytes().map(|b| if b == 0 { b' ' } else { b }));
        packed.push(0);
    }
    (packed, offs)
}

/// Compare the time profiles of two files (each over its whole time range,
/// `slices` slices) by category name: slice `k` of run a against slice `k`
/// of run b. `*n_names` = the names (union, sorted), packed NUL-terminated
/// into `names` (`names_max` bytes; `*names_len` = bytes used); `a` and `b`
/// get `slices × n` seconds, slice-major. If `names_max` or `values_max`
/// (elements of `a` and of `b`) is too small: SLOG2_ERR_ARRAY_TOO_SMALL,
/// `*n_names` and `*names_len` set, nothing else written. Returns SLOG2_OK;
/// SLOG2_ERR_ARRAY_TOO_SMALL, SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_ARG,
/// SLOG2_ERR_FORMAT, SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// `n_names`, `names_len` valid for one int; `names` NULL or valid for
/// `names_max` bytes; `a`, `b` NULL or valid for `values_max` doubles.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Stats_compare_time(
    fa: SLOG2_File,
    fb: SLOG2_File,
    slices: c_int,
    n_names: *mut c_int,
    names: *mut c_char,
    names_max: c_int,
    names_len: *mut c_int,
    a: *mut f64,
    b: *mut f64,
    values_max: c_int,
) -> c_int {
    let mut file_a = None;
    let rc = with_file(fa, |f| {
        file_a = Some(f.clone());
        Ok(SLOG2_OK)
    });
    if rc != SLOG2_OK {
        return rc;
    }
    with_file(fb, |file_b| {
        let file_a = file_a
            .take()
            .ok_or_else(|| fail(SLOG2_ERR_BAD_HANDLE, "file a"))?;
        // SAFETY: the caller's promises.
        let (nn, nl) = unsafe {
            (
                out::<A, _>(n_names, "n_names")?,
                out::<A, _>(names_len, "names_len")?,
            )
        };
        let n =
            usize::try_from(slices).map_err(|_| fail(SLOG2_ERR_BAD_ARG, "slices must be >= 1"))?;
        let ta = core(TimeProfile::compute(&file_a, None, None, n, None))?;
        let tb = core(TimeProfile::compute(file_b, None, None, n, None))?;
        let cmp = core(compare_time_profiles(&file_a, &ta, file_b, &tb))?;
        let (packed, _) = pack(cmp.names.iter().map(|s| s.as_str()));
        *nn = c_len::<A>(cmp.names.len(), "names")?;
        *nl = c_len::<A>(packed.len(), "names")?;
        if (names_max.max(0) as usize) < packed.len() || (values_max.max(0) as usize) < cmp.a.len()
        {
            return Err(fail(
                SLOG2_ERR_ARRAY_TOO_SMALL,
                format!(
                    "time comparison: {} name bytes and {} values needed",
                    packed.len(),
                    cmp.a.len()
                ),
            ));
        }
        // SAFETY: room checked above.
        unsafe {
            put(names, 0, packed.iter().map(|&x| x as c_char));
            put(a, 0, cmp.a.iter().copied());
            put(b, 0, cmp.b.iter().copied());
        }
        Ok(SLOG2_OK)
    })
}
