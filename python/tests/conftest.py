"""Shared paths and helpers. The suite must run, not skip: a missing library,
binary or fixture folder is a failure, and any skipped test fails the session."""

import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("SLOG2_SHARED", REPO.parent / "shared")) / "fixtures"
BIN = Path(os.environ.get("SLOG2_BIN", REPO / "target" / "release" / "slog2"))
os.environ.setdefault("SLOG2_LIB", str(REPO / "target" / "release" / "libslog2.so"))

for what, p in (("fixtures", SHARED), ("slog2 binary", BIN), ("library", Path(os.environ["SLOG2_LIB"]))):
    if not p.exists():
        raise RuntimeError(f"python tests: {what} not found at {p} (run `cargo build --release`, "
                           f"keep ../shared beside the repo)")

SLOG2_FILES = sorted(SHARED.rglob("*.slog2"))
TEXT_TRACES = sorted(p for p in (SHARED / "trace-sample").glob("*.txt")
                     if not p.name.endswith("print.txt") and p.with_suffix(".trace_print.txt").exists())
assert len(SLOG2_FILES) >= 10 and len(TEXT_TRACES) >= 3, "fixtures missing"


def run_cli(*args, check=True) -> subprocess.CompletedProcess:
    r = subprocess.run([str(BIN), *map(str, args)], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise AssertionError(f"slog2 {' '.join(map(str, args))}: exit {r.returncode}: {r.stderr}")
    return r


def cli_json(*args):
    return json.loads(run_cli(*args).stdout)


def fixture_id(p: Path) -> str:
    return str(p.relative_to(SHARED))


_skipped = []


def pytest_runtest_logreport(report):
    if report.skipped:
        _skipped.append(report.nodeid)


def pytest_sessionfinish(session, exitstatus):
    if _skipped and session.exitstatus == 0:
        print(f"\nerror: {len(_skipped)} test(s) skipped; a skipped suite is not a passing one")
        session.exitstatus = 1


@pytest.fixture(scope="session")
def synth_file(tmp_path_factory):
    """A 300 000-drawable synthetic file (slog2 bench write): deep tree, composites-free."""
    p = tmp_path_factory.mktemp("synth") / "synth.slog2"
    run_cli("bench", "write", "300000", "-o", p)
    return p
