"""Python window-query benchmarks (BENCHMARKS.md, "Python window queries").

    python python/bench/bench.py FILE [--count 400] [--width 0.001] [--rounds 3] [--scan-rows 262144]
    python python/bench/bench.py FILE --scan-only     # just File.scan(): rows/s wall and CPU, RSS
    python python/bench/bench.py FILE --scan-only --windowed   # the same in consecutive windows

1. ~1,000-drawable windows: ``File.window()`` vs the same SLOG2_Query_window calls
   from C (python/bench/cquery.c, built here with cc), same windows, alternating
   rounds; median and p99 latency of each and their ratios.
2. Whole-file scan: ``File.scan()`` (consecutive windows into numpy, each drawable
   once) — drawables/s and RSS (anonymous and file-backed: the file is mmapped,
   so its pages count as RssFile) sampled after every window; the same windows
   through C for the core's own rate.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
os.environ.setdefault("SLOG2_LIB", str(ROOT / "target" / "release" / "libslog2.so"))
sys.path.insert(0, str(ROOT / "python"))
import slog2  # noqa: E402


def build_c() -> str:
    out = os.path.join(tempfile.mkdtemp(), "cquery")
    lib = os.path.dirname(os.environ["SLOG2_LIB"])
    subprocess.run(["cc", "-O2", "-I", str(ROOT / "include"), str(ROOT / "python" / "bench" / "cquery.c"),
                    "-L", lib, "-lslog2", f"-Wl,-rpath,{lib}", "-o", out], check=True)
    return out


def status() -> dict:
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "RssAnon", "RssFile", "VmHWM"):
                out[k] = int(v.split()[0]) // 1024  # MiB
    return out


def stats(ns):
    a = np.sort(np.asarray(ns, float))
    return np.median(a) / 1e3, a[min(len(a) - 1, int(len(a) * 0.99))] / 1e3  # us


def main():
    p = argparse.ArgumentParser()
    p.add_argument("file")
    p.add_argument("--count", type=int, default=400)
    p.add_argument("--width", type=float, default=0.001)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--scan-rows", type=int, default=1 << 18)
    p.add_argument("--no-scan", action="store_true")
    p.add_argument("--scan-only", action="store_true",
                   help="only File.scan() the file and print rows/s (for whole-process A/B timing)")
    p.add_argument("--windowed", action="store_true",
                   help="with --scan-only: scan the file's time range (File.scan(t0=, t1=), the "
                        "library's range scan) instead of its whole-file scan")
    p.add_argument("--touch", action="store_true",
                   help="with --scan-only: also sum end - start over every row (what "
                        "java/bench/src/ScanBench.java does)")
    a = p.parse_args()
    if a.scan_only:
        with slog2.open(a.file) as f:
            before = status()
            q, c = time.perf_counter(), time.process_time()
            n, nb, anon, rfile, tot = 0, 0, 0, 0, 0.0
            rng = f.total_time if a.windowed else (None, None)
            for w in f.scan(a.scan_rows, *rng):
                n += len(w)
                nb += 1
                if a.touch:
                    tot += float((w.end - w.start).sum())
                if nb % 8 == 0:
                    st = status()
                    anon, rfile = max(anon, st["RssAnon"]), max(rfile, st["RssFile"])
            s, cpu = time.perf_counter() - q, time.process_time() - c
        print(f"{n} rows in {nb} batches, {s:.3f} s wall = {n / s / 1e6:.2f} M rows/s; CPU {cpu:.3f} s = "
              f"{n / cpu / 1e6:.2f} M rows/CPU-s; RssAnon MiB before {before['RssAnon']}, max during "
              f"{anon}; RssFile max {rfile} MiB; peak RSS {status()['VmHWM']} MiB; sum of durations "
              f"{tot:.6g}; load {open('/proc/loadavg').read().split()[0]}")
        return
    cq = build_c()
    f = slog2.open(a.file)
    t0, t1 = f.total_time
    print(f"{a.file}: {f.drawable_count} primitives, {len(f.tree)} nodes, [{t0}, {t1}] s; lib {slog2.lib_path}")
    starts = [t0 + (t1 - t0 - a.width) * i / a.count for i in range(a.count)]
    # warm the page cache / mmap for both
    for s in starts:
        f.window(s, s + a.width)
    subprocess.run([cq, a.file, "query", str(a.width), str(a.count)], check=True, capture_output=True)
    py_all, c_all, rows = [], [], []
    for r in range(a.rounds):
        out = subprocess.run([cq, a.file, "query", str(a.width), str(a.count)], check=True,
                             capture_output=True, text=True).stdout.split("\n")
        c_ns = [int(x.split()[0]) for x in out if x]
        c_n = [int(x.split()[1]) for x in out if x]
        py_ns = []
        for s in starts:
            q = time.perf_counter_ns()
            w = f.window(s, s + a.width)
            py_ns.append(time.perf_counter_ns() - q)
            rows.append(len(w))
        assert [len(f.window(s, s + a.width)) for s in starts[:20]] == c_n[:20]
        pm, p99 = stats(py_ns)
        cm, c99 = stats(c_ns)
        print(f"round {r + 1}: python median {pm:.1f} us p99 {p99:.1f} us | C median {cm:.1f} us "
              f"p99 {c99:.1f} us | ratio median {pm / cm:.3f} p99 {p99 / c99:.3f}")
        py_all += py_ns
        c_all += c_ns
    pm, p99 = stats(py_all)
    cm, c99 = stats(c_all)
    print(f"all rounds ({len(py_all)} queries each, mean {np.mean(rows):.0f} rows): python median {pm:.1f} us "
          f"p99 {p99:.1f} us; C median {cm:.1f} us p99 {c99:.1f} us; ratio median {pm / cm:.3f} "
          f"p99 {p99 / c99:.3f}")
    # per-query Python overhead in isolation: the same call on an empty window
    e = [0] * 2000
    for i in range(len(e)):
        q = time.perf_counter_ns()
        f.window(t1 + 1, t1 + 2)
        e[i] = time.perf_counter_ns() - q
    print(f"empty window through Python: median {np.median(e) / 1e3:.1f} us")
    if a.no_scan:
        return
    f.close()
    f = slog2.open(a.file)
    before = status()
    samples = []
    n = 0
    nwin = 0
    q = time.perf_counter()
    for w in f.scan(rows_per_window=a.scan_rows):
        n += len(w)
        nwin += 1
        if nwin % 4 == 0:
            samples.append(status())
    secs = time.perf_counter() - q
    after = status()
    anon = [s["RssAnon"] for s in samples]
    print(f"python scan: {n} rows in {nwin} windows, {secs:.2f} s = {n / secs / 1e6:.2f} M rows/s; "
          f"RssAnon MiB before {before['RssAnon']}, during min {min(anon)} max {max(anon)}, after "
          f"{after['RssAnon']}; RssFile max {max(s['RssFile'] for s in samples)} (mmapped file pages); "
          f"peak VmHWM {after['VmHWM']}")
    out = subprocess.run([cq, a.file, "scan", str(nwin)], check=True, capture_output=True, text=True).stdout
    cs, cn = out.split()
    print(f"C scan (same {nwin} windows, SLOG2_Query_window only): {cn} rows in {float(cs):.2f} s = "
          f"{int(cn) / float(cs) / 1e6:.2f} M rows/s")


if __name__ == "__main__":
    main()
