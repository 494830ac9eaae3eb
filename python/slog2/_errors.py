"""Exceptions carrying the library's own words.

Every failing C call becomes :class:`Error` (or a subclass) whose message is the
detail string of ``SLOG2_Get_last_error`` (file, record, byte offset...) followed
by the static text of the code, so Python users see exactly what C users see.
"""

from __future__ import annotations

from . import _lib


class Error(Exception):
    """A libslog2 call failed. ``code`` is the SLOG2_ERR_* value, ``name`` its
    name, ``detail`` the library's detail text."""

    def __init__(self, code: int, detail: str, text: str, call: str = ""):
        self.code = code
        self.name = _lib.ERROR_NAMES.get(code, str(code))
        self.detail = detail
        self.text = text
        self.call = call
        msg = detail or text
        if detail and text and text not in detail:
            msg = f"{detail} ({text})"
        super().__init__(f"{call}: {msg}" if call else msg)


class FormatError(Error):
    """The file is not a valid SLOG-2 2.0.6 file (SLOG2_ERR_FORMAT)."""


class OrderError(Error):
    """Drawables must come in non-decreasing end time (SLOG2_ERR_ORDER)."""


class ClosedError(Error, ValueError):
    """The handle is closed or unknown (SLOG2_ERR_BAD_HANDLE)."""


class ArgumentError(Error, ValueError):
    """An argument is out of range (SLOG2_ERR_BAD_ARG / NULL_ARG)."""


class ParseError(Error):
    """A trace record could not be parsed (SLOG2_ERR_PARSE; detail: file:line:column)."""


class InvalidDrawableError(Error, ValueError):
    """A drawable breaks a rule of the format: box, vertices, category, info
    (SLOG2_ERR_INVALID_DRAWABLE)."""


class LibIOError(Error, OSError):
    """Operating-system I/O error (SLOG2_ERR_IO), e.g. a missing file."""


_CLASSES = {
    _lib.SLOG2_ERR_FORMAT: FormatError,
    _lib.SLOG2_ERR_ORDER: OrderError,
    _lib.SLOG2_ERR_BAD_HANDLE: ClosedError,
    _lib.SLOG2_ERR_BAD_ARG: ArgumentError,
    _lib.SLOG2_ERR_NULL_ARG: ArgumentError,
    _lib.SLOG2_ERR_IO: LibIOError,
    _lib.SLOG2_ERR_PARSE: ParseError,
    _lib.SLOG2_ERR_INVALID_DRAWABLE: InvalidDrawableError,
}


def last_error() -> str:
    s = _lib.lib.SLOG2_Get_last_error()
    return s.decode("utf-8", "replace") if s else ""


def error(code: int, call: str = "") -> Error:
    text = _lib.lib.SLOG2_Get_err_string(code)
    text = text.decode("utf-8", "replace") if text else ""
    cls = _CLASSES.get(code, Error)
    if cls is LibIOError:
        # OSError's constructor would swallow the message: build it as Error does.
        e = LibIOError.__new__(LibIOError)
        Error.__init__(e, code, last_error(), text, call)
        return e
    return cls(code, last_error(), text, call)


def check(code: int, call: str = "") -> None:
    if code != 0:
        raise error(code, call)
