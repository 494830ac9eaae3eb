"""Error paths raise slog2 exceptions carrying the library's detail string."""

import pytest

import slog2
from conftest import SHARED, run_cli

DATA = SHARED / "trace-sample" / "data.slog2"


def test_missing_file(tmp_path):
    p = tmp_path / "missing.slog2"
    with pytest.raises(slog2.LibIOError) as e:
        slog2.open(p)
    assert str(p) in str(e.value) and "No such file" in str(e.value)
    assert e.value.name == "SLOG2_ERR_IO" and isinstance(e.value, OSError)
    assert e.value.detail in str(e.value)


@pytest.mark.parametrize("cut", [0, 50, 108, 500, 1000])
def test_truncated_file(tmp_path, cut):
    p = tmp_path / "cut.slog2"
    p.write_bytes(DATA.read_bytes()[:cut])
    with pytest.raises(slog2.Error) as e:
        with slog2.open(p) as f:
            f.window(*f.total_time)
    assert e.value.detail, "the library's detail text is carried"
    assert e.value.name in ("SLOG2_ERR_FORMAT", "SLOG2_ERR_IO")
    assert e.value.detail in str(e.value)


@pytest.mark.parametrize("lo,hi,what", [(12, 60, "header"), (899, 960, "category map"),
                                         (1772, 1810, "tree directory")])
def test_corrupt_blocks(tmp_path, lo, hi, what):
    b = bytearray(DATA.read_bytes())
    b[lo:hi] = b"\xff" * (hi - lo)  # garble one block of data.slog2
    p = tmp_path / "bad.slog2"
    p.write_bytes(bytes(b))
    with pytest.raises(slog2.FormatError) as e:
        slog2.open(p)
    assert what in str(e.value) and f"byte offset {lo}" in str(e.value)
    assert e.value.name == "SLOG2_ERR_FORMAT"


def test_closed_file():
    f = slog2.open(DATA)
    rows = f.window(*f.total_time)
    f.close()
    f.close()  # idempotent
    assert f.closed
    for call in (lambda: f.window(0, 1), lambda: f.preview(0, 1, 0), lambda: rows.popup_text(1),
                 lambda: f.window_size(0, 1)):
        with pytest.raises(slog2.ClosedError, match="unknown or closed SLOG2_File handle"):
            call()
    # the columns already returned stay valid
    assert len(rows) > 0 and rows.start.sum() > 0


def test_bad_arguments():
    with slog2.open(DATA) as f:
        with pytest.raises(slog2.ArgumentError) as e:
            f.preview(0, 1, -1)
        assert "depth" in str(e.value) and e.value.name == "SLOG2_ERR_BAD_ARG"
        for t0, t1 in ((1.0, 0.0), (float("nan"), 1.0)):
            with pytest.raises(slog2.ArgumentError, match="is empty or not a number"):
                f.window(t0, t1)
            with pytest.raises(slog2.ArgumentError, match="is empty or not a number"):
                f.preview(t0, t1, 0)
        with pytest.raises(TypeError):
            f.preview(0, 1, 1.5)
        with pytest.raises(ValueError):
            f.window("a", 1)
        with pytest.raises(KeyError):
            f.category(12345)
        with pytest.raises(ValueError):
            list(f.scan(t0=1.0, t1=0.0))


def test_writer_open_errors(tmp_path):
    with pytest.raises(slog2.Error) as e:
        slog2.Writer(tmp_path / "no" / "dir" / "x.slog2")
    assert "x.slog2" in str(e.value) or "no/dir" in str(e.value)
    with pytest.raises(slog2.ArgumentError, match="children per node must be >= 2"):
        slog2.Writer(tmp_path / "x.slog2", children_per_node=1)
    assert list(tmp_path.iterdir()) == []


def _truncate(p, n):
    with open(p, "r+b") as f:
        f.truncate(n)


@pytest.mark.parametrize("query", ["window", "scan"])
def test_a_file_truncated_under_the_reader_raises(tmp_path, query):
    """Issue #27 class 2: the interpreter died of SIGBUS; now the query raises
    the I/O error "changed while it was open" and the process goes on (pytest
    has faulthandler enabled: our handler chains to it for other faults)."""
    p = tmp_path / "big.slog2"
    run_cli("bench", "write", "200000", "-o", p)
    size = p.stat().st_size
    assert size > 4 << 20
    with slog2.open(p) as f:
        t0, t1 = f.total_time
        _truncate(p, size // 10)
        with pytest.raises(slog2.LibIOError, match="changed while it was open"):
            if query == "window":
                f.window(t0, t1)
            else:
                for _ in f.scan():
                    pass
    # The interpreter is alive and the library still works.
    with slog2.open(SHARED / "trace-sample" / "data.slog2") as g:
        assert len(g.window(*g.total_time)) > 0
