#!/usr/bin/env bash
# The main job on the bundled example: install what is missing, build the
# slog2 tool, convert examples/demo.txt (slog2sdk sample text format, a
# 1.5 ms run of 8 ranks) to SLOG-2, check and summarise it and query one time
# window of it.
#
# It builds only what it runs (`cargo build --release`: the libraries and the
# tool, no test or bench targets), with the feature set every other command
# uses, so neither this nor a later test or install rebuilds the other's
# crates (scripts/feature-check.sh). Long steps say so, with their time, also
# when the output goes to a log (cargo shows a progress bar on a terminal only).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh demo

# long WHAT COMMAND...: run a step that can take minutes, saying what it is,
# every 30 s while it runs (when stdout is no terminal) and how long it took.
long() {
  local what=$1 t=$SECONDS beat="" rc=0
  shift
  echo "== $what (can take a few minutes on a fresh clone) ..."
  if [ ! -t 1 ]; then
    ( n=0; while sleep 1; do n=$((n + 1)); [ $((n % 30)) -eq 0 ] && echo "   ... $what: $n s"; done ) &
    beat=$!
  fi
  "$@" || rc=$?
  [ -n "$beat" ] && kill "$beat" 2>/dev/null && wait "$beat" 2>/dev/null || true
  echo "== $what: $( [ $rc -eq 0 ] && echo done || echo "FAILED (exit $rc)") in $((SECONDS - t)) s"
  return $rc
}

long "building target/release/slog2 (cargo build --release)" cargo build --release
bin=target/release/slog2
$bin convert examples/demo.txt -o target/demo.slog2 -ls 16k
$bin check target/demo.slog2
$bin info target/demo.slog2
echo
echo "Drawables between 0.0007 s and 0.00071 s (the trace spans [-0.0000234, 0.0015] s):"
$bin query target/demo.slog2 --from 0.0007 --to 0.00071 --stats
