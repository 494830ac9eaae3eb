#!/usr/bin/env bash
# Regenerate include/trace_API.h and include/slog2.h with cbindgen.
# (include/slog2_trace_ext.h is hand-written: it declares slog2's optional bulk
# extension that a TRACE *reader* may export, no function of libslog2.)
#   scripts/gen-headers.sh          write them
#   scripts/gen-headers.sh --check  fail (exit 1) if regenerating would change a byte
set -euo pipefail
cd "$(dirname "$0")/.."
# The pinned version (scripts/deps.sh): other versions write other bytes.
want=$(sed -n 's/^CBINDGEN_VERSION=//p' scripts/deps.sh)
have=$(cbindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$want" ]; then
  echo "cbindgen $want needed, found '${have:-none}' (scripts/deps.sh test installs it)" >&2
  exit 1
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cbindgen --quiet --config cbindgen-trace.toml --crate slog2-capi --output "$tmp/trace_API.h" capi
cbindgen --quiet --config cbindgen-slog2.toml --crate slog2-capi --output "$tmp/slog2.h" capi
if [ "${1:-}" = "--check" ]; then
  status=0
  for h in trace_API.h slog2.h; do
    if ! cmp -s "$tmp/$h" "include/$h"; then
      echo "include/$h is stale: run scripts/gen-headers.sh" >&2
      diff -u "include/$h" "$tmp/$h" | head -40 >&2 || true
      status=1
    fi
  done
  exit $status
fi
mkdir -p include
cp "$tmp/trace_API.h" "$tmp/slog2.h" include/
echo "headers written to include/"
