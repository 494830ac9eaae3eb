//! The SLOG2 C API: write and read SLOG-2 files from C.
//!
//! Names and argument order follow the SLOG-2 design draft (Appendices C and
//! D); where a draft signature is not valid C or cannot express something, the
//! nearest valid form is used and an `_ex` variant added (see each function).
//! Viewers get bulk calls: a time-window query and a preview that fill caller
//! arrays in columns ([`::slog2::read::Rows`]), one call per screen.
//!
//! Return codes: `SLOG2_OK` (0) or one of the positive `SLOG2_ERR_*` codes;
//! `SLOG2_Get_err_string` gives static text, `SLOG2_Get_last_error` the
//! detail of the last error on the calling thread (file, record, byte offset).
//! Every function can also return `SLOG2_ERR_PANIC` (an internal error caught
//! at the boundary); each function's comment lists its other codes.
//!
//! Handles: one `SLOG2_File` type for both modes, because the draft's API
//! opens both with `SLOG2_Open(name, mode)`; a call for the other mode
//! returns `SLOG2_ERR_WRONG_MODE`. Thread safety: any function may be called
//! from any thread. Calls on one writer serialise on that writer's lock; on a
//! reader, queries (`SLOG2_Query_*`, popup text, metadata) run concurrently,
//! and only the sequential cursor (`Get_next_*`, positions) takes a lock.
//! Different handles never wait for each other.

#![allow(non_camel_case_types, non_snake_case)]

use std::ffi::{c_char, c_int, CStr};
use std::path::PathBuf;
use std::sync::Mutex;

use super::{
    bytes_in, c_len, cbuf, cstr, cstr_list, entry, fail, fail_with, input, last_error_ptr, lock,
    opt_cstr, out, room, set_opt, slice_in, slice_n, slots, write_cstr, Api, Registry, Res,
};
use ::slog2::error::{Error, ErrorKind};
use ::slog2::model::*;
use ::slog2::read::{Rows, RowsRef, Slog2File};
use ::slog2::write::{Slog2Writer, WriterOptions};

/// Success.
pub const SLOG2_OK: c_int = 0;
/// A required pointer argument is NULL.
pub const SLOG2_ERR_NULL_ARG: c_int = 1;
/// Unknown, closed or NULL `SLOG2_File` handle (or a TRACE handle).
pub const SLOG2_ERR_BAD_HANDLE: c_int = 2;
/// The call needs the other mode ('r' vs 'w').
pub const SLOG2_ERR_WRONG_MODE: c_int = 3;
/// An output array is too small; nothing was written.
pub const SLOG2_ERR_ARRAY_TOO_SMALL: c_int = 4;
/// An argument is out of range (negative size, unknown mode, bad time box...).
pub const SLOG2_ERR_BAD_ARG: c_int = 5;
/// Operating-system I/O error (the detail names the file).
pub const SLOG2_ERR_IO: c_int = 6;
/// The file is not a valid SLOG-2 2.0.6 file (the detail gives the byte offset).
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
/// A trace record could not be parsed (the detail gives file:line:column).
pub const SLOG2_ERR_PARSE: c_int = 13;
/// A drawable breaks a rule of the format (box, vertices, category, info payload).
pub const SLOG2_ERR_INVALID_DRAWABLE: c_int = 14;
/// The request is valid but not supported by this implementation.
pub const SLOG2_ERR_UNSUPPORTED: c_int = 15;
/// A trace source (e.g. an external TRACE-API library) reported an error.
pub const SLOG2_ERR_SOURCE: c_int = 16;

/// The SLOG2 API's codes.
pub(crate) struct Slog2Api;

impl Api for Slog2Api {
    const NULL_ARG: c_int = SLOG2_ERR_NULL_ARG;
    const BAD_ARG: c_int = SLOG2_ERR_BAD_ARG;
    const TOO_SMALL: c_int = SLOG2_ERR_ARRAY_TOO_SMALL;
    const PANIC: c_int = SLOG2_ERR_PANIC;

    fn code(e: &Error) -> c_int {
        match e.kind() {
            ErrorKind::Io => SLOG2_ERR_IO,
            ErrorKind::Format => SLOG2_ERR_FORMAT,
            ErrorKind::Order => SLOG2_ERR_ORDER,
            ErrorKind::InvalidDrawable => SLOG2_ERR_INVALID_DRAWABLE,
            ErrorKind::Parse => SLOG2_ERR_PARSE,
            ErrorKind::InvalidArgument => SLOG2_ERR_BAD_ARG,
            ErrorKind::Source => SLOG2_ERR_SOURCE,
            ErrorKind::NoDrawables => SLOG2_ERR_NO_DRAWABLES,
            ErrorKind::Unsupported => SLOG2_ERR_UNSUPPORTED,
            ErrorKind::Closed => SLOG2_ERR_BAD_HANDLE,
            ErrorKind::State => SLOG2_ERR_STATE,
        }
    }
}

type A = Slog2Api;

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

/// What a query read. Both depend only on the file and the window (not on
/// the node cache).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct SLOG2_Query_stats {
    /// Tree nodes whose time box intersects the window (their drawables
    /// were searched).
    pub nodes_read: c_int,
    /// Bytes of the drawables decoded: the records of the drawables
    /// returned (tags included), plus, for a preview, the bytes of the
    /// child stubs (which hold the shadows) decoded. Not the size of the
    /// nodes touched: a query decodes only the records that intersect the
    /// window (see the README, "Window queries").
    pub bytes_read: i64,
}

struct WriterState {
    path: PathBuf,
    writer: Option<Slog2Writer>,
    started: bool,
    categories_closed: bool,
    open_nodes: i32,
    dir: Option<Vec<SLOG2_Treedir_node>>,
}

/// The sequential input cursor of a reader (the draft's Get_next_* calls).
#[derive(Default)]
struct Cursor {
    next_category: usize,
    all: Option<Vec<Drawable>>,
    pos: usize,
}

struct Reader {
    /// Shared with the file's scans (SLOG2_Scan_open).
    file: std::sync::Arc<Slog2File>,
    cursor: Mutex<Cursor>,
}

// One per open file, behind an Arc: the variants' sizes do not matter.
#[allow(clippy::large_enum_variant)]
enum Handle {
    /// `None` once closed by another thread's SLOG2_Close.
    W(Mutex<Option<WriterState>>),
    R(Reader),
}

static FILES: Registry<Handle> = Registry::new();

fn handle(fp: SLOG2_File) -> Res<std::sync::Arc<Handle>> {
    if fp.is_null() {
        return Err(fail(SLOG2_ERR_BAD_HANDLE, "NULL SLOG2_File handle"));
    }
    FILES
        .get(fp as usize)
        .ok_or_else(|| fail(SLOG2_ERR_BAD_HANDLE, "unknown or closed SLOG2_File handle"))
}

/// Run `f` on a write-mode handle (under its lock).
fn writer(fp: SLOG2_File, f: impl FnOnce(&mut WriterState) -> Res<c_int>) -> c_int {
    entry::<A>(|| {
        let h = handle(fp)?;
        match &*h {
            Handle::W(m) => match lock(m).as_mut() {
                Some(w) => f(w),
                None => Err(fail(SLOG2_ERR_BAD_HANDLE, "the SLOG2_File was closed")),
            },
            Handle::R(_) => Err(fail(SLOG2_ERR_WRONG_MODE, "the file is open for reading")),
        }
    })
}

/// Run `f` on a read-mode handle (no lock: queries run concurrently).
fn reader(fp: SLOG2_File, f: impl FnOnce(&Reader) -> Res<c_int>) -> c_int {
    entry::<A>(|| {
        let h = handle(fp)?;
        match &*h {
            Handle::R(r) => f(r),
            Handle::W(_) => Err(fail(SLOG2_ERR_WRONG_MODE, "the file is open for writing")),
        }
    })
}

/// Run `f` on the file of a read-mode handle: the seam for query modules
/// of this crate that add SLOG2_* functions in files of their own.
#[allow(dead_code)] // until the first query module uses it
pub(crate) fn with_file(
    fp: SLOG2_File,
    f: impl FnOnce(&std::sync::Arc<Slog2File>) -> Res<c_int>,
) -> c_int {
    reader(fp, |r| f(&r.file))
}

/// A core result in this API's codes (the detail recorded).
pub(crate) fn core<T>(r: ::slog2::Result<T>) -> Res<T> {
    r.map_err(fail_with::<A>)
}

// ---------------------------------------------------------------------------
// Open / close

/// Open `filename` for writing (`mode` 'w') or reading ('r'). Writing goes to a
/// temporary file beside `filename`, renamed over it by SLOG2_Close. `*fp` is
/// set to the handle, or to NULL on failure.
/// Returns SLOG2_OK; SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_ARG (mode),
/// SLOG2_ERR_IO, SLOG2_ERR_FORMAT (reading a damaged or non-SLOG-2 file).
///
/// # Safety
/// `filename` is NULL or a NUL-terminated string; `fp` is NULL or valid for
/// writing one handle.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Open(
    filename: *const c_char,
    mode: c_char,
    fp: *mut SLOG2_File,
) -> c_int {
    entry::<A>(|| {
        // SAFETY: the caller's promise on `fp` (see # Safety).
        let fp = unsafe { out::<A, _>(fp, "fp") }?;
        *fp = std::ptr::null_mut();
        // SAFETY: the caller's promise on `filename`.
        let path = PathBuf::from(unsafe { cstr::<A>(filename, "filename") }?.into_owned());
        let h = match mode as u8 {
            b'w' | b'W' => {
                remove_temps_at_exit();
                let writer = core(Slog2Writer::create(&path, WriterOptions::default()))?;
                Handle::W(Mutex::new(Some(WriterState {
                    path,
                    writer: Some(writer),
                    started: false,
                    categories_closed: false,
                    open_nodes: 0,
                    dir: None,
                })))
            }
            b'r' | b'R' => Handle::R(Reader {
                file: std::sync::Arc::new(core(Slog2File::open(&path))?),
                cursor: Mutex::new(Cursor::default()),
            }),
            _ => return Err(fail(SLOG2_ERR_BAD_ARG, "mode must be 'r' or 'w'")),
        };
        *fp = FILES.insert(h) as SLOG2_File;
        Ok(SLOG2_OK)
    })
}

/// A C program that returns from `main` or calls `exit` without
/// SLOG2_Close leaves no temporary file: an `atexit` hook (registered once,
/// with the first write handle) removes those of unfinished writers.
fn remove_temps_at_exit() {
    extern "C" fn hook() {
        let _ = std::panic::catch_unwind(::slog2::write::temp::remove_temp_files);
    }
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: registers a function that takes no arguments and never
        // unwinds (panics are caught).
        unsafe {
            libc::atexit(hook);
        }
    });
}

/// Close and set `*fp` to NULL. Write mode: finishes the file (tree, categories,
/// maps, directory, header) and renames it into place; on any error no file is
/// left. Returns SLOG2_OK; SLOG2_ERR_NULL_ARG (`fp`), SLOG2_ERR_BAD_HANDLE
/// (unknown, closed: a second close), SLOG2_ERR_STATE (unbalanced tree-node
/// calls, a directory from SLOG2_Write_dir that differs), SLOG2_ERR_NO_DRAWABLES,
/// SLOG2_ERR_IO, SLOG2_ERR_INVALID_DRAWABLE.
///
/// # Safety
/// `fp` is NULL or valid for reading and writing one handle.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Close(fp: *mut SLOG2_File) -> c_int {
    entry::<A>(|| {
        // SAFETY: the caller's promise on `fp`.
        let fp = unsafe { out::<A, _>(fp, "fp") }?;
        if fp.is_null() {
            return Err(fail(SLOG2_ERR_BAD_HANDLE, "NULL SLOG2_File handle"));
        }
        let Some(h) = FILES.remove(*fp as usize) else {
            return Err(fail(
                SLOG2_ERR_BAD_HANDLE,
                "unknown or closed SLOG2_File handle",
            ));
        };
        *fp = std::ptr::null_mut();
        match &*h {
            Handle::R(_) => Ok(SLOG2_OK),
            Handle::W(m) => {
                let Some(mut w) = lock(m).take() else {
                    return Err(fail(SLOG2_ERR_BAD_HANDLE, "the SLOG2_File was closed"));
                };
                finish(&mut w)
            }
        }
    })
}

fn finish(w: &mut WriterState) -> Res<c_int> {
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
    const MISMATCH: &str =
        "the directory given to SLOG2_Write_dir does not match the tree built; no file written";
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
            Err(::slog2::Error::InvalidArgument(MISMATCH.into()))
        }
        _ => Ok(()),
    });
    match r {
        Err(::slog2::Error::InvalidArgument(m)) if m == MISMATCH => {
            Err(fail(SLOG2_ERR_STATE, MISMATCH))
        }
        r => core(r).map(|_| SLOG2_OK),
    }
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
    if b.start != stated.start || b.end != stated.end {
        return Err(fail(
            SLOG2_ERR_BAD_ARG,
            format!(
                "starttime/endtime ({}, {}) must equal the vertex envelope ({}, {})",
                stated.start, stated.end, b.start, b.end
            ),
        ));
    }
    w.started = true;
    with_writer(w, |wr| {
        // Payloads built by hand: checked against their category's format
        // (a short one was written and then rejected by `check`).
        wr.check_info(d.category(), d.info())?;
        if let Drawable::Composite(c) = &d {
            for m in &c.members {
                wr.check_info(m.category, &m.info)?;
            }
        }
        wr.add_drawable(d)
    })
}

/// Add a primitive: `nt_coords` vertex times and as many line IDs
/// (`ny_coords == nt_coords`), `ntext` info payload bytes (big-endian values
/// for the category's label tokens). `starttime`/`endtime` must equal the
/// envelope of the times. Returns SLOG2_OK; SLOG2_ERR_NULL_ARG,
/// SLOG2_ERR_BAD_ARG, SLOG2_ERR_ORDER (ends before the previous drawable),
/// SLOG2_ERR_INVALID_DRAWABLE, SLOG2_ERR_IO, SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE.
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

// ---------------------------------------------------------------------------
// Input API

/// Version text into `description` (NUL-terminated) and `*version` = 206.
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
/// (four-argument arrays, no NUL). Returns SLOG2_OK; SLOG2_ERR_EOF after the
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

/// Row kind: a primitive (top level, or a member after its composite's row).
pub const SLOG2_KIND_PRIMITIVE: c_int = 0;
/// Row kind: a composite (its members follow it).
pub const SLOG2_KIND_COMPOSITE: c_int = 1;
/// Row kind: a preview shadow.
pub const SLOG2_KIND_SHADOW: c_int = 2;
const _: () = assert!(
    SLOG2_KIND_PRIMITIVE == ::slog2::read::ROW_PRIMITIVE as c_int
        && SLOG2_KIND_COMPOSITE == ::slog2::read::ROW_COMPOSITE as c_int
        && SLOG2_KIND_SHADOW == ::slog2::read::ROW_SHADOW as c_int
);

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

/// Fill one optional column with `vals` at `pos` (room checked by the caller).
///
/// # Safety
/// `col` is NULL or valid for writes of `pos + n` elements.
unsafe fn column<T>(col: *mut T, pos: usize, vals: impl ExactSizeIterator<Item = T>) {
    if col.is_null() {
        return;
    }
    // SAFETY: room for `pos + vals.len()` elements (caller).
    let dst = unsafe { std::slice::from_raw_parts_mut(col.add(pos), vals.len()) };
    for (d, v) in dst.iter_mut().zip(vals) {
        *d = v;
    }
}

/// Write a query's rows into the caller's columns (see SLOG2_Query_window).
/// `parent_base` is added to the parent rows (0 for a query; a scan writing
/// several batches in one call numbers them from the call's first row).
///
/// # Safety
/// As SLOG2_Query_window's pointer arguments.
#[allow(clippy::too_many_arguments)]
unsafe fn fill_rows(
    rows: RowsRef<'_>,
    parent_base: c_int,
    range: std::ops::Range<usize>,
    n_out: *mut c_int,
    cols: *const SLOG2_Query_columns,
    pos: *mut c_int,
    max: c_int,
    info_base: *mut c_char,
    info_pos: *mut c_int,
    info_max: c_int,
    stats: *mut SLOG2_Query_stats,
) -> Res<c_int> {
    let (r0, r1) = (range.start, range.end);
    let (i0, i1) = (rows.info_offset[r0] as usize, rows.info_offset[r1] as usize);
    let info = &rows.info[i0..i1];
    let nrows = r1 - r0;
    let n = c_len::<A>(nrows, "rows")?;
    c_len::<A>(info.len(), "info bytes")?;
    // SAFETY: the caller's promises; every array is checked before writing.
    let (n_out, cols) = unsafe {
        (
            out::<A, _>(n_out, "n_out")?,
            input::<A, _>(cols, "columns")?,
        )
    };
    // The columns share `pos`/`max`; the info bytes have their own array.
    // SAFETY: as above.
    let checked = unsafe {
        room::<A>(pos, max, nrows, "rows").and_then(|p0| {
            slots::<A, c_char>(info_base, info_pos, info_max, info.len(), "info").map(|i| (p0, i))
        })
    };
    let (p0, info_room) = match checked {
        Ok(c) => c,
        Err(f) => {
            *n_out = n;
            return Err(f);
        }
    };
    // SAFETY: `info_pos` was checked non-NULL by `slots`.
    let ip0 = unsafe { *info_pos };
    let spans = rows.info_offset[r0..=r1].windows(2);
    let ib = i0 as u32;
    // SAFETY: each non-NULL column holds `max` >= p0 + n elements (caller,
    // checked against `max`); `pos` and `stats` as promised.
    unsafe {
        column(
            cols.kind,
            p0,
            rows.kind[r0..r1].iter().map(|&k| c_int::from(k)),
        );
        column(cols.category, p0, rows.category[r0..r1].iter().copied());
        column(cols.start, p0, rows.start[r0..r1].iter().copied());
        column(cols.end, p0, rows.end[r0..r1].iter().copied());
        column(cols.time0, p0, rows.time0[r0..r1].iter().copied());
        column(cols.time1, p0, rows.time1[r0..r1].iter().copied());
        column(cols.line0, p0, rows.line0[r0..r1].iter().copied());
        column(cols.line1, p0, rows.line1[r0..r1].iter().copied());
        // Parents relative to the range's first row, plus the caller's base.
        let pb = parent_base - r0 as c_int;
        column(
            cols.parent,
            p0,
            rows.parent[r0..r1]
                .iter()
                .map(|&p| if p >= 0 { p + pb } else { p }),
        );
        column(cols.num_real, p0, rows.num_real[r0..r1].iter().copied());
        column(
            cols.info_offset,
            p0,
            spans.clone().map(|w| {
                if w[1] > w[0] {
                    ip0 + (w[0] - ib) as c_int
                } else {
                    -1
                }
            }),
        );
        column(cols.info_len, p0, spans.map(|w| (w[1] - w[0]) as c_int));
        put_stats(stats, &rows);
        *pos += n;
    }
    info_room.fill(info.iter().map(|&b| b as c_char));
    *n_out = n;
    Ok(SLOG2_OK)
}

/// # Safety
/// `stats` is NULL or valid for one struct.
unsafe fn put_stats(stats: *mut SLOG2_Query_stats, rows: &RowsRef<'_>) {
    // SAFETY: forwarded.
    unsafe {
        set_opt(
            stats,
            SLOG2_Query_stats {
                nodes_read: c_int::try_from(rows.stats.nodes_read).unwrap_or(c_int::MAX),
                bytes_read: i64::try_from(rows.stats.bytes_read).unwrap_or(i64::MAX),
            },
        )
    };
}

/// Every drawable whose time box intersects `[t0, t1]`, in drawing order, one
/// row each (a composite row is followed by its members' rows), written in
/// columns at `pos` (capacity `max` rows) with info bytes packed into
/// `info_base`. On SLOG2_ERR_ARRAY_TOO_SMALL nothing is written and `*n_out`
/// holds the rows needed (so a first call with `max` 0 sizes the arrays;
/// SLOG2_Query_window_size gives both sizes). `stats` (may be NULL) gets the
/// nodes and bytes the query read. Safe to call from many threads on one
/// handle. Returns SLOG2_OK; SLOG2_ERR_ARRAY_TOO_SMALL, SLOG2_ERR_NULL_ARG,
/// SLOG2_ERR_BAD_ARG (t0 > t1, NaN, negative pos/max, over 2^31 rows),
/// SLOG2_ERR_FORMAT (a damaged node), SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// `n_out`, `pos`, `info_pos` NULL or valid for one int; `columns` NULL or a
/// valid struct whose non-NULL columns hold `max` elements; `info_base` NULL
/// or valid for `info_max` bytes; `stats` NULL or valid for one struct.
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
    reader(fp, |r| {
        let rows = core(r.file.window_rows(t0, t1))?;
        // SAFETY: the caller's promises (see # Safety).
        unsafe {
            fill_rows(
                rows.view(),
                0,
                0..rows.len(),
                n_out,
                columns,
                pos,
                max,
                info_base,
                info_pos,
                info_max,
                stats,
            )
        }
    })
}

/// Rows and info bytes SLOG2_Query_window (depth < 0) or SLOG2_Query_preview
/// (depth >= 0) would return. Returns as SLOG2_Query_window.
///
/// # Safety
/// `n_rows` and `n_info_bytes` are NULL or valid for one int each.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Query_window_size(
    fp: SLOG2_File,
    t0: f64,
    t1: f64,
    depth: c_int,
    n_rows: *mut c_int,
    n_info_bytes: *mut c_int,
) -> c_int {
    reader(fp, |r| {
        // SAFETY: the caller's promises (see # Safety).
        let (nr, ni) = unsafe {
            (
                out::<A, _>(n_rows, "n_rows")?,
                out::<A, _>(n_info_bytes, "n_info_bytes")?,
            )
        };
        let rows = core(if depth < 0 {
            r.file.window_rows(t0, t1)
        } else {
            r.file.preview_rows(t0, t1, depth)
        })?;
        *nr = c_len::<A>(rows.len(), "rows")?;
        *ni = c_len::<A>(rows.info.len(), "info bytes")?;
        Ok(SLOG2_OK)
    })
}

/// Zoomed-out view: reads only tree levels >= `depth` intersecting the window;
/// rows are their real drawables, then the shadows (kind SLOG2_KIND_SHADOW,
/// category -1/-2/-3, num_real) summarising the levels below. Same array
/// conventions as SLOG2_Query_window; per-category weights of the shadows:
/// SLOG2_Query_preview_weights. `depth` 0 is full detail; a depth above the
/// root's reads just the root. Returns as SLOG2_Query_window
/// (SLOG2_ERR_BAD_ARG also for depth < 0).
///
/// # Safety
/// As SLOG2_Query_window.
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
    reader(fp, |r| {
        if depth < 0 {
            return Err(fail(SLOG2_ERR_BAD_ARG, "depth must be >= 0"));
        }
        let rows = core(r.file.preview_rows(t0, t1, depth))?;
        // SAFETY: the caller's promises (see # Safety).
        unsafe {
            fill_rows(
                rows.view(),
                0,
                0..rows.len(),
                n_out,
                columns,
                pos,
                max,
                info_base,
                info_pos,
                info_max,
                stats,
            )
        }
    })
}

/// Weights of the shadows of SLOG2_Query_preview (same t0, t1, depth): one
/// entry per (shadow, category): `shadow` = the shadow's row in the preview's
/// rows (0-based), category, inclusive and exclusive ratio, count; grouped by
/// row ascending. Four-argument convention on `pos`/`max` (all five arrays
/// share them); on SLOG2_ERR_ARRAY_TOO_SMALL `*n_out` holds the entries
/// needed. Returns as SLOG2_Query_preview.
///
/// # Safety
/// `n_out` and `pos` NULL or valid for one int; the five arrays NULL or valid
/// for `max` elements each.
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
    reader(fp, |r| {
        // SAFETY: the caller's promise on `n_out`.
        let n_out = unsafe { out::<A, _>(n_out, "n_out") }?;
        if depth < 0 {
            return Err(fail(SLOG2_ERR_BAD_ARG, "depth must be >= 0"));
        }
        let rows = core(r.file.preview_rows(t0, t1, depth))?;
        let ws = &rows.weights;
        let n = c_len::<A>(ws.len(), "weights")?;
        // SAFETY: the caller's promise on `pos`; nothing is written yet.
        let checked = unsafe { room::<A>(pos, max, ws.len(), "weights") }.and_then(|p0| {
            let any_null = shadow.is_null()
                || category.is_null()
                || incl.is_null()
                || excl.is_null()
                || count.is_null();
            if any_null && !ws.is_empty() {
                return Err(fail(SLOG2_ERR_NULL_ARG, "NULL weights array"));
            }
            Ok(p0)
        });
        let p0 = match checked {
            Ok(p0) => p0,
            Err(f) => {
                *n_out = n;
                return Err(f);
            }
        };
        // SAFETY: all five checked for `ws.len()` elements at `*pos`.
        unsafe {
            column(shadow, p0, ws.row.iter().copied());
            column(category, p0, ws.category.iter().copied());
            column(incl, p0, ws.incl.iter().copied());
            column(excl, p0, ws.excl.iter().copied());
            column(count, p0, ws.count.iter().copied());
            *pos += n;
        }
        *n_out = n;
        Ok(SLOG2_OK)
    })
}

// ---------------------------------------------------------------------------
// Whole-file scan

/// Opaque scan state.
pub struct SLOG2_Scan_s {
    _private: [u8; 0],
}

/// Handle of a whole-file scan (SLOG2_Scan_open).
pub type SLOG2_Scan = *mut SLOG2_Scan_s;

/// A scan: the core's cursor, the batch it decoded last, and the key of the
/// file handle it belongs to (checked on every call: closing the file ends
/// its scans).
struct ScanHandle {
    file: usize,
    state: Mutex<ScanState>,
}

/// The C side of a scan. A worker thread owns the core's cursor and decodes
/// sub-batches of SCAN_SUB_ROWS rows ahead (at most two waiting), so that on
/// a machine with a core to spare decoding overlaps the copying into the
/// caller's arrays and the caller's own work; SLOG2_Scan_next hands out whole
/// records of those sub-batches as the caller's room allows.
struct ScanState {
    /// Decoded sub-batches in scan order; an empty one marks the end.
    rx: std::sync::mpsc::Receiver<::slog2::Result<Rows>>,
    /// Spent sub-batches back to the worker (their memory is reused).
    back: std::sync::mpsc::SyncSender<Rows>,
    /// The sub-batch being handed out and its first row not yet returned.
    cur: Rows,
    at: usize,
    /// The end was reached (or an error reported).
    done: bool,
    /// An error met after rows were written in the same call: returned by
    /// the next call.
    err: Option<::slog2::Error>,
    /// Rows and info bytes of the record that did not fit (for
    /// SLOG2_Scan_next_size).
    need: Option<(usize, usize)>,
}

/// The worker: decode sub-batches until the end, an error, or the scan is
/// closed (the receiver dropped). It holds the file (an `Arc`), so the map
/// stays valid while it runs.
fn scan_worker(
    mut scan: ::slog2::read::Scan<std::sync::Arc<Slog2File>>,
    tx: std::sync::mpsc::SyncSender<::slog2::Result<Rows>>,
    back: std::sync::mpsc::Receiver<Rows>,
) {
    loop {
        let mut rows = back.try_recv().unwrap_or_default();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            scan.next_into(&mut rows, SCAN_SUB_ROWS, usize::MAX)
        }));
        let msg = match r {
            Ok(Ok(true)) => Ok(rows),
            Ok(Ok(false)) => Ok(Rows::default()),
            Ok(Err(e)) => Err(e),
            // A panic here would be a bug: end the scan; the caller sees the
            // channel closed and reports SLOG2_ERR_PANIC.
            Err(_) => return,
        };
        let last = !matches!(&msg, Ok(r) if !r.is_empty());
        if tx.send(msg).is_err() || last {
            return;
        }
    }
}

/// The end of the longest run of whole records of `r` from row `at` that
/// fits in `rows` rows and `info` bytes (`at` when not even one fits).
fn fitting(r: &Rows, at: usize, rows: usize, info: usize) -> usize {
    let mut end = r.len().min(at.saturating_add(rows));
    // Back to a record boundary: a member row never starts a record.
    while end > at && end < r.len() && r.parent[end] >= 0 {
        end -= 1;
    }
    let ib = r.info_offset[at] as usize;
    if r.info_offset[end] as usize - ib > info {
        // Info offsets grow with the row: the last row whose info fits.
        let lim = (ib + info) as u64;
        end = at + r.info_offset[at..=end].partition_point(|&o| (o as u64) <= lim) - 1;
        while end > at && end < r.len() && r.parent[end] >= 0 {
            end -= 1;
        }
    }
    end
}

/// Rows and info bytes of the record starting at row `at` of `r`.
fn record_size(r: &Rows, at: usize) -> (usize, usize) {
    let mut end = at + 1;
    while end < r.len() && r.parent[end] >= 0 {
        end += 1;
    }
    (end - at, (r.info_offset[end] - r.info_offset[at]) as usize)
}

static SCANS: Registry<ScanHandle> = Registry::new();

/// Rows the library decodes at a time inside SLOG2_Scan_next (≈ 1 MiB of
/// columns: they stay in the CPU cache until copied to the caller).
const SCAN_SUB_ROWS: usize = 16 * 1024;

/// Run `f` on a scan whose file is still open (under the scan's lock).
fn scan_op(sc: SLOG2_Scan, f: impl FnOnce(&mut ScanState) -> Res<c_int>) -> c_int {
    entry::<A>(|| {
        if sc.is_null() {
            return Err(fail(SLOG2_ERR_BAD_HANDLE, "NULL SLOG2_Scan handle"));
        }
        let h = SCANS
            .get(sc as usize)
            .ok_or_else(|| fail(SLOG2_ERR_BAD_HANDLE, "unknown or closed SLOG2_Scan handle"))?;
        if FILES.get(h.file).is_none() {
            return Err(fail(
                SLOG2_ERR_BAD_HANDLE,
                "the SLOG2_File of this scan was closed",
            ));
        }
        let mut st = lock(&h.state);
        f(&mut st)
    })
}

/// Start a whole-file scan of a file open for reading: SLOG2_Scan_next then
/// returns every drawable of the file exactly once, batch after batch, and
/// SLOG2_Scan_close ends it. Order: the node blocks in file order (the order
/// the writer wrote them, a node after its children), in each node its arrows
/// and events, then its states and composites, each in drawing order; a
/// composite row is followed by its member rows. Unlike consecutive
/// SLOG2_Query_window calls, no drawable is returned twice and every stored
/// drawable is returned (also those with NaN times). Node bytes are read
/// sequentially, one ≈ 8 MiB chunk of the map at a time, so memory stays
/// flat. A thread of the scan's own decodes up to two sub-batches of 16 k
/// rows ahead, overlapping the copy into the caller's arrays and the
/// caller's work; it stops at SLOG2_Scan_close (which also frees the file's
/// data if SLOG2_Close came first). Scans are independent of each other and of queries on the same file; one
/// scan handle may be used from any thread (calls serialise on it). `*scan` is
/// set to the handle, or to NULL on failure. Returns SLOG2_OK;
/// SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// `scan` is NULL or valid for writing one handle.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Scan_open(fp: SLOG2_File, scan: *mut SLOG2_Scan) -> c_int {
    // SAFETY: the caller's promise on `scan`.
    if let Some(s) = unsafe { scan.as_mut() } {
        *s = std::ptr::null_mut();
    }
    reader(fp, |r| {
        // SAFETY: the caller's promise on `scan`.
        let out_scan = unsafe { out::<A, _>(scan, "scan") }?;
        let (tx, rx) = std::sync::mpsc::sync_channel(2);
        let (back, back_rx) = std::sync::mpsc::sync_channel(4);
        let scan = ::slog2::read::Scan::new(r.file.clone());
        std::thread::Builder::new()
            .name("slog2-scan".into())
            .spawn(move || scan_worker(scan, tx, back_rx))
            .map_err(|e| fail(SLOG2_ERR_IO, format!("cannot start the scan thread: {e}")))?;
        let h = ScanHandle {
            file: fp as usize,
            state: Mutex::new(ScanState {
                rx,
                back,
                cur: Rows::default(),
                at: 0,
                done: false,
                err: None,
                need: None,
            }),
        };
        *out_scan = SCANS.insert(h) as SLOG2_Scan;
        Ok(SLOG2_OK)
    })
}

/// The next batch of the scan, written like SLOG2_Query_window's rows: columns
/// at `pos` (capacity `max` rows; any column may be NULL), info bytes packed
/// into `info_base` at `*info_pos` (capacity `info_max`), `*n_out` rows. A
/// batch is as many whole records as fit in the room left (`max - *pos` rows,
/// `info_max - *info_pos` bytes), so callers choose the batch size by the
/// arrays they pass. `parent` rows are numbered from the first row this call
/// writes (row 0 = the row at the entry value of `*pos`), as in
/// SLOG2_Query_window; info offsets index `info_base`. `stats` (may be NULL) gets the nodes started and the
/// record bytes decoded by this batch. At the end: SLOG2_ERR_EOF with `*n_out`
/// 0. When the next record alone does not fit (a composite with more members
/// than `max`, or more info bytes than the room): SLOG2_ERR_ARRAY_TOO_SMALL,
/// nothing written, `*n_out` = its rows; SLOG2_Scan_next_size gives rows and
/// info bytes, and the next call returns that batch. A damaged node:
/// SLOG2_ERR_FORMAT, and the scan is over (later calls return SLOG2_ERR_EOF).
/// Returns SLOG2_OK; SLOG2_ERR_EOF, SLOG2_ERR_ARRAY_TOO_SMALL,
/// SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_ARG (negative pos/max), SLOG2_ERR_FORMAT,
/// SLOG2_ERR_IO, SLOG2_ERR_BAD_HANDLE (unknown or closed scan, or its file
/// closed).
///
/// # Safety
/// As SLOG2_Query_window's pointer arguments.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Scan_next(
    scan: SLOG2_Scan,
    n_out: *mut c_int,
    columns: *const SLOG2_Query_columns,
    pos: *mut c_int,
    max: c_int,
    info_base: *mut c_char,
    info_pos: *mut c_int,
    info_max: c_int,
    stats: *mut SLOG2_Query_stats,
) -> c_int {
    scan_op(scan, |st| {
        // SAFETY: the caller's promises on `n_out`, `columns`, `pos`,
        // `info_pos`; nothing is written here.
        let n_out = unsafe {
            let n_out = out::<A, _>(n_out, "n_out")?;
            input::<A, _>(columns, "columns")?;
            room::<A>(pos, max, 0, "rows")?;
            room::<A>(info_pos, info_max, 0, "info")?;
            n_out
        };
        // No info array: no room for info bytes (a record with info then
        // fails below with nothing written, as in SLOG2_Query_window).
        let info_cap = if info_base.is_null() {
            0
        } else {
            info_max as usize
        };
        if let Some(e) = st.err.take() {
            return Err(fail_with::<A>(e));
        }
        // Whole records of the worker's sub-batches, as many as fit.
        let (mut wrote, mut nodes, mut bytes) = (0usize, 0usize, 0u64);
        loop {
            // SAFETY: checked non-NULL by `room` above.
            let (p, ip) = unsafe { (*pos as usize, *info_pos as usize) };
            let room_rows = (max as usize).saturating_sub(p);
            let room_info = info_cap.saturating_sub(ip);
            if st.at >= st.cur.len() {
                if st.done || (wrote > 0 && room_rows == 0) {
                    break;
                }
                let spent = std::mem::take(&mut st.cur);
                let _ = st.back.try_send(spent);
                st.at = 0;
                match st.rx.recv() {
                    Ok(Ok(r)) if r.is_empty() => {
                        st.done = true;
                        break;
                    }
                    Ok(Ok(r)) => {
                        nodes += r.stats.nodes_read;
                        bytes += r.stats.bytes_read;
                        st.cur = r;
                    }
                    Ok(Err(e)) => {
                        st.done = true;
                        if wrote > 0 {
                            st.err = Some(e);
                            break;
                        }
                        return Err(fail_with::<A>(e));
                    }
                    Err(_) => {
                        st.done = true;
                        return Err(fail(
                            SLOG2_ERR_PANIC,
                            "the scan thread stopped unexpectedly",
                        ));
                    }
                }
            }
            let end = fitting(&st.cur, st.at, room_rows, room_info);
            if end == st.at {
                if wrote > 0 {
                    break; // the next call starts with this record
                }
                let (nr, ni) = record_size(&st.cur, st.at);
                st.need = Some((nr, ni));
                *n_out = c_len::<A>(nr, "rows")?;
                return Err(fail(
                    SLOG2_ERR_ARRAY_TOO_SMALL,
                    format!(
                        "scan: the next record needs {nr} rows and {ni} info bytes; \
                         the arrays have room for {room_rows} and {room_info}"
                    ),
                ));
            }
            let mut n = 0;
            // SAFETY: the caller's promises (see # Safety); the range was
            // sized to the room, so everything fits and is written.
            unsafe {
                fill_rows(
                    st.cur.view(),
                    c_len::<A>(wrote, "rows")?,
                    st.at..end,
                    &mut n,
                    columns,
                    pos,
                    max,
                    info_base,
                    info_pos,
                    info_max,
                    std::ptr::null_mut(),
                )
            }
            .inspect_err(|_| *n_out = n)?;
            st.need = None;
            wrote += end - st.at;
            st.at = end;
            if st.at < st.cur.len() {
                break; // room exhausted
            }
        }
        *n_out = c_len::<A>(wrote, "rows")?;
        // SAFETY: the caller's promise on `stats`.
        unsafe {
            set_opt(
                stats,
                SLOG2_Query_stats {
                    nodes_read: c_int::try_from(nodes).unwrap_or(c_int::MAX),
                    bytes_read: i64::try_from(bytes).unwrap_or(i64::MAX),
                },
            )
        };
        if wrote == 0 {
            return Err(fail(SLOG2_ERR_EOF, "the scan has returned every drawable"));
        }
        Ok(SLOG2_OK)
    })
}

/// Rows and info bytes of the batch SLOG2_Scan_next could not write
/// (after SLOG2_ERR_ARRAY_TOO_SMALL): arrays this large take it. 0 and 0 when
/// no batch is waiting. Returns SLOG2_OK; SLOG2_ERR_NULL_ARG,
/// SLOG2_ERR_BAD_HANDLE.
///
/// # Safety
/// `n_rows` and `n_info_bytes` are NULL or valid for one int each.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Scan_next_size(
    scan: SLOG2_Scan,
    n_rows: *mut c_int,
    n_info_bytes: *mut c_int,
) -> c_int {
    scan_op(scan, |st| {
        // SAFETY: the caller's promises.
        let (nr, ni) = unsafe {
            (
                out::<A, _>(n_rows, "n_rows")?,
                out::<A, _>(n_info_bytes, "n_info_bytes")?,
            )
        };
        let (r, i) = st.need.unwrap_or((0, 0));
        *nr = c_len::<A>(r, "rows")?;
        *ni = c_len::<A>(i, "info bytes")?;
        Ok(SLOG2_OK)
    })
}

/// End a scan, free its buffers and set `*scan` to NULL (also after its file
/// was closed). Returns SLOG2_OK; SLOG2_ERR_NULL_ARG (`scan`),
/// SLOG2_ERR_BAD_HANDLE (unknown or already closed).
///
/// # Safety
/// `scan` is NULL or valid for reading and writing one handle.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Scan_close(scan: *mut SLOG2_Scan) -> c_int {
    entry::<A>(|| {
        // SAFETY: the caller's promise on `scan`.
        let s = unsafe { out::<A, _>(scan, "scan") }?;
        if s.is_null() || SCANS.remove(*s as usize).is_none() {
            return Err(fail(
                SLOG2_ERR_BAD_HANDLE,
                "unknown or closed SLOG2_Scan handle",
            ));
        }
        *s = std::ptr::null_mut();
        Ok(SLOG2_OK)
    })
}

/// Static text for an SLOG2 return code (never NULL).
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
        SLOG2_ERR_PARSE => c"a trace record could not be parsed",
        SLOG2_ERR_INVALID_DRAWABLE => c"a drawable breaks a rule of the format",
        SLOG2_ERR_UNSUPPORTED => c"not supported by this implementation",
        SLOG2_ERR_SOURCE => c"the trace source reported an error",
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

// ---------------------------------------------------------------------------
// Window cursors (a viewer's moving window, see `::slog2::read::cursor`)

/// Opaque cursor state.
pub struct SLOG2_Cursor_s {
    _private: [u8; 0],
}

/// Handle of a window cursor (SLOG2_Cursor_open).
pub type SLOG2_Cursor = *mut SLOG2_Cursor_s;

/// Read-only view of a cursor's current rows (SLOG2_Cursor_get_view), the same
/// columns SLOG2_Query_window fills, in the library's own arrays. Valid until
/// the next SLOG2_Cursor_move or SLOG2_Cursor_close on that cursor. Row `i`'s
/// info bytes are `info[info_offset[i] .. info_offset[i + 1]]`
/// (`info_offset` has `n_rows + 1` entries). The column pointers are NULL
/// when `n_rows` is 0, `info` when `n_info_bytes` is 0.
#[repr(C)]
pub struct SLOG2_Cursor_view {
    pub n_rows: c_int,
    pub n_info_bytes: c_int,
    /// SLOG2_KIND_PRIMITIVE or SLOG2_KIND_COMPOSITE (one byte per row).
    pub kind: *const u8,
    pub category: *const i32,
    pub start: *const f64,
    pub end: *const f64,
    /// Time and line of the first and of the last vertex (arrow direction).
    pub time0: *const f64,
    pub time1: *const f64,
    pub line0: *const i32,
    pub line1: *const i32,
    /// Row of the composite a member row belongs to, else -1.
    pub parent: *const i32,
    pub num_real: *const i64,
    pub info_offset: *const u32,
    pub info: *const c_char,
    /// The window of these rows.
    pub t0: f64,
    pub t1: f64,
}

struct CursorObj {
    /// Keeps the file's reader alive (and its map) while the cursor lives.
    file: std::sync::Arc<Handle>,
    cur: Mutex<::slog2::read::WindowCursor>,
}

static CURSORS: Registry<CursorObj> = Registry::new();

fn with_cursor(
    c: SLOG2_Cursor,
    f: impl FnOnce(&Slog2File, &mut ::slog2::read::WindowCursor) -> Res<c_int>,
) -> c_int {
    entry::<A>(|| {
        if c.is_null() {
            return Err(fail(SLOG2_ERR_BAD_HANDLE, "NULL SLOG2_Cursor handle"));
        }
        let obj = CURSORS.get(c as usize).ok_or_else(|| {
            fail(
                SLOG2_ERR_BAD_HANDLE,
                "unknown or closed SLOG2_Cursor handle",
            )
        })?;
        let Handle::R(r) = &*obj.file else {
            return Err(fail(SLOG2_ERR_WRONG_MODE, "the file is open for writing"));
        };
        let mut cur = lock(&obj.cur);
        f(&r.file, &mut cur)
    })
}

/// Open a window cursor on a read-mode file: one per viewer. A cursor keeps
/// the current window's rows and, on each SLOG2_Cursor_move, drops the rows
/// that left and decodes only the drawables entering (a move that does not
/// overlap the previous window is a fresh query). The cursor keeps the file's
/// data alive: SLOG2_Close(file) may come before SLOG2_Cursor_close.
/// Calls on one cursor serialise on its lock; cursors and queries on one file
/// run concurrently. `*cursor` is set to the handle, or NULL on failure.
/// Returns SLOG2_OK; SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_HANDLE, SLOG2_ERR_WRONG_MODE.
///
/// # Safety
/// `cursor` is NULL or valid for one handle.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Cursor_open(fp: SLOG2_File, cursor: *mut SLOG2_Cursor) -> c_int {
    entry::<A>(|| {
        // SAFETY: the caller's promise on `cursor`.
        let out_c = unsafe { out::<A, _>(cursor, "cursor") }?;
        *out_c = std::ptr::null_mut();
        let h = handle(fp)?;
        if let Handle::W(_) = &*h {
            return Err(fail(SLOG2_ERR_WRONG_MODE, "the file is open for writing"));
        }
        let id = CURSORS.insert(CursorObj {
            file: h,
            cur: Mutex::new(::slog2::read::WindowCursor::new()),
        });
        *out_c = id as SLOG2_Cursor;
        Ok(SLOG2_OK)
    })
}

/// Move the cursor to the window `[t0, t1]`: afterwards it holds exactly the
/// rows SLOG2_Query_window(t0, t1) returns, in drawing order (start
/// ascending, then end descending, category, first line, last line; a
/// composite's row is followed by its members' rows). Rows with equal
/// drawing keys may come in another order than from SLOG2_Query_window.
/// `n_rows`, `n_info_bytes`, `stats` may be NULL; `stats->bytes_read` counts
/// the records this move decoded (the entering ones, or the next chunk of a
/// node the cursor holds as rows in drawing order). On failure the cursor
/// is emptied (its next move is a fresh query). Read the rows with
/// SLOG2_Cursor_get_view (no copy) or SLOG2_Cursor_rows (into your arrays).
/// Returns SLOG2_OK; SLOG2_ERR_BAD_ARG (t0 > t1, NaN, over 2^31 rows),
/// SLOG2_ERR_FORMAT (a damaged node), SLOG2_ERR_BAD_HANDLE.
///
/// # Safety
/// `n_rows`, `n_info_bytes` NULL or valid for one int; `stats` NULL or valid
/// for one struct.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Cursor_move(
    c: SLOG2_Cursor,
    t0: f64,
    t1: f64,
    n_rows: *mut c_int,
    n_info_bytes: *mut c_int,
    stats: *mut SLOG2_Query_stats,
) -> c_int {
    with_cursor(c, |file, cur| {
        let rows = core(cur.move_to(file, t0, t1))?;
        let (nr, ni) = (
            c_len::<A>(rows.len(), "rows")?,
            c_len::<A>(rows.info.len(), "info bytes")?,
        );
        // SAFETY: the caller's promises (see # Safety).
        unsafe {
            set_opt(n_rows, nr);
            set_opt(n_info_bytes, ni);
            put_stats(stats, &rows);
        }
        Ok(SLOG2_OK)
    })
}

/// The cursor's current rows without a copy (see SLOG2_Cursor_view). Before
/// the first successful move, `n_rows` is 0. Returns SLOG2_OK;
/// SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_ARG (over 2^31 rows), SLOG2_ERR_BAD_HANDLE.
///
/// # Safety
/// `view` is NULL or valid for one struct.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Cursor_get_view(
    c: SLOG2_Cursor,
    view: *mut SLOG2_Cursor_view,
) -> c_int {
    with_cursor(c, |_, cur| {
        // SAFETY: the caller's promise on `view`.
        let v = unsafe { out::<A, _>(view, "view") }?;
        let r = cur.rows();
        let n = c_len::<A>(r.len(), "rows")?;
        let (t0, t1) = cur
            .window()
            .map_or((f64::NAN, f64::NAN), |w| (w.start, w.end));
        *v = SLOG2_Cursor_view {
            n_rows: n,
            n_info_bytes: c_len::<A>(r.info.len(), "info bytes")?,
            kind: col_ptr(r.kind),
            category: col_ptr(r.category),
            start: col_ptr(r.start),
            end: col_ptr(r.end),
            time0: col_ptr(r.time0),
            time1: col_ptr(r.time1),
            line0: col_ptr(r.line0),
            line1: col_ptr(r.line1),
            parent: col_ptr(r.parent),
            num_real: col_ptr(r.num_real),
            info_offset: if n == 0 {
                std::ptr::null()
            } else {
                r.info_offset.as_ptr()
            },
            info: col_ptr(r.info) as *const c_char,
            t0,
            t1,
        };
        Ok(SLOG2_OK)
    })
}

/// Copy the cursor's current rows into the caller's columns, with the array
/// conventions of SLOG2_Query_window (on SLOG2_ERR_ARRAY_TOO_SMALL nothing is
/// written and `*n_out` holds the rows needed). `stats` gets the last move's.
/// Returns as SLOG2_Query_window.
///
/// # Safety
/// As SLOG2_Query_window.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Cursor_rows(
    c: SLOG2_Cursor,
    n_out: *mut c_int,
    columns: *const SLOG2_Query_columns,
    pos: *mut c_int,
    max: c_int,
    info_base: *mut c_char,
    info_pos: *mut c_int,
    info_max: c_int,
    stats: *mut SLOG2_Query_stats,
) -> c_int {
    with_cursor(c, |_, cur| {
        // SAFETY: the caller's promises (see # Safety).
        unsafe {
            fill_rows(
                cur.rows(),
                0,
                0..cur.rows().len(),
                n_out,
                columns,
                pos,
                max,
                info_base,
                info_pos,
                info_max,
                stats,
            )
        }
    })
}

/// A column's address, NULL when it is empty.
fn col_ptr<T>(v: &[T]) -> *const T {
    if v.is_empty() {
        std::ptr::null()
    } else {
        v.as_ptr()
    }
}

/// Close a cursor and set `*cursor` to NULL (its views become invalid).
/// Returns SLOG2_OK; SLOG2_ERR_NULL_ARG, SLOG2_ERR_BAD_HANDLE (NULL, unknown
/// or already closed).
///
/// # Safety
/// `cursor` is NULL or valid for one handle.
#[no_mangle]
pub unsafe extern "C" fn SLOG2_Cursor_close(cursor: *mut SLOG2_Cursor) -> c_int {
    entry::<A>(|| {
        // SAFETY: the caller's promise on `cursor`.
        let c = unsafe { out::<A, _>(cursor, "cursor") }?;
        if c.is_null() {
            return Err(fail(SLOG2_ERR_BAD_HANDLE, "NULL SLOG2_Cursor handle"));
        }
        if CURSORS.remove(*c as usize).is_none() {
            return Err(fail(
                SLOG2_ERR_BAD_HANDLE,
                "unknown or closed SLOG2_Cursor handle",
            ));
        }
        *c = std::ptr::null_mut();
        Ok(SLOG2_OK)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every library error kind has its own documented code with text.
    #[test]
    fn error_codes_are_distinct_and_named() {
        use std::path::PathBuf;
        let errors = [
            Error::Io {
                path: PathBuf::from("x"),
                source: std::io::Error::other("e"),
            },
            Error::BadVersion { found: "x".into() },
            Error::OrderViolation {
                index: 1,
                end: 0.0,
                prev_end: 1.0,
                location: String::new(),
            },
            Error::InvalidDrawable {
                index: 1,
                detail: "d".into(),
                location: String::new(),
            },
            Error::Parse {
                loc: ::slog2::error::TextLocation {
                    file: "f".into(),
                    line: 1,
                    column: 1,
                },
                detail: "d".into(),
            },
            Error::InvalidArgument("a".into()),
            Error::Source("s".into()),
            Error::NoDrawables,
            Error::Unsupported("u".into()),
        ];
        let codes: Vec<c_int> = errors.iter().map(Slog2Api::code).collect();
        let mut uniq = codes.clone();
        uniq.sort();
        uniq.dedup();
        assert_eq!(uniq.len(), codes.len(), "{codes:?}");
        for c in codes {
            // SAFETY: static NUL-terminated text.
            let s = unsafe { CStr::from_ptr(SLOG2_Get_err_string(c)) };
            assert_ne!(s.to_str().unwrap(), "unknown error code");
        }
    }
}
