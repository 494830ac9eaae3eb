#!/usr/bin/env bash
# The main job on the bundled example: install what is missing, build, convert
# examples/demo.txt (slog2sdk sample text format) to SLOG-2, summarise it and
# query one time window of it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cargo build --release --quiet
bin=target/release/slog2
$bin convert examples/demo.txt -o target/demo.slog2
$bin check target/demo.slog2
$bin info target/demo.slog2
echo
echo "Drawables between 0.010 s and 0.011 s:"
$bin query target/demo.slog2 --from 0.010 --to 0.011 --stats
