"""The same facts as every other door (the library's one count definition), the
moving window (File.cursor), scans over a time range done by the library, and the
edges a new user meets: errors that say what to do, clipped window durations."""

import gzip
import math

import numpy as np
import pytest

import slog2
from conftest import SHARED, cli_json, run_cli

DATA = SHARED / "trace-sample" / "data.slog2"


def test_counts_equal_info_json_and_follow_the_definition():
    info = cli_json("info", DATA, "--json")
    with slog2.open(DATA) as f:
        c = f.counts()
        assert (c.drawables, c.composites, c.members, c.primitives, c.rows) == (9, 3, 14, 20, 23)
        for k in ("drawables", "composites", "members", "primitives", "rows"):
            assert getattr(c, k) == info["counts"][k], k
        assert slog2.COUNT_DEFINITION == info["counts"]["definition"]
        assert str(c) == "9 drawables (3 composites with 14 members), 20 primitives, 23 rows"
        assert f.drawable_count == 9
        for j in info["categories"]:
            cc = c.by_category[j["index"]]
            assert (cc.drawables, cc.members, cc.stored) == (j["drawables"], j["members"], j["count"])
        # The composite category: counted 3, stored 0 (the reference's).
        assert (c.by_category[183].drawables, c.by_category[183].stored) == (3, 0)
        assert f.category(183).count == 0
        # Every table of the whole file has `rows` rows; members carry their parent.
        w = f.window(*f.total_time)
        assert len(w) == c.rows
        df = w.to_pandas()
        assert int((df["parent"] >= 0).sum()) == c.members
        assert len(df) == sum(len(b) for b in f.scan(rows_per_window=4))


def test_csv_rows_are_the_rows_of_python():
    with slog2.open(DATA) as f:
        w = f.window(*f.total_time)
        lines = run_cli("query", DATA, "--format", "csv").stdout.splitlines()
        head = lines[0].split(",")
        rows = [dict(zip(head, ln.split(","))) for ln in lines[1:]]
        assert len(rows) == len(w)
        for i, r in enumerate(rows):
            assert int(r["row"]) == i
            assert int(r["parent"]) == w.parent[i]
            assert int(r["num_real"]) == w.num_real[i]
            assert int(r["category"]) == w.category[i]


def test_cursor_moves_give_the_rows_of_windows(synth_file):
    with slog2.open(synth_file) as f, f.cursor() as c:
        a, b = f.total_time
        span = (b - a) / 200
        t0 = a + (b - a) * 0.2
        cols = ("kind", "category", "start", "end", "time0", "time1", "line0", "line1", "num_real")

        def table(r):
            x = np.rec.fromarrays([getattr(r, k) for k in cols], names=cols)
            return np.sort(x, order=list(cols))

        decoded = []
        for k in range(12):  # scroll right by a quarter window, then a jump
            lo = t0 + k * span / 4 if k < 11 else a + (b - a) * 0.7
            got = c.move(lo, lo + span)
            want = f.window(lo, lo + span)
            assert len(got) == len(want) > 0
            assert np.array_equal(table(got), table(want))
            decoded.append(got.bytes_read)
        # A scroll decodes only the entering quarter (now and then the next chunk of
        # a node the cursor holds): at the median far less than a fresh query.
        assert float(np.median(decoded[1:11])) < decoded[0] / 2
    with pytest.raises(slog2.ArgumentError, match="closed"):
        c.move(a, b)


def test_cursor_reports_a_bad_window():
    with slog2.open(DATA) as f, f.cursor() as c:
        with pytest.raises(slog2.ArgumentError, match="not a number"):
            c.move(math.nan, 1.0)
        assert len(c.move(*f.total_time)) == 23


def test_range_scans_cover_the_file_once_through_the_library(synth_file, monkeypatch):
    from slog2 import _lib

    calls = []
    real = _lib.lib.SLOG2_Query_window
    monkeypatch.setattr(_lib.lib, "SLOG2_Query_window", lambda *x: calls.append(1) or real(*x))
    with slog2.open(synth_file) as f:
        a, b = f.total_time
        cuts = np.linspace(a, b, 5)
        n = 0
        for k in range(4):
            lo = float(cuts[k]) if k == 0 else float(np.nextafter(cuts[k], math.inf))
            for part in f.scan(rows_per_window=30000, t0=lo, t1=float(cuts[k + 1])):
                assert np.all((part.end >= lo) & (part.end <= cuts[k + 1]))
                assert (part.t0, part.t1) == (lo, float(cuts[k + 1]))
                n += len(part)
        assert n == f.counts().rows
    assert calls == [], "the range scan is the library's, not windows stepped in Python"


@pytest.mark.parametrize("kw, match", [
    (dict(t0=math.nan), "not a number"),
    (dict(t0=2.0, t1=1.0), "empty or not a number"),
    (dict(rows_per_window=0), "rows_per_window must be >= 1"),
    (dict(rows_per_window=-5, t0=0.0), "rows_per_window must be >= 1"),
])
def test_bad_scan_arguments_are_argument_errors(kw, match):
    with slog2.open(DATA) as f:
        with pytest.raises(slog2.ArgumentError, match=match):
            f.scan(**kw)


def test_clipped_durations_stay_inside_the_window():
    with slog2.open(DATA) as f:
        t0, t1 = 0.002, 0.0025
        df = f.window(t0, t1).to_pandas(clip=True)
        whole = f.window(t0, t1).to_pandas()
        assert (df["duration"] <= t1 - t0 + 1e-15).all()
        assert (df["duration"] >= 0).all()
        assert whole["duration"].max() > t1 - t0  # unclipped: whole states
        states = df[(df["topology"] == "state") & (df["parent"] < 0)]
        per_line = states.groupby("line0")["duration"].sum()
        assert (per_line <= (t1 - t0) * 4 + 1e-15).all()


def test_opening_a_trace_that_needs_converting_says_how(tmp_path):
    for p, what in ((SHARED / "clog2" / "threads.clog2", "an MPE CLOG2 log"),
                    (SHARED / "trace-sample" / "data.txt", "a trace in slog2sdk's text format")):
        with pytest.raises(slog2.FormatError, match="convert it first") as e:
            slog2.open(p)
        assert what in str(e.value) and "slog2 convert" in str(e.value)


def test_trace_open_on_something_that_is_no_trace_fails(tmp_path):
    plain = tmp_path / "notes.txt"
    plain.write_text("hello\nthis is not a trace\n")
    blob = tmp_path / "blob.dat"
    blob.write_bytes(bytes(range(256)) * 8)
    gz = tmp_path / "data.txt.gz"
    gz.write_bytes(gzip.compress((SHARED / "trace-sample" / "data.txt").read_bytes()))
    for p in (plain, blob, gz):
        # the CLI refuses it...
        r = run_cli("convert", p, "-o", tmp_path / "x.slog2", check=False)
        assert r.returncode == 1 and "no drawable" in r.stderr
        # ...and so does Python, instead of yielding nothing
        with pytest.raises(slog2.trace.TraceError, match="no drawable found"):
            list(slog2.trace.open(p))
    assert len(list(slog2.trace.open(SHARED / "trace-sample" / "data.txt"))) > 9


def test_writer_names_a_nan_time(tmp_path):
    for call in (lambda w, c: w.state(c, math.nan, 1.0, 0),
                 lambda w, c: w.state(c, 0.0, math.nan, 0),
                 lambda w, c: w.event(c, math.nan, 0)):
        with pytest.raises(slog2.InvalidDrawableError, match="vertex time is not finite"):
            with slog2.Writer(tmp_path / "nan.slog2") as w:
                c = w.category("S", "state", (255, 0, 0))
                call(w, c)
        assert not (tmp_path / "nan.slog2").exists()


def test_the_readme_example_is_the_file_and_runs(tmp_path):
    """The README's Python block is python/examples/quickstart.py, and it runs on the
    bundled example (converted as the README says) in the current interpreter."""
    import re
    import subprocess
    import sys

    from conftest import BIN, REPO

    text = (REPO / "README.md").read_text()
    block = re.search(r"<!-- python-example-begin -->\n```python\n(.*?)```\n<!-- python-example-end -->",
                      text, re.S)
    assert block, "README has no python example between its markers"
    script = REPO / "python" / "examples" / "quickstart.py"
    assert block.group(1) == script.read_text()
    demo = tmp_path / "demo.slog2"
    run_cli("convert", REPO / "examples" / "demo.txt", "-o", demo)
    r = subprocess.run([sys.executable, str(script), str(demo)], cwd=tmp_path, capture_output=True,
                       text=True, env={**__import__("os").environ, "MPLBACKEND": "Agg"})
    assert r.returncode == 0, r.stderr
    assert "1500 drawables" in r.stdout and "MPI_Send" in r.stdout, r.stdout
    assert (tmp_path / "demo.png").stat().st_size > 1000
    assert BIN.exists()
