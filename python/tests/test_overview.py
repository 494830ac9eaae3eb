"""File.overview and slog2.plot.overview: the numpy cube against a brute-force sum
of the window's states, the parts tiling slices (temporal) or lines x slices
(spatiotemporal), the curve, set_p, the pictures written; the cube cache (the default)."""

import numpy as np
import pytest

import slog2
from conftest import SHARED


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch):
    """Every test's cube cache in its own directory (never the user's)."""
    d = tmp_path / "cache"
    monkeypatch.setenv("SLOG2_CACHE_DIR", str(d))
    return d


@pytest.fixture
def demo():
    with slog2.open(SHARED / "trace-sample" / "data.slog2") as f:
        yield f


def brute_cube(f, ov):
    rows = f.window(ov.t0, ov.t1)
    cube = np.zeros((len(ov.lines), ov.slices, len(ov.categories)))
    lines = {int(x): i for i, x in enumerate(ov.lines)}
    cats = {int(x): i for i, x in enumerate(ov.categories)}
    edges = ov.t0 + np.arange(ov.slices + 1) * (ov.t1 - ov.t0) / ov.slices
    edges[-1] = ov.t1
    for i in range(len(rows)):
        if rows.kind[i] != 0 or int(rows.category[i]) not in cats:
            continue
        s, e = rows.start[i], rows.end[i]
        ov_ = np.minimum(e, edges[1:]) - np.maximum(s, edges[:-1])
        cube[lines[int(rows.line0[i])], :, cats[int(rows.category[i])]] += np.clip(ov_, 0, None)
    return cube


def test_temporal_overview(demo, tmp_path):
    ov = demo.overview(12, bisect=0.001, cache=False)
    assert (ov.t0, ov.t1) == demo.total_time
    assert ov.exact and not ov.from_cache
    assert ov.cube.shape == (len(ov.lines), 12, len(ov.categories))
    assert np.allclose(ov.cube, brute_cube(demo, ov), rtol=1e-9, atol=1e-12)
    parts = ov.parts
    assert parts["first"].iloc[0] == 0 and parts["last"].iloc[-1] == 11
    assert (parts["first"].to_numpy()[1:] == parts["last"].to_numpy()[:-1] + 1).all()
    assert list(ov.curve["p"]) == sorted(ov.curve["p"])
    assert ov.curve["parts"].iloc[-1] == 1
    assert ov.p in list(ov.curve["p"])
    # Per-category values: mean over the part of the lines' sum per slice.
    first, last = int(parts["first"].iloc[0]), int(parts["last"].iloc[0])
    name = ov.category_names[0]
    want = ov.cube[:, first:last + 1, 0].sum() / (last - first + 1)
    assert parts[name].iloc[0] == pytest.approx(want)
    assert len(ov.set_p(1.0).parts) == 1
    ax = slog2.plot.overview(ov, output=str(tmp_path / "t.png"))
    assert (tmp_path / "t.png").stat().st_size > 1000
    assert len(ax.patches) >= len(ov.parts)


def test_spatiotemporal_overview(demo, tmp_path):
    ov = demo.overview(6, spatiotemporal=True, hierarchy="fanout:2", p=0.3, metric="count")
    h = ov.hierarchy
    assert h["parent"].iloc[0] == -1
    assert sorted(h["lines"].iloc[0]) == sorted(int(x) for x in ov.lines)
    cover = np.zeros((len(ov.lines), 6), int)
    pos = {int(x): i for i, x in enumerate(ov.lines)}
    for p in ov.parts.itertuples():
        for line in h["lines"].iloc[p.node]:
            cover[pos[line], p.first:p.last + 1] += 1
    assert (cover == 1).all()
    assert ov.cube.sum() > 0 and float(ov.cube.sum()).is_integer()
    slog2.plot.overview(ov, output=str(tmp_path / "s.png"))
    assert (tmp_path / "s.png").stat().st_size > 1000
    with pytest.raises(slog2.ArgumentError):
        demo.overview(6, spatiotemporal=True, hierarchy="no such map")
    with pytest.raises(slog2.ArgumentError):
        demo.overview(0)


def test_cache_is_the_default(demo, cache_dir):
    exact = demo.overview(10, cache=False)
    first = demo.overview(10)
    again = demo.overview(10)
    assert not first.from_cache and again.from_cache
    assert list(cache_dir.iterdir()), "the cache file is written"
    # 10 slices of the whole range fall on cached edges: exact, the same cube.
    assert first.exact and again.exact
    assert np.allclose(again.cube, exact.cube, rtol=1e-9, atol=1e-15)
    # 7 slices do not: proportionally split, and said so.
    assert not demo.overview(7).exact
    # Slices finer than the cached ones read the drawables: exact.
    t0, t1 = demo.total_time
    fine = demo.overview(5, t0=t0, t1=t0 + (t1 - t0) / 2000)
    assert fine.exact and not fine.from_cache
