"""Reading API: :func:`open` returns a :class:`File`; its :meth:`File.window` and
:meth:`File.preview` return :class:`Rows`, numpy columns filled by one C call.

Why the shape of this API: like h5py and pandas, a file is a context manager
whose small metadata (categories, y-maps, tree directory) is read once at open
and exposed as plain Python objects, while the bulk data (drawables of a time
window) comes back as numpy columns the C library writes into directly — no
per-row Python objects, so a window of a million rows costs what the C query
costs plus a few microseconds.

The query buffers are allocated by numpy at a capacity adapted to the previous
query (1.5x its size); when a window needs more, the library says so without
writing anything (SLOG2_ERR_ARRAY_TOO_SMALL), ``SLOG2_Query_window_size`` gives the
exact sizes and the query runs once more. In steady state each call is one C call.

Counts follow the library's one definition (``COUNT_DEFINITION``, the same text
``slog2 info --help`` prints): a *drawable* is a top-level record (a primitive or a
composite), a composite's *members* are primitives inside it, every table (a
window, a preview, a scan batch, ``to_pandas()``) has one row per drawable and one
per member, and a member row's ``parent`` is its composite's row (-1 otherwise).

Nothing here walks or filters the file itself: windows, previews, the moving
window (:meth:`File.cursor`), whole-file and time-range scans and the counts are
the library's (``SLOG2_Query_*``, ``SLOG2_Cursor_*``, ``SLOG2_Scan_*``,
``SLOG2_Get_counts``); this module moves their columns into numpy.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
from ctypes import byref, c_double, c_int
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional, Tuple

import numpy as np

from . import _lib
from ._closing import Closing
from ._errors import ArgumentError, check, error
from ._columns import COLUMNS  # noqa: F401  (the package's name for them)
from ._stats import StatsMixin

L = _lib.lib

#: The definition of every count this package reports (the library's text).
COUNT_DEFINITION: str = L.SLOG2_Count_definition().decode("utf-8", "replace")

TOPOLOGIES = {0: "event", 1: "state", 2: "arrow"}
KINDS = ("primitive", "composite", "shadow")



def _text(buf, n: int) -> str:
    return bytes(buf[:n]).decode("utf-8", "replace")


@dataclass(frozen=True)
class Category:
    """A category of the file (``index`` < 0: the preview categories)."""

    index: int
    name: str
    topology: str  # "state", "arrow" or "event"
    color: Tuple[int, int, int, int]  # red, green, blue, alpha (0..255)
    width: int
    label: str  # popup format, e.g. "msg_tag=%d, msg_size=%d"; "" when none
    # The count stored in the file's category block: the primitives of this category,
    # composite members included; 0 for a composite category in files the reference
    # wrote (File.counts() counts composites).
    count: int
    incl_ratio: float
    excl_ratio: float

    @property
    def shape(self) -> int:
        return {"event": 0, "state": 1, "arrow": 2}[self.topology]

    @property
    def rgb(self) -> Tuple[float, float, float]:
        """Colour as matplotlib floats."""
        return (self.color[0] / 255.0, self.color[1] / 255.0, self.color[2] / 255.0)


@dataclass(frozen=True)
class YMap:
    """A y-coordinate map: ``rows`` is an int array (n_rows, n_columns), line ID first."""

    title: str
    columns: List[str]  # labels of the value columns (the line-ID column excluded)
    rows: np.ndarray = field(repr=False)


@dataclass(frozen=True)
class CategoryCount:
    """Counts of one category: its ``drawables`` (top-level primitives and
    composites), its composite ``members``, and ``stored``, the count of the file's
    category block (None for an index used but not defined)."""

    index: int
    drawables: int
    members: int
    stored: Optional[int]


@dataclass(frozen=True)
class Counts:
    """What a file holds, by the library's one definition (``COUNT_DEFINITION``):
    ``drawables`` top-level records (primitives and composites), ``composites``,
    ``members`` (primitives inside composites), ``primitives`` (every primitive,
    members included), ``rows`` (drawables + members: the rows of every table of the
    whole file); ``by_category`` maps a category index to its :class:`CategoryCount`."""

    drawables: int
    composites: int
    members: int
    primitives: int
    rows: int
    by_category: Dict[int, CategoryCount] = field(repr=False)

    def __str__(self) -> str:
        return (f"{self.drawables} drawables ({self.composites} composites with "
                f"{self.members} members), {self.primitives} primitives, {self.rows} rows")


TREE_DTYPE = np.dtype(
    [
        ("depth", np.intc),
        ("xpos", np.intc),
        ("start", np.float64),
        ("end", np.float64),
        ("offset", np.int64),
        ("size", np.intc),
        ("parent", np.intc),
        ("lchild", np.intc),
        ("rchild", np.intc),
    ],
    align=True,
)
assert TREE_DTYPE.itemsize == ctypes.sizeof(_lib.SLOG2_Treedir_node)


@dataclass(frozen=True)
class Tree:
    """The tree directory: ``nodes`` is a structured array (root first) with fields
    depth, xpos, start, end, offset, size, parent, lchild, rchild (indices into
    ``nodes``, -1 when none)."""

    nodes: np.ndarray = field(repr=False)
    children_per_node: int
    leaf_bytesize: int

    @property
    def depth(self) -> int:
        """Depth of the root (0 = a single leaf)."""
        return int(self.nodes["depth"][0]) if len(self.nodes) else 0

    def __len__(self) -> int:
        return len(self.nodes)

    def nodes_per_depth(self) -> Dict[int, int]:
        d, n = np.unique(self.nodes["depth"], return_counts=True)
        return {int(a): int(b) for a, b in zip(d, n)}


class Weights:
    """Shadow weights of a preview, one entry per (shadow, category), grouped by
    shadow row ascending: ``row`` (row index of the shadow in the Rows), ``category``,
    ``incl``, ``excl`` (ratios), ``count``."""

    __slots__ = ("row", "category", "incl", "excl", "count")

    def __init__(self, row, category, incl, excl, count):
        self.row, self.category, self.incl, self.excl, self.count = row, category, incl, excl, count

    def __len__(self) -> int:
        return len(self.row)

    def of(self, row: int) -> "Weights":
        lo, hi = np.searchsorted(self.row, [row, row + 1])
        return Weights(*(getattr(self, k)[lo:hi] for k in self.__slots__))

    def to_pandas(self):
        import pandas as pd

        return pd.DataFrame({k: getattr(self, k) for k in self.__slots__})


class Rows:
    """Result of a window or preview query, a cursor move or a scan batch: one row per
    drawable and one per composite member, in drawing order (a composite row is
    followed by its member rows; previews end with shadows).

    Columns (numpy arrays of equal length):
      ``kind`` 0 primitive / 1 composite / 2 shadow; ``category``; ``start``, ``end``
      (time box); ``time0``, ``time1`` (time of the first / last vertex, so a
      backward arrow has time0 > time1); ``line0``, ``line1`` (line ID of the first /
      last vertex); ``parent`` (row of the composite a member belongs to, else -1);
      ``num_real`` (1, member count, or primitives a shadow summarises);
      ``info_offset``/``info_len`` (the row's info bytes in ``info``, offset -1 when none).
    ``nodes_read``/``bytes_read``: what the query read. ``weights``: shadow weights
    (previews). ``popup_text(i)``: the row's popup text as Jumpshot / ``slog2 print``.
    """

    __slots__ = tuple(n for n, _ in COLUMNS) + (
        "info",
        "nodes_read",
        "bytes_read",
        "t0",
        "t1",
        "depth",
        "_file",
        "_weights",
    )

    def __len__(self) -> int:
        return len(self.kind)

    def __repr__(self) -> str:
        q = "window" if self.depth is None else f"preview depth {self.depth}"
        return (
            f"<slog2.Rows {q} [{self.t0}, {self.t1}]: {len(self)} rows, "
            f"{self.nodes_read} nodes / {self.bytes_read} bytes read>"
        )

    @property
    def columns(self) -> Dict[str, np.ndarray]:
        return {n: getattr(self, n) for n, _ in COLUMNS}

    def info_of(self, i: int) -> bytes:
        """Info payload bytes of row ``i``."""
        n = int(self.info_len[i])
        if n <= 0:
            return b""
        o = int(self.info_offset[i])
        return self.info[o : o + n].tobytes()

    def popup_text(self, i: int) -> str:
        """Popup text of row ``i`` (its category's label filled with its info values)."""
        if self.kind[i] == _lib.SLOG2_KIND_SHADOW:
            return ""
        return self._file.info_text(int(self.category[i]), self.info_of(i))

    @property
    def weights(self) -> Weights:
        """Shadow weights (previews; empty for windows). Fetched on first use by
        ``SLOG2_Query_preview_weights`` (the C API returns them in a second call)."""
        if self._weights is None:
            if self.depth is None:
                e = np.empty(0, np.intc)
                self._weights = Weights(e, e, np.empty(0, np.float32), np.empty(0, np.float32),
                                        np.empty(0, np.int64))
            else:
                self._weights = self._file._preview_weights(self.t0, self.t1, self.depth, self)
        return self._weights

    def select(self, mask: np.ndarray) -> "Rows":
        """The rows where ``mask`` is true (member rows follow their composite's fate
        when ``mask`` is given on top-level rows only; parent indices are renumbered)."""
        mask = np.asarray(mask, bool)
        r = Rows.__new__(Rows)
        remap = None
        if np.any(self.parent >= 0):
            m = self.parent >= 0
            mask = mask.copy()
            mask[m] = mask[self.parent[m]]
            remap = np.cumsum(mask, dtype=np.intc) - 1
        for n, _ in COLUMNS:
            setattr(r, n, getattr(self, n)[mask])
        if remap is not None:
            p = r.parent
            m = p >= 0
            p[m] = remap[p[m]]
        r.info = self.info
        r.nodes_read, r.bytes_read = self.nodes_read, self.bytes_read
        r.t0, r.t1, r.depth, r._file, r._weights = self.t0, self.t1, self.depth, self._file, None
        if self.depth is not None:
            w = self.weights
            keep = mask[w.row] if len(w) else np.zeros(0, bool)
            newrow = np.cumsum(mask, dtype=np.intc) - 1
            r._weights = Weights(newrow[w.row[keep]], w.category[keep], w.incl[keep],
                                 w.excl[keep], w.count[keep])
        return r

    def to_pandas(self, text: bool = False, clip: bool = False):
        """A pandas DataFrame of the rows (index = row number): every column (``parent``
        is the composite's row of a member, -1 otherwise), plus ``kind`` and ``name`` as
        categoricals, the drawing ``topology`` and ``duration`` (end - start);
        ``text=True`` adds the popup text. ``clip=True`` makes ``duration`` the part of
        each drawable inside the query's window [t0, t1] (a state that started before
        the window counts from t0), so sums over a window add up to at most the
        window's length per line."""
        import pandas as pd

        cols = self.columns
        df = pd.DataFrame(cols)
        df["kind"] = pd.Categorical.from_codes(self.kind, categories=list(KINDS))
        f = self._file
        idx, names, topos, name_code = f._category_tables()
        pos = np.searchsorted(idx, self.category)
        pos = np.clip(pos, 0, len(idx) - 1) if len(idx) else pos
        known = (idx[pos] == self.category) if len(idx) else np.zeros(len(self), bool)
        codes = np.where(known, name_code[pos] if len(idx) else -1, -1)
        df["name"] = pd.Categorical.from_codes(codes, categories=names)
        tcodes = np.where(known, topos[pos] if len(idx) else 0, -1)
        df["topology"] = pd.Categorical.from_codes(tcodes, categories=["event", "state", "arrow"])
        if clip:
            df["duration"] = np.clip(np.minimum(self.end, self.t1) - np.maximum(self.start, self.t0),
                                     0.0, None)
        else:
            df["duration"] = self.end - self.start
        if text:
            df["text"] = [self.popup_text(i) for i in range(len(self))]
        return df


def _empty_rows(file, t0, t1, depth) -> Rows:
    r = Rows.__new__(Rows)
    for n, dt in COLUMNS:
        setattr(r, n, np.empty(0, dt))
    r.info = np.empty(0, np.uint8)
    r.nodes_read, r.bytes_read = 0, 0
    r.t0, r.t1, r.depth, r._file, r._weights = t0, t1, depth, file, None
    return r


class File(Closing, StatsMixin):
    """An SLOG-2 file open for reading (use :func:`slog2.open`)."""

    MIN_ROWS = 1024
    MIN_INFO = 16 * 1024

    def __init__(self, path):
        self.path = os.fspath(path)
        h = ctypes.c_void_p()
        check(L.SLOG2_Open(os.fsencode(self.path), b"r", byref(h)), f"open {self.path}")
        self._h = h.value
        self._closed = False
        self._lock = threading.Lock()
        self._cap_rows = self.MIN_ROWS
        self._cap_info = self.MIN_INFO
        self._cols = _lib.SLOG2_Query_columns()
        self._n = c_int()
        self._pos = c_int()
        self._ipos = c_int()
        self._stats = _lib.SLOG2_Query_stats()
        self._n2 = c_int()
        self._textbuf = ctypes.create_string_buffer(4096)
        self._counts: Optional[Counts] = None
        try:
            self._read_meta()
        except BaseException:
            self.close()
            raise

    # -- metadata ---------------------------------------------------------
    def _read_meta(self) -> None:
        a, b = c_double(), c_double()
        check(L.SLOG2_Get_total_time(self._h, byref(a), byref(b)), "SLOG2_Get_total_time")
        self.total_time: Tuple[float, float] = (a.value, b.value)
        desc = ctypes.create_string_buffer(1024)
        ver = c_int()
        rc = L.SLOG2_Get_header(self._h, desc, len(desc), byref(ver))
        if rc < 0:
            desc = ctypes.create_string_buffer(-rc)
            rc = L.SLOG2_Get_header(self._h, desc, len(desc), byref(ver))
        check(rc, "SLOG2_Get_header")
        self.header: str = desc.value.decode("utf-8", "replace")
        self.version: int = ver.value
        packed = c_int()
        check(L.SLOG2_Get_compressed(self._h, byref(packed)), "SLOG2_Get_compressed")
        #: True for a file with compressed tree nodes (``SLOG 2.0.Z``); ``version``
        #: is the layout version, 206, for both.
        self.compressed: bool = bool(packed.value)
        # categories
        cats: List[Category] = []
        tbuf = ctypes.create_string_buffer(64 * 1024)
        lbuf = ctypes.create_string_buffer(64 * 1024)
        head = _lib.SLOG2_Category_head_t()
        tp, lp = c_int(), c_int()
        while True:
            tp.value = lp.value = 0
            rc = L.SLOG2_Get_next_category(self._h, byref(head), ctypes.addressof(tbuf), byref(tp),
                                           len(tbuf), ctypes.addressof(lbuf), byref(lp), len(lbuf))
            if rc == _lib.SLOG2_ERR_EOF:
                break
            if rc == _lib.SLOG2_ERR_ARRAY_TOO_SMALL and len(tbuf) < (1 << 26):
                tbuf = ctypes.create_string_buffer(len(tbuf) * 4)
                lbuf = ctypes.create_string_buffer(len(lbuf) * 4)
                continue
            check(rc, "SLOG2_Get_next_category")
            cats.append(
                Category(
                    index=head.index,
                    name=_text(lbuf.raw, lp.value),
                    topology=TOPOLOGIES.get(head.shape, str(head.shape)),
                    color=(head.red, head.green, head.blue, head.alpha),
                    width=head.width,
                    label=_text(tbuf.raw, tp.value),
                    count=head.count,
                    incl_ratio=head.incl_ratio,
                    excl_ratio=head.excl_ratio,
                )
            )
        self.categories: List[Category] = cats
        self._by_index: Dict[int, Category] = {c.index: c for c in cats}
        srt = sorted(cats, key=lambda c: c.index)
        names = list(dict.fromkeys(c.name for c in srt))  # unique, for pandas categoricals
        self._cat_tables = (
            np.array([c.index for c in srt], np.intc),
            names,
            np.array([c.shape for c in srt], np.int8),
            np.array([names.index(c.name) for c in srt], np.intc),
        )
        # y-maps
        nm = c_int()
        check(L.SLOG2_Get_ycoordmap_count(self._h, byref(nm)), "SLOG2_Get_ycoordmap_count")
        maps = []
        title = ctypes.create_string_buffer(4096)
        for i in range(nm.value):
            cap = 1024
            while True:
                elems = np.empty(cap, np.intc)
                nr, nc, ne, ep = c_int(), c_int(), c_int(), c_int()
                rc = L.SLOG2_Get_ycoordmap(self._h, i, title, len(title), byref(nr), byref(nc),
                                           byref(ne), elems.ctypes.data, byref(ep), cap)
                if rc == _lib.SLOG2_ERR_ARRAY_TOO_SMALL and cap < (1 << 30):
                    cap *= 8
                    if len(title) < (1 << 20):
                        title = ctypes.create_string_buffer(len(title) * 8)
                    continue
                check(rc, "SLOG2_Get_ycoordmap")
                break
            labels = []
            lab = ctypes.create_string_buffer(4096)
            for col in range(nc.value - 1):
                check(L.SLOG2_Get_ycoordmap_label(self._h, i, col, lab, len(lab)),
                      "SLOG2_Get_ycoordmap_label")
                labels.append(lab.value.decode("utf-8", "replace"))
            rows = elems[: ne.value].copy().reshape(nr.value, nc.value)
            maps.append(YMap(title.value.decode("utf-8", "replace"), labels, rows))
        self.ymaps: List[YMap] = maps
        # The tree directory is read on first use (``tree``): for a file of 10^5
        # nodes it costs more than all the rest of opening, and a statistic, a
        # window query or a Dask task opening the file never needs it.
        self._tree: Optional[Tree] = None

    @property
    def tree(self) -> Tree:
        """The tree directory (read from the library on first use; on a closed
        file that never read it, the library's bad-handle error)."""
        if self._tree is None:
            self._tree = self._read_tree()
        return self._tree

    def _read_tree(self) -> Tree:
        nn = c_int()
        rc = L.SLOG2_Read_dir(self._h, None, 0, byref(nn))
        if rc not in (0, _lib.SLOG2_ERR_ARRAY_TOO_SMALL):
            check(rc, "SLOG2_Read_dir")
        nodes = np.zeros(nn.value, TREE_DTYPE)
        check(L.SLOG2_Read_dir(self._h, nodes.ctypes.data_as(ctypes.POINTER(_lib.SLOG2_Treedir_node)),
                               nn.value, byref(nn)), "SLOG2_Read_dir")
        cpn, leaf = 0, 0
        import re

        m = re.search(r"children per node (\d+), leaf size (\d+)", self.header)
        if m:
            cpn, leaf = int(m.group(1)), int(m.group(2))
        return Tree(nodes, cpn, leaf)

    def _category_tables(self):
        return self._cat_tables

    def category(self, index: int) -> Category:
        """The category with this index (KeyError when the file has none)."""
        return self._by_index[index]

    @property
    def drawable_count(self) -> int:
        """Drawables in the file: top-level primitives and composites (``counts()``)."""
        return self.counts().drawables

    def counts(self) -> Counts:
        """The file's :class:`Counts` (``SLOG2_Get_counts``: the library scans the file
        once, then keeps them)."""
        if self._counts is None:
            c = _lib.SLOG2_Counts()
            check(L.SLOG2_Get_counts(self._h, byref(c)), "SLOG2_Get_counts")
            n, pos = c_int(), c_int(0)
            rc = L.SLOG2_Get_category_counts(self._h, byref(n), None, None, None, None,
                                             byref(pos), 0)
            if rc not in (0, _lib.SLOG2_ERR_ARRAY_TOO_SMALL):
                raise error(rc, "SLOG2_Get_category_counts")
            k = n.value
            idx, d, m, st = (np.empty(k, np.intc), np.empty(k, np.int64), np.empty(k, np.int64),
                             np.empty(k, np.int64))
            pos.value = 0
            check(L.SLOG2_Get_category_counts(self._h, byref(n), idx.ctypes.data, d.ctypes.data,
                                              m.ctypes.data, st.ctypes.data, byref(pos), k),
                  "SLOG2_Get_category_counts")
            by = {int(i): CategoryCount(int(i), int(a), int(b), None if s < 0 else int(s))
                  for i, a, b, s in zip(idx, d, m, st)}
            self._counts = Counts(c.drawables, c.composites, c.members, c.primitives, c.rows, by)
        return self._counts

    # -- lifetime ---------------------------------------------------------
    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Close the file (idempotent). Later calls raise the library's
        bad-handle error."""
        if not self._closed:
            self._closed = True
            h = ctypes.c_void_p(self._h)
            check(L.SLOG2_Close(byref(h)), "SLOG2_Close")
            # self._h keeps the (now unknown) registry key: the library itself
            # reports "unknown or closed SLOG2_File handle" on later calls.


    def __repr__(self) -> str:
        st = "closed" if self._closed else "open"
        nodes = "?" if self._tree is None and self._closed else len(self.tree)
        return (f"<slog2.File {self.path!r} {st}: [{self.total_time[0]}, {self.total_time[1]}], "
                f"{len(self.categories)} categories, {nodes} nodes>")

    # -- queries ----------------------------------------------------------
    def window(self, t0: float, t1: float) -> Rows:
        """Every drawable whose time box intersects [t0, t1], in drawing order."""
        return self._query(float(t0), float(t1), None)

    def preview(self, t0: float, t1: float, depth: int) -> Rows:
        """Zoomed-out view: the real drawables of tree levels >= depth intersecting
        the window, then the shadows summarising the levels below."""
        if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)):
            raise TypeError(f"depth must be an int, not {type(depth).__name__}")
        return self._query(float(t0), float(t1), int(depth))

    def _query(self, t0: float, t1: float, depth: Optional[int]) -> Rows:
        h = self._h

        def call(n, cols, pos, cap, info, ipos, icap, stats):
            if depth is None:
                return L.SLOG2_Query_window(h, t0, t1, n, cols, pos, cap, info, ipos, icap, stats)
            return L.SLOG2_Query_preview(h, t0, t1, depth, n, cols, pos, cap, info, ipos, icap,
                                         stats)

        def size():
            nr, ni = c_int(), c_int()
            check(L.SLOG2_Query_window_size(h, t0, t1, -1 if depth is None else depth, byref(nr),
                                            byref(ni)), "SLOG2_Query_window_size")
            return nr.value, ni.value

        with self._lock:
            return self._fill(call, size,
                              "SLOG2_Query_window" if depth is None else "SLOG2_Query_preview",
                              t0, t1, depth)

    def _fill(self, call, size, what: str, t0: float, t1: float, depth: Optional[int]) -> Rows:
        """Rows from one C call that fills the query columns (``call``), sized from the
        previous call; on SLOG2_ERR_ARRAY_TOO_SMALL ``size()`` gives the exact sizes and
        the call runs once more. Under ``self._lock``."""
        cols = self._cols
        cap, icap = self._cap_rows, self._cap_info
        retried = False
        while True:
            arrays = []
            for n, dt in COLUMNS:
                a = np.empty(cap, dt)
                arrays.append(a)
                setattr(cols, n, a.ctypes.data)
            info = np.empty(icap, np.uint8)
            self._pos.value = 0
            self._ipos.value = 0
            rc = call(self._n, cols, self._pos, cap, info.ctypes.data, self._ipos, icap,
                      self._stats)
            if rc == _lib.SLOG2_ERR_ARRAY_TOO_SMALL and not retried:
                nr, ni = size()
                cap = max(cap, nr)
                icap = max(icap, ni, 1)
                retried = True
                continue
            if rc != 0:
                raise error(rc, what)
            break
        n = self._n.value
        ni = self._ipos.value
        # Next capacity: 1.5x this query (adapts both ways), at least the minimum.
        self._cap_rows = max(self.MIN_ROWS, n + (n >> 1))
        self._cap_info = max(self.MIN_INFO, ni + (ni >> 1))
        r = Rows.__new__(Rows)
        for (name, _), a in zip(COLUMNS, arrays):
            setattr(r, name, a[:n])
        r.info = info[:ni]
        r.nodes_read = self._stats.nodes_read
        r.bytes_read = self._stats.bytes_read
        r.t0, r.t1, r.depth, r._file, r._weights = t0, t1, depth, self, None
        return r

    def cursor(self) -> "Cursor":
        """A moving window (``SLOG2_Cursor_*``): :meth:`Cursor.move` returns the rows of
        ``window(t0, t1)``, but the library keeps the previous window's rows and decodes
        only the drawables that entered, so a viewer or a script sliding a window along
        the file does not decode the same rows again (BENCHMARKS.md, "Cursor")."""
        return Cursor(self)

    def _preview_weights(self, t0: float, t1: float, depth: int, rows: Rows) -> Weights:
        with self._lock:
            n = c_int()
            pos = c_int(0)
            d = np.empty(1, np.int64)  # sizing call: valid pointers, capacity 0
            p = d.ctypes.data
            rc = L.SLOG2_Query_preview_weights(self._h, t0, t1, depth, byref(n), p, p, p, p, p,
                                               byref(pos), 0)
            if rc not in (0, _lib.SLOG2_ERR_ARRAY_TOO_SMALL):
                raise error(rc, "SLOG2_Query_preview_weights")
            m = n.value
            sh = np.empty(m, np.intc)
            cat = np.empty(m, np.intc)
            inc = np.empty(m, np.float32)
            exc = np.empty(m, np.float32)
            cnt = np.empty(m, np.int64)
            pos.value = 0
            if m:
                check(L.SLOG2_Query_preview_weights(self._h, t0, t1, depth, byref(n), sh.ctypes.data,
                                                    cat.ctypes.data, inc.ctypes.data,
                                                    exc.ctypes.data, cnt.ctypes.data, byref(pos), m),
                      "SLOG2_Query_preview_weights")
        return Weights(sh, cat, inc, exc, cnt)

    def overview(self, slices: int = 100, **kw):
        """Ocelotl's overview of ``[t0, t1]`` (default: the whole file) in ``slices``
        slices: ``metric`` ("duration" or "count"), ``spatiotemporal`` with
        ``hierarchy`` (a y-map title or "fanout:K"), ``p`` (a number in [0, 1] or
        "auto"), ``bisect`` (the p-curve's threshold), ``cache`` (default True, as in
        every binding: answer from the cube cache in ``$SLOG2_CACHE_DIR``,
        ``$XDG_CACHE_HOME/slog2`` or ``~/.cache/slog2``, built on first use; False
        reads the drawables). Returns a :class:`slog2._overview.Overview`: numpy ``cube``
        (lines, slices, categories), pandas ``parts``, ``hierarchy``, ``curve``."""
        from ._overview import overview

        return overview(self, slices, **kw)

    def window_size(self, t0: float, t1: float, depth: int = -1) -> Tuple[int, int]:
        """(rows, info bytes) the window (depth < 0) or preview (depth >= 0) would return."""
        nr, ni = c_int(), c_int()
        check(L.SLOG2_Query_window_size(self._h, float(t0), float(t1), int(depth), byref(nr),
                                        byref(ni)), "SLOG2_Query_window_size")
        return nr.value, ni.value

    def info_text(self, category: int, info: bytes) -> str:
        """Popup text of an info payload for a category (as Jumpshot and ``slog2 print``)."""
        with self._lock:
            return self._info_text(category, info)

    def _info_text(self, category: int, info: bytes) -> str:
        buf = self._textbuf
        while True:
            rc = L.SLOG2_Get_drawable_text_ex(self._h, int(category), info, len(info), buf, len(buf))
            if rc == _lib.SLOG2_ERR_ARRAY_TOO_SMALL and len(buf) < (1 << 24):
                buf = self._textbuf = ctypes.create_string_buffer(len(buf) * 8)
                continue
            check(rc, "SLOG2_Get_drawable_text_ex")
            return buf.value.decode("utf-8", "replace")

    def scan(self, rows_per_window: int = 1 << 18, t0: Optional[float] = None,
             t1: Optional[float] = None) -> Iterator[Rows]:
        """Iterate over the drawables of the file in :class:`Rows` batches of at most
        ``rows_per_window`` rows, yielding each drawable exactly once (a composite and
        its members are never split; after a composite with more rows than that, the
        batch arrays grow to hold it and later batches may be that large).

        This is the library's whole-file scan (``SLOG2_Scan_open``/``SLOG2_Scan_next``):
        every tree node is read once, sequentially, and decoded straight into the
        batch's numpy columns, so the cost is that of reading the bytes (BENCHMARKS.md:
        tens of millions of rows per second). Order: the node blocks in file order
        (roughly by end time, each node after its children), within a node arrows and
        events, then states and composites, each in drawing order; batches are **not**
        sorted by time (sort the columns if you need that). Every stored drawable is
        yielded, also those a window cannot find (NaN times).

        With ``t0`` and/or ``t1`` (the other defaulting to the file's start or end) only
        the drawables whose **end** time lies in [t0, t1] are yielded
        (``SLOG2_Scan_open_range``: the library reads only the tree nodes that meet the
        range), so consecutive ranges yield each drawable once. A batch's ``t0``/``t1``
        are the range (the file's total time without one).

        Memory stays flat: one batch's columns at a time (each batch has its own
        arrays, so batches may be kept). Closing the file ends the scan (the next
        batch raises the library's bad-handle error). A bad ``rows_per_window`` or
        range raises :class:`slog2.ArgumentError`."""
        if isinstance(rows_per_window, bool) or not isinstance(rows_per_window, (int, np.integer)):
            raise TypeError(f"rows_per_window must be an int, not {type(rows_per_window).__name__}")
        if rows_per_window < 1:
            raise ArgumentError(_lib.SLOG2_ERR_BAD_ARG,
                                f"rows_per_window must be >= 1, not {rows_per_window}", "",
                                "File.scan")
        a, b = self.total_time
        if t0 is None and t1 is None:
            rng = None
        else:
            rng = (a if t0 is None else float(t0), b if t1 is None else float(t1))
        return self._scan(int(rows_per_window), rng)

    def _scan(self, cap: int, rng: Optional[Tuple[float, float]]) -> Iterator[Rows]:
        # Opened now, so that argument errors come from the call itself.
        sc = ctypes.c_void_p()
        if rng is None:
            check(L.SLOG2_Scan_open(self._h, byref(sc)), "SLOG2_Scan_open")
        else:
            check(L.SLOG2_Scan_open_range(self._h, rng[0], rng[1], byref(sc)),
                  "SLOG2_Scan_open_range")
        return _ScanBatches(self, sc, cap, rng or self.total_time)


class _ScanBatches(Closing):
    """The iterator of :meth:`File.scan`: one ``SLOG2_Scan_next`` call per batch into
    reused numpy arrays; the scan handle is closed at the end, on ``close()`` or when
    the iterator is dropped (also unstarted)."""

    def __init__(self, file: File, sc, cap: int, rng: Tuple[float, float]):
        self._file, self._sc, self._cap = file, sc, cap
        self._t0, self._t1 = rng
        # Info bytes: start at 8 per row, double whenever a batch used over half
        # (a batch ends when either array is full, so too little info room only
        # makes batches smaller, never fails).
        self._icap = max(File.MIN_INFO, cap * 8)
        self._cols = _lib.SLOG2_Query_columns()
        self._n, self._pos, self._ipos = c_int(), c_int(), c_int()
        self._stats = _lib.SLOG2_Query_stats()
        self._pool: List[tuple] = []

    def __iter__(self) -> "_ScanBatches":
        return self

    def __next__(self) -> Rows:
        sc = self._sc
        if not sc.value:
            raise StopIteration
        cols, n, pos, ipos, stats = self._cols, self._n, self._pos, self._ipos, self._stats
        try:
            while True:
                bufs = _scan_buffers(self._pool, self._cap, self._icap)
                for i, (name, _) in enumerate(COLUMNS):
                    setattr(cols, name, bufs[i].ctypes.data)
                pos.value = 0
                ipos.value = 0
                rc = L.SLOG2_Scan_next(sc, n, cols, pos, len(bufs[0]), bufs[-1].ctypes.data, ipos,
                                       len(bufs[-1]), stats)
                if rc == _lib.SLOG2_ERR_ARRAY_TOO_SMALL:
                    nr, ni = c_int(), c_int()
                    check(L.SLOG2_Scan_next_size(sc, byref(nr), byref(ni)), "SLOG2_Scan_next_size")
                    self._cap = max(self._cap, nr.value)
                    self._icap = max(self._icap, ni.value, 1)
                    continue
                break
        except BaseException:
            self.close()
            raise
        if rc == _lib.SLOG2_ERR_EOF:
            self.close()
            raise StopIteration
        if rc != 0:
            e = error(rc, "SLOG2_Scan_next")
            self.close()
            raise e
        k, ni = n.value, ipos.value
        if 2 * ni > self._icap:
            self._icap *= 2
        r = Rows.__new__(Rows)
        for i, (name, _) in enumerate(COLUMNS):
            setattr(r, name, bufs[i][:k])
        r.info = bufs[-1][:ni]
        r.nodes_read = stats.nodes_read
        r.bytes_read = stats.bytes_read
        r.t0, r.t1, r.depth, r._file, r._weights = self._t0, self._t1, None, self._file, None
        return r

    def close(self) -> None:
        if self._sc.value:
            L.SLOG2_Scan_close(byref(self._sc))



class Cursor(Closing):
    """A moving window over a file (:meth:`File.cursor`; ``SLOG2_Cursor_*``). Use as a
    context manager or call :meth:`close`; it keeps the file's data alive."""

    def __init__(self, file: File):
        self._file = file
        h = ctypes.c_void_p()
        check(L.SLOG2_Cursor_open(file._h, byref(h)), "SLOG2_Cursor_open")
        self._h = h.value
        self._closed = False
        self._nr, self._ni = c_int(), c_int()

    def move(self, t0: float, t1: float) -> Rows:
        """Move to [t0, t1] and return its rows: the rows of ``File.window(t0, t1)`` (only
        rows with equal drawing keys may come in another order). ``nodes_read`` and
        ``bytes_read`` say what this move decoded (the entering drawables)."""
        if self._closed:
            raise ArgumentError(_lib.SLOG2_ERR_BAD_HANDLE, "the cursor is closed", "",
                                "Cursor.move")
        t0, t1 = float(t0), float(t1)
        f = self._file
        h = self._h
        with f._lock:
            check(L.SLOG2_Cursor_move(h, t0, t1, byref(self._nr), byref(self._ni), f._stats),
                  "SLOG2_Cursor_move")
            moved = (f._stats.nodes_read, f._stats.bytes_read)
            nr, ni = self._nr.value, self._ni.value
            f._cap_rows = max(f._cap_rows, nr)
            f._cap_info = max(f._cap_info, ni, 1)

            def call(n, cols, pos, cap, info, ipos, icap, stats):
                return L.SLOG2_Cursor_rows(h, n, cols, pos, cap, info, ipos, icap, stats)

            r = f._fill(call, lambda: (nr, ni), "SLOG2_Cursor_rows", t0, t1, None)
        r.nodes_read, r.bytes_read = moved
        return r

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            h = ctypes.c_void_p(self._h)
            check(L.SLOG2_Cursor_close(byref(h)), "SLOG2_Cursor_close")



def _scan_buffers(pool: List[tuple], cap: int, icap: int) -> tuple:
    """Column arrays (COLUMNS order) plus an info array for the next scan batch:
    a set from ``pool`` that nothing outside the pool references any more (the
    caller dropped that batch: CPython reference counts say so) and is large
    enough, else a new set. Reusing the same memory batch after batch keeps the
    scan from faulting fresh pages in for every batch (a quarter of its time when
    numpy's freed arrays go back to the OS). At most two sets are kept."""
    if hasattr(sys, "getrefcount"):
        for t in pool:
            if len(t[0]) >= cap and len(t[-1]) >= icap and all(
                sys.getrefcount(t[k]) <= 2 for k in range(len(t))
            ):
                return t
    t = tuple(np.empty(cap, dt) for _, dt in COLUMNS) + (np.empty(icap, np.uint8),)
    pool.append(t)
    if len(pool) > 2:
        del pool[0]
    return t


def open(path) -> File:  # noqa: A001 - the package's public name, like io.open
    """Open an SLOG-2 file for reading; use as a context manager."""
    return File(path)
