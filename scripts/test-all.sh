#!/usr/bin/env bash
# The one test command: every suite, from a clean checkout with ../shared beside it.
#   1. gates: cargo fmt --check, clippy (-D warnings), rustdoc (-D warnings)
#   2. Rust unit, integration and property tests (cargo test)
#   3. headers: regenerating include/*.h with cbindgen must not change a byte
#   4. install the library into a temporary prefix (scripts/install.sh; same
#      cargo unit graph as step 2, so nothing is rebuilt)
#   5. C tests (capi-tests/, CMake + CTest) against the installed package,
#      under AddressSanitizer + UBSan, then under valgrind (memcheck)
# Any failing or missing suite fails the script. Each step prints its name,
# streams its output, and prints its time.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
shared="$root/../shared"
[ -d "$shared/fixtures" ] || { echo "error: $shared/fixtures not found (../shared must sit beside the repo)" >&2; exit 1; }

t_all=$SECONDS
step() { # NAME COMMAND...
  local name=$1 t=$SECONDS; shift
  echo "== $name"
  if ! "$@"; then
    echo "== $name: FAILED after $((SECONDS - t)) s" >&2
    exit 1
  fi
  echo "== $name: ok ($((SECONDS - t)) s)"
}

step "Dependencies" scripts/deps.sh test
step "Format (cargo fmt --check)" cargo fmt --all --check
step "Lint (clippy -D warnings)" cargo clippy --release --workspace --all-targets -- -D warnings
step "Docs (rustdoc -D warnings)" env RUSTDOCFLAGS="-D warnings" cargo doc --release --no-deps --workspace
step "Rust tests" cargo test --release --workspace --all-targets
step "Header check" scripts/gen-headers.sh --check

prefix=$(mktemp -d /tmp/slog2-prefix.XXXXXX)
build=$(mktemp -d /tmp/slog2-ctest.XXXXXX)
trap 'rm -rf "$prefix" "$build"' EXIT
step "Install" scripts/install.sh "$prefix"

ctests() { # DIR CMAKE-OPTION
  cmake -S capi-tests -B "$build/$1" -DCMAKE_PREFIX_PATH="$prefix" -DSHARED_DIR="$shared" "-D$2=ON" >/dev/null &&
  cmake --build "$build/$1" -j2 >/dev/null &&
  (cd "$build/$1" && ctest --output-on-failure)
}
step "C tests (ASan + UBSan)" ctests asan SLOG2_SANITIZE
step "C tests (valgrind)" ctests vg SLOG2_VALGRIND
echo "== all suites passed ($((SECONDS - t_all)) s)"
