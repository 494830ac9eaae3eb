#!/bin/sh
# The window comparison with the reference reader (BENCHMARKS.md "Window queries"):
# the same plan, the same warm-up, the same work inside both timers.
#
#   flock /work/notes/bench.lock scripts/bench-window.sh FILE.slog2 [ROUNDS=5] [PLAN OPTIONS...]
#   ... | scripts/bench-window-table.py NAME     # the fair table, medians over the rounds
#
# Needs target/release/slog2 (cargo build --release) and slog2sdk's jumpshot.jar, which is
# not part of this repository: JUMPSHOT_JAR=/path/to/jumpshot.jar. PLAN OPTIONS go to
# `slog2 bench plan` (default: 1,000 warm-up jumps and 1,000 warm-up scrolls, then 300 jumps
# and 300 scrolls of ~1,000-drawable windows).
#
# Per round r: `slog2 bench plan FILE --seed r` writes the plan; then four processes
# replay it: ours (`slog2 bench replay`) and the reference (java/bench/reference/RefPlan.java)
# with the update alone, then both with the update plus one pass over every row — odd
# rounds ours first, even rounds the reference first, so drifting load hits both alike.
# The JVM runs with -Xbatch: its JIT compiles in the foreground during the warm-up, so no
# compiler thread competes with the timed lines (without it, on a loaded 2-core machine,
# 0.5-2.9 s of compilation still ran during the reference's timed lines).
# Output: a ROUND line (with the load average), each process's RESULT/INFO lines, and a
# TIME line per process (/usr/bin/time: whole-process user and system CPU, wall).
set -eu
file=$1
rounds=${2:-5}
[ $# -ge 2 ] && shift 2 || shift $#
jar=${JUMPSHOT_JAR:-/work/slog2sdk/lib/jumpshot.jar}
here=$(cd "$(dirname "$0")/.." && pwd)
slog2=$here/target/release/slog2
[ -f "$jar" ] || { echo "error: $jar not found (set JUMPSHOT_JAR)" >&2; exit 1; }
[ -x "$slog2" ] || { echo "error: $slog2 not built (cargo build --release)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
javac -nowarn -cp "$jar" -d "$tmp" "$here/java/bench/reference/RefTrunk.java" \
    "$here/java/bench/reference/RefPlan.java" 2>/dev/null

# one SIDE VARIANT: run a replay of the round's plan, with its whole-process CPU.
one() {
    if [ "$1" = ours ]; then
        set -- "$1" "$2" "$slog2" bench replay "$file" "$tmp/plan.txt"
    else
        set -- "$1" "$2" java -Xbatch -Xmx4g -cp "$jar:$tmp" RefPlan "$file" "$tmp/plan.txt"
    fi
    side=$1 variant=$2
    shift 2
    [ "$variant" = pass ] && set -- "$@" --pass
    /usr/bin/time -o "$tmp/time" -f "%U %S %e" "$@"
    read -r u s e <"$tmp/time"
    echo "TIME side=$side variant=$variant user=$u sys=$s wall=$e"
}

r=1
while [ "$r" -le "$rounds" ]; do
    echo "ROUND file=$file round=$r load=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' '/')"
    "$slog2" bench plan "$file" --seed "$r" -o "$tmp/plan.txt" "$@"
    for variant in update pass; do
        if [ $((r % 2)) -eq 1 ]; then
            one ours "$variant"; one ref "$variant"
        else
            one ref "$variant"; one ours "$variant"
        fi
    done
    r=$((r + 1))
done
