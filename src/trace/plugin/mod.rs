//! External C TRACE-API readers (dlopen).
//!
//! Tool writers with their own trace format implement slog2sdk's TRACE-API in
//! C, build it as a shared library, and convert through it with
//! `slog2 convert --trace-lib LIB.so FILESPEC`. This module loads such a
//! library with `libloading`, resolves its `TRACE_*` symbols, and drives it
//! with exactly the call protocol of `trace-api.md` §1.5 (one `Peek_next_kind`
//! per record, then the matching Peek/Get pair; composites followed by their
//! member primitives). Buffers are sized from each Peek, as the reference JNI
//! bridge does, and every count a plugin reports is validated before use.
//!
//! Required symbols: the twelve the reference converter calls (Open, Close,
//! Peek_next_kind, Get_err_string, Peek/Get of category, y-map, primitive and
//! composite). `TRACE_Get_next_method` and the position functions are never
//! called by a converter and slog2sdk's own sample reader does not export
//! them, so they are not required.
//!
//! # slog2's bulk extension (optional)
//!
//! Three calls per drawable (Peek_next_kind, Peek_next_primitive,
//! Get_next_primitive) were a third of the OTF2 plugin's reading thread. A
//! library may also export `SLOG2_TRACE_Get_next_primitives`
//! (`include/slog2_trace_ext.h`, ours, not slog2sdk's): one call copies a run
//! of consecutive primitives into arrays. It is looked up with `dlsym` at
//! load and used by [`TraceSource::append_records`] (the read-ahead thread)
//! and [`TraceSource::next_records`] (reading on the converting thread);
//! every record it does not take (a category, the y-map, a composite, a
//! primitive too large for its arrays, the end) and every error goes
//! through the standard calls, so records, locations and messages are those
//! of the standard protocol. `SLOG2_TRACE_NO_EXT=1` ignores the extension;
//! a library without it is read as before.
//!
//! Plugins this project ships (the OTF2 reader) are found without
//! `--trace-lib`: [`find_plugin`] and the module `plugin/discovery.rs`.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::path::Path;

use crate::error::{Error, Result};
use crate::model::*;
use crate::trace::{Record, TraceComposite, TracePrimitive, TraceSource};

mod discovery;
pub use discovery::*;

type TraceFile = *mut c_void;

#[repr(C)]
#[derive(Default)]
struct Head {
    index: c_int,
    shape: c_int,
    red: c_int,
    green: c_int,
    blue: c_int,
    alpha: c_int,
    width: c_int,
}

type OpenFn = unsafe extern "C" fn(*const c_char, *mut TraceFile) -> c_int;
type CloseFn = unsafe extern "C" fn(*mut TraceFile) -> c_int;
type PeekKindFn = unsafe extern "C" fn(TraceFile, *mut c_int) -> c_int;
type ErrStrFn = unsafe extern "C" fn(c_int) -> *mut c_char;
type PeekCatFn = unsafe extern "C" fn(TraceFile, *mut c_int, *mut c_int, *mut c_int) -> c_int;
type GetCatFn = unsafe extern "C" fn(
    TraceFile,
    *mut Head,
    *mut c_int,
    *mut c_char,
    *mut c_int,
    c_int,
    *mut c_int,
    *mut c_char,
    *mut c_int,
    c_int,
    *mut c_int,
    *mut c_int,
    *mut c_int,
    c_int,
) -> c_int;
type PeekMapFn = unsafe extern "C" fn(
    TraceFile,
    *mut c_int,
    *mut c_int,
    *mut c_int,
    *mut c_int,
    *mut c_int,
) -> c_int;
type GetMapFn = unsafe extern "C" fn(
    TraceFile,
    *mut c_char,
    *mut *mut c_char,
    *mut c_int,
    *mut c_int,
    *mut c_int,
    c_int,
    *mut c_int,
    *mut c_int,
    *mut c_int,
    c_int,
) -> c_int;
type PeekPrimFn = unsafe extern "C" fn(
    TraceFile,
    *mut f64,
    *mut f64,
    *mut c_int,
    *mut c_int,
    *mut c_int,
) -> c_int;
type GetPrimFn = unsafe extern "C" fn(
    TraceFile,
    *mut c_int,
    *mut c_int,
    *mut f64,
    *mut c_int,
    c_int,
    *mut c_int,
    *mut c_int,
    *mut c_int,
    c_int,
    *mut c_int,
    *mut c_char,
    *mut c_int,
    c_int,
) -> c_int;
type PeekCompFn =
    unsafe extern "C" fn(TraceFile, *mut f64, *mut f64, *mut c_int, *mut c_int) -> c_int;
/// `SLOG2_TRACE_Get_next_primitives` (include/slog2_trace_ext.h).
type BulkFn = unsafe extern "C" fn(
    TraceFile,
    c_int,
    *mut c_int,
    *mut f64,
    *mut f64,
    *mut c_int,
    *mut c_int,
    *mut f64,
    c_int,
    *mut c_int,
    *mut c_int,
    c_int,
    *mut c_int,
    *mut c_char,
    c_int,
) -> c_int;
type GetCompFn = unsafe extern "C" fn(
    TraceFile,
    *mut c_int,
    *mut c_int,
    *mut c_char,
    *mut c_int,
    c_int,
) -> c_int;

struct Api {
    open: OpenFn,
    close: CloseFn,
    peek_kind: PeekKindFn,
    err_string: ErrStrFn,
    peek_cat: PeekCatFn,
    get_cat: GetCatFn,
    peek_map: PeekMapFn,
    get_map: GetMapFn,
    peek_prim: PeekPrimFn,
    get_prim: GetPrimFn,
    peek_comp: PeekCompFn,
    get_comp: GetCompFn,
    /// slog2's optional bulk extension, when the library exports it.
    bulk: Option<BulkFn>,
}

/// The optional symbol of slog2's bulk extension (include/slog2_trace_ext.h).
pub const BULK_SYMBOL: &str = "SLOG2_TRACE_Get_next_primitives";

/// Environment variable that, set to anything but empty or `0`, makes
/// [`PluginSource::open`] ignore the bulk extension (to compare both paths).
pub const NO_EXT_ENV: &str = "SLOG2_TRACE_NO_EXT";

/// Primitives asked for per bulk call, and the room for their coordinates
/// and info bytes (a primitive that does not fit goes the standard way).
const BULK_PRIMS: usize = 256;
const BULK_COORDS: usize = 4 * BULK_PRIMS;
const BULK_BYTES: usize = 64 * BULK_PRIMS;

/// Names of the symbols a TRACE plugin must export.
pub const REQUIRED_SYMBOLS: [&str; 12] = [
    "TRACE_Open",
    "TRACE_Close",
    "TRACE_Peek_next_kind",
    "TRACE_Get_err_string",
    "TRACE_Peek_next_category",
    "TRACE_Get_next_category",
    "TRACE_Peek_next_ycoordmap",
    "TRACE_Get_next_ycoordmap",
    "TRACE_Peek_next_primitive",
    "TRACE_Get_next_primitive",
    "TRACE_Peek_next_composite",
    "TRACE_Get_next_composite",
];

/// Largest count accepted from a plugin's Peek (guards against garbage).
const MAX_COUNT: c_int = 1 << 28;

/// Result of opening a plugin: a source, or the help text it asked us to print.
pub enum PluginOpen {
    Source(PluginSource),
    Help(String),
}

/// A trace read through an external TRACE-API library.
pub struct PluginSource {
    api: Api,
    fp: TraceFile,
    lib_name: String,
    records: u64,
    /// The caller arrays of the TRACE calls, kept from one call to the next
    /// (boxed: a source is moved about).
    bufs: Box<Buffers>,
    /// Records read before the last [`next_records`](TraceSource::next_records) batch.
    first: u64,
    /// An error met after the records of the last batch, owed next.
    pending: Option<Box<Error>>,
    // Keep the library loaded while the function pointers live.
    _lib: libloading::Library,
}

/// The arrays a [`PluginSource`] hands to the library.
#[derive(Default)]
struct Buffers {
    /// Those of `TRACE_Get_next_primitive`, kept from one primitive to the
    /// next: three fresh zeroed vectors per primitive, allocated and freed,
    /// were a quarter of an OTF2 conversion's instructions.
    scratch: Scratch,
    /// Those of the bulk extension (allocated at its first use).
    bulk: Bulk,
}

/// The caller arrays of `TRACE_Get_next_primitive` (see [`Buffers`]).
#[derive(Default)]
struct Scratch {
    t: Vec<f64>,
    y: Vec<c_int>,
    b: Vec<u8>,
}

/// The caller arrays of `SLOG2_TRACE_Get_next_primitives`.
#[derive(Default)]
struct Bulk {
    start: Vec<f64>,
    end: Vec<f64>,
    cat: Vec<c_int>,
    nt: Vec<c_int>,
    ny: Vec<c_int>,
    nb: Vec<c_int>,
    t: Vec<f64>,
    y: Vec<c_int>,
    b: Vec<u8>,
}

impl Bulk {
    fn ready(&mut self) {
        if self.t.is_empty() {
            for v in [&mut self.start, &mut self.end] {
                v.resize(BULK_PRIMS, 0.0);
            }
            for v in [&mut self.cat, &mut self.nt, &mut self.ny, &mut self.nb] {
                v.resize(BULK_PRIMS, 0);
            }
            self.t.resize(BULK_COORDS, 0.0);
            self.y.resize(BULK_COORDS, 0);
            self.b.resize(BULK_BYTES, 0);
        }
    }
}

/// A primitive of category `cat` from the coordinates and info bytes a
/// plugin wrote; `record` (1-based) names it in errors.
fn build_primitive(cat: c_int, t: &[f64], y: &[c_int], b: &[u8], record: u64) -> Result<Primitive> {
    let (ont, ony) = (t.len(), y.len());
    if ont == 0 || ony == 0 {
        return Err(Error::Source(format!(
            "primitive (record {record}) has {ont} time and {ony} y coordinates; at least 1 of each is required"
        )));
    }
    // Vertex i takes y[i]; with fewer ys than times, y[i/2] (trace-api.md §1.4).
    // States, arrows and events are built in place (collecting from an
    // iterator cost more than the rest of this function).
    let vertices = match ont {
        1 => Vertices::from_buf_and_len([Vertex::new(t[0], y[0]); 2], 1),
        2 => Vertices::from_buf([
            Vertex::new(t[0], y[0]),
            Vertex::new(t[1], y[if ony >= 2 { 1 } else { 0 }]),
        ]),
        _ => (0..ont)
            .map(|i| {
                let yi = if ony >= ont { i } else { (i / 2).min(ony - 1) };
                Vertex::new(t[i], y[yi])
            })
            .collect(),
    };
    Ok(Primitive::new(cat, vertices, InfoBytes::from_slice(b)))
}

/// The first `n.max(1)` elements of `v`, grown with zeros if shorter.
/// Not zeroed again: only the elements the plugin says it wrote are read,
/// so a plugin that claims more than it wrote shows an earlier primitive's
/// values instead of zeros (wrong either way), and clearing a few bytes per
/// call was a call to `memset` per array.
fn room<T: Copy + Default>(v: &mut Vec<T>, n: usize) -> &mut [T] {
    let n = n.max(1);
    if v.len() < n {
        v.resize(n, T::default());
    }
    &mut v[..n]
}

// SAFETY: a PluginSource owns its handle; the converter uses it from one
// thread at a time (it may move to a reader thread), which the TRACE-API
// allows: it asks no thread affinity of a reader, only no concurrent calls.
unsafe impl Send for PluginSource {}

impl PluginSource {
    /// Load `lib` and `TRACE_Open(filespec)`.
    pub fn open(lib: &Path, filespec: &str) -> Result<PluginOpen> {
        let lib_name = lib.display().to_string();
        // SAFETY: loading a library runs its initialisers; that is the point
        // of a plugin and the user named it explicitly.
        let library = unsafe { libloading::Library::new(lib) }
            .map_err(|e| Error::Source(format!("cannot load TRACE library {lib_name}: {e}")))?;
        let missing: Vec<&str> = REQUIRED_SYMBOLS
            .iter()
            .copied()
            // SAFETY: only looks the symbol up; nothing is called.
            .filter(|s| unsafe { library.get::<*const c_void>(s.as_bytes()) }.is_err())
            .collect();
        if !missing.is_empty() {
            return Err(Error::Source(format!(
                "TRACE library {lib_name} does not export required symbol(s): {}",
                missing.join(", ")
            )));
        }
        // SAFETY: the symbols exist (checked above); their types are the
        // TRACE-API's, which is the contract of a TRACE plugin.
        let api = unsafe {
            Api {
                open: *library.get(b"TRACE_Open").map_err(sym_err)?,
                close: *library.get(b"TRACE_Close").map_err(sym_err)?,
                peek_kind: *library.get(b"TRACE_Peek_next_kind").map_err(sym_err)?,
                err_string: *library.get(b"TRACE_Get_err_string").map_err(sym_err)?,
                peek_cat: *library.get(b"TRACE_Peek_next_category").map_err(sym_err)?,
                get_cat: *library.get(b"TRACE_Get_next_category").map_err(sym_err)?,
                peek_map: *library.get(b"TRACE_Peek_next_ycoordmap").map_err(sym_err)?,
                get_map: *library.get(b"TRACE_Get_next_ycoordmap").map_err(sym_err)?,
                peek_prim: *library.get(b"TRACE_Peek_next_primitive").map_err(sym_err)?,
                get_prim: *library.get(b"TRACE_Get_next_primitive").map_err(sym_err)?,
                peek_comp: *library.get(b"TRACE_Peek_next_composite").map_err(sym_err)?,
                get_comp: *library.get(b"TRACE_Get_next_composite").map_err(sym_err)?,
                bulk: if no_ext() {
                    None
                } else {
                    library
                        .get::<BulkFn>(BULK_SYMBOL.as_bytes())
                        .ok()
                        .map(|f| *f)
                },
            }
        };
        let spec = CString::new(filespec)
            .map_err(|_| Error::InvalidArgument("filespec contains a NUL byte".into()))?;
        let mut fp: TraceFile = std::ptr::null_mut();
        // SAFETY: valid C string and out-pointer.
        let ierr = unsafe { (api.open)(spec.as_ptr(), &mut fp) };
        let src = PluginSource {
            api,
            fp,
            lib_name,
            records: 0,
            bufs: Box::default(),
            first: 0,
            pending: None,
            _lib: library,
        };
        if fp.is_null() {
            let text = src.err_text(ierr);
            return if ierr == 0 {
                Ok(PluginOpen::Help(text))
            } else {
                Err(Error::Source(format!(
                    "TRACE_Open({filespec:?}) failed (code {ierr}): {text}"
                )))
            };
        }
        Ok(PluginOpen::Source(src))
    }

    /// The library's path, as messages name it.
    pub fn lib_name(&self) -> &str {
        &self.lib_name
    }

    fn err_text(&self, ierr: c_int) -> String {
        // SAFETY: the contract says static text; we copy it at once.
        let p = unsafe { (self.api.err_string)(ierr) };
        if p.is_null() {
            return format!("(no error text for code {ierr})");
        }
        // SAFETY: non-NULL (checked above); the library returns NUL-terminated text.
        unsafe { CStr::from_ptr(p) }
            .to_string_lossy()
            .trim_end()
            .to_string()
    }

    #[inline]
    fn call(&self, what: &str, ierr: c_int) -> Result<()> {
        if ierr != 0 {
            return Err(self.failed(what, ierr));
        }
        Ok(())
    }

    #[cold]
    fn failed(&self, what: &str, ierr: c_int) -> Error {
        Error::Source(format!(
            "{} (record {}) failed in {}: code {}: {}",
            what,
            self.records + 1,
            self.lib_name,
            ierr,
            self.err_text(ierr)
        ))
    }

    #[inline]
    fn count(&self, what: &str, n: c_int) -> Result<usize> {
        if !(0..=MAX_COUNT).contains(&n) {
            return Err(self.bad_count(what, n));
        }
        Ok(n as usize)
    }

    #[cold]
    fn bad_count(&self, what: &str, n: c_int) -> Error {
        Error::Source(format!(
            "{what} reported an invalid count {n} (record {})",
            self.records + 1
        ))
    }

    fn primitive(&mut self) -> Result<TracePrimitive> {
        let (mut s, mut e, mut nt, mut ny, mut nb) = (0f64, 0f64, 0, 0, 0);
        // SAFETY: the symbol has the TRACE-API signature (checked at load); every
        // pointer is a local or a buffer sized from the preceding Peek.
        self.call("TRACE_Peek_next_primitive", unsafe {
            (self.api.peek_prim)(self.fp, &mut s, &mut e, &mut nt, &mut ny, &mut nb)
        })?;
        let nt = self.count("TRACE_Peek_next_primitive", nt)?;
        let ny = self.count("TRACE_Peek_next_primitive", ny)?;
        let nb = self.count("TRACE_Peek_next_primitive", nb)?;
        let mut scratch = std::mem::take(&mut self.bufs.scratch);
        let got = self.get_primitive(&mut scratch, nt, ny, nb);
        self.bufs.scratch = scratch;
        Ok(TracePrimitive {
            stated: TimeBox::new(s, e),
            primitive: got?,
        })
    }

    /// `TRACE_Get_next_primitive` into the arrays of `sc`, sized from the
    /// Peek's counts (each at least 1 long).
    fn get_primitive(
        &self,
        sc: &mut Scratch,
        nt: usize,
        ny: usize,
        nb: usize,
    ) -> Result<Primitive> {
        let t = room(&mut sc.t, nt);
        let y = room(&mut sc.y, ny);
        let b = room(&mut sc.b, nb);
        let (mut cat, mut ont, mut ony, mut onb) = (0, 0, 0, 0);
        let (mut tp, mut yp, mut bp) = (0, 0, 0);
        // SAFETY: the symbol has the TRACE-API signature (checked at load); every
        // pointer is a local or a buffer sized from the preceding Peek.
        self.call("TRACE_Get_next_primitive", unsafe {
            (self.api.get_prim)(
                self.fp,
                &mut cat,
                &mut ont,
                t.as_mut_ptr(),
                &mut tp,
                nt as c_int,
                &mut ony,
                y.as_mut_ptr(),
                &mut yp,
                ny as c_int,
                &mut onb,
                b.as_mut_ptr().cast::<c_char>(),
                &mut bp,
                nb as c_int,
            )
        })?;
        let ont = self.count("TRACE_Get_next_primitive", ont)?.min(nt);
        let ony = self.count("TRACE_Get_next_primitive", ony)?.min(ny);
        let onb = self.count("TRACE_Get_next_primitive", onb)?.min(nb);
        build_primitive(cat, &t[..ont], &y[..ony], &b[..onb], self.records + 1)
    }

    /// Does this source read through slog2's bulk extension?
    pub fn uses_bulk(&self) -> bool {
        self.api.bulk.is_some()
    }

    /// Append up to `max` records to `out` through the bulk extension
    /// `bulk`; a record it does not take (not a primitive, too large) goes
    /// through [`next_record`](TraceSource::next_record).
    fn append_bulk(&mut self, bulk: BulkFn, out: &mut Vec<Record>, max: usize) -> Result<bool> {
        let mut bk = std::mem::take(&mut self.bufs.bulk);
        bk.ready();
        let got = self.append_bulk_with(bulk, &mut bk, out, max);
        self.bufs.bulk = bk;
        got
    }

    fn append_bulk_with(
        &mut self,
        bulk: BulkFn,
        bk: &mut Bulk,
        out: &mut Vec<Record>,
        max: usize,
    ) -> Result<bool> {
        let what = BULK_SYMBOL;
        let mut left = max;
        while left > 0 {
            let ask = left.min(BULK_PRIMS);
            let mut n: c_int = 0;
            // SAFETY: the symbol has the signature of slog2_trace_ext.h (the
            // contract of exporting it); every array holds at least the
            // count passed with it.
            let rc = unsafe {
                bulk(
                    self.fp,
                    ask as c_int,
                    &mut n,
                    bk.start.as_mut_ptr(),
                    bk.end.as_mut_ptr(),
                    bk.cat.as_mut_ptr(),
                    bk.nt.as_mut_ptr(),
                    bk.t.as_mut_ptr(),
                    BULK_COORDS as c_int,
                    bk.ny.as_mut_ptr(),
                    bk.y.as_mut_ptr(),
                    BULK_COORDS as c_int,
                    bk.nb.as_mut_ptr(),
                    bk.b.as_mut_ptr().cast::<c_char>(),
                    BULK_BYTES as c_int,
                )
            };
            // On an error, or nothing taken (not a primitive, too large),
            // the standard calls read the next record: a TRACE error is
            // sticky for its handle, so they report it as they always did.
            let n = if rc == 0 { self.count(what, n)? } else { 0 };
            if n == 0 {
                match self.next_record()? {
                    Some(r) => out.push(r),
                    None => return Ok(true),
                }
                left -= 1;
                continue;
            }
            if n > ask {
                return Err(self.bad_count(what, n as c_int));
            }
            let (mut tp, mut yp, mut bp) = (0usize, 0usize, 0usize);
            for i in 0..n {
                let nt = self.count(what, bk.nt[i])?;
                let ny = self.count(what, bk.ny[i])?;
                let nb = self.count(what, bk.nb[i])?;
                let (Some(t), Some(y), Some(b)) = (
                    bk.t.get(tp..tp + nt),
                    bk.y.get(yp..yp + ny),
                    bk.b.get(bp..bp + nb),
                ) else {
                    return Err(self.bad_count(what, bk.nt[i].max(bk.ny[i]).max(bk.nb[i])));
                };
                let primitive = build_primitive(bk.cat[i], t, y, b, self.records + 1)?;
                out.push(Record::Primitive(TracePrimitive {
                    stated: TimeBox::new(bk.start[i], bk.end[i]),
                    primitive,
                }));
                self.records += 1;
                (tp, yp, bp) = (tp + nt, yp + ny, bp + nb);
            }
            left -= n;
        }
        Ok(false)
    }

    fn category(&mut self) -> Result<Category> {
        let (mut nlegend, mut nlabel, mut nmeth) = (0, 0, 0);
        // SAFETY: the symbol has the TRACE-API signature (checked at load); every
        // pointer is a local or a buffer sized from the preceding Peek.
        self.call("TRACE_Peek_next_category", unsafe {
            (self.api.peek_cat)(self.fp, &mut nlegend, &mut nlabel, &mut nmeth)
        })?;
        let nlegend = self.count("TRACE_Peek_next_category", nlegend)?;
        let nlabel = self.count("TRACE_Peek_next_category", nlabel)?;
        let nmeth = self.count("TRACE_Peek_next_category", nmeth)?;
        let mut head = Head::default();
        let mut legend = vec![0 as c_char; nlegend + 1];
        let mut label = vec![0 as c_char; nlabel + 1];
        let mut meth = vec![0 as c_int; nmeth.max(1)];
        let (mut o1, mut o2, mut o3) = (0, 0, 0);
        let (mut p1, mut p2, mut p3) = (0, 0, 0);
        // SAFETY: the symbol has the TRACE-API signature (checked at load); every
        // pointer is a local or a buffer sized from the preceding Peek.
        self.call("TRACE_Get_next_category", unsafe {
            (self.api.get_cat)(
                self.fp,
                &mut head,
                &mut o1,
                legend.as_mut_ptr(),
                &mut p1,
                (nlegend + 1) as c_int,
                &mut o2,
                label.as_mut_ptr(),
                &mut p2,
                (nlabel + 1) as c_int,
                &mut o3,
                meth.as_mut_ptr(),
                &mut p3,
                nmeth as c_int,
            )
        })?;
        let o1 = self.count("TRACE_Get_next_category", o1)?.min(nlegend);
        let o2 = self.count("TRACE_Get_next_category", o2)?.min(nlabel);
        let o3 = self.count("TRACE_Get_next_category", o3)?.min(nmeth);
        let text = |v: &[c_char]| {
            String::from_utf8_lossy(&v.iter().map(|&c| c as u8).collect::<Vec<u8>>()).into_owned()
        };
        let name = text(&legend[..o1]);
        let label = text(&label[..o2]);
        let rec = self.records + 1;
        let bad = |d: String| Error::Source(format!("category {} (record {rec}): {d}", head.index));
        if name.is_empty() {
            return Err(bad("empty legend (name)".into()));
        }
        let topology = Topology::from_i32(head.shape)
            .ok_or_else(|| bad(format!("shape {} is not 0, 1 or 2", head.shape)))?;
        let comp = |v: c_int, what: &str| -> Result<u8> {
            u8::try_from(v).map_err(|_| bad(format!("{what} {v} is outside 0..255")))
        };
        let color = Color::rgba(
            comp(head.red, "red")?,
            comp(head.green, "green")?,
            comp(head.blue, "blue")?,
            comp(head.alpha, "alpha")?,
        );
        let width = i8::try_from(head.width)
            .map_err(|_| bad(format!("width {} does not fit a byte", head.width)))?;
        let mut c = Category::new(head.index, name, topology, color, width);
        c.info = InfoFormat::parse(&label).map_err(bad)?;
        c.methods = meth[..o3].to_vec();
        Ok(c)
    }

    fn ycoordmap(&mut self) -> Result<YCoordMap> {
        let (mut nrows, mut ncols, mut maxcol, mut maxtitle, mut nmeth) = (0, 0, 0, 0, 0);
        // SAFETY: the symbol has the TRACE-API signature (checked at load); every
        // pointer is a local or a buffer sized from the preceding Peek.
        self.call("TRACE_Peek_next_ycoordmap", unsafe {
            (self.api.peek_map)(
                self.fp,
                &mut nrows,
                &mut ncols,
                &mut maxcol,
                &mut maxtitle,
                &mut nmeth,
            )
        })?;
        let nrows = self.count("TRACE_Peek_next_ycoordmap", nrows)?;
        let ncols = self.count("TRACE_Peek_next_ycoordmap", ncols)?;
        let maxcol = self.count("TRACE_Peek_next_ycoordmap", maxcol)?.max(1);
        let maxtitle = self.count("TRACE_Peek_next_ycoordmap", maxtitle)?.max(1);
        let nmeth = self.count("TRACE_Peek_next_ycoordmap", nmeth)?;
        if ncols < 1 {
            return Err(Error::Source(format!(
                "y-map (record {}) has {ncols} columns",
                self.records + 1
            )));
        }
        let nelem = nrows
            .checked_mul(ncols)
            .filter(|n| *n <= MAX_COUNT as usize)
            .ok_or_else(|| Error::Source("y-map too large".into()))?;
        let mut title = vec![0 as c_char; maxtitle];
        let mut names: Vec<Vec<c_char>> =
            (0..ncols - 1).map(|_| vec![0 as c_char; maxcol]).collect();
        let mut name_ptrs: Vec<*mut c_char> = names.iter_mut().map(|v| v.as_mut_ptr()).collect();
        name_ptrs.push(std::ptr::null_mut());
        let mut elems = vec![0 as c_int; nelem.max(1)];
        let mut meth = vec![0 as c_int; nmeth.max(1)];
        let (mut sz, mut ep, mut on, mut mp) = (0, 0, 0, 0);
        // SAFETY: the symbol has the TRACE-API signature (checked at load); every
        // pointer is a local or a buffer sized from the preceding Peek.
        self.call("TRACE_Get_next_ycoordmap", unsafe {
            (self.api.get_map)(
                self.fp,
                title.as_mut_ptr(),
                name_ptrs.as_mut_ptr(),
                &mut sz,
                elems.as_mut_ptr(),
                &mut ep,
                nelem as c_int,
                &mut on,
                meth.as_mut_ptr(),
                &mut mp,
                nmeth as c_int,
            )
        })?;
        let cstr = |v: &[c_char]| {
            let bytes: Vec<u8> = v
                .iter()
                .take_while(|&&c| c != 0)
                .map(|&c| c as u8)
                .collect();
            String::from_utf8_lossy(&bytes).into_owned()
        };
        let sz = self.count("TRACE_Get_next_ycoordmap", sz)?.min(nelem);
        let on = self.count("TRACE_Get_next_ycoordmap", on)?.min(nmeth);
        let rows = elems[..sz]
            .chunks_exact(ncols)
            .map(|r| (r[0], r[1..].to_vec()))
            .collect();
        Ok(YCoordMap {
            title: cstr(&title),
            column_labels: names.iter().map(|n| cstr(n)).collect(),
            rows,
            methods: meth[..on].to_vec(),
        })
    }

    fn composite(&mut self) -> Result<TraceComposite> {
        let (mut s, mut e, mut np, mut nb) = (0f64, 0f64, 0, 0);
        // SAFETY: the symbol has the TRACE-API signature (checked at load); every
        // pointer is a local or a buffer sized from the preceding Peek.
        self.call("TRACE_Peek_next_composite", unsafe {
            (self.api.peek_comp)(self.fp, &mut s, &mut e, &mut np, &mut nb)
        })?;
        let np = self.count("TRACE_Peek_next_composite", np)?;
        let nb = self.count("TRACE_Peek_next_composite", nb)?;
        if np == 0 {
            return Err(Error::Source(format!(
                "composite (record {}) has no members",
                self.records + 1
            )));
        }
        let mut b = vec![0 as c_char; nb.max(1)];
        let (mut cat, mut onb, mut bp) = (0, 0, 0);
        // SAFETY: the symbol has the TRACE-API signature (checked at load); every
        // pointer is a local or a buffer sized from the preceding Peek.
        self.call("TRACE_Get_next_composite", unsafe {
            (self.api.get_comp)(
                self.fp,
                &mut cat,
                &mut onb,
                b.as_mut_ptr(),
                &mut bp,
                nb as c_int,
            )
        })?;
        let onb = self.count("TRACE_Get_next_composite", onb)?.min(nb);
        let mut members = Vec::with_capacity(np);
        let mut member_boxes = Vec::with_capacity(np);
        for _ in 0..np {
            let p = self.primitive()?;
            member_boxes.push(p.stated);
            members.push(p.primitive);
        }
        Ok(TraceComposite {
            stated: TimeBox::new(s, e),
            member_boxes,
            composite: Composite {
                category: cat,
                info: b[..onb].iter().map(|&c| c as u8).collect(),
                members,
            },
        })
    }
}

/// Is the bulk extension switched off ([`NO_EXT_ENV`])?
fn no_ext() -> bool {
    std::env::var_os(NO_EXT_ENV).is_some_and(|v| !v.is_empty() && v != "0")
}

fn sym_err(e: libloading::Error) -> Error {
    Error::Source(format!("cannot resolve TRACE symbol: {e}"))
}

impl TraceSource for PluginSource {
    fn next_record(&mut self) -> Result<Option<Record>> {
        let mut kind: c_int = 0;
        // SAFETY: the symbol has the TRACE-API signature (checked at load); every
        // pointer is a local or a buffer sized from the preceding Peek.
        self.call("TRACE_Peek_next_kind", unsafe {
            (self.api.peek_kind)(self.fp, &mut kind)
        })?;
        let rec = match kind {
            0 => return Ok(None),
            1 => Record::Primitive(self.primitive()?),
            2 => Record::Composite(Box::new(self.composite()?)),
            3 => Record::Category(Box::new(self.category()?)),
            4 => Record::YCoordMap(Box::new(self.ycoordmap()?)),
            k => {
                return Err(Error::Source(format!(
                    "TRACE_Peek_next_kind returned unknown kind {k} (record {})",
                    self.records + 1
                )))
            }
        };
        self.records += 1;
        Ok(Some(rec))
    }

    fn append_records(&mut self, out: &mut Vec<Record>, max: usize) -> Result<bool> {
        if let Some(bulk) = self.api.bulk {
            return self.append_bulk(bulk, out, max);
        }
        for _ in 0..max {
            match self.next_record()? {
                Some(r) => out.push(r),
                None => return Ok(true),
            }
        }
        Ok(false)
    }

    /// With the bulk extension, up to 256 records per call (the
    /// converter's path without a reading thread: `--threads 1`,
    /// `--trace-lib`); an error after some records comes with the next call.
    fn next_records(&mut self, out: &mut Vec<Record>) -> Result<()> {
        out.clear();
        if let Some(e) = self.pending.take() {
            return Err(*e);
        }
        self.first = self.records;
        let Some(bulk) = self.api.bulk else {
            if let Some(r) = self.next_record()? {
                out.push(r);
            }
            return Ok(());
        };
        match self.append_bulk(bulk, out, BULK_PRIMS) {
            Err(e) if !out.is_empty() => {
                self.pending = Some(Box::new(e));
                Ok(())
            }
            got => got.map(|_| ()),
        }
    }

    fn location(&self) -> String {
        format!("{} record {}", self.lib_name, self.records)
    }

    fn location_of(&self, i: usize) -> String {
        format!("{} record {}", self.lib_name, self.first + i as u64 + 1)
    }
}

impl Drop for PluginSource {
    fn drop(&mut self) {
        if !self.fp.is_null() {
            // SAFETY: fp came from this library's TRACE_Open.
            unsafe { (self.api.close)(&mut self.fp) };
            self.fp = std::ptr::null_mut();
        }
    }
}
