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

rm -rf "$out"
mkdir -p "$out/classes" "$out/test-classes" "$out/example"
find java/api/src/main/java -name '*.java' >"$out/sources.txt"
javac --release 17 -Xlint:all -Werror -d "$out/classes" @"$out/sources.txt"
javadoc -quiet -Xdoclint:all,-missing -d "$out/javadoc" -sourcepath java/api/src/main/java slog2.api >/dev/null
jar --create --file "$out/slog2.jar" -C "$out/classes" .
echo "built $out/slog2.jar"
[ "${1:-}" = "--no-test" ] && exit 0

[ -f "$junit" ] || { echo "error: $junit not found (apt-get install junit5)" >&2; exit 1; }
[ -d "$fixtures" ] || { echo "error: $fixtures not found (../shared must sit beside the repo)" >&2; exit 1; }
cargo build --release -p slog2-jni -p slog2-cli
lib="$root/target/release"

# The README's example must compile (and run) against the jar.
awk '/<!-- java-example-begin -->/{on=1; next} /<!-- java-example-end -->/{on=0} on && !/^```/' README.md \
  >"$out/example/Example.java"
[ -s "$out/example/Example.java" ] || { echo "error: no Java example between the README markers" >&2; exit 1; }
javac --release 17 -cp "$out/slog2.jar" -d "$out/example" "$out/example/Example.java"
java -Xcheck:jni -Djava.library.path="$lib" -cp "$out/slog2.jar:$out/example" Example \
  "$fixtures/trace-sample/data.slog2" >"$out/example.log" 2>&1 || { cat "$out/example.log"; exit 1; }
if grep -q "WARNING\|FATAL ERROR" "$out/example.log"; then cat "$out/example.log"; exit 1; fi
echo "README example compiled and ran ($(wc -l <"$out/example.log") lines of output)"

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
