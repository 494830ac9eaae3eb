#!/usr/bin/env bash
# Local differential check against the reference printer (not part of CI: the
# reference jars are not in the repository). Converts a few traces with our
# writer, runs slog2sdk's slog2printserial.jar on each file, and compares its
# dump with ours: the drawables as a multiset must be equal; the full text
# should be equal except for the order of drawables that share a start time.
#   scripts/check-with-reference.sh /path/to/slog2sdk/lib
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 SLOG2SDK_LIB_DIR" >&2; exit 2; }
jar="$1/slog2printserial.jar"
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/slog2
shared=../shared/fixtures
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
$bin convert "$shared/trace-sample/data.txt" -o "$tmp/data.slog2" -q
$bin convert "$shared/trace-sample/arrow.txt" -o "$tmp/arrow.slog2" -q
$bin convert "$shared/slog2/fpilog.slog2" -o "$tmp/fpilog_1k_nc3.slog2" -ls 1k -nc 3 -q
$bin convert examples/demo.txt -o "$tmp/demo.slog2" -ls 16k -q
$bin bench write 20000 -o "$tmp/synth.slog2" --ls 8k >/dev/null
status=0
for f in "$tmp"/*.slog2; do
  n=$(basename "$f" .slog2)
  java -jar "$jar" "$f" > "$tmp/$n.ref" 2>&1 || { echo "$n: reference printer failed"; status=1; continue; }
  $bin print "$f" > "$tmp/$n.ours"
  grep -qiE "exception|error" "$tmp/$n.ref" && { echo "$n: reference printer reported an error"; status=1; }
  strip() { grep -E '^(  \*\*\*\*\*  )?[0-9]+: (Primitive|Composite)' "$1" | sed -E 's/^(  \*\*\*\*\*  )?[0-9]+: //' | sort; }
  if diff -q <(strip "$tmp/$n.ref") <(strip "$tmp/$n.ours") >/dev/null; then
    echo "$n: $(strip "$tmp/$n.ref" | wc -l) drawables, same multiset; full-text diff lines: $(diff "$tmp/$n.ref" "$tmp/$n.ours" | grep -c '^[<>]' || true)"
  else
    echo "$n: DRAWABLES DIFFER"; status=1
  fi
done
exit $status
