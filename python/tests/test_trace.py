"""TRACE reading: every sample text trace prints exactly as the reference C
client `trace_print` (NAME.trace_print.txt); SLOG-2 files and a C TRACE reader
library (capi-tests/plugin/tinytrace.c) iterate too."""

import shutil
import subprocess

import pytest

import slog2
import slog2.trace as T
from conftest import REPO, SHARED, TEXT_TRACES, fixture_id, run_cli


@pytest.mark.parametrize("path", TEXT_TRACES, ids=fixture_id)
def test_text_trace_equals_reference_trace_print(path):
    want = path.with_suffix(".trace_print.txt").read_text()
    assert T.print_trace(path) == want


def test_records_carry_content():
    with T.open(SHARED / "trace-sample" / "data.txt") as t:
        recs = list(t)
    cats = [r for r in recs if isinstance(r, T.Category)]
    comps = [r for r in recs if isinstance(r, T.Composite)]
    maps = [r for r in recs if isinstance(r, T.YMap)]
    assert len(cats) == 11 and len(comps) == 3 and len(maps) == 3
    assert [len(c.members) for c in comps] == [3, 7, 4]
    assert cats[0].name == "message" and cats[0].label == "msg_tag=%d, msg_size=%d"
    assert cats[0].topology == "arrow" and cats[0].color == (255, 255, 255, 255)
    assert [c.methods for c in cats if c.methods] == [(1,)]
    assert maps[0].title == "ThreadView" and maps[0].columns == ["label1", "label2"]
    assert maps[0].rows.shape == (5, 3)
    arrow = comps[0].members[1]
    assert arrow.info == b"\x00\x00\x00\x0a\x00\x00\x04\x00"  # msg_tag=10, msg_size=1024


def _drawables(recs):
    out = []
    for r in recs:
        if isinstance(r, T.Primitive):
            out.append((r.category, r.times, r.lines, r.info))
        elif isinstance(r, T.Composite):
            # member order is not kept by SLOG-2 files (drawing order inside the composite)
            out.append((r.category, r.info,
                        tuple(sorted(((m.category, m.times, m.lines, m.info) for m in r.members), key=repr))))
    return sorted(out, key=repr)


def test_slog2_source_has_the_text_source_drawables():
    with T.open(SHARED / "trace-sample" / "data.txt") as t:
        a = _drawables(t)
    with T.open(SHARED / "trace-sample" / "data.slog2") as t:
        recs = list(t)
    assert _drawables(recs) == a
    assert any(isinstance(r, T.YMap) for r in recs)


@pytest.fixture(scope="module")
def tinytrace(tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc")
    assert cc, "a C compiler is needed to build the TRACE reader plugin"
    so = tmp_path_factory.mktemp("plugin") / "libtinytrace.so"
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", str(so),
                    str(REPO / "capi-tests" / "plugin" / "tinytrace.c")], check=True)
    return so


def test_c_trace_reader_library(tinytrace, tmp_path):
    sample = REPO / "capi-tests" / "plugin" / "sample.tiny"
    with T.open(sample, reader=tinytrace) as t:
        recs = list(t)
    cats = [r for r in recs if isinstance(r, T.Category)]
    prims = [r for r in recs if isinstance(r, T.Primitive)]
    assert [(c.index, c.name, c.label) for c in cats] == [(1, "Work", ""), (2, "msg", "v=%d")]
    assert len(prims) == 6
    assert prims[1] == T.Primitive(2, 0.5, 1.5, (0.5, 1.5), (0, 1), b"\x00\x00\x00\x2a")
    # the same records as the converter makes of it through --trace-lib
    out = tmp_path / "tiny.slog2"
    run_cli("convert", "-q", "--trace-lib", tinytrace, sample, "-o", out)
    with T.open(out) as t:
        assert _drawables(t) == _drawables(recs)
    with slog2.open(out) as f:
        r = f.window(*f.total_time)
        texts = sorted(r.popup_text(i) for i in range(len(r)))
        assert texts == [""] * 5 + ["v=42"]


def test_trace_errors(tinytrace, tmp_path):
    with pytest.raises(T.TraceError, match="No such file"):
        T.open(tmp_path / "missing.txt")
    with pytest.raises(T.TraceError, match="tinytrace: cannot open file"):
        T.open(tmp_path / "missing.txt", reader=tinytrace)
    with pytest.raises(T.TraceError, match="cannot load TRACE reader"):
        T.open(SHARED / "trace-sample" / "data.txt", reader=tmp_path / "nope.so")
    bad = tmp_path / "bad.txt"
    bad.write_text("Category[ index=0 name=x topo=State color=(1,2,3,255,true) width=1 ]\nPrimitive[ garbage\n")
    with pytest.raises(T.TraceError) as e:
        with T.open(bad) as t:
            list(t)
    assert "bad.txt" in str(e.value)
    t = T.open(SHARED / "trace-sample" / "data.txt")
    t.close()
    with pytest.raises(T.TraceError, match="closed"):
        t.peek_kind()


def test_positions_rewind():
    with T.open(SHARED / "trace-sample" / "arrow.txt") as t:
        it = iter(t)
        first = [next(it) for _ in range(3)]
        cookie = t.tell()
        nxt = next(it)
        t.seek(cookie)
        assert next(iter(t)) == nxt
        assert first[0].name == "message"


@pytest.mark.parametrize("name", ["trace-sample/data.txt", "clog2/edge_cases.clog2"])
def test_gzip_inputs_read_like_the_plain_ones(tmp_path, name):
    """Issue #28: text traces and CLOG2 logs ending in .gz (gzip by content) are read
    as they stream through flate2, by slog2.trace.open as by the CLI."""
    import gzip

    src = SHARED / name
    gz = tmp_path / (src.name + ".gz")
    gz.write_bytes(gzip.compress(src.read_bytes()))
    with T.open(src) as t:
        want = _drawables(t)
    with T.open(gz) as t:
        got = _drawables(t)
    assert got == want and len(got) > 0
