"""The two pictures of Ocelotl's overview, with matplotlib (``slog2.plot.overview``).

* **Temporal**: one stacked bar per part, as wide as its slices, each category a
  layer whose height is the part's mean over its slices of the lines' sum (the
  paper's eq. 4: for durations, the mean number of lines in that state).
* **Spatiotemporal**: each part a rectangle over its lines (hierarchy order) and
  slices, coloured by its mode (the category with the largest mean). Parts of
  nodes thinner than a pixel row are drawn as their thin ancestor, hatched
  ``//`` (striped) when its parts share one time partition, ``xx`` (crossed)
  otherwise — the rectangles come from the library (``SLOG2_Overview_get_rects``).
"""

from __future__ import annotations

from typing import Optional

import numpy as np


def _colours(f, categories):
    out = []
    for c in categories:
        try:
            out.append(f.category(int(c)).rgb)
        except KeyError:
            out.append((0.5, 0.5, 0.5))
    return out


def overview(ov, ax=None, output: Optional[str] = None, title: Optional[str] = None,
             height_px: int = 400):
    """Draw an :class:`~slog2._overview.Overview` (either kind); returns the axes.
    ``output``: also save the figure there (PNG, SVG, ...)."""
    import matplotlib

    if output is not None and ax is None:
        matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch, Rectangle

    own = ax is None
    if own:
        _fig, ax = plt.subplots(figsize=(10, 4))
    f = ov._file
    colours = _colours(f, ov.categories)
    width = (ov.t1 - ov.t0) / ov.slices
    names = ov.category_names
    if ov.hierarchy is None:
        bottom = np.zeros(len(ov.parts))
        x0 = ov.parts["t0"].to_numpy()
        w = ov.parts["t1"].to_numpy() - x0
        for k, name in enumerate(names):
            h = ov.parts[name].to_numpy() / (width if ov.metric == "duration" else 1.0)
            ax.bar(x0, h, width=w, bottom=bottom, align="edge", color=colours[k],
                   edgecolor="white", linewidth=0.8, label=name)
            bottom += h
        ax.set_ylabel("mean lines in state" if ov.metric == "duration" else "drawables per slice")
        ax.set_xlim(ov.t0, ov.t1)
        ax.set_ylim(0, max(bottom.max() if len(bottom) else 1.0, 1e-12) * 1.05)
    else:
        hier = ov.hierarchy
        lines = [int(x) for x in ov.lines]
        order = {line: i for i, line in enumerate(lines)}
        min_lines = max(len(lines) / float(height_px), 1.0)
        rects = ov.rects(min_lines)
        cat_pos = {int(c): k for k, c in enumerate(ov.categories)}
        for r in rects.itertuples():
            rows = [order[line] for line in hier["lines"][r.node]]
            y0, y1 = min(rows), max(rows) + 1
            x0 = ov.t0 + r.first * width
            x1 = ov.t0 + (r.last + 1) * width
            colour = colours[cat_pos[r.mode]] if r.mode in cat_pos else (0.15, 0.15, 0.15)
            hatch = {1: "//", 2: "xx"}.get(r.kind)
            ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, facecolor=colour,
                                   edgecolor="white", linewidth=0.6, hatch=hatch))
        ax.set_xlim(ov.t0, ov.t1)
        ax.set_ylim(len(lines), 0)
        ax.set_ylabel("lines (hierarchy order)")
        ax.legend(handles=[Patch(color=colours[k], label=n) for k, n in enumerate(names)],
                  loc="upper right", fontsize="small")
    if ov.hierarchy is None:
        ax.legend(loc="upper right", fontsize="small")
    ax.set_xlabel("time (s)")
    kind = "spatiotemporal" if ov.hierarchy is not None else "temporal"
    ax.set_title(title or f"{kind} overview, {ov.metric}, p = {ov.p:.3g}: {len(ov.parts)} parts")
    if own and output is not None:
        ax.figure.tight_layout()
        ax.figure.savefig(output, dpi=100)
    return ax
