#!/bin/sh
# Turn the output of scripts/bench-window.sh into the Markdown table of
# BENCHMARKS.md ("Window queries"): per round, ours and the reference's jump and
# scroll p50 / p99 and their ratios (reference / ours; bold when >= 10x).
#   scripts/bench-window.sh FILE 5 | tee run.txt; scripts/bench-window-table.sh NAME < run.txt
# NAME labels the rows (e.g. "10M (ref-written)"). Ours: `jump` (window_rows) and
# `cursor scroll` (WindowCursor moves); the reference: its `jump` and `scroll`.
set -eu
name=${1:-file}
awk -v name="$name" '
function ratio(x) { return x >= 10 ? sprintf("**%.1f×**", x) : sprintf("%.1f×", x) }
/^== round .*: ours/      { side = 0; next }
/^== round .*: reference/ { side = 1; next }
/^jump / {
    if (side == 0) { oj50 = $4; oj99 = $7 } else { rj50 = $4; rj99 = $7 }
}
/^cursor scroll/ { cs50 = $5; cs99 = $8 }
/^scroll / && side == 1 {
    r++
    printf "| %s, %d | %s / %s µs | %.2f / %.2f ms | %s / %s | %s / %s µs | %.1f / %.0f µs | %s / %s |\n",
        name, r, oj50, oj99, rj50 / 1000, rj99 / 1000, ratio(rj50 / oj50), ratio(rj99 / oj99),
        cs50, cs99, $4, $7, ratio($4 / cs50), ratio($7 / cs99)
}'
