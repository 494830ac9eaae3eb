"""Low layer: find ``libslog2.so`` and declare every C function of ``slog2.h`` and
``trace_API.h`` with ctypes (one declaration each, in ``SLOG2_FUNCTIONS`` and
``TRACE_FUNCTIONS``).

Why ctypes and not a compiled extension: the package then works with any Python
3.9+ and any numpy the user already has, and the only binary is the library the
C users link too. ``tests/test_lowlevel.py`` parses both headers and checks every
name, argument count and argument kind against these tables, so a header change
cannot silently break Python.

Library search order (first that loads wins):
  1. the environment variable ``SLOG2_LIB`` (a file, or a directory holding libslog2.so);
  2. a copy bundled in this package's directory (``slog2/libslog2.so``, put there when
     a platform wheel is built, see the repo README, "Install › Python: in a virtual environment");
  3. the system's, through ``ctypes.util.find_library("slog2")``.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from ctypes import (
    POINTER,
    Structure,
    c_char,
    c_char_p,
    c_double,
    c_float,
    c_int,
    c_int64,
    c_void_p,
)

LIB_NAME = "libslog2.so"

# ---------------------------------------------------------------------------
# Constants (slog2.h)

SLOG2_OK = 0
SLOG2_ERR_NULL_ARG = 1
SLOG2_ERR_BAD_HANDLE = 2
SLOG2_ERR_WRONG_MODE = 3
SLOG2_ERR_ARRAY_TOO_SMALL = 4
SLOG2_ERR_BAD_ARG = 5
SLOG2_ERR_IO = 6
SLOG2_ERR_FORMAT = 7
SLOG2_ERR_ORDER = 8
SLOG2_ERR_EOF = 9
SLOG2_ERR_STATE = 10
SLOG2_ERR_NO_DRAWABLES = 11
SLOG2_ERR_PANIC = 12
SLOG2_ERR_PARSE = 13
SLOG2_ERR_INVALID_DRAWABLE = 14
SLOG2_ERR_UNSUPPORTED = 15
SLOG2_ERR_SOURCE = 16

ERROR_NAMES = {
    v: k for k, v in list(globals().items()) if k.startswith("SLOG2_ERR_")
}

SLOG2_OVERVIEW_DURATION = 0
SLOG2_OVERVIEW_COUNT = 1

SLOG2_KIND_PRIMITIVE = 0
SLOG2_KIND_COMPOSITE = 1
SLOG2_KIND_SHADOW = 2

# trace_API.h
TRACE_SHAPE_EVENT = 0
TRACE_SHAPE_STATE = 1
TRACE_SHAPE_ARROW = 2
TRACE_METHOD_CONNECT_COMPOSITE_STATE = 1
TRACE_ERR_NULL_ARG = 1
TRACE_ERR_BAD_HANDLE = 2
TRACE_ERR_OPEN = 3
TRACE_ERR_READ = 4
TRACE_ERR_KIND = 5
TRACE_ERR_ARRAY_TOO_SMALL = 6
TRACE_ERR_BAD_ARG = 7
TRACE_ERR_UNSUPPORTED = 8
TRACE_ERR_POSITION = 9
TRACE_ERR_PANIC = 10
TRACE_ERR_IO = 11
TRACE_ERR_PARSE = 12
TRACE_ERR_INVALID_DRAWABLE = 13
TRACE_ERR_SOURCE = 14
TRACE_ERROR_NAMES = {
    v: k for k, v in list(globals().items()) if k.startswith("TRACE_ERR_")
}
TRACE_EOF = 0
TRACE_PRIMITIVE_DRAWABLE = 1
TRACE_COMPOSITE_DRAWABLE = 2
TRACE_CATEGORY = 3
TRACE_YCOORDMAP = 4

# ---------------------------------------------------------------------------
# Structures (field names as in the headers; checked by the header test)


class SLOG2_Category_head_t(Structure):
    _fields_ = [
        ("index", c_int),
        ("shape", c_int),
        ("red", c_int),
        ("green", c_int),
        ("blue", c_int),
        ("alpha", c_int),
        ("width", c_int),
        ("count", c_int64),
        ("incl_ratio", c_float),
        ("excl_ratio", c_float),
    ]


class SLOG2_Treedir_node(Structure):
    _fields_ = [
        ("depth", c_int),
        ("xpos", c_int),
        ("earliest_time", c_double),
        ("latest_time", c_double),
        ("block_offset", c_int64),
        ("block_size", c_int),
        ("parent", c_int),
        ("lchild", c_int),
        ("rchild", c_int),
    ]


SLOG2_QUERY_COLUMNS = [
    ("kind", c_int),
    ("category", c_int),
    ("start", c_double),
    ("end", c_double),
    ("line0", c_int),
    ("line1", c_int),
    ("num_real", c_int64),
    ("info_offset", c_int),
    ("info_len", c_int),
    ("time0", c_double),
    ("time1", c_double),
    ("parent", c_int),
]


class SLOG2_Query_columns(Structure):
    # Pointer fields declared as void* (same layout as `int *`, `double *`...) so
    # numpy data addresses can be stored without a ctypes cast on the hot path;
    # SLOG2_QUERY_COLUMNS keeps each column's element type.
    _fields_ = [(name, c_void_p) for name, _t in SLOG2_QUERY_COLUMNS]


class SLOG2_Query_stats(Structure):
    _fields_ = [("nodes_read", c_int), ("bytes_read", c_int64)]


class SLOG2_Counts(Structure):
    _fields_ = [
        ("drawables", c_int64),
        ("composites", c_int64),
        ("members", c_int64),
        ("primitives", c_int64),
        ("rows", c_int64),
    ]


class TRACE_Category_head_t(Structure):
    _fields_ = [
        ("index", c_int),
        ("shape", c_int),
        ("red", c_int),
        ("green", c_int),
        ("blue", c_int),
        ("alpha", c_int),
        ("width", c_int),
    ]


STRUCTS = {
    "SLOG2_Category_head_t": SLOG2_Category_head_t,
    "SLOG2_Treedir_node": SLOG2_Treedir_node,
    "SLOG2_Query_columns": SLOG2_Query_columns,
    "SLOG2_Query_stats": SLOG2_Query_stats,
    "SLOG2_Counts": SLOG2_Counts,
    "TRACE_Category_head_t": TRACE_Category_head_t,
}

# ---------------------------------------------------------------------------
# Functions: name -> (restype, argtypes). Handles are opaque pointers (c_void_p);
# data arrays are c_void_p so numpy buffers pass as plain addresses (fastest path).

P = POINTER
_h = c_void_p  # SLOG2_File / TRACE_file
_ph = P(c_void_p)  # SLOG2_File * / TRACE_file *
_buf = c_void_p  # any array the caller owns (numpy data pointer or ctypes buffer)
_pi = P(c_int)
_pd = P(c_double)
_pi64 = P(c_int64)

SLOG2_FUNCTIONS = {
    "SLOG2_Open": (c_int, [c_char_p, c_char, _ph]),
    "SLOG2_Close": (c_int, [_ph]),
    "SLOG2_Write_header": (c_int, [_h, c_char_p]),
    "SLOG2_Write_header_ex": (c_int, [_h, c_int, c_int]),
    "SLOG2_Write_compression": (c_int, [_h, c_int]),
    "SLOG2_Write_category": (
        c_int,
        [_h, P(SLOG2_Category_head_t), c_int, c_char_p, P(c_char_p), P(c_char_p)],
    ),
    "SLOG2_Write_category_ex": (
        c_int,
        [_h, P(SLOG2_Category_head_t), c_char_p, c_char_p, c_int, _buf],
    ),
    "SLOG2_Write_coord_class": (c_int, [_h, c_char_p, c_int, _buf, _buf, P(c_char_p)]),
    "SLOG2_Write_ycoordmap_ex": (
        c_int,
        [_h, c_char_p, c_int, c_int, P(c_char_p), _buf, c_int, _buf],
    ),
    "SLOG2_Write_drawable_object": (
        c_int,
        [_h, c_double, c_double, c_int, c_int, _buf, c_int, _buf, c_int, _buf],
    ),
    "SLOG2_Write_composite_ex": (
        c_int,
        [_h, c_double, c_double, c_int, c_int, _buf, c_int, _buf, _buf, _buf, _buf, _buf, _buf],
    ),
    "SLOG2_Write_start_treenode": (c_int, [_h]),
    "SLOG2_Write_end_treenode": (c_int, [_h]),
    "SLOG2_Write_dir": (c_int, [_h, P(SLOG2_Treedir_node), c_int]),
    "SLOG2_Get_header": (c_int, [_h, _buf, c_int, _pi]),
    "SLOG2_Get_total_time": (c_int, [_h, _pd, _pd]),
    "SLOG2_Read_dir": (c_int, [_h, P(SLOG2_Treedir_node), c_int, _pi]),
    "SLOG2_Get_next_category": (
        c_int,
        [_h, P(SLOG2_Category_head_t), _buf, _pi, c_int, _buf, _pi, c_int],
    ),
    "SLOG2_Peek_next_drawable": (c_int, [_h, _pd, _pd, _pi, _pi, _pi]),
    "SLOG2_Get_next_drawable": (
        c_int,
        [_h, _pd, _pd, _pi, _pi, _buf, _pi, c_int, _buf, _pi, c_int],
    ),
    "SLOG2_Get_position": (c_int64, [_h]),
    "SLOG2_Set_position": (None, [_h, c_int64]),
    "SLOG2_Set_position_ex": (c_int, [_h, c_int64]),
    "SLOG2_Get_drawable_text": (None, [_h, c_int, _buf, _buf, c_int]),
    "SLOG2_Get_drawable_text_ex": (c_int, [_h, c_int, _buf, c_int, _buf, c_int]),
    "SLOG2_Get_ycoordmap_count": (c_int, [_h, _pi]),
    "SLOG2_Get_ycoordmap": (
        c_int,
        [_h, c_int, _buf, c_int, _pi, _pi, _pi, _buf, _pi, c_int],
    ),
    "SLOG2_Get_ycoordmap_label": (c_int, [_h, c_int, c_int, _buf, c_int]),
    "SLOG2_Query_window": (
        c_int,
        [_h, c_double, c_double, _pi, P(SLOG2_Query_columns), _pi, c_int, _buf, _pi, c_int,
         P(SLOG2_Query_stats)],
    ),
    "SLOG2_Query_window_size": (c_int, [_h, c_double, c_double, c_int, _pi, _pi]),
    "SLOG2_Query_preview": (
        c_int,
        [_h, c_double, c_double, c_int, _pi, P(SLOG2_Query_columns), _pi, c_int, _buf, _pi,
         c_int, P(SLOG2_Query_stats)],
    ),
    "SLOG2_Query_preview_weights": (
        c_int,
        [_h, c_double, c_double, c_int, _pi, _buf, _buf, _buf, _buf, _buf, _pi, c_int],
    ),
    # The window cursor (File.cursor(): a viewer's moving window).
    "SLOG2_Cursor_open": (c_int, [_h, _ph]),
    "SLOG2_Cursor_move": (c_int, [_h, c_double, c_double, _pi, _pi, P(SLOG2_Query_stats)]),
    "SLOG2_Cursor_get_view": (c_int, [_h, _buf]),
    "SLOG2_Cursor_rows": (
        c_int,
        [_h, _pi, P(SLOG2_Query_columns), _pi, c_int, _buf, _pi, c_int, P(SLOG2_Query_stats)],
    ),
    "SLOG2_Cursor_close": (c_int, [_ph]),
    "SLOG2_Scan_open": (c_int, [_h, _ph]),
    "SLOG2_Scan_next": (
        c_int,
        [_h, _pi, P(SLOG2_Query_columns), _pi, c_int, _buf, _pi, c_int, P(SLOG2_Query_stats)],
    ),
    "SLOG2_Scan_next_size": (c_int, [_h, _pi, _pi]),
    "SLOG2_Scan_close": (c_int, [_ph]),
    "SLOG2_Scan_open_range": (c_int, [_h, c_double, c_double, _ph]),
    "SLOG2_Get_counts": (c_int, [_h, P(SLOG2_Counts)]),
    "SLOG2_Get_compressed": (c_int, [_h, _pi]),
    "SLOG2_Get_category_counts": (c_int, [_h, _pi, _buf, _buf, _buf, _buf, _pi, c_int]),
    "SLOG2_Count_definition": (c_char_p, []),
    # The overview (issue #29; slog2/_overview.py).
    "SLOG2_Overview_open": (c_int, [_h, _buf, _ph]),
    "SLOG2_Overview_close": (c_int, [_ph]),
    "SLOG2_Overview_get_info": (c_int, [_h, _buf]),
    "SLOG2_Overview_set_p": (c_int, [_h, c_double]),
    "SLOG2_Overview_get_axes": (c_int, [_h, _buf, _pi, _buf, _pi, c_int]),
    "SLOG2_Overview_get_cube": (c_int, [_h, _buf, c_int, _pi]),
    "SLOG2_Overview_get_parts": (
        c_int, [_h, _buf, _buf, _buf, _buf, _buf, _buf, _buf, c_int, _pi],
    ),
    "SLOG2_Overview_get_curve": (c_int, [_h, _buf, _buf, _buf, _buf, c_int, _pi]),
    "SLOG2_Overview_get_hierarchy": (c_int, [_h, _buf, _buf, c_int, _pi, _buf, c_int, _pi]),
    "SLOG2_Overview_get_rects": (
        c_int, [_h, c_double, _buf, _buf, _buf, _buf, _buf, c_int, _pi],
    ),
    "SLOG2_Get_err_string": (c_char_p, [c_int]),
    "SLOG2_Get_last_error": (c_char_p, []),
}

TRACE_FUNCTIONS = {
    "TRACE_Open": (c_int, [c_char_p, _ph]),
    "TRACE_Close": (c_int, [_ph]),
    "TRACE_Peek_next_kind": (c_int, [_h, _pi]),
    "TRACE_Get_next_method": (c_int, [_h, _buf, _buf, _pi]),
    "TRACE_Peek_next_category": (c_int, [_h, _pi, _pi, _pi]),
    "TRACE_Get_next_category": (
        c_int,
        [_h, P(TRACE_Category_head_t), _pi, _buf, _pi, c_int, _pi, _buf, _pi, c_int,
         _pi, _buf, _pi, c_int],
    ),
    "TRACE_Peek_next_ycoordmap": (c_int, [_h, _pi, _pi, _pi, _pi, _pi]),
    "TRACE_Get_next_ycoordmap": (
        c_int,
        [_h, _buf, P(c_char_p), _pi, _buf, _pi, c_int, _pi, _buf, _pi, c_int],
    ),
    "TRACE_Peek_next_primitive": (c_int, [_h, _pd, _pd, _pi, _pi, _pi]),
    "TRACE_Get_next_primitive": (
        c_int,
        [_h, _pi, _pi, _buf, _pi, c_int, _pi, _buf, _pi, c_int, _pi, _buf, _pi, c_int],
    ),
    "TRACE_Peek_next_composite": (c_int, [_h, _pd, _pd, _pi, _pi]),
    "TRACE_Get_next_composite": (c_int, [_h, _pi, _pi, _buf, _pi, c_int]),
    "TRACE_Get_position": (c_int, [_h, _pi64]),
    "TRACE_Set_position": (c_int, [_h, c_int64]),
    "TRACE_Get_err_string": (c_char_p, [c_int]),
}

# The statistics API (SLOG2_Stats_*, issue #30), declared in _stats_lib and merged
# here so that the header test checks it like every other function.
from ._stats_lib import STATS_CONSTANTS, STATS_FUNCTIONS, STATS_STRUCTS  # noqa: E402

globals().update(STATS_CONSTANTS)
SLOG2_FUNCTIONS.update(STATS_FUNCTIONS)
STRUCTS.update(STATS_STRUCTS)


def declare(lib: ctypes.CDLL, table: dict, optional: bool = False) -> list:
    """Set restype/argtypes of every function of ``table`` on ``lib``; returns the
    names that are missing (an error unless ``optional``)."""
    missing = []
    for name, (res, args) in table.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            missing.append(name)
            continue
        fn.restype = res
        fn.argtypes = args
    if missing and not optional:
        raise ImportError(f"{getattr(lib, '_name', lib)} lacks {', '.join(missing)}")
    return missing


def candidates() -> list:
    """The library paths to try, in order, as (how, path) pairs."""
    out = []
    env = os.environ.get("SLOG2_LIB")
    if env:
        p = os.path.join(env, LIB_NAME) if os.path.isdir(env) else env
        out.append(("SLOG2_LIB", p))
    out.append(("bundled", os.path.join(os.path.dirname(os.path.abspath(__file__)), LIB_NAME)))
    found = ctypes.util.find_library("slog2")
    out.append(("find_library", found or "find_library('slog2'): not found"))
    return out


def load() -> tuple:
    tried = []
    for how, path in candidates():
        if how == "find_library" and path.startswith("find_library("):
            tried.append(path)
            continue
        if how != "find_library" and not os.path.exists(path):
            tried.append(f"{how}: {path}: no such file")
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append(f"{how}: {path}: {e}")
            continue
        declare(lib, SLOG2_FUNCTIONS)
        declare(lib, TRACE_FUNCTIONS)
        return lib, path
    raise ImportError(
        "slog2: cannot load libslog2.so (build it with `cargo build --release` and set "
        "SLOG2_LIB=/path/to/libslog2.so). Tried, in order:\n  " + "\n  ".join(tried)
    )


lib, lib_path = load()
