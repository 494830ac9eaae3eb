"""Files kept open by the worker processes of :mod:`slog2.dask`.

A task opens its file by path. Opening is cheap (the directory is decoded in
milliseconds), but the first pass over a new mapping pays a page fault for
every few pages of the file, about a quarter of a warm pass on a 100M-drawable
file; a process that keeps its ``File`` pays that once. So each worker process
keeps the files its tasks opened, least recently used first out, and hands a
task the open ``File`` while the path still names the same bytes: same device,
inode, size and modification time (a file replaced or rewritten is opened
again). ``SLOG2_DASK_OPEN_FILES`` (read when the module is imported; default
8) bounds how many stay open; ``0`` opens and closes per task.

Tasks on the threads of one worker may share a ``File`` (the library reads a
file from many threads); one that is evicted while a task still uses it is
closed when the last such task is done.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from contextlib import contextmanager

from ._reader import open as _open


def _limit() -> int:
    try:
        return max(0, int(os.environ.get("SLOG2_DASK_OPEN_FILES", "8")))
    except ValueError:
        return 8


OPEN_FILES = _limit()


class _Entry:
    __slots__ = ("file", "key", "users", "evicted")

    def __init__(self, file, key):
        self.file, self.key, self.users, self.evicted = file, key, 0, False


_lock = threading.Lock()
_open_files: "OrderedDict[str, _Entry]" = OrderedDict()


def _key(path: str):
    st = os.stat(path)
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _retire(e: _Entry) -> None:
    """Called under the lock: close now if unused, else when released."""
    e.evicted = True
    if e.users == 0:
        e.file.close()


@contextmanager
def task_file(path):
    """The open :class:`slog2.File` of ``path`` for one task (module docs)."""
    if OPEN_FILES == 0:
        with _open(path) as f:
            yield f
        return
    name = os.path.realpath(os.fspath(path))
    key = _key(name)
    with _lock:  # opening under the lock: milliseconds, against tasks of seconds
        e = _open_files.get(name)
        if e is None or e.key != key:
            if e is not None:
                del _open_files[name]
                _retire(e)
            e = _open_files[name] = _Entry(_open(name), key)
            while len(_open_files) > OPEN_FILES:
                _retire(_open_files.popitem(last=False)[1])
        _open_files.move_to_end(name)
        e.users += 1
    try:
        yield e.file
    finally:
        with _lock:
            e.users -= 1
            if e.evicted and e.users == 0:
                e.file.close()


def close_all() -> None:
    """Close every file this process keeps open for tasks (tests, shutdown)."""
    with _lock:
        while _open_files:
            _retire(_open_files.popitem()[1])
