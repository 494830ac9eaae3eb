"""Analyses of SLOG-2 files on a Dask cluster (``pip install "slog2[dask]"``).

When a trace or a study outgrows one machine, the work goes to Dask
(``dask.distributed``) — which HPC sites run through dask-jobqueue or dask-mpi —
not to a scheduler of our own::

    from dask.distributed import Client
    import slog2.dask

    client = Client("tcp://scheduler:8786")        # or LocalCluster(n_workers=...)
    prof = slog2.dask.profile(["run1.slog2", "run2.slog2"])   # one pandas table
    rows = slog2.dask.read("run.slog2", partitions=32)         # a dask.dataframe

**Partitions.** Each file is cut into time partitions of about equal work
(``File.partition_edges``: the tree's leaves' bytes by time). A partition
``[a, b)`` holds the drawables whose box **starts** in it, so partitions that tile
the time axis hold each drawable exactly once: a state crossing an edge belongs,
whole, to the partition where it starts (its time inside a window is still
clipped to the window). Each task opens the file by path (a shared filesystem)
and reads only the tree nodes that can hold its drawables.

**Open files stay open on the workers.** A worker keeps the files its tasks
opened (at most ``SLOG2_DASK_OPEN_FILES``, default 8, least recently used first
out; ``0`` opens and closes per task) and reuses one while its device, inode,
size and modification time are unchanged, so a file replaced on the shared
filesystem is opened again. The first pass over a freshly opened file pays the
page faults of its new mapping (about a quarter of a warm pass: BENCHMARKS.md
"Dask"); a long-lived cluster that analyses the same files again, as a notebook
does, pays them once per worker, like a process that keeps its ``File``.

**Partial results.** Every task computes a mergeable partial result in the
library (``File.stats(part=...)``, ``File.histogram(part=...)``, ...): counts,
sums, minima and maxima per key, histograms on shared bin edges, time profiles
on a shared grid. Dask reduces them by a tree of merge tasks on the cluster
(a pandas ``groupby().agg()`` of at most 16 partials each): one small graph of
plain tasks, not a ``dask.dataframe`` pipeline, whose graph building and
per-partition steps cost the client and the workers more than merging a few
rows. The results equal the single-process ones: counts exactly, times up to
the order of float sums. Exclusive time is exact too: a state's nested
children subtract from it in the partition where each child starts.

**The client does not open the files.** A task gets its file's path and its
partition's number ``k`` of ``n``, and cuts the edges itself
(``File.partition_edges(n)``, the same on every worker); only
``partitions="auto"`` looks at the file, for its size. :func:`plan` gives the
edges to callers that want them.

**Several files.** Category indices differ between runs, so a study of many
files is reduced by category **name** (``by_file=True`` keeps one row per file).

Each function returns pandas DataFrames (computed on the current Dask client, or
on ``client=``); :func:`read` returns a lazy ``dask.dataframe``.
"""

from __future__ import annotations

import os
from typing import List, Sequence, Tuple, Union

import numpy as np

try:
    import dask
    import dask.dataframe as dd
    import pandas as pd
    from dask import delayed
except ImportError as e:  # pragma: no cover - exercised by the package without extras
    raise ImportError(
        'slog2.dask needs the optional Dask extras: pip install "slog2[dask]" '
        "(dask[dataframe] and distributed)"
    ) from e

from ._reader import open as _open
from ._tasks import task_file

PathLike = Union[str, os.PathLike]
Paths = Union[PathLike, Sequence[PathLike]]

#: Bytes of file per partition when ``partitions="auto"``: few partitions, each task
#: costs the cluster its scheduling and opening the file (BENCHMARKS.md "Dask").
AUTO_PARTITION_BYTES = 2 << 30


def _paths(paths: Paths) -> List[str]:
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    out = [os.fspath(p) for p in paths]
    if not out:
        raise ValueError("no files given")
    return out


def _count(path: str, partitions: Union[int, str]) -> int:
    """Partitions of one file: ``partitions``, or for ``"auto"`` one per 2 GiB."""
    if partitions == "auto":
        return max(1, int(round(os.path.getsize(path) / AUTO_PARTITION_BYTES)))
    if isinstance(partitions, (int, np.integer)) and not isinstance(partitions, bool) and partitions >= 1:
        return int(partitions)
    raise ValueError(f"partitions must be an int >= 1 or 'auto', not {partitions!r}")


def _tasks(paths: Paths, partitions: Union[int, str]) -> List[Tuple[int, str, int, int]]:
    """``(file number, path, k, n)`` for partition ``k`` of the ``n`` of each file
    (module docs: the task cuts the edges)."""
    out = []
    for i, p in enumerate(_paths(paths)):
        n = _count(p, partitions)
        out.extend((i, p, k, n) for k in range(n))
    return out


def _range(f, k: int, n: int) -> Tuple[float, float]:
    """Partition ``[a, b)`` number ``k`` of the ``n`` of an open file."""
    if n == 1:
        return (-np.inf, np.inf)
    e = f.partition_edges(n)
    return float(e[k]), float(e[k + 1])


def plan(paths: Paths, partitions: Union[int, str] = "auto") -> List[Tuple[int, str, float, float]]:
    """The tasks: ``(file number, path, a, b)`` for each time partition ``[a, b)``
    of each file (``partitions`` per file, or ``"auto"``: one per 2 GiB). Opens
    each file; the functions below leave that to their tasks."""
    out = []
    for i, p in enumerate(_paths(paths)):
        n = _count(p, partitions)
        with _open(p) as f:
            e = f.partition_edges(n)
        out.extend((i, p, float(e[k]), float(e[k + 1])) for k in range(n))
    return out


def _compute(x, client):
    if client is not None:
        return client.compute(x).result()
    return x.compute()


#: Partials per merge task of :func:`_reduce`.
MERGE_WIDTH = 16


def _reduce(parts: list, merge, *args):
    """A tree of ``merge(*args, *partials)`` tasks over delayed partials, at most
    :data:`MERGE_WIDTH` each, down to one (at least one merge, so a single
    partial comes out merged too)."""
    parts = list(parts)
    while True:
        parts = [delayed(merge)(*args, *parts[k:k + MERGE_WIDTH])
                 for k in range(0, len(parts), MERGE_WIDTH)]
        if len(parts) == 1:
            return parts[0]


def _merge(keys: List[str], how: dict, *parts):
    """Partials (frames with ``keys`` and ``how``'s columns) merged per key."""
    df = pd.concat(parts, ignore_index=True)
    return df.groupby(keys, sort=False).agg(how).reset_index()


# -- read ------------------------------------------------------------------

_ROW_META = {
    "file": np.int32, "kind": np.int8, "category": np.intc, "start": np.float64,
    "end": np.float64, "time0": np.float64, "time1": np.float64, "line0": np.intc,
    "line1": np.intc, "num_real": np.int64,
}


def _meta(cols: dict):
    return pd.DataFrame({c: pd.Series(dtype=t) for c, t in cols.items()})


def _load(i, path, k, n, t0, t1):
    with task_file(path) as f:
        df = f.partition_frame(*_range(f, k, n), t0, t1)
    df.insert(0, "file", np.int32(i))
    return df


def read(paths: Paths, partitions: Union[int, str] = "auto", t0=None, t1=None):
    """A ``dask.dataframe`` of the drawables of ``paths`` (of the window ``[t0,
    t1]`` if given): one partition per time range of one file, each drawable once
    (in the partition where its box starts; module docs). Columns: ``file`` (the
    path's position in ``paths``), ``kind`` (0 primitive — members of composites
    included —, 1 composite), ``category``, ``start``, ``end``, ``time0``,
    ``time1``, ``line0``, ``line1`` (an arrow goes from ``(time0, line0)`` to
    ``(time1, line1)``), ``num_real``. Names: :func:`categories`."""
    tasks = [delayed(_load)(i, p, k, n, t0, t1) for i, p, k, n in _tasks(paths, partitions)]
    return dd.from_delayed(tasks, meta=_meta(_ROW_META), verify_meta=False)


def categories(paths: Paths):
    """The categories of each file: ``file``, ``category``, ``name``, ``topology``."""
    rows = []
    for i, p in enumerate(_paths(paths)):
        with _open(p) as f:
            rows += [(i, c.index, c.name, c.topology) for c in f.categories if c.index >= 0]
    return pd.DataFrame(rows, columns=["file", "category", "name", "topology"])


# -- profile -------------------------------------------------------------------

def _profile_part(i, path, k, n, t0, t1, whole, by_line):
    with task_file(path) as f, f.stats(t0, t1, whole=whole, part=_range(f, k, n)) as s:
        df = s.profile(by_line, timed=True)
    df.insert(0, "file", np.int32(i))
    return df


def _keys(paths: List[str], by_file: bool, by_line: bool) -> List[str]:
    keys = ["file"] if by_file else []
    if by_line:
        keys.append("line")
    keys += ["category", "name"] if (len(paths) == 1 or by_file) else ["name"]
    return keys


def profile(paths: Paths, t0=None, t1=None, *, by_line: bool = False, whole: bool = False,
            by_file: bool = False, partitions: Union[int, str] = "auto", client=None):
    """:meth:`slog2.File.profile` of one or many files on the cluster (module docs):
    ``count``, ``inclusive``, ``exclusive``, ``min``, ``mean``, ``max`` per category
    (per name across files; ``by_file``: per file and category)."""
    ps = _paths(paths)
    tasks = [delayed(_profile_part)(i, p, k, n, t0, t1, whole, by_line)
             for i, p, k, n in _tasks(ps, partitions)]
    keys = _keys(ps, by_file, by_line)
    how = {"count": "sum", "timed": "sum", "inclusive": "sum", "exclusive": "sum", "min": "min",
           "max": "max"}
    df = _compute(_reduce(tasks, _merge, keys, how), client)
    df = df[(df["count"] > 0) | (df["exclusive"] != 0)]
    df["mean"] = np.where(df["timed"] > 0, df["inclusive"] / df["timed"].where(df["timed"] > 0, 1),
                          np.nan)
    df.loc[df["timed"] == 0, ["min", "max"]] = np.nan
    cols = keys + ["count", "inclusive", "exclusive", "min", "mean", "max"]
    return df.sort_values(keys).reset_index(drop=True)[cols]


# -- communication matrix --------------------------------------------------------

def _comm_part(i, path, k, n, t0, t1, whole):
    with task_file(path) as f, f.stats(t0, t1, whole=whole, part=_range(f, k, n)) as s:
        df = s.comm_matrix()
    df["sized"] = df["bytes"].notna().astype(np.int64)
    df["bytes"] = df["bytes"].fillna(0).astype(np.int64)
    df.insert(0, "file", np.int32(i))
    return df


def comm_matrix(paths: Paths, t0=None, t1=None, *, whole: bool = False, by_file: bool = False,
                partitions: Union[int, str] = "auto", client=None):
    """:meth:`slog2.File.comm_matrix` on the cluster: ``count`` and ``bytes``
    (``<NA>`` when no arrow of the cell had a size) per (``from_line``,
    ``to_line``, category)."""
    ps = _paths(paths)
    tasks = [delayed(_comm_part)(i, p, k, n, t0, t1, whole) for i, p, k, n in _tasks(ps, partitions)]
    keys = (["file"] if by_file else []) + ["from_line", "to_line"]
    keys += ["category", "name"] if (len(ps) == 1 or by_file) else ["name"]
    how = {"count": "sum", "bytes": "sum", "sized": "sum"}
    df = _compute(_reduce(tasks, _merge, keys, how), client)
    df = df.sort_values(keys).reset_index(drop=True)
    df["bytes"] = pd.array(df["bytes"], dtype="Int64")
    df.loc[df["sized"] == 0, "bytes"] = pd.NA
    return df[keys + ["count", "bytes"]]


# -- histograms ------------------------------------------------------------------

def _hist_part(i, path, k, n, t0, t1, category, sizes, bins, log, lo, hi, whole):
    with task_file(path) as f:
        a, b = _range(f, k, n)
        if sizes:
            h = f.message_histogram(bins, category, t0, t1, log=log, lo=lo, hi=hi, part=(a, b))
        else:
            try:
                c = f._category_index(category)
            except KeyError:
                return _meta(_HIST_META)
            h = f.histogram(c, bins, t0, t1, log=log, lo=lo, hi=hi, whole=whole, part=(a, b))
    e = h.attrs["edges"]
    n = len(e) - 1
    rows = pd.DataFrame({
        "bin": np.r_[np.arange(max(n, 0)), [-1, max(n, 0)]].astype(np.int64),
        "count": np.r_[h["count"].to_numpy(), [h.attrs["below"], h.attrs["above"]]].astype(np.int64),
        "sum": np.r_[h["sum"].to_numpy(), [np.nan, np.nan]].astype(np.float64),
        "lo": np.r_[e[:-1] if n > 0 else [], [np.nan, np.nan]].astype(np.float64),
        "hi": np.r_[e[1:] if n > 0 else [], [np.nan, np.nan]].astype(np.float64),
        # Arrows without a size, once per partition (on the "below" row).
        "no_size": np.r_[np.zeros(max(n, 0)), [h.attrs.get("no_size", 0), 0]].astype(np.int64),
    })
    return rows if n > 0 else rows.iloc[0:0]


_HIST_META = {"bin": np.int64, "count": np.int64, "sum": np.float64, "lo": np.float64,
              "hi": np.float64, "no_size": np.int64}


def _histogram(paths, category, sizes, bins, t0, t1, log, lo, hi, whole, partitions, client):
    ps = _paths(paths)
    parts = _tasks(ps, partitions)
    if lo is None or hi is None:
        # Pass 1: each partition's extremes (1-bin histograms), for shared bins.
        ext = [delayed(_hist_part)(i, p, k, n, t0, t1, category, sizes, 1, log, lo, hi, whole)
               for i, p, k, n in parts]
        got = dask.compute(*ext) if client is None else client.gather(client.compute(ext))
        los = [g["lo"].iloc[0] for g in got if len(g)]
        his = [g["hi"].iloc[0] for g in got if len(g)]
        if not los:
            out = _meta({"bin": np.int64, "lo": np.float64, "hi": np.float64, "count": np.int64,
                         "sum": np.float64})
            out.attrs.update(below=0, above=0, no_size=0, edges=())
            return out
        lo = min(los) if lo is None else lo
        hi = max(his) if hi is None else hi
    tasks = [delayed(_hist_part)(i, p, k, n, t0, t1, category, sizes, bins, log, lo, hi, whole)
             for i, p, k, n in parts]
    how = {"count": "sum", "sum": "sum", "lo": "first", "hi": "first", "no_size": "sum"}
    r = _compute(_reduce(tasks, _merge, ["bin"], how), client).sort_values("bin")
    inside = r[(r["bin"] >= 0) & (r["bin"] < bins)].reset_index(drop=True)
    df = inside[["bin", "lo", "hi", "count", "sum"]].copy()
    below = int(r.loc[r["bin"] == -1, "count"].sum())
    above = int(r.loc[r["bin"] == bins, "count"].sum())
    edges = tuple(np.r_[df["lo"].to_numpy(), df["hi"].to_numpy()[-1:]].tolist()) if len(df) else ()
    df.attrs.update(below=below, above=above, edges=edges, no_size=int(r["no_size"].sum()))
    return df


def histogram(paths: Paths, category, bins: int = 20, t0=None, t1=None, *, log: bool = False,
              lo=None, hi=None, whole: bool = False, partitions: Union[int, str] = "auto",
              client=None):
    """:meth:`slog2.File.histogram` of the durations of ``category`` (by name or
    index; by name across files) on the cluster. Without cut-offs, a first pass
    finds the extremes so every partition bins on the same edges (the bins of the
    single-process histogram)."""
    return _histogram(paths, category, False, bins, t0, t1, log, lo, hi, whole, partitions, client)


def message_histogram(paths: Paths, bins: int = 20, category=None, t0=None, t1=None, *,
                      log: bool = False, lo=None, hi=None, partitions: Union[int, str] = "auto",
                      client=None):
    """:meth:`slog2.File.message_histogram` on the cluster (message sizes, bytes)."""
    return _histogram(paths, category, True, bins, t0, t1, log, lo, hi, False, partitions, client)


# -- time profile ------------------------------------------------------------------

def _time_part(i, path, k, n, slices, t0, t1):
    with task_file(path) as f:
        tp = f.time_profile(slices, t0, t1, part=_range(f, k, n))
    names = [c for c in tp.columns if c not in ("start", "end")]
    long = tp.melt(id_vars=["start", "end"], value_vars=names, var_name="name", value_name="time")
    long.insert(0, "slice", np.tile(np.arange(slices), len(names)).astype(np.int64))
    return long


def time_profile(paths: Paths, slices: int = 20, t0=None, t1=None, *,
                 partitions: Union[int, str] = "auto", client=None):
    """:meth:`slog2.File.time_profile` on the cluster: slices (rows, with ``start``
    and ``end`` of the first file) × category names (columns). Several files are
    summed slice by slice, each over its own range (or ``[t0, t1]``)."""
    ps = _paths(paths)
    tasks = [delayed(_time_part)(i, p, k, n, slices, t0, t1) for i, p, k, n in _tasks(ps, partitions)]
    how = {"time": "sum", "start": "first", "end": "first"}
    r = _compute(_reduce(tasks, _merge, ["slice", "name"], how), client)
    wide = r.pivot(index="slice", columns="name", values="time").fillna(0.0)
    edges = r.groupby("slice")[["start", "end"]].first()
    wide.insert(0, "start", edges["start"])
    wide.insert(1, "end", edges["end"])
    wide.columns.name = None
    return wide.reset_index(drop=True)


__all__ = ["read", "plan", "categories", "profile", "comm_matrix", "histogram",
           "message_histogram", "time_profile", "AUTO_PARTITION_BYTES"]
