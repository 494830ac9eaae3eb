"""Dask scaling of the statistics (BENCHMARKS.md, "Statistics"): the profile
of one big file, single process vs a LocalCluster of worker processes, and a
study of many files reduced to one table.

    python bench_dask.py single FILE [ROUNDS]          # File.profile(), this process, one open File
    python bench_dask.py single-fresh FILE [ROUNDS]    # the same, opening the file per call
    python bench_dask.py parts FILE N [ROUNDS]         # whole pass vs the N partitions' passes, here
    python bench_dask.py cluster FILE WORKERS PARTS [ROUNDS]
    python bench_dask.py study WORKERS FILE...         # slog2.dask.profile(files)
    python bench_dask.py path FILE WORKERS PARTS [ROUNDS]  # the Dask path alone (empty window)

Set RAYON_NUM_THREADS=1 for per-core figures (the cluster mode sets it for its
workers). Each mode runs once untimed (warm page cache, started workers), then
ROUNDS timed runs; prints the median and a digest of the result to compare.
"""

import hashlib
import os
import statistics
import sys
import time


def digest(df):
    d = df[["name", "count"]].sort_values("name")
    h = hashlib.sha1(d.to_csv(index=False).encode()).hexdigest()[:12]
    return f"{len(df)} rows, {int(df['count'].sum())} counted, excl {df['exclusive'].sum():.9g}, counts {h}"


def timed(fn, rounds):
    res = fn()
    t = []
    for _ in range(rounds):
        a = time.perf_counter()
        res = fn()
        t.append(time.perf_counter() - a)
    return res, t


def partition_passes(path, n, rounds):
    """The partition overhead without Dask: in this process, alternated, the whole
    file's pass and the N partitions' passes one after the other, each as a task
    does it (open by path, stats of the partition, profile frame); wall and CPU
    (user + system) seconds, medians. Set RAYON_NUM_THREADS=1 for the per-core figure."""
    import slog2
    import slog2.dask as sd

    def clock():
        t = os.times()
        return time.perf_counter(), t.user + t.system

    def run(k):
        with slog2.open(path) as f, f.stats(part=sd._range(f, k, n) if k is not None else None) as s:
            return s.profile(False, timed=True)

    run(None)
    whole, split = [], []
    for _ in range(rounds):
        a = clock()
        run(None)
        b = clock()
        whole.append((b[0] - a[0], b[1] - a[1]))
        for k in range(n):
            run(k)
        c = clock()
        split.append((c[0] - b[0], c[1] - b[1]))
    w = [statistics.median(x[i] for x in whole) for i in (0, 1)]
    p = [statistics.median(x[i] for x in split) for i in (0, 1)]
    print(f"whole pass: median {w[0]:.3f} s wall, {w[1]:.3f} s cpu; {n} partitions' passes: "
          f"median {p[0]:.3f} s wall, {p[1]:.3f} s cpu; overhead {p[0] / w[0]:.3f}x wall, "
          f"{p[1] / w[1]:.3f}x cpu (RAYON_NUM_THREADS={os.environ.get('RAYON_NUM_THREADS', 'all')})")


def main():
    mode = sys.argv[1]
    if mode == "single":
        import slog2

        path, rounds = sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 3
        with slog2.open(path) as f:
            res, t = timed(lambda: f.profile(), rounds)
        print(f"single (RAYON_NUM_THREADS={os.environ.get('RAYON_NUM_THREADS', 'all')}): "
              f"median {statistics.median(t):.3f} s {['%.3f' % x for x in t]}; {digest(res)}")
        return
    if mode == "single-fresh":
        import slog2

        path, rounds = sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 3

        def once():
            with slog2.open(path) as f:
                return f.profile()

        res, t = timed(once, rounds)
        print(f"single, a fresh open per call (RAYON_NUM_THREADS={os.environ.get('RAYON_NUM_THREADS', 'all')}): "
              f"median {statistics.median(t):.3f} s {['%.3f' % x for x in t]}; {digest(res)}")
        return
    if mode == "parts":
        partition_passes(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]) if len(sys.argv) > 4 else 3)
        return
    os.environ["RAYON_NUM_THREADS"] = "1"  # inherited by the worker processes
    from dask.distributed import Client, LocalCluster

    import slog2.dask as sd

    if mode == "cluster":
        path, workers, parts = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
        rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 3
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cl, Client(cl) as c:
            res, t = timed(lambda: sd.profile(path, partitions=parts, client=c), rounds)
        print(f"cluster {workers} workers x 1 thread, {parts} partitions: median {statistics.median(t):.3f} s "
              f"{['%.3f' % x for x in t]}; {digest(res)}")
    elif mode == "path":
        # The profile of an empty window (before the file's start): the whole graph,
        # every task opening the file, no pass. CPU of the client + scheduler (one
        # process in a LocalCluster) and of the workers, per call.
        path, workers, parts = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
        rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 20

        def cpu():
            t = os.times()
            return t.user + t.system

        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cl, Client(cl) as c:
            def call():
                return sd.profile(path, -1e300, -1e300, partitions=parts, client=c)

            call()
            w0, c0 = sum(c.run(cpu).values()), cpu()
            res, t = timed(call, rounds)
            w1, c1 = sum(c.run(cpu).values()), cpu()
        n = rounds + 1
        print(f"Dask path alone, {workers} workers, {parts} partitions: median {statistics.median(t) * 1e3:.0f} ms "
              f"(min {min(t) * 1e3:.0f}); CPU a call: client+scheduler {(c1 - c0) / n * 1e3:.0f} ms, "
              f"workers {(w1 - w0) / n * 1e3:.0f} ms; {len(res)} rows")
    elif mode == "study":
        workers, paths = int(sys.argv[2]), sys.argv[3:]
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cl, Client(cl) as c:
            res, t = timed(lambda: sd.profile(paths, partitions=1, client=c), 2)
        print(f"study of {len(paths)} files on {workers} workers: median {statistics.median(t):.3f} s "
              f"{['%.3f' % x for x in t]}; one table of {len(res)} rows; {digest(res)}")
        print(res.to_string(index=False))


if __name__ == "__main__":
    main()
