"""Exceptions carrying the library's own words, one class per return code.

Every failing C call becomes an :class:`Error` subclass whose message is the
detail string of ``SLOG2_Get_last_error`` (file, record, byte offset...) followed
by the static text of the code, so Python users see exactly what C users see.

The class says what kind of failure it is, one per ``SLOG2_ERR_*`` code (the C
codes are the library's ``ErrorKind``s plus the boundary's own: NULL argument,
wrong mode, array too small, end of data, internal error). Where Python has a
matching built-in family the class joins it too: bad arguments and closed
handles are ``ValueError``s, I/O errors ``OSError``s, the end of data an
``EOFError``, unsupported requests ``NotImplementedError``s.

A failing ``TRACE_*`` call of libslog2's own TRACE reader raises the
:class:`TraceError` subclass of its ``TRACE_ERR_*`` code, which is also the
class of the same kind above (``TraceParseError`` is a :class:`ParseError`), so
``except slog2.ParseError`` catches both APIs. An external TRACE reader's codes
are its own: they raise plain :class:`TraceError`.
"""

from __future__ import annotations

from typing import Dict, Type

from . import _lib


class Error(Exception):
    """A libslog2 call failed. ``code`` is the return code, ``name`` its name
    (``SLOG2_ERR_*``, or ``TRACE_ERR_*`` for a :class:`TraceError`), ``detail``
    the library's detail text, ``text`` the code's static text."""

    _names: Dict[int, str] = _lib.ERROR_NAMES

    def __init__(self, code: int, detail: str, text: str = "", call: str = ""):
        self.code = code
        self.name = self._names.get(code, str(code))
        self.detail = detail
        self.text = text
        self.call = call
        msg = detail or text
        if detail and text and text not in detail:
            msg = f"{detail} ({text})"
        super().__init__(f"{call}: {msg}" if call else msg)


# -- one class per SLOG2_ERR_* code -------------------------------------------


class ArgumentError(Error, ValueError):
    """An argument is out of range (SLOG2_ERR_BAD_ARG)."""


class NullArgumentError(ArgumentError):
    """A required pointer argument is NULL (SLOG2_ERR_NULL_ARG)."""


class ClosedError(Error, ValueError):
    """The handle is closed or unknown (SLOG2_ERR_BAD_HANDLE)."""


class WrongModeError(Error, ValueError):
    """The call needs a file open in the other mode (SLOG2_ERR_WRONG_MODE)."""


class ArrayTooSmallError(Error):
    """An output array is too small; nothing was written (SLOG2_ERR_ARRAY_TOO_SMALL)."""


class LibIOError(Error, OSError):
    """Operating-system I/O error (SLOG2_ERR_IO), e.g. a missing file."""


class FormatError(Error):
    """The file is not a valid SLOG-2 2.0.6 file (SLOG2_ERR_FORMAT)."""


class OrderError(Error):
    """Drawables must come in non-decreasing end time (SLOG2_ERR_ORDER)."""


class EndOfDataError(Error, EOFError):
    """No more items (SLOG2_ERR_EOF)."""


class StateError(Error):
    """The call is not allowed in the current state (SLOG2_ERR_STATE)."""


class NoDrawablesError(Error):
    """Nothing to write: no drawable was given (SLOG2_ERR_NO_DRAWABLES)."""


class InternalError(Error):
    """An internal error caught at the C boundary (SLOG2_ERR_PANIC); the handle
    it happened on is retired."""


class ParseError(Error):
    """A trace record could not be parsed (SLOG2_ERR_PARSE; detail: file:line:column)."""


class InvalidDrawableError(Error, ValueError):
    """A drawable breaks a rule of the format: box, vertices, category, info
    (SLOG2_ERR_INVALID_DRAWABLE)."""


class UnsupportedError(Error, NotImplementedError):
    """Valid, but not supported by this implementation (SLOG2_ERR_UNSUPPORTED)."""


class SourceError(Error):
    """A trace source (a TRACE-API library, a plugin) reported an error (SLOG2_ERR_SOURCE)."""


_CLASSES: Dict[int, Type[Error]] = {
    _lib.SLOG2_ERR_NULL_ARG: NullArgumentError,
    _lib.SLOG2_ERR_BAD_HANDLE: ClosedError,
    _lib.SLOG2_ERR_WRONG_MODE: WrongModeError,
    _lib.SLOG2_ERR_ARRAY_TOO_SMALL: ArrayTooSmallError,
    _lib.SLOG2_ERR_BAD_ARG: ArgumentError,
    _lib.SLOG2_ERR_IO: LibIOError,
    _lib.SLOG2_ERR_FORMAT: FormatError,
    _lib.SLOG2_ERR_ORDER: OrderError,
    _lib.SLOG2_ERR_EOF: EndOfDataError,
    _lib.SLOG2_ERR_STATE: StateError,
    _lib.SLOG2_ERR_NO_DRAWABLES: NoDrawablesError,
    _lib.SLOG2_ERR_PANIC: InternalError,
    _lib.SLOG2_ERR_PARSE: ParseError,
    _lib.SLOG2_ERR_INVALID_DRAWABLE: InvalidDrawableError,
    _lib.SLOG2_ERR_UNSUPPORTED: UnsupportedError,
    _lib.SLOG2_ERR_SOURCE: SourceError,
}


# -- TRACE_* calls ---------------------------------------------------------------


class TraceError(Error):
    """A TRACE_* call failed: ``code`` is the reader's return code (``-1`` when the
    reader could not even be loaded); the message is the detail text (libslog2's
    own reader) and ``TRACE_Get_err_string(code)``."""

    _names = _lib.TRACE_ERROR_NAMES


class TraceNullArgumentError(TraceError, NullArgumentError):
    """TRACE_ERR_NULL_ARG."""


class TraceClosedError(TraceError, ClosedError):
    """TRACE_ERR_BAD_HANDLE."""


class TraceOpenError(TraceError, LibIOError):
    """TRACE_ERR_OPEN: the trace file cannot be opened (missing, not readable)."""


class TraceReadError(TraceError, FormatError):
    """TRACE_ERR_READ: the trace is damaged."""


class TraceKindError(TraceError, StateError):
    """TRACE_ERR_KIND: the call does not match the kind of the next record."""


class TraceArrayTooSmallError(TraceError, ArrayTooSmallError):
    """TRACE_ERR_ARRAY_TOO_SMALL."""


class TraceArgumentError(TraceError, ArgumentError):
    """TRACE_ERR_BAD_ARG."""


class TraceUnsupportedError(TraceError, UnsupportedError):
    """TRACE_ERR_UNSUPPORTED."""


class TracePositionError(TraceError, ArgumentError):
    """TRACE_ERR_POSITION: not a position of this trace (negative, past the end,
    or inside a composite)."""


class TraceInternalError(TraceError, InternalError):
    """TRACE_ERR_PANIC."""


class TraceIOError(TraceError, LibIOError):
    """TRACE_ERR_IO: an I/O error while reading."""


class TraceParseError(TraceError, ParseError):
    """TRACE_ERR_PARSE."""


class TraceInvalidDrawableError(TraceError, InvalidDrawableError):
    """TRACE_ERR_INVALID_DRAWABLE (end-time order, box, vertices)."""


class TraceSourceError(TraceError, SourceError):
    """TRACE_ERR_SOURCE: an external TRACE library reported an error."""


_TRACE_CLASSES: Dict[int, Type[TraceError]] = {
    _lib.TRACE_ERR_NULL_ARG: TraceNullArgumentError,
    _lib.TRACE_ERR_BAD_HANDLE: TraceClosedError,
    _lib.TRACE_ERR_OPEN: TraceOpenError,
    _lib.TRACE_ERR_READ: TraceReadError,
    _lib.TRACE_ERR_KIND: TraceKindError,
    _lib.TRACE_ERR_ARRAY_TOO_SMALL: TraceArrayTooSmallError,
    _lib.TRACE_ERR_BAD_ARG: TraceArgumentError,
    _lib.TRACE_ERR_UNSUPPORTED: TraceUnsupportedError,
    _lib.TRACE_ERR_POSITION: TracePositionError,
    _lib.TRACE_ERR_PANIC: TraceInternalError,
    _lib.TRACE_ERR_IO: TraceIOError,
    _lib.TRACE_ERR_PARSE: TraceParseError,
    _lib.TRACE_ERR_INVALID_DRAWABLE: TraceInvalidDrawableError,
    _lib.TRACE_ERR_SOURCE: TraceSourceError,
}


def error_class(code: int) -> Type[Error]:
    """The class of an ``SLOG2_ERR_*`` code (:class:`Error` for an unknown one)."""
    return _CLASSES.get(code, Error)


def trace_error_class(code: int) -> Type[TraceError]:
    """The class of a ``TRACE_ERR_*`` code of libslog2's own TRACE reader."""
    return _TRACE_CLASSES.get(code, TraceError)


def _make(cls: Type[Error], code: int, detail: str, text: str, call: str) -> Error:
    # OSError's constructor would swallow the message (it parses errno
    # arguments): every class is built the way Error builds it.
    e = cls.__new__(cls)
    Error.__init__(e, code, detail, text, call)
    return e


def last_error() -> str:
    s = _lib.lib.SLOG2_Get_last_error()
    return s.decode("utf-8", "replace") if s else ""


def error(code: int, call: str = "") -> Error:
    """The exception of a failed SLOG2_* call (reads the thread's last error)."""
    text = _lib.lib.SLOG2_Get_err_string(code)
    text = text.decode("utf-8", "replace") if text else ""
    return _make(error_class(code), code, last_error(), text, call)


def trace_error(code: int, detail: str, text: str, call: str, own: bool = True) -> TraceError:
    """The exception of a failed TRACE_* call: the code's class when the reader is
    libslog2's own, plain :class:`TraceError` for an external reader's codes."""
    cls = trace_error_class(code) if own else TraceError
    e = _make(cls, code, detail, text, call)
    assert isinstance(e, TraceError)
    return e


def check(code: int, call: str = "") -> None:
    if code != 0:
        raise error(code, call)
