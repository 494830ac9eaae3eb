#!/usr/bin/env bash
# The one test command: every suite, from a clean checkout with ../shared beside it.
#   1. gates: cargo fmt --check, one feature set for every build (scripts/feature-check.sh),
#      clippy (-D warnings), rustdoc (-D warnings)
#   2. Rust unit, integration and property tests (cargo test)
#   3. headers: regenerating include/*.h with cbindgen must not change a byte
#   4. install the library into a temporary prefix (scripts/install.sh; same
#      cargo unit graph as step 2, so nothing is rebuilt), with the OTF2 plugin
#   5. C tests (capi-tests/, CMake + CTest) against the installed package,
#      under AddressSanitizer + UBSan, then under valgrind (memcheck); they
#      include the OTF2 reader plugin's tests (readers/otf2/tests)
#   6. Python: the ctypes package's pytest suite (scripts/python-tests.sh)
#   7. Java: the slog2.api JUnit suite under -Xcheck:jni (java/build.sh), and the
#      slog2sdk-jar drop-in checks (scripts/java-dropin.sh) when SLOG2SDK_JARS names
#      the directory holding traceTOslog2.jar and traceprint.jar (they are not in the repo)
#   8. Viewer: slog2view's JUnit suite (java/viewer/build.sh): pixel checks of rendered
#      pictures, popups against slog2 print, --render, and a real-window smoke test under Xvfb;
#      then the installed viewer: PREFIX/bin/slog2 view opens PREFIX/share/java/slog2view.jar
#      with PREFIX/lib/libslog2jni.so and paints a frame (scripts/viewer-install-check.sh)
#   9. a bounded, reproducible fuzz run of every fuzz target (scripts/fuzz-run.sh: 10000
#      inputs each from seed 1 and the fixture seeds)
# Any failing or missing suite fails the script. Each step prints its name,
# streams its output, and prints its time; a step that could not run its check
# (the drop-in step without SLOG2SDK_JARS) says SKIPPED, also in the last line.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
shared="$root/../shared"
[ -d "$shared/fixtures" ] || { echo "error: $shared/fixtures not found (../shared must sit beside the repo)" >&2; exit 1; }

t_all=$SECONDS
skipped=()
step() { # NAME COMMAND... (a command that exits 77 skipped its check: reported as SKIPPED)
  local name=$1 t=$SECONDS rc=0; shift
  echo "== $name"
  "$@" || rc=$?
  if [ $rc -eq 77 ]; then
    echo "== $name: SKIPPED ($((SECONDS - t)) s)"
    skipped+=("$name")
    return 0
  fi
  if [ $rc -ne 0 ]; then
    echo "== $name: FAILED after $((SECONDS - t)) s" >&2
    exit 1
  fi
  echo "== $name: ok ($((SECONDS - t)) s)"
}

step "Dependencies" scripts/deps.sh test
step "Format (cargo fmt --check)" cargo fmt --all --check
step "One feature set (cargo build = cargo test --all-targets: no rebuild ping-pong)" scripts/feature-check.sh
step "Lint (clippy -D warnings)" cargo clippy --release --workspace --all-targets -- -D warnings
step "Docs (rustdoc -D warnings)" env RUSTDOCFLAGS="-D warnings" cargo doc --release --no-deps --workspace
step "Rust tests" cargo test --release --workspace --all-targets
step "Header check" scripts/gen-headers.sh --check

prefix=$(mktemp -d /tmp/slog2-prefix.XXXXXX)
build=$(mktemp -d /tmp/slog2-ctest.XXXXXX)
trap 'rm -rf "$prefix" "$build"' EXIT
# the OTF2 reader plugin must be built and installed too (its tests need it)
step "Install" env SLOG2_REQUIRE_OTF2=1 scripts/install.sh "$prefix"

ctests() { # DIR CMAKE-OPTION
  cmake -S capi-tests -B "$build/$1" -DCMAKE_PREFIX_PATH="$prefix" -DSHARED_DIR="$shared" "-D$2=ON" >/dev/null &&
  cmake --build "$build/$1" -j2 >/dev/null &&
  (cd "$build/$1" && ctest --output-on-failure)
}
step "C tests (ASan + UBSan)" ctests asan SLOG2_SANITIZE
step "C tests (valgrind)" ctests vg SLOG2_VALGRIND
step "Python tests" scripts/python-tests.sh
step "Java tests" java/build.sh
step "Java drop-in (slog2sdk jars from SLOG2SDK_JARS)" scripts/java-dropin.sh "${SLOG2SDK_JARS:-}"
step "Viewer tests" java/viewer/build.sh
step "Installed viewer (slog2 view from the install prefix, real window under Xvfb)" scripts/viewer-install-check.sh "$prefix"
step "Fuzz (bounded: 10000 inputs per target, 2500 for otf2, from seed 1; longer runs in RELIABILITY.md)" scripts/fuzz-run.sh 120 10000
if [ ${#skipped[@]} -gt 0 ]; then
  echo "== all suites passed ($((SECONDS - t_all)) s); SKIPPED: ${skipped[*]}"
else
  echo "== all suites passed ($((SECONDS - t_all)) s)"
fi
