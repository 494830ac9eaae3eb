//! The input API (Appendix D): metadata, the tree directory, categories,
//! the draft's sequential drawable cursor (`SLOG2_Get_next_drawable` and
//! positions), popup text and y-coordinate maps.
//!
//! The sequential cursor loads every drawable of the file on first use, as
//! the draft's model implies; viewers use `SLOG2_Query_window` or a window
//! cursor instead. Payloads handed out are checked against their category's
//! format first, so that the draft's `SLOG2_Get_drawable_text`, which walks
//! a payload on a bare pointer, never reads past one.

use std::ffi::{c_char, c_int};

use super::codes::*;
use super::{core, reader, Reader, SLOG2_Category_head_t, SLOG2_File, SLOG2_Treedir_node, A};
use crate::{bytes_in, c_len, cbuf, fail, lock, out, slice_n, slots, write_cstr, Res};
use ::slog2::model::*;
use ::slog2::read::Slog2File;

/// The sequential input cursor of a reader (the draft's Get_next_* calls).
#[derive(Default)]
pub(super) struct Cursor {
    next_category: usize,
    all: Option<Vec<Drawable>>,
    pos: usize,
}

// ---------------------------------------------------------------------------
// Input API

/// Version text into `description` (NUL-terminated) and `*version` = 206
/// (the layout version, also of a compressed `SLOG 2.0.Z` file: see
/// SLOG2_Get_compressed; the description names the file's version string).
/// Returns the negative of the needed length (with the NUL) and writes
/// nothing when `maxdesclen` is too small; else SLOG2_OK; SLOG2_ERR_NULL_ARG,
/// SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// `description` is NULL or valid for `maxdesclen` bytes; `version` is NULL
/// or valid for one int.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Get_header(
    fp: SLOG2_File,
    description: *mut c_char,
    maxdesclen: c_int,
    version: *mut c_int,
) -> c_int {
    reader(fp, |r| {
        // SAFETY: the caller's promises (see # Safety).
        let (buf, version) = unsafe {
            (
                cbuf::<A>(description, maxdesclen.max(0), "description")?,
                out::<A, _>(version, "version")?,
            )
        };
        let text = r.file.description();
        if !write_cstr(buf, &text) {
            return Ok(-c_len::<A>(text.len() + 1, "description")?);
        }
        *version = 206;
        Ok(SLOG2_OK)
    })
}

/// Time range of the whole file (the root node's box). Returns SLOG2_OK;
/// SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// `starttime` and `endtime` are NULL or valid for one double each.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Get_total_time(
    fp: SLOG2_File,
    starttime: *mut f64,
    endtime: *mut f64,
) -> c_int {
    reader(fp, |r| {
        // SAFETY: the caller's promises (see # Safety).
        let (s, e) = unsafe {
            (
                out::<A, _>(starttime, "starttime")?,
                out::<A, _>(endtime, "endtime")?,
            )
        };
        let b = r.file.total_time();
        *s = b.start;
        *e = b.end;
        Ok(SLOG2_OK)
    })
}

/// The tree directory, root first (`dir[0]`, parent -1). `*n_nodes` gets the
/// number of nodes; SLOG2_ERR_ARRAY_TOO_SMALL (nothing written) when `maxtree`
/// is smaller — call with `maxtree` 0 to learn the size. Returns SLOG2_OK;
/// SLOG2_ERR_NULL_ARG, SLOG2_ERR_ARRAY_TOO_SMALL, SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// `dir` is NULL or valid for `maxtree` structs; `n_nodes` NULL or valid for one int.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Read_dir(
    fp: SLOG2_File,
    dir: *mut SLOG2_Treedir_node,
    maxtree: c_int,
    n_nodes: *mut c_int,
) -> c_int {
    reader(fp, |r| {
        // SAFETY: the caller's promise on `n_nodes`.
        let n_nodes = unsafe { out::<A, _>(n_nodes, "n_nodes") }?;
        let d = r.file.tree_directory();
        *n_nodes = c_len::<A>(d.len(), "nodes")?;
        if (maxtree as i64) < d.len() as i64 {
            return Err(fail(
                SLOG2_ERR_ARRAY_TOO_SMALL,
                "maxtree is smaller than the number of nodes",
            ));
        }
        let mut pos = 0;
        // SAFETY: `dir` holds `maxtree` >= d.len() structs (caller).
        let dst = unsafe { slots::<A, _>(dir, &mut pos, maxtree, d.len(), "dir") }?;
        dst.fill(d.iter().map(|n| SLOG2_Treedir_node {
            depth: c_int::from(n.id.depth),
            xpos: n.id.xpos,
            earliest_time: n.time_box.start,
            latest_time: n.time_box.end,
            block_offset: n.block_offset,
            block_size: n.block_size,
            parent: n.parent,
            lchild: n.first_child,
            rchild: n.last_child,
        }));
        Ok(SLOG2_OK)
    })
}

/// The next category of the file (preview categories included, index < 0):
/// head, label characters into `text`, name characters into `legend`
/// (four-argument arrays, no NUL). `text_pos` and `legend_pos` must point to
/// two different ints (each array advances its own); one int for both is
/// SLOG2_ERR_BAD_ARG. Returns SLOG2_OK; SLOG2_ERR_EOF after the
/// last one; SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_ARG, SLOG2_ERR_ARRAY_TOO_SMALL,
/// SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// `head` is NULL or valid for one struct; each array base is NULL or valid
/// for its `max_*` bytes, each `*_pos` NULL or valid for one int.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Get_next_category(
    fp: SLOG2_File,
    head: *mut SLOG2_Category_head_t,
    text_base: *mut c_char,
    text_pos: *mut c_int,
    max_text: c_int,
    legend_base: *mut c_char,
    legend_pos: *mut c_int,
    max_legend: c_int,
) -> c_int {
    reader(fp, |r| {
        if !text_pos.is_null() && text_pos == legend_pos {
            return Err(fail(
                SLOG2_ERR_BAD_ARG,
                "text_pos and legend_pos are the same int; each array needs its own position",
            ));
        }
        let mut cur = lock(&r.cursor);
        let c = r
            .file
            .categories()
            .get(cur.next_category)
            .ok_or_else(|| fail(SLOG2_ERR_EOF, "no more categories"))?;
        let label = c.info.label();
        // SAFETY: the caller's promises (see # Safety); all checked before writing.
        let (head, text, legend) = unsafe {
            (
                out::<A, _>(head, "head")?,
                slots::<A, c_char>(text_base, text_pos, max_text, label.len(), "text")?,
                slots::<A, c_char>(legend_base, legend_pos, max_legend, c.name.len(), "legend")?,
            )
        };
        *head = SLOG2_Category_head_t {
            index: c.index,
            shape: c.topology as c_int,
            red: c_int::from(c.color.red),
            green: c_int::from(c.color.green),
            blue: c_int::from(c.color.blue),
            alpha: c_int::from(c.color.alpha),
            width: c_int::from(c.width),
            count: c.count,
            incl_ratio: c.incl_ratio,
            excl_ratio: c.excl_ratio,
        };
        text.fill(label.bytes().map(|b| b as c_char));
        legend.fill(c.name.bytes().map(|b| b as c_char));
        cur.next_category += 1;
        Ok(SLOG2_OK)
    })
}

/// The drawable at the cursor (loading every drawable on first use).
fn current<'a>(file: &Slog2File, cur: &'a mut Cursor) -> Res<&'a Drawable> {
    if cur.all.is_none() {
        cur.all = Some(core(file.drawables_in_order())?);
    }
    cur.all
        .as_ref()
        .and_then(|v| v.get(cur.pos))
        .ok_or_else(|| fail(SLOG2_ERR_EOF, "no more drawables"))
}

fn nverts(d: &Drawable) -> usize {
    d.primitives().iter().map(|p| p.vertices.len()).sum()
}

/// Time box and sizes of the next drawable in drawing order: `nt_coords` and
/// `ny_coords` = its vertices (a composite: all members' vertices), `n_text` =
/// info payload bytes. (The first call loads every drawable of the file; for
/// large files use SLOG2_Query_window.) Returns SLOG2_OK; SLOG2_ERR_EOF at the
/// end; SLOG2_ERR_NULL_ARG, SLOG2_ERR_FORMAT, SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// Every pointer is NULL or valid for one value.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Peek_next_drawable(
    fp: SLOG2_File,
    starttime: *mut f64,
    endtime: *mut f64,
    nt_coords: *mut c_int,
    ny_coords: *mut c_int,
    n_text: *mut c_int,
) -> c_int {
    reader(fp, |r| {
        // SAFETY: the caller's promises (see # Safety).
        let (s, e, nt, ny, nx) = unsafe {
            (
                out::<A, _>(starttime, "starttime")?,
                out::<A, _>(endtime, "endtime")?,
                out::<A, _>(nt_coords, "nt_coords")?,
                out::<A, _>(ny_coords, "ny_coords")?,
                out::<A, _>(n_text, "n_text")?,
            )
        };
        let mut cur = lock(&r.cursor);
        let d = current(&r.file, &mut cur)?;
        let b = d.time_box();
        let nv = c_len::<A>(nverts(d), "vertices")?;
        *s = b.start;
        *e = b.end;
        *nt = nv;
        *ny = nv;
        *nx = c_len::<A>(d.info().len(), "info")?;
        Ok(SLOG2_OK)
    })
}

/// The next drawable: box, category, `ncoords` = 2 × vertices doubles written
/// as `(time, lineID)` pairs into `coord_base`, and the info payload into
/// `text_base` (four-argument arrays). Advances the position. Returns as
/// SLOG2_Peek_next_drawable, plus SLOG2_ERR_BAD_ARG and SLOG2_ERR_ARRAY_TOO_SMALL.
///
/// # Safety
/// Scalar pointers are NULL or valid for one value; array bases are NULL or
/// valid for their `*_max` elements; positions NULL or valid for one int.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Get_next_drawable(
    fp: SLOG2_File,
    starttime: *mut f64,
    endtime: *mut f64,
    category_index: *mut c_int,
    ncoords: *mut c_int,
    coord_base: *mut f64,
    coord_pos: *mut c_int,
    coord_max: c_int,
    text_base: *mut c_char,
    text_pos: *mut c_int,
    text_max: c_int,
) -> c_int {
    reader(fp, |r| {
        let mut cur = lock(&r.cursor);
        let number = cur.pos + 1;
        let d = current(&r.file, &mut cur)?;
        // Payloads are validated before they are handed out: the draft's
        // SLOG2_Get_drawable_text walks them by their category's format on a
        // bare pointer, and read past a damaged file's short payload.
        let tokens = r
            .file
            .category(d.category())
            .map(|c| c.info.tokens.as_slice())
            .unwrap_or(&[]);
        // (An empty payload is legal; the draft call must not be given one.)
        if !d.info().is_empty() && !::slog2::read::payload_covers(tokens, d.info()) {
            return Err(fail(
                SLOG2_ERR_FORMAT,
                format!(
                    "drawable #{} has an info payload of {} bytes, shorter than its category {}'s format: the file is damaged",
                    number,
                    d.info().len(),
                    d.category()
                ),
            ));
        }
        let coords: Vec<f64> = d
            .primitives()
            .iter()
            .flat_map(|p| p.vertices.iter())
            .flat_map(|v| [v.time, f64::from(v.line)])
            .collect();
        let n = c_len::<A>(coords.len(), "coordinates")?;
        // SAFETY: the caller's promises (see # Safety); all checked before writing.
        let (s, e, cat, nc, coord, text) = unsafe {
            (
                out::<A, _>(starttime, "starttime")?,
                out::<A, _>(endtime, "endtime")?,
                out::<A, _>(category_index, "category_index")?,
                out::<A, _>(ncoords, "ncoords")?,
                slots::<A, f64>(coord_base, coord_pos, coord_max, coords.len(), "coords")?,
                slots::<A, c_char>(text_base, text_pos, text_max, d.info().len(), "text")?,
            )
        };
        let b = d.time_box();
        *s = b.start;
        *e = b.end;
        *cat = d.category();
        *nc = n;
        coord.fill(coords);
        text.fill(d.info().iter().map(|&b| b as c_char));
        cur.pos += 1;
        Ok(SLOG2_OK)
    })
}

/// Index of the next drawable of SLOG2_Get_next_drawable; -1 on a bad handle.
///
/// # Safety
/// None beyond a handle from SLOG2_Open (any value is checked).
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Get_position(fp: SLOG2_File) -> i64 {
    let mut at: i64 = -1;
    reader(fp, |r| {
        at = lock(&r.cursor).pos as i64;
        Ok(SLOG2_OK)
    });
    at
}

/// Set the drawable position (draft form: no result; see SLOG2_Set_position_ex).
///
/// # Safety
/// None beyond a handle from SLOG2_Open (any value is checked).
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Set_position(fp: SLOG2_File, offset: i64) {
    // SAFETY: no pointer argument.
    let _ = unsafe { SLOG2_Set_position_ex(fp, offset) };
}

/// Set the drawable position. Returns SLOG2_OK; SLOG2_ERR_BAD_ARG if outside
/// `0..=count`; SLOG2_ERR_FORMAT, SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// None beyond a handle from SLOG2_Open (any value is checked).
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Set_position_ex(fp: SLOG2_File, offset: i64) -> c_int {
    reader(fp, |r| {
        let mut cur = lock(&r.cursor);
        if cur.all.is_none() {
            cur.all = Some(core(r.file.drawables_in_order())?);
        }
        let n = cur.all.as_ref().map_or(0, |v| v.len()) as i64;
        if offset < 0 || offset > n {
            return Err(fail(
                SLOG2_ERR_BAD_ARG,
                format!("position {offset} is outside 0..={n}"),
            ));
        }
        cur.pos = offset as usize;
        Ok(SLOG2_OK)
    })
}

/// Copy `text` into `buf` with a NUL, cut at a character boundary to fit.
fn write_truncated(buf: &mut [u8], text: &str) {
    let mut t = text;
    while !t.is_empty() && t.len() + 1 > buf.len() {
        let mut cut = t.len() - 1;
        while !t.is_char_boundary(cut) {
            cut -= 1;
        }
        t = &t[..cut];
    }
    write_cstr(buf, t);
}

/// Draft form: popup text of a payload for `category_index` into
/// `instance_text` (NUL-terminated, truncated to `text_max`). The payload
/// length is derived from the category's tokens (the draft passes none), so
/// `drawable_text` must hold a whole payload of that category, as
/// SLOG2_Get_next_drawable returns it; prefer SLOG2_Get_drawable_text_ex.
///
/// # Safety
/// `drawable_text` is NULL or holds a complete payload for the category's
/// label; `instance_text` is NULL or valid for `text_max` bytes.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Get_drawable_text(
    fp: SLOG2_File,
    category_index: c_int,
    drawable_text: *const c_char,
    instance_text: *mut c_char,
    text_max: c_int,
) {
    reader(fp, |r| {
        if text_max <= 0 {
            return Err(fail(SLOG2_ERR_BAD_ARG, "text_max must be > 0"));
        }
        // SAFETY: the caller's promise on `instance_text`.
        let buf = unsafe { cbuf::<A>(instance_text, text_max, "instance_text") }?;
        let cat = r.file.category_or_unknown(category_index);
        let n = if drawable_text.is_null() {
            0
        } else {
            // SAFETY: the payload is complete for the category (caller), so
            // every offset the token walk reads lies inside it.
            ::slog2::read::payload_len(&cat.info.tokens, |i| unsafe {
                *(drawable_text as *const u8).add(i)
            })
            .unwrap_or(0)
        };
        // SAFETY: as above: `n` bytes are the payload.
        let bytes = unsafe { slice_n::<A, u8>(drawable_text as *const u8, n, "drawable_text") }?;
        write_truncated(buf, &::slog2::read::format_info(Some(&cat), bytes));
        Ok(SLOG2_OK)
    });
}

/// Popup text of `ninfo` payload bytes for `category_index`, NUL-terminated
/// into `out` (the text `slog2 print` shows). Returns SLOG2_OK;
/// SLOG2_ERR_ARRAY_TOO_SMALL (nothing written), SLOG2_ERR_NULL_ARG,
/// SLOG2_ERR_BAD_ARG, SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// `info` holds `ninfo` bytes (or is NULL when 0); `out` is NULL or valid for
/// `out_max` bytes.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Get_drawable_text_ex(
    fp: SLOG2_File,
    category_index: c_int,
    info: *const c_char,
    ninfo: c_int,
    out: *mut c_char,
    out_max: c_int,
) -> c_int {
    reader(fp, |r| {
        // SAFETY: the caller's promises (see # Safety).
        let (bytes, buf) = unsafe {
            (
                bytes_in::<A>(info, ninfo, "info")?,
                cbuf::<A>(out, out_max, "out")?,
            )
        };
        let cat = r.file.category_or_unknown(category_index);
        if !write_cstr(buf, &::slog2::read::format_info(Some(&cat), bytes)) {
            return Err(fail(
                SLOG2_ERR_ARRAY_TOO_SMALL,
                "out_max too small for the text",
            ));
        }
        Ok(SLOG2_OK)
    })
}

/// Number of y-coordinate maps in the file (the generated Identity Map
/// included). Returns SLOG2_OK; SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_HANDLE,
/// SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// `n_maps` is NULL or valid for one int.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Get_ycoordmap_count(fp: SLOG2_File, n_maps: *mut c_int) -> c_int {
    reader(fp, |r| {
        // SAFETY: the caller's promise on `n_maps`.
        *unsafe { out::<A, _>(n_maps, "n_maps") }? = c_len::<A>(r.file.ycoordmaps().len(), "maps")?;
        Ok(SLOG2_OK)
    })
}

fn ymap(r: &Reader, i: c_int) -> Res<&YCoordMap> {
    usize::try_from(i)
        .ok()
        .and_then(|i| r.file.ycoordmaps().get(i))
        .ok_or_else(|| fail(SLOG2_ERR_BAD_ARG, format!("no y-coordinate map {i}")))
}

/// Map `i`: title (NUL-terminated into `title`, `title_max` bytes), shape,
/// elements row-major (line ID first) through a four-argument array.
/// Returns SLOG2_OK; SLOG2_ERR_BAD_ARG (no such map), SLOG2_ERR_NULL_ARG,
/// SLOG2_ERR_ARRAY_TOO_SMALL, SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// `title` is NULL or valid for `title_max` bytes; scalar pointers NULL or
/// valid for one int; `elem_base` NULL or valid for `elem_max` ints.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Get_ycoordmap(
    fp: SLOG2_File,
    i: c_int,
    title: *mut c_char,
    title_max: c_int,
    n_rows: *mut c_int,
    n_columns: *mut c_int,
    n_elems: *mut c_int,
    elem_base: *mut c_int,
    elem_pos: *mut c_int,
    elem_max: c_int,
) -> c_int {
    reader(fp, |r| {
        let m = ymap(r, i)?;
        let n = m.rows.iter().map(|(_, v)| 1 + v.len()).sum::<usize>();
        // SAFETY: the caller's promises (see # Safety); all checked before writing.
        let (buf, nr, nc, ne, elems) = unsafe {
            (
                cbuf::<A>(title, title_max, "title")?,
                out::<A, _>(n_rows, "n_rows")?,
                out::<A, _>(n_columns, "n_columns")?,
                out::<A, _>(n_elems, "n_elems")?,
                slots::<A, c_int>(elem_base, elem_pos, elem_max, n, "elems")?,
            )
        };
        if m.title.len() >= buf.len() {
            return Err(fail(SLOG2_ERR_ARRAY_TOO_SMALL, "title buffer too small"));
        }
        write_cstr(buf, &m.title);
        *nr = c_len::<A>(m.rows.len(), "rows")?;
        *nc = c_len::<A>(m.column_labels.len() + 1, "columns")?;
        *ne = c_len::<A>(n, "elements")?;
        elems.fill(
            m.rows
                .iter()
                .flat_map(|(l, v)| std::iter::once(*l).chain(v.iter().copied())),
        );
        Ok(SLOG2_OK)
    })
}

/// Label of value column `col` (0-based, the line-ID column excluded) of map
/// `i`. Returns SLOG2_OK; SLOG2_ERR_BAD_ARG (no such map or column),
/// SLOG2_ERR_ARRAY_TOO_SMALL, SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_HANDLE,
/// SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// `label` is NULL or valid for `label_max` bytes.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Get_ycoordmap_label(
    fp: SLOG2_File,
    i: c_int,
    col: c_int,
    label: *mut c_char,
    label_max: c_int,
) -> c_int {
    reader(fp, |r| {
        let m = ymap(r, i)?;
        let l = usize::try_from(col)
            .ok()
            .and_then(|c| m.column_labels.get(c))
            .ok_or_else(|| fail(SLOG2_ERR_BAD_ARG, format!("no column {col} in map {i}")))?;
        // SAFETY: the caller's promise on `label`.
        let buf = unsafe { cbuf::<A>(label, label_max, "label") }?;
        if !write_cstr(buf, l) {
            return Err(fail(SLOG2_ERR_ARRAY_TOO_SMALL, "label buffer too small"));
        }
        Ok(SLOG2_OK)
    })
}
