"""The lazy, thread-safe load every model-backed judge shares.

A judge subclasses `LazyLoaded` and implements ``_load_now()``; ``_load()`` returns the
loaded state, building it once — on first use, or in the constructor with ``lazy_load=False`` —
however many threads ask at the same time.
"""

from __future__ import annotations

import threading
from typing import Generic, TypeVar

__all__ = ["LazyLoaded"]

T = TypeVar("T")


class LazyLoaded(Generic[T]):
    """Holds what ``_load_now()`` builds; builds it at most once per instance."""

    def __init__(self, *, lazy_load: bool) -> None:
        self._lock = threading.Lock()
        self._loaded: T | None = None
        if not lazy_load:
            self._load()

    def _load_now(self) -> T:
        raise NotImplementedError

    def _load(self) -> T:
        loaded = self._loaded
        if loaded is not None:
            return loaded
        with self._lock:
            if self._loaded is None:
                self._loaded = self._load_now()
            return self._loaded

    @property
    def loaded(self) -> bool:
        """Whether the model is loaded (on first use, or in the constructor if not lazy)."""
        return self._loaded is not None
