#!/usr/bin/env bash
# Install libslog2 into PREFIX (the one documented install step):
#   PREFIX/lib/libslog2.so, PREFIX/lib/libslog2.a
#   PREFIX/include/trace_API.h, PREFIX/include/slog2.h
#   PREFIX/lib/cmake/slog2/slog2Config.cmake, slog2ConfigVersion.cmake
#   PREFIX/lib/pkgconfig/slog2.pc
#   PREFIX/bin/slog2
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 PREFIX" >&2; exit 2; }
cd "$(dirname "$0")/.."
mkdir -p "$1"
prefix=$(cd "$1" && pwd)
version=$(sed -n 's/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -n1)
cargo build --release --quiet
mkdir -p "$prefix/lib/cmake/slog2" "$prefix/lib/pkgconfig" "$prefix/include" "$prefix/bin"
install -m 755 target/release/libslog2.so "$prefix/lib/"
install -m 644 target/release/libslog2.a "$prefix/lib/"
install -m 644 include/trace_API.h include/slog2.h "$prefix/include/"
install -m 755 target/release/slog2 "$prefix/bin/"
sed "s|@VERSION@|$version|g" cmake/slog2Config.cmake.in > "$prefix/lib/cmake/slog2/slog2Config.cmake"
sed "s|@VERSION@|$version|g" cmake/slog2ConfigVersion.cmake.in > "$prefix/lib/cmake/slog2/slog2ConfigVersion.cmake"
sed -e "s|@VERSION@|$version|g" -e "s|@PREFIX@|$prefix|g" cmake/slog2.pc.in > "$prefix/lib/pkgconfig/slog2.pc"
echo "installed slog2 $version into $prefix"
