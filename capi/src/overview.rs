//! `SLOG2_Overview_*`: Ocelotl's overview of a time range from C
//! (`slog2::analysis::overview`). This module only translates.
//!
//! `SLOG2_Overview_open` computes an overview into a handle; the other
//! calls copy its parts into caller arrays, each as `(array, max, n_out)`:
//! `*n_out` always receives the elements the full answer has, and a `max`
//! below it returns `SLOG2_ERR_ARRAY_TOO_SMALL` with nothing written (so a
//! first call with `max` 0 sizes the arrays; `SLOG2_Overview_get_info`
//! gives every count at once). Optional column pointers may be NULL.
//! `SLOG2_Overview_set_p` re-aggregates at another p (one dynamic
//! programme, no pass over the drawables): a viewer's p slider.

#![allow(non_camel_case_types, non_snake_case)]

use std::ffi::{c_char, c_int};
use std::sync::Mutex;

use ::slog2::analysis::{
    overview, render_rects, CacheUse, Metric, Overview, OverviewSpec, PChoice,
};

use super::slog2::{core, with_file, Slog2Api, SLOG2_ERR_BAD_ARG, SLOG2_OK};
use super::{
    c_len, call_on, close_handle, entry, fail, input, lock, opt_cstr, out, set_opt, Registry, Res,
};

type A = Slog2Api;

/// Metric of SLOG2_Overview_params: time in each state category per slice.
pub const SLOG2_OVERVIEW_DURATION: c_int = 0;
/// Metric of SLOG2_Overview_params: drawables starting in each slice.
pub const SLOG2_OVERVIEW_COUNT: c_int = 1;

/// Opaque overview state.
pub struct SLOG2_Overview_s {
    _private: [u8; 0],
}

/// Handle of a computed overview (SLOG2_Overview_open).
pub type SLOG2_Overview = *mut SLOG2_Overview_s;

/// What SLOG2_Overview_open computes.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SLOG2_Overview_params {
    /// Range; NaN for the file's start / end.
    pub t0: f64,
    pub t1: f64,
    /// Number of equal slices (>= 1).
    pub slices: c_int,
    /// SLOG2_OVERVIEW_DURATION or SLOG2_OVERVIEW_COUNT.
    pub metric: c_int,
    /// 0: temporal aggregation; 1: spatiotemporal (parts are hierarchy node x interval).
    pub spatiotemporal: c_int,
    /// Spatiotemporal hierarchy: a y-map title of the file or "fanout:K"; NULL for "fanout:8".
    pub hierarchy: *const c_char,
    /// p in [0, 1], or negative for auto (the knee of the p-curve).
    pub p: f64,
    /// > 0: compute the p-curve by bisection down to this threshold (auto p uses 0.001 when 0).
    pub bisect: f64,
    /// 0 (the default, as in every binding): answer from the cube cache
    /// ($SLOG2_CACHE_DIR, else $XDG_CACHE_HOME/slog2, else ~/.cache/slog2), built
    /// on first use; slices finer than the cached ones read the drawables. 1: read
    /// the drawables (always exact).
    pub no_cache: c_int,
}

/// Counts and scalars of an overview.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct SLOG2_Overview_info_t {
    pub t0: f64,
    pub t1: f64,
    pub slices: c_int,
    pub metric: c_int,
    pub n_lines: c_int,
    pub n_categories: c_int,
    pub n_parts: c_int,
    /// Hierarchy nodes (0 for a temporal overview).
    pub n_nodes: c_int,
    /// Points of the p-curve (0 unless computed).
    pub n_curve: c_int,
    pub p: f64,
    /// Sums of the parts' gains and losses.
    pub gain: f64,
    pub loss: f64,
    /// 1 when the cube is exact (read from the drawables, or rebinned from the cache on aligned edges).
    pub exact: c_int,
    /// 1 when the cube came from the cache file.
    pub from_cache: c_int,
    /// Primitives of the range on a line or in a category the cube does not hold.
    pub unmapped: i64,
}

static OVERVIEWS: Registry<Mutex<Overview>> = Registry::new();

fn with_ov(ov: SLOG2_Overview, f: impl FnOnce(&mut Overview) -> Res<c_int>) -> c_int {
    entry::<A>(|| {
        call_on::<A, _, _>(&OVERVIEWS, ov as usize, "SLOG2_Overview", |h| {
            f(&mut lock(h))
        })
    })
}

/// Check that `max` holds `n` elements (writing `*n_out = n` first).
///
/// # Safety
/// `n_out` is NULL or valid for one int.
unsafe fn sized(n: usize, max: c_int, n_out: *mut c_int, what: &str) -> Res<()> {
    let n = c_len::<A>(n, what)?;
    // SAFETY: forwarded.
    unsafe { set_opt(n_out, n) };
    if max < n {
        return Err(fail(
            super::slog2::SLOG2_ERR_ARRAY_TOO_SMALL,
            format!("{what}: array too small ({max} < {n})"),
        ));
    }
    Ok(())
}

/// Copy `vals` to `dst` when `dst` is not NULL.
///
/// # Safety
/// `dst` is NULL or valid for `vals.len()` writes.
unsafe fn put<T>(dst: *mut T, vals: impl ExactSizeIterator<Item = T>) {
    if dst.is_null() {
        return;
    }
    // SAFETY: room checked by `sized` (caller).
    let d = unsafe { std::slice::from_raw_parts_mut(dst, vals.len()) };
    for (a, b) in d.iter_mut().zip(vals) {
        *a = b;
    }
}

/// Compute the overview of `params` on a read-mode file into `*ov` (NULL on
/// failure). Returns SLOG2_OK; SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_ARG (range,
/// slices, metric, p, unknown hierarchy, an aggregation too large),
/// SLOG2_ERR_FORMAT (a damaged node), SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// `params` is NULL or a valid struct whose `hierarchy` is NULL or a
/// NUL-terminated string; `ov` is NULL or valid for writing one handle.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Overview_open(
    fp: super::slog2::SLOG2_File,
    params: *const SLOG2_Overview_params,
    ov: *mut SLOG2_Overview,
) -> c_int {
    // SAFETY: the caller's promise on `ov`.
    if let Some(o) = unsafe { ov.as_mut() } {
        *o = std::ptr::null_mut();
    }
    with_file(fp, |file| {
        // SAFETY: the caller's promises (see # Safety).
        let (prm, o) = unsafe { (input::<A, _>(params, "params")?, out::<A, _>(ov, "ov")?) };
        // SAFETY: as above.
        let hier = unsafe { opt_cstr::<A>(prm.hierarchy, "hierarchy") }?;
        let metric = match prm.metric {
            SLOG2_OVERVIEW_DURATION => Metric::Duration,
            SLOG2_OVERVIEW_COUNT => Metric::Count,
            m => return Err(fail(SLOG2_ERR_BAD_ARG, format!("unknown metric {m}"))),
        };
        let slices = usize::try_from(prm.slices)
            .map_err(|_| fail(SLOG2_ERR_BAD_ARG, format!("slices {} < 0", prm.slices)))?;
        let spec = OverviewSpec {
            t0: (!prm.t0.is_nan()).then_some(prm.t0),
            t1: (!prm.t1.is_nan()).then_some(prm.t1),
            slices,
            metric,
            spatiotemporal: (prm.spatiotemporal != 0).then(|| hier.map(|h| h.into_owned())),
            p: if prm.p < 0.0 {
                PChoice::Auto
            } else {
                PChoice::Value(prm.p)
            },
            bisect: (prm.bisect > 0.0).then_some(prm.bisect),
            cache: if prm.no_cache != 0 {
                CacheUse::Off
            } else {
                CacheUse::default()
            },
        };
        let r = core(overview(file, &spec))?;
        *o = OVERVIEWS.insert(Mutex::new(r)) as usize as SLOG2_Overview;
        Ok(SLOG2_OK)
    })
}

/// Free an overview and set `*ov` to NULL. Returns SLOG2_OK;
/// SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_HANDLE (unknown or already closed).
///
/// # Safety
/// `ov` is NULL or valid for reading and writing one handle.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Overview_close(ov: *mut SLOG2_Overview) -> c_int {
    entry::<A>(|| {
        // SAFETY: the caller's promise on `ov`.
        unsafe { close_handle::<A, _, _>(&OVERVIEWS, ov, "ov", "SLOG2_Overview") }?;
        Ok(SLOG2_OK)
    })
}

/// Counts and scalars of an overview. Returns SLOG2_OK; SLOG2_ERR_NULL_ARG,
/// SLOG2_ERR_BAD_HANDLE.
///
/// # Safety
/// `info` is NULL or valid for writing one struct.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Overview_get_info(
    ov: SLOG2_Overview,
    info: *mut SLOG2_Overview_info_t,
) -> c_int {
    with_ov(ov, |o| {
        // SAFETY: the caller's promise on `info`.
        let i = unsafe { out::<A, _>(info, "info") }?;
        let c = &o.cube;
        *i = SLOG2_Overview_info_t {
            t0: c.grid.t0,
            t1: c.grid.t1,
            slices: c_len::<A>(c.grid.n, "slices")?,
            metric: match c.metric {
                Metric::Duration => SLOG2_OVERVIEW_DURATION,
                Metric::Count => SLOG2_OVERVIEW_COUNT,
            },
            n_lines: c_len::<A>(c.lines.len(), "lines")?,
            n_categories: c_len::<A>(c.categories.len(), "categories")?,
            n_parts: c_len::<A>(o.partition.parts.len(), "parts")?,
            n_nodes: c_len::<A>(o.hierarchy.as_ref().map_or(0, |h| h.len()), "nodes")?,
            n_curve: c_len::<A>(o.curve.len(), "curve")?,
            p: o.p,
            gain: o.partition.gain,
            loss: o.partition.loss,
            exact: o.exact as c_int,
            from_cache: o.from_cache as c_int,
            unmapped: i64::try_from(c.unmapped).unwrap_or(i64::MAX),
        };
        Ok(SLOG2_OK)
    })
}

/// Re-aggregate at `p` in [0, 1] (the cube and the curve stay). Returns
/// SLOG2_OK; SLOG2_ERR_BAD_ARG (p), SLOG2_ERR_BAD_HANDLE.
#[no_mangle]
pub extern "C" fn SLOG2_Overview_set_p(ov: SLOG2_Overview, p: f64) -> c_int {
    with_ov(ov, |o| {
        core(o.set_p(p))?;
        Ok(SLOG2_OK)
    })
}

/// Line IDs (`lines`) and category indices (`categories`) in cube order;
/// either may be NULL. `max` is the room of each. Returns SLOG2_OK;
/// SLOG2_ERR_ARRAY_TOO_SMALL, SLOG2_ERR_BAD_HANDLE.
///
/// # Safety
/// `lines` / `categories` NULL or valid for `max` ints; `n_lines` /
/// `n_categories` NULL or valid for one int.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Overview_get_axes(
    ov: SLOG2_Overview,
    lines: *mut c_int,
    n_lines: *mut c_int,
    categories: *mut c_int,
    n_categories: *mut c_int,
    max: c_int,
) -> c_int {
    with_ov(ov, |o| {
        let c = &o.cube;
        // SAFETY: the caller's promises; sizes checked before writing.
        unsafe {
            sized(
                c.lines.len(),
                if lines.is_null() { c_int::MAX } else { max },
                n_lines,
                "lines",
            )?;
            sized(
                c.categories.len(),
                if categories.is_null() {
                    c_int::MAX
                } else {
                    max
                },
                n_categories,
                "categories",
            )?;
            put(lines, c.lines.iter().copied());
            put(categories, c.categories.iter().copied());
        }
        Ok(SLOG2_OK)
    })
}

/// The cube, `lines × slices × categories` values in the order
/// `[line][slice][category]`. Returns SLOG2_OK; SLOG2_ERR_ARRAY_TOO_SMALL,
/// SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_HANDLE.
///
/// # Safety
/// `cells` NULL or valid for `max` doubles; `n_out` NULL or valid for one int.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Overview_get_cube(
    ov: SLOG2_Overview,
    cells: *mut f64,
    max: c_int,
    n_out: *mut c_int,
) -> c_int {
    with_ov(ov, |o| {
        let v = o.cube.line_major();
        // SAFETY: the caller's promises; size checked first.
        unsafe {
            sized(v.len(), max, n_out, "cube")?;
            if cells.is_null() && !v.is_empty() {
                return Err(fail(
                    super::slog2::SLOG2_ERR_NULL_ARG,
                    "NULL argument: cells",
                ));
            }
            put(cells, v.into_iter());
        }
        Ok(SLOG2_OK)
    })
}

/// The parts, one entry per part in each non-NULL column: hierarchy node
/// (-1 for a temporal part), first and last slice (0-based, inclusive),
/// gain, loss, mode (the category index with the largest value, -1 if
/// none) and `values` (`parts × categories`, part-major: per category, the
/// mean over the part of the lines' sum per slice (temporal) or of a cell
/// (spatiotemporal)). `max` counts parts. Returns SLOG2_OK;
/// SLOG2_ERR_ARRAY_TOO_SMALL, SLOG2_ERR_BAD_HANDLE.
///
/// # Safety
/// Each column NULL or valid for `max` elements (`values`: `max ×
/// categories` doubles); `n_out` NULL or valid for one int.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Overview_get_parts(
    ov: SLOG2_Overview,
    node: *mut c_int,
    first: *mut c_int,
    last: *mut c_int,
    gain: *mut f64,
    loss: *mut f64,
    mode: *mut c_int,
    values: *mut f64,
    max: c_int,
    n_out: *mut c_int,
) -> c_int {
    with_ov(ov, |o| {
        let parts = &o.partition.parts;
        let cats = &o.cube.categories;
        // SAFETY: the caller's promises; size checked first.
        unsafe {
            sized(parts.len(), max, n_out, "parts")?;
            put(
                node,
                parts.iter().map(|p| p.node.map_or(-1, |n| n as c_int)),
            );
            put(first, parts.iter().map(|p| p.first as c_int));
            put(last, parts.iter().map(|p| p.last as c_int));
            put(gain, parts.iter().map(|p| p.gain));
            put(loss, parts.iter().map(|p| p.loss));
            put(mode, o.modes.iter().map(|m| m.map_or(-1, |m| cats[m])));
            let flat: Vec<f64> = o.values.iter().flatten().copied().collect();
            put(values, flat.into_iter());
        }
        Ok(SLOG2_OK)
    })
}

/// The p-curve: per point its p, the partition's gain and loss and its
/// number of parts (increasing p). `max` counts points. Returns SLOG2_OK;
/// SLOG2_ERR_ARRAY_TOO_SMALL, SLOG2_ERR_BAD_HANDLE.
///
/// # Safety
/// Each column NULL or valid for `max` elements; `n_out` NULL or valid for one int.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Overview_get_curve(
    ov: SLOG2_Overview,
    p: *mut f64,
    gain: *mut f64,
    loss: *mut f64,
    parts: *mut c_int,
    max: c_int,
    n_out: *mut c_int,
) -> c_int {
    with_ov(ov, |o| {
        let c = &o.curve;
        // SAFETY: the caller's promises; size checked first.
        unsafe {
            sized(c.len(), max, n_out, "curve")?;
            put(p, c.iter().map(|x| x.p));
            put(gain, c.iter().map(|x| x.gain));
            put(loss, c.iter().map(|x| x.loss));
            put(parts, c.iter().map(|x| x.parts as c_int));
        }
        Ok(SLOG2_OK)
    })
}

/// The hierarchy (spatiotemporal): per node (0 is the root, pre-order) its
/// parent (-1 for the root) and how many lines it holds; `lines` gets every
/// node's line IDs one node after the other (`max_lines` room, `*n_lines`
/// the total). `max` counts nodes. Returns SLOG2_OK;
/// SLOG2_ERR_ARRAY_TOO_SMALL, SLOG2_ERR_BAD_HANDLE.
///
/// # Safety
/// Columns NULL or valid for `max` ints, `lines` for `max_lines`; `n_out`,
/// `n_lines` NULL or valid for one int.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Overview_get_hierarchy(
    ov: SLOG2_Overview,
    parent: *mut c_int,
    count: *mut c_int,
    max: c_int,
    n_out: *mut c_int,
    lines: *mut c_int,
    max_lines: c_int,
    n_lines: *mut c_int,
) -> c_int {
    with_ov(ov, |o| {
        let nodes: &[::slog2::analysis::HierarchyNode] =
            o.hierarchy.as_ref().map_or(&[], |h| &h.nodes);
        let total: usize = nodes.iter().map(|n| n.lines.len()).sum();
        // SAFETY: the caller's promises; sizes checked first.
        unsafe {
            sized(nodes.len(), max, n_out, "nodes")?;
            sized(
                total,
                if lines.is_null() {
                    c_int::MAX
                } else {
                    max_lines
                },
                n_lines,
                "node lines",
            )?;
            put(
                parent,
                nodes.iter().map(|n| n.parent.map_or(-1, |p| p as c_int)),
            );
            put(count, nodes.iter().map(|n| n.lines.len() as c_int));
            let ids: Vec<c_int> = nodes
                .iter()
                .flat_map(|n| n.lines.iter().map(|&l| o.cube.lines[l]))
                .collect();
            put(lines, ids.into_iter());
        }
        Ok(SLOG2_OK)
    })
}

/// The rectangles of the spatiotemporal picture when a node needs
/// `min_lines` lines to be drawn alone (e.g. lines per pixel): node, first
/// and last slice, mode (category index, -1 none) and kind (0 one part, 1
/// thin parts sharing a time partition: striped, 2 otherwise: crossed).
/// Temporal overviews have none. Returns SLOG2_OK;
/// SLOG2_ERR_ARRAY_TOO_SMALL, SLOG2_ERR_BAD_HANDLE.
///
/// # Safety
/// Columns NULL or valid for `max` ints; `n_out` NULL or valid for one int.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Overview_get_rects(
    ov: SLOG2_Overview,
    min_lines: f64,
    node: *mut c_int,
    first: *mut c_int,
    last: *mut c_int,
    mode: *mut c_int,
    kind: *mut c_int,
    max: c_int,
    n_out: *mut c_int,
) -> c_int {
    with_ov(ov, |o| {
        let r = render_rects(o, min_lines);
        let cats = &o.cube.categories;
        // SAFETY: the caller's promises; size checked first.
        unsafe {
            sized(r.len(), max, n_out, "rects")?;
            put(node, r.iter().map(|x| x.node as c_int));
            put(first, r.iter().map(|x| x.first as c_int));
            put(last, r.iter().map(|x| x.last as c_int));
            put(mode, r.iter().map(|x| x.mode.map_or(-1, |m| cats[m])));
            put(kind, r.iter().map(|x| x.kind as c_int));
        }
        Ok(SLOG2_OK)
    })
}
