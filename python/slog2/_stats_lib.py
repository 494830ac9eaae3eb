"""ctypes declarations of the statistics API of ``slog2.h`` (``SLOG2_Stats_*``).

Kept apart from ``_lib.py`` (which merges these tables into its own, so the header
test checks them like every other function): constants, structures, and one
``(restype, argtypes)`` entry per function. Column structures hold ``void *`` so
numpy data addresses are stored without casts (as ``SLOG2_Query_columns``).
"""

from ctypes import POINTER, Structure, c_char_p, c_double, c_int, c_int64, c_void_p

STATS_CONSTANTS = {
    "SLOG2_STATS_PROFILE": 0,
    "SLOG2_STATS_PROFILE_BY_LINE": 1,
    "SLOG2_STATS_COMM": 2,
    "SLOG2_STATS_IDLE": 3,
    "SLOG2_STATS_IMBALANCE": 4,
    "SLOG2_MEASURE_DURATION": 0,
    "SLOG2_MEASURE_MESSAGE_SIZE": 1,
}


class SLOG2_Stats_scope(Structure):
    _fields_ = [
        ("t0", c_double),
        ("t1", c_double),
        ("has_part", c_int),
        ("part0", c_double),
        ("part1", c_double),
        ("whole_states", c_int),
    ]


class SLOG2_Histogram_spec(Structure):
    _fields_ = [
        ("measure", c_int),
        ("category", c_int),
        ("bins", c_int),
        ("log", c_int),
        ("lo", c_double),
        ("hi", c_double),
    ]


def _columns(name, fields):
    """A structure of column pointers: (field name, numpy-compatible C type) pairs,
    kept as ``COLUMNS`` on the class; the fields themselves are ``void *``."""
    return type(name, (Structure,), {"_fields_": [(f, c_void_p) for f, _ in fields], "COLUMNS": fields})


SLOG2_Profile_columns = _columns("SLOG2_Profile_columns", [
    ("line", c_int), ("category", c_int), ("count", c_int64), ("inclusive", c_double),
    ("exclusive", c_double), ("min", c_double), ("mean", c_double), ("max", c_double),
    ("timed", c_int64)])
SLOG2_Comm_columns = _columns("SLOG2_Comm_columns", [
    ("from_line", c_int), ("to_line", c_int), ("category", c_int), ("count", c_int64),
    ("sized", c_int64), ("bytes", c_int64)])
SLOG2_Idle_columns = _columns("SLOG2_Idle_columns", [
    ("line", c_int), ("idle", c_double), ("fraction", c_double), ("no_state", c_double),
    ("wait", c_double)])
SLOG2_Imbalance_columns = _columns("SLOG2_Imbalance_columns", [
    ("category", c_int), ("lines", c_int), ("mean", c_double), ("max", c_double),
    ("ratio", c_double), ("worst_line", c_int), ("worst_value", c_double)])
SLOG2_Instance_columns = _columns("SLOG2_Instance_columns", [
    ("start", c_double), ("end", c_double), ("line0", c_int), ("line1", c_int),
    ("category", c_int), ("value", c_double), ("text_offset", c_int)])
SLOG2_Compare_columns = _columns("SLOG2_Compare_columns", [
    ("name_offset", c_int), ("count_a", c_int64), ("count_b", c_int64), ("inclusive_a", c_double),
    ("inclusive_b", c_double), ("inclusive_diff", c_double), ("inclusive_rel", c_double),
    ("exclusive_a", c_double), ("exclusive_b", c_double), ("exclusive_diff", c_double),
    ("exclusive_rel", c_double)])

STATS_STRUCTS = {
    "SLOG2_Stats_scope": SLOG2_Stats_scope,
    "SLOG2_Histogram_spec": SLOG2_Histogram_spec,
    "SLOG2_Profile_columns": SLOG2_Profile_columns,
    "SLOG2_Comm_columns": SLOG2_Comm_columns,
    "SLOG2_Idle_columns": SLOG2_Idle_columns,
    "SLOG2_Imbalance_columns": SLOG2_Imbalance_columns,
    "SLOG2_Instance_columns": SLOG2_Instance_columns,
    "SLOG2_Compare_columns": SLOG2_Compare_columns,
}

P = POINTER
_h = c_void_p
_ph = P(c_void_p)
_buf = c_void_p
_pi = P(c_int)
_pi64 = P(c_int64)
_scope = P(SLOG2_Stats_scope)
_spec = P(SLOG2_Histogram_spec)

STATS_FUNCTIONS = {
    "SLOG2_Stats_open": (c_int, [_h, _scope, P(c_char_p), _ph]),
    "SLOG2_Stats_close": (c_int, [_ph]),
    "SLOG2_Stats_count": (c_int, [_h, c_int, _pi]),
    "SLOG2_Stats_profile": (c_int, [_h, c_int, _pi, P(SLOG2_Profile_columns), _pi, c_int]),
    "SLOG2_Stats_comm": (c_int, [_h, _pi, P(SLOG2_Comm_columns), _pi, c_int]),
    "SLOG2_Stats_idle": (c_int, [_h, _pi, P(SLOG2_Idle_columns), _pi, c_int]),
    "SLOG2_Stats_imbalance": (c_int, [_h, c_int, c_int, _pi, P(SLOG2_Imbalance_columns), _pi, c_int]),
    "SLOG2_Stats_histogram": (c_int, [_h, _scope, _spec, _pi, _buf, _buf, _buf, _buf]),
    "SLOG2_Stats_histogram_instances": (
        c_int,
        [_h, _scope, _spec, _buf, c_int, c_int, _pi64, _pi, P(SLOG2_Instance_columns), _pi, c_int,
         _buf, _pi, c_int],
    ),
    "SLOG2_Stats_time_profile": (c_int, [_h, _scope, c_int, _pi, _buf, _buf, c_int]),
    # The row columns are _lib's SLOG2_Query_columns (declared as void * here: same pointer).
    "SLOG2_Stats_rows": (c_int, [_h, _scope, _pi, c_void_p, _pi, c_int]),
    "SLOG2_Stats_partitions": (c_int, [_h, c_int, _buf]),
    "SLOG2_Stats_compare": (
        c_int, [_h, _h, _pi, P(SLOG2_Compare_columns), _pi, c_int, _buf, _pi, c_int]),
    "SLOG2_Stats_compare_time": (
        c_int, [_h, _h, c_int, _pi, _buf, c_int, _pi, _buf, _buf, c_int]),
}
