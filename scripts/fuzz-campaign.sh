#!/usr/bin/env bash
# A long fuzz campaign in chunks, for volume (RELIABILITY.md):
#   scripts/fuzz-campaign.sh LOG UNTIL_EPOCH CHUNK_SECS MAX_LEN TARGET...
# runs the built targets (fuzz/target/.../release/<t>, build them first with
# `cargo +nightly fuzz build -O`, the nightly of scripts/fuzz-toolchain.sh) one after another, CHUNK_SECS each, round
# and round until the time UNTIL_EPOCH, at `nice -n 19`. Every chunk appends
# one line to LOG: UTC time, target, seconds, max_len, executions, exec/s,
# cov, ft, corpus size, exit status (non-zero: crash, input kept in
# fuzz/artifacts/<t>/). Sum the executions with
#   awk '{n[$2]+=$5} END {for (t in n) print t, n[t]}' LOG
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/fuzz-env.sh
cd fuzz
log=$1 until=$2 chunk=$3 maxlen=$4
shift 4
bin=target/x86_64-unknown-linux-gnu/release
mkdir -p artifacts
while [ "$(date +%s)" -lt "$until" ]; do
  for t in "$@"; do
    left=$(( until - $(date +%s) ))
    [ "$left" -gt 20 ] || break 2
    secs=$(( left < chunk ? left : chunk ))
    mkdir -p "corpus/$t" "artifacts/$t"
    out="artifacts/$t.campaign.out"
    fuzz_limits "$t"  # scripts/fuzz-env.sh
    rc=0
    ASAN_OPTIONS=$asan nice -n 19 "$bin/$t" "corpus/$t" -max_total_time="$secs" -max_len="$maxlen" \
      -rss_limit_mb=2048 -malloc_limit_mb="$malloc_limit" -timeout=10 -print_final_stats=1 \
      -artifact_prefix="artifacts/$t/" >"$out" 2>&1 || rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$out" | tail -1)
    last=$(grep -E '^#[0-9]+' "$out" | tail -1)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
    corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9A-Za-z]*\).*/\1/p' <<<"$last")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" "$secs" "$maxlen" \
      "${execs:-0}" "${rate:-0}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$rc" >>"$log"
    [ "$rc" -eq 0 ] || cp "$out" "artifacts/$t.crash.$(date +%s).out"
  done
done
