#!/usr/bin/env bash
# The Python suite (python/tests, pytest) against the release library.
# Creates target/pyvenv once, installs numpy/pandas/matplotlib/pytest and the
# optional Dask extras (dask[dataframe], distributed: the slog2.dask tests start
# a real LocalCluster, so they must run here, not be skipped) into it
# (pip's cache makes reruns cheap; nothing is reinstalled when present), installs
# ./python (pip install, as a user would), and runs pytest. pytest exits 5 when
# it collects no test and the suite's conftest fails the run on any skip, so a
# suite that cannot run fails this script.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
venv="$root/target/pyvenv"
[ -f target/release/libslog2.so ] && [ -x target/release/slog2 ] || cargo build --release
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
py="$venv/bin/python"
if ! "$py" -c "import numpy, pandas, matplotlib, pytest, dask.dataframe, distributed" 2>/dev/null; then
  "$py" -m pip install -q --disable-pip-version-check numpy pandas matplotlib pytest \
    "dask[dataframe]" distributed
fi
"$py" -m pip install -q --disable-pip-version-check --no-deps --force-reinstall ./python
rm -rf python/build python/slog2.egg-info
export SLOG2_LIB="$root/target/release/libslog2.so"
export MPLBACKEND=Agg
# Run from a temporary directory against the *installed* package (pip install
# ./python), with the tests read from the repo.
cd "$(mktemp -d)"
exec "$py" -m pytest -q -p no:cacheprovider --rootdir "$root/python" \
  -c "$root/python/pyproject.toml" "$root/python/tests" "$@"
