#!/usr/bin/env python3
"""Generate a synthetic trace in slog2sdk's sample text format.

    scripts/gen_trace.py N OUT [--ranks 16] [--seed 1]

N drawables on RANKS timelines, in non-decreasing end time (the TRACE-API
rule), shaped like an MPI run with nearest-neighbour communication (the class
of the reference's 1M-drawable benchmark trace, which was mostly states):
75 % states of five MPI-like categories (a fifth of them, category Compute, with
`AA=%d BB=%d` payloads), 12 % messages to the next or previous rank carrying
`msg_tag=%d, msg_size=%d` payloads, 12 % long "Phase" states that enclose
the others on their rank (nesting), and 1 % composites of two states. Every
TimeBBox equals its vertex envelope, times are never negative and are printed
with 0.1 microsecond precision like the slog2sdk samples, and drawables come
in non-decreasing end time. Deterministic for a given seed; streams its
output, so 10M drawables need no more memory than 10 (about 4 s per million
drawables with CPython 3). Used for the conversion benchmarks in
BENCHMARKS.md and for the bundled example (examples/demo.txt).
"""
import argparse
import random


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", type=int)
    ap.add_argument("out")
    ap.add_argument("--ranks", type=int, default=16)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    ranks = max(2, a.ranks)
    with open(a.out, "w", buffering=1 << 20) as f:
        w = f.write
        w("# synthetic trace: %d drawables, %d ranks, seed %d\n" % (a.n, ranks, a.seed))
        w("Category[ index=0 name=message topo=Arrow color=(255,255,255,255,true) width=3 < msg_tag=%d, msg_size=%d > ]\n")
        names = ["Compute", "MPI_Send", "MPI_Recv", "MPI_Barrier", "MPI_Allreduce"]
        colors = ["255,165,0", "0,0,255", "0,255,0", "255,255,0", "160,32,240"]
        for i, (nm, col) in enumerate(zip(names, colors)):
            label = " < AA=%d BB=%d >" if nm == "Compute" else ""
            w("Category[ index=%d name=%s topo=State color=(%s,127,true) width=1%s ]\n" % (i + 1, nm, col, label))
        w("Category[ index=9 name=Phase topo=State color=(46,139,87,127,true) width=1 { 1 } ]\n")
        t = 0.0
        outer_start = [0.0] * ranks
        i = 0
        while i < a.n:
            t += 1e-6
            rank = i % ranks
            r = rnd.random()
            if r < 0.75:
                cat = 1 + int(rnd.random() * 5)
                s = max(0.0, t - 1e-6 * (1 + 30 * rnd.random()))
                if cat == 1:
                    w("Primitive[ TimeBBox(%.7f,%.7f) Category=1 (%.7f, %d) (%.7f, %d) < AA=%d BB=%d > ]\n"
                      % (s, t, s, rank, t, rank, i % 1000, -(i % 777)))
                else:
                    w("Primitive[ TimeBBox(%.7f,%.7f) Category=%d (%.7f, %d) (%.7f, %d) ]\n"
                      % (s, t, cat, s, rank, t, rank))
            elif r < 0.87:
                dst = (rank + (1 if rnd.random() < 0.5 else ranks - 1)) % ranks
                s = max(0.0, t - 1e-6 * (0.5 + 8 * rnd.random()))
                w("Primitive[ TimeBBox(%.7f,%.7f) Category=0 (%.7f, %d) (%.7f, %d) < msg_tag=%d, msg_size=%d > ]\n"
                  % (s, t, s, rank, t, dst, i % 64, (i * 37) % 65536))
            elif r < 0.99 or i + 2 >= a.n:
                # Outer state of this rank since its previous outer state ended.
                s = outer_start[rank]
                outer_start[rank] = t
                w("Primitive[ TimeBBox(%.7f,%.7f) Category=9 (%.7f, %d) (%.7f, %d) ]\n" % (s, t, s, rank, t, rank))
            else:
                m = max(0.0, t - 2e-6)
                s = max(0.0, t - 4e-6)
                w("Composite[ TimeBBox(%.7f,%.7f) Category=1 NumPrimes=2 < AA=%d BB=%d > ]\n" % (s, t, i, -i))
                w("Primitive[ TimeBBox(%.7f,%.7f) Category=2 (%.7f, %d) (%.7f, %d) ]\n" % (s, m, s, rank, m, rank))
                w("Primitive[ TimeBBox(%.7f,%.7f) Category=3 (%.7f, %d) (%.7f, %d) ]\n" % (m, t, m, rank, t, rank))
            i += 1
        w("YCoordMap[ Nrows=%d Ncolumns=3 Nmethods=0 title=NodeView colnames=< node core > %s ]\n"
          % (ranks, " ".join("( %d %d %d )" % (k, k // 4, k % 4) for k in range(ranks))))


if __name__ == "__main__":
    main()
