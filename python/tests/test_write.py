"""Writing: a file written from Python reads back equal and passes `slog2 check`;
errors carry the library's message and leave no file."""

import numpy as np
import pytest

import slog2
from conftest import run_cli


def write_sample(path, **opts):
    with slog2.Writer(path, **opts) as w:
        comp = w.category("Compute", "state", (255, 0, 0), label="iter=%d phase=%s")
        io = w.category("IO", "state", "#00ff00")
        msg = w.category("message", "arrow", "white", width=3, label="tag=%d size=%l")
        ev = w.category("Checkpoint", "event", (0, 0, 255, 200), label="x=%E h=%h")
        group = w.category("Group", "state", (255, 165, 0), label="n=%d")
        w.ymap("Ranks", ["rank"], [[0, 10], [1, 11], [2, 12]])
        w.ymap("Nodes", ["node", "core"], [[0, 0, 0], [1, 0, 1], [2, 1, 0]], methods=[1])
        w.state(io, 0.2, 0.4, 0, info=b"")            # nested in the Compute below (ends first)
        w.state(comp, 0.0, 1.0, 0, info=(1, "warm"))
        w.arrow(msg, 1.5, 1, 0.5, 0, info=(7, 2 ** 40))  # backward arrow: first vertex later
        w.event(ev, 1.6, 2, info=(2.5, -3))
        w.composite(group, [(io, (1.0, 1.5), (1, 1)), (msg, (1.2, 1.7), (1, 2), (8, 64))], info=(2,))
        w.state(comp, 1.0, 2.0, 2, info=(2, "hot"))
    return comp, io, msg, ev, group


def test_round_trip_and_check(tmp_path):
    p = tmp_path / "py.slog2"
    comp, io, msg, ev, group = write_sample(p, children_per_node=3, leaf_bytesize=1024)
    r = run_cli("check", p)
    assert "valid" in r.stdout and r.returncode == 0
    with slog2.open(p) as f:
        cats = {c.name: c for c in f.categories if c.index >= 0}
        assert cats["Compute"].color == (255, 0, 0, 255) and cats["Compute"].topology == "state"
        assert cats["IO"].color == (0, 255, 0, 255)
        assert cats["message"].topology == "arrow" and cats["message"].width == 3
        assert cats["message"].label == "tag=%d size=%l"
        assert cats["Checkpoint"].color == (0, 0, 255, 200) and cats["Checkpoint"].topology == "event"
        assert cats["Compute"].count == 2 and cats["IO"].count == 2 and cats["message"].count == 2
        maps = {m.title: m for m in f.ymaps}
        assert maps["Ranks"].columns == ["rank"]
        assert maps["Ranks"].rows.tolist() == [[0, 10], [1, 11], [2, 12]]
        assert maps["Nodes"].rows.tolist() == [[0, 0, 0], [1, 0, 1], [2, 1, 0]]
        assert f.tree.children_per_node == 3 and f.tree.leaf_bytesize == 1024
        assert f.total_time == (0.0, 2.0)
        r = f.window(0, 2)
        got = []
        for i in range(len(r)):
            got.append((int(r.kind[i]), int(r.category[i]), r.start[i], r.end[i], r.time0[i], r.time1[i],
                        int(r.line0[i]), int(r.line1[i]), int(r.parent[i] >= 0), r.popup_text(i)))
        want = [
            (0, comp, 0.0, 1.0, 0.0, 1.0, 0, 0, 0, "iter=1 phase=warm"),
            (0, io, 0.2, 0.4, 0.2, 0.4, 0, 0, 0, ""),
            (0, msg, 0.5, 1.5, 1.5, 0.5, 1, 0, 0, f"tag=7 size={2 ** 40}"),
            (1, group, 1.0, 1.7, 1.0, 1.7, 1, 2, 0, "n=2"),
            (0, io, 1.0, 1.5, 1.0, 1.5, 1, 1, 1, ""),
            (0, msg, 1.2, 1.7, 1.2, 1.7, 1, 2, 1, "tag=8 size=64"),
            (0, comp, 1.0, 2.0, 1.0, 2.0, 2, 2, 0, "iter=2 phase=hot"),
            (0, ev, 1.6, 1.6, 1.6, 1.6, 2, 2, 0, "x=2.5 h=-3"),
        ]
        assert sorted(got, key=repr) == sorted(want, key=repr)


def test_frame_of_states_and_messages(tmp_path):
    pd = pytest.importorskip("pandas")
    p = tmp_path / "frame.slog2"
    states = pd.DataFrame({"category": ["A", "B", "A", "B"], "start": [0.0, 0.5, 1.0, 0.1],
                           "end": [0.4, 0.9, 3.0, 0.2], "line": [0, 1, 0, 1]})
    msgs = pd.DataFrame({"category": ["msg", "msg"], "start": [0.4, 1.0], "end": [0.5, 0.95],
                         "line": [0, 1], "line1": [1, 0], "info": [(1,), (2,)]})
    with slog2.Writer(p) as w:
        w.category("A", "state", "red")
        w.category("B", "state", "blue")
        w.category("msg", "arrow", "white", label="tag=%d")
        both = pd.concat([states.assign(line1=states["line"], info=[()] * 4), msgs])
        assert w.frame(both, line1="line1", info="info") == 6
    assert run_cli("check", p).returncode == 0
    with slog2.open(p) as f:
        df = f.window(*f.total_time).to_pandas(text=True)
        assert sorted(df["name"].astype(str)) == ["A", "A", "B", "B", "msg", "msg"]
        m = df[df["name"] == "msg"].sort_values("start")
        assert list(m["text"]) == ["tag=1", "tag=2"]
        assert list(m["time0"]) == [0.4, 1.0] and list(m["time1"]) == [0.5, 0.95]
        assert list(m["line0"]) == [0, 1] and list(m["line1"]) == [1, 0]


def test_order_error_carries_message_and_leaves_no_file(tmp_path):
    p = tmp_path / "bad.slog2"
    with pytest.raises(slog2.OrderError) as e:
        with slog2.Writer(p) as w:
            c = w.category("A")
            w.state(c, 0.0, 2.0, 0)
            w.state(c, 0.0, 1.0, 0)
    assert "end" in str(e.value).lower()
    assert e.value.detail and e.value.name == "SLOG2_ERR_ORDER"
    assert not p.exists()
    assert list(tmp_path.iterdir()) == []  # no temporary file left either


def test_python_exception_leaves_existing_file_untouched(tmp_path):
    p = tmp_path / "keep.slog2"
    write_sample(p)
    before = p.read_bytes()
    with pytest.raises(RuntimeError):
        with slog2.Writer(p) as w:
            c = w.category("A")
            w.state(c, 0.0, 2.0, 0)
            raise RuntimeError("user code failed")
    assert p.read_bytes() == before
    assert sorted(x.name for x in tmp_path.iterdir()) == ["keep.slog2"]


def test_bad_arguments_raise_library_messages(tmp_path):
    p = tmp_path / "args.slog2"
    w = slog2.Writer(p)
    with pytest.raises(slog2.ArgumentError, match="colour components must be 0..255"):
        w.category("A", "state", (300, 0, 0))
    with pytest.raises(slog2.ArgumentError, match="empty category name"):
        w.category("", "state")
    c = w.category("A")
    with pytest.raises(ValueError, match="shape must be"):
        w.category("B", "circle")
    with pytest.raises(ValueError, match="token"):
        w.state(c, 0, 1, 0, info=(1,))  # label has no tokens
    with pytest.raises(slog2.Error, match="ycoordmap|nrows|ncols|shape"):
        w.ymap("M", ["a"], np.zeros((0, 2), int))
    with pytest.raises(slog2.Error, match="without a start"):
        L = slog2._lib.lib
        slog2._errors.check(L.SLOG2_Write_end_treenode(w._h), "end")
    w.abort()
    assert not p.exists()
    with pytest.raises(slog2.ClosedError, match="closed"):
        w.state(c, 0, 1, 0)


def test_empty_file_is_an_error(tmp_path):
    p = tmp_path / "empty.slog2"
    w = slog2.Writer(p)
    w.category("A")
    with pytest.raises(slog2.Error) as e:
        w.close()
    assert e.value.name == "SLOG2_ERR_NO_DRAWABLES"
    assert not p.exists()


def test_treenode_groups_and_expected_tree(tmp_path):
    p = tmp_path / "tree.slog2"
    with slog2.Writer(p) as w:
        c = w.category("A")
        with w.treenode():
            w.state(c, 0, 1, 0)
    with slog2.open(p) as f:
        nodes = f.tree.nodes.copy()
    q = tmp_path / "tree2.slog2"
    with slog2.Writer(q) as w:
        c = w.category("A")
        w.state(c, 0, 1, 0)
        w.expect_tree(nodes)
    assert q.exists()
    bad = nodes.copy()
    bad["end"][0] = 5.0
    r = tmp_path / "tree3.slog2"
    w = slog2.Writer(r)
    c = w.category("A")
    w.state(c, 0, 1, 0)
    w.expect_tree(bad)
    with pytest.raises(slog2.Error, match="does not match"):
        w.close()
    assert not r.exists()


def test_encode_info_tokens():
    assert slog2.encode_info("a=%d b=%h", (1, -2)) == b"\x00\x00\x00\x01\xff\xfe"
    assert slog2.encode_info("%x", (-1,)) == b"\xff\xff\xff\xff"
    assert slog2.encode_info("%s", ("hé",)) == b"\x00\x03h\xc3\xa9"
    with pytest.raises(ValueError):
        slog2.encode_info("%d %d", (1,))


def test_compressed_file_reads_the_same(tmp_path):
    """``compress=LEVEL``: a SLOG 2.0.Z file that reads back as the plain one."""
    plain, packed = tmp_path / "plain.slog2", tmp_path / "packed.slog2"
    write_sample(plain, children_per_node=3, leaf_bytesize=1024)
    write_sample(packed, children_per_node=3, leaf_bytesize=1024, compress=9)
    assert open(packed, "rb").read(12)[2:] == b"SLOG 2.0.Z"
    assert open(plain, "rb").read(12)[2:] == b"SLOG 2.0.6"
    r = run_cli("check", packed)
    assert "valid" in r.stdout and r.returncode == 0
    assert "compressed" in run_cli("info", packed).stdout
    with slog2.open(plain) as a, slog2.open(packed) as b:
        assert (a.compressed, b.compressed) == (False, True)
        assert a.version == b.version == 206 and "SLOG 2.0.Z" in b.header
        ra, rb = a.window(0, 2), b.window(0, 2)
        assert len(ra) == len(rb) == 8
        for col in ("kind", "category", "start", "end", "time0", "time1", "line0", "line1", "parent"):
            assert np.array_equal(getattr(ra, col), getattr(rb, col)), col
        assert [ra.popup_text(i) for i in range(len(ra))] == [rb.popup_text(i) for i in range(len(rb))]
        sa = np.concatenate([r.start for r in a.scan()])
        sb = np.concatenate([r.start for r in b.scan()])
        assert len(sa) == 8 and np.array_equal(sa, sb)
        # the analyses walk unpacked nodes too
        pa, pb = a.profile(by_line=True), b.profile(by_line=True)
        assert len(pa) > 0 and pa.equals(pb)
        assert a.comm_matrix().equals(b.comm_matrix())
        oa = a.overview(slices=4, p=0.5, cache=False)
        ob = b.overview(slices=4, p=0.5, cache=False)
        assert np.array_equal(oa.cube, ob.cube)
        assert oa.parts[["first", "last"]].equals(ob.parts[["first", "last"]])
    with pytest.raises(slog2.Error, match="compression level"):
        slog2.Writer(tmp_path / "bad.slog2", compress=13)
