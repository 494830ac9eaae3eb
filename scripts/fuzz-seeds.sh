#!/usr/bin/env bash
# Seed corpora for the fuzz targets, generated from ../shared/fixtures into
# fuzz/corpus/<target>/ (git-ignored: fixtures are never copied into the repo).
# capi_input inputs are 8 operation bytes followed by a file.
set -euo pipefail
cd "$(dirname "$0")/.."
fx=../shared/fixtures
[ -d "$fx" ] || { echo "fuzz-seeds: $fx is missing" >&2; exit 1; }
for t in slog2_read slog2_open slog2_packed retree capi_input text_trace clog2 trace_api input_open otf2; do mkdir -p "fuzz/corpus/$t"; done
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
# input_open: the first byte says how the rest arrives (bit 0: gzip, bit 1:
# the SLOG-2 stream reader); text, CLOG2 and SLOG-2 inputs, plain and gzip.
for f in "$fx"/trace-sample/data.txt "$fx"/trace-sample/arrow.txt "$fx"/clog2/edge_cases.clog2 "$fx"/trace-sample/data.slog2; do
  b=$(basename "$f")
  { printf '\x00'; cat "$f"; } > "fuzz/corpus/input_open/$b.plain"
  { printf '\x01'; cat "$f"; } > "fuzz/corpus/input_open/$b.gz"
done
{ printf '\x02'; cat "$fx"/trace-sample/data.slog2; } > "fuzz/corpus/input_open/data.slog2.stream"
# otf2: whole archives written by readers/otf2/tests/otf2_gen.c (our generator,
# built here with gcc and libotf2), their files joined by the separator of
# fuzz/fuzz_targets/otf2.rs; the anchor's random trace id is zeroed so that the
# seeds, and so the bounded run, are the same on every machine.
gen=fuzz/target/otf2-gen
mkdir -p "$gen"
gcc -O1 -o "$gen/otf2_gen" readers/otf2/tests/otf2_gen.c $(pkg-config --cflags --libs otf2) \
  || { echo "fuzz-seeds: cannot build otf2_gen (needs libopen-trace-format2-dev)" >&2; exit 1; }
pack() {  # pack ARCHIVE_DIR OUT
  local d=$1 out=$2 first=1
  printf '\0\0\0\0\0\0\0\0' | dd of="$d/traces.otf2" bs=1 seek=53 conv=notrunc status=none
  : > "$out"
  for f in traces.otf2 traces.def traces/{0,1,2,3,4,5,6,7}.{def,evt}; do
    [ -f "$d/$f" ] || break
    [ $first = 1 ] || printf '\n--slog2-otf2-file--\n' >> "$out"
    first=0
    cat "$d/$f" >> "$out"
  done
}
rm -rf "$gen/scenario" "$gen/bench"
"$gen/otf2_gen" scenario "$gen/scenario" "$gen/expected.json" >/dev/null
"$gen/otf2_gen" bench "$gen/bench" 400 4 >/dev/null
pack "$gen/scenario" fuzz/corpus/otf2/scenario.bin
pack "$gen/bench" fuzz/corpus/otf2/bench.bin
ls fuzz/corpus/*/ | wc -l
