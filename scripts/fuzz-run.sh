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
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
rustup toolchain list | grep -q nightly || rustup toolchain install nightly --profile minimal
scripts/fuzz-seeds.sh >/dev/null
# The otf2 target loads the OTF2 reader plugin: the one SLOG2_PLUGIN_PATH
# names, else one built here from readers/otf2 (libotf2 is required).
if [ -z "${SLOG2_PLUGIN_PATH:-}" ]; then
  cmake -S readers/otf2 -B fuzz/target/otf2-plugin -DSLOG2_REQUIRE_OTF2=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build fuzz/target/otf2-plugin >/dev/null
  export SLOG2_PLUGIN_PATH=$PWD/fuzz/target/otf2-plugin
fi
# libotf2 leaks on its own error paths (damaged archives): not our leak.
export LSAN_OPTIONS=suppressions=$PWD/readers/otf2/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}
cd fuzz
RUSTC_WRAPPER= cargo +nightly fuzz build -O
for t in slog2_read slog2_open text_trace retree capi_input clog2 trace_api otf2; do
  echo "== fuzz $t for ${secs}s"
  log="artifacts/$t.log"; mkdir -p artifacts
  # otf2 runs a quarter of the inputs: libotf2 opens each archive with
  # megabyte chunk buffers (~10 ms per input under ASan, 20x the others)
  extra=()
  [ -n "$runs" ] && extra=(-seed=1 "-runs=$([ "$t" = otf2 ] && echo $((runs / 4)) || echo "$runs")")
  # libotf2 sizes arrays by counts read from the archive before it checks
  # them against the bytes (RELIABILITY.md): a 1.5 KB archive asks for
  # 32 GB, which the system refuses and libotf2 reports. For otf2 the
  # fuzzer models that system: huge requests fail (allocator_may_return_null)
  # instead of counting as a crash; memory really used is still capped by
  # -rss_limit_mb.
  malloc_limit=1024 asan=${ASAN_OPTIONS:-}
  [ "$t" = otf2 ] && malloc_limit=1048576 asan=allocator_may_return_null=1${asan:+:$asan}
  rc=0
  ASAN_OPTIONS=$asan RUSTC_WRAPPER= cargo +nightly fuzz run -O "$t" "corpus/$t" -- \
    -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 -malloc_limit_mb="$malloc_limit" -timeout=10 -print_final_stats=1 "${extra[@]}" \
    >"$log" 2>&1 || rc=$?
  grep -E "^stat::number_of_executed_units|^stat::new_units_added|^cov: |==[0-9]+==|^SUMMARY|panicked|Test unit written" "$log" | tail -6 || true
  [ "$rc" -eq 0 ] || { echo "fuzz target $t failed (rc $rc; log $PWD/$log)"; exit 1; }
done
