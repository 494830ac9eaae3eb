#!/usr/bin/env bash
# Run every fuzz target for SECONDS each (default 30): the bounded run of
# scripts/test-all.sh. Longer runs: `scripts/fuzz-run.sh 3600` (RELIABILITY.md).
# Fails when a target crashes (libFuzzer exits non-zero; the crash input is
# kept in fuzz/artifacts/<target>/) or when the tools are missing.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-30}
# With RUNS, each target runs exactly that many inputs from seed 1 (capped at
# SECS): the test command's run is then the same on every machine with the
# same seeds, so it cannot fail at random; without it, a time-boxed search.
runs=${2:-}
# The pinned cargo-fuzz and nightly (installed when missing).
source scripts/fuzz-toolchain.sh
fuzz_toolchain
scripts/fuzz-seeds.sh >/dev/null
source scripts/fuzz-env.sh
cd fuzz
RUSTC_WRAPPER= cargo "+$FUZZ_TOOLCHAIN" fuzz build -O
for t in slog2_read slog2_open slog2_packed text_trace retree capi_input clog2 trace_api input_open otf2; do
  echo "== fuzz $t for ${secs}s"
  log="artifacts/$t.log"; mkdir -p artifacts
  # otf2 runs a quarter of the inputs: libotf2 opens each archive with
  # megabyte chunk buffers (~10 ms per input under ASan, 20x the others)
  extra=()
  [ -n "$runs" ] && extra=(-seed=1 "-runs=$([ "$t" = otf2 ] && echo $((runs / 4)) || echo "$runs")")
  fuzz_limits "$t"
  rc=0
  ASAN_OPTIONS=$asan RUSTC_WRAPPER= cargo "+$FUZZ_TOOLCHAIN" fuzz run -O "$t" "corpus/$t" -- \
    -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 -malloc_limit_mb="$malloc_limit" -timeout=10 -print_final_stats=1 "${extra[@]}" \
    >"$log" 2>&1 || rc=$?
  grep -E "^stat::number_of_executed_units|^stat::new_units_added|^cov: |==[0-9]+==|^SUMMARY|panicked|Test unit written" "$log" | tail -6 || true
  [ "$rc" -eq 0 ] || { echo "fuzz target $t failed (rc $rc; log $PWD/$log)"; exit 1; }
done
