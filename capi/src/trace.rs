//! slog2sdk's TRACE-API over our built-in trace sources.
//!
//! `TRACE_Open` picks the source by content (an SLOG-2 file, else the sample
//! text format). The call protocol follows `trace-api.md` §1.5 with the
//! "Our rule" choices: every Peek is idempotent; a Get consumes its record
//! only when it succeeds (and performs the Peek itself if it was not called);
//! a composite's members follow it (`TRACE_Get_next_composite` is optional;
//! the first `TRACE_Peek_next_primitive` enters the composite); a call for
//! the wrong kind of record is an error that changes nothing.
//!
//! Return codes: 0 on success, else one of the `TRACE_ERR_*` codes (new
//! macros: slog2sdk's header defines no codes, so no client can clash with
//! them); `TRACE_Get_err_string` gives static text, `SLOG2_Get_last_error`
//! the detail (file:line:column, byte offset). Every function can also
//! return `TRACE_ERR_PANIC`; each function's comment lists its other codes.
//!
//! Thread safety: any function may be called from any thread; calls on one
//! handle serialise on that handle's lock, different handles never wait for
//! each other.

#![allow(non_camel_case_types, non_snake_case)]

use std::ffi::{c_char, c_int, CStr};
use std::path::PathBuf;
use std::sync::Mutex;

use super::{
    c_len, call_on, cbuf, close_handle, cstr, entry, fail, fail_with, lock, out, slots, write_cstr,
    Api, Res,
};
use ::slog2::error::{Error, ErrorKind};
use ::slog2::trace::open_source_with;
use ::slog2::trace::reader::{RecordKind, TraceReader};
use slog2_handles::Registry;

/// Opaque reader state behind a `TRACE_file`.
pub struct _trace_file {
    _private: [u8; 0],
}

/// Handle of an open trace (`struct _trace_file *`).
pub type TRACE_file = *mut _trace_file;

/// 64-bit integer of the position functions (a macro in the header).
pub type TRACE_int64_t = i64;

/// Kind of the next record.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TRACE_Rec_Kind_t {
    TRACE_EOF = 0,
    TRACE_PRIMITIVE_DRAWABLE = 1,
    TRACE_COMPOSITE_DRAWABLE = 2,
    TRACE_CATEGORY = 3,
    TRACE_YCOORDMAP = 4,
}

/// Category header: index, shape (`TRACE_SHAPE_*`), colour 0–255, width.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct TRACE_Category_head_t {
    pub index: c_int,
    pub shape: c_int,
    pub red: c_int,
    pub green: c_int,
    pub blue: c_int,
    pub alpha: c_int,
    pub width: c_int,
}

/// A required pointer argument is NULL.
pub const TRACE_ERR_NULL_ARG: c_int = 1;
/// Unknown, closed or NULL `TRACE_file` handle (or an SLOG2 handle).
pub const TRACE_ERR_BAD_HANDLE: c_int = 2;
/// The trace file cannot be opened (missing, not readable; see the detail).
/// Other failures of TRACE_Open have their own codes.
pub const TRACE_ERR_OPEN: c_int = 3;
/// The trace is damaged (an SLOG-2 file's bytes; see the detail's byte offset).
pub const TRACE_ERR_READ: c_int = 4;
/// The call does not match the kind of the current record.
pub const TRACE_ERR_KIND: c_int = 5;
/// An output array is too small (pos + n > max); nothing was written.
pub const TRACE_ERR_ARRAY_TOO_SMALL: c_int = 6;
/// A negative pos or max, or another argument out of range.
pub const TRACE_ERR_BAD_ARG: c_int = 7;
/// The function is not supported by this implementation.
pub const TRACE_ERR_UNSUPPORTED: c_int = 8;
/// Invalid position (not from TRACE_Get_position, past the end, or inside a composite).
pub const TRACE_ERR_POSITION: c_int = 9;
/// Internal error caught at the C boundary.
pub const TRACE_ERR_PANIC: c_int = 10;
/// Operating-system I/O error while reading (the detail names the file).
pub const TRACE_ERR_IO: c_int = 11;
/// A text record could not be parsed (the detail gives file:line:column).
pub const TRACE_ERR_PARSE: c_int = 12;
/// A drawable breaks the TRACE-API rules (end-time order, box, vertices).
pub const TRACE_ERR_INVALID_DRAWABLE: c_int = 13;
/// An external TRACE-API library reported an error.
pub const TRACE_ERR_SOURCE: c_int = 14;

/// The TRACE API's codes.
pub(crate) struct TraceApi;

impl Api for TraceApi {
    const NULL_ARG: c_int = TRACE_ERR_NULL_ARG;
    const BAD_HANDLE: c_int = TRACE_ERR_BAD_HANDLE;
    const BAD_ARG: c_int = TRACE_ERR_BAD_ARG;
    const TOO_SMALL: c_int = TRACE_ERR_ARRAY_TOO_SMALL;
    const PANIC: c_int = TRACE_ERR_PANIC;

    fn code_of(kind: ErrorKind) -> c_int {
        match kind {
            ErrorKind::Io => TRACE_ERR_IO,
            ErrorKind::Format => TRACE_ERR_READ,
            ErrorKind::Order | ErrorKind::InvalidDrawable => TRACE_ERR_INVALID_DRAWABLE,
            ErrorKind::Parse => TRACE_ERR_PARSE,
            ErrorKind::InvalidArgument => TRACE_ERR_BAD_ARG,
            ErrorKind::Source => TRACE_ERR_SOURCE,
            // A trace without drawables is not an error for a reader.
            ErrorKind::NoDrawables => TRACE_ERR_READ,
            ErrorKind::Unsupported => TRACE_ERR_UNSUPPORTED,
            ErrorKind::Closed => TRACE_ERR_BAD_HANDLE,
            // A call for another kind of record than the next one.
            ErrorKind::State => TRACE_ERR_KIND,
        }
    }
}

type A = TraceApi;

const E_PANIC: c_int = TRACE_ERR_PANIC;

/// The record kind in this API's enum.
fn kind(k: RecordKind) -> TRACE_Rec_Kind_t {
    match k {
        RecordKind::Eof => TRACE_Rec_Kind_t::TRACE_EOF,
        RecordKind::Primitive => TRACE_Rec_Kind_t::TRACE_PRIMITIVE_DRAWABLE,
        RecordKind::Composite => TRACE_Rec_Kind_t::TRACE_COMPOSITE_DRAWABLE,
        RecordKind::Category => TRACE_Rec_Kind_t::TRACE_CATEGORY,
        RecordKind::YCoordMap => TRACE_Rec_Kind_t::TRACE_YCOORDMAP,
    }
}

const HELP: &CStr = c"usage: TRACE_Open(filespec): filespec is the path of one trace file, either an SLOG-2 2.0.6 file \
or a text trace in slog2sdk's sample format (Category/YCoordMap/Primitive/Composite lines); the kind is chosen by \
content. A filespec whose first word is -h, --h, -help or --help asks for this text.";

/// The reader behind a `TRACE_file`: the core's protocol over the source.
type State = TraceReader;

static TRACES: Registry<Mutex<State>> = Registry::new();

/// Run `f` on the handle's reader (under the handle's own lock); a panic
/// retires the handle.
fn with(fp: TRACE_file, f: impl FnOnce(&mut State) -> Res<c_int>) -> c_int {
    entry::<A>(|| call_on::<A, _, _>(&TRACES, fp as usize, "TRACE_file", |h| f(&mut lock(h))))
}

/// A core result in this API's codes (the detail recorded).
fn core<T>(r: ::slog2::Result<T>) -> Res<T> {
    r.map_err(fail_with::<A>)
}

/// The code of a failed open: an operating-system error (a missing file,
/// no permission, a directory) is TRACE_ERR_OPEN; anything else found
/// while opening (a damaged SLOG-2 file, a plugin's error) has its own kind's code.
fn open_code(e: &Error) -> c_int {
    match e.kind() {
        ErrorKind::Io => TRACE_ERR_OPEN,
        _ => TraceApi::code(e),
    }
}

/// Open a trace. `*fp` is always stored: a handle on success; NULL with
/// return 0 when the filespec asks for help (print `TRACE_Get_err_string(0)`);
/// NULL with a non-zero code on failure, the code of what went wrong (the
/// detail says more). Returns 0; TRACE_ERR_NULL_ARG, TRACE_ERR_OPEN (the
/// file cannot be opened: missing, not readable), TRACE_ERR_READ (a damaged
/// SLOG-2 or CLOG2 file), TRACE_ERR_PARSE, TRACE_ERR_UNSUPPORTED (e.g. an
/// SLOG-2 file through a pipe), TRACE_ERR_SOURCE (the OTF2 plugin refused
/// the archive).
///
/// # Safety
/// `filespec` is NULL or a NUL-terminated string; `fp` is NULL or valid for
/// writing one handle.
#[no_mangle]
pub unsafe extern "C" fn TRACE_Open(filespec: *const c_char, fp: *mut TRACE_file) -> c_int {
    entry::<A>(|| {
        // SAFETY: the caller's promises (see # Safety).
        let (fp, spec) = unsafe { (out::<A, _>(fp, "fp")?, cstr::<A>(filespec, "filespec")) };
        *fp = std::ptr::null_mut();
        let spec = spec?;
        let first = spec.split_whitespace().next().unwrap_or("");
        if matches!(first, "-h" | "--h" | "-help" | "--help") {
            return Ok(0);
        }
        let path = PathBuf::from(spec.trim());
        // The sequential text parser (1): records go out one call at a time
        // here, and it can seek to a checkpoint (the parallel one cannot).
        let st = TraceReader::open(move || open_source_with(&path, 1))
            .map_err(|e| fail(open_code(&e), e.to_string()))?;
        *fp = TRACES.insert(Mutex::new(st)) as usize as TRACE_file;
        Ok(0)
    })
}

/// Close a trace and set `*fp` to NULL. `*fp == NULL` returns 0. Returns 0;
/// TRACE_ERR_NULL_ARG (`fp`), TRACE_ERR_BAD_HANDLE (unknown or already closed).
///
/// # Safety
/// `fp` is NULL or valid for reading and writing one handle.
#[no_mangle]
pub unsafe extern "C" fn TRACE_Close(fp: *mut TRACE_file) -> c_int {
    entry::<A>(|| {
        // SAFETY: the caller's promise on `fp`.
        if unsafe { out::<A, _>(fp, "fp") }?.is_null() {
            return Ok(0);
        }
        // SAFETY: as above.
        unsafe { close_handle::<A, _, _>(&TRACES, fp, "fp", "TRACE_file") }?;
        Ok(0)
    })
}

/// Kind of the next record (TRACE_EOF at the end). Idempotent. Returns 0;
/// TRACE_ERR_NULL_ARG, TRACE_ERR_BAD_HANDLE, and the reading errors
/// TRACE_ERR_IO, TRACE_ERR_PARSE, TRACE_ERR_READ, TRACE_ERR_SOURCE.
///
/// # Safety
/// `next_kind` is NULL or valid for one value.
#[no_mangle]
pub unsafe extern "C" fn TRACE_Peek_next_kind(
    fp: TRACE_file,
    next_kind: *mut TRACE_Rec_Kind_t,
) -> c_int {
    with(fp, |st| {
        // SAFETY: the caller's promise on `next_kind`.
        let k = unsafe { out::<A, _>(next_kind, "next_kind") }?;
        *k = kind(core(st.peek_kind())?);
        Ok(0)
    })
}

/// Not supported: no record kind announces a method. Returns
/// TRACE_ERR_UNSUPPORTED (writes nothing); TRACE_ERR_BAD_HANDLE.
///
/// # Safety
/// No pointer is used.
#[no_mangle]
pub unsafe extern "C" fn TRACE_Get_next_method(
    fp: TRACE_file,
    method_name: *mut c_char,
    method_extra: *mut c_char,
    methodID: *mut c_int,
) -> c_int {
    let _ = (method_name, method_extra, methodID);
    with(fp, |_| {
        Err(fail(
            TRACE_ERR_UNSUPPORTED,
            "TRACE_Get_next_method is not supported",
        ))
    })
}

/// Sizes of the current category: legend (name) and label characters (no
/// NUL), method IDs. Returns 0; TRACE_ERR_KIND (not a category),
/// TRACE_ERR_NULL_ARG, TRACE_ERR_BAD_HANDLE, the reading errors.
///
/// # Safety
/// Each pointer is NULL or valid for one int.
#[no_mangle]
pub unsafe extern "C" fn TRACE_Peek_next_category(
    fp: TRACE_file,
    n_legend: *mut c_int,
    n_label: *mut c_int,
    n_methodIDs: *mut c_int,
) -> c_int {
    with(fp, |st| {
        // SAFETY: the caller's promises (see # Safety).
        let (nl, nb, nm) = unsafe {
            (
                out::<A, _>(n_legend, "n_legend")?,
                out::<A, _>(n_label, "n_label")?,
                out::<A, _>(n_methodIDs, "n_methodIDs")?,
            )
        };
        let c = core(st.category())?;
        *nl = c_len::<A>(c.name.len(), "legend")?;
        *nb = c_len::<A>(c.info.label().len(), "label")?;
        *nm = c_len::<A>(c.methods.len(), "methodIDs")?;
        Ok(0)
    })
}

/// The current category: head, legend (name) and label characters (no NUL),
/// method IDs, through four-argument arrays. Consumes the category. Returns
/// 0; TRACE_ERR_KIND, TRACE_ERR_NULL_ARG, TRACE_ERR_BAD_ARG,
/// TRACE_ERR_ARRAY_TOO_SMALL (nothing written), TRACE_ERR_BAD_HANDLE, the
/// reading errors.
///
/// # Safety
/// `head` and the `n_*` pointers are NULL or valid for one value; each array
/// base is NULL or valid for its `*_max` elements; positions NULL or valid
/// for one int.
#[no_mangle]
pub unsafe extern "C" fn TRACE_Get_next_category(
    fp: TRACE_file,
    head: *mut TRACE_Category_head_t,
    n_legend: *mut c_int,
    legend_base: *mut c_char,
    legend_pos: *mut c_int,
    legend_max: c_int,
    n_label: *mut c_int,
    label_base: *mut c_char,
    label_pos: *mut c_int,
    label_max: c_int,
    n_methodIDs: *mut c_int,
    methodID_base: *mut c_int,
    methodID_pos: *mut c_int,
    methodID_max: c_int,
) -> c_int {
    with(fp, |st| {
        let c = core(st.category())?;
        let label = c.info.label();
        // SAFETY: the caller's promises (see # Safety); all checked before writing.
        let (head, nl, nb, nm, legend, lab, methods) = unsafe {
            (
                out::<A, _>(head, "head")?,
                out::<A, _>(n_legend, "n_legend")?,
                out::<A, _>(n_label, "n_label")?,
                out::<A, _>(n_methodIDs, "n_methodIDs")?,
                slots::<A, c_char>(legend_base, legend_pos, legend_max, c.name.len(), "legend")?,
                slots::<A, c_char>(label_base, label_pos, label_max, label.len(), "label")?,
                slots::<A, c_int>(
                    methodID_base,
                    methodID_pos,
                    methodID_max,
                    c.methods.len(),
                    "methodIDs",
                )?,
            )
        };
        *head = TRACE_Category_head_t {
            index: c.index,
            shape: c.topology as c_int,
            red: c_int::from(c.color.red),
            green: c_int::from(c.color.green),
            blue: c_int::from(c.color.blue),
            alpha: c_int::from(c.color.alpha),
            width: c_int::from(c.width),
        };
        *nl = c_len::<A>(c.name.len(), "legend")?;
        *nb = c_len::<A>(label.len(), "label")?;
        *nm = c_len::<A>(c.methods.len(), "methodIDs")?;
        legend.fill(c.name.bytes().map(|b| b as c_char));
        lab.fill(label.bytes().map(|b| b as c_char));
        methods.fill(c.methods.iter().copied());
        st.consume();
        Ok(0)
    })
}

/// Shape of the current y-map: rows, columns (line ID + values), buffer sizes
/// of a column name and of the title *including* the NUL, method IDs.
/// Returns 0; TRACE_ERR_KIND, TRACE_ERR_NULL_ARG, TRACE_ERR_BAD_HANDLE, the
/// reading errors.
///
/// # Safety
/// Each pointer is NULL or valid for one int.
#[no_mangle]
pub unsafe extern "C" fn TRACE_Peek_next_ycoordmap(
    fp: TRACE_file,
    n_rows: *mut c_int,
    n_columns: *mut c_int,
    max_column_name: *mut c_int,
    max_title_name: *mut c_int,
    n_methodIDs: *mut c_int,
) -> c_int {
    with(fp, |st| {
        // SAFETY: the caller's promises (see # Safety).
        let (nr, nc, mc, mt, nm) = unsafe {
            (
                out::<A, _>(n_rows, "n_rows")?,
                out::<A, _>(n_columns, "n_columns")?,
                out::<A, _>(max_column_name, "max_column_name")?,
                out::<A, _>(max_title_name, "max_title_name")?,
                out::<A, _>(n_methodIDs, "n_methodIDs")?,
            )
        };
        let m = core(st.ycoordmap())?;
        *nr = c_len::<A>(m.rows.len(), "rows")?;
        *nc = c_len::<A>(m.column_labels.len() + 1, "columns")?;
        *mc = c_len::<A>(
            m.column_labels
                .iter()
                .map(|l| l.len() + 1)
                .max()
                .unwrap_or(0),
            "column name",
        )?;
        *mt = c_len::<A>(m.title.len() + 1, "title")?;
        *nm = c_len::<A>(m.methods.len(), "methodIDs")?;
        Ok(0)
    })
}

/// The current y-map: NUL-terminated title into a buffer of `max_title_name`
/// bytes, `n_columns - 1` column names into the caller's buffers of
/// `max_column_name` bytes (the sizes TRACE_Peek_next_ycoordmap gave),
/// elements row-major (`line ID, values...`), method IDs. Consumes the map.
/// Returns as TRACE_Get_next_category.
///
/// # Safety
/// `title_name` is NULL or valid for the title's size from the Peek;
/// `column_names` is NULL or holds `n_columns - 1` buffers of the Peek's
/// `max_column_name` bytes; the arrays as in TRACE_Get_next_category.
#[no_mangle]
pub unsafe extern "C" fn TRACE_Get_next_ycoordmap(
    fp: TRACE_file,
    title_name: *mut c_char,
    column_names: *mut *mut c_char,
    coordmap_sz: *mut c_int,
    coordmap_base: *mut c_int,
    coordmap_pos: *mut c_int,
    coordmap_max: c_int,
    n_methodIDs: *mut c_int,
    methodID_base: *mut c_int,
    methodID_pos: *mut c_int,
    methodID_max: c_int,
) -> c_int {
    with(fp, |st| {
        let m = core(st.ycoordmap())?;
        let n = m.rows.iter().map(|(_, v)| 1 + v.len()).sum::<usize>();
        let name_max = m
            .column_labels
            .iter()
            .map(|l| l.len() + 1)
            .max()
            .unwrap_or(0);
        // SAFETY: the caller's promises (see # Safety); all checked before writing.
        let (title, names, sz, nm, elems, methods) = unsafe {
            let names = super::slice_n::<A, *mut c_char>(
                column_names,
                m.column_labels.len(),
                "column_names",
            )?;
            let mut bufs = Vec::with_capacity(names.len());
            for &p in names {
                bufs.push(cbuf::<A>(
                    p,
                    c_len::<A>(name_max, "column name")?,
                    "column name",
                )?);
            }
            (
                cbuf::<A>(
                    title_name,
                    c_len::<A>(m.title.len() + 1, "title")?,
                    "title_name",
                )?,
                bufs,
                out::<A, _>(coordmap_sz, "coordmap_sz")?,
                out::<A, _>(n_methodIDs, "n_methodIDs")?,
                slots::<A, c_int>(coordmap_base, coordmap_pos, coordmap_max, n, "coordmap")?,
                slots::<A, c_int>(
                    methodID_base,
                    methodID_pos,
                    methodID_max,
                    m.methods.len(),
                    "methodIDs",
                )?,
            )
        };
        write_cstr(title, &m.title);
        for (buf, l) in names.into_iter().zip(&m.column_labels) {
            write_cstr(buf, l);
        }
        *sz = c_len::<A>(n, "coordmap")?;
        *nm = c_len::<A>(m.methods.len(), "methodIDs")?;
        elems.fill(
            m.rows
                .iter()
                .flat_map(|(l, v)| std::iter::once(*l).chain(v.iter().copied())),
        );
        methods.fill(m.methods.iter().copied());
        st.consume();
        Ok(0)
    })
}

/// Time box and counts of the current primitive (inside a composite: of its
/// next member; the first call after `TRACE_Peek_next_composite` enters it).
/// Returns 0; TRACE_ERR_KIND, TRACE_ERR_NULL_ARG, TRACE_ERR_BAD_HANDLE, the
/// reading errors.
///
/// # Safety
/// Each pointer is NULL or valid for one value.
#[no_mangle]
pub unsafe extern "C" fn TRACE_Peek_next_primitive(
    fp: TRACE_file,
    starttime: *mut f64,
    endtime: *mut f64,
    n_tcoords: *mut c_int,
    n_ycoords: *mut c_int,
    n_bytes: *mut c_int,
) -> c_int {
    with(fp, |st| {
        // SAFETY: the caller's promises (see # Safety).
        let (s, e, nt, ny, nb) = unsafe {
            (
                out::<A, _>(starttime, "starttime")?,
                out::<A, _>(endtime, "endtime")?,
                out::<A, _>(n_tcoords, "n_tcoords")?,
                out::<A, _>(n_ycoords, "n_ycoords")?,
                out::<A, _>(n_bytes, "n_bytes")?,
            )
        };
        let (b, p) = core(st.primitive())?;
        *s = b.start;
        *e = b.end;
        *nt = c_len::<A>(p.vertices.len(), "vertices")?;
        *ny = *nt;
        *nb = c_len::<A>(p.info.len(), "bytes")?;
        Ok(0)
    })
}

/// The current primitive: category index, vertex times, vertex line IDs, info
/// bytes. Consumes it (inside a composite: moves to the next member).
/// Returns as TRACE_Get_next_category.
///
/// # Safety
/// As TRACE_Get_next_category.
#[no_mangle]
pub unsafe extern "C" fn TRACE_Get_next_primitive(
    fp: TRACE_file,
    category_index: *mut c_int,
    n_tcoords: *mut c_int,
    tcoord_base: *mut f64,
    tcoord_pos: *mut c_int,
    tcoord_max: c_int,
    n_ycoords: *mut c_int,
    ycoord_base: *mut c_int,
    ycoord_pos: *mut c_int,
    ycoord_max: c_int,
    n_bytes: *mut c_int,
    byte_base: *mut c_char,
    byte_pos: *mut c_int,
    byte_max: c_int,
) -> c_int {
    with(fp, |st| {
        let (_, p) = core(st.primitive())?;
        let nv = p.vertices.len();
        // SAFETY: the caller's promises (see # Safety); all checked before writing.
        let (cat, nt, ny, nb, bytes, ts, ys) = unsafe {
            (
                out::<A, _>(category_index, "category_index")?,
                out::<A, _>(n_tcoords, "n_tcoords")?,
                out::<A, _>(n_ycoords, "n_ycoords")?,
                out::<A, _>(n_bytes, "n_bytes")?,
                slots::<A, c_char>(byte_base, byte_pos, byte_max, p.info.len(), "bytes")?,
                slots::<A, f64>(tcoord_base, tcoord_pos, tcoord_max, nv, "tcoords")?,
                slots::<A, c_int>(ycoord_base, ycoord_pos, ycoord_max, nv, "ycoords")?,
            )
        };
        *cat = p.category;
        *nt = c_len::<A>(nv, "vertices")?;
        *ny = *nt;
        *nb = c_len::<A>(p.info.len(), "bytes")?;
        bytes.fill(p.info.iter().map(|&b| b as c_char));
        ts.fill(p.vertices.iter().map(|v| v.time));
        ys.fill(p.vertices.iter().map(|v| v.line));
        st.consume_primitive();
        Ok(0)
    })
}

/// Time box, member count and info size of the current composite. Returns 0;
/// TRACE_ERR_KIND, TRACE_ERR_NULL_ARG, TRACE_ERR_BAD_HANDLE, the reading errors.
///
/// # Safety
/// Each pointer is NULL or valid for one value.
#[no_mangle]
pub unsafe extern "C" fn TRACE_Peek_next_composite(
    fp: TRACE_file,
    starttime: *mut f64,
    endtime: *mut f64,
    n_primitives: *mut c_int,
    n_bytes: *mut c_int,
) -> c_int {
    with(fp, |st| {
        // SAFETY: the caller's promises (see # Safety).
        let (s, e, np, nb) = unsafe {
            (
                out::<A, _>(starttime, "starttime")?,
                out::<A, _>(endtime, "endtime")?,
                out::<A, _>(n_primitives, "n_primitives")?,
                out::<A, _>(n_bytes, "n_bytes")?,
            )
        };
        let c = core(st.composite())?;
        *s = c.stated.start;
        *e = c.stated.end;
        *np = c_len::<A>(c.composite.members.len(), "members")?;
        *nb = c_len::<A>(c.composite.info.len(), "bytes")?;
        Ok(0)
    })
}

/// The current composite's category index and info bytes. Optional: its
/// members follow through Peek/Get_next_primitive either way. Returns as
/// TRACE_Get_next_category.
///
/// # Safety
/// As TRACE_Get_next_category.
#[no_mangle]
pub unsafe extern "C" fn TRACE_Get_next_composite(
    fp: TRACE_file,
    category_index: *mut c_int,
    n_bytes: *mut c_int,
    byte_base: *mut c_char,
    byte_pos: *mut c_int,
    byte_max: c_int,
) -> c_int {
    with(fp, |st| {
        let c = core(st.composite())?;
        // SAFETY: the caller's promises (see # Safety); all checked before writing.
        let (cat, nb, bytes) = unsafe {
            (
                out::<A, _>(category_index, "category_index")?,
                out::<A, _>(n_bytes, "n_bytes")?,
                slots::<A, c_char>(
                    byte_base,
                    byte_pos,
                    byte_max,
                    c.composite.info.len(),
                    "bytes",
                )?,
            )
        };
        *cat = c.composite.category;
        *nb = c_len::<A>(c.composite.info.len(), "bytes")?;
        bytes.fill(c.composite.info.iter().map(|&b| b as c_char));
        Ok(0)
    })
}

/// Opaque cookie of the record the next `TRACE_Peek_next_kind` announces
/// (only between top-level records, not inside a composite). Returns 0;
/// TRACE_ERR_POSITION (inside a composite), TRACE_ERR_NULL_ARG, TRACE_ERR_BAD_HANDLE.
///
/// # Safety
/// `offset` is NULL or valid for one value.
#[no_mangle]
pub unsafe extern "C" fn TRACE_Get_position(fp: TRACE_file, offset: *mut TRACE_int64_t) -> c_int {
    with(fp, |st| {
        // SAFETY: the caller's promise on `offset`.
        let o = unsafe { out::<A, _>(offset, "offset") }?;
        *o = st
            .position()
            .ok_or_else(|| fail(TRACE_ERR_POSITION, "TRACE_Get_position inside a composite"))?;
        Ok(0)
    })
}

/// Go to a cookie from `TRACE_Get_position` of this handle. The reader
/// keeps a checkpoint every 256 records as it reads (a text file: byte
/// offset and line; an SLOG-2 file: the nodes being merged), so a move goes
/// to the checkpoint at or before the cookie and reads at most 255 records
/// from there — never from the start of the trace. A short forward move
/// just skips records. Sources that cannot seek (a pipe, a C plugin, a
/// CLOG2 log, whose pairing state is not kept) reopen the trace and skip
/// from its start. Returns 0; TRACE_ERR_POSITION (negative, past the end),
/// TRACE_ERR_BAD_HANDLE, the reading errors.
///
/// # Safety
/// No pointer is used.
#[no_mangle]
pub unsafe extern "C" fn TRACE_Set_position(fp: TRACE_file, offset: TRACE_int64_t) -> c_int {
    with(fp, |st| {
        if !core(st.set_position(offset))? {
            return Err(fail(
                TRACE_ERR_POSITION,
                format!("no record at position {offset}: negative, or past the end of the trace"),
            ));
        }
        Ok(0)
    })
}

/// Static text for any code (never NULL). Code 0 gives the help text (the
/// TRACE-API convention).
#[no_mangle]
pub extern "C" fn TRACE_Get_err_string(ierr: c_int) -> *mut c_char {
    let s: &CStr = match ierr {
        0 => HELP,
        TRACE_ERR_NULL_ARG => c"TRACE: a required pointer argument is NULL",
        TRACE_ERR_BAD_HANDLE => c"TRACE: unknown, closed or NULL TRACE_file handle",
        TRACE_ERR_OPEN => c"TRACE: cannot open the trace file (missing or not readable; see SLOG2_Get_last_error)",
        TRACE_ERR_READ => c"TRACE: the trace is damaged (see SLOG2_Get_last_error for the byte offset)",
        TRACE_ERR_KIND => c"TRACE: the call does not match the kind of the current record",
        TRACE_ERR_ARRAY_TOO_SMALL => c"TRACE: an output array is too small (pos + n > max); nothing was written",
        TRACE_ERR_BAD_ARG => c"TRACE: an argument is out of range (negative pos or max, ...)",
        TRACE_ERR_UNSUPPORTED => c"TRACE: function not supported by this implementation",
        TRACE_ERR_POSITION => {
            c"TRACE: invalid position (not from TRACE_Get_position, past the end, or inside a composite)"
        }
        E_PANIC => c"TRACE: internal error (caught at the C boundary)",
        TRACE_ERR_IO => c"TRACE: I/O error reading the trace (see SLOG2_Get_last_error for the file)",
        TRACE_ERR_PARSE => c"TRACE: malformed record (see SLOG2_Get_last_error for file:line:column)",
        TRACE_ERR_INVALID_DRAWABLE => c"TRACE: a drawable breaks the TRACE-API rules (end-time order, box, vertices)",
        TRACE_ERR_SOURCE => c"TRACE: the external TRACE library reported an error",
        _ => c"TRACE: unknown error code",
    };
    s.as_ptr() as *mut c_char
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::every_variant;

    /// The TRACE code of every error kind. The TRACE API has fewer codes
    /// than there are kinds: an order violation is an invalid drawable
    /// (TRACE-API rules), and "no drawables" (which a reader never meets)
    /// reads as a damaged trace. Every other kind has its own code.
    #[test]
    fn every_kind_has_its_trace_code() {
        let want = |k: ErrorKind| match k {
            ErrorKind::Io => TRACE_ERR_IO,
            ErrorKind::Format => TRACE_ERR_READ,
            ErrorKind::Order => TRACE_ERR_INVALID_DRAWABLE,
            ErrorKind::InvalidDrawable => TRACE_ERR_INVALID_DRAWABLE,
            ErrorKind::Parse => TRACE_ERR_PARSE,
            ErrorKind::InvalidArgument => TRACE_ERR_BAD_ARG,
            ErrorKind::Source => TRACE_ERR_SOURCE,
            ErrorKind::NoDrawables => TRACE_ERR_READ,
            ErrorKind::Unsupported => TRACE_ERR_UNSUPPORTED,
            ErrorKind::Closed => TRACE_ERR_BAD_HANDLE,
            ErrorKind::State => TRACE_ERR_KIND,
        };
        let shared = [
            [ErrorKind::Order, ErrorKind::InvalidDrawable],
            [ErrorKind::Format, ErrorKind::NoDrawables],
        ];
        for a in ErrorKind::ALL {
            assert_eq!(TraceApi::code_of(a), want(a), "{a:?}");
            for b in ErrorKind::ALL {
                let same = TraceApi::code_of(a) == TraceApi::code_of(b);
                let allowed = a == b || shared.iter().any(|p| p.contains(&a) && p.contains(&b));
                assert_eq!(same, allowed, "{a:?} and {b:?}");
            }
            let text = unsafe { CStr::from_ptr(TRACE_Get_err_string(want(a))) };
            assert_ne!(text.to_str().unwrap(), "TRACE: unknown error code");
        }
        for e in every_variant() {
            assert_eq!(TraceApi::code(&e), want(e.kind()), "{e}");
        }
        // TRACE_Open: an I/O error is "cannot open"; any other kind keeps its code.
        assert_eq!(
            open_code(&::slog2::Error::io("x", std::io::Error::other("e"))),
            TRACE_ERR_OPEN
        );
        for e in every_variant()
            .into_iter()
            .filter(|e| e.kind() != ErrorKind::Io)
        {
            assert_eq!(open_code(&e), TraceApi::code(&e), "{e}");
        }
    }

    /// A TRACE handle whose call panicked is retired: later calls get
    /// TRACE_ERR_BAD_HANDLE, and other handles are untouched.
    #[test]
    fn a_trace_whose_call_panicked_is_retired() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.txt");
        std::fs::write(
            &p,
            "Category[ index=0 name=s topo=State color=(255,0,0,255,true) width=1 ]\n",
        )
        .unwrap();
        let spec = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        let (mut a, mut b): (TRACE_file, TRACE_file) = (std::ptr::null_mut(), std::ptr::null_mut());
        let mut k = TRACE_Rec_Kind_t::TRACE_EOF;
        // SAFETY: valid strings and out-pointers.
        unsafe {
            assert_eq!(TRACE_Open(spec.as_ptr(), &mut a), 0);
            assert_eq!(TRACE_Open(spec.as_ptr(), &mut b), 0);
            assert_eq!(with(a, |_| panic!("half done")), TRACE_ERR_PANIC);
            assert_eq!(TRACE_Peek_next_kind(a, &mut k), TRACE_ERR_BAD_HANDLE);
            let msg = CStr::from_ptr(crate::last_error_ptr()).to_string_lossy();
            assert!(msg.contains("TRACE_file handle was retired"), "{msg}");
            assert_eq!(TRACE_Close(&mut a), TRACE_ERR_BAD_HANDLE);
            assert_eq!(TRACE_Peek_next_kind(b, &mut k), 0);
            assert_eq!(k, TRACE_Rec_Kind_t::TRACE_CATEGORY);
            assert_eq!(TRACE_Close(&mut b), 0);
        }
    }
}
