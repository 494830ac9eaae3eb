import sys

import slog2

path = sys.argv[1] if len(sys.argv) > 1 else "demo.slog2"
with slog2.open(path) as f:
    print(f.total_time, [c.name for c in f.categories], f.tree.depth)
    print(f.counts())                      # drawables, composites, members, primitives, rows
    rows = f.window(0.0007, 0.0008)        # numpy columns, filled by one C call
    df = rows.to_pandas(clip=True)         # kind, category, name, start, end, time0, time1, line0,
    print(df.groupby("name", observed=True)["duration"].sum())  # line1, parent, num_real, duration
    slog2.plot.timeline(f, 0.0007, 0.0008, output="demo.png")   # Jumpshot-style picture
    with f.cursor() as c:                  # a moving window: only entering drawables are decoded
        for k in range(10):
            r = c.move(0.0007 + k * 1e-5, 0.0008 + k * 1e-5)
    for batch in f.scan(rows_per_window=1000):   # every drawable once, in batches of columns
        pass
