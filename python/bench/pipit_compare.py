"""Side by side with LLNL's pipit (hpcgroup/pipit) on the same OTF2 archive
(BENCHMARKS.md, "Statistics"): pipit's from_otf2 + flat_profile + comm_matrix
against ours converting the archive (`slog2 convert`, the OTF2 plugin) and
computing the same figures, end to end, and a check that they are equal.

    # pipit's side, in a venv with pipit (a fetched copy on PYTHONPATH) and otf2:
    python pipit_compare.py pipit ARCHIVE_DIR OUT.pkl
    # ours, in target/pyvenv (SLOG2 = the slog2 binary with the OTF2 plugin):
    python pipit_compare.py slog2 ARCHIVE_DIR OUT.pkl SLOG2
    python pipit_compare.py compare PIPIT.pkl OURS.pkl

Both sides write, per (rank, function): inclusive and exclusive time (ns) and
call count; per (sender, receiver): messages and bytes; and their wall time.
"""

import os
import pickle
import subprocess
import sys
import tempfile
import time


def run_pipit(archive, out):
    import pipit

    t0 = time.perf_counter()
    tr = pipit.Trace.from_otf2(archive)
    t1 = time.perf_counter()
    fp = tr.flat_profile(["time.inc", "time.exc"], per_process=True)
    t2 = time.perf_counter()
    size = tr.comm_matrix("size")
    count = tr.comm_matrix("count")
    t3 = time.perf_counter()
    enters = tr.events[tr.events["Event Type"] == "Enter"].groupby(["Name", "Process"], observed=True).size()
    prof = {(str(n), int(p)): (float(r["time.inc"]), float(r["time.exc"]), int(enters[(n, p)]))
            for (n, p), r in fp.iterrows()}
    comm = {(int(i), int(j)): (int(count[i, j]), int(size[i, j]))
            for i in range(size.shape[0]) for j in range(size.shape[1]) if count[i, j]}
    res = {"wall": t3 - t0, "read": t1 - t0, "profile": t2 - t1, "comm_time": t3 - t2, "prof": prof,
           "comm": comm}
    pickle.dump(res, open(out, "wb"))
    print(f"pipit: from_otf2 {t1 - t0:.2f} s, flat_profile {t2 - t1:.2f} s, comm_matrix {t3 - t2:.2f} s, "
          f"total {t3 - t0:.2f} s")


def run_slog2(archive, out, exe):
    import pandas  # noqa: F401 - imported before the clock, as pipit imports it on import
    import slog2

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "run.slog2")
        t0 = time.perf_counter()
        subprocess.run([exe, "convert", os.path.join(archive, "traces.otf2"), "-o", path, "-q"], check=True)
        t1 = time.perf_counter()
        with slog2.open(path) as f, f.stats() as s:
            p = s.profile(by_line=True)
            c = s.comm_matrix()
        t2 = time.perf_counter()
    states = p[p["exclusive"].notna()]
    prof = {(str(r.name), int(r.line)): (r.inclusive * 1e9, r.exclusive * 1e9, int(r.count))
            for r in states.itertuples() if r.name not in ("MPI message",) and not r.name.startswith("Metric")}
    comm = {(int(r.from_line), int(r.to_line)): (int(r.count), int(r.bytes)) for r in c.itertuples()}
    pickle.dump({"wall": t2 - t0, "convert": t1 - t0, "stats": t2 - t1, "prof": prof, "comm": comm},
                open(out, "wb"))
    print(f"slog2: convert {t1 - t0:.3f} s, profile + matrix {t2 - t1:.3f} s, total {t2 - t0:.3f} s")


def compare(a, b):
    pa, pb = pickle.load(open(a, "rb")), pickle.load(open(b, "rb"))
    keys = sorted(set(pa["prof"]) | set(pb["prof"]))
    worst = 0.0
    for k in keys:
        x, y = pa["prof"].get(k), pb["prof"].get(k)
        assert x is not None and y is not None, f"{k}: pipit {x}, slog2 {y}"
        assert x[2] == y[2], f"{k}: calls {x[2]} vs {y[2]}"
        for u, v in zip(x[:2], y[:2]):
            worst = max(worst, abs(u - v) / max(1.0, abs(u)))
    assert pa["comm"] == pb["comm"], "communication matrices differ"
    print(f"equal: {len(keys)} (function, rank) rows (calls exact, inclusive/exclusive within "
          f"{worst:.1e} relative), {len(pa['comm'])} matrix cells exact; "
          f"pipit {pa['wall']:.2f} s / slog2 {pb['wall']:.3f} s = {pa['wall'] / pb['wall']:.0f}x")


if __name__ == "__main__":
    m = sys.argv[1]
    if m == "pipit":
        run_pipit(sys.argv[2], sys.argv[3])
    elif m == "slog2":
        run_slog2(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        compare(sys.argv[2], sys.argv[3])
