#!/usr/bin/env bash
# The main job on the bundled example: install what is missing, build, convert
# examples/demo.txt (slog2sdk sample text format) to SLOG-2, summarise it and
# query one time window of it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh demo
# The same cargo unit graph as scripts/test-all.sh and scripts/install.sh
# (see the note there): a plain `cargo build --release` resolves dependency
# features without the dev-dependencies, and the demo and the tests would
# then rebuild libslog2 and the slog2 binary for each other on every run.
cargo build --release --workspace --all-targets
bin=target/release/slog2
$bin convert examples/demo.txt -o target/demo.slog2 -ls 16k
$bin check target/demo.slog2
$bin info target/demo.slog2
echo
echo "Drawables between 0.0007 s and 0.00071 s:"
$bin query target/demo.slog2 --from 0.0007 --to 0.00071 --stats
