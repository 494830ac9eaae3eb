#!/usr/bin/env bash
# Conversion benchmark of issue #4 (BENCHMARKS.md): convert a synthetic text
# trace N times and print the median wall time, CPU time and peak RSS.
#
#   scripts/bench-convert.sh [DRAWABLES] [RUNS] [extra convert options...]
#   scripts/bench-convert.sh 1000000 15
#   scripts/bench-convert.sh 1000000 15 --threads 1
#
# The trace is generated once by scripts/gen_trace.py into $TMPDIR (or /tmp)
# and reused. Timing comes from /usr/bin/time; the machine is shared and
# noisy, so compare medians (and the minimum) rather than single runs.
# The output is deleted before each run: converting into a new file is what
# is measured (replacing an existing 40 MB output makes the kernel free the
# old file inside the final rename, about 30 ms on this machine).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000000}
runs=${2:-15}
shift $(( $# > 2 ? 2 : $# ))
dir=${TMPDIR:-/tmp}
trace="$dir/slog2-bench-$n.txt"
out="$dir/slog2-bench-$n.slog2"
[ -s "$trace" ] || python3 scripts/gen_trace.py "$n" "$trace"
cargo build --release --quiet
bin=target/release/slog2
for _ in $(seq "$runs"); do
    rm -f "$out"
    /usr/bin/time -f "%e %U %S %M" "$bin" convert "$@" "$trace" -o "$out" -q 2>&1 >/dev/null | tail -n 1
done | python3 -c '
import statistics as st, sys
rows = [l.split() for l in sys.stdin if l.strip()]
wall = [float(r[0]) for r in rows]
cpu = [float(r[1]) + float(r[2]) for r in rows]
rss = [int(r[3]) for r in rows]
print("runs %d: wall median %.3f s (min %.3f, max %.3f), cpu median %.3f s, max RSS median %.1f MB (max %.1f MB)"
      % (len(rows), st.median(wall), min(wall), max(wall), st.median(cpu), st.median(rss) / 1024, max(rss) / 1024))'
ls -l "$out" | awk '{print "output:", $5, "bytes"}'
