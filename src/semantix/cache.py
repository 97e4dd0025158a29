"""The one piece of global state in semantix: an explicit, thread-safe, bounded cache.

It holds loaded models (ONNX sessions, tokenizers, torch modules) keyed by what identifies them
— e.g. ``("onnx-session", model_dir, file, threads)`` — and the process's default judge, so a
judge built twice on the same model reuses the loaded weights, and the default judge is built
once per process on first use. It also keeps the observers that see every assertion result (the
pytest plugin's report). ``clear_cache()`` drops the models and the default judge (tests,
notebooks); observers stay until removed.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

__all__ = ["ModelCache", "clear_cache", "model_cache"]

T = TypeVar("T")


class ModelCache:
    """A bounded LRU map from keys to expensive objects, built at most once per key.

    ``get_or_create(key, factory)`` builds the value outside the global lock but under a
    per-key lock, so two threads asking for the same model wait for one build, and threads
    asking for different models build in parallel. A factory that raises caches nothing.
    """

    def __init__(self, maxsize: int = 8) -> None:
        if maxsize < 1:
            raise ValueError(f"maxsize must be at least 1, got {maxsize}")
        self.maxsize = maxsize
        self._entries: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()
        self._key_locks: dict[Hashable, threading.Lock] = {}
        self._default_judge: Any = None
        self._observers: list[Callable[[Any], None]] = []
        self.builds = 0  # how many factories ran: observable proof of reuse

    def get_or_create(self, key: Hashable, factory: Callable[[], T]) -> T:
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                return self._entries[key]  # type: ignore[no-any-return]
            key_lock = self._key_locks.setdefault(key, threading.Lock())
        with key_lock:
            with self._lock:
                if key in self._entries:
                    self._entries.move_to_end(key)
                    return self._entries[key]  # type: ignore[no-any-return]
            value = factory()
            with self._lock:
                self._entries[key] = value
                self.builds += 1
                while len(self._entries) > self.maxsize:
                    self._entries.popitem(last=False)
                self._key_locks.pop(key, None)
            return value

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._entries

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def keys(self) -> list[Hashable]:
        with self._lock:
            return list(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._key_locks.clear()
            self._default_judge = None

    # The default judge lives here too: it is built once per process, on first use.

    def default_judge(self, factory: Callable[[], T]) -> T:
        with self._lock:
            judge = self._default_judge
        if judge is not None:
            return judge  # type: ignore[no-any-return]
        judge = self.get_or_create(("default-judge",), factory)
        with self._lock:
            if self._default_judge is None:
                self._default_judge = judge
            return self._default_judge  # type: ignore[no-any-return]

    def set_default_judge(self, judge: Any) -> None:
        """Make ``judge`` the default judge (``None``: build it from the environment again)."""
        with self._lock:
            self._default_judge = judge

    # Observers see every SemanticResult, passing or failing (the pytest plugin's report).

    def add_observer(self, callback: Callable[[Any], None]) -> None:
        with self._lock:
            self._observers.append(callback)

    def remove_observer(self, callback: Callable[[Any], None]) -> None:
        with self._lock:
            if callback in self._observers:
                self._observers.remove(callback)

    def observers(self) -> list[Callable[[Any], None]]:
        with self._lock:
            return list(self._observers)


#: The process-wide cache. Use :func:`clear_cache` to empty it.
model_cache = ModelCache()


def clear_cache() -> None:
    """Forget every loaded model and the default judge (they are rebuilt on next use)."""
    model_cache.clear()
