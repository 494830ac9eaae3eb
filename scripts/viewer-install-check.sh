#!/usr/bin/env bash
# Check that an installed slog2 (scripts/install.sh PREFIX) opens the viewer by itself:
# `PREFIX/bin/slog2 view FILE` must find PREFIX/share/java/slog2view.jar (not the build
# tree's), which must find PREFIX/share/java/slog2.jar and PREFIX/lib/libslog2jni.so, and
# a real window (under Xvfb) must paint the file's first frame.
#
#   scripts/viewer-install-check.sh PREFIX
#
# The viewer is started with -Dslog2view.exitAfterFirstFrame=true (through
# JAVA_TOOL_OPTIONS, since `slog2 view` passes only the file): on its first painted frame
# with data it prints the jar and library it used and exits 0. Fails on anything else.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 PREFIX" >&2; exit 2; }
prefix=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
file="$root/../shared/fixtures/trace-sample/data.slog2"
[ -f "$file" ] || { echo "error: $file not found (../shared must sit beside the repo)" >&2; exit 1; }
for f in bin/slog2 share/java/slog2view.jar share/java/slog2.jar lib/libslog2jni.so; do
  [ -f "$prefix/$f" ] || { echo "error: $prefix/$f is not installed" >&2; exit 1; }
done
command -v xvfb-run >/dev/null || { echo "error: xvfb-run not found (apt-get install xvfb)" >&2; exit 1; }

# From a directory outside the repository, without the variables that would point elsewhere.
out=$(cd / && env -u SLOG2VIEW_JAR JAVA_TOOL_OPTIONS=-Dslog2view.exitAfterFirstFrame=true \
  timeout 120 xvfb-run -a -s "-screen 0 1600x1000x24" "$prefix/bin/slog2" view "$file" 2>&1) || {
  echo "$out"; echo "error: installed 'slog2 view' failed (exit $?)" >&2; exit 1; }
echo "$out"
line=$(grep '^slog2view: first frame painted' <<<"$out") || {
  echo "error: the viewer did not report a painted frame" >&2; exit 1; }
want_jar="$prefix/share/java/slog2view.jar"
want_lib="$prefix/lib/libslog2jni.so"
grep -qF "jar $(realpath "$want_jar");" <<<"$line" || grep -qF "jar $want_jar;" <<<"$line" || {
  echo "error: not the installed jar ($want_jar): $line" >&2; exit 1; }
grep -qF "library $(realpath "$want_lib")" <<<"$line" || grep -qF "library $want_lib" <<<"$line" || {
  echo "error: not the installed native library ($want_lib): $line" >&2; exit 1; }
echo "installed viewer ok: slog2 view -> $want_jar with $want_lib"
