"""One exception class per return code of both C APIs (python/slog2/_errors.py),
mapped exhaustively, each raised where the library reports that code."""

import pytest

import slog2
import slog2.trace as T
from slog2 import _errors, _lib
from conftest import SHARED

DATA = SHARED / "trace-sample" / "data.slog2"

# The built-in family each code also belongs to, where Python has one.
BUILTIN = {
    "SLOG2_ERR_NULL_ARG": ValueError, "SLOG2_ERR_BAD_ARG": ValueError,
    "SLOG2_ERR_BAD_HANDLE": ValueError, "SLOG2_ERR_WRONG_MODE": ValueError,
    "SLOG2_ERR_INVALID_DRAWABLE": ValueError, "SLOG2_ERR_IO": OSError,
    "SLOG2_ERR_EOF": EOFError, "SLOG2_ERR_UNSUPPORTED": NotImplementedError,
}

# The SLOG2 class of the same kind as each TRACE code.
TRACE_KIND = {
    "TRACE_ERR_NULL_ARG": slog2.NullArgumentError, "TRACE_ERR_BAD_HANDLE": slog2.ClosedError,
    "TRACE_ERR_OPEN": slog2.LibIOError, "TRACE_ERR_READ": slog2.FormatError,
    "TRACE_ERR_KIND": slog2.StateError, "TRACE_ERR_ARRAY_TOO_SMALL": slog2.ArrayTooSmallError,
    "TRACE_ERR_BAD_ARG": slog2.ArgumentError, "TRACE_ERR_UNSUPPORTED": slog2.UnsupportedError,
    "TRACE_ERR_POSITION": slog2.ArgumentError, "TRACE_ERR_PANIC": slog2.InternalError,
    "TRACE_ERR_IO": slog2.LibIOError, "TRACE_ERR_PARSE": slog2.ParseError,
    "TRACE_ERR_INVALID_DRAWABLE": slog2.InvalidDrawableError,
    "TRACE_ERR_SOURCE": slog2.SourceError,
}


def test_every_slog2_code_has_its_own_class():
    assert sorted(_lib.ERROR_NAMES) == list(range(1, 17))
    assert set(_errors._CLASSES) == set(_lib.ERROR_NAMES), "the mapping is exhaustive"
    classes = [_errors.error_class(c) for c in _lib.ERROR_NAMES]
    assert len(set(classes)) == len(classes), "one class per code"
    for code, name in _lib.ERROR_NAMES.items():
        cls = _errors.error_class(code)
        assert issubclass(cls, slog2.Error) and cls is not slog2.Error
        assert not issubclass(cls, slog2.TraceError)
        assert issubclass(cls, BUILTIN.get(name, Exception)), name
        assert getattr(slog2, cls.__name__) is cls, f"{cls.__name__} is exported"
        e = _errors._make(cls, code, "the detail", "the text", "call")
        assert type(e) is cls and e.code == code and e.name == name
        assert str(e) == "call: the detail (the text)"


def test_every_trace_code_has_its_own_class():
    assert sorted(_lib.TRACE_ERROR_NAMES) == list(range(1, 15))
    assert set(_errors._TRACE_CLASSES) == set(_lib.TRACE_ERROR_NAMES)
    classes = [_errors.trace_error_class(c) for c in _lib.TRACE_ERROR_NAMES]
    assert len(set(classes)) == len(classes)
    assert issubclass(slog2.TraceError, slog2.Error)
    assert T.TraceError is slog2.TraceError
    for code, name in _lib.TRACE_ERROR_NAMES.items():
        e = _errors.trace_error(code, "d", "t", "TRACE_call")
        assert isinstance(e, slog2.TraceError) and isinstance(e, TRACE_KIND[name]), name
        assert e.name == name and e.code == code
        # An external reader's codes are its own: plain TraceError.
        assert type(_errors.trace_error(code, "", "t", "c", own=False)) is slog2.TraceError


def test_codes_arrive_as_their_classes(tmp_path):
    with pytest.raises(slog2.LibIOError) as e:
        slog2.open(tmp_path / "missing.slog2")
    assert e.value.name == "SLOG2_ERR_IO"
    garbage = tmp_path / "g.slog2"
    garbage.write_bytes(b"not a trace at all")
    with pytest.raises(slog2.FormatError):
        slog2.open(garbage)
    with slog2.open(DATA) as f:
        with pytest.raises(slog2.ArgumentError):
            f.window(2.0, 1.0)
    f.close()
    with pytest.raises(slog2.ClosedError):
        f.window(0, 1)
    w = slog2.Writer(tmp_path / "empty.slog2")
    with pytest.raises(slog2.NoDrawablesError):
        w.close()


def test_trace_codes_arrive_as_their_classes(tmp_path):
    with pytest.raises(T.TraceError) as e:
        T.open(tmp_path / "missing.txt")
    assert type(e.value).__name__ == "TraceOpenError" and isinstance(e.value, OSError)
    cut = tmp_path / "cut.slog2"
    cut.write_bytes(DATA.read_bytes()[:300])
    with pytest.raises(slog2.FormatError) as e:
        T.open(cut)
    assert e.value.name == "TRACE_ERR_READ", "a damaged file is not 'cannot open'"
    bad = tmp_path / "bad.txt"
    bad.write_text("Category[ index=0 name=x topo=State color=(1,2,3,255,true) width=1 ]\n"
                   "Primitive[ garbage\n")
    with pytest.raises(slog2.ParseError) as e:
        with T.open(bad) as t:
            list(t)
    assert isinstance(e.value, slog2.TraceError) and "bad.txt:2" in str(e.value)
    with T.open(SHARED / "trace-sample" / "data.txt") as t:
        with pytest.raises(slog2.ArgumentError) as e:
            t.seek(-1)
        assert e.value.name == "TRACE_ERR_POSITION"
