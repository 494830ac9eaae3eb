"""Statistics of a trace as pandas DataFrames: :class:`StatsMixin` gives
:class:`slog2.File` its ``profile``, ``comm_matrix``, ``histogram``,
``time_profile``, ``idle_time``, ``load_imbalance`` methods, and
:func:`compare` compares two runs.

Everything is computed by the library (``SLOG2_Stats_*``, the Rust core's
``analysis`` module) in one call per result: this module only shapes the
columns the C call fills into DataFrames. Definitions (clipping, exclusive
time, where message sizes come from, bins and outliers) are the library's;
see the README, "Statistics".

Times are seconds. By default a window's states are clipped to it
(``whole=True``: whole states); the default window is the whole file.
"""

from __future__ import annotations

import ctypes
from ctypes import byref, c_char_p, c_int, c_int64
from typing import Optional

import numpy as np

from . import _lib
from ._columns import COLUMNS
from ._errors import check, error
from ._stats_lib import (
    SLOG2_Comm_columns,
    SLOG2_Histogram_spec,
    SLOG2_Idle_columns,
    SLOG2_Imbalance_columns,
    SLOG2_Instance_columns,
    SLOG2_Profile_columns,
    SLOG2_Stats_scope,
)

L = _lib.lib

_NP = {ctypes.c_int: np.intc, ctypes.c_double: np.float64, ctypes.c_int64: np.int64}
NAN = float("nan")


def _pd():
    import pandas as pd

    return pd


def _scope(t0=None, t1=None, whole=False, part=None) -> SLOG2_Stats_scope:
    s = SLOG2_Stats_scope()
    s.t0 = NAN if t0 is None else float(t0)
    s.t1 = NAN if t1 is None else float(t1)
    s.whole_states = 1 if whole else 0
    if part is not None:
        a, b = part
        s.has_part, s.part0, s.part1 = 1, float(a), float(b)
    return s


def _arrays(cls, n: int, repeat: Optional[dict] = None):
    """numpy arrays of ``n`` elements for every column of ``cls`` and the filled
    structure (``repeat`` multiplies some columns' lengths)."""
    cols = cls()
    arrays = {}
    for name, t in cls.COLUMNS:
        a = np.empty(max(1, n * (repeat or {}).get(name, 1)), _NP[t])
        arrays[name] = a
        setattr(cols, name, a.ctypes.data)
    return cols, arrays


def _fetch(call, cls, n: int, name: str, repeat: Optional[dict] = None) -> dict:
    """Run a four-argument-array call for ``n`` rows into fresh numpy columns."""
    cols, arrays = _arrays(cls, n, repeat)
    n_out, pos = c_int(), c_int(0)
    check(call(byref(n_out), byref(cols), byref(pos), n), name)
    k = n_out.value
    return {c: a[: k * (repeat or {}).get(c, 1)] for c, a in arrays.items()}


class Stats:
    """The statistics of one scope (``SLOG2_Stats_open``): profile, communication
    matrix, idle time, computed in one pass; each method copies one of them into a
    DataFrame. Use :meth:`StatsMixin.stats` to make one; close it (or use it as a
    context manager) to free the library's copy early."""

    def __init__(self, file, t0=None, t1=None, whole=False, wait=None, part=None):
        self._file = file
        sc = _scope(t0, t1, whole, part)
        waits = None
        if wait:
            if isinstance(wait, str):
                wait = [wait]
            enc = [w.encode() for w in wait] + [None]
            waits = (c_char_p * len(enc))(*enc)
        h = ctypes.c_void_p()
        check(L.SLOG2_Stats_open(file._handle(), byref(sc), waits, byref(h)), "SLOG2_Stats_open")
        self._h = h
        self.t0 = file.total_time[0] if t0 is None else float(t0)
        self.t1 = file.total_time[1] if t1 is None else float(t1)
        self.whole = bool(whole)
        self.part = part

    def close(self) -> None:
        if self._h.value:
            L.SLOG2_Stats_close(byref(self._h))

    def __enter__(self) -> "Stats":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def _count(self, what: int) -> int:
        n = c_int()
        check(L.SLOG2_Stats_count(self._h, what, byref(n)), "SLOG2_Stats_count")
        return n.value

    def _names(self, cats) -> list:
        by = self._file._by_index
        return [by[c].name if c in by else f"UnknownType-{c}" for c in cats.tolist()]

    def profile(self, by_line: bool = False, timed: bool = False):
        """Per category (or per line × category): ``count``, ``inclusive``,
        ``exclusive``, ``min``, ``mean``, ``max`` (seconds; NaN when no duration);
        ``timed=True`` adds ``timed``, the primitives among ``count`` (the mean's
        denominator: what partial results of partitions add)."""
        pd = _pd()
        n = self._count(_lib.SLOG2_STATS_PROFILE_BY_LINE if by_line else _lib.SLOG2_STATS_PROFILE)
        a = _fetch(lambda no, c, p, m: L.SLOG2_Stats_profile(self._h, int(by_line), no, c, p, m),
                   SLOG2_Profile_columns, n, "SLOG2_Stats_profile")
        cols = (["line"] if by_line else []) + ["category"]
        df = pd.DataFrame({c: a[c] for c in cols})
        df["name"] = self._names(a["category"])
        for c in ("count", "inclusive", "exclusive", "min", "mean", "max"):
            df[c] = a[c]
        if timed:
            df["timed"] = a["timed"]
        return df

    def comm_matrix(self):
        """Arrows per (``from_line``, ``to_line``, ``category``): ``count``, and
        ``bytes`` from the payloads' size field (``<NA>`` when the category has none)."""
        pd = _pd()
        a = _fetch(lambda no, c, p, m: L.SLOG2_Stats_comm(self._h, no, c, p, m),
                   SLOG2_Comm_columns, self._count(_lib.SLOG2_STATS_COMM), "SLOG2_Stats_comm")
        df = pd.DataFrame({"from_line": a["from_line"], "to_line": a["to_line"],
                           "category": a["category"]})
        df["name"] = self._names(a["category"])
        df["count"] = a["count"]
        df["bytes"] = pd.array(np.where(a["sized"] > 0, a["bytes"], 0), dtype="Int64")
        df.loc[a["sized"] == 0, "bytes"] = pd.NA
        return df

    def idle_time(self):
        """Per line: ``idle`` (time in the wait categories when given, else in no
        state), ``fraction`` of the window, ``no_state``, ``wait``. Busy time sums a
        line's top-level states: states that overlap without nesting (not what MPI
        tracers write) count their overlap twice, and ``no_state`` turns negative."""
        pd = _pd()
        a = _fetch(lambda no, c, p, m: L.SLOG2_Stats_idle(self._h, no, c, p, m),
                   SLOG2_Idle_columns, self._count(_lib.SLOG2_STATS_IDLE), "SLOG2_Stats_idle")
        return pd.DataFrame(a)

    def load_imbalance(self, metric: str = "exclusive", top: int = 3):
        """Per state category: ``mean`` and ``max`` of its time over the lines,
        ``ratio`` = max / mean, and the ``top`` worst ``lines``/``values``."""
        pd = _pd()
        if metric not in ("exclusive", "inclusive"):
            raise ValueError(f"metric must be 'exclusive' or 'inclusive', not {metric!r}")
        n = self._count(_lib.SLOG2_STATS_IMBALANCE)
        top = int(top)
        a = _fetch(lambda no, c, p, m: L.SLOG2_Stats_imbalance(
            self._h, int(metric == "inclusive"), top, no, c, p, m),
            SLOG2_Imbalance_columns, n, "SLOG2_Stats_imbalance",
            repeat={"worst_line": max(top, 1), "worst_value": max(top, 1)})
        df = pd.DataFrame({"category": a["category"]})
        df["name"] = self._names(a["category"])
        for c in ("lines", "mean", "max", "ratio"):
            df[c] = a[c]
        k = len(df)
        wl = a["worst_line"][: k * top].reshape(k, top) if top else np.zeros((k, 0), np.intc)
        wv = a["worst_value"][: k * top].reshape(k, top) if top else np.zeros((k, 0))
        df["worst_lines"] = [[int(x) for x in r if x >= 0] for r in wl]
        df["worst_values"] = [[float(v) for x, v in zip(rl, r) if x >= 0] for rl, r in zip(wl, wv)]
        return df


class StatsMixin:
    """The statistics methods of :class:`slog2.File` (see the module docs)."""

    def _handle(self):
        if self._closed:
            raise error(_lib.SLOG2_ERR_BAD_HANDLE, "slog2.File (closed)")
        return self._h

    def _category_index(self, category) -> int:
        if isinstance(category, (int, np.integer)) and not isinstance(category, bool):
            return int(category)
        for c in self.categories:
            if c.name == category and c.index >= 0:
                return c.index
        raise KeyError(f"no category named {category!r} in {self.path}")

    def stats(self, t0=None, t1=None, *, whole=False, wait=None, part=None) -> Stats:
        """Profile, communication matrix and idle time of ``[t0, t1]`` (default: the
        whole file) in one pass; ``wait``: wait category names (wildcards ``*``, ``?``)
        for idle time; ``part=(a, b)``: only the drawables starting in ``[a, b)``
        (a partial result: partitions' results add up)."""
        return Stats(self, t0, t1, whole, wait, part)

    def profile(self, t0=None, t1=None, *, by_line=False, whole=False):
        """pipit's ``flat_profile``: per category (``by_line``: per line × category)
        ``count``, ``inclusive``, ``exclusive`` (minus the states nested directly
        inside, on the same line), ``min``, ``mean``, ``max``; states clipped to the
        window unless ``whole``."""
        with self.stats(t0, t1, whole=whole) as s:
            return s.profile(by_line)

    def comm_matrix(self, t0=None, t1=None, *, whole=False, values: Optional[str] = None):
        """pipit's ``comm_matrix``: rows (``from_line``, ``to_line``, ``category``,
        ``name``, ``count``, ``bytes``); with ``values="count"`` or ``"bytes"``, a
        square DataFrame (senders × receivers, every category summed)."""
        with self.stats(t0, t1, whole=whole) as s:
            df = s.comm_matrix()
        if values is None:
            return df
        if values not in ("count", "bytes"):
            raise ValueError(f"values must be 'count' or 'bytes', not {values!r}")
        lines = sorted(set(df["from_line"]) | set(df["to_line"]))
        v = df[values].astype("float64") if values == "bytes" else df[values]
        m = (df.assign(v=v).pivot_table(index="from_line", columns="to_line", values="v",
                                         aggfunc="sum", fill_value=0)
             .reindex(index=lines, columns=lines, fill_value=0))
        return m

    def idle_time(self, t0=None, t1=None, *, wait=None):
        """pipit's ``idle_time``: per line the time in no state (or, with ``wait``
        names such as ``["MPI_Wait*", "MPI_Recv"]``, in those states)."""
        with self.stats(t0, t1, wait=wait) as s:
            return s.idle_time()

    def load_imbalance(self, t0=None, t1=None, *, metric="exclusive", top=3):
        """pipit's ``load_imbalance``: per state category the max / mean of its time
        over the lines and the ``top`` worst lines."""
        with self.stats(t0, t1) as s:
            return s.load_imbalance(metric, top)

    def _hist(self, measure, category, bins, t0, t1, log, lo, hi, whole, part=None):
        pd = _pd()
        if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 1:
            raise ValueError(f"bins must be an int >= 1, not {bins!r}")
        spec = SLOG2_Histogram_spec(measure, category, int(bins), int(bool(log)),
                                    NAN if lo is None else float(lo), NAN if hi is None else float(hi))
        sc = _scope(t0, t1, whole, part)
        nb = c_int()
        edges = np.empty(bins + 1)
        counts = np.empty(bins, np.int64)
        sums = np.empty(bins)
        outl = np.zeros(3, np.int64)
        check(L.SLOG2_Stats_histogram(self._handle(), byref(sc), byref(spec), byref(nb),
                                      edges.ctypes.data, counts.ctypes.data, sums.ctypes.data,
                                      outl.ctypes.data), "SLOG2_Stats_histogram")
        k = nb.value
        df = pd.DataFrame({"bin": np.arange(k), "lo": edges[:k], "hi": edges[1:k + 1],
                           "count": counts[:k], "sum": sums[:k]})
        # attrs hold plain Python values (pandas compares attrs with ==).
        df.attrs.update(edges=tuple(edges[:k + 1].tolist()) if k else (), below=int(outl[0]),
                        above=int(outl[1]), no_size=int(outl[2]), spec=(measure, category, log),
                        scope=(t0, t1, whole, part))
        return df

    def histogram(self, category, bins: int = 20, t0=None, t1=None, *, log=False, lo=None,
                  hi=None, whole=False, part=None):
        """Histogram of the durations of ``category``'s drawables (name or index):
        ``bin``, ``lo``, ``hi``, ``count``, ``sum`` per bin; linear or ``log`` bins
        between the cut-offs ``lo``/``hi`` (default: the smallest and largest
        duration). Values outside are outliers, counted in ``df.attrs["below"]`` and
        ``["above"]``. :meth:`histogram_instances` lists a bar's drawables."""
        return self._hist(_lib.SLOG2_MEASURE_DURATION, self._category_index(category), bins,
                          t0, t1, log, lo, hi, whole, part)

    def message_histogram(self, bins: int = 20, category=None, t0=None, t1=None, *, log=False,
                          lo=None, hi=None, part=None):
        """pipit's ``message_histogram``: message sizes in bytes (every arrow
        category with a size field, or one); arrows without a size are counted in
        ``df.attrs["no_size"]``."""
        c = -1 if category is None else self._category_index(category)
        return self._hist(_lib.SLOG2_MEASURE_MESSAGE_SIZE, c, bins, t0, t1, log, lo, hi, False, part)

    def histogram_instances(self, hist, bin: int, limit: int = 100):
        """The drawables behind bar ``bin`` of a :meth:`histogram` /
        :meth:`message_histogram` result (-1: the outliers below, ``len(hist)``: those
        above), the first ``limit`` by start time: ``start``, ``end``, ``line0``,
        ``line1``, ``category``, ``name``, ``value``, ``text`` (popup text);
        ``df.attrs["total"]`` = instances in the bar."""
        pd = _pd()
        edges = np.ascontiguousarray(hist.attrs["edges"], np.float64)
        if len(edges) < 2:
            raise ValueError("the histogram has no bins")
        measure, category, log = hist.attrs["spec"]
        t0, t1, whole, part = hist.attrs["scope"]
        spec = SLOG2_Histogram_spec(measure, category, len(edges) - 1, int(bool(log)), NAN, NAN)
        sc = _scope(t0, t1, whole, part)
        limit = max(0, int(limit))
        cols, a = _arrays(SLOG2_Instance_columns, limit)
        tcap = max(4096, limit * 64)
        while True:
            text = ctypes.create_string_buffer(tcap)
            total, n, pos, tpos = c_int64(), c_int(), c_int(0), c_int(0)
            rc = L.SLOG2_Stats_histogram_instances(
                self._handle(), byref(sc), byref(spec), edges.ctypes.data, len(edges), int(bin),
                byref(total), byref(n), byref(cols), byref(pos), limit, text, byref(tpos), tcap)
            if rc == _lib.SLOG2_ERR_ARRAY_TOO_SMALL and tcap < (1 << 30):
                tcap *= 8
                continue
            check(rc, "SLOG2_Stats_histogram_instances")
            break
        k = n.value
        raw = text.raw
        df = pd.DataFrame({c: a[c][:k] for c in ("start", "end", "line0", "line1", "category", "value")})
        df.insert(5, "name", [self._by_index[c].name if c in self._by_index else f"UnknownType-{c}"
                              for c in a["category"][:k].tolist()])
        df["text"] = [raw[o:raw.index(b"\0", o)].decode("utf-8", "replace")
                      for o in a["text_offset"][:k].tolist()]
        df.attrs["total"] = total.value
        return df

    def time_profile(self, slices: int = 20, t0=None, t1=None, *, part=None):
        """pipit's ``time_profile``: state time per category (columns, by name) in
        ``slices`` equal slices of ``[t0, t1]`` (rows; ``start``/``end`` columns),
        summed over lines — the overview cube summed over its lines."""
        pd = _pd()
        sc = _scope(t0, t1, False, part)
        nc = c_int()
        rc = L.SLOG2_Stats_time_profile(self._handle(), byref(sc), int(slices), byref(nc), None,
                                        None, 0)
        if rc != _lib.SLOG2_ERR_ARRAY_TOO_SMALL:
            check(rc, "SLOG2_Stats_time_profile")
        k = nc.value
        cats = np.empty(max(k, 1), np.intc)
        vals = np.empty(max(k, 1) * int(slices))
        check(L.SLOG2_Stats_time_profile(self._handle(), byref(sc), int(slices), byref(nc),
                                         cats.ctypes.data, vals.ctypes.data, max(k, 1)),
              "SLOG2_Stats_time_profile")
        a = self.total_time[0] if t0 is None else float(t0)
        b = self.total_time[1] if t1 is None else float(t1)
        w = (b - a) / slices
        edges = [a + i * w for i in range(slices)] + [b]
        names = [self._by_index[c].name if c in self._by_index else f"UnknownType-{c}"
                 for c in cats[:k].tolist()]
        seen = {}
        cols = []
        for nm, c in zip(names, cats[:k].tolist()):
            cols.append(nm if nm not in seen else f"{nm} ({c})")
            seen[nm] = True
        df = pd.DataFrame(vals[: slices * k].reshape(slices, k), columns=cols)
        df.insert(0, "start", edges[:-1])
        df.insert(1, "end", edges[1:])
        df.attrs["categories"] = cats[:k].tolist()
        return df

    def partition_edges(self, n: int) -> np.ndarray:
        """``n + 1`` edges cutting the time axis into ``n`` partitions of about equal
        work (first -inf, last +inf): each drawable starts in exactly one."""
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"n must be an int >= 1, not {n!r}")
        e = np.empty(int(n) + 1)
        check(L.SLOG2_Stats_partitions(self._handle(), int(n), e.ctypes.data), "SLOG2_Stats_partitions")
        return e

    def partition_frame(self, part0: float, part1: float, t0=None, t1=None):
        """The drawables whose box starts in ``[part0, part1)`` (and meets ``[t0, t1]``)
        as a DataFrame: one row per primitive (members of composites included) and
        per composite; what a ``slog2.dask.read`` task loads."""
        pd = _pd()

        sc = _scope(t0, t1, False, (part0, part1))
        cap = 1 << 16
        while True:
            cols = _lib.SLOG2_Query_columns()
            arrays = {}
            for name, dt in COLUMNS:
                arr = np.empty(cap, dt)
                arrays[name] = arr
                setattr(cols, name, arr.ctypes.data)
            n, pos = c_int(), c_int(0)
            rc = L.SLOG2_Stats_rows(self._handle(), byref(sc), byref(n), ctypes.addressof(cols),
                                    byref(pos), cap)
            if rc == _lib.SLOG2_ERR_ARRAY_TOO_SMALL:
                cap = n.value
                continue
            check(rc, "SLOG2_Stats_rows")
            break
        k = n.value
        df = pd.DataFrame({c: arrays[c][:k] for c in ("kind", "category", "start", "end", "time0",
                                                       "time1", "line0", "line1", "num_real")})
        df["kind"] = df["kind"].astype(np.int8)
        return df


__all__ = ["Stats", "StatsMixin"]
