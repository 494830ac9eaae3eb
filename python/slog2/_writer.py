"""Writing API: :class:`Writer` over the SLOG2 output functions of ``slog2.h``.

The library writes to a temporary file beside the target and renames it at
``close()``; Python adds one rule: leaving a ``with Writer(...)`` block by an
exception (or calling :meth:`Writer.abort`) leaves no file (and an existing file
untouched). The C API has no abort call, so abort opens a tree-node group and
closes the handle: an unbalanced group makes ``SLOG2_Close`` fail with
SLOG2_ERR_STATE and write nothing (documented in slog2.h).

Info payloads are big-endian values, one per token of the category's label
(``%d`` i32, ``%h`` i16, ``%l`` i64, ``%x`` i32, ``%X`` i64, ``%e`` f32, ``%E`` f64,
``%s`` i16 length + bytes: slog2-file-format.md 7.6). :func:`encode_info` builds
them from Python values; ``bytes`` are passed through unchanged.
"""

from __future__ import annotations

import ctypes
import os
import struct
from contextlib import contextmanager
from ctypes import byref
from typing import Dict, Iterable, Optional, Sequence, Tuple, Union

import numpy as np

from . import _lib
from ._errors import check

L = _lib.lib

SHAPES = {"event": 0, "state": 1, "arrow": 2}
_FMT = {"h": ">h", "d": ">i", "x": ">I", "l": ">q", "X": ">Q", "e": ">f", "E": ">d"}

Info = Union[bytes, bytearray, Sequence, None]


def label_tokens(label: str) -> str:
    """The token letters of a popup label: ``"a=%d b=%s"`` -> ``"ds"``."""
    out = []
    i = label.find("%")
    while i >= 0 and i + 1 < len(label):
        out.append(label[i + 1])
        i = label.find("%", i + 2)
    return "".join(out)


def encode_info(label: str, values: Sequence) -> bytes:
    """Encode ``values`` (one per token of ``label``) as an info payload."""
    toks = label_tokens(label)
    if len(values) != len(toks):
        raise ValueError(f"label {label!r} has {len(toks)} token(s), got {len(values)} value(s)")
    parts = []
    for t, v in zip(toks, values):
        if t == "s":
            b = v.encode("utf-8") if isinstance(v, str) else bytes(v)
            if len(b) > 32767:
                raise ValueError("%s value longer than 32767 bytes")
            parts.append(struct.pack(">h", len(b)) + b)
        elif t in _FMT:
            f = _FMT[t]
            if t in "xX" and int(v) < 0:  # hex tokens take the two's complement bits
                v = int(v) & (0xFFFFFFFF if t == "x" else 0xFFFFFFFFFFFFFFFF)
            parts.append(struct.pack(f, float(v) if t in "eE" else int(v)))
        else:
            raise ValueError(f"label {label!r}: unknown token %{t}")
    return b"".join(parts)


def _color(c) -> Tuple[int, int, int, int]:
    if isinstance(c, str):
        s = c.lstrip("#")
        if len(s) in (6, 8) and all(ch in "0123456789abcdefABCDEF" for ch in s):
            v = [int(s[i : i + 2], 16) for i in range(0, len(s), 2)]
        else:
            from matplotlib.colors import to_rgba  # named colours need matplotlib

            v = [round(x * 255) for x in to_rgba(c)]
        return tuple(v + [255] * (4 - len(v)))  # type: ignore[return-value]
    v = [int(x) for x in c]
    if len(v) == 3:
        v.append(255)
    if len(v) != 4:
        raise ValueError(f"colour {c!r}: need (r, g, b) or (r, g, b, a)")
    return tuple(v)  # type: ignore[return-value]


class Writer:
    """Write an SLOG-2 file::

        with slog2.Writer("out.slog2") as w:
            comp = w.category("Compute", "state", "#ff0000")
            msg = w.category("message", "arrow", "white", width=3, label="tag=%d")
            w.state(comp, 0.0, 1.0, line=0)
            w.arrow(msg, 0.5, 0, 1.5, 1, info=(7,))
        # closed: finished and renamed into place; on an exception: no file

    Drawables must come in non-decreasing end time (:class:`slog2.OrderError`).
    ``compress=LEVEL`` (1 fastest ... 12 smallest, libdeflate's levels) writes
    compressed tree nodes (a ``SLOG 2.0.Z`` file, about a third of the size: this
    package reads it, the reference tools refuse it; ``slog2 convert`` turns it
    back into plain SLOG-2 2.0.6).
    """

    def __init__(self, path, children_per_node: Optional[int] = None,
                 leaf_bytesize: Optional[int] = None, compress: Optional[int] = None):
        self.path = os.fspath(path)
        h = ctypes.c_void_p()
        check(L.SLOG2_Open(os.fsencode(self.path), b"w", byref(h)), f"open {self.path}")
        self._h = h.value
        self._closed = False
        self._labels: Dict[int, str] = {}
        self._shapes: Dict[int, int] = {}
        self._names: Dict[str, int] = {}
        self.drawables = 0
        try:
            if children_per_node is not None or leaf_bytesize is not None:
                check(L.SLOG2_Write_header_ex(self._h, int(children_per_node or 2),
                                              int(leaf_bytesize or 65536)), "SLOG2_Write_header_ex")
            if compress:
                check(L.SLOG2_Write_compression(self._h, int(compress)), "SLOG2_Write_compression")
        except BaseException:
            self.abort()
            raise

    # -- lifetime ---------------------------------------------------------
    def __enter__(self) -> "Writer":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()

    def close(self) -> None:
        """Finish the file and rename it into place (raises, leaving no file, on error)."""
        if self._closed:
            return
        self._closed = True
        h = ctypes.c_void_p(self._h)
        check(L.SLOG2_Close(byref(h)), "SLOG2_Close")

    def abort(self) -> None:
        """Drop everything written so far: no file is created (or replaced)."""
        if self._closed:
            return
        self._closed = True
        L.SLOG2_Write_start_treenode(self._h)  # unbalanced on purpose: see module doc
        h = ctypes.c_void_p(self._h)
        L.SLOG2_Close(byref(h))

    def __del__(self):
        # A Writer dropped without close() was not finished on purpose: write nothing.
        try:
            self.abort()
        except Exception:
            pass

    # -- definitions ------------------------------------------------------
    def category(self, name: str, shape: str = "state", color=(255, 255, 255, 255),
                 width: int = 1, label: str = "", methods: Iterable[int] = (),
                 index: Optional[int] = None) -> int:
        """Define a category; returns its index (the next free one unless given).
        ``shape`` "state", "arrow" or "event"; ``color`` (r, g, b[, a]), "#rrggbb[aa]"
        or a matplotlib colour name; ``label`` the popup format (e.g. "tag=%d");
        ``methods`` method IDs (1 = CONNECT_COMPOSITE_STATE)."""
        if shape not in SHAPES:
            raise ValueError(f"shape must be one of {sorted(SHAPES)}, not {shape!r}")
        if index is None:
            index = max(self._labels, default=-1) + 1
        r, g, b, a = _color(color)
        head = _lib.SLOG2_Category_head_t(int(index), SHAPES[shape], r, g, b, a, int(width), 0, 0, 0)
        ms = np.asarray(list(methods), np.intc)
        check(L.SLOG2_Write_category_ex(self._h, byref(head), name.encode("utf-8"),
                                        label.encode("utf-8") if label else None, len(ms),
                                        ms.ctypes.data if len(ms) else None),
              f"category {name!r}")
        self._labels[int(index)] = label or ""
        self._shapes[int(index)] = SHAPES[shape]
        self._names.setdefault(name, int(index))
        return int(index)

    def ymap(self, title: str, columns: Sequence[str], rows, methods: Iterable[int] = ()) -> None:
        """A y-coordinate map: ``rows`` (n, 1 + len(columns)) ints, line ID first."""
        a = np.ascontiguousarray(rows, np.intc)
        if a.ndim != 2 or a.shape[1] != len(columns) + 1:
            raise ValueError(f"rows must have shape (n, {len(columns) + 1})")
        labels = (ctypes.c_char_p * max(1, len(columns)))(*[c.encode("utf-8") for c in columns])
        ms = np.asarray(list(methods), np.intc)
        check(L.SLOG2_Write_ycoordmap_ex(self._h, title.encode("utf-8"), a.shape[0], a.shape[1],
                                         labels, a.ctypes.data, len(ms),
                                         ms.ctypes.data if len(ms) else None),
              f"y-map {title!r}")

    def _info(self, category: int, info: Info) -> bytes:
        if info is None:
            return b""
        if isinstance(info, (bytes, bytearray, memoryview)):
            return bytes(info)
        label = self._labels.get(int(category))
        if label is None:
            raise ValueError(f"category {category} is not defined by this Writer: pass info as bytes")
        return encode_info(label, info)

    # -- drawables --------------------------------------------------------
    def primitive(self, category: int, times: Sequence[float], lines: Sequence[int],
                  info: Info = None) -> None:
        """A primitive with vertices (times[i], lines[i]); box = the times' envelope."""
        t = np.ascontiguousarray(times, np.float64)
        y = np.ascontiguousarray(lines, np.intc)
        b = self._info(category, info)
        check(L.SLOG2_Write_drawable_object(self._h, float(t.min()) if len(t) else 0.0,
                                            float(t.max()) if len(t) else 0.0, int(category),
                                            len(t), t.ctypes.data, len(y), y.ctypes.data, len(b), b),
              "SLOG2_Write_drawable_object")
        self.drawables += 1

    def state(self, category: int, start: float, end: float, line: int, info: Info = None) -> None:
        self.primitive(category, (start, end), (line, line), info)

    def arrow(self, category: int, t0: float, line0: int, t1: float, line1: int,
              info: Info = None) -> None:
        """An arrow from (t0, line0) to (t1, line1) (t1 < t0 draws it backwards)."""
        self.primitive(category, (t0, t1), (line0, line1), info)

    def event(self, category: int, time: float, line: int, info: Info = None) -> None:
        self.primitive(category, (time,), (line,), info)

    def composite(self, category: int, members: Sequence[tuple], info: Info = None) -> None:
        """A composite of ``members``, each ``(category, times, lines[, info])``."""
        cats, nv, ni, ts, ys, infos = [], [], [], [], [], []
        for m in members:
            c, t, y = m[0], m[1], m[2]
            b = self._info(c, m[3] if len(m) > 3 else None)
            t = list(np.atleast_1d(np.asarray(t, np.float64)))
            y = list(np.atleast_1d(np.asarray(y, np.intc)))
            cats.append(int(c))
            nv.append(len(t))
            ni.append(len(b))
            ts += t
            ys += y
            infos.append(b)
        if not cats:
            raise ValueError("a composite needs at least one member")
        cb = self._info(category, info)
        ta = np.asarray(ts, np.float64)
        ya = np.asarray(ys, np.intc)
        ca, nva, nia = (np.asarray(x, np.intc) for x in (cats, nv, ni))
        mi = b"".join(infos)
        check(L.SLOG2_Write_composite_ex(self._h, float(ta.min()), float(ta.max()), int(category),
                                         len(cb), cb, len(cats), ca.ctypes.data, nva.ctypes.data,
                                         ta.ctypes.data, ya.ctypes.data, nia.ctypes.data,
                                         mi if mi else None),
              "SLOG2_Write_composite_ex")
        self.drawables += 1

    def frame(self, df, category="category", start="start", end="end", line="line",
              line1: Optional[str] = None, info: Optional[str] = None) -> int:
        """Write the rows of a pandas DataFrame, sorted by end time (stable).

        ``category``: column of category indices or names (defined beforehand with
        :meth:`category`); ``start``/``end``: times; ``line``: line ID (of the first
        vertex); ``line1``: column of the arrows' last line ID (default: ``line``);
        ``info``: column of bytes or value tuples. States get vertices (start, line),
        (end, line); arrows (start, line), (end, line1); events (start, line).
        Returns the number of drawables written."""
        cat = df[category].to_numpy()
        if cat.dtype.kind in "OUS":
            try:
                cat = np.array([self._names[c] for c in cat], np.intc)
            except KeyError as e:
                raise ValueError(f"unknown category name {e.args[0]!r}") from None
        cat = cat.astype(np.intc)
        s = df[start].to_numpy(np.float64)
        e = df[end].to_numpy(np.float64) if end in df else s
        l0 = df[line].to_numpy(np.intc)
        l1 = df[line1].to_numpy(np.intc) if line1 else l0
        inf = df[info].to_numpy() if info else None
        order = np.argsort(e, kind="stable")
        n = 0
        for i in order:
            c = int(cat[i])
            sh = self._shapes.get(c, 1)
            d = None if inf is None else inf[i]
            if sh == 0:
                self.primitive(c, (s[i],), (l0[i],), d)
            elif sh == 2:
                self.primitive(c, (s[i], e[i]), (l0[i], l1[i]), d)
            else:
                self.primitive(c, (s[i], e[i]), (l0[i], l0[i]), d)
            n += 1
        return n

    # -- tree options -----------------------------------------------------
    @contextmanager
    def treenode(self):
        """A tree-node grouping hint (SLOG2_Write_start/end_treenode); must nest."""
        check(L.SLOG2_Write_start_treenode(self._h), "SLOG2_Write_start_treenode")
        yield
        check(L.SLOG2_Write_end_treenode(self._h), "SLOG2_Write_end_treenode")

    def expect_tree(self, nodes) -> None:
        """The directory the caller expects (a structured array like ``File.tree.nodes``);
        ``close()`` fails and writes nothing if the tree built differs."""
        from ._reader import TREE_DTYPE

        a = np.ascontiguousarray(nodes, TREE_DTYPE)
        check(L.SLOG2_Write_dir(self._h, a.ctypes.data_as(ctypes.POINTER(_lib.SLOG2_Treedir_node)),
                                len(a)), "SLOG2_Write_dir")
