#!/usr/bin/env bash
# The main job on the bundled example: install what is missing, build, convert
# examples/demo.txt (slog2sdk sample text format) to SLOG-2, summarise it and
# query one time window of it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh demo
cargo build --release
bin=target/release/slog2
$bin convert examples/demo.txt -o target/demo.slog2 -ls 16k
$bin check target/demo.slog2
$bin info target/demo.slog2
echo
echo "Drawables between 0.0007 s and 0.00071 s:"
$bin query target/demo.slog2 --from 0.0007 --to 0.00071 --stats
