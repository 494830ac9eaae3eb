"""Pictures with matplotlib: :func:`timeline` (Jumpshot-style), :func:`durations` and
:func:`overview` (Ocelotl's aggregated overview, ``slog2._overview_plot``).

The timeline follows Jumpshot's conventions: black background, one row per entry
of a y-map (by default the first that is not the identity map, as slog2view and
Jumpshot pick it: lines with the same values — the threads of one rank in a
Process View — share a row, labelled with the map's columns, e.g. "rank 3"),
states as boxes in their category colour with nested states drawn inside their
parent with shrinking height, arrows as white-ish lines with heads from the first
to the last vertex (backward arrows point back),
events as markers on their line, and — when the window holds more drawables than
``max_rows`` — a preview: the real drawables of the upper tree levels plus the
shadows of the levels below, each state shadow striped by its categories'
weights (as Jumpshot's preview boxes). Colours are drawn opaque (alpha ignored).
"""

from __future__ import annotations

import os
from typing import Optional, Union

import numpy as np

from . import _lib
from ._reader import File, Rows
from ._reader import open as _open
from ._overview_plot import overview  # noqa: F401 - slog2.plot.overview


def _file(f) -> tuple:
    if isinstance(f, File):
        return f, False
    return _open(f), True


def _ymap(f: File, ymap):
    """The y-map to label rows with: "auto" (the first map that is not the identity
    map, as slog2view picks it), a title, an index, or None (raw line IDs)."""
    if ymap is None:
        return None
    if ymap == "auto":
        for m in f.ymaps:
            if m.title != "Identity Map" and m.columns and len(m.rows):
                return m
        return None
    if isinstance(ymap, (int, np.integer)) and not isinstance(ymap, bool):
        if 0 <= ymap < len(f.ymaps):
            return f.ymaps[ymap]
    else:
        for m in f.ymaps:
            if m.title == ymap:
                return m
    raise KeyError(f"no y-map {ymap!r} in {f.path}; its y-maps are "
                   + ", ".join(repr(m.title) for m in f.ymaps))


def _rows_of(f: File, rows: Rows, ymap) -> tuple:
    """The plot's rows: (row of each line ID as a dict, labels). With a y-map, one row
    per distinct value path of the map (in value order), labelled "col value ...";
    lines the map does not list (and every line without a map) get rows of their own."""
    lines = set()
    for m in f.ymaps:
        if m.title == "Identity Map":
            lines.update(int(x) for x in m.rows[:, 0])
    lines.update(int(x) for x in np.unique(rows.line0))
    lines.update(int(x) for x in np.unique(rows.line1))
    m = _ymap(f, ymap)
    row: dict = {}
    labels: list = []
    if m is not None and m.title != "Identity Map":
        paths = {}
        for r in m.rows:
            paths.setdefault(tuple(int(v) for v in r[1:]), []).append(int(r[0]))
        for path in sorted(paths):
            for line in paths[path]:
                row.setdefault(line, len(labels))
            labels.append(" ".join(f"{c} {v}" for c, v in zip(m.columns, path)))
    for line in sorted(lines):
        if line not in row:
            row[line] = len(labels)
            labels.append(f"line {line}" if m is not None else str(line))
    return row, labels


def _nest_depth(line: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Nesting depth of each state among the states of its line: how many states of
    the line that started earlier (ties: the longer first) are still open."""
    import heapq

    n = len(line)
    depth = np.zeros(n, np.intc)
    order = np.lexsort((-end, start, line))
    open_ends: list = []
    cur = None
    for i in order:
        if line[i] != cur:
            cur = line[i]
            open_ends = []
        s = start[i]
        while open_ends and open_ends[0] <= s:
            heapq.heappop(open_ends)
        depth[i] = len(open_ends)
        heapq.heappush(open_ends, end[i])
    return depth


def choose_depth(f: File, t0: float, t1: float, max_rows: int) -> Optional[int]:
    """None for full detail when the window has at most ``max_rows`` rows, else the
    smallest preview depth whose preview fits (the root's depth at worst)."""
    n, _ = f.window_size(t0, t1, -1)
    if n <= max_rows:
        return None
    for d in range(1, f.tree.depth + 1):
        n, _ = f.window_size(t0, t1, d)
        if n <= max_rows:
            return d
    return f.tree.depth


def timeline(file: Union[str, os.PathLike, File], t0: Optional[float] = None,
             t1: Optional[float] = None, ax=None, output: Optional[str] = None,
             depth: Optional[Union[int, str]] = "auto", max_rows: int = 20000,
             legend: bool = True, figsize=(12, 6), dpi: int = 100, title: Optional[str] = None,
             ymap: Union[str, int, None] = "auto"):
    """Draw the drawables of [t0, t1] (default: the whole file). ``depth``: "auto"
    (full detail unless more than ``max_rows`` rows, then a preview), None (full
    detail) or a preview depth. ``ymap``: the y-map whose values label the rows
    ("auto": the first that is not the identity map; a title or an index; None:
    one row per line ID). Returns the matplotlib Figure; ``output`` also saves it
    (PNG, SVG... by extension). A window with no drawable warns (the file's time
    range in the message) and draws an empty frame."""
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection, PolyCollection
    from matplotlib.patches import Patch

    f, own = _file(file)
    try:
        a, b = f.total_time
        t0 = a if t0 is None else float(t0)
        t1 = b if t1 is None else float(t1)
        if depth == "auto":
            depth = choose_depth(f, t0, t1, max_rows)
        rows = f.window(t0, t1) if depth is None else f.preview(t0, t1, int(depth))
        if len(rows) == 0:
            import warnings

            warnings.warn(f"no drawables in the window [{t0}, {t1}]; the file spans [{a}, {b}] s",
                          stacklevel=2)
        ypos, ylabels = _rows_of(f, rows, ymap)
        m_used = _ymap(f, ymap)
        if ax is None:
            fig = plt.figure(figsize=figsize, dpi=dpi)
            ax = fig.add_axes([0.08, 0.1, 0.72 if legend else 0.9, 0.82])
        else:
            fig = ax.figure
        ax.set_facecolor("black")
        idx, _names, topo, _codes = f._category_tables()

        def y_of(arr):
            return np.array([ypos[int(v)] for v in arr], float) if len(arr) else np.zeros(0)

        def colour(cat):
            try:
                return f.category(int(cat)).rgb
            except KeyError:
                return (0.5, 0.5, 0.5)

        cats = rows.category
        pos = np.clip(np.searchsorted(idx, cats), 0, max(0, len(idx) - 1))
        known = idx[pos] == cats if len(idx) else np.zeros(len(rows), bool)
        shape = np.where(known, topo[pos] if len(idx) else 1, 1)
        kind = rows.kind
        real = kind != _lib.SLOG2_KIND_SHADOW
        used = set()

        # -- states (real) ------------------------------------------------
        st = np.flatnonzero(real & (shape == 1))
        if len(st):
            y = y_of(rows.line0[st])
            d = _nest_depth(y.astype(np.intc), rows.start[st], rows.end[st])  # per row: merged lines nest
            h = 0.8 * (0.7 ** d)
            s, e = rows.start[st], rows.end[st]
            verts = np.stack([np.stack([s, y - h / 2], 1), np.stack([e, y - h / 2], 1),
                              np.stack([e, y + h / 2], 1), np.stack([s, y + h / 2], 1)], 1)
            order = np.argsort(d, kind="stable")
            cols = [colour(c) for c in rows.category[st][order]]
            ax.add_collection(PolyCollection(verts[order], facecolors=cols, edgecolors=cols,
                                             linewidths=0.3, zorder=2))
            used.update(int(c) for c in rows.category[st])

        # -- state shadows (previews): boxes striped by category weight ------
        sh = np.flatnonzero((~real) & (shape == 1))
        if len(sh):
            w = rows.weights
            polys, cols = [], []
            for i in sh:
                y = ypos[int(rows.line0[i])]
                s, e = rows.start[i], rows.end[i]
                ww = w.of(int(i))
                tot = float(ww.incl.sum()) if len(ww) else 0.0
                # drawn one nesting level in (height 0.56): shadows summarise drawables
                # nested below the upper levels' real states, which frame them
                top = y - 0.28
                if tot <= 0:
                    polys.append([(s, y - 0.28), (e, y - 0.28), (e, y + 0.28), (s, y + 0.28)])
                    cols.append(colour(rows.category[i]))
                    continue
                for c, inc in zip(ww.category, ww.incl):
                    hh = 0.56 * float(inc) / tot
                    polys.append([(s, top), (e, top), (e, top + hh), (s, top + hh)])
                    cols.append(colour(c))
                    used.add(int(c))
                    top += hh
            ax.add_collection(PolyCollection(polys, facecolors=cols, edgecolors="none", zorder=2.5))

        # -- arrows ---------------------------------------------------------
        ar = np.flatnonzero(shape == 2)
        if len(ar):
            x0, x1 = rows.time0[ar], rows.time1[ar]
            y0, y1 = y_of(rows.line0[ar]), y_of(rows.line1[ar])
            cols = [colour(c) for c in rows.category[ar]]
            shadow = rows.kind[ar] == _lib.SLOG2_KIND_SHADOW
            # real arrows: their category width (halved: points, not Jumpshot pixels);
            # arrow shadows: thin, translucent, under the states (they summarise many)
            widths = [0.5 if sh else (max(0.5, min(3.0, f.category(int(c)).width * 0.5))
                                       if int(c) in f._by_index else 1.0)
                      for c, sh in zip(rows.category[ar], shadow)]
            segs = np.stack([np.stack([x0, y0], 1), np.stack([x1, y1], 1)], 1)
            for sel, z, alpha in ((shadow, 1.2, 0.5), (~shadow, 3, 1.0)):
                if sel.any():
                    ax.add_collection(LineCollection(segs[sel], colors=[c for c, k in zip(cols, sel) if k],
                                                     linewidths=[w for w, k in zip(widths, sel) if k],
                                                     zorder=z, alpha=alpha))
            if (~shadow).sum() <= 2000:  # arrow heads (display-space patches: a screenful)
                for i in np.flatnonzero(~shadow):
                    ax.annotate("", xy=(x1[i], y1[i]), xytext=(x0[i], y0[i]), zorder=3,
                                arrowprops=dict(arrowstyle="-|>", color=cols[i], lw=0,
                                                shrinkA=0, shrinkB=0, mutation_scale=12))
            used.update(int(c) for c in rows.category[ar] if c >= 0)

        # -- events ---------------------------------------------------------
        ev = np.flatnonzero(shape == 0)
        if len(ev):
            ax.scatter(rows.time0[ev], y_of(rows.line0[ev]) - 0.25, marker="v", s=18,
                       c=[colour(c) for c in rows.category[ev]], zorder=4, linewidths=0)
            ax.vlines(rows.time0[ev], y_of(rows.line0[ev]) - 0.25, y_of(rows.line0[ev]) + 0.4,
                      colors=[colour(c) for c in rows.category[ev]], linewidths=0.8, zorder=4)
            used.update(int(c) for c in rows.category[ev] if c >= 0)

        ax.set_xlim(t0, t1 if t1 > t0 else t0 + 1e-9)
        ax.set_ylim(len(ylabels) - 0.5, -0.5)
        ax.set_yticks(range(len(ylabels)))
        ax.set_yticklabels(ylabels, fontsize=8 if len(ylabels) <= 40 else 5)
        ax.set_ylabel(m_used.title if m_used is not None else "line ID")
        ax.set_xlabel("time (s)")
        q = "full detail" if depth is None else f"preview depth {depth}"
        ax.set_title(title or f"{os.path.basename(f.path)}  [{t0:.6g}, {t1:.6g}] s  ({len(rows)} rows, {q})",
                     fontsize=9)
        if legend:
            handles = [Patch(facecolor=colour(c), edgecolor="black", label=f.category(c).name)
                       for c in sorted(used) if c in f._by_index and c >= 0]
            if len(handles) > 30:  # a long legend: the first 29 and a count of the rest
                rest = len(handles) - 29
                handles = handles[:29] + [Patch(facecolor="none", edgecolor="none",
                                                label=f"... {rest} more")]
            if handles:
                fig.legend(handles=handles, loc="upper left", bbox_to_anchor=(0.81, 0.92),
                           fontsize=8 if len(handles) <= 20 else 6, frameon=False)
        if output is not None:
            fig.savefig(output, dpi=dpi, facecolor="white")
        return fig
    finally:
        if own:
            f.close()


def durations(file: Union[str, os.PathLike, File], category: Union[int, str], bins: int = 50,
              ax=None, output: Optional[str] = None, log: bool = True, figsize=(8, 4.5),
              dpi: int = 100):
    """Histogram of the durations (end - start) of every drawable of ``category``
    (index or name) in the whole file (scanned in windows: flat memory)."""
    import matplotlib.pyplot as plt

    f, own = _file(file)
    try:
        if isinstance(category, str):
            matches = [c for c in f.categories if c.name == category]
            if not matches:
                raise KeyError(f"no category named {category!r} in {f.path}")
            cat = matches[0]
        else:
            cat = f.category(int(category))
        parts = []
        for w in f.scan():
            m = w.category == cat.index
            if m.any():
                parts.append(w.end[m] - w.start[m])
        d = np.concatenate(parts) if parts else np.zeros(0)
        if ax is None:
            fig, ax = plt.subplots(figsize=figsize, dpi=dpi)
        else:
            fig = ax.figure
        if len(d):
            pos = d[d > 0]
            if log and len(pos) and pos.max() > pos.min() * 10:
                edges = np.geomspace(pos.min(), pos.max(), bins + 1)
                ax.set_xscale("log")
            else:
                edges = bins
            ax.hist(d if edges is bins else pos, bins=edges, color=cat.rgb, edgecolor="black",
                    linewidth=0.4)
        ax.set_xlabel("duration (s)")
        ax.set_ylabel("count")
        ax.set_title(f"{cat.name}: {len(d)} drawables, median {np.median(d) if len(d) else 0:.3g} s",
                     fontsize=9)
        if output is not None:
            fig.savefig(output, dpi=dpi)
        return fig
    finally:
        if own:
            f.close()


# Pictures of the statistics (issue #30): the library computes, these draw.
from ._statplot import comm_heatmap, histogram, message_histogram, time_profile  # noqa: E402,F401
