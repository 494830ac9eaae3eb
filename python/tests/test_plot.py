"""Pictures: a timeline PNG has the category colours at the expected pixels;
the console entry point and the duration histogram produce images."""

import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import matplotlib.image as mpimg  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import slog2  # noqa: E402
import slog2.plot as P  # noqa: E402
from conftest import REPO, SHARED  # noqa: E402


def _seg_dist(p, a, b):
    ab = b - a
    t = 0.0 if not ab.any() else np.clip(np.dot(p - a, ab) / np.dot(ab, ab), 0, 1)
    return np.linalg.norm(p - (a + t * ab))


def expected_pixels(f, rows, ax, height):
    """(px, py, rgb) at the centre of each state's visible part: the deepest
    nested state covering that point, away from arrows and events."""
    shape = np.array([f.category(int(c)).shape if int(c) in f._by_index else -1 for c in rows.category])
    real = rows.kind != 2
    st = np.flatnonzero(real & (shape == 1))
    ypos, _labels = P._rows_of(f, rows, "auto")
    yrow = np.array([ypos[int(v)] for v in rows.line0], np.intc)
    depth = np.zeros(len(rows), int)
    depth[st] = P._nest_depth(yrow[st], rows.start[st], rows.end[st])
    tr = ax.transData
    arrows = [(tr.transform((rows.time0[i], ypos[int(rows.line0[i])])),
               tr.transform((rows.time1[i], ypos[int(rows.line1[i])])))
              for i in np.flatnonzero(shape == 2)]
    events = [tr.transform((rows.time0[i], ypos[int(rows.line0[i])])) for i in np.flatnonzero(shape == 0)]
    out = []
    for i in st:
        x = 0.5 * (rows.start[i] + rows.end[i])
        y = ypos[int(rows.line0[i])]
        cover = [j for j in st if yrow[j] == yrow[i] and rows.start[j] <= x <= rows.end[j]]
        top = max(cover, key=lambda j: (depth[j], list(st).index(j)))
        if top != i:
            continue
        # the visible part must be wide enough and not touched by a nested state
        x0, x1 = tr.transform((rows.start[i], y))[0], tr.transform((rows.end[i], y))[0]
        hpx = abs(tr.transform((x, y + 0.4 * 0.7 ** depth[i]))[1] - tr.transform((x, y))[1])
        if x1 - x0 < 6 or hpx < 4:
            continue
        xl_, xr_ = tr.inverted().transform([(tr.transform((x, y))[0] - 4, 0),
                                            (tr.transform((x, y))[0] + 4, 0)])[:, 0]
        near_child = any(yrow[j] == yrow[i] and (depth[j], j) > (depth[i], i)
                         and rows.start[j] <= xr_ and rows.end[j] >= xl_ for j in st)
        if near_child:
            continue
        p = tr.transform((x, y))
        if any(_seg_dist(p, a, b) < 5 for a, b in arrows) or any(np.linalg.norm(p - e) < 12 for e in events):
            continue
        xl, xr = ax.get_xlim()
        if not (xl < x < xr):
            continue
        c = f.category(int(rows.category[i])).color[:3]
        out.append((int(round(p[0])), int(round(height - p[1])), c, int(i)))
    return out


@pytest.mark.parametrize("name,t0,t1", [("trace-sample/data.slog2", None, None),
                                         ("trace-sample/barrier.slog2", None, None),
                                         ("clog2/user_states.slog2", None, None),
                                         ("trace-sample/barrier.slog2", 0.003, 0.0045)])
def test_timeline_has_category_colours_at_state_pixels(tmp_path, name, t0, t1):
    png = tmp_path / "t.png"
    with slog2.open(SHARED / name) as f:
        fig = P.timeline(f, t0, t1, output=png, depth=None, dpi=100)
        a, b = f.total_time
        rows = f.window(a if t0 is None else t0, b if t1 is None else t1)
        img = mpimg.imread(png)
        h, w = img.shape[:2]
        assert (w, h) == (1200, 600)
        checks = expected_pixels(f, rows, fig.axes[0], h)
        assert len(checks) >= 3, "too few isolated states to check"
        bad = []
        for x, y, c, i in checks:
            got = tuple(int(round(v * 255)) for v in img[y, x, :3])
            if max(abs(g - e) for g, e in zip(got, c)) > 2:
                bad.append((i, (x, y), c, got))
        assert not bad, f"{len(bad)} of {len(checks)} pixels wrong: {bad[:5]}"
        # the background between two timelines is Jumpshot black
        ax = fig.axes[0]
        gap = ax.transData.transform((0.5 * sum(ax.get_xlim()), 0.5))
        assert tuple(img[int(round(h - gap[1])), int(round(gap[0])), :3]) == (0, 0, 0)
    import matplotlib.pyplot as plt

    plt.close("all")


def test_preview_draws_shadows_with_weight_colours(tmp_path, synth_file):
    png = tmp_path / "p.png"
    with slog2.open(synth_file) as f:
        fig = P.timeline(f, output=png, max_rows=2000)
        title = fig.axes[0].get_title()
        assert "preview depth" in title
        depth = int(title.split("preview depth ")[1].rstrip(")"))
        rows = f.preview(*f.total_time, depth)
        assert np.sum(rows.kind == 2) > 0 and len(rows) <= 2000
        img = (mpimg.imread(png)[:, :, :3] * 255).round().astype(int)
        # every category carried by a state shadow's weights shows up in the picture
        w = rows.weights
        cats = {int(c) for c, r in zip(w.category, w.row)
                if f.category(int(rows.category[r])).topology == "state"}
        colours = {tuple(c) for c in img.reshape(-1, 3)[::7]}
        for c in cats:
            rgb = f.category(c).color[:3]
            assert rgb in colours, f"category {f.category(c).name} colour {rgb} not drawn"
    import matplotlib.pyplot as plt

    plt.close("all")


def test_cli_plot_and_durations(tmp_path):
    out = tmp_path / "cli.png"
    env_py = [sys.executable, "-m", "slog2"]
    r = subprocess.run(env_py + ["plot", str(SHARED / "trace-sample" / "data.slog2"), "--from", "0.001",
                                 "--to", "0.005", "-o", str(out)], capture_output=True, text=True,
                       cwd=REPO / "python")
    assert r.returncode == 0, r.stderr
    img = mpimg.imread(out)
    assert img.shape[:2] == (600, 1200)
    # BARRIER yellow and SEND blue are in the picture
    px = {tuple(c) for c in (img[:, :, :3] * 255).round().astype(int).reshape(-1, 3)}
    assert (255, 255, 0) in px and (0, 0, 255) in px
    d = tmp_path / "d.png"
    r = subprocess.run(env_py + ["durations", str(SHARED / "trace-sample" / "barrier.slog2"),
                                 "MPIDI_CH3_Progress", "-o", str(d)], capture_output=True, text=True,
                       cwd=REPO / "python")
    assert r.returncode == 0, r.stderr
    assert mpimg.imread(d).shape[0] > 100
    r = subprocess.run(env_py + ["plot", str(tmp_path / "missing.slog2"), "-o", str(out)],
                       capture_output=True, text=True, cwd=REPO / "python")
    assert r.returncode == 1 and "No such file" in r.stderr


def test_durations_histogram_counts():
    with slog2.open(SHARED / "trace-sample" / "barrier.slog2") as f:
        cat = next(c for c in f.categories if c.name == "MPIDI_CH3_Progress")
        fig = P.durations(f, cat.name)
        bars = fig.axes[0].patches
        assert sum(int(b.get_height()) for b in bars) == cat.count
    import matplotlib.pyplot as plt

    plt.close("all")


def test_rows_are_labelled_from_a_y_map(tmp_path):
    """Rows come from the chosen y-map (lines with equal values share a row), not raw
    line IDs; an empty window warns with the file's range."""
    import matplotlib.pyplot as plt

    with slog2.open(SHARED / "trace-sample" / "data.slog2") as f:
        fig = P.timeline(f, depth=None)
        ax = fig.axes[0]
        assert [t.get_text() for t in ax.get_yticklabels()] == [
            "label1 0 label2 0", "label1 0 label2 1", "label1 0 label2 2", "label1 1 label2 0",
            "label1 1 label2 1"]
        assert ax.get_ylabel() == "ThreadView"
        fig = P.timeline(f, depth=None, ymap="ProcessorView")
        assert [t.get_text() for t in fig.axes[0].get_yticklabels()][:2] == [
            "lblA 0 labelB 0 lblCC 0", "lblA 0 labelB 0 lblCC 1"]
        fig = P.timeline(f, depth=None, ymap=None)
        assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["0", "1", "2", "3", "4"]
        with pytest.raises(KeyError, match="its y-maps are 'ThreadView'"):
            P.timeline(f, ymap="nope")
        with pytest.warns(UserWarning, match=r"no drawables in the window \[0.1, 0.2\]; the file spans "
                                             r"\[0.0005, 0.008\] s"):
            P.timeline(f, 0.1, 0.2)
    # a many-to-one map: the two lines of one value path share one row
    path = tmp_path / "m.slog2"
    with slog2.Writer(path) as w:
        c = w.category("S", "state", (255, 0, 0))
        for line in range(4):
            w.state(c, 0.0, 1.0 + line, line)
        w.ymap("Process View", ["rank"], [[0, 0], [1, 0], [2, 1], [3, 1]])
    with slog2.open(path) as f:
        ypos, labels = P._rows_of(f, f.window(*f.total_time), "auto")
        assert labels == ["rank 0", "rank 1"]
        assert ypos == {0: 0, 1: 0, 2: 1, 3: 1}
    r = subprocess.run([sys.executable, "-m", "slog2", "plot", str(SHARED / "trace-sample" / "data.slog2"),
                        "--from", "0.1", "--to", "0.2", "-o", str(tmp_path / "e.png")],
                       capture_output=True, text=True, cwd=REPO / "python")
    assert r.returncode == 0 and "no drawables in the window [0.1, 0.2]" in r.stderr, r.stderr
    plt.close("all")
