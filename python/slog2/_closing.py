"""The lifetime every handle object of the package shares: a context manager
that calls ``close()`` on exit, and ``close()`` again (quietly) when the object is
garbage collected, so a handle dropped without ``with`` or ``close()`` still frees
its library object. ``close()`` must be idempotent."""

from __future__ import annotations


class Closing:
    def close(self) -> None:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
