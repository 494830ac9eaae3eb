#!/usr/bin/env bash
# Drop-in check: the UNMODIFIED slog2sdk jars read traces through our
# libTraceInput.so (= libslog2jni.so).
#
#   scripts/java-dropin.sh JARDIR      (JARDIR holds traceTOslog2.jar and traceprint.jar,
#                                       e.g. /work/slog2sdk/lib; the jars cannot be committed)
#
# Without JARDIR (or with a JARDIR lacking the jars) it says so and exits 77
# (the automake code for a skipped test; scripts/test-all.sh reports the step
# as SKIPPED, not ok): the only skip of the Java suites. Every java run uses -Xcheck:jni and fails
# on any JNI warning. Checks:
#   1. traceTOslog2.jar converts data, arrow, onetimeline .txt byte-identically
#      to the reference .slog2 fixtures;
#   2. each errtime*.txt under -tc gets the fixture README's verdict
#      (exit status, message, 108-byte header-only file or the accepted file);
#   3. the C TRACE reader capi-tests/plugin/tinytrace.c converts through
#      SLOG2_TRACE_LIB and through -Dslog2.trace.lib= (same drawables as `slog2 convert --trace-lib`);
#   4. traceprint.jar prints every record of data.txt (counts from data.trace_print.txt);
#   5. a 10,000-member composite converts (same drawables as `slog2 convert`).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
fx="$root/../shared/fixtures/trace-sample"
jardir=${1:-}
if [ -z "$jardir" ] || [ ! -f "$jardir/traceTOslog2.jar" ] || [ ! -f "$jardir/traceprint.jar" ]; then
  echo "java-dropin: SKIPPED (no JARDIR with traceTOslog2.jar and traceprint.jar given)"
  exit 77
fi
[ -d "$fx" ] || { echo "error: $fx not found" >&2; exit 1; }

cargo build --release >/dev/null 2>&1 || cargo build --release
work=$(mktemp -d /tmp/slog2-dropin.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lib"
ln -s "$root/target/release/libslog2jni.so" "$work/lib/libTraceInput.so"
slog2="$root/target/release/slog2"
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# run LOG ARGS...: java -Xcheck:jni with our library; records exit status in $rc.
run() {
  local log=$1; shift
  set +e
  java -Xcheck:jni -Djava.library.path="$work/lib" "$@" >"$log" 2>&1
  rc=$?
  set -e
  if grep -q "WARNING\|FATAL ERROR" "$log"; then
    bad "JNI warning in $log:"; grep "WARNING\|FATAL" "$log" | head -5
  fi
}

echo "-- 1. byte-identical conversions"
for n in data arrow onetimeline; do
  run "$work/$n.log" -jar "$jardir/traceTOslog2.jar" -o "$work/$n.slog2" "$fx/$n.txt"
  if [ "$rc" -eq 0 ] && cmp "$work/$n.slog2" "$fx/$n.slog2"; then
    echo "ok   $n.txt -> $n.slog2 identical to the fixture ($(stat -c %s "$work/$n.slog2") bytes)"
  else
    bad "$n.txt (exit $rc)"; tail -5 "$work/$n.log"
  fi
done

echo "-- 2. errtime verdicts under -tc"
# file: expected exit, expected message (grep -e patterns separated by '|'; empty = none)
declare -A verdict=(
  [1]="1|Violation of Increasing Endtime Order"
  [2]="1|Primitive Time Error|Violation of Causality"
  [3]="0"
  [4]="1|Primitive Time Error|Violation of Causality"
  [5]="1|Composite Time Error|Violation of Causality"
  [6]="1|Composite Time Error|Violation of Causality|number 1 primitive"
  [7]="0"
  [8]="1|Composite Time Error|Violation of Causality|number 1 primitive"
  [9]="1|Composite Time Error|Violation of Causality|number 2 primitive"
)
for i in 1 2 3 4 5 6 7 8 9; do
  IFS='|' read -r -a v <<<"${verdict[$i]}"
  out="$work/errtime$i.slog2"
  run "$work/errtime$i.log" -jar "$jardir/traceTOslog2.jar" -tc -o "$out" "$fx/errtime$i.txt"
  ok=1
  [ "$rc" -eq "${v[0]}" ] || ok=0
  for m in "${v[@]:1}"; do grep -q "$m" "$work/errtime$i.log" || ok=0; done
  if [ "${v[0]}" -eq 1 ]; then
    [ "$(stat -c %s "$out" 2>/dev/null || echo none)" = 108 ] || ok=0
  else
    # Accepted: the same file the reference wrote with default options.
    cmp -s "$out" "$fx/errtime$i.slog2" || ok=0
  fi
  if [ $ok -eq 1 ]; then
    echo "ok   errtime$i: exit $rc, size $(stat -c %s "$out"), ${v[*]:1}"
  else
    bad "errtime$i: exit $rc (want ${v[0]}), size $(stat -c %s "$out" 2>/dev/null || echo none)"; cat "$work/errtime$i.log" | head -20
  fi
done

echo "-- 3. external C TRACE reader (tinytrace.c)"
gcc -shared -fPIC -O2 -o "$work/libtinytrace.so" capi-tests/plugin/tinytrace.c
"$slog2" convert --trace-lib "$work/libtinytrace.so" -o "$work/tiny.ref.slog2" capi-tests/plugin/sample.tiny >/dev/null
SLOG2_TRACE_LIB="$work/libtinytrace.so" run "$work/tiny.env.log" -jar "$jardir/traceTOslog2.jar" -o "$work/tiny.env.slog2" capi-tests/plugin/sample.tiny
# The Java writer orders categories by its hash map: compare what a reader sees.
same_drawables() { cmp -s <("$slog2" query --format json "$1") <("$slog2" query --format json "$2"); }
if [ "$rc" -eq 0 ] && same_drawables "$work/tiny.env.slog2" "$work/tiny.ref.slog2"; then
  echo "ok   SLOG2_TRACE_LIB: sample.tiny converted; same drawables as slog2 convert --trace-lib"
else
  bad "SLOG2_TRACE_LIB conversion (exit $rc)"; tail -5 "$work/tiny.env.log"
fi
run "$work/tiny.prop.log" -Dslog2.trace.lib="$work/libtinytrace.so" -jar "$jardir/traceTOslog2.jar" -o "$work/tiny.prop.slog2" capi-tests/plugin/sample.tiny
if [ "$rc" -eq 0 ] && same_drawables "$work/tiny.prop.slog2" "$work/tiny.ref.slog2"; then
  echo "ok   -Dslog2.trace.lib: same drawables too"
else
  bad "-Dslog2.trace.lib conversion (exit $rc)"; tail -5 "$work/tiny.prop.log"
fi
SLOG2_TRACE_LIB=/nonexistent/libnone.so run "$work/tiny.bad.log" -jar "$jardir/traceTOslog2.jar" -o "$work/tiny.bad.slog2" capi-tests/plugin/sample.tiny
if [ "$rc" -ne 0 ] && grep -q "cannot load TRACE library /nonexistent/libnone.so" "$work/tiny.bad.log"; then
  echo "ok   missing TRACE library: exit $rc with the library's message"
else
  bad "missing TRACE library: exit $rc"; cat "$work/tiny.bad.log"
fi

echo "-- 3b. errors reach Java with the library's message"
printf 'Category[ index=1 name=Work topo=State color=(255,0,0,255,true) width=1 ]\nPrimitive[ TimeBBox(0.0,1.0) Category=1 (0.0, 0) (1.0 ]\n' >"$work/bad.txt"
run "$work/bad.log" -jar "$jardir/traceTOslog2.jar" -o "$work/bad.slog2" "$work/bad.txt"
if [ "$rc" -ne 0 ] && grep -q "java.lang.RuntimeException: slog2 TraceInput: $work/bad.txt:2:54: expected ','" "$work/bad.log"; then
  echo "ok   malformed trace: exit $rc, $(grep -o 'RuntimeException: .*' "$work/bad.log")"
else
  bad "malformed trace: exit $rc"; cat "$work/bad.log"
fi
run "$work/missing.log" -jar "$jardir/traceTOslog2.jar" -o "$work/missing.slog2" "$work/missing.txt"
if [ "$rc" -eq 1 ] && grep -q "I/O error on $work/missing.txt: No such file" "$work/missing.log" && [ ! -e "$work/missing.slog2" ]; then
  echo "ok   missing trace: exit 1, $(grep -o 'I/O error.*' "$work/missing.log"), no output file"
else
  bad "missing trace: exit $rc"; cat "$work/missing.log"
fi

echo "-- 4. traceprint.jar prints every record"
run "$work/print.log" -jar "$jardir/traceprint.jar" "$fx/data.txt"
ref="$fx/data.trace_print.txt"
want_c=$(grep -c '^Category:' "$ref"); want_m=$(grep -c '^YCoordMap:' "$ref")
got_c=$(grep -c '^trace.Print: Category\[ index=[0-9]' "$work/print.log" || true)
got_m=$(grep -c '^trace.Print: Title:' "$work/print.log" || true)
got_d=$(grep -c '^[0-9]* : \(Primitive\|Composite\)\[' "$work/print.log" || true)
top=$(grep -c 'Number of Drawables = 9' "$work/print.log" || true)
if [ "$rc" -eq 0 ] && [ "$got_c" -eq "$want_c" ] && [ "$got_m" -eq "$want_m" ] && [ "$got_d" -eq 9 ] && [ "$top" -eq 1 ]; then
  echo "ok   traceprint: $got_c categories, 9 drawables (6 primitives, 3 composites), $got_m y-maps"
else
  bad "traceprint: exit $rc, categories $got_c/$want_c, drawables $got_d/9, maps $got_m/$want_m"
fi

echo "-- 5. a 10,000-member composite"
{
  echo 'Category[ index=1 name=Work topo=State color=(255,0,0,255,true) width=1 ]'
  echo 'Category[ index=2 name=Group topo=State color=(0,0,255,255,true) width=1 ]'
  echo 'Composite[ TimeBBox(0.0,10000.0) Category=2 NumPrimes=10000 ]'
  for ((i = 0; i < 10000; i++)); do
    echo "Primitive[ TimeBBox($i.0,$((i + 1)).0) Category=1 ($i.0, $((i % 8))) ($((i + 1)).0, $((i % 8))) ]"
  done
} >"$work/big.txt"
"$slog2" convert -o "$work/big.ref.slog2" "$work/big.txt" >/dev/null
# The reference writer needs a leaf that holds the whole composite
# (10,000 states = 320 KB; its default 64 KB leaf ends in a NullPointerException).
run "$work/big.log" -jar "$jardir/traceTOslog2.jar" -ls 1m -o "$work/big.slog2" "$work/big.txt"
members=$("$slog2" query --format json "$work/big.slog2" | grep -c '"category": 1,' || true)
if [ "$rc" -eq 0 ] && same_drawables "$work/big.slog2" "$work/big.ref.slog2" && [ "$members" -eq 10000 ]; then
  echo "ok   10,000-member composite converted ($(stat -c %s "$work/big.slog2") bytes; $members members; same drawables as slog2 convert)"
else
  bad "10,000-member composite (exit $rc)"; tail -5 "$work/big.log"
fi

[ $fail -eq 0 ] && echo "java-dropin: all checks passed" || { echo "java-dropin: FAILED"; exit 1; }
