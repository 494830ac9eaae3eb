#!/usr/bin/env bash
# Profile + communication matrix of a whole file (issue #30), C ABI and Python,
# the same work on both sides (BENCHMARKS.md, "Statistics"):
#   scripts/bench-stats.sh FILE.slog2 [ROUNDS]
# Builds scripts/bench_stats.c against target/release/libslog2.so and runs it,
# then python/bench/bench_stats.py in target/pyvenv (scripts/python-tests.sh
# makes it). Run under `flock /work/notes/bench.lock` on a shared machine.
set -euo pipefail
cd "$(dirname "$0")/.."
file=${1:?usage: $0 FILE.slog2 [ROUNDS]}
rounds=${2:-9}
[ -f target/release/libslog2.so ] || cargo build --release -p slog2-clib
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cc -O2 -Iinclude scripts/bench_stats.c -Ltarget/release -lslog2 -Wl,-rpath,"$PWD/target/release" -o "$out/bench_stats"
"$out/bench_stats" "$file" "$rounds"
SLOG2_LIB="$PWD/target/release/libslog2.so" target/pyvenv/bin/python python/bench/bench_stats.py "$file" "$rounds"
