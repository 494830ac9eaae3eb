#!/usr/bin/env bash
# One feature set for every build: a shared dependency must get the same
# features whether the workspace is built with its dev-dependencies (`cargo test
# --all-targets`, scripts/test-all.sh, scripts/install.sh) or without them (`cargo
# build --release`, the README's command, scripts/demo.sh, java/build.sh). When
# they differ, each command rebuilds the crates above that dependency for the
# other (libslog2.so and libslog2jni.so relinked, 25-60 s a time). The remedy is
# to ask for the missing features in the normal dependencies (see the getrandom
# note in Cargo.toml). Cheap: cargo tree resolves, nothing is compiled.
#
# Every build script builds the whole workspace (`cargo build --release`), never
# selected packages: a `-p` selection resolves the features of its own graph only.
set -euo pipefail
cd "$(dirname "$0")/.."
tree() { cargo tree --workspace "$@" -f '{p}|{f}' --prefix none | sed 's/ (.*)//' | sort -u; }
work=$(mktemp -d "${TMPDIR:-/tmp}/slog2-features.XXXXXX")
trap 'rm -rf "$work"' EXIT
tree -e normal,build >"$work/build"
tree -e all >"$work/test"
diff=$(join -t'|' "$work/build" "$work/test" | awk -F'|' '$2 != $3 { printf "  %s: build [%s], test [%s]\n", $1, $2, $3 }')
if [ -n "$diff" ]; then
  echo "error: dependencies whose features differ between 'cargo build' and 'cargo test --all-targets':" >&2
  echo "$diff" >&2
  exit 1
fi
echo "one feature set: $(wc -l <"$work/build") crates resolve the same features with and without dev-dependencies"
