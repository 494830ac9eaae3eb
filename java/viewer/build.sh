#!/usr/bin/env bash
# Build slog2view (java/build/slog2view.jar) and run its JUnit 5 suite.
#
#   java/viewer/build.sh            build, then test (the window smoke test runs under Xvfb)
#   java/viewer/build.sh --no-test  build only
#
# Compiles against java/build/slog2.jar (built by java/build.sh --no-test when
# missing). The jar's manifest names slog2.jar on its Class-Path (same folder)
# and slog2.view.Main as Main-Class; the native library is found on
# java.library.path, by -Dslog2.library=PATH, or at ../../target/release
# relative to the jar (a repository build):
#   java -jar java/build/slog2view.jar FILE.slog2
# Needs the JDK 17, Debian's junit5, xvfb (xvfb-run) and a font; scripts/deps.sh
# installs them. Nothing is skipped: a missing tool fails the build.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
out="$root/java/build"
vb="$out/viewer"
fixtures="$root/../shared/fixtures"
junit=/usr/share/java/junit-platform-console-standalone.jar

for tool in javac jar java; do
  command -v "$tool" >/dev/null || { echo "error: $tool not found (install openjdk-17-jdk-headless)" >&2; exit 1; }
done
[ -f "$out/slog2.jar" ] || java/build.sh --no-test

rm -rf "$vb" "$out/slog2view.jar"
mkdir -p "$vb/classes" "$vb/test-classes"
find java/viewer/src/main/java -name '*.java' >"$vb/sources.txt"
javac --release 17 -Xlint:all -Werror -cp "$out/slog2.jar" -d "$vb/classes" @"$vb/sources.txt"
# A small generated trace inside the jar for the start-up warm-up (Main.warmUpRenderer):
# deterministic output of the CLI's synthetic writer.
[ -x "$root/target/release/slog2" ] || cargo build --release
"$root/target/release/slog2" bench write 4000 -o "$vb/classes/slog2/view/warmup.slog2" >/dev/null
printf 'Main-Class: slog2.view.Main\nClass-Path: slog2.jar\n' >"$vb/manifest.txt"
jar --create --file "$out/slog2view.jar" --manifest "$vb/manifest.txt" -C "$vb/classes" .
echo "built $out/slog2view.jar"
[ "${1:-}" = "--no-test" ] && exit 0

[ -f "$junit" ] || { echo "error: $junit not found (apt-get install junit5)" >&2; exit 1; }
[ -d "$fixtures" ] || { echo "error: $fixtures not found (../shared must sit beside the repo)" >&2; exit 1; }
command -v xvfb-run >/dev/null || { echo "error: xvfb-run not found (apt-get install xvfb)" >&2; exit 1; }
cargo build --release # the whole workspace: one feature set (scripts/feature-check.sh)
lib="$root/target/release"

find java/viewer/src/test/java -name '*.java' >"$vb/test-sources.txt"
javac --release 17 -Xlint:all -cp "$out/slog2.jar:$vb/classes:$junit" -d "$vb/test-classes" @"$vb/test-sources.txt"
set +e
# One X server for the whole suite: the pixel tests run headless-capable code,
# the smoke test opens a real window on it.
# The overview strip uses the cube cache (the library's default): in the build tree.
SLOG2_CACHE_DIR="$vb/overview-cache" xvfb-run -a -s "-screen 0 1600x1000x24" \
  java -Xcheck:jni -Djava.library.path="$lib" \
  -Dslog2.fixtures="$fixtures" -Dslog2.cli="$lib/slog2" -Dslog2view.jar="$out/slog2view.jar" \
  -Dslog2view.shots="$vb/shots" \
  -jar "$junit" --disable-banner --details=tree --fail-if-no-tests \
  -cp "$out/slog2.jar:$vb/classes:$vb/test-classes" --scan-classpath "$vb/test-classes" >"$vb/junit-raw.log" 2>&1
rc=$?
set -e
# -Xcheck:jni also reports the JDK's own native code (the font scaler under
# Xvfb: hundreds of "WARNING in native method" blocks from sun.font.*). Those
# blocks are dropped (counted in one line; the whole log stays in
# junit-raw.log); a warning raised in any other native method, ours
# included, is kept and fails the build.
awk '
  function flush() { if (blk != "") { if (jdk) dropped++; else printf "%s", blk } blk = ""; jdk = 0 }
  /^WARNING in native method:/ { flush(); blk = $0 "\n"; first = 1; next }
  blk != "" && /^[ \t]/ {
    if (first && $0 ~ /^[ \t]+at (sun|java|javax|jdk|com\.sun)\./) jdk = 1
    first = 0; blk = blk $0 "\n"; next
  }
  { flush(); print }
  END { flush(); if (dropped) printf "(%d -Xcheck:jni warnings raised in the JDK'"'"'s own native code were filtered; see junit-raw.log)\n", dropped }
' "$vb/junit-raw.log" >"$vb/junit.log"
cat "$vb/junit.log"
if grep -q "WARNING in native method\|WARNING: JNI\|FATAL ERROR" "$vb/junit.log"; then
  echo "error: JNI warnings under -Xcheck:jni (see above)" >&2
  exit 1
fi
[ $rc -eq 0 ] || { echo "error: viewer JUnit failed (exit $rc)" >&2; exit $rc; }
echo "Viewer tests passed"
