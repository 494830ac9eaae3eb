#!/usr/bin/env bash
# Install what a slog2 task needs on Debian (idempotent), by purpose:
#   scripts/deps.sh demo   the demo (scripts/demo.sh): only cargo, nothing else
#   scripts/deps.sh test   the test command (scripts/test-all.sh): cmake,
#                          pkg-config, valgrind, gcc, python3 (apt), clippy and
#                          rustfmt (rustup), cbindgen at exactly $CBINDGEN_VERSION
# Rust (cargo) is expected on PATH. Each install says what it does; a failed
# install names what failed and exits non-zero.
set -euo pipefail

# The header check (scripts/gen-headers.sh --check) is byte-exact, and cbindgen
# output changes between releases: every machine uses this one version.
CBINDGEN_VERSION=0.29.4

fail() { echo "deps.sh: FAILED: $*" >&2; exit 1; }

purpose=${1:-test}
command -v cargo >/dev/null 2>&1 || fail "cargo not found on PATH (install Rust: https://rustup.rs)"
case "$purpose" in
  demo) exit 0 ;;
  test) ;;
  *) echo "usage: $0 [demo|test]" >&2; exit 2 ;;
esac

need=()
# libopen-trace-format2-dev + otf2-tools: the OTF2 reader plugin (readers/otf2)
# and its tests; otf2-print is the floor of the OTF2 benchmark.
# python3-venv: the Python suite's venv. openjdk-17-jdk-headless + junit5: the
# Java API suite (java/build.sh; JUnit console launcher). openjdk-17-jre (the
# X11 AWT toolkit) + xvfb + xauth + fonts-dejavu-core: slog2view's window smoke
# test under xvfb-run (java/viewer/build.sh).
for pkg in cmake pkg-config valgrind gcc g++ python3 python3-venv libopen-trace-format2-dev otf2-tools \
           openjdk-17-jdk-headless junit5 openjdk-17-jre xvfb xauth fonts-dejavu-core; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ "${#need[@]}" -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "deps.sh: apt-get install ${need[*]}"
  $SUDO apt-get update -qq || fail "apt-get update"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" \
    || fail "apt-get install ${need[*]}"
fi

for comp in clippy rustfmt; do
  if ! cargo "${comp/rustfmt/fmt}" --version >/dev/null 2>&1; then
    command -v rustup >/dev/null 2>&1 || fail "cargo $comp missing and no rustup to add it"
    echo "deps.sh: rustup component add $comp"
    rustup component add "$comp" || fail "rustup component add $comp"
  fi
done

have=$(cbindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$CBINDGEN_VERSION" ]; then
  echo "deps.sh: cargo install cbindgen $CBINDGEN_VERSION (have: ${have:-none}; takes a few minutes)"
  cargo install --locked cbindgen --version "$CBINDGEN_VERSION" \
    || fail "cargo install --locked cbindgen --version $CBINDGEN_VERSION"
fi
