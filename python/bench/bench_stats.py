"""Profile + communication matrix of a whole file from Python, the same work
as scripts/bench_stats.c (one warm-up, then ROUNDS timed): ``File.stats()``
(the one pass) and the per-category profile and the matrix as DataFrames.

    python python/bench/bench_stats.py FILE.slog2 [ROUNDS]
"""

import statistics
import sys
import time

import slog2


def one_round(f):
    with f.stats() as s:
        p = s.profile()
        c = s.comm_matrix()
    return int(p["count"].sum()), len(p) + len(c)


def main():
    path = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 9
    with slog2.open(path) as f:
        n, rows = one_round(f)
        t = []
        for r in range(rounds):
            a = time.perf_counter()
            one_round(f)
            t.append(time.perf_counter() - a)
            print(f"round {r}: {t[-1]:.4f} s, {n / t[-1] / 1e6:.1f} M drawables/s")
    m = statistics.median(t)
    print(f"Python: {n} drawables ({rows} result rows), median {m:.4f} s = {n / m / 1e6:.1f} M drawables/s "
          f"(min {min(t):.4f} s)")


if __name__ == "__main__":
    main()
