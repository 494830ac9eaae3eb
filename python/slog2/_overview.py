"""Ocelotl's overview of a time range (``File.overview``): the cube as numpy, the
parts, hierarchy and p-curve as pandas, through ``SLOG2_Overview_*`` (one C call
per array). The aggregation itself lives in the library (``slog2::analysis``);
this module only copies its answers.
"""

from __future__ import annotations

import ctypes
from ctypes import byref, c_int
from typing import Optional, Union

import numpy as np

from . import _lib
from ._errors import check

L = _lib.lib


class _Params(ctypes.Structure):
    _fields_ = [
        ("t0", ctypes.c_double),
        ("t1", ctypes.c_double),
        ("slices", c_int),
        ("metric", c_int),
        ("spatiotemporal", c_int),
        ("hierarchy", ctypes.c_char_p),
        ("p", ctypes.c_double),
        ("bisect", ctypes.c_double),
        ("no_cache", c_int),
    ]


class _Info(ctypes.Structure):
    _fields_ = [
        ("t0", ctypes.c_double),
        ("t1", ctypes.c_double),
        ("slices", c_int),
        ("metric", c_int),
        ("n_lines", c_int),
        ("n_categories", c_int),
        ("n_parts", c_int),
        ("n_nodes", c_int),
        ("n_curve", c_int),
        ("p", ctypes.c_double),
        ("gain", ctypes.c_double),
        ("loss", ctypes.c_double),
        ("exact", c_int),
        ("from_cache", c_int),
        ("unmapped", ctypes.c_int64),
    ]


def _name(file, index: int) -> str:
    try:
        return file.category(index).name
    except KeyError:
        return f"UnknownType-{index}"


def _ptr(a: np.ndarray):
    return a.ctypes.data_as(ctypes.c_void_p)


class Overview:
    """An overview (see :meth:`slog2.File.overview`).

    Attributes: ``t0``, ``t1``, ``slices``, ``metric`` ("duration" or "count"),
    ``lines`` and ``categories`` (cube order), ``cube`` (numpy, shape
    ``(lines, slices, categories)``), ``p``, ``parts`` (pandas: ``first``,
    ``last`` slices inclusive, ``t0``, ``t1``, ``gain``, ``loss``, ``mode``
    category index or -1, ``node`` for spatiotemporal parts, and one column per
    category name with the part's mean value), ``hierarchy`` (pandas: ``id``,
    ``parent``, ``lines``; None for a temporal overview), ``curve`` (pandas:
    ``p``, ``gain``, ``loss``, ``parts``; empty unless computed), ``exact`` and
    ``from_cache``.
    """

    def __init__(self, file, h):
        self._file = file
        self._h = ctypes.c_void_p(h)
        self._read()

    def _read(self) -> None:
        import pandas as pd

        info = _Info()
        check(L.SLOG2_Overview_get_info(self._h, byref(info)), "SLOG2_Overview_get_info")
        self.t0, self.t1, self.slices = info.t0, info.t1, info.slices
        self.metric = "count" if info.metric == _lib.SLOG2_OVERVIEW_COUNT else "duration"
        self.p, self.gain, self.loss = info.p, info.gain, info.loss
        self.exact, self.from_cache = bool(info.exact), bool(info.from_cache)
        self.unmapped = info.unmapped
        nl, nc, npt = info.n_lines, info.n_categories, info.n_parts
        lines = np.zeros(max(nl, nc), np.intc)
        cats = np.zeros(max(nl, nc), np.intc)
        a, b = c_int(), c_int()
        check(L.SLOG2_Overview_get_axes(self._h, _ptr(lines), byref(a), _ptr(cats), byref(b),
                                        len(lines)), "SLOG2_Overview_get_axes")
        self.lines, self.categories = lines[:nl].copy(), cats[:nc].copy()
        cube = np.zeros(nl * self.slices * nc, np.float64)
        check(L.SLOG2_Overview_get_cube(self._h, _ptr(cube), len(cube), byref(a)),
              "SLOG2_Overview_get_cube")
        self.cube = cube.reshape(nl, self.slices, nc)
        cols = {k: np.zeros(npt, np.intc) for k in ("node", "first", "last", "mode")}
        gain, loss = np.zeros(npt), np.zeros(npt)
        values = np.zeros(npt * nc)
        check(L.SLOG2_Overview_get_parts(self._h, _ptr(cols["node"]), _ptr(cols["first"]),
                                         _ptr(cols["last"]), _ptr(gain), _ptr(loss),
                                         _ptr(cols["mode"]), _ptr(values), npt, byref(a)),
              "SLOG2_Overview_get_parts")
        width = (self.t1 - self.t0) / self.slices
        edge = lambda k: np.where(k >= self.slices, self.t1, self.t0 + k * width)  # noqa: E731
        df = pd.DataFrame({
            "first": cols["first"], "last": cols["last"],
            "t0": edge(cols["first"]), "t1": edge(cols["last"] + 1),
            "gain": gain, "loss": loss, "mode": cols["mode"],
        })
        if info.n_nodes:
            df.insert(0, "node", cols["node"])
        names = [_name(self._file, int(c)) for c in self.categories]
        self.category_names = names
        vals = values.reshape(npt, nc)
        for k, name in enumerate(names):
            df[name] = vals[:, k]
        self.parts = df
        self.hierarchy = None
        if info.n_nodes:
            nn = info.n_nodes
            parent, count = np.zeros(nn, np.intc), np.zeros(nn, np.intc)
            total = c_int()
            check(L.SLOG2_Overview_get_hierarchy(self._h, _ptr(parent), _ptr(count), nn, byref(a),
                                                 None, 0, byref(total)),
                  "SLOG2_Overview_get_hierarchy")
            flat = np.zeros(total.value, np.intc)
            check(L.SLOG2_Overview_get_hierarchy(self._h, None, None, nn, byref(a), _ptr(flat),
                                                 len(flat), byref(total)),
                  "SLOG2_Overview_get_hierarchy")
            splits = np.cumsum(count)[:-1]
            self.hierarchy = pd.DataFrame({
                "id": np.arange(nn), "parent": parent,
                "lines": [list(map(int, x)) for x in np.split(flat, splits)],
            })
        nv = info.n_curve
        cp, cg, cl, cn = np.zeros(nv), np.zeros(nv), np.zeros(nv), np.zeros(nv, np.intc)
        check(L.SLOG2_Overview_get_curve(self._h, _ptr(cp), _ptr(cg), _ptr(cl), _ptr(cn), nv,
                                         byref(a)), "SLOG2_Overview_get_curve")
        self.curve = pd.DataFrame({"p": cp, "gain": cg, "loss": cl, "parts": cn})

    def set_p(self, p: float) -> "Overview":
        """Re-aggregate at another ``p`` (no pass over the drawables)."""
        check(L.SLOG2_Overview_set_p(self._h, float(p)), "SLOG2_Overview_set_p")
        self._read()
        return self

    def rects(self, min_lines: float = 1.0):
        """The rectangles of the spatiotemporal picture when a node needs
        ``min_lines`` lines to be drawn alone (pandas: node, first, last, mode, kind
        with kind 0 a part, 1 striped, 2 crossed)."""
        import pandas as pd

        a = c_int()
        n = max(len(self.parts), 1)  # never more rectangles than parts
        cols = {k: np.zeros(n, np.intc) for k in ("node", "first", "last", "mode", "kind")}
        check(L.SLOG2_Overview_get_rects(self._h, float(min_lines), _ptr(cols["node"]),
                                         _ptr(cols["first"]), _ptr(cols["last"]),
                                         _ptr(cols["mode"]), _ptr(cols["kind"]), n, byref(a)),
              "SLOG2_Overview_get_rects")
        return pd.DataFrame({k: v[:a.value] for k, v in cols.items()})

    def close(self) -> None:
        if self._h and self._h.value:
            L.SLOG2_Overview_close(byref(self._h))

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    def __repr__(self) -> str:
        kind = "spatiotemporal" if self.hierarchy is not None else "temporal"
        return (f"<slog2.Overview {kind} [{self.t0}, {self.t1}] {self.slices} slices "
                f"{self.metric}, p={self.p:.4g}: {len(self.parts)} parts>")


def overview(file, slices: int = 100, t0: Optional[float] = None, t1: Optional[float] = None,
             metric: str = "duration", spatiotemporal: bool = False,
             hierarchy: Optional[str] = None, p: Union[float, str] = "auto",
             bisect: Optional[float] = None, cache: bool = True) -> Overview:
    if metric not in ("duration", "count"):
        raise ValueError(f"metric {metric!r}: duration or count")
    prm = _Params(
        float("nan") if t0 is None else float(t0), float("nan") if t1 is None else float(t1),
        int(slices),
        _lib.SLOG2_OVERVIEW_COUNT if metric == "count" else _lib.SLOG2_OVERVIEW_DURATION,
        1 if spatiotemporal else 0,
        hierarchy.encode() if hierarchy else None,
        -1.0 if p == "auto" else float(p),
        float(bisect) if bisect else 0.0,
        0 if cache else 1,
    )
    h = ctypes.c_void_p()
    check(L.SLOG2_Overview_open(file._h, byref(prm), byref(h)), "SLOG2_Overview_open")
    return Overview(file, h.value)
