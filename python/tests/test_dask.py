"""slog2.dask on a real dask.distributed LocalCluster of 2 worker processes:
every distributed result equals the single-process one (counts exactly, times
within float summation order), each drawable is read exactly once across the
time partitions, and a study of several files reduces to one table."""

import os

import numpy as np
import pandas as pd
import pytest

import slog2
from conftest import SHARED, run_cli

# Imported for real: the venv of scripts/python-tests.sh has the Dask extras, and
# a missing Dask must fail the suite, not skip it.
import dask  # noqa: E402
from dask.distributed import Client, LocalCluster  # noqa: E402

import slog2.dask as sd  # noqa: E402


@pytest.fixture(scope="module")
def client():
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    c = Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.fixture(scope="module")
def synth(tmp_path_factory):
    p = tmp_path_factory.mktemp("dask") / "s.slog2"
    run_cli("bench", "write", "120000", "-o", p)
    return str(p)


def close(a, b, rel=1e-9):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return np.allclose(a, b, rtol=rel, atol=1e-12, equal_nan=True)


def test_the_cluster_has_two_worker_processes(client, synth):
    info = client.scheduler_info()["workers"]
    assert len(info) >= 2
    pids = client.run(os.getpid)
    assert len(set(pids.values())) >= 2 and os.getpid() not in pids.values()
    # The partitions of one file run on both workers.
    tasks = [dask.delayed(lambda *a: os.getpid())(i, p, a, b) for i, p, a, b in sd.plan(synth, 8)]
    ran = set(client.gather(client.compute(tasks)))
    assert len(ran) >= 2


@pytest.mark.parametrize("parts", [1, 3, 8])
def test_profile_equals_single_process(client, synth, parts):
    with slog2.open(synth) as f:
        a, b = f.total_time
        for t0, t1, whole in ((None, None, False), (a + 0.2 * (b - a), a + 0.6 * (b - a), False),
                              (a + 0.2 * (b - a), a + 0.6 * (b - a), True)):
            want = f.profile(t0, t1, whole=whole)
            got = sd.profile(synth, t0, t1, whole=whole, partitions=parts, client=client)
            assert list(got["category"]) == list(want["category"])
            assert list(got["count"]) == list(want["count"])
            for c in ("inclusive", "exclusive", "min", "mean", "max"):
                assert close(got[c], want[c]), c
            wl = f.profile(t0, t1, by_line=True, whole=whole)
            gl = sd.profile(synth, t0, t1, by_line=True, whole=whole, partitions=parts, client=client)
            assert list(gl["line"]) == list(wl["line"]) and list(gl["count"]) == list(wl["count"])
            assert close(gl["exclusive"], wl["exclusive"])


def test_comm_histogram_time_profile_equal_single_process(client, synth):
    with slog2.open(synth) as f:
        want = f.comm_matrix()
        got = sd.comm_matrix(synth, partitions=5, client=client)
        pd.testing.assert_frame_equal(got.reset_index(drop=True), want.reset_index(drop=True),
                                      check_dtype=False)
        for kw in ({}, {"log": True}, {"lo": 2e-6, "hi": 2e-5}):
            h = f.histogram("MPI_Recv", 12, **kw)
            g = sd.histogram(synth, "MPI_Recv", 12, partitions=6, client=client, **kw)
            assert list(g["count"]) == list(h["count"]), kw
            assert close(g["lo"], h["lo"]) and close(g["hi"], h["hi"])
            assert (g.attrs["below"], g.attrs["above"]) == (h.attrs["below"], h.attrs["above"])
            assert close(g["sum"], h["sum"])
        m = f.message_histogram(9)
        gm = sd.message_histogram(synth, 9, partitions=4, client=client)
        assert list(gm["count"]) == list(m["count"])
        tp = f.time_profile(15)
        gt = sd.time_profile(synth, 15, partitions=4, client=client)
        assert list(gt.columns) == ["start", "end"] + sorted(tp.columns[2:])
        for c in tp.columns[2:]:
            assert close(gt[c], tp[c]), c
        assert close(gt["start"], tp["start"])


def test_read_holds_each_drawable_once(client, synth):
    ddf = sd.read(synth, partitions=6)
    assert ddf.npartitions == 6
    df = client.compute(ddf).result()
    with slog2.open(synth) as f:
        whole = f.partition_frame(-np.inf, np.inf)
        n = sum(len(r) for r in f.scan())
    assert len(df) == len(whole) == n
    key = ["kind", "category", "start", "end", "time0", "time1", "line0", "line1"]
    pd.testing.assert_frame_equal(df[key].sort_values(key).reset_index(drop=True),
                                  whole[key].sort_values(key).reset_index(drop=True), check_dtype=False)
    # A window: the drawables meeting it, each once.
    with slog2.open(synth) as f:
        a, b = f.total_time
        t0, t1 = a + 0.4 * (b - a), a + 0.5 * (b - a)
        win = f.window(t0, t1)
    part = client.compute(sd.read(synth, partitions=4, t0=t0, t1=t1)).result()
    assert len(part) == len(win)
    # An analysis on the dask.dataframe: messages per sender, on the cluster.
    per = client.compute(ddf[ddf["category"] == 0].groupby("line0").size()).result()
    cm = slog2.open(synth).comm_matrix().groupby("from_line")["count"].sum()
    assert dict(per) == dict(cm)


def test_a_study_of_files_reduces_to_one_table(client, synth, tmp_path):
    paths = [synth]
    for k in range(3):
        p = tmp_path / f"run{k}.slog2"
        run_cli("bench", "write", str(20000 + 5000 * k), "-o", p)
        paths.append(str(p))
    paths.append(str(SHARED / "clog2" / "big_stencil.slog2"))
    got = sd.profile(paths, partitions=2, client=client)
    # By name, the sum over the files' own profiles.
    frames = []
    for p in paths:
        with slog2.open(p) as f:
            frames.append(f.profile())
    want = pd.concat(frames).groupby("name").agg(count=("count", "sum"), inclusive=("inclusive", "sum"),
                                                 exclusive=("exclusive", "sum"))
    got = got.set_index("name")
    assert sorted(got.index) == sorted(want.index)
    for n in want.index:
        assert got.loc[n, "count"] == want.loc[n, "count"]
        assert close(got.loc[n, "exclusive"], want.loc[n, "exclusive"])
    per_file = sd.profile(paths, by_file=True, partitions=2, client=client)
    assert set(per_file["file"]) == set(range(len(paths)))
    cats = sd.categories(paths)
    assert set(cats["file"]) == set(range(len(paths)))


def test_a_file_replaced_between_calls_is_read_anew(client, tmp_path):
    # The workers keep files open between tasks (slog2/_tasks.py); a path that
    # names other bytes afterwards is opened again, not answered from the old map.
    p = tmp_path / "moving.slog2"
    run_cli("bench", "write", "30000", "-o", p)
    first = sd.profile(str(p), partitions=2, client=client)
    run_cli("bench", "write", "45000", "-o", tmp_path / "next.slog2")
    os.replace(tmp_path / "next.slog2", p)
    second = sd.profile(str(p), partitions=2, client=client)
    with slog2.open(p) as f:
        want = f.profile()
    assert first["count"].sum() != second["count"].sum()
    assert list(second["count"]) == list(want["count"])


def test_task_files_are_kept_reused_and_bounded(tmp_path, monkeypatch):
    from slog2 import _tasks

    _tasks.close_all()
    monkeypatch.setattr(_tasks, "OPEN_FILES", 2)
    paths = []
    for k in range(3):
        p = tmp_path / f"f{k}.slog2"
        run_cli("bench", "write", str(1000 + 100 * k), "-o", p)
        paths.append(str(p))
    with _tasks.task_file(paths[0]) as a:
        with _tasks.task_file(paths[0]) as b:
            assert a is b  # one open File for two users
        held = a
        with _tasks.task_file(paths[1]), _tasks.task_file(paths[2]):
            pass  # paths[0] is evicted while still in use ...
        assert len(held.partition_edges(2)) == 3  # ... and stays open until its last user is done
    with pytest.raises(slog2.ClosedError):
        held.partition_edges(2)
    with _tasks.task_file(paths[2]) as c, _tasks.task_file(paths[2]) as d:
        assert c is d
    os.replace(paths[1], paths[2])  # other bytes under the same path
    with _tasks.task_file(paths[2]) as e:
        assert e is not c and len(e.partition_edges(2)) == 3
    with pytest.raises(slog2.ClosedError):
        c.partition_edges(2)  # the replaced file's File was closed
    _tasks.close_all()
    monkeypatch.setattr(_tasks, "OPEN_FILES", 0)
    with _tasks.task_file(paths[2]) as g:
        pass
    with pytest.raises(slog2.ClosedError):
        g.partition_edges(2)
