//! The output API: the draft's write protocol (Appendix C).
//!
//! A write handle holds the core's [`Slog2Writer`] plus the state of the
//! draft's call sequence: tree options only before the first category,
//! map or drawable (`SLOG2_Write_header_ex` replaces the writer then), a
//! category list that index -1 closes, tree-node hints that must nest, and
//! an optional expected directory compared at close. Everything about the
//! file itself — order, boxes, payloads against their category's format —
//! is the core writer's rule; this file only turns C arrays into the
//! model's drawables and the writer's errors into codes.

use std::ffi::{c_char, c_int};
use std::path::PathBuf;

use super::codes::*;
use super::core;
use super::{writer, SLOG2_Category_head_t, SLOG2_File, SLOG2_Treedir_node, A};
use crate::{bytes_in, cstr, cstr_list, fail, input, opt_cstr, slice_in, slice_n, Res};
use ::slog2::model::*;
use ::slog2::write::{Slog2Writer, WriterOptions};

/// The state of a write handle: the core's writer and the draft's call
/// sequence (module docs).
pub(super) struct WriterState {
    pub(super) path: PathBuf,
    pub(super) writer: Option<Slog2Writer>,
    pub(super) started: bool,
    pub(super) categories_closed: bool,
    pub(super) open_nodes: i32,
    pub(super) dir: Option<Vec<SLOG2_Treedir_node>>,
}

/// Finish the file at SLOG2_Close (see there).
pub(super) fn finish(w: &mut WriterState) -> Res<c_int> {
    if w.open_nodes != 0 {
        return Err(fail(
            SLOG2_ERR_STATE,
            "SLOG2_Write_start_treenode without matching end; no file written",
        ));
    }
    let Some(writer) = w.writer.take() else {
        return Err(fail(SLOG2_ERR_STATE, "writer gone"));
    };
    // The directory check runs before the rename (it ran after it and
    // deleted the file, so a mismatch also destroyed an existing target).
    // A mismatch is a state error (SLOG2_ERR_STATE), told by its kind.
    let want = w.dir.take();
    let r = writer.finish_checked(|got| match &want {
        Some(want)
            if !(got.len() == want.len()
                && got.iter().zip(want).all(|(a, b)| {
                    i32::from(a.id.depth) == b.depth
                        && a.id.xpos == b.xpos
                        && a.time_box.start == b.earliest_time
                        && a.time_box.end == b.latest_time
                })) =>
        {
            Err(::slog2::Error::State(
                "the directory given to SLOG2_Write_dir does not match the tree built; \
                 no file written"
                    .into(),
            ))
        }
        _ => Ok(()),
    });
    core(r).map(|_| SLOG2_OK)
}

// ---------------------------------------------------------------------------
// Output API

/// Accepts a description. SLOG-2 2.0.6 has no description field, so it is not
/// stored; kept for the draft's call sequence. Tree options: SLOG2_Write_header_ex.
/// Returns SLOG2_OK; SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// `description` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Write_header(fp: SLOG2_File, description: *const c_char) -> c_int {
    writer(fp, |_| {
        // SAFETY: the caller's promise on `description`.
        unsafe { cstr::<A>(description, "description") }?;
        Ok(SLOG2_OK)
    })
}

/// Set the tree options (children per node >= 2, leaf byte size >= 46) before
/// the first category, y-map or drawable. Returns SLOG2_OK; SLOG2_ERR_BAD_HANDLE,
/// SLOG2_ERR_WRONG_MODE, SLOG2_ERR_STATE (too late), SLOG2_ERR_BAD_ARG, SLOG2_ERR_IO.
///
/// # Safety
/// None beyond a handle from SLOG2_Open (any value is checked).
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Write_header_ex(
    fp: SLOG2_File,
    children_per_node: c_int,
    leaf_bytesize: c_int,
) -> c_int {
    let nc = match i16::try_from(children_per_node) {
        Ok(nc) => nc,
        Err(_) => {
            return with_options(fp, "SLOG2_Write_header_ex", |_| {
                Err(fail(SLOG2_ERR_BAD_ARG, "children_per_node out of range"))
            })
        }
    };
    with_options(fp, "SLOG2_Write_header_ex", |o| {
        o.children_per_node = nc;
        o.leaf_bytesize = leaf_bytesize;
        Ok(())
    })
}

/// Change a write handle's writer options before anything was written (the
/// writer is made anew with them; options not changed stay): the seam for
/// writer options in files of their own. `call` names the function in the
/// error for a call that comes too late.
pub(crate) fn with_options(
    fp: SLOG2_File,
    call: &str,
    f: impl FnOnce(&mut WriterOptions) -> Res<()>,
) -> c_int {
    writer(fp, |w| {
        if w.started {
            return Err(fail(
                SLOG2_ERR_STATE,
                format!("{call} must come before categories, y-maps and drawables"),
            ));
        }
        let mut opts = w.writer.as_ref().map(|x| x.options()).unwrap_or_default();
        f(&mut opts)?;
        // Drop the first writer (and its temporary file) before making the next.
        w.writer = None;
        w.writer = Some(core(Slog2Writer::create(&w.path, opts))?);
        Ok(SLOG2_OK)
    })
}

/// Run one writer call, translating its result.
fn with_writer(
    w: &mut WriterState,
    f: impl FnOnce(&mut Slog2Writer) -> ::slog2::Result<()>,
) -> Res<c_int> {
    let wr = w
        .writer
        .as_mut()
        .ok_or_else(|| fail(SLOG2_ERR_STATE, "the writer was not created"))?;
    core(f(wr))?;
    Ok(SLOG2_OK)
}

fn add_category(
    w: &mut WriterState,
    head: &SLOG2_Category_head_t,
    name: &str,
    label: &str,
    methods: Vec<i32>,
) -> Res<c_int> {
    if head.index == -1 {
        w.categories_closed = true;
        return Ok(SLOG2_OK);
    }
    if w.categories_closed {
        return Err(fail(
            SLOG2_ERR_STATE,
            "the category list was closed (index -1)",
        ));
    }
    let topology = Topology::from_i32(head.shape)
        .ok_or_else(|| fail(SLOG2_ERR_BAD_ARG, "shape must be 0, 1 or 2"))?;
    let comp = |v: c_int| u8::try_from(v).ok();
    let (Some(r), Some(g), Some(b), Some(a)) = (
        comp(head.red),
        comp(head.green),
        comp(head.blue),
        comp(head.alpha),
    ) else {
        return Err(fail(SLOG2_ERR_BAD_ARG, "colour components must be 0..255"));
    };
    let width = i8::try_from(head.width)
        .map_err(|_| fail(SLOG2_ERR_BAD_ARG, "width must fit a signed byte"))?;
    if name.is_empty() {
        return Err(fail(SLOG2_ERR_BAD_ARG, "empty category name"));
    }
    let mut c = Category::new(head.index, name, topology, Color::rgba(r, g, b, a), width);
    c.info = InfoFormat::parse(label).map_err(|e| fail(SLOG2_ERR_BAD_ARG, e))?;
    c.methods = methods;
    w.started = true;
    with_writer(w, |wr| wr.add_category(c))
}

/// Define a category. `category_text` holds `category_text_length` bytes: the
/// name, optionally followed by a NUL and the popup label (e.g.
/// `"message\0msg_tag=%d, msg_size=%d"`). `methods` is NULL or a NULL-terminated
/// array of method names (`"CONNECT_COMPOSITE_STATE"` or a decimal ID);
/// `method_extra` is accepted and ignored (2.0.6 stores no method text).
/// `head->index == -1` closes the category list. Returns SLOG2_OK;
/// SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_ARG (shape, colour, width, name, label,
/// method), SLOG2_ERR_STATE (list closed), SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// `head` is NULL or a valid struct; `category_text` is NULL or holds
/// `category_text_length` bytes; `methods` is NULL or a NULL-terminated array
/// of NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Write_category(
    fp: SLOG2_File,
    head: *const SLOG2_Category_head_t,
    category_text_length: c_int,
    category_text: *const c_char,
    methods: *const *const c_char,
    method_extra: *const *const c_char,
) -> c_int {
    let _ = method_extra;
    writer(fp, |w| {
        // SAFETY: the caller's promises (see # Safety).
        let (head, bytes, names) = unsafe {
            let head = input::<A, _>(head, "head")?;
            if head.index == -1 {
                return add_category(w, head, "", "", Vec::new());
            }
            if category_text.is_null() {
                return Err(fail(SLOG2_ERR_NULL_ARG, "NULL argument: category_text"));
            }
            (
                head,
                bytes_in::<A>(category_text, category_text_length, "category_text")?,
                cstr_list::<A>(methods, 4096, "methods")?,
            )
        };
        let mut parts = bytes.splitn(2, |&b| b == 0);
        let name = String::from_utf8_lossy(parts.next().unwrap_or(&[])).into_owned();
        let label = String::from_utf8_lossy(parts.next().unwrap_or(&[]))
            .trim_end_matches('\0')
            .to_string();
        let mut ms = Vec::with_capacity(names.len());
        for m in &names {
            ms.push(match m.trim() {
                "CONNECT_COMPOSITE_STATE" => METHOD_CONNECT_COMPOSITE_STATE,
                t => t
                    .parse::<i32>()
                    .map_err(|_| fail(SLOG2_ERR_BAD_ARG, format!("unknown method name {t:?}")))?,
            });
        }
        add_category(w, head, &name, &label, ms)
    })
}

/// Define a category from separate C strings (label may be NULL) and method
/// IDs. Returns as SLOG2_Write_category.
///
/// # Safety
/// `head` is NULL or a valid struct; `name` and `label` are NULL or
/// NUL-terminated strings; `methods` holds `nmethods` ints (or is NULL when 0).
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Write_category_ex(
    fp: SLOG2_File,
    head: *const SLOG2_Category_head_t,
    name: *const c_char,
    label: *const c_char,
    nmethods: c_int,
    methods: *const c_int,
) -> c_int {
    writer(fp, |w| {
        // SAFETY: the caller's promises (see # Safety).
        let (head, name, label, methods) = unsafe {
            let head = input::<A, _>(head, "head")?;
            if head.index == -1 {
                return add_category(w, head, "", "", Vec::new());
            }
            (
                head,
                cstr::<A>(name, "name")?,
                opt_cstr::<A>(label, "label")?,
                slice_in::<A, c_int>(methods, nmethods, "methods")?,
            )
        };
        add_category(
            w,
            head,
            &name,
            label.as_deref().unwrap_or(""),
            methods.to_vec(),
        )
    })
}

fn add_map(w: &mut WriterState, m: YCoordMap) -> Res<c_int> {
    w.started = true;
    with_writer(w, |wr| wr.add_ycoordmap(m))
}

/// A one-column y-coordinate map named `class_name`: line `in_coord_val[i]`
/// maps to `out_coord_val[i]` for `i < ncoords`; `coord_label` is NULL or an
/// array whose first string labels the value column. Returns SLOG2_OK;
/// SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_ARG, SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// `class_name` is a NUL-terminated string; `in_coord_val` and
/// `out_coord_val` hold `ncoords` ints; `coord_label` is NULL or points to a
/// string pointer (NULL or NUL-terminated).
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Write_coord_class(
    fp: SLOG2_File,
    class_name: *const c_char,
    ncoords: c_int,
    in_coord_val: *const c_int,
    out_coord_val: *mut c_int,
    coord_label: *const *const c_char,
) -> c_int {
    writer(fp, |w| {
        if ncoords <= 0 {
            return Err(fail(SLOG2_ERR_BAD_ARG, "ncoords must be > 0"));
        }
        // SAFETY: the caller's promises (see # Safety).
        let (title, ins, outs, label) = unsafe {
            (
                cstr::<A>(class_name, "class_name")?,
                slice_in::<A, c_int>(in_coord_val, ncoords, "in_coord_val")?,
                slice_in::<A, c_int>(out_coord_val, ncoords, "out_coord_val")?,
                match coord_label.as_ref() {
                    Some(&p) => opt_cstr::<A>(p, "coord_label")?,
                    None => None,
                },
            )
        };
        add_map(
            w,
            YCoordMap {
                title: title.into_owned(),
                column_labels: vec![label.map_or_else(|| "value".to_string(), |l| l.into_owned())],
                rows: ins.iter().zip(outs).map(|(a, b)| (*a, vec![*b])).collect(),
                methods: Vec::new(),
            },
        )
    })
}

/// A y-coordinate map: `nrows` rows of `ncols` ints row-major (line ID first),
/// `ncols - 1` column labels, method IDs (1 = CONNECT_COMPOSITE_STATE).
/// Returns SLOG2_OK; SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_ARG, SLOG2_ERR_BAD_HANDLE,
/// SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// `title` is a NUL-terminated string; `column_labels` holds `ncols - 1`
/// string pointers; `elems` holds `nrows * ncols` ints; `methods` holds
/// `nmethods` ints (or is NULL when 0).
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Write_ycoordmap_ex(
    fp: SLOG2_File,
    title: *const c_char,
    nrows: c_int,
    ncols: c_int,
    column_labels: *const *const c_char,
    elems: *const c_int,
    nmethods: c_int,
    methods: *const c_int,
) -> c_int {
    writer(fp, |w| {
        if nrows < 1 || ncols < 2 {
            return Err(fail(SLOG2_ERR_BAD_ARG, "need nrows >= 1 and ncols >= 2"));
        }
        let n = (nrows as usize)
            .checked_mul(ncols as usize)
            .ok_or_else(|| fail(SLOG2_ERR_BAD_ARG, "nrows * ncols is too large"))?;
        // SAFETY: the caller's promises (see # Safety).
        let (title, label_ptrs, e, methods) = unsafe {
            (
                cstr::<A>(title, "title")?,
                slice_in::<A, *const c_char>(column_labels, ncols - 1, "column_labels")?,
                slice_n::<A, c_int>(elems, n, "elems")?,
                slice_in::<A, c_int>(methods, nmethods, "methods")?,
            )
        };
        let mut labels = Vec::with_capacity(label_ptrs.len());
        for &p in label_ptrs {
            // SAFETY: each label is a NUL-terminated string (caller).
            labels.push(unsafe { cstr::<A>(p, "column label") }?.into_owned());
        }
        let rows = e
            .chunks_exact(ncols as usize)
            .map(|r| (r[0], r[1..].to_vec()))
            .collect();
        add_map(
            w,
            YCoordMap {
                title: title.into_owned(),
                column_labels: labels,
                rows,
                methods: methods.to_vec(),
            },
        )
    })
}

fn add_drawable(w: &mut WriterState, stated: TimeBox, d: Drawable) -> Res<c_int> {
    let b = d.time_box();
    // A vertex time that is not a number is the core's error ("vertex time
    // is not finite"), not an envelope mismatch (the NaN box never matches).
    let finite = d
        .primitives()
        .iter()
        .all(|p| p.vertices.iter().all(|v| v.time.is_finite()));
    if finite && (b.start != stated.start || b.end != stated.end) {
        return Err(fail(
            SLOG2_ERR_BAD_ARG,
            format!(
                "starttime/endtime ({}, {}) must equal the vertex envelope ({}, {})",
                stated.start, stated.end, b.start, b.end
            ),
        ));
    }
    w.started = true;
    // The writer checks payloads against their category's format.
    with_writer(w, |wr| wr.add_drawable(d))
}

/// Add a primitive: `nt_coords` vertex times and as many line IDs
/// (`ny_coords == nt_coords`), `ntext` info payload bytes (big-endian values
/// for the category's label tokens). `starttime`/`endtime` must equal the
/// envelope of the times. Returns SLOG2_OK; SLOG2_ERR_NULL_ARG,
/// SLOG2_ERR_BAD_ARG, SLOG2_ERR_ORDER (ends before the previous drawable),
/// SLOG2_ERR_INVALID_DRAWABLE (a bad box or vertex, or an info payload
/// shorter than its category's format needs), SLOG2_ERR_IO,
/// SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// `t_coord` holds `nt_coords` doubles, `y_coord` `ny_coords` ints, `text`
/// `ntext` bytes (or is NULL when 0).
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Write_drawable_object(
    fp: SLOG2_File,
    starttime: f64,
    endtime: f64,
    category_index: c_int,
    nt_coords: c_int,
    t_coord: *const f64,
    ny_coords: c_int,
    y_coord: *const c_int,
    ntext: c_int,
    text: *const c_char,
) -> c_int {
    writer(fp, |w| {
        if nt_coords < 1 || ny_coords != nt_coords {
            return Err(fail(
                SLOG2_ERR_BAD_ARG,
                "need nt_coords >= 1 and ny_coords == nt_coords",
            ));
        }
        // SAFETY: the caller's promises (see # Safety).
        let (ts, ys, info) = unsafe {
            (
                slice_in::<A, f64>(t_coord, nt_coords, "t_coord")?,
                slice_in::<A, c_int>(y_coord, ny_coords, "y_coord")?,
                bytes_in::<A>(text, ntext, "text")?,
            )
        };
        let p = Primitive::new(
            category_index,
            ts.iter()
                .zip(ys)
                .map(|(t, y)| Vertex::new(*t, *y))
                .collect::<Vertices>(),
            info,
        );
        add_drawable(w, TimeBox::new(starttime, endtime), Drawable::Primitive(p))
    })
}

/// Add a composite of `nmembers` primitives. Member i has category
/// `member_category[i]`, `member_nverts[i]` vertices taken in order from
/// `t_coord`/`y_coord`, and `member_ninfo[i]` info bytes taken in order from
/// `member_info` (may be NULL when all are 0). Returns as
/// SLOG2_Write_drawable_object.
///
/// # Safety
/// `info` holds `ninfo` bytes (or is NULL when 0); the three member arrays
/// hold `nmembers` ints; `t_coord`/`y_coord` hold the sum of
/// `member_nverts`; `member_info` the sum of `member_ninfo` bytes.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Write_composite_ex(
    fp: SLOG2_File,
    starttime: f64,
    endtime: f64,
    category_index: c_int,
    ninfo: c_int,
    info: *const c_char,
    nmembers: c_int,
    member_category: *const c_int,
    member_nverts: *const c_int,
    t_coord: *const f64,
    y_coord: *const c_int,
    member_ninfo: *const c_int,
    member_info: *const c_char,
) -> c_int {
    writer(fp, |w| {
        if nmembers < 1 {
            return Err(fail(SLOG2_ERR_BAD_ARG, "need nmembers >= 1"));
        }
        // SAFETY: the caller's promises (see # Safety).
        let (own, cats, nv, ni) = unsafe {
            (
                bytes_in::<A>(info, ninfo, "info")?,
                slice_in::<A, c_int>(member_category, nmembers, "member_category")?,
                slice_in::<A, c_int>(member_nverts, nmembers, "member_nverts")?,
                slice_in::<A, c_int>(member_ninfo, nmembers, "member_ninfo")?,
            )
        };
        if nv.iter().any(|&n| n < 1) || ni.iter().any(|&n| n < 0) {
            return Err(fail(
                SLOG2_ERR_BAD_ARG,
                "member vertex counts must be >= 1 and info sizes >= 0",
            ));
        }
        let total_v: usize = nv.iter().map(|&n| n as usize).sum();
        let total_i: usize = ni.iter().map(|&n| n as usize).sum();
        // SAFETY: the caller's promises on the vertex and info arrays.
        let (ts, ys, infos) = unsafe {
            (
                slice_n::<A, f64>(t_coord, total_v, "t_coord")?,
                slice_n::<A, c_int>(y_coord, total_v, "y_coord")?,
                slice_n::<A, u8>(member_info as *const u8, total_i, "member_info")?,
            )
        };
        let (mut v0, mut i0) = (0usize, 0usize);
        let mut members = Vec::with_capacity(cats.len());
        for k in 0..cats.len() {
            let (n, m) = (nv[k] as usize, ni[k] as usize);
            members.push(Primitive::new(
                cats[k],
                (v0..v0 + n)
                    .map(|j| Vertex::new(ts[j], ys[j]))
                    .collect::<Vertices>(),
                &infos[i0..i0 + m],
            ));
            v0 += n;
            i0 += m;
        }
        let c = Composite {
            category: category_index,
            info: own.into(),
            members,
        };
        add_drawable(w, TimeBox::new(starttime, endtime), Drawable::Composite(c))
    })
}

/// Tree-node grouping hint. The library always builds the tree itself (the
/// reference algorithm); start/end calls only have to nest properly, which is
/// checked (an end without a start, or a start left open at close, is
/// SLOG2_ERR_STATE and no file is written). Returns SLOG2_OK;
/// SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// None beyond a handle from SLOG2_Open (any value is checked).
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Write_start_treenode(fp: SLOG2_File) -> c_int {
    writer(fp, |w| {
        w.open_nodes += 1;
        Ok(SLOG2_OK)
    })
}

/// Closes a SLOG2_Write_start_treenode group (see there). Returns SLOG2_OK;
/// SLOG2_ERR_STATE (no open group), SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// None beyond a handle from SLOG2_Open (any value is checked).
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Write_end_treenode(fp: SLOG2_File) -> c_int {
    writer(fp, |w| {
        if w.open_nodes == 0 {
            return Err(fail(
                SLOG2_ERR_STATE,
                "SLOG2_Write_end_treenode without a start",
            ));
        }
        w.open_nodes -= 1;
        Ok(SLOG2_OK)
    })
}

/// The directory the caller expects (root first, as SLOG2_Read_dir returns
/// it; depth, xpos and time boxes are compared, the other fields ignored).
/// SLOG2_Close checks it against the tree actually built and, if they differ,
/// returns SLOG2_ERR_STATE and leaves no file. Returns SLOG2_OK;
/// SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_ARG, SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// `dir` holds `n_nodes` structs.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Write_dir(
    fp: SLOG2_File,
    dir: *const SLOG2_Treedir_node,
    n_nodes: c_int,
) -> c_int {
    writer(fp, |w| {
        if n_nodes < 1 {
            return Err(fail(SLOG2_ERR_BAD_ARG, "n_nodes must be >= 1"));
        }
        // SAFETY: the caller's promise on `dir`.
        w.dir = Some(unsafe { slice_in::<A, _>(dir, n_nodes, "dir") }?.to_vec());
        Ok(SLOG2_OK)
    })
}
