#!/usr/bin/env bash
# The one test command: every suite, from a clean checkout with ../shared beside it.
#   1. Rust unit, integration and property tests (cargo test)
#   2. headers: regenerating include/*.h with cbindgen must not change a byte
#   3. install the library into a temporary prefix (scripts/install.sh)
#   4. C tests (capi-tests/, CMake + CTest) against the installed package,
#      under AddressSanitizer + UBSan, then under valgrind (memcheck); they
#      include the OTF2 reader plugin's tests (readers/otf2/tests)
#   5. Python: the ctypes package's pytest suite (scripts/python-tests.sh)
#   6. Java: the slog2.api JUnit suite under -Xcheck:jni (java/build.sh), and the
#      slog2sdk-jar drop-in checks (scripts/java-dropin.sh) when SLOG2SDK_JARS names
#      the directory holding traceTOslog2.jar and traceprint.jar (they are not in the repo)
#   6. Viewer: slog2view's JUnit suite (java/viewer/build.sh): pixel checks of rendered
#      pictures, popups against slog2 print, --render, and a real-window smoke test under Xvfb
#   7. a bounded fuzz run of every fuzz target (scripts/fuzz-run.sh, 20 s each)
# Any failing or missing suite fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
shared="$root/../shared"
[ -d "$shared/fixtures" ] || { echo "error: $shared/fixtures not found (../shared must sit beside the repo)" >&2; exit 1; }

scripts/deps.sh

echo "== Rust tests"
cargo test --release --all-targets 2>&1 | tail -n 400

echo "== Header check"
scripts/gen-headers.sh --check

echo "== Install"
prefix=$(mktemp -d /tmp/slog2-prefix.XXXXXX)
build=$(mktemp -d /tmp/slog2-ctest.XXXXXX)
trap 'rm -rf "$prefix" "$build"' EXIT
# the OTF2 reader plugin must be built and installed too (its tests need it)
SLOG2_REQUIRE_OTF2=1 scripts/install.sh "$prefix" >/dev/null

echo "== C tests (ASan + UBSan)"
cmake -S capi-tests -B "$build/asan" -DCMAKE_PREFIX_PATH="$prefix" -DSHARED_DIR="$shared" \
      -DSLOG2_SANITIZE=ON >/dev/null
cmake --build "$build/asan" -j2 >/dev/null
(cd "$build/asan" && ctest --output-on-failure)

echo "== C tests (valgrind)"
cmake -S capi-tests -B "$build/vg" -DCMAKE_PREFIX_PATH="$prefix" -DSHARED_DIR="$shared" \
      -DSLOG2_VALGRIND=ON >/dev/null
cmake --build "$build/vg" -j2 >/dev/null
(cd "$build/vg" && ctest --output-on-failure)

echo "== Python tests"
scripts/python-tests.sh

echo "== Java tests"
java/build.sh
scripts/java-dropin.sh "${SLOG2SDK_JARS:-}"

echo "== Viewer tests"
java/viewer/build.sh

echo "== Fuzz (bounded: 20 s per target; longer runs in RELIABILITY.md)"
scripts/fuzz-run.sh 20
