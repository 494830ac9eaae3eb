#!/bin/bash
# The overviews whose JSON must stay byte-identical across a change of the
# aggregation code: curves, p = 0 and 1, both aggregations, both metrics,
# NodeView and fanout hierarchies, from the cube cache and not.
#
#   scripts/overview-cmp.sh OLD/slog2 NEW/slog2 [LU_FILE] [WORKDIR]
#
# LU_FILE: the LU-shaped trace (BENCHMARKS.md, "Overview"); a small 64-rank
# trace is written beside the outputs with target/release/examples/ocelotl_trace.
set -euo pipefail
OLD=$1 NEW=$2
LU=${3:-/tmp/oc_700.slog2}
W=${4:-/tmp/overview-cmp}
mkdir -p "$W"
SMALL=$W/oc_64.slog2
[ -f "$SMALL" ] || target/release/examples/ocelotl_trace 200000 64 10 "$SMALL"
outputs() {
    local B=$1 O=$2 C=$2/cache
    rm -rf "$O"
    mkdir -p "$O"
    run() { local name=$1; shift; "$B" overview "$@" --format json >"$O/$name.json"; }
    for src in nocache cache cache2; do
        X="--cache-dir $C"
        [ $src = nocache ] && X="--no-cache"
        run st100_curve_$src "$LU" --slices 100 --spatiotemporal --hierarchy NodeView --bisect 0.001 $X
        run st100_p0_$src "$LU" --slices 100 --spatiotemporal --hierarchy NodeView --p 0 $X
        run st100_p1_$src "$LU" --slices 100 --spatiotemporal --hierarchy NodeView --p 1 $X
        run st100_count_$src "$LU" --slices 100 --metric count --spatiotemporal --hierarchy NodeView --bisect 0.001 $X
        run st30_curve_$src "$LU" --slices 30 --spatiotemporal --hierarchy NodeView --bisect 0.001 $X
        run st37_fan_$src "$LU" --slices 37 --spatiotemporal --hierarchy fanout:3 --bisect 0.001 $X
        run t100_curve_$src "$LU" --slices 100 --bisect 0.001 $X
        run t100_count_$src "$LU" --slices 100 --metric count --bisect 0.001 --p 0 $X
        run s_st_$src "$SMALL" --slices 50 --spatiotemporal --hierarchy NodeView --bisect 0.001 $X
        run s_st_fan_$src "$SMALL" --slices 61 --spatiotemporal --hierarchy fanout:4 --bisect 0.0001 --p 0.3 $X
        run s_st_count_$src "$SMALL" --slices 20 --metric count --spatiotemporal --hierarchy fanout:2 --bisect 0.001 --p 0 $X
        run s_st_p1_$src "$SMALL" --slices 17 --spatiotemporal --p 1 $X
    done
}
outputs "$OLD" "$W/old"
outputs "$NEW" "$W/new"
bad=0
for f in "$W"/old/*.json; do
    cmp "$f" "$W/new/$(basename "$f")" || bad=1
done
n=$(ls "$W"/old/*.json | wc -l)
[ $bad = 0 ] && echo "$n overviews byte-identical" || { echo "overviews differ"; exit 1; }
