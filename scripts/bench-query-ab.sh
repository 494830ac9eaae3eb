#!/bin/bash
# Alternated `slog2 bench query` runs, medians per seed and ratios to the
# first label (BENCHMARKS.md, "Compressed SLOG-2", "Reading").
#
#   scripts/bench-query-ab.sh ROUNDS LABEL=SLOG2_BINARY:FILE ...
#
# e.g. plain and compressed files, main's build against a branch's:
#   scripts/bench-query-ab.sh 3 plain=$MAIN:synth10m.slog2 \
#       main=$MAIN:z10m.slog2 branch=target/release/slog2:z10m.slog2
#
# Each round runs every seed (1 2 3) and, per seed, every label in turn,
# `--jumps 300 --scrolls 300` under `flock /work/notes/bench.lock` (one
# benchmark at a time on the shared machine). Raw outputs stay in $OUT
# (default: a new temporary directory).
set -euo pipefail
rounds=$1
shift
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
lock=${BENCH_LOCK:-/work/notes/bench.lock}
for r in $(seq 1 "$rounds"); do
    for seed in 1 2 3; do
        for spec in "$@"; do
            label=${spec%%=*} rest=${spec#*=}
            bin=${rest%%:*} file=${rest#*:}
            echo "== round $r load $(cut -d' ' -f1 /proc/loadavg)" >>"$out/$label.s$seed"
            flock "$lock" "$bin" bench query "$file" --jumps 300 --scrolls 300 \
                --seed "$seed" >>"$out/$label.s$seed"
        done
    done
done
echo "raw outputs: $out"
python3 - "$out" "${1%%=*}" <<'PY'
import glob, os, re, statistics, sys
out, base = sys.argv[1], sys.argv[2]
res, labels = {}, []
for f in sorted(glob.glob(out + "/*.s[123]"), key=os.path.getmtime):
    label, seed = os.path.basename(f).rsplit(".s", 1)
    labels += [label] if label not in labels else []
    for line in open(f):
        m = re.match(r"(jump|cursor jump|cursor scroll)\s+n=\d+ p50 ([\d.]+) us p99 ([\d.]+) us", line)
        if m:
            res.setdefault((m[1], seed, label), []).append((float(m[2]), float(m[3])))
loads = [float(l.split()[-1]) for f in glob.glob(out + "/*.s*") for l in open(f) if l.startswith("==")]
print(f"load {min(loads):.1f}-{max(loads):.1f}; medians of {len(res.get(('jump', '1', base), []))} runs, p50 / p99 in us (ratio to {base})")
for kind in ["jump", "cursor jump", "cursor scroll"]:
    for seed in "123":
        b = res.get((kind, seed, base))
        row = f"{kind:13s} seed {seed}:"
        for label in labels:
            v = res.get((kind, seed, label))
            if not v:
                continue
            p50, p99 = (statistics.median(x[i] for x in v) for i in (0, 1))
            row += f"  {label} {p50:.1f} / {p99:.1f}"
            if b and label != base:
                b50, b99 = (statistics.median(x[i] for x in b) for i in (0, 1))
                row += f" ({p50 / b50:.2f}x / {p99 / b99:.2f}x)"
        print(row)
PY
