# Sourced by scripts/fuzz-run.sh and scripts/fuzz-campaign.sh (from the repo
# root): what the fuzz targets need around them, in one place.
#
# The otf2 target loads the OTF2 reader plugin: the one SLOG2_PLUGIN_PATH
# names, else one built here from readers/otf2 (libotf2 is required).
if [ -z "${SLOG2_PLUGIN_PATH:-}" ]; then
  cmake -S readers/otf2 -B fuzz/target/otf2-plugin -DSLOG2_REQUIRE_OTF2=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build fuzz/target/otf2-plugin >/dev/null
  export SLOG2_PLUGIN_PATH=$PWD/fuzz/target/otf2-plugin
fi
# libotf2 leaks on its own error paths (damaged archives): not our leak.
export LSAN_OPTIONS=suppressions=$PWD/readers/otf2/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}

# fuzz_limits TARGET: sets malloc_limit (for -malloc_limit_mb) and asan (for
# ASAN_OPTIONS). libotf2 sizes arrays by counts read from the archive before
# it checks them against the bytes (RELIABILITY.md): a 1.5 KB archive asks
# for 32 GB, which the system refuses and libotf2 reports. For otf2 the
# fuzzer models that system: huge requests fail (allocator_may_return_null)
# instead of counting as a crash; memory really used is still capped by
# -rss_limit_mb.
fuzz_limits() {
  malloc_limit=1024 asan=${ASAN_OPTIONS:-}
  if [ "$1" = otf2 ]; then
    malloc_limit=1048576 asan=allocator_may_return_null=1${asan:+:$asan}
  fi
}
