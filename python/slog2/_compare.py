"""Comparing two runs (pipit's ``multirun_analysis``): profiles and time
profiles of two files aligned by category name, computed by the library
(``SLOG2_Stats_compare``, ``SLOG2_Stats_compare_time``).

It sits above both the reader (``_reader``: files and paths) and the
statistics (``_stats``): the two runs are files, the figures statistics.
"""

from __future__ import annotations

import ctypes
from ctypes import byref, c_int

import numpy as np

from . import _lib
from ._errors import check
from ._reader import File
from ._reader import open as _open
from ._stats import L, _arrays, _pd
from ._stats_lib import SLOG2_Compare_columns


def _as_file(x):
    """``(file, opened_here)``: a :class:`slog2.File` as it is, a path opened."""
    return (x, False) if isinstance(x, File) else (_open(x), True)


def compare(a, b, t0=None, t1=None, *, whole=False):
    """pipit's ``multirun_analysis`` for two runs: per category **name** (indices
    differ between runs) the ``count``, ``inclusive`` and ``exclusive`` time of run
    ``a`` and ``b``, their differences (b - a) and relative differences ((b - a) / a,
    NaN when a is 0). ``a``/``b``: :class:`slog2.File` objects or paths; ``t0``/``t1``
    apply to both (default: each whole file)."""
    pd = _pd()
    fa, ca = _as_file(a)
    fb, cb = _as_file(b)
    try:
        with fa.stats(t0, t1, whole=whole) as sa, fb.stats(t0, t1, whole=whole) as sb:
            n = len(fa.categories) + len(fb.categories)
            cols, arr = _arrays(SLOG2_Compare_columns, n)
            ncap = 1 << 16
            while True:
                names = ctypes.create_string_buffer(ncap)
                k, pos, npos = c_int(), c_int(0), c_int(0)
                rc = L.SLOG2_Stats_compare(sa._h, sb._h, byref(k), byref(cols), byref(pos), n,
                                           names, byref(npos), ncap)
                if rc == _lib.SLOG2_ERR_ARRAY_TOO_SMALL and ncap < (1 << 28):
                    ncap *= 16
                    continue
                check(rc, "SLOG2_Stats_compare")
                break
    finally:
        if ca:
            fa.close()
        if cb:
            fb.close()
    k = k.value
    raw = names.raw
    df = pd.DataFrame({"name": [raw[o:raw.index(b"\0", o)].decode("utf-8", "replace")
                                for o in arr["name_offset"][:k].tolist()]})
    for c, _t in SLOG2_Compare_columns.COLUMNS[1:]:
        df[c] = arr[c][:k]
    df.insert(3, "count_diff", df["count_b"] - df["count_a"])
    return df


def compare_time_profiles(a, b, slices: int = 20):
    """The time profiles of two runs (each over its own time range, ``slices``
    slices) aligned by category name: a long DataFrame ``slice``, ``name``, ``a``,
    ``b``, ``diff`` (b - a)."""
    pd = _pd()
    fa, ca = _as_file(a)
    fb, cb = _as_file(b)
    try:
        nn, nl = c_int(), c_int()
        rc = L.SLOG2_Stats_compare_time(fa._handle(), fb._handle(), int(slices), byref(nn), None,
                                        0, byref(nl), None, None, 0)
        if rc != _lib.SLOG2_ERR_ARRAY_TOO_SMALL:
            check(rc, "SLOG2_Stats_compare_time")
        names = ctypes.create_string_buffer(max(nl.value, 1))
        va = np.empty(max(1, nn.value * int(slices)))
        vb = np.empty_like(va)
        check(L.SLOG2_Stats_compare_time(fa._handle(), fb._handle(), int(slices), byref(nn), names,
                                         len(names), byref(nl), va.ctypes.data, vb.ctypes.data,
                                         len(va)), "SLOG2_Stats_compare_time")
    finally:
        if ca:
            fa.close()
        if cb:
            fb.close()
    name_list = names.raw[: nl.value].split(b"\0")[: nn.value]
    name_list = [x.decode("utf-8", "replace") for x in name_list]
    w = len(name_list)
    k = w * int(slices)
    df = pd.DataFrame({
        "slice": np.repeat(np.arange(int(slices)), w),
        "name": name_list * int(slices),
        "a": va[:k],
        "b": vb[:k],
    })
    df["diff"] = df["b"] - df["a"]
    return df


__all__ = ["compare", "compare_time_profiles"]
