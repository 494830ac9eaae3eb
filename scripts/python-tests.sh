#!/usr/bin/env bash
# The Python suite (python/tests, pytest) against the release library, after
# linting python/ with ruff (its rules: python/pyproject.toml).
# Creates target/pyvenv once and installs the pinned test packages into it
# (python/requirements-test.txt: numpy, pandas, matplotlib, pytest, ruff and
# their dependencies at exact versions; pip changes nothing when they are
# there), installs ./python (pip install, as a user would), and runs pytest.
# pytest exits 5 when it collects no test and the suite's conftest fails the
# run on any skip, so a suite that cannot run fails this script.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
venv="$root/target/pyvenv"
# Always through cargo: a no-op when fresh, and never a stale library (a
# libslog2.so older than python/slog2/_lib.py fails at import).
cargo build --release --quiet
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
py="$venv/bin/python"
req="$root/python/requirements-test.txt"
# Reinstall only when the venv's packages differ from the pins.
if ! diff -q <(grep -v '^#' "$req" | sort -f) \
    <("$py" -m pip freeze --disable-pip-version-check --exclude slog2 2>/dev/null | sort -f) >/dev/null; then
  "$py" -m pip install -q --disable-pip-version-check -r "$req"
fi
"$venv/bin/ruff" check --config "$root/python/pyproject.toml" "$root/python"
"$py" -m pip install -q --disable-pip-version-check --no-deps --force-reinstall ./python
rm -rf python/build python/slog2.egg-info
export SLOG2_LIB="$root/target/release/libslog2.so"
export MPLBACKEND=Agg
# Run from a temporary directory of our own against the *installed* package
# (pip install ./python), with the tests read from the repo; pytest's
# tmp_path directories live inside it (--basetemp), and all of it is removed
# at the end, so the suite leaves nothing in /tmp.
work=$(mktemp -d "${TMPDIR:-/tmp}/slog2-pytest.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
"$py" -m pytest -q -p no:cacheprovider --rootdir "$root/python" --basetemp "$work/tmp" \
  -c "$root/python/pyproject.toml" "$root/python/tests" "$@"
