"""slog2: read, write and plot SLOG-2 2.0.6 trace files through libslog2 (ctypes).

    import slog2
    with slog2.open("run.slog2") as f:
        rows = f.window(0.1, 0.2)          # numpy columns, one C call
        df = rows.to_pandas()
        slog2.plot.timeline(f, 0.1, 0.2, output="run.png")

Writing: :class:`slog2.Writer`; raw TRACE records of any source: :mod:`slog2.trace`.
"""

from ._lib import lib_path
from ._errors import (
    ArgumentError,
    ArrayTooSmallError,
    ClosedError,
    EndOfDataError,
    Error,
    FormatError,
    InternalError,
    InvalidDrawableError,
    LibIOError,
    NoDrawablesError,
    NullArgumentError,
    OrderError,
    ParseError,
    SourceError,
    StateError,
    TraceError,
    UnsupportedError,
    WrongModeError,
)
from ._reader import (
    COUNT_DEFINITION,
    Category,
    CategoryCount,
    Counts,
    Cursor,
    File,
    Rows,
    Tree,
    Weights,
    YMap,
    open,
)
from ._compare import compare, compare_time_profiles
from ._stats import Stats
from ._writer import Writer, encode_info

__version__ = "0.1.0"

__all__ = [
    "open", "File", "Rows", "Weights", "Category", "YMap", "Tree", "Cursor", "Counts",
    "CategoryCount", "COUNT_DEFINITION", "Writer", "encode_info",
    "Error", "FormatError", "OrderError", "ClosedError", "ArgumentError", "LibIOError",
    "ParseError", "InvalidDrawableError", "NullArgumentError", "WrongModeError",
    "ArrayTooSmallError", "EndOfDataError", "StateError", "NoDrawablesError", "InternalError",
    "UnsupportedError", "SourceError", "TraceError",
    "lib_path", "trace", "plot", "Stats", "compare", "compare_time_profiles", "dask",
]


def __getattr__(name):
    # slog2.trace, slog2.plot and slog2.dask load on first use (plot imports
    # matplotlib, dask the optional dask[dataframe] and distributed).
    if name in ("trace", "plot", "dask"):
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'slog2' has no attribute {name!r}")
