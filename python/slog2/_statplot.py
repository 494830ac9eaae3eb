"""Pictures of the statistics (``slog2.plot.comm_heatmap``, ``.histogram``,
``.message_histogram``, ``.time_profile``): each takes a :class:`slog2.File` or
path (and computes the result through the library) or a DataFrame the File's
method returned, draws into ``ax`` (or a new figure), optionally saves to
``output``, and returns the Figure. Nothing is computed here beyond layout.
"""

from __future__ import annotations

import os
from typing import Optional, Union

import numpy as np

from ._reader import File
from ._reader import open as _open

FileLike = Union[str, os.PathLike, File]


def _with_file(file, fn):
    if isinstance(file, File):
        return fn(file)
    f = _open(file)
    try:
        return fn(f)
    finally:
        f.close()


def _fig(ax, figsize, dpi):
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=figsize, dpi=dpi)
        return fig, ax
    return ax.figure, ax


def _save(fig, output, dpi):
    if output is not None:
        fig.savefig(output, dpi=dpi, facecolor="white", bbox_inches="tight")
    return fig


def comm_heatmap(source, t0=None, t1=None, *, values: str = "bytes", log: bool = True, ax=None,
                 output: Optional[str] = None, figsize=(6.5, 5.5), dpi: int = 100,
                 title: Optional[str] = None):
    """Heatmap of the communication matrix: senders (rows) × receivers (columns),
    colour = ``values`` ("bytes" or "count", every arrow category summed), log scale
    by default; cells without messages stay blank."""
    from matplotlib.colors import LogNorm, Normalize

    if isinstance(source, File) or isinstance(source, (str, os.PathLike)):
        m = _with_file(source, lambda f: f.comm_matrix(t0, t1, values=values))
    else:
        m = source
    fig, ax = _fig(ax, figsize, dpi)
    a = m.to_numpy(dtype=float)
    shown = np.where(a > 0, a, np.nan)
    pos = a[a > 0]
    norm = (LogNorm(vmin=pos.min(), vmax=pos.max()) if log and len(pos) and pos.max() > pos.min()
            else Normalize(vmin=0, vmax=pos.max() if len(pos) else 1))
    im = ax.imshow(shown, cmap="viridis", norm=norm, interpolation="nearest", aspect="auto")
    n = a.shape[0]
    step = max(1, n // 16)
    ticks = np.arange(0, n, step)
    ax.set_xticks(ticks, [str(m.columns[i]) for i in ticks])
    ax.set_yticks(ticks, [str(m.index[i]) for i in ticks])
    ax.set_xlabel("receiver line")
    ax.set_ylabel("sender line")
    cb = fig.colorbar(im, ax=ax)
    cb.set_label("bytes" if values == "bytes" else "messages")
    ax.set_title(title or f"Communication matrix ({values}; total {a.sum():.4g})", fontsize=10)
    return _save(fig, output, dpi)


def _bars(df, ax, color, xlabel, title):
    edges = np.asarray(df.attrs["edges"], float)
    counts = df["count"].to_numpy()
    if len(edges) >= 2:
        ax.bar(edges[:-1], counts, width=np.diff(edges), align="edge", color=color,
               edgecolor="black", linewidth=0.4)
        if df.attrs["spec"][2]:
            ax.set_xscale("log")
    below, above = df.attrs["below"], df.attrs["above"]
    extra = []
    if below or above:
        log_axis = " (≤ 0 on a log axis)" if df.attrs["spec"][2] and below else ""
        extra.append(f"outside the bars: {below} below{log_axis}, {above} above")
    if df.attrs.get("no_size"):
        extra.append(f"{df.attrs['no_size']} without a size")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("count")
    ax.set_title(title + (" — " + ", ".join(extra) if extra else ""), fontsize=9)


def histogram(source, category=None, bins: int = 30, t0=None, t1=None, *, log: bool = False,
              lo=None, hi=None, ax=None, output: Optional[str] = None, figsize=(8, 4.5),
              dpi: int = 100):
    """Duration histogram of a category (the library's bins, outliers noted in the
    title). ``source``: a File or path (``category`` required) or a
    :meth:`File.histogram` DataFrame."""
    fig, ax = _fig(ax, figsize, dpi)

    def draw(f):
        df = f.histogram(category, bins, t0, t1, log=log, lo=lo, hi=hi)
        c = f.category(f._category_index(category))
        n = int(df["count"].sum()) + df.attrs["below"] + df.attrs["above"]
        _bars(df, ax, c.rgb, "duration (s)", f"{c.name}: {n} drawables")

    if isinstance(source, (File, str, os.PathLike)):
        _with_file(source, draw)
    else:
        _bars(source, ax, "tab:blue", "duration (s)", "durations")
    return _save(fig, output, dpi)


def message_histogram(source, bins: int = 30, category=None, t0=None, t1=None, *, log: bool = True,
                      ax=None, output: Optional[str] = None, figsize=(8, 4.5), dpi: int = 100):
    """Histogram of message sizes in bytes (log bins by default)."""
    fig, ax = _fig(ax, figsize, dpi)

    def draw(f):
        df = f.message_histogram(bins, category, t0, t1, log=log)
        if log and len(df) == 0:
            df = f.message_histogram(bins, category, t0, t1, log=False)
        n = int(df["count"].sum()) + df.attrs["below"] + df.attrs["above"]
        _bars(df, ax, "tab:orange", "message size (bytes)", f"{n} messages")

    if isinstance(source, (File, str, os.PathLike)):
        _with_file(source, draw)
    else:
        _bars(source, ax, "tab:orange", "message size (bytes)", "messages")
    return _save(fig, output, dpi)


def time_profile(source, slices: int = 50, t0=None, t1=None, *, top: int = 12, ax=None,
                 output: Optional[str] = None, figsize=(10, 4.5), dpi: int = 100):
    """Stacked bars of the time in each state category per slice (the ``top``
    categories by total time, the others grouped), in the categories' colours."""
    fig, ax = _fig(ax, figsize, dpi)

    def draw(f, df):
        cats = list(df.attrs.get("categories", []))
        names = [c for c in df.columns if c not in ("start", "end")]
        totals = df[names].sum().sort_values(ascending=False)
        keep = [n for n in totals.index[:top] if totals[n] > 0]
        rest = [n for n in names if n not in keep]
        start, end = df["start"].to_numpy(), df["end"].to_numpy()
        bottom = np.zeros(len(df))
        for name in keep:
            i = names.index(name)
            rgb = f.category(int(cats[i])).rgb if f is not None and i < len(cats) else None
            v = df[name].to_numpy()
            ax.bar(start, v, width=end - start, bottom=bottom, align="edge", color=rgb,
                   edgecolor="black", linewidth=0.3, label=name)
            bottom = bottom + v
        if rest:
            v = df[rest].sum(axis=1).to_numpy()
            ax.bar(start, v, width=end - start, bottom=bottom, align="edge", color="lightgrey",
                   edgecolor="black", linewidth=0.3, label=f"{len(rest)} others")
        ax.set_xlim(start[0] if len(start) else 0, end[-1] if len(end) else 1)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("state time per slice (s, summed over lines)")
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
        ax.set_title(f"Time profile, {len(df)} slices", fontsize=10)

    if isinstance(source, (File, str, os.PathLike)):
        _with_file(source, lambda f: draw(f, f.time_profile(slices, t0, t1)))
    else:
        draw(None, source)
    return _save(fig, output, dpi)
