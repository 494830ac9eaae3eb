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
//! Thread safety: any function may be called from any thread; calls on all
//! TRACE handles serialise on one lock.

#![allow(non_camel_case_types, non_snake_case)]

use std::collections::VecDeque;
use std::ffi::{c_char, c_int, CStr};
use std::path::PathBuf;

use super::{guard, put, put_cstr, room, set_last_error, Registry, Room};
use crate::model::*;
use crate::trace::{open_source, Record, TraceSource};

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

// Return codes (0 = success; documented in TRACE_Get_err_string).
const E_NULL: c_int = 1;
const E_HANDLE: c_int = 2;
const E_OPEN: c_int = 3;
const E_READ: c_int = 4;
const E_KIND: c_int = 5;
const E_SMALL: c_int = 6;
const E_ARG: c_int = 7;
const E_UNSUPPORTED: c_int = 8;
const E_POSITION: c_int = 9;
const E_PANIC: c_int = 10;

const HELP: &CStr = c"usage: TRACE_Open(filespec): filespec is the path of one trace file, either an SLOG-2 2.0.6 file \
or a text trace in slog2sdk's sample format (Category/YCoordMap/Primitive/Composite lines); the kind is chosen by \
content. A filespec whose first word is -h, --h, -help or --help asks for this text.";

struct State {
    path: PathBuf,
    src: Box<dyn TraceSource + Send>,
    /// The current (peeked, not yet consumed) top-level record.
    current: Option<Record>,
    /// Members of the composite being delivered.
    members: VecDeque<(TimeBox, Primitive)>,
    eof: bool,
    /// Top-level records consumed so far (the position cookie).
    consumed: i64,
}

impl State {
    fn open(path: PathBuf) -> crate::Result<State> {
        let src = open_source(&path)?;
        Ok(State {
            path,
            src,
            current: None,
            members: VecDeque::new(),
            eof: false,
            consumed: 0,
        })
    }

    /// Load the next top-level record if none is current.
    fn fill(&mut self) -> Result<(), c_int> {
        if self.current.is_none() && self.members.is_empty() && !self.eof {
            match self.src.next_record() {
                Ok(Some(r)) => self.current = Some(r),
                Ok(None) => self.eof = true,
                Err(e) => {
                    set_last_error(e.to_string());
                    return Err(E_READ);
                }
            }
        }
        Ok(())
    }

    fn kind(&mut self) -> Result<TRACE_Rec_Kind_t, c_int> {
        self.fill()?;
        if !self.members.is_empty() {
            return Ok(TRACE_Rec_Kind_t::TRACE_PRIMITIVE_DRAWABLE);
        }
        Ok(match &self.current {
            None => TRACE_Rec_Kind_t::TRACE_EOF,
            Some(Record::Primitive(_)) => TRACE_Rec_Kind_t::TRACE_PRIMITIVE_DRAWABLE,
            Some(Record::Composite(_)) => TRACE_Rec_Kind_t::TRACE_COMPOSITE_DRAWABLE,
            Some(Record::Category(_)) => TRACE_Rec_Kind_t::TRACE_CATEGORY,
            Some(Record::YCoordMap(_)) => TRACE_Rec_Kind_t::TRACE_YCOORDMAP,
        })
    }

    /// The primitive a Peek/Get_next_primitive refers to, entering a composite if needed.
    fn primitive(&mut self) -> Result<(TimeBox, &Primitive), c_int> {
        self.fill()?;
        if self.members.is_empty() {
            if let Some(Record::Composite(_)) = &self.current {
                if let Some(Record::Composite(c)) = self.current.take() {
                    self.consumed += 1;
                    self.members = c
                        .member_boxes
                        .into_iter()
                        .zip(c.composite.members)
                        .collect();
                }
            }
        }
        if let Some((b, p)) = self.members.front() {
            return Ok((*b, p));
        }
        match &self.current {
            Some(Record::Primitive(p)) => Ok((p.stated, &p.primitive)),
            _ => Err(wrong_kind("a primitive")),
        }
    }

    fn consume_primitive(&mut self) {
        if self.members.pop_front().is_none() {
            self.current = None;
            self.consumed += 1;
        }
    }

    fn consume(&mut self) {
        self.current = None;
        self.consumed += 1;
    }
}

fn wrong_kind(what: &str) -> c_int {
    set_last_error(format!("the current record is not {what}"));
    E_KIND
}

static TRACES: Registry<State> = Registry::new();

fn id(fp: TRACE_file) -> usize {
    fp as usize
}

/// Run `f` on the handle's state.
fn with(fp: TRACE_file, f: impl FnOnce(&mut State) -> c_int) -> c_int {
    guard(E_PANIC, || {
        if fp.is_null() {
            set_last_error("NULL TRACE_file handle");
            return E_HANDLE;
        }
        TRACES.with(id(fp), f).unwrap_or_else(|| {
            set_last_error("unknown or closed TRACE_file handle");
            E_HANDLE
        })
    })
}

fn check(r: Room, what: &str) -> Result<(), c_int> {
    match r {
        Room::Ok => Ok(()),
        Room::NullArg => {
            set_last_error(format!("{what}: NULL pointer"));
            Err(E_NULL)
        }
        Room::BadArg => {
            set_last_error(format!("{what}: negative pos or max"));
            Err(E_ARG)
        }
        Room::TooSmall => {
            set_last_error(format!("{what}: array too small (pos + n > max)"));
            Err(E_SMALL)
        }
    }
}

macro_rules! nonnull {
    ($($p:expr),*) => {
        $( if $p.is_null() { set_last_error(concat!("NULL argument: ", stringify!($p))); return E_NULL; } )*
    };
}

/// Open a trace. `*fp` is always stored: a handle on success; NULL with
/// return 0 when the filespec asks for help (print `TRACE_Get_err_string(0)`);
/// NULL with a non-zero code on failure.
#[no_mangle]
pub unsafe extern "C" fn TRACE_Open(filespec: *const c_char, fp: *mut TRACE_file) -> c_int {
    guard(E_PANIC, || {
        nonnull!(fp);
        *fp = std::ptr::null_mut();
        nonnull!(filespec);
        let spec = CStr::from_ptr(filespec).to_string_lossy().into_owned();
        let first = spec.split_whitespace().next().unwrap_or("");
        if matches!(first, "-h" | "--h" | "-help" | "--help") {
            return 0;
        }
        match State::open(PathBuf::from(spec.trim())) {
            Ok(st) => {
                *fp = TRACES.insert(st) as TRACE_file;
                0
            }
            Err(e) => {
                set_last_error(e.to_string());
                E_OPEN
            }
        }
    })
}

/// Close a trace and set `*fp` to NULL. `*fp == NULL` returns 0; an unknown
/// or already-closed handle returns an error code.
#[no_mangle]
pub unsafe extern "C" fn TRACE_Close(fp: *mut TRACE_file) -> c_int {
    guard(E_PANIC, || {
        nonnull!(fp);
        if (*fp).is_null() {
            return 0;
        }
        match TRACES.remove(id(*fp)) {
            Some(_) => {
                *fp = std::ptr::null_mut();
                0
            }
            None => {
                set_last_error("unknown or closed TRACE_file handle");
                E_HANDLE
            }
        }
    })
}

/// Kind of the next record (`TRACE_EOF` at the end, again on every later call). Idempotent.
#[no_mangle]
pub unsafe extern "C" fn TRACE_Peek_next_kind(
    fp: TRACE_file,
    next_kind: *mut TRACE_Rec_Kind_t,
) -> c_int {
    with(fp, |st| {
        nonnull!(next_kind);
        match st.kind() {
            Ok(k) => {
                *next_kind = k;
                0
            }
            Err(c) => c,
        }
    })
}

/// Not supported: no record kind announces a method (returns an error code, writes nothing).
#[no_mangle]
pub unsafe extern "C" fn TRACE_Get_next_method(
    fp: TRACE_file,
    method_name: *mut c_char,
    method_extra: *mut c_char,
    methodID: *mut c_int,
) -> c_int {
    let _ = (method_name, method_extra, methodID);
    with(fp, |_| {
        set_last_error("TRACE_Get_next_method is not supported");
        E_UNSUPPORTED
    })
}

/// Sizes of the current category: legend (name) and label characters (no NUL), method IDs.
#[no_mangle]
pub unsafe extern "C" fn TRACE_Peek_next_category(
    fp: TRACE_file,
    n_legend: *mut c_int,
    n_label: *mut c_int,
    n_methodIDs: *mut c_int,
) -> c_int {
    with(fp, |st| {
        nonnull!(n_legend, n_label, n_methodIDs);
        if let Err(c) = st.fill() {
            return c;
        }
        let Some(Record::Category(c)) = &st.current else {
            return wrong_kind("a category");
        };
        *n_legend = c.name.len() as c_int;
        *n_label = c.info.label().len() as c_int;
        *n_methodIDs = c.methods.len() as c_int;
        0
    })
}

/// The current category: head, legend (name) and label characters (no NUL),
/// method IDs, through four-argument arrays. Consumes the category.
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
        nonnull!(head, n_legend, n_label, n_methodIDs);
        if let Err(c) = st.fill() {
            return c;
        }
        let Some(Record::Category(c)) = &st.current else {
            return wrong_kind("a category");
        };
        let label = c.info.label();
        let r = check(
            room(legend_pos, legend_max, c.name.len(), legend_base.is_null()),
            "legend",
        )
        .and_then(|_| {
            check(
                room(label_pos, label_max, label.len(), label_base.is_null()),
                "label",
            )
        })
        .and_then(|_| {
            check(
                room(
                    methodID_pos,
                    methodID_max,
                    c.methods.len(),
                    methodID_base.is_null(),
                ),
                "methodIDs",
            )
        });
        if let Err(code) = r {
            return code;
        }
        *head = TRACE_Category_head_t {
            index: c.index,
            shape: c.topology as c_int,
            red: c.color.red as c_int,
            green: c.color.green as c_int,
            blue: c.color.blue as c_int,
            alpha: c.color.alpha as c_int,
            width: c.width as c_int,
        };
        let name: Vec<c_char> = c.name.bytes().map(|b| b as c_char).collect();
        let lab: Vec<c_char> = label.bytes().map(|b| b as c_char).collect();
        put(n_legend, legend_base, legend_pos, &name);
        put(n_label, label_base, label_pos, &lab);
        put(n_methodIDs, methodID_base, methodID_pos, &c.methods);
        st.consume();
        0
    })
}

/// Shape of the current y-map: rows, columns (line ID + values), buffer sizes
/// of a column name and of the title *including* the NUL, method IDs.
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
        nonnull!(
            n_rows,
            n_columns,
            max_column_name,
            max_title_name,
            n_methodIDs
        );
        if let Err(c) = st.fill() {
            return c;
        }
        let Some(Record::YCoordMap(m)) = &st.current else {
            return wrong_kind("a y-coordinate map");
        };
        *n_rows = m.rows.len() as c_int;
        *n_columns = m.column_labels.len() as c_int + 1;
        *max_column_name = m
            .column_labels
            .iter()
            .map(|l| l.len() + 1)
            .max()
            .unwrap_or(0) as c_int;
        *max_title_name = m.title.len() as c_int + 1;
        *n_methodIDs = m.methods.len() as c_int;
        0
    })
}

/// The current y-map: NUL-terminated title into a buffer of `max_title_name`
/// bytes, `n_columns - 1` column names into the caller's buffers of
/// `max_column_name` bytes, elements row-major (`line ID, values...`), method IDs.
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
        nonnull!(title_name, coordmap_sz, n_methodIDs);
        if let Err(c) = st.fill() {
            return c;
        }
        let Some(Record::YCoordMap(m)) = &st.current else {
            return wrong_kind("a y-coordinate map");
        };
        if !m.column_labels.is_empty() {
            nonnull!(column_names);
            for i in 0..m.column_labels.len() {
                if (*column_names.add(i)).is_null() {
                    set_last_error("NULL column name buffer");
                    return E_NULL;
                }
            }
        }
        let elems: Vec<c_int> = m
            .rows
            .iter()
            .flat_map(|(l, v)| std::iter::once(*l).chain(v.iter().copied()))
            .collect();
        let r = check(
            room(
                coordmap_pos,
                coordmap_max,
                elems.len(),
                coordmap_base.is_null(),
            ),
            "coordmap",
        )
        .and_then(|_| {
            check(
                room(
                    methodID_pos,
                    methodID_max,
                    m.methods.len(),
                    methodID_base.is_null(),
                ),
                "methodIDs",
            )
        });
        if let Err(code) = r {
            return code;
        }
        // Buffers are as large as the Peek said (title + NUL, longest name + NUL).
        put_cstr(title_name, m.title.len() + 1, &m.title);
        for (i, l) in m.column_labels.iter().enumerate() {
            put_cstr(*column_names.add(i), l.len() + 1, l);
        }
        put(coordmap_sz, coordmap_base, coordmap_pos, &elems);
        put(n_methodIDs, methodID_base, methodID_pos, &m.methods);
        st.consume();
        0
    })
}

/// Time box and counts of the current primitive (inside a composite: of its
/// next member; the first call after `TRACE_Peek_next_composite` enters it).
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
        nonnull!(starttime, endtime, n_tcoords, n_ycoords, n_bytes);
        match st.primitive() {
            Ok((b, p)) => {
                *starttime = b.start;
                *endtime = b.end;
                *n_tcoords = p.vertices.len() as c_int;
                *n_ycoords = p.vertices.len() as c_int;
                *n_bytes = p.info.len() as c_int;
                0
            }
            Err(c) => c,
        }
    })
}

/// The current primitive: category index, vertex times, vertex line IDs, info
/// bytes. Consumes it (inside a composite: moves to the next member).
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
        nonnull!(category_index, n_tcoords, n_ycoords, n_bytes);
        let (ts, ys, bytes, cat) = match st.primitive() {
            Ok((_, p)) => (
                p.vertices.iter().map(|v| v.time).collect::<Vec<f64>>(),
                p.vertices.iter().map(|v| v.line).collect::<Vec<c_int>>(),
                p.info.iter().map(|&b| b as c_char).collect::<Vec<c_char>>(),
                p.category,
            ),
            Err(c) => return c,
        };
        let r = check(
            room(byte_pos, byte_max, bytes.len(), byte_base.is_null()),
            "bytes",
        )
        .and_then(|_| {
            check(
                room(tcoord_pos, tcoord_max, ts.len(), tcoord_base.is_null()),
                "tcoords",
            )
        })
        .and_then(|_| {
            check(
                room(ycoord_pos, ycoord_max, ys.len(), ycoord_base.is_null()),
                "ycoords",
            )
        });
        if let Err(code) = r {
            return code;
        }
        *category_index = cat;
        put(n_bytes, byte_base, byte_pos, &bytes);
        put(n_tcoords, tcoord_base, tcoord_pos, &ts);
        put(n_ycoords, ycoord_base, ycoord_pos, &ys);
        st.consume_primitive();
        0
    })
}

/// Time box, member count and info size of the current composite.
#[no_mangle]
pub unsafe extern "C" fn TRACE_Peek_next_composite(
    fp: TRACE_file,
    starttime: *mut f64,
    endtime: *mut f64,
    n_primitives: *mut c_int,
    n_bytes: *mut c_int,
) -> c_int {
    with(fp, |st| {
        nonnull!(starttime, endtime, n_primitives, n_bytes);
        if let Err(c) = st.fill() {
            return c;
        }
        let Some(Record::Composite(c)) = &st.current else {
            return wrong_kind("a composite");
        };
        *starttime = c.stated.start;
        *endtime = c.stated.end;
        *n_primitives = c.composite.members.len() as c_int;
        *n_bytes = c.composite.info.len() as c_int;
        0
    })
}

/// The current composite's category index and info bytes. Optional: its
/// members follow through Peek/Get_next_primitive either way.
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
        nonnull!(category_index, n_bytes);
        if let Err(c) = st.fill() {
            return c;
        }
        let Some(Record::Composite(c)) = &st.current else {
            return wrong_kind("a composite");
        };
        let bytes: Vec<c_char> = c.composite.info.iter().map(|&b| b as c_char).collect();
        if let Err(code) = check(
            room(byte_pos, byte_max, bytes.len(), byte_base.is_null()),
            "bytes",
        ) {
            return code;
        }
        *category_index = c.composite.category;
        put(n_bytes, byte_base, byte_pos, &bytes);
        0
    })
}

/// Opaque cookie of the record the next `TRACE_Peek_next_kind` announces
/// (only between top-level records, not inside a composite).
#[no_mangle]
pub unsafe extern "C" fn TRACE_Get_position(fp: TRACE_file, offset: *mut TRACE_int64_t) -> c_int {
    with(fp, |st| {
        nonnull!(offset);
        if !st.members.is_empty() {
            set_last_error("TRACE_Get_position inside a composite");
            return E_POSITION;
        }
        *offset = st.consumed;
        0
    })
}

/// Go back (or forward) to a cookie from `TRACE_Get_position` of this handle.
#[no_mangle]
pub unsafe extern "C" fn TRACE_Set_position(fp: TRACE_file, offset: TRACE_int64_t) -> c_int {
    with(fp, |st| {
        if offset < 0 {
            set_last_error("negative position");
            return E_POSITION;
        }
        if offset == st.consumed && st.members.is_empty() {
            return 0;
        }
        let mut fresh = match State::open(st.path.clone()) {
            Ok(s) => s,
            Err(e) => {
                set_last_error(e.to_string());
                return E_READ;
            }
        };
        while fresh.consumed < offset {
            match fresh.kind() {
                Ok(TRACE_Rec_Kind_t::TRACE_EOF) => {
                    set_last_error(format!("position {offset} is past the end of the trace"));
                    return E_POSITION;
                }
                Ok(_) => fresh.consume(),
                Err(c) => return c,
            }
        }
        *st = fresh;
        0
    })
}

/// Static text for any code. Code 0 gives the help text (the TRACE-API convention).
#[no_mangle]
pub extern "C" fn TRACE_Get_err_string(ierr: c_int) -> *mut c_char {
    let s: &CStr = match ierr {
        0 => HELP,
        E_NULL => c"TRACE: a required pointer argument is NULL",
        E_HANDLE => c"TRACE: unknown, closed or NULL TRACE_file handle",
        E_OPEN => c"TRACE: cannot open the trace (missing file, or not an SLOG-2 or sample-format text trace)",
        E_READ => c"TRACE: error reading the trace (malformed record; see SLOG2_Get_last_error for file:line:column)",
        E_KIND => c"TRACE: the call does not match the kind of the current record",
        E_SMALL => c"TRACE: an output array is too small (pos + n > max); nothing was written",
        E_ARG => c"TRACE: negative pos or max in a four-argument array",
        E_UNSUPPORTED => c"TRACE: function not supported by this implementation",
        E_POSITION => c"TRACE: invalid position (not from TRACE_Get_position, past the end, or inside a composite)",
        E_PANIC => c"TRACE: internal error (caught at the C boundary)",
        _ => c"TRACE: unknown error code",
    };
    s.as_ptr() as *mut c_char
}
