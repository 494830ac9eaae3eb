#!/usr/bin/env bash
# Java API window-jump benchmark (BENCHMARKS.md "Java API window queries").
#
#   scripts/java-bench.sh FILE.slog2 NDRAWABLES [JUMPSHOT_JAR] [ROUNDS=3] [JUMPS=10000]
#
# Makes FILE first if missing (slog2 bench write NDRAWABLES -o FILE). Each
# round runs java/bench/src/WindowBench.java (slog2.api) and, when
# JUMPSHOT_JAR is given, java/bench/reference/RefWindowBench.java (slog2sdk's
# TreeTrunk.updateTimeWindow, compiled against that jar — not in the repo),
# alternating A B A B so drifting machine load hits both alike. Same seeds,
# same ~1,000-drawable windows.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
file=$1; n=$2; jumpshot=${3:-}; rounds=${4:-3}; jumps=${5:-10000}
cargo build --release >/dev/null 2>&1
[ -f "$file" ] || target/release/slog2 bench write "$n" -o "$file"
java/build.sh --no-test >/dev/null
out=$(mktemp -d /tmp/slog2-jbench.XXXXXX)
trap 'rm -rf "$out"' EXIT
javac --release 17 -cp java/build/slog2.jar -d "$out/ours" java/bench/src/WindowBench.java
if [ -n "$jumpshot" ]; then
  javac -nowarn -cp "$jumpshot" -d "$out/ref" java/bench/reference/RefTrunk.java java/bench/reference/RefWindowBench.java 2>/dev/null
fi
for ((r = 1; r <= rounds; r++)); do
  echo "-- round $r"
  java -Djava.library.path="$root/target/release" -cp "java/build/slog2.jar:$out/ours" \
    WindowBench "$file" "$n" "$jumps" 1
  if [ -n "$jumpshot" ]; then
    java -Xmx1g -cp "$jumpshot:$out/ref" RefWindowBench "$file" "$n" "$jumps" 1
  fi
done
