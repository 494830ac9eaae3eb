#!/usr/bin/env bash
# Build libslog2 and install it into PREFIX -- the one documented install step.
#
#   scripts/install.sh PREFIX
#
# Runs `cargo build --release` in the repository root, then lays out
#   PREFIX/lib/libslog2.so, PREFIX/lib/libslog2.a
#   PREFIX/include/*.h                 (every header in include/: trace_API.h, slog2.h, slog2_trace_ext.h)
#   PREFIX/lib/cmake/slog2/slog2Config.cmake, slog2ConfigVersion.cmake
#   PREFIX/lib/pkgconfig/slog2.pc
#   PREFIX/bin/slog2                   (the command-line tool)
#   PREFIX/lib/slog2/plugins/libslog2-otf2.so   (the OTF2 reader, readers/otf2;
#                                      only when cmake and libotf2 are present --
#                                      otherwise a warning says it is left out)
#   PREFIX/lib/libslog2jni.so          (JNI: slog2.api natives + logformat.trace.InputLog drop-in)
#   PREFIX/lib/libTraceInput.so        -> libslog2jni.so (what slog2sdk's jars load)
#   PREFIX/share/java/slog2.jar        (the slog2.api classes; needs a JDK, skipped with a warning without one)
#   PREFIX/share/java/slog2view.jar    (the viewer; `PREFIX/bin/slog2 view FILE` runs it with
#                                      PREFIX/lib/libslog2jni.so; same JDK condition)
# with the version from Cargo.toml. libslog2.so is installed as cargo builds
# it (no SONAME; the CMake package links it as -lslog2). Afterwards:
#   cmake ... -DCMAKE_PREFIX_PATH=PREFIX      find_package(slog2 CONFIG REQUIRED)
#   PKG_CONFIG_PATH=PREFIX/lib/pkgconfig pkg-config --cflags --libs slog2
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: $0 PREFIX" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$1"
prefix=$(cd "$1" && pwd)
cd "$root"

# The package version: the first `version = "..."` of the [package] table.
version=$(awk '
  /^\[/ { in_pkg = ($0 ~ /^\[package\][ \t]*$/) }
  in_pkg && /^[ \t]*version[ \t]*=/ { if (match($0, /"[^"]*"/)) { print substr($0, RSTART + 1, RLENGTH - 2); exit } }
' Cargo.toml)
if ! [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+ ]]; then
  echo "error: cannot read the package version from Cargo.toml (got '$version')" >&2
  exit 1
fi

# The whole workspace, as every script and the README build it: one feature
# set for all builds (scripts/feature-check.sh), so this neither rebuilds what
# `cargo test --all-targets` or a plain `cargo build --release` made nor makes
# them rebuild.
cargo build --release

release="$root/target/release"
for f in libslog2.so libslog2.a slog2 libslog2jni.so; do
  [ -f "$release/$f" ] || { echo "error: $release/$f was not built" >&2; exit 1; }
done
headers=(include/*.h)
[ -e "${headers[0]}" ] || { echo "error: no headers in include/" >&2; exit 1; }

# System libraries a Rust staticlib needs on Linux (rustc --print
# native-static-libs: -ldl -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc).
static_libs="pthread;dl;m;rt;util;gcc_s"
static_flags="-lpthread -ldl -lm -lrt -lutil -lgcc_s"
sizeof_void_p=$(( $(getconf LONG_BIT) / 8 ))

install -d "$prefix/lib/cmake/slog2" "$prefix/lib/pkgconfig" "$prefix/include" "$prefix/bin"
install -m 755 "$release/libslog2.so" "$prefix/lib/libslog2.so"
install -m 644 "$release/libslog2.a" "$prefix/lib/libslog2.a"
install -m 644 "${headers[@]}" "$prefix/include/"
install -m 755 "$release/slog2" "$prefix/bin/slog2"
install -m 755 "$release/libslog2jni.so" "$prefix/lib/libslog2jni.so"
ln -sfn libslog2jni.so "$prefix/lib/libTraceInput.so"
if command -v javac >/dev/null 2>&1 && command -v jar >/dev/null 2>&1; then
  java/build.sh --no-test >/dev/null
  java/viewer/build.sh --no-test >/dev/null
  install -d "$prefix/share/java"
  install -m 644 java/build/slog2.jar "$prefix/share/java/slog2.jar"
  # its manifest's Class-Path names slog2.jar in the same folder
  install -m 644 java/build/slog2view.jar "$prefix/share/java/slog2view.jar"
else
  echo "warning: no JDK (javac/jar): $prefix/share/java/slog2.jar and slog2view.jar not installed" >&2
fi

subst() { # TEMPLATE OUTPUT
  sed -e "s|@VERSION@|$version|g" -e "s|@PREFIX@|$prefix|g" -e "s|@STATIC_LIBS@|$static_libs|g" \
      -e "s|@STATIC_LIBS_FLAGS@|$static_flags|g" -e "s|@SIZEOF_VOID_P@|$sizeof_void_p|g" "$1" > "$2.tmp"
  if grep -q '@[A-Z_]*@' "$2.tmp"; then
    echo "error: unreplaced placeholder in $2: $(grep -o '@[A-Z_]*@' "$2.tmp" | head -n1)" >&2
    rm -f "$2.tmp"
    exit 1
  fi
  chmod 644 "$2.tmp"
  mv "$2.tmp" "$2"
}
subst cmake/slog2Config.cmake.in "$prefix/lib/cmake/slog2/slog2Config.cmake"
subst cmake/slog2ConfigVersion.cmake.in "$prefix/lib/cmake/slog2/slog2ConfigVersion.cmake"
subst cmake/slog2.pc.in "$prefix/lib/pkgconfig/slog2.pc"

# The OTF2 reader plugin (readers/otf2/CMakeLists.txt): built and installed
# into PREFIX/lib/slog2/plugins when libotf2 is found; its configure step
# prints a warning otherwise. SLOG2_REQUIRE_OTF2=1 makes a missing libotf2
# an error (scripts/test-all.sh sets it).
require_otf2=OFF
[ "${SLOG2_REQUIRE_OTF2:-0}" = 1 ] && require_otf2=ON
if command -v cmake >/dev/null 2>&1; then
  plugin_build="$root/target/otf2-plugin"
  # A target/ copied from another checkout carries a CMake cache of that
  # checkout's sources, which cmake refuses: start that build directory afresh.
  if [ -f "$plugin_build/CMakeCache.txt" ] &&
     ! grep -qx "CMAKE_HOME_DIRECTORY:INTERNAL=$root/readers/otf2" "$plugin_build/CMakeCache.txt"; then
    rm -rf "$plugin_build"
  fi
  cmake -S readers/otf2 -B "$plugin_build" -DSLOG2_TRACE_INCLUDE="$root/include" \
        -DSLOG2_REQUIRE_OTF2="$require_otf2" >/dev/null
  if [ -f "$plugin_build/Makefile" ] || [ -f "$plugin_build/build.ninja" ]; then
    cmake --build "$plugin_build" >/dev/null
    cmake --install "$plugin_build" --prefix "$prefix" >/dev/null
  fi
elif [ "$require_otf2" = ON ]; then
  echo "error: cmake is needed to build the OTF2 plugin" >&2
  exit 1
else
  echo "warning: cmake not found: the OTF2 plugin (readers/otf2) is not installed" >&2
fi

echo "installed slog2 $version into $prefix"
