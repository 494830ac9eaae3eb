"""Command line: ``python -m slog2 plot FILE --from A --to B -o out.png`` and
``python -m slog2 durations FILE CATEGORY -o out.png``."""

from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m slog2", description=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    pl = sub.add_parser("plot", help="draw a Jumpshot-style timeline of a time window into an image")
    pl.add_argument("file")
    pl.add_argument("--from", dest="t0", type=float, default=None, help="window start (s; default: file start)")
    pl.add_argument("--to", dest="t1", type=float, default=None, help="window end (s; default: file end)")
    pl.add_argument("--depth", default="auto",
                    help="'auto' (preview when the window is crowded), 'full', or a preview depth")
    pl.add_argument("--max-rows", type=int, default=20000, help="rows above which 'auto' previews")
    pl.add_argument("--size", default="12x6", help="figure size in inches, WxH")
    pl.add_argument("--dpi", type=int, default=100)
    pl.add_argument("--ymap", default="auto",
                    help="y-map labelling the rows: 'auto' (the first that is not the identity map), "
                         "a title or an index, or 'none' for raw line IDs")
    pl.add_argument("-o", "--output", required=True, help="output image (PNG, SVG, PDF by extension)")
    du = sub.add_parser("durations", help="histogram of a category's durations")
    du.add_argument("file")
    du.add_argument("category", help="category name or index")
    du.add_argument("--bins", type=int, default=50)
    du.add_argument("-o", "--output", required=True)
    a = p.parse_args(argv)

    import matplotlib

    matplotlib.use("Agg")
    from . import Error, plot

    try:
        if a.cmd == "plot":
            depth = a.depth
            if depth == "full":
                depth = None
            elif depth != "auto":
                depth = int(depth)
            w, h = (float(x) for x in a.size.lower().split("x"))
            ymap = None if a.ymap == "none" else int(a.ymap) if a.ymap.isdigit() else a.ymap
            plot.timeline(a.file, a.t0, a.t1, output=a.output, depth=depth, max_rows=a.max_rows,
                          figsize=(w, h), dpi=a.dpi, ymap=ymap)
        else:
            cat = int(a.category) if a.category.lstrip("-").isdigit() else a.category
            plot.durations(a.file, cat, bins=a.bins, output=a.output)
    except (Error, KeyError, ValueError, OSError) as e:
        print(f"python -m slog2: error: {e}", file=sys.stderr)
        return 1
    print(a.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
