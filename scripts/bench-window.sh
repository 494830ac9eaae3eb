#!/bin/sh
# Window-query benchmark of issue #15, ours and the reference interleaved.
#   scripts/bench-window.sh FILE.slog2 [ROUNDS]
# Needs target/release/slog2 (cargo build --release) and, for the reference
# side, slog2sdk's jumpshot.jar (not in this repository): set JUMPSHOT_JAR
# (default /work/slog2sdk/lib/jumpshot.jar). Each round runs our side, which
# writes the plan of windows, then the reference harness on the same plan.
set -eu
file=$1
rounds=${2:-2}
jar=${JUMPSHOT_JAR:-/work/slog2sdk/lib/jumpshot.jar}
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
javac -cp "$jar" -d "$tmp" "$here/benches/reference/RefJumps.java"
r=1
while [ "$r" -le "$rounds" ]; do
    echo "== round $r: ours"
    "$here/target/release/slog2" bench query "$file" --seed "$r" --plan-out "$tmp/plan.txt"
    echo "== round $r: reference"
    java -Xmx8g -cp "$jar:$tmp" RefJumps "$file" "$tmp/plan.txt"
    r=$((r + 1))
done
