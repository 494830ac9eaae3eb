#!/usr/bin/env bash
# Install what building and testing slog2 needs on Debian (idempotent).
# Rust (cargo) is expected on PATH; everything else comes from apt and crates.io.
set -euo pipefail
need=()
# libopen-trace-format2-dev + otf2-tools: the OTF2 reader plugin (readers/otf2)
# and its tests; otf2-print is the floor of the OTF2 benchmark.
# python3-venv: the Python suite's venv. openjdk-17-jdk-headless + junit5: the
# Java API suite (java/build.sh; JUnit console launcher). openjdk-17-jre (the
# X11 AWT toolkit) + xvfb + xauth + fonts-dejavu-core: slog2view's window smoke
# test under xvfb-run (java/viewer/build.sh).
for pkg in cmake pkg-config valgrind gcc python3 python3-venv libopen-trace-format2-dev otf2-tools \
           openjdk-17-jdk-headless junit5 openjdk-17-jre xvfb xauth fonts-dejavu-core; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ "${#need[@]}" -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
command -v cbindgen >/dev/null 2>&1 || cargo install --locked cbindgen >/dev/null 2>&1
