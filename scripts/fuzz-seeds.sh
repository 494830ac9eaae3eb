#!/usr/bin/env bash
# Seed corpora for the fuzz targets, generated from ../shared/fixtures into
# fuzz/corpus/<target>/ (git-ignored: fixtures are never copied into the repo).
# capi_input inputs are 8 operation bytes followed by a file.
set -euo pipefail
cd "$(dirname "$0")/.."
fx=../shared/fixtures
[ -d "$fx" ] || { echo "fuzz-seeds: $fx is missing" >&2; exit 1; }
for t in slog2_read slog2_open retree capi_input text_trace clog2 trace_api; do mkdir -p "fuzz/corpus/$t"; done
for f in "$fx"/*/*.slog2; do
  b=$(basename "$f" .slog2)
  cp "$f" "fuzz/corpus/slog2_read/$b.slog2"
  cp "$f" "fuzz/corpus/slog2_open/$b.slog2"
  cp "$f" "fuzz/corpus/retree/$b.slog2"
  { printf '\x00\x01\x02\x03\x04\x12\x0b\x2a'; cat "$f"; } > "fuzz/corpus/capi_input/$b.bin"
  { printf '\x06\x03\x0c\x02\x04\x05\x00\x01'; cat "$f"; } > "fuzz/corpus/trace_api/$b.slog2.bin"
done
for f in "$fx"/trace-sample/*.txt "$fx"/clog2/*.convert.txt; do
  case "$f" in *print.txt) continue;; esac
  cp "$f" "fuzz/corpus/text_trace/$(basename "$f")"
done
for f in "$fx"/clog2/*.clog2; do
  cp "$f" "fuzz/corpus/clog2/$(basename "$f")"
  { printf '\x06\x03\x0c\x02\x04\x05\x00\x01'; cat "$f"; } > "fuzz/corpus/trace_api/$(basename "$f").bin"
done
for f in "$fx"/trace-sample/*.txt; do
  case "$f" in *print.txt) continue;; esac
  { printf '\x06\x03\x0c\x02\x04\x05\x00\x01'; cat "$f"; } > "fuzz/corpus/trace_api/$(basename "$f").bin"
done
ls fuzz/corpus/*/ | wc -l
