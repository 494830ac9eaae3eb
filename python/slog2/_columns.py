"""The columns of a window query (``SLOG2_Query_columns``) as numpy dtypes:
one place for the reader's windows and scans and the statistics' row
partitions."""

import ctypes
from typing import Tuple

import numpy as np

from . import _lib

_NP_OF_C = {
    ctypes.c_int: np.intc,
    ctypes.c_double: np.float64,
    ctypes.c_int64: np.int64,
}

#: (name, numpy dtype) of every query column, in SLOG2_Query_columns order.
COLUMNS: Tuple[Tuple[str, type], ...] = tuple(
    (name, _NP_OF_C[t]) for name, t in _lib.SLOG2_QUERY_COLUMNS
)
