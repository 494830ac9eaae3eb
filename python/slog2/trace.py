"""Raw records of any TRACE-API source: ``slog2.trace.open(path, reader=None)``.

Without ``reader`` the records come from libslog2's own ``TRACE_*`` functions,
which read slog2sdk's sample text format and SLOG-2 files (chosen by content).
``reader`` is the path of any C TRACE-API reader library (``.so``, as for
``slog2 convert --trace-lib``): it is loaded with ctypes and driven through the
same declarations (``_lib.TRACE_FUNCTIONS``). Records come in the source's
order, as a C client (``trace_print``) sees them::

    with slog2.trace.open("run.txt") as t:
        for rec in t:            # Category, YMap, Primitive or Composite
            ...

Buffers are sized from each Peek call, so any conforming reader works.
"""

from __future__ import annotations

import ctypes
import os
from ctypes import byref, c_double, c_int
from dataclasses import dataclass, field
from typing import Iterator, List, Optional, Tuple, Union

import numpy as np

from . import _lib
from ._errors import TraceError, trace_error
from ._closing import Closing

SHAPES = {0: "event", 1: "state", 2: "arrow"}


@dataclass(frozen=True)
class Category:
    index: int
    shape: int  # 0 event, 1 state, 2 arrow
    color: Tuple[int, int, int, int]
    width: int
    name: str  # the legend
    label: str
    methods: Tuple[int, ...]

    @property
    def topology(self) -> str:
        return SHAPES.get(self.shape, str(self.shape))


@dataclass(frozen=True)
class YMap:
    title: str
    columns: List[str]  # names of the value columns
    rows: np.ndarray = field(repr=False)  # (n_rows, n_columns) ints, line ID first
    methods: Tuple[int, ...] = ()


@dataclass(frozen=True)
class Primitive:
    category: int
    start: float
    end: float
    times: Tuple[float, ...]
    lines: Tuple[int, ...]
    info: bytes


@dataclass(frozen=True)
class Composite:
    category: int
    start: float
    end: float
    info: bytes
    members: List[Primitive]


Record = Union[Category, YMap, Primitive, Composite]


class Trace(Closing):
    """An open TRACE source; iterate it for records. Use :func:`open`."""

    def __init__(self, path, reader: Optional[str] = None):
        self.path = os.fspath(path)
        if reader is None:
            self._lib = _lib.lib
            self._own = True
        else:
            try:
                self._lib = ctypes.CDLL(os.path.abspath(os.fspath(reader)))
            except OSError as e:
                raise TraceError(-1, f"cannot load TRACE reader {reader}: {e}") from None
            missing = _lib.declare(self._lib, _lib.TRACE_FUNCTIONS, optional=True)
            need = [m for m in missing if m not in ("TRACE_Get_next_method", "TRACE_Get_position",
                                                    "TRACE_Set_position")]
            if need:
                raise TraceError(-1, f"TRACE reader {reader} lacks {', '.join(need)}")
            self._own = False
        self.reader = reader
        h = ctypes.c_void_p()
        rc = self._lib.TRACE_Open(os.fsencode(self.path), byref(h))
        if rc != 0:
            raise self._error(rc, f"TRACE_Open {self.path}")
        if not h.value:
            raise TraceError(0, self._text(0))  # the reader printed help: nothing to read
        self._h = h.value
        self._closed = False

    def _text(self, code: int) -> str:
        s = self._lib.TRACE_Get_err_string(code)
        return s.decode("utf-8", "replace") if s else ""

    def _error(self, code: int, call: str) -> TraceError:
        d = ""
        if self._own:
            d = _lib.lib.SLOG2_Get_last_error()
            d = d.decode("utf-8", "replace") if d else ""
        return trace_error(code, d, self._text(code), call, own=self._own)

    def _check(self, rc: int, call: str) -> None:
        if rc != 0:
            raise self._error(rc, call)

    # -- lifetime ---------------------------------------------------------
    def close(self) -> None:
        if not self._closed:
            self._closed = True
            h = ctypes.c_void_p(self._h)
            self._check(self._lib.TRACE_Close(byref(h)), "TRACE_Close")


    # -- records ----------------------------------------------------------
    def peek_kind(self) -> int:
        k = c_int()
        self._check(self._lib.TRACE_Peek_next_kind(self._h, byref(k)), "TRACE_Peek_next_kind")
        return k.value

    def __iter__(self) -> Iterator[Record]:
        drawables = 0
        while True:
            k = self.peek_kind()
            if k == _lib.TRACE_EOF:
                if drawables == 0:
                    # What `slog2 convert` says of such an input (it fails the same way).
                    raise TraceError(-1, f"{self.path}: no drawable found in the input: not a "
                                     "trace slog2 reads (slog2sdk's text format, SLOG-2, MPE CLOG2, "
                                     "OTF2) or an empty one (`slog2 convert` lists the lines it "
                                     "skipped)")
                return
            if k in (_lib.TRACE_PRIMITIVE_DRAWABLE, _lib.TRACE_COMPOSITE_DRAWABLE):
                drawables += 1
            if k == _lib.TRACE_CATEGORY:
                yield self._category()
            elif k == _lib.TRACE_YCOORDMAP:
                yield self._ymap()
            elif k == _lib.TRACE_PRIMITIVE_DRAWABLE:
                yield self._primitive()
            elif k == _lib.TRACE_COMPOSITE_DRAWABLE:
                yield self._composite()
            else:
                raise TraceError(-1, f"unknown TRACE_Rec_Kind_t {k}")

    def categories(self) -> Iterator[Category]:
        return (r for r in self if isinstance(r, Category))

    def _category(self) -> Category:
        nl, nb, nm = c_int(), c_int(), c_int()
        self._check(self._lib.TRACE_Peek_next_category(self._h, byref(nl), byref(nb), byref(nm)),
                    "TRACE_Peek_next_category")
        head = _lib.TRACE_Category_head_t()
        lb = ctypes.create_string_buffer(max(1, nl.value + 1))
        bb = ctypes.create_string_buffer(max(1, nb.value + 1))
        mb = (c_int * max(1, nm.value))()
        lp, bp, mp = c_int(0), c_int(0), c_int(0)
        self._check(self._lib.TRACE_Get_next_category(
            self._h, byref(head), byref(nl), lb, byref(lp), len(lb), byref(nb), bb, byref(bp),
            len(bb), byref(nm), mb, byref(mp), len(mb)), "TRACE_Get_next_category")
        return Category(
            head.index, head.shape, (head.red, head.green, head.blue, head.alpha), head.width,
            lb.raw[: nl.value].split(b"\0")[0].decode("utf-8", "replace"),
            bb.raw[: nb.value].split(b"\0")[0].decode("utf-8", "replace"),
            tuple(mb[: nm.value]),
        )

    def _ymap(self) -> YMap:
        nr, nc, mcn, mtn, nm = c_int(), c_int(), c_int(), c_int(), c_int()
        self._check(self._lib.TRACE_Peek_next_ycoordmap(self._h, byref(nr), byref(nc), byref(mcn),
                                                        byref(mtn), byref(nm)),
                    "TRACE_Peek_next_ycoordmap")
        title = ctypes.create_string_buffer(max(1, mtn.value))
        ncol = max(0, nc.value - 1)
        names = [ctypes.create_string_buffer(max(1, mcn.value)) for _ in range(ncol)]
        name_ptrs = (ctypes.c_char_p * max(1, ncol))(*[ctypes.addressof(b) for b in names])
        size = max(1, nr.value * nc.value)
        elems = np.zeros(size, np.intc)
        mb = (c_int * max(1, nm.value))()
        sz, ep, mp, nmo = c_int(), c_int(0), c_int(0), c_int()
        self._check(self._lib.TRACE_Get_next_ycoordmap(
            self._h, title, name_ptrs, byref(sz), elems.ctypes.data, byref(ep), size, byref(nmo),
            mb, byref(mp), len(mb)), "TRACE_Get_next_ycoordmap")
        return YMap(
            title.value.decode("utf-8", "replace"),
            [b.value.decode("utf-8", "replace") for b in names],
            elems[: nr.value * nc.value].reshape(nr.value, nc.value).copy(),
            tuple(mb[: nmo.value]),
        )

    def _primitive(self) -> Primitive:
        s, e = c_double(), c_double()
        nt, ny, nb = c_int(), c_int(), c_int()
        self._check(self._lib.TRACE_Peek_next_primitive(self._h, byref(s), byref(e), byref(nt),
                                                        byref(ny), byref(nb)),
                    "TRACE_Peek_next_primitive")
        tb = (c_double * max(1, nt.value))()
        yb = (c_int * max(1, ny.value))()
        bb = ctypes.create_string_buffer(max(1, nb.value))
        cat = c_int()
        tp, yp, bp = c_int(0), c_int(0), c_int(0)
        self._check(self._lib.TRACE_Get_next_primitive(
            self._h, byref(cat), byref(nt), tb, byref(tp), len(tb), byref(ny), yb, byref(yp),
            len(yb), byref(nb), bb, byref(bp), len(bb)), "TRACE_Get_next_primitive")
        return Primitive(cat.value, s.value, e.value, tuple(tb[: nt.value]), tuple(yb[: ny.value]),
                         bb.raw[: nb.value])

    def _composite(self) -> Composite:
        s, e = c_double(), c_double()
        npr, nb = c_int(), c_int()
        self._check(self._lib.TRACE_Peek_next_composite(self._h, byref(s), byref(e), byref(npr),
                                                        byref(nb)), "TRACE_Peek_next_composite")
        bb = ctypes.create_string_buffer(max(1, nb.value))
        cat, bp = c_int(), c_int(0)
        self._check(self._lib.TRACE_Get_next_composite(self._h, byref(cat), byref(nb), bb, byref(bp),
                                                       len(bb)), "TRACE_Get_next_composite")
        members = [self._primitive() for _ in range(npr.value)]
        return Composite(cat.value, s.value, e.value, bb.raw[: nb.value], members)

    # -- positions --------------------------------------------------------
    def tell(self) -> int:
        """Opaque cookie of the next top-level record (TRACE_Get_position)."""
        v = ctypes.c_int64()
        self._check(self._lib.TRACE_Get_position(self._h, byref(v)), "TRACE_Get_position")
        return v.value

    def seek(self, cookie: int) -> None:
        self._check(self._lib.TRACE_Set_position(self._h, int(cookie)), "TRACE_Set_position")


def open(path, reader: Optional[str] = None) -> Trace:  # noqa: A001
    """Open a trace source (sample text or SLOG-2 through libslog2, or any file
    through the C TRACE-API reader library ``reader``)."""
    return Trace(path, reader)


def format_record(rec: Record, number: int = 0) -> str:
    """One record in the text of slog2sdk's ``trace_print`` client (``number``: the
    top-level drawable number, from 1)."""

    def prim(p: Primitive, no: int) -> str:
        head = (f"{no} : Primitive: index={p.category} times=({p.start:f}, {p.end:f}) " if no > 0
                else f"\tPrimitive: index={p.category} times=({p.start:f}, {p.end:f}) ")
        vs = "".join(f"({t:f}, {y}) " for t, y in zip(p.times, p.lines))
        return f"{head}{vs}info_sz={len(p.info)}\n"

    def methods(ms) -> str:
        return "methods={ " + "".join(f"{m} " for m in ms) + "}"

    if isinstance(rec, Category):
        c = rec.color
        s = (f"Category: index={rec.index} shape={rec.shape} color=({c[0]},{c[1]},{c[2]},{c[3]}) "
             f"width={rec.width} legend={rec.name} ")
        if rec.label:
            s += f"label=< {rec.label} > "
        if rec.methods:
            s += methods(rec.methods)
        return s + "\n"
    if isinstance(rec, Primitive):
        return prim(rec, number)
    if isinstance(rec, Composite):
        s = (f"{number} : Composite: index={rec.category} times=({rec.start:f}, {rec.end:f}) "
             f"Nprimes={len(rec.members)} info_sz={len(rec.info)}\n")
        return s + "".join(prim(m, 0) for m in rec.members)
    if isinstance(rec, YMap):
        nr, nc = rec.rows.shape
        s = f"YCoordMap: {rec.title}[{nr}][{nc}]\nLineID -> " + "".join(f"{n} " for n in rec.columns)
        s += "\n"
        for row in rec.rows:
            s += f"{row[0]} -> " + "".join(f"{v} " for v in row[1:]) + "\n"
        if rec.methods:
            s += methods(rec.methods) + "\n"
        return s
    raise TypeError(type(rec))


def print_trace(path, reader: Optional[str] = None) -> str:
    """The whole ``trace_print`` text of a source."""
    out = []
    n = 0
    with open(path, reader) as t:
        for rec in t:
            if isinstance(rec, (Primitive, Composite)):
                n += 1
            out.append(format_record(rec, n))
    return "".join(out)
