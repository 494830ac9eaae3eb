//! The SLOG2 C API: write and read SLOG-2 files from C.
//!
//! Names and argument order follow the SLOG-2 design draft (Appendices C and
//! D); where a draft signature is not valid C or cannot express something, the
//! nearest valid form is used and an `_ex` variant added (see each function).
//! Viewers get bulk calls: a time-window query and a preview that fill caller
//! arrays in columns, one call per screen.
//!
//! Return codes: `SLOG2_OK` (0) or one of the positive `SLOG2_ERR_*` codes;
//! `SLOG2_Get_err_string` gives static text, `SLOG2_Get_last_error` the
//! detail of the last error on the calling thread (file, record, byte offset).
//!
//! Thread safety: every function may be called from any thread; calls on all
//! SLOG2 handles serialise on one lock. The strings returned by
//! `SLOG2_Get_last_error` belong to the calling thread.

#![allow(non_camel_case_types, non_snake_case)]

use std::ffi::{c_char, c_int, CStr};
use std::path::PathBuf;

use super::{guard, last_error_ptr, put, put_cstr, room, set_last_error, Registry, Room};
use crate::format::DirEntry;
use crate::model::*;
use crate::read::{Rows, Slog2File};
use crate::write::{Slog2Writer, WriterOptions};

/// Success.
pub const SLOG2_OK: c_int = 0;
/// A required pointer argument is NULL.
pub const SLOG2_ERR_NULL_ARG: c_int = 1;
/// Unknown, closed or NULL `SLOG2_File` handle.
pub const SLOG2_ERR_BAD_HANDLE: c_int = 2;
/// The call needs the other mode ('r' vs 'w').
pub const SLOG2_ERR_WRONG_MODE: c_int = 3;
/// An output array is too small; nothing was written.
pub const SLOG2_ERR_ARRAY_TOO_SMALL: c_int = 4;
/// An argument is out of range (negative size, unknown mode, bad time box...).
pub const SLOG2_ERR_BAD_ARG: c_int = 5;
/// Operating-system I/O error.
pub const SLOG2_ERR_IO: c_int = 6;
/// The file is not a valid SLOG-2 2.0.6 file.
pub const SLOG2_ERR_FORMAT: c_int = 7;
/// A drawable ends before the previous one (drawables must come in non-decreasing end time).
pub const SLOG2_ERR_ORDER: c_int = 8;
/// No more items (categories, drawables).
pub const SLOG2_ERR_EOF: c_int = 9;
/// The call is not allowed in the handle's current state (e.g. tree-node calls unbalanced).
pub const SLOG2_ERR_STATE: c_int = 10;
/// Closing a file with no drawable: nothing is written.
pub const SLOG2_ERR_NO_DRAWABLES: c_int = 11;
/// Internal error caught at the C boundary.
pub const SLOG2_ERR_PANIC: c_int = 12;

/// Opaque file state.
pub struct SLOG2_File_s {
    _private: [u8; 0],
}

/// Handle of an open SLOG-2 file.
pub type SLOG2_File = *mut SLOG2_File_s;

/// A category: the TRACE head fields plus the file's summary.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct SLOG2_Category_head_t {
    /// Category index (>= 0; -1 in SLOG2_Write_category closes the list; < 0 when read = preview category).
    pub index: c_int,
    /// 0 event, 1 state, 2 arrow.
    pub shape: c_int,
    pub red: c_int,
    pub green: c_int,
    pub blue: c_int,
    pub alpha: c_int,
    pub width: c_int,
    /// Read: number of primitives of this category in the file.
    pub count: i64,
    /// Read: inclusive duration ratio.
    pub incl_ratio: f32,
    /// Read: exclusive duration ratio.
    pub excl_ratio: f32,
}

/// One tree-directory node as returned by SLOG2_Read_dir (root first).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct SLOG2_Treedir_node {
    /// 0 = leaf; the root has the largest depth.
    pub depth: c_int,
    /// Position of the node among the nodes of its depth (0-based).
    pub xpos: c_int,
    pub earliest_time: f64,
    pub latest_time: f64,
    /// File block of the node.
    pub block_offset: i64,
    pub block_size: c_int,
    /// Indices into the returned array; -1 when none. rchild = last child.
    pub parent: c_int,
    pub lchild: c_int,
    pub rchild: c_int,
}

/// The draft's other name for the directory node.
pub type SLOG2_Treenode = SLOG2_Treedir_node;

/// What a query read.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct SLOG2_Query_stats {
    pub nodes_read: c_int,
    pub bytes_read: i64,
}

struct WriterState {
    path: PathBuf,
    opts: WriterOptions,
    writer: Option<Slog2Writer>,
    started: bool,
    categories_closed: bool,
    open_nodes: i32,
    dir: Option<Vec<SLOG2_Treedir_node>>,
}

struct ReaderState {
    file: Slog2File,
    next_category: usize,
    all: Option<Vec<Drawable>>,
    pos: usize,
}

enum Handle {
    W(WriterState),
    R(ReaderState),
}

static FILES: Registry<Handle> = Registry::new();

fn code_of(e: &crate::Error) -> c_int {
    use crate::Error as E;
    match e {
        E::Io { .. } => SLOG2_ERR_IO,
        E::BadVersion { .. }
        | E::Truncated { .. }
        | E::BlockOutOfRange { .. }
        | E::Malformed { .. } => SLOG2_ERR_FORMAT,
        E::OrderViolation { .. } => SLOG2_ERR_ORDER,
        E::NoDrawables => SLOG2_ERR_NO_DRAWABLES,
        _ => SLOG2_ERR_BAD_ARG,
    }
}

fn fail(e: crate::Error) -> c_int {
    set_last_error(e.to_string());
    code_of(&e)
}

fn err(code: c_int, msg: &str) -> c_int {
    set_last_error(msg);
    code
}

macro_rules! nonnull {
    ($($p:expr),*) => {
        $( if $p.is_null() { return err(SLOG2_ERR_NULL_ARG, concat!("NULL argument: ", stringify!($p))); } )*
    };
}

fn with(fp: SLOG2_File, f: impl FnOnce(&mut Handle) -> c_int) -> c_int {
    guard(SLOG2_ERR_PANIC, || {
        if fp.is_null() {
            return err(SLOG2_ERR_BAD_HANDLE, "NULL SLOG2_File handle");
        }
        FILES
            .with(fp as usize, f)
            .unwrap_or_else(|| err(SLOG2_ERR_BAD_HANDLE, "unknown or closed SLOG2_File handle"))
    })
}

fn with_w(fp: SLOG2_File, f: impl FnOnce(&mut WriterState) -> c_int) -> c_int {
    with(fp, |h| match h {
        Handle::W(w) => f(w),
        Handle::R(_) => err(SLOG2_ERR_WRONG_MODE, "the file is open for reading"),
    })
}

fn with_r(fp: SLOG2_File, f: impl FnOnce(&mut ReaderState) -> c_int) -> c_int {
    with(fp, |h| match h {
        Handle::R(r) => f(r),
        Handle::W(_) => err(SLOG2_ERR_WRONG_MODE, "the file is open for writing"),
    })
}

fn room_code(r: Room, what: &str) -> Result<(), c_int> {
    match r {
        Room::Ok => Ok(()),
        Room::NullArg => Err(err(SLOG2_ERR_NULL_ARG, &format!("{what}: NULL pointer"))),
        Room::BadArg => Err(err(
            SLOG2_ERR_BAD_ARG,
            &format!("{what}: negative pos or max"),
        )),
        Room::TooSmall => Err(err(
            SLOG2_ERR_ARRAY_TOO_SMALL,
            &format!("{what}: array too small"),
        )),
    }
}

unsafe fn cstr<'a>(p: *const c_char) -> std::borrow::Cow<'a, str> {
    CStr::from_ptr(p).to_string_lossy()
}

unsafe fn slice<'a, T>(p: *const T, n: c_int) -> &'a [T] {
    if n <= 0 || p.is_null() {
        &[]
    } else {
        std::slice::from_raw_parts(p, n as usize)
    }
}

// ---------------------------------------------------------------------------
// Open / close

/// Open `filename` for writing (`mode` 'w') or reading ('r'). Writing goes to a
/// temporary file beside `filename`, renamed over it by SLOG2_Close.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Open(
    filename: *const c_char,
    mode: c_char,
    fp: *mut SLOG2_File,
) -> c_int {
    guard(SLOG2_ERR_PANIC, || {
        nonnull!(fp);
        *fp = std::ptr::null_mut();
        nonnull!(filename);
        let path = PathBuf::from(cstr(filename).into_owned());
        let h = match mode as u8 {
            b'w' | b'W' => {
                let opts = WriterOptions::default();
                match Slog2Writer::create(&path, opts) {
                    Ok(w) => Handle::W(WriterState {
                        path,
                        opts,
                        writer: Some(w),
                        started: false,
                        categories_closed: false,
                        open_nodes: 0,
                        dir: None,
                    }),
                    Err(e) => return fail(e),
                }
            }
            b'r' | b'R' => match Slog2File::open(&path) {
                Ok(file) => Handle::R(ReaderState {
                    file,
                    next_category: 0,
                    all: None,
                    pos: 0,
                }),
                Err(e) => return fail(e),
            },
            _ => return err(SLOG2_ERR_BAD_ARG, "mode must be 'r' or 'w'"),
        };
        *fp = FILES.insert(h) as SLOG2_File;
        SLOG2_OK
    })
}

/// Close and set `*fp` to NULL. Write mode: finishes the file (tree, categories,
/// maps, directory, header) and renames it into place; on any error no file is
/// left. A second close of the same handle returns SLOG2_ERR_BAD_HANDLE.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Close(fp: *mut SLOG2_File) -> c_int {
    guard(SLOG2_ERR_PANIC, || {
        nonnull!(fp);
        if (*fp).is_null() {
            return err(SLOG2_ERR_BAD_HANDLE, "NULL SLOG2_File handle");
        }
        let Some(h) = FILES.remove(*fp as usize) else {
            return err(SLOG2_ERR_BAD_HANDLE, "unknown or closed SLOG2_File handle");
        };
        *fp = std::ptr::null_mut();
        match h {
            Handle::R(_) => SLOG2_OK,
            Handle::W(mut w) => {
                if w.open_nodes != 0 {
                    return err(
                        SLOG2_ERR_STATE,
                        "SLOG2_Write_start_treenode without matching end; no file written",
                    );
                }
                let Some(writer) = w.writer.take() else {
                    return err(SLOG2_ERR_STATE, "writer gone");
                };
                let want_dir = w.dir.take();
                // Write to a side file first when a caller directory must be validated.
                match writer.finish() {
                    Ok(_) => {
                        if let Some(dir) = want_dir {
                            match Slog2File::open(&w.path) {
                                Ok(f) => {
                                    let got = treedir(&f);
                                    let same = got.len() == dir.len()
                                        && got.iter().zip(&dir).all(|(a, b)| {
                                            a.depth == b.depth
                                                && a.xpos == b.xpos
                                                && a.earliest_time == b.earliest_time
                                                && a.latest_time == b.latest_time
                                        });
                                    if !same {
                                        let _ = std::fs::remove_file(&w.path);
                                        return err(
                                            SLOG2_ERR_STATE,
                                            "the directory given to SLOG2_Write_dir does not match the tree built; no file written",
                                        );
                                    }
                                }
                                Err(e) => return fail(e),
                            }
                        }
                        SLOG2_OK
                    }
                    Err(e) => fail(e),
                }
            }
        }
    })
}

// ---------------------------------------------------------------------------
// Output API

/// Accepts a description. SLOG-2 2.0.6 has no description field, so it is not
/// stored; kept for the draft's call sequence. Tree options: SLOG2_Write_header_ex.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Write_header(fp: SLOG2_File, description: *const c_char) -> c_int {
    with_w(fp, |_| {
        nonnull!(description);
        SLOG2_OK
    })
}

/// Set the tree options (children per node >= 2, leaf byte size >= 46) before
/// the first category or drawable.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Write_header_ex(
    fp: SLOG2_File,
    children_per_node: c_int,
    leaf_bytesize: c_int,
) -> c_int {
    with_w(fp, |w| {
        if w.started {
            return err(
                SLOG2_ERR_STATE,
                "SLOG2_Write_header_ex must come before categories and drawables",
            );
        }
        let Ok(nc) = i16::try_from(children_per_node) else {
            return err(SLOG2_ERR_BAD_ARG, "children_per_node out of range");
        };
        let opts = WriterOptions {
            children_per_node: nc,
            leaf_bytesize,
            ..Default::default()
        };
        match Slog2Writer::create(&w.path, opts) {
            Ok(nw) => {
                w.writer = Some(nw);
                w.opts = opts;
                SLOG2_OK
            }
            Err(e) => fail(e),
        }
    })
}

/// Run one writer call, translating its result.
fn with_writer(
    w: &mut WriterState,
    f: impl FnOnce(&mut Slog2Writer) -> crate::Result<()>,
) -> c_int {
    match w.writer.as_mut().map(f) {
        Some(Ok(())) => SLOG2_OK,
        Some(Err(e)) => fail(e),
        None => err(SLOG2_ERR_STATE, "the writer was not created"),
    }
}

fn add_category(
    w: &mut WriterState,
    head: &SLOG2_Category_head_t,
    name: &str,
    label: &str,
    methods: Vec<i32>,
) -> c_int {
    if head.index == -1 {
        w.categories_closed = true;
        return SLOG2_OK;
    }
    if w.categories_closed {
        return err(SLOG2_ERR_STATE, "the category list was closed (index -1)");
    }
    let Some(topology) = Topology::from_i32(head.shape) else {
        return err(SLOG2_ERR_BAD_ARG, "shape must be 0, 1 or 2");
    };
    let comp = |v: c_int| u8::try_from(v).ok();
    let (Some(r), Some(g), Some(b), Some(a)) = (
        comp(head.red),
        comp(head.green),
        comp(head.blue),
        comp(head.alpha),
    ) else {
        return err(SLOG2_ERR_BAD_ARG, "colour components must be 0..255");
    };
    let Ok(width) = i8::try_from(head.width) else {
        return err(SLOG2_ERR_BAD_ARG, "width must fit a signed byte");
    };
    if name.is_empty() {
        return err(SLOG2_ERR_BAD_ARG, "empty category name");
    }
    let mut c = Category::new(head.index, name, topology, Color::rgba(r, g, b, a), width);
    c.info = match InfoFormat::parse(label) {
        Ok(f) => f,
        Err(e) => return err(SLOG2_ERR_BAD_ARG, &e),
    };
    c.methods = methods;
    w.started = true;
    with_writer(w, |wr| wr.add_category(c))
}

/// Define a category. `category_text` holds `category_text_length` bytes: the
/// name, optionally followed by a NUL and the popup label (e.g.
/// `"message\0msg_tag=%d, msg_size=%d"`). `methods` is NULL or a NULL-terminated
/// array of method names (`"CONNECT_COMPOSITE_STATE"` or a decimal ID);
/// `method_extra` is accepted and ignored (2.0.6 stores no method text).
/// `head->index == -1` closes the category list.
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
    with_w(fp, |w| {
        nonnull!(head);
        if (*head).index == -1 {
            return add_category(w, &*head, "", "", Vec::new());
        }
        nonnull!(category_text);
        if category_text_length < 0 {
            return err(SLOG2_ERR_BAD_ARG, "negative category_text_length");
        }
        let bytes = slice(category_text as *const u8, category_text_length);
        let mut parts = bytes.splitn(2, |&b| b == 0);
        let name = String::from_utf8_lossy(parts.next().unwrap_or(&[])).into_owned();
        let label = String::from_utf8_lossy(parts.next().unwrap_or(&[]))
            .trim_end_matches('\0')
            .to_string();
        let mut ms = Vec::new();
        if !methods.is_null() {
            let mut i = 0;
            while !(*methods.add(i)).is_null() {
                let m = cstr(*methods.add(i));
                match m.trim() {
                    "CONNECT_COMPOSITE_STATE" => ms.push(METHOD_CONNECT_COMPOSITE_STATE),
                    t => match t.parse::<i32>() {
                        Ok(v) => ms.push(v),
                        Err(_) => return err(SLOG2_ERR_BAD_ARG, "unknown method name"),
                    },
                }
                i += 1;
                if i > 4096 {
                    return err(SLOG2_ERR_BAD_ARG, "methods array is not NULL-terminated");
                }
            }
        }
        add_category(w, &*head, &name, &label, ms)
    })
}

/// Define a category from separate C strings (label may be NULL) and method IDs.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Write_category_ex(
    fp: SLOG2_File,
    head: *const SLOG2_Category_head_t,
    name: *const c_char,
    label: *const c_char,
    nmethods: c_int,
    methods: *const c_int,
) -> c_int {
    with_w(fp, |w| {
        nonnull!(head);
        if (*head).index == -1 {
            return add_category(w, &*head, "", "", Vec::new());
        }
        nonnull!(name);
        if nmethods < 0 || (nmethods > 0 && methods.is_null()) {
            return err(SLOG2_ERR_BAD_ARG, "bad methods array");
        }
        let label = if label.is_null() {
            String::new()
        } else {
            cstr(label).into_owned()
        };
        add_category(
            w,
            &*head,
            &cstr(name),
            &label,
            slice(methods, nmethods).to_vec(),
        )
    })
}

fn add_map(w: &mut WriterState, m: YCoordMap) -> c_int {
    with_writer(w, |wr| wr.add_ycoordmap(m))
}

/// A one-column y-coordinate map named `class_name`: line `in_coord_val[i]`
/// maps to `out_coord_val[i]` for `i < ncoords`; `coord_label` is NULL or an
/// array whose first string labels the value column.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Write_coord_class(
    fp: SLOG2_File,
    class_name: *const c_char,
    ncoords: c_int,
    in_coord_val: *const c_int,
    out_coord_val: *mut c_int,
    coord_label: *const *const c_char,
) -> c_int {
    with_w(fp, |w| {
        nonnull!(class_name, in_coord_val, out_coord_val);
        if ncoords <= 0 {
            return err(SLOG2_ERR_BAD_ARG, "ncoords must be > 0");
        }
        let label = if coord_label.is_null() || (*coord_label).is_null() {
            "value".to_string()
        } else {
            cstr(*coord_label).into_owned()
        };
        let ins = slice(in_coord_val, ncoords);
        let outs = slice(out_coord_val as *const c_int, ncoords);
        add_map(
            w,
            YCoordMap {
                title: cstr(class_name).into_owned(),
                column_labels: vec![label],
                rows: ins.iter().zip(outs).map(|(a, b)| (*a, vec![*b])).collect(),
                methods: Vec::new(),
            },
        )
    })
}

/// A y-coordinate map: `nrows` rows of `ncols` ints row-major (line ID first),
/// `ncols - 1` column labels, method IDs (1 = CONNECT_COMPOSITE_STATE).
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
    with_w(fp, |w| {
        nonnull!(title, elems);
        if nrows < 1 || ncols < 2 || nmethods < 0 || (nmethods > 0 && methods.is_null()) {
            return err(
                SLOG2_ERR_BAD_ARG,
                "need nrows >= 1, ncols >= 2, valid methods",
            );
        }
        nonnull!(column_labels);
        let mut labels = Vec::new();
        for i in 0..(ncols - 1) as usize {
            let p = *column_labels.add(i);
            if p.is_null() {
                return err(SLOG2_ERR_NULL_ARG, "NULL column label");
            }
            labels.push(cstr(p).into_owned());
        }
        let Some(n) = (nrows as usize).checked_mul(ncols as usize) else {
            return err(SLOG2_ERR_BAD_ARG, "too large");
        };
        let e = std::slice::from_raw_parts(elems, n);
        let rows = e
            .chunks_exact(ncols as usize)
            .map(|r| (r[0], r[1..].to_vec()))
            .collect();
        add_map(
            w,
            YCoordMap {
                title: cstr(title).into_owned(),
                column_labels: labels,
                rows,
                methods: slice(methods, nmethods).to_vec(),
            },
        )
    })
}

fn add_drawable(w: &mut WriterState, stated: TimeBox, d: Drawable) -> c_int {
    let b = d.time_box();
    if b.start != stated.start || b.end != stated.end {
        return err(
            SLOG2_ERR_BAD_ARG,
            &format!(
                "starttime/endtime ({}, {}) must equal the vertex envelope ({}, {})",
                stated.start, stated.end, b.start, b.end
            ),
        );
    }
    w.started = true;
    with_writer(w, |wr| wr.add_drawable(d))
}

/// Add a primitive: `nt_coords` vertex times and as many line IDs
/// (`ny_coords == nt_coords`), `ntext` info payload bytes (big-endian values
/// for the category's label tokens). `starttime`/`endtime` must equal the
/// envelope of the times. Drawables must come in non-decreasing end time
/// (else SLOG2_ERR_ORDER).
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
    with_w(fp, |w| {
        nonnull!(t_coord, y_coord);
        if nt_coords < 1 || ny_coords != nt_coords || ntext < 0 || (ntext > 0 && text.is_null()) {
            return err(
                SLOG2_ERR_BAD_ARG,
                "need nt_coords >= 1, ny_coords == nt_coords, ntext >= 0",
            );
        }
        let ts = slice(t_coord, nt_coords);
        let ys = slice(y_coord, ny_coords);
        let p = Primitive::new(
            category_index,
            ts.iter()
                .zip(ys)
                .map(|(t, y)| Vertex::new(*t, *y))
                .collect::<crate::model::Vertices>(),
            slice(text as *const u8, ntext),
        );
        add_drawable(w, TimeBox::new(starttime, endtime), Drawable::Primitive(p))
    })
}

/// Add a composite of `nmembers` primitives. Member i has category
/// `member_category[i]`, `member_nverts[i]` vertices taken in order from
/// `t_coord`/`y_coord`, and `member_ninfo[i]` info bytes taken in order from
/// `member_info` (may be NULL when all are 0).
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
    with_w(fp, |w| {
        nonnull!(
            member_category,
            member_nverts,
            t_coord,
            y_coord,
            member_ninfo
        );
        if nmembers < 1 || ninfo < 0 || (ninfo > 0 && info.is_null()) {
            return err(
                SLOG2_ERR_BAD_ARG,
                "need nmembers >= 1 and a valid info array",
            );
        }
        let cats = slice(member_category, nmembers);
        let nv = slice(member_nverts, nmembers);
        let ni = slice(member_ninfo, nmembers);
        if nv.iter().any(|&n| n < 1) || ni.iter().any(|&n| n < 0) {
            return err(
                SLOG2_ERR_BAD_ARG,
                "member vertex counts must be >= 1 and info sizes >= 0",
            );
        }
        let total_v: usize = nv.iter().map(|&n| n as usize).sum();
        let total_i: usize = ni.iter().map(|&n| n as usize).sum();
        if total_i > 0 && member_info.is_null() {
            return err(SLOG2_ERR_NULL_ARG, "member_info is NULL");
        }
        let ts = std::slice::from_raw_parts(t_coord, total_v);
        let ys = std::slice::from_raw_parts(y_coord, total_v);
        let infos: &[u8] = if total_i > 0 {
            std::slice::from_raw_parts(member_info as *const u8, total_i)
        } else {
            &[]
        };
        let (mut v0, mut i0) = (0usize, 0usize);
        let mut members = Vec::with_capacity(nmembers as usize);
        for k in 0..nmembers as usize {
            let (n, m) = (nv[k] as usize, ni[k] as usize);
            members.push(Primitive::new(
                cats[k],
                (v0..v0 + n)
                    .map(|j| Vertex::new(ts[j], ys[j]))
                    .collect::<crate::model::Vertices>(),
                infos[i0..i0 + m].to_vec(),
            ));
            v0 += n;
            i0 += m;
        }
        let c = Composite {
            category: category_index,
            info: slice(info as *const u8, ninfo).into(),
            members,
        };
        add_drawable(w, TimeBox::new(starttime, endtime), Drawable::Composite(c))
    })
}

/// Tree-node grouping hint. The library always builds the tree itself (the
/// reference algorithm); start/end calls only have to nest properly, which is
/// checked (an end without a start, or a start left open at close, is
/// SLOG2_ERR_STATE and no file is written).
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Write_start_treenode(fp: SLOG2_File) -> c_int {
    with_w(fp, |w| {
        w.open_nodes += 1;
        SLOG2_OK
    })
}

/// Closes a SLOG2_Write_start_treenode group (see there).
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Write_end_treenode(fp: SLOG2_File) -> c_int {
    with_w(fp, |w| {
        if w.open_nodes == 0 {
            return err(SLOG2_ERR_STATE, "SLOG2_Write_end_treenode without a start");
        }
        w.open_nodes -= 1;
        SLOG2_OK
    })
}

/// The directory the caller expects (root first, as SLOG2_Read_dir returns
/// it; depth, xpos and time boxes are compared, the other fields ignored).
/// SLOG2_Close checks it against the tree actually built and, if they differ,
/// returns SLOG2_ERR_STATE and leaves no file.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Write_dir(
    fp: SLOG2_File,
    dir: *const SLOG2_Treedir_node,
    n_nodes: c_int,
) -> c_int {
    with_w(fp, |w| {
        nonnull!(dir);
        if n_nodes < 1 {
            return err(SLOG2_ERR_BAD_ARG, "n_nodes must be >= 1");
        }
        w.dir = Some(slice(dir, n_nodes).to_vec());
        SLOG2_OK
    })
}

// ---------------------------------------------------------------------------
// Input API

/// Version text into `description` (NUL-terminated) and `*version` = 206.
/// Returns the negative of the needed length (with the NUL) and writes
/// nothing when `maxdesclen` is too small.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Get_header(
    fp: SLOG2_File,
    description: *mut c_char,
    maxdesclen: c_int,
    version: *mut c_int,
) -> c_int {
    with_r(fp, |r| {
        nonnull!(description, version);
        let h = r.file.header();
        let text = format!(
            "{} (children per node {}, leaf size {} bytes, depth {})",
            h.version, h.num_children_per_node, h.treeleaf_bytesize, h.max_treedepth
        );
        if (maxdesclen as i64) < text.len() as i64 + 1 {
            return -(text.len() as c_int + 1);
        }
        put_cstr(description, maxdesclen as usize, &text);
        *version = 206;
        SLOG2_OK
    })
}

/// Time range of the whole file (the root node's box).
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Get_total_time(
    fp: SLOG2_File,
    starttime: *mut f64,
    endtime: *mut f64,
) -> c_int {
    with_r(fp, |r| {
        nonnull!(starttime, endtime);
        let b = r.file.total_time();
        *starttime = b.start;
        *endtime = b.end;
        SLOG2_OK
    })
}

fn treedir(f: &Slog2File) -> Vec<SLOG2_Treedir_node> {
    let n = f.header().num_children_per_node as i32;
    let dir: &[DirEntry] = f.directory();
    let mut idx = std::collections::HashMap::new();
    // Root first, then depth descending / xpos ascending (file order).
    let mut order: Vec<&DirEntry> = dir.iter().collect();
    order.sort_by(|a, b| b.id.depth.cmp(&a.id.depth).then(a.id.xpos.cmp(&b.id.xpos)));
    for (i, e) in order.iter().enumerate() {
        idx.insert(e.id, i as c_int);
    }
    order
        .iter()
        .map(|e| {
            let parent = idx.get(&e.id.parent(n)).copied().unwrap_or(-1);
            let kids: Vec<c_int> = if e.id.depth > 0 {
                (0..n)
                    .filter_map(|k| {
                        idx.get(&NodeId::new(e.id.depth - 1, e.id.xpos * n + k))
                            .copied()
                    })
                    .collect()
            } else {
                Vec::new()
            };
            SLOG2_Treedir_node {
                depth: e.id.depth as c_int,
                xpos: e.id.xpos,
                earliest_time: e.time_box.start,
                latest_time: e.time_box.end,
                block_offset: e.ptr.offset,
                block_size: e.ptr.size,
                parent: if *e == f.root() { -1 } else { parent },
                lchild: kids.first().copied().unwrap_or(-1),
                rchild: kids.last().copied().unwrap_or(-1),
            }
        })
        .collect()
}

/// The tree directory, root first (`dir[0]`, parent -1). `*n_nodes` gets the
/// number of nodes; SLOG2_ERR_ARRAY_TOO_SMALL (nothing written) when `maxtree`
/// is smaller — call with `maxtree` 0 to learn the size.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Read_dir(
    fp: SLOG2_File,
    dir: *mut SLOG2_Treedir_node,
    maxtree: c_int,
    n_nodes: *mut c_int,
) -> c_int {
    with_r(fp, |r| {
        nonnull!(n_nodes);
        let d = treedir(&r.file);
        *n_nodes = d.len() as c_int;
        if (maxtree as i64) < d.len() as i64 {
            return err(
                SLOG2_ERR_ARRAY_TOO_SMALL,
                "maxtree is smaller than the number of nodes",
            );
        }
        nonnull!(dir);
        std::ptr::copy_nonoverlapping(d.as_ptr(), dir, d.len());
        SLOG2_OK
    })
}

/// The next category of the file (preview categories included, index < 0):
/// head, label characters into `text`, name characters into `legend`
/// (four-argument arrays, no NUL). SLOG2_ERR_EOF after the last one.
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
    with_r(fp, |r| {
        nonnull!(head);
        let Some(c) = r.file.categories().get(r.next_category) else {
            return err(SLOG2_ERR_EOF, "no more categories");
        };
        let label = c.info.label();
        let chk = room_code(
            room(text_pos, max_text, label.len(), text_base.is_null()),
            "text",
        )
        .and_then(|_| {
            room_code(
                room(legend_pos, max_legend, c.name.len(), legend_base.is_null()),
                "legend",
            )
        });
        if let Err(code) = chk {
            return code;
        }
        *head = SLOG2_Category_head_t {
            index: c.index,
            shape: c.topology as c_int,
            red: c.color.red as c_int,
            green: c.color.green as c_int,
            blue: c.color.blue as c_int,
            alpha: c.color.alpha as c_int,
            width: c.width as c_int,
            count: c.count,
            incl_ratio: c.incl_ratio,
            excl_ratio: c.excl_ratio,
        };
        let l: Vec<c_char> = label.bytes().map(|b| b as c_char).collect();
        let n: Vec<c_char> = c.name.bytes().map(|b| b as c_char).collect();
        put(std::ptr::null_mut(), text_base, text_pos, &l);
        put(std::ptr::null_mut(), legend_base, legend_pos, &n);
        r.next_category += 1;
        SLOG2_OK
    })
}

fn all(r: &mut ReaderState) -> Result<&Vec<Drawable>, c_int> {
    if r.all.is_none() {
        let mut v: Vec<Drawable> = match r.file.drawables().collect::<crate::Result<_>>() {
            Ok(v) => v,
            Err(e) => return Err(fail(e)),
        };
        v.sort_by(Drawable::drawing_cmp);
        r.all = Some(v);
    }
    Ok(r.all.as_ref().expect("set above"))
}

fn nverts(d: &Drawable) -> usize {
    d.primitives().iter().map(|p| p.vertices.len()).sum()
}

/// Time box and sizes of the next drawable in drawing order: `nt_coords` and
/// `ny_coords` = its vertices (a composite: all members' vertices), `n_text` =
/// info payload bytes. SLOG2_ERR_EOF at the end. (The first call loads every
/// drawable of the file; for large files use SLOG2_Query_window.)
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Peek_next_drawable(
    fp: SLOG2_File,
    starttime: *mut f64,
    endtime: *mut f64,
    nt_coords: *mut c_int,
    ny_coords: *mut c_int,
    n_text: *mut c_int,
) -> c_int {
    with_r(fp, |r| {
        nonnull!(starttime, endtime, nt_coords, ny_coords, n_text);
        let pos = r.pos;
        let v = match all(r) {
            Ok(v) => v,
            Err(c) => return c,
        };
        let Some(d) = v.get(pos) else {
            return err(SLOG2_ERR_EOF, "no more drawables");
        };
        let b = d.time_box();
        *starttime = b.start;
        *endtime = b.end;
        *nt_coords = nverts(d) as c_int;
        *ny_coords = nverts(d) as c_int;
        *n_text = d.info().len() as c_int;
        SLOG2_OK
    })
}

/// The next drawable: box, category, `ncoords` = 2 × vertices doubles written
/// as `(time, lineID)` pairs into `coord_base`, and the info payload into
/// `text_base` (four-argument arrays). Advances the position.
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
    with_r(fp, |r| {
        nonnull!(starttime, endtime, category_index, ncoords);
        let pos = r.pos;
        let v = match all(r) {
            Ok(v) => v,
            Err(c) => return c,
        };
        let Some(d) = v.get(pos) else {
            return err(SLOG2_ERR_EOF, "no more drawables");
        };
        let mut coords: Vec<f64> = Vec::with_capacity(2 * nverts(d));
        for v in d.primitives().iter().flat_map(|p| p.vertices.iter()) {
            coords.push(v.time);
            coords.push(v.line as f64);
        }
        let info: Vec<c_char> = d.info().iter().map(|&b| b as c_char).collect();
        let chk = room_code(
            room(coord_pos, coord_max, coords.len(), coord_base.is_null()),
            "coords",
        )
        .and_then(|_| {
            room_code(
                room(text_pos, text_max, info.len(), text_base.is_null()),
                "text",
            )
        });
        if let Err(code) = chk {
            return code;
        }
        let b = d.time_box();
        *starttime = b.start;
        *endtime = b.end;
        *category_index = d.category();
        put(ncoords, coord_base, coord_pos, &coords);
        put(std::ptr::null_mut(), text_base, text_pos, &info);
        r.pos += 1;
        SLOG2_OK
    })
}

/// Index of the next drawable of SLOG2_Get_next_drawable; -1 on a bad handle.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Get_position(fp: SLOG2_File) -> i64 {
    let mut out: i64 = -1;
    let code = with_r(fp, |r| {
        out = r.pos as i64;
        SLOG2_OK
    });
    if code == SLOG2_OK {
        out
    } else {
        -1
    }
}

/// Set the drawable position (draft form: no result; see SLOG2_Set_position_ex).
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Set_position(fp: SLOG2_File, offset: i64) {
    let _ = SLOG2_Set_position_ex(fp, offset);
}

/// Set the drawable position; SLOG2_ERR_BAD_ARG if outside `0..=count`.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Set_position_ex(fp: SLOG2_File, offset: i64) -> c_int {
    with_r(fp, |r| {
        let n = match all(r) {
            Ok(v) => v.len() as i64,
            Err(c) => return c,
        };
        if offset < 0 || offset > n {
            return err(SLOG2_ERR_BAD_ARG, "position out of range");
        }
        r.pos = offset as usize;
        SLOG2_OK
    })
}

/// Bytes an info payload needs for `tokens`, reading `%s` lengths from `p`.
unsafe fn payload_len(tokens: &[u8], p: *const u8) -> usize {
    let mut n = 0usize;
    for t in tokens {
        n += match t {
            b'h' => 2,
            b'd' | b'x' | b'e' => 4,
            b'l' | b'X' | b'E' => 8,
            b's' => {
                let len = i16::from_be_bytes([*p.add(n), *p.add(n + 1)]);
                2 + len.max(0) as usize
            }
            _ => return n,
        };
    }
    n
}

/// Draft form: popup text of a payload for `category_index` into
/// `instance_text` (NUL-terminated, truncated to `text_max`). The payload
/// length is derived from the category's tokens (the draft passes none);
/// prefer SLOG2_Get_drawable_text_ex.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Get_drawable_text(
    fp: SLOG2_File,
    category_index: c_int,
    drawable_text: *const c_char,
    instance_text: *mut c_char,
    text_max: c_int,
) {
    let _ = with_r(fp, |r| {
        nonnull!(instance_text);
        if text_max <= 0 {
            return err(SLOG2_ERR_BAD_ARG, "text_max must be > 0");
        }
        let cat = r.file.category_or_unknown(category_index);
        let n = if drawable_text.is_null() {
            0
        } else {
            payload_len(&cat.info.tokens, drawable_text as *const u8)
        };
        let bytes = slice(drawable_text as *const u8, n as c_int);
        let text = crate::read::format_info(Some(&cat), bytes);
        let mut t = text.as_str();
        while t.len() + 1 > text_max as usize {
            let mut cut = t.len() - 1;
            while !t.is_char_boundary(cut) {
                cut -= 1;
            }
            t = &t[..cut];
        }
        put_cstr(instance_text, text_max as usize, t);
        SLOG2_OK
    });
}

/// Popup text of `ninfo` payload bytes for `category_index`, NUL-terminated
/// into `out` (SLOG2_ERR_ARRAY_TOO_SMALL when it does not fit; nothing written).
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Get_drawable_text_ex(
    fp: SLOG2_File,
    category_index: c_int,
    info: *const c_char,
    ninfo: c_int,
    out: *mut c_char,
    out_max: c_int,
) -> c_int {
    with_r(fp, |r| {
        nonnull!(out);
        if ninfo < 0 || (ninfo > 0 && info.is_null()) || out_max < 0 {
            return err(SLOG2_ERR_BAD_ARG, "bad info or out_max");
        }
        let cat = r.file.category_or_unknown(category_index);
        let text = crate::read::format_info(Some(&cat), slice(info as *const u8, ninfo));
        if !put_cstr(out, out_max as usize, &text) {
            return err(SLOG2_ERR_ARRAY_TOO_SMALL, "out_max too small for the text");
        }
        SLOG2_OK
    })
}

/// Number of y-coordinate maps in the file (the generated Identity Map included).
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Get_ycoordmap_count(fp: SLOG2_File, n_maps: *mut c_int) -> c_int {
    with_r(fp, |r| {
        nonnull!(n_maps);
        *n_maps = r.file.ycoordmaps().len() as c_int;
        SLOG2_OK
    })
}

/// Map `i`: title (NUL-terminated into `title`, `title_max` bytes), shape,
/// elements row-major (line ID first) through a four-argument array.
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
    with_r(fp, |r| {
        nonnull!(title, n_rows, n_columns, n_elems);
        let Some(m) = usize::try_from(i)
            .ok()
            .and_then(|i| r.file.ycoordmaps().get(i))
        else {
            return err(SLOG2_ERR_BAD_ARG, "no such map");
        };
        let elems: Vec<c_int> = m
            .rows
            .iter()
            .flat_map(|(l, v)| std::iter::once(*l).chain(v.iter().copied()))
            .collect();
        if let Err(c) = room_code(
            room(elem_pos, elem_max, elems.len(), elem_base.is_null()),
            "elems",
        ) {
            return c;
        }
        if title_max < 0 || !put_cstr(title, title_max as usize, &m.title) {
            return err(SLOG2_ERR_ARRAY_TOO_SMALL, "title buffer too small");
        }
        *n_rows = m.rows.len() as c_int;
        *n_columns = m.column_labels.len() as c_int + 1;
        put(n_elems, elem_base, elem_pos, &elems);
        SLOG2_OK
    })
}

/// Label of value column `col` (0-based, the line-ID column excluded) of map `i`.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Get_ycoordmap_label(
    fp: SLOG2_File,
    i: c_int,
    col: c_int,
    label: *mut c_char,
    label_max: c_int,
) -> c_int {
    with_r(fp, |r| {
        nonnull!(label);
        let Some(m) = usize::try_from(i)
            .ok()
            .and_then(|i| r.file.ycoordmaps().get(i))
        else {
            return err(SLOG2_ERR_BAD_ARG, "no such map");
        };
        let Some(l) = usize::try_from(col)
            .ok()
            .and_then(|c| m.column_labels.get(c))
        else {
            return err(SLOG2_ERR_BAD_ARG, "no such column");
        };
        if label_max < 0 || !put_cstr(label, label_max as usize, l) {
            return err(SLOG2_ERR_ARRAY_TOO_SMALL, "label buffer too small");
        }
        SLOG2_OK
    })
}

/// Row kinds in query results.
pub const SLOG2_KIND_PRIMITIVE: c_int = 0;
pub const SLOG2_KIND_COMPOSITE: c_int = 1;
pub const SLOG2_KIND_SHADOW: c_int = 2;

/// Column outputs of a query; any column pointer may be NULL to skip it.
#[repr(C)]
pub struct SLOG2_Query_columns {
    /// SLOG2_KIND_PRIMITIVE, _COMPOSITE or _SHADOW.
    pub kind: *mut c_int,
    pub category: *mut c_int,
    pub start: *mut f64,
    pub end: *mut f64,
    /// Line ID of the first and of the last vertex.
    pub line0: *mut c_int,
    pub line1: *mut c_int,
    /// Primitives summarised (shadows), members (composites), 1 (primitives).
    pub num_real: *mut i64,
    /// Offset of the row's info bytes in `info_base` (-1 when none), and their count.
    pub info_offset: *mut c_int,
    pub info_len: *mut c_int,
    /// Time of the first and of the last vertex (shadows: box start and end):
    /// an arrow goes from (time0, line0) to (time1, line1), whatever the box.
    pub time0: *mut f64,
    pub time1: *mut f64,
    /// Row of the composite a member row belongs to (members follow their
    /// composite's row), else -1.
    pub parent: *mut c_int,
}

unsafe fn fill_rows(
    rows: &Rows,
    n_out: *mut c_int,
    cols: *const SLOG2_Query_columns,
    pos: *mut c_int,
    max: c_int,
    info_base: *mut c_char,
    info_pos: *mut c_int,
    info_max: c_int,
) -> c_int {
    if n_out.is_null() || cols.is_null() {
        return err(SLOG2_ERR_NULL_ARG, "NULL n_out or columns");
    }
    let n = rows.len();
    let (Ok(n_c), Ok(_)) = (c_int::try_from(n), c_int::try_from(rows.info.len())) else {
        return err(
            SLOG2_ERR_BAD_ARG,
            "the query result exceeds 2^31 rows or info bytes",
        );
    };
    if let Err(c) = room_code(room(pos, max, n, false), "rows") {
        *n_out = n_c;
        return c;
    }
    if let Err(c) = room_code(
        room(info_pos, info_max, rows.info.len(), info_base.is_null()),
        "info",
    ) {
        *n_out = n_c;
        return c;
    }
    let c = &*cols;
    let p0 = *pos as usize;
    let ip0 = *info_pos;
    macro_rules! col {
        ($col:ident, $src:expr) => {
            if !c.$col.is_null() {
                for (k, v) in $src.enumerate() {
                    *c.$col.add(p0 + k) = v;
                }
            }
        };
    }
    col!(kind, rows.kind.iter().map(|&k| k as c_int));
    col!(category, rows.category.iter().copied());
    col!(start, rows.start.iter().copied());
    col!(end, rows.end.iter().copied());
    col!(time0, rows.time0.iter().copied());
    col!(time1, rows.time1.iter().copied());
    col!(line0, rows.line0.iter().copied());
    col!(line1, rows.line1.iter().copied());
    col!(parent, rows.parent.iter().copied());
    col!(num_real, rows.num_real.iter().copied());
    let spans = rows.info_offset.windows(2);
    col!(
        info_offset,
        spans
            .clone()
            .map(|w| if w[1] > w[0] { ip0 + w[0] as c_int } else { -1 })
    );
    col!(info_len, spans.map(|w| (w[1] - w[0]) as c_int));
    if !rows.info.is_empty() {
        std::ptr::copy_nonoverlapping(
            rows.info.as_ptr() as *const c_char,
            info_base.add(ip0 as usize),
            rows.info.len(),
        );
    }
    *pos += n_c;
    *info_pos += rows.info.len() as c_int;
    *n_out = n_c;
    SLOG2_OK
}

fn put_stats(stats: *mut SLOG2_Query_stats, rows: &Rows) {
    if !stats.is_null() {
        // SAFETY: checked non-null; the caller passes a valid struct pointer.
        unsafe {
            *stats = SLOG2_Query_stats {
                nodes_read: c_int::try_from(rows.stats.nodes_read).unwrap_or(c_int::MAX),
                bytes_read: i64::try_from(rows.stats.bytes_read).unwrap_or(i64::MAX),
            };
        }
    }
}

/// Every drawable whose time box intersects `[t0, t1]`, in drawing order, one
/// row each (a composite row is followed by its members' rows), written in
/// columns at `pos` (capacity `max` rows) with info bytes packed into
/// `info_base`. On SLOG2_ERR_ARRAY_TOO_SMALL nothing is written and `*n_out`
/// holds the rows needed (so a first call with `max` 0 sizes the arrays;
/// SLOG2_Query_window_size gives both sizes). `stats` (may be NULL) gets the
/// nodes and bytes the query read.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Query_window(
    fp: SLOG2_File,
    t0: f64,
    t1: f64,
    n_out: *mut c_int,
    columns: *const SLOG2_Query_columns,
    pos: *mut c_int,
    max: c_int,
    info_base: *mut c_char,
    info_pos: *mut c_int,
    info_max: c_int,
    stats: *mut SLOG2_Query_stats,
) -> c_int {
    with_r(fp, |r| match r.file.window_rows(t0, t1) {
        Ok(rows) => {
            put_stats(stats, &rows);
            fill_rows(
                &rows, n_out, columns, pos, max, info_base, info_pos, info_max,
            )
        }
        Err(e) => fail(e),
    })
}

fn query_rows(file: &Slog2File, t0: f64, t1: f64, depth: c_int) -> crate::Result<Rows> {
    if depth < 0 {
        file.window_rows(t0, t1)
    } else {
        file.preview_rows(t0, t1, depth)
    }
}

/// Rows and info bytes SLOG2_Query_window (depth < 0) or SLOG2_Query_preview
/// (depth >= 0) would return.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Query_window_size(
    fp: SLOG2_File,
    t0: f64,
    t1: f64,
    depth: c_int,
    n_rows: *mut c_int,
    n_info_bytes: *mut c_int,
) -> c_int {
    with_r(fp, |r| {
        nonnull!(n_rows, n_info_bytes);
        match query_rows(&r.file, t0, t1, depth) {
            Ok(rows) => {
                let (Ok(n), Ok(ni)) = (
                    c_int::try_from(rows.len()),
                    c_int::try_from(rows.info.len()),
                ) else {
                    return err(
                        SLOG2_ERR_BAD_ARG,
                        "the query result exceeds 2^31 rows or info bytes",
                    );
                };
                *n_rows = n;
                *n_info_bytes = ni;
                SLOG2_OK
            }
            Err(e) => fail(e),
        }
    })
}

/// Zoomed-out view: reads only tree levels >= `depth` intersecting the window;
/// rows are their real drawables, then the shadows (kind SLOG2_KIND_SHADOW,
/// category -1/-2/-3, num_real) summarising the levels below. Same array
/// conventions as SLOG2_Query_window; per-category weights of the shadows:
/// SLOG2_Query_preview_weights. `depth` 0 is full detail; a depth above the
/// root's reads just the root.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Query_preview(
    fp: SLOG2_File,
    t0: f64,
    t1: f64,
    depth: c_int,
    n_out: *mut c_int,
    columns: *const SLOG2_Query_columns,
    pos: *mut c_int,
    max: c_int,
    info_base: *mut c_char,
    info_pos: *mut c_int,
    info_max: c_int,
    stats: *mut SLOG2_Query_stats,
) -> c_int {
    with_r(fp, |r| {
        if depth < 0 {
            return err(SLOG2_ERR_BAD_ARG, "depth must be >= 0");
        }
        match r.file.preview_rows(t0, t1, depth) {
            Ok(rows) => {
                put_stats(stats, &rows);
                fill_rows(
                    &rows, n_out, columns, pos, max, info_base, info_pos, info_max,
                )
            }
            Err(e) => fail(e),
        }
    })
}

/// Weights of the shadows of SLOG2_Query_preview (same t0, t1, depth): one
/// entry per (shadow, category): `shadow` = the shadow's row in the preview's
/// rows (0-based), category, inclusive and exclusive ratio, count; grouped by
/// row ascending. Four-argument convention on `pos`/`max`; on
/// SLOG2_ERR_ARRAY_TOO_SMALL `*n_out` holds the entries needed.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Query_preview_weights(
    fp: SLOG2_File,
    t0: f64,
    t1: f64,
    depth: c_int,
    n_out: *mut c_int,
    shadow: *mut c_int,
    category: *mut c_int,
    incl: *mut f32,
    excl: *mut f32,
    count: *mut i64,
    pos: *mut c_int,
    max: c_int,
) -> c_int {
    with_r(fp, |r| {
        nonnull!(n_out);
        if depth < 0 {
            return err(SLOG2_ERR_BAD_ARG, "depth must be >= 0");
        }
        let rows = match r.file.preview_rows(t0, t1, depth) {
            Ok(p) => p,
            Err(e) => return fail(e),
        };
        let ws = &rows.weights;
        let Ok(n) = c_int::try_from(ws.len()) else {
            return err(SLOG2_ERR_BAD_ARG, "more than 2^31 weights");
        };
        let any_null = shadow.is_null()
            || category.is_null()
            || incl.is_null()
            || excl.is_null()
            || count.is_null();
        if let Err(c) = room_code(room(pos, max, ws.len(), any_null), "weights") {
            *n_out = n;
            return c;
        }
        let p0 = *pos as usize;
        for k in 0..ws.len() {
            *shadow.add(p0 + k) = ws.row[k];
            *category.add(p0 + k) = ws.category[k];
            *incl.add(p0 + k) = ws.incl[k];
            *excl.add(p0 + k) = ws.excl[k];
            *count.add(p0 + k) = ws.count[k];
        }
        *pos += n;
        *n_out = n;
        SLOG2_OK
    })
}

/// Static text for an SLOG2 return code.
#[no_mangle]
pub extern "C" fn SLOG2_Get_err_string(ierr: c_int) -> *const c_char {
    let s: &CStr = match ierr {
        SLOG2_OK => c"success",
        SLOG2_ERR_NULL_ARG => c"a required pointer argument is NULL",
        SLOG2_ERR_BAD_HANDLE => c"unknown, closed or NULL SLOG2_File handle",
        SLOG2_ERR_WRONG_MODE => c"the call needs a file open in the other mode",
        SLOG2_ERR_ARRAY_TOO_SMALL => c"an output array is too small; nothing was written",
        SLOG2_ERR_BAD_ARG => c"an argument is out of range",
        SLOG2_ERR_IO => c"I/O error",
        SLOG2_ERR_FORMAT => c"not a valid SLOG-2 2.0.6 file",
        SLOG2_ERR_ORDER => c"drawables must come in non-decreasing end time",
        SLOG2_ERR_EOF => c"no more items",
        SLOG2_ERR_STATE => c"call not allowed in the current state",
        SLOG2_ERR_NO_DRAWABLES => c"no drawable was written; no file created",
        SLOG2_ERR_PANIC => c"internal error (caught at the C boundary)",
        _ if ierr < 0 => c"buffer too small: the negative value is the needed length",
        _ => c"unknown error code",
    };
    s.as_ptr()
}

/// Detail of the last error on the calling thread (file, record, byte
/// offset...); "" when none. Valid until the next failing call on this thread.
#[no_mangle]
pub extern "C" fn SLOG2_Get_last_error() -> *const c_char {
    last_error_ptr()
}
