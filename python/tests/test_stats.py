"""Statistics (issue #30) from Python: every DataFrame equals the CLI's JSON (the
core without the C layer) on every fixture, and an independent brute force in
numpy/pandas from the drawables the scan returns (nesting by a stack per line,
message sizes from the payload bytes); windows clipped and whole; histograms,
their instances; time profile; comparisons; errors; pictures."""

import math
import os
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import matplotlib.image as mpimg  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import slog2  # noqa: E402
from conftest import SHARED, SLOG2_FILES, cli_json, fixture_id  # noqa: E402


def close(a, b, rel=1e-9):
    if (a is None or (isinstance(a, float) and math.isnan(a))) and (
            b is None or (isinstance(b, float) and math.isnan(b))):
        return True
    return abs(a - b) <= rel * (1 + max(abs(a), abs(b)))


@pytest.fixture(params=SLOG2_FILES, ids=fixture_id)
def path(request):
    return request.param


def _jrows(*args):
    return cli_json("stats", *map(str, args), "--format", "json")["rows"]


def test_profile_comm_idle_imbalance_equal_the_cli(path):
    with slog2.open(path) as f:
        for by_line in (False, True):
            df = f.profile(by_line=by_line)
            want = _jrows(path, "profile", *(["--by-line"] if by_line else []))
            assert len(df) == len(want)
            for (_, r), j in zip(df.iterrows(), want):
                assert r["category"] == j["category"] and r["name"] == j["name"]
                assert r["count"] == j["count"]
                if by_line:
                    assert r["line"] == j["line"]
                for c in ("inclusive", "exclusive", "min", "mean", "max"):
                    assert close(r[c], j[c]), (c, r[c], j[c])
        cm = f.comm_matrix()
        want = _jrows(path, "comm")
        assert len(cm) == len(want)
        for (_, r), j in zip(cm.iterrows(), want):
            assert (r["from_line"], r["to_line"], r["category"], r["count"]) == (
                j["from_line"], j["to_line"], j["category"], j["count"])
            assert (pd.isna(r["bytes"]) and j["bytes"] is None) or r["bytes"] == j["bytes"]
        idle = f.idle_time(wait=["MPI_W*"])
        want = _jrows(path, "idle", "--wait", "MPI_W*")
        assert list(idle["line"]) == [j["line"] for j in want]
        for c in ("idle", "no_state", "wait"):
            assert all(close(a, j[c]) for a, j in zip(idle[c], want))
        imb = f.load_imbalance(top=2)
        want = _jrows(path, "imbalance", "--top", "2")
        assert list(imb["category"]) == [j["category"] for j in want]
        for (_, r), j in zip(imb.iterrows(), want):
            assert close(r["ratio"], j["ratio"])
            assert r["worst_lines"] == [w["line"] for w in j["worst"]]


def _states_rows(f):
    """Every primitive of the file (scan), as a DataFrame with the topology."""
    parts = [r.to_pandas(text=False) for r in f.scan()]
    df = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    if len(df):
        df = df[df["kind"] == "primitive"].reset_index(drop=True)
        infos = []
        for r in f.scan():
            for i in np.flatnonzero(r.kind == 0):
                infos.append(r.info_of(int(i)))
        df["info"] = infos
    return df


def _brute_profile(f, t0, t1, clip):
    """count/inclusive/exclusive per category by definition: nesting by a stack per
    line over the states in drawing order (start asc, end desc, category, ...)."""
    d = _states_rows(f)
    sel = (d["start"] <= t1) & (d["end"] >= t0)
    dur = (np.minimum(d["end"], t1) - np.maximum(d["start"], t0)).clip(lower=0) if clip else d["end"] - d["start"]
    d = d.assign(sel=sel, dur=dur)
    out = {}
    for c, g in d[d.sel].groupby("category"):
        out[c] = [len(g), g["dur"].sum(), g["dur"].sum() if (g["topology"] != "state").all() else 0.0]
    st = d[d["topology"] == "state"].sort_values(["line0", "start", "end", "category", "line1"],
                                                  ascending=[True, True, False, True, True])
    excl = {}
    for _, g in st.groupby("line0"):
        stack = []
        for s, e, c, sl, du in zip(g["start"], g["end"], g["category"], g["sel"], g["dur"]):
            while stack and not (stack[-1][0] <= s and e <= stack[-1][1]):
                stack.pop()
            if sl:
                excl[c] = excl.get(c, 0.0) + du
                if stack:
                    excl[stack[-1][2]] = excl.get(stack[-1][2], 0.0) - du
            stack.append((s, e, c))
    for c, x in excl.items():
        out.setdefault(c, [0, 0.0, 0.0])[2] = x
    return out


@pytest.mark.parametrize("clip", [True, False])
def test_profile_equals_brute_force(synth_file, clip):
    small = [p for p in SLOG2_FILES if os.path.getsize(p) < 3_000_000][:6]
    for p in small + [synth_file]:
        with slog2.open(p) as f:
            a, b = f.total_time
            for t0, t1 in ((a, b), (a + (b - a) * 0.3, a + (b - a) * 0.55)):
                df = f.profile(t0, t1, whole=not clip)
                want = _brute_profile(f, t0, t1, clip)
                got = {r.category: r for r in df.itertuples()}
                for c, (n, inc, exc) in want.items():
                    if n == 0:
                        continue
                    assert got[c].count == n, (p, c)
                    assert close(got[c].inclusive, inc, 1e-7), (p, c)
                    assert close(got[c].exclusive, exc, 1e-7), (p, c, got[c].exclusive, exc)


def test_comm_matrix_equals_brute_force(synth_file):
    with slog2.open(synth_file) as f:
        d = _states_rows(f)
        arrows = d[d["topology"] == "arrow"]
        size = [int.from_bytes(i[4:8], "big", signed=True) if len(i) >= 8 else -1 for i in arrows["info"]]
        arrows = arrows.assign(size=size)
        want = arrows.groupby(["line0", "line1", "category"]).agg(count=("size", "size"), bytes=("size", "sum"))
        cm = f.comm_matrix().set_index(["from_line", "to_line", "category"])
        assert len(cm) == len(want)
        for k, r in want.iterrows():
            assert cm.loc[k, "count"] == r["count"]
            assert cm.loc[k, "bytes"] == r["bytes"]
        sq = f.comm_matrix(values="count")
        assert sq.shape[0] == sq.shape[1] and sq.to_numpy().sum() == len(arrows)


def test_histograms_and_instances(synth_file):
    with slog2.open(synth_file) as f:
        d = _states_rows(f)
        dur = (d.loc[d["name"] == "MPI_Send", "end"] - d.loc[d["name"] == "MPI_Send", "start"]).to_numpy()
        h = f.histogram("MPI_Send", 16)
        e = h.attrs["edges"]
        assert e[0] == dur.min() and e[-1] == dur.max()
        idx = np.clip(np.searchsorted(e, dur, side="right") - 1, 0, 15)
        assert list(h["count"]) == list(np.bincount(idx, minlength=16))
        assert h.attrs["below"] == h.attrs["above"] == 0
        # Cut-offs: outliers on both sides; log bins.
        lo, hi = np.quantile(dur, [0.1, 0.9])
        c = f.histogram("MPI_Send", 8, lo=lo, hi=hi, log=True)
        assert c.attrs["below"] == int((dur < lo).sum()) and c.attrs["above"] == int((dur > hi).sum())
        assert int(c["count"].sum()) + c.attrs["below"] + c.attrs["above"] == len(dur)
        assert np.allclose(np.diff(np.log(c.attrs["edges"])), np.log(hi / lo) / 8)
        # The instances of the last bar: the longest MPI_Send, sorted by start.
        inst = f.histogram_instances(h, 15, limit=5)
        assert inst.attrs["total"] == h["count"].iloc[-1]
        assert (inst["value"] >= e[15]).all() and list(inst["start"]) == sorted(inst["start"])
        assert set(inst["name"]) == {"MPI_Send"}
        below = f.histogram_instances(c, -1, limit=3)
        assert below.attrs["total"] == c.attrs["below"] and (below["value"] < lo).all()
        # Message sizes: every arrow has msg_size.
        m = f.message_histogram(10)
        assert int(m["count"].sum()) + m.attrs["below"] + m.attrs["above"] == int((d["topology"] == "arrow").sum())
        mi = f.histogram_instances(m, 9, limit=2)
        assert all("msg_size=" in t for t in mi["text"])
        with pytest.raises(KeyError):
            f.histogram("no such category")
        with pytest.raises(ValueError):
            f.histogram("MPI_Send", 0)


def test_time_profile_and_comparisons(synth_file):
    with slog2.open(synth_file) as f:
        tp = f.time_profile(10)
        assert list(tp.columns[:2]) == ["start", "end"] and len(tp) == 10
        want = _jrows(synth_file, "timeprofile", "--slices", "10")
        got = {(int(k), n): v for k, row in tp.iterrows() for n, v in row.items() if n not in ("start", "end")}
        for j in want:
            assert close(got[(j["slice"], j["name"])], j["time"])
        # Inclusive state time over the whole file = the profile's.
        prof = f.profile().set_index("name")
        for n in tp.columns[2:]:
            assert close(tp[n].sum(), prof.loc[n, "inclusive"], 1e-6)
        same = slog2.compare(f, f)
        assert (same["inclusive_diff"] == 0).all() and (same["count_diff"] == 0).all()
        a = SHARED / "clog2" / "big_stencil.slog2"
        b = SHARED / "clog2" / "threads.slog2"
        cmp = slog2.compare(a, b)
        want = cli_json("diff", a, b, "--format", "json")["rows"]
        assert list(cmp["name"]) == [j["name"] for j in want]
        for (_, r), j in zip(cmp.iterrows(), want):
            assert r["count_diff"] == j["count_diff"]
            assert close(r["exclusive_rel"], j["exclusive_rel"])
        ct = slog2.compare_time_profiles(a, a, 5)
        assert (ct["diff"] == 0).all() and len(ct) == 5 * len(set(ct["name"]))


def test_partition_frames_hold_each_drawable_once(synth_file):
    with slog2.open(synth_file) as f:
        e = f.partition_edges(7)
        assert np.isneginf(e[0]) and np.isposinf(e[-1]) and (np.diff(e[1:-1]) >= 0).all()
        parts = [f.partition_frame(e[k], e[k + 1]) for k in range(7)]
        for k, p in enumerate(parts):
            assert ((p["start"] >= e[k]) & (p["start"] < e[k + 1])).all()
        allp = pd.concat(parts, ignore_index=True)
        whole = f.partition_frame(-np.inf, np.inf)
        key = ["kind", "category", "start", "end", "line0", "line1"]
        pd.testing.assert_frame_equal(allp[key].sort_values(key).reset_index(drop=True),
                                      whole[key].sort_values(key).reset_index(drop=True))
        assert len(whole) == sum(len(r) for r in f.scan())


def test_errors_are_the_library_errors(synth_file):
    f = slog2.open(synth_file)
    with pytest.raises(slog2.ArgumentError, match="empty"):
        f.profile(2.0, 1.0)
    with pytest.raises(ValueError):
        f.partition_edges(0)
    f.close()
    with pytest.raises(slog2.ClosedError):
        f.profile()


def test_the_package_does_not_need_dask():
    code = ("import sys; sys.modules['dask'] = None; sys.modules['distributed'] = None\n"
            "import slog2, slog2.plot\n"
            f"f = slog2.open({str(SLOG2_FILES[0])!r}); f.profile(); f.comm_matrix()\n"
            "try:\n    import slog2.dask\nexcept ImportError as e:\n    print('ImportError', e)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "ImportError" in r.stdout and 'pip install "slog2[dask]"' in r.stdout


def _colours(png):
    img = mpimg.imread(png)[:, :, :3]
    return img.reshape(-1, 3)


def test_pictures(tmp_path, synth_file):
    import slog2.plot as P

    with slog2.open(synth_file) as f:
        out = tmp_path / "heat.png"
        P.comm_heatmap(f, output=str(out))
        px = _colours(out)
        # viridis cells: many distinct coloured pixels, the diagonal blank
        assert len(np.unique((px * 255).astype(int), axis=0)) > 50
        out = tmp_path / "tp.png"
        P.time_profile(f, 20, output=str(out))
        px = (_colours(out) * 255).round().astype(int)
        for name in ("Compute", "MPI_Send", "Phase"):
            rgb = np.array(f.category(f._category_index(name)).color[:3])
            assert (np.abs(px - rgb).sum(axis=1) <= 3).sum() > 200, name
        out = tmp_path / "hist.png"
        P.histogram(f, "MPI_Recv", 20, log=True, output=str(out))
        rgb = np.array(f.category(f._category_index("MPI_Recv")).color[:3])
        assert (np.abs((_colours(out) * 255).round().astype(int) - rgb).sum(axis=1) <= 3).sum() > 500
        out = tmp_path / "msg.png"
        P.message_histogram(f, 20, output=str(out))
        assert out.stat().st_size > 5000
