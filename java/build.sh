#!/usr/bin/env bash
# Build the Java API jar and run its JUnit 5 suite (plain javac/jar, JDK 17).
#
#   java/build.sh            build java/build/slog2.jar, then test
#   java/build.sh --no-test  build only
#
# Needs: the JDK (javac, jar, java 17+) and Debian's junit5 package (the
# console launcher jar in /usr/share/java); scripts/deps.sh installs both.
# The tests load target/release/libslog2jni.so (built here with cargo) and
# run under -Xcheck:jni; any JNI warning in their output fails the build, and
# so does a missing JDK, JUnit or fixture directory (nothing is skipped).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out="$root/java/build"
fixtures="$root/../shared/fixtures"
junit=/usr/share/java/junit-platform-console-standalone.jar

for tool in javac jar java; do
  command -v "$tool" >/dev/null || { echo "error: $tool not found (install openjdk-17-jdk-headless)" >&2; exit 1; }
done

# Only what this script makes: java/build/ also holds the viewer's jar
# (java/viewer/build.sh), which `slog2 view` runs.
viewer_jar=$( [ -f "$out/slog2view.jar" ] && cksum <"$out/slog2view.jar" || true )
rm -rf "$out/classes" "$out/test-classes" "$out/example" "$out/javadoc" "$out/slog2.jar"
mkdir -p "$out/classes" "$out/test-classes" "$out/example"
find java/api/src/main/java -name '*.java' >"$out/sources.txt"
javac --release 17 -Xlint:all -Werror -d "$out/classes" @"$out/sources.txt"
javadoc -quiet -Xdoclint:all,-missing -d "$out/javadoc" -sourcepath java/api/src/main/java slog2.api >/dev/null
jar --create --file "$out/slog2.jar" -C "$out/classes" .
echo "built $out/slog2.jar"
if [ -n "$viewer_jar" ] && [ "$(cksum <"$out/slog2view.jar" 2>/dev/null)" != "$viewer_jar" ]; then
  echo "error: java/build.sh removed or changed java/build/slog2view.jar (slog2 view runs it)" >&2; exit 1
fi
[ "${1:-}" = "--no-test" ] && exit 0

[ -f "$junit" ] || { echo "error: $junit not found (apt-get install junit5)" >&2; exit 1; }
[ -d "$fixtures" ] || { echo "error: $fixtures not found (../shared must sit beside the repo)" >&2; exit 1; }
# The whole workspace (one feature set for every build: scripts/feature-check.sh),
# so this never rebuilds what the README's `cargo build --release` or the tests made.
cargo build --release
lib="$root/target/release"

# The README's example is java/examples/Example.java, and it compiles and runs
# against the jar on the demo trace, as the README's commands do.
awk '/<!-- java-example-begin -->/{on=1; next} /<!-- java-example-end -->/{on=0} on && !/^```/' README.md \
  >"$out/example/README-Example.java"
cmp -s "$out/example/README-Example.java" java/examples/Example.java || {
  diff -u java/examples/Example.java "$out/example/README-Example.java" >&2 || true
  echo "error: the README's Java example is not java/examples/Example.java" >&2; exit 1; }
javac --release 17 -cp "$out/slog2.jar" -d "$out/example" java/examples/Example.java
"$lib/slog2" convert -q examples/demo.txt -o "$out/example/demo.slog2"
java -Xcheck:jni -Dslog2.library="$lib/libslog2jni.so" -cp "$out/slog2.jar:$out/example" Example \
  "$out/example/demo.slog2" >"$out/example.log" 2>&1 || { cat "$out/example.log"; exit 1; }
if grep -q "WARNING\|FATAL ERROR" "$out/example.log"; then cat "$out/example.log"; exit 1; fi
grep -q "^1500 drawables" "$out/example.log" || { cat "$out/example.log"; echo "error: the example's counts" >&2; exit 1; }
# Without the library path, the error names -Dslog2.library.
if java -Djava.library.path=/nonexistent -cp "$out/slog2.jar:$out/example" Example "$out/example/demo.slog2" \
  >"$out/example-nolib.log" 2>&1 || ! grep -q -- "-Dslog2.library=" "$out/example-nolib.log"; then
  cat "$out/example-nolib.log"; echo "error: a missing library must point to -Dslog2.library" >&2; exit 1
fi
echo "README example compiled and ran ($(wc -l <"$out/example.log") lines of output); without the library it says how to give it"

find java/api/src/test/java -name '*.java' >"$out/test-sources.txt"
javac --release 17 -cp "$out/slog2.jar:$junit" -d "$out/test-classes" @"$out/test-sources.txt"
set +e
# The overview tests use the cube cache (the library's default): in the build tree.
SLOG2_CACHE_DIR="$out/overview-cache" java -Xcheck:jni -Djava.library.path="$lib" \
  -Dslog2.fixtures="$fixtures" -Dslog2.cli="$lib/slog2" \
  -jar "$junit" --disable-banner --details=tree --fail-if-no-tests \
  -cp "$out/slog2.jar:$out/test-classes" --scan-classpath "$out/test-classes" >"$out/junit.log" 2>&1
rc=$?
set -e
cat "$out/junit.log"
if grep -q "WARNING\|FATAL ERROR" "$out/junit.log"; then
  echo "error: JNI warnings under -Xcheck:jni (see above)" >&2
  exit 1
fi
[ $rc -eq 0 ] || { echo "error: JUnit failed (exit $rc)" >&2; exit $rc; }
echo "Java tests passed"
