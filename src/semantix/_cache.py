"""The one piece of global state in semantix: an explicit, thread-safe, bounded cache.

Its bounded regions hold ``models`` (sessions, tokenizers, torch modules, keyed by what
identifies them), ``judges`` (built from a spec, wrapped for the verdict store, the default judge,
whose failed build is remembered) and ``calibrations``.
Everything here can be rebuilt, so eviction or ``clear_cache()`` loses nothing but time; a run's
state lives in `semantix._context`.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

__all__ = ["ModelCache", "clear_cache", "memo", "model_cache"]

T = TypeVar("T")

#: Bounded regions and their sizes: a loaded model takes about three entries (session, tokenizer,
#: NLI core), so 16 hold five models at once; judges are few; calibrations are small.
REGIONS: dict[str, int] = {"models": 16, "judges": 32, "calibrations": 512}


class ModelCache:
    """A bounded LRU map from keys to expensive objects, built at most once per key.

    ``get_or_create(key, factory)`` builds the value outside the global lock but under a
    per-key lock, so two threads asking for the same model wait for one build, and threads
    asking for different models build in parallel. A factory that raises caches nothing.
    """

    def __init__(self, maxsize: int = REGIONS["models"]) -> None:
        if maxsize < 1:
            raise ValueError(f"maxsize must be at least 1, got {maxsize}")
        self.maxsize = maxsize
        self._sizes = {**REGIONS, "models": maxsize}
        self._regions: dict[str, OrderedDict[Hashable, Any]] = {
            name: OrderedDict() for name in self._sizes
        }
        self._entries = self._regions["models"]
        self._failures: dict[Hashable, BaseException] = {}
        self._lock = threading.Lock()
        self._key_locks: dict[tuple[str, Hashable], threading.Lock] = {}
        self.builds = 0  # how many factories ran: observable proof of reuse

    def get_or_create(
        self,
        key: Hashable,
        factory: Callable[[], T],
        *,
        region: str = "models",
        remember_failure: bool = False,
    ) -> T:
        """The value for ``key`` in ``region``, built by ``factory`` once (thread-safe); with
        ``remember_failure``, a factory that raised is not run again: its error is, until `clear`."""
        entries = self._regions[region]
        with self._lock:
            if key in entries:
                entries.move_to_end(key)
                return entries[key]  # type: ignore[no-any-return]
            key_lock = self._key_locks.setdefault((region, key), threading.Lock())
        with key_lock:
            with self._lock:
                if key in entries:
                    entries.move_to_end(key)
                    return entries[key]  # type: ignore[no-any-return]
                failure = self._failures.get((region, key)) if remember_failure else None
            if failure is not None:
                raise failure.with_traceback(None)
            try:
                value = factory()
            except BaseException as exc:
                with self._lock:
                    if remember_failure and isinstance(exc, Exception):
                        self._failures[(region, key)] = exc
                    self._key_locks.pop((region, key), None)
                raise
            with self._lock:  # stored before the key's lock goes: no second build meanwhile
                entries[key] = value
                self.builds += 1
                while len(entries) > self._sizes[region]:
                    entries.popitem(last=False)
                self._key_locks.pop((region, key), None)
            return value

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._entries

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def values(self, region: str = "models") -> list[Any]:
        """The values of one region, least recently used first."""
        with self._lock:
            return list(self._regions[region].values())

    def keys(self) -> list[Hashable]:
        with self._lock:
            return list(self._entries)

    def clear(self) -> None:
        """Forget every region's entries and remembered failures."""
        with self._lock:
            for entries in self._regions.values():
                entries.clear()
            self._failures.clear()
            self._key_locks.clear()


#: The process-wide cache. Use `clear_cache` to empty it.
model_cache = ModelCache()


def clear_cache() -> None:
    """Empty semantix's in-process caches: loaded models, built judges, calibrations, and every
    memo made with `memo` (parsed phrasings, file choices, compiled patterns).

    Everything is rebuilt on next use. On-disk caches are not touched: the Hugging Face model
    cache, the optimized-session cache (``SEMANTIX_CACHE_PATH``) and the frozen-verdict store.
    """
    model_cache.clear()
    for cached in _memos:
        cached.cache_clear()


_memos: list[Any] = []


def memo(maxsize: int) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """``functools.lru_cache(maxsize)`` that `clear_cache` empties too: every memo semantix
    keeps is made with this, so none survives a ``clear_cache()``."""

    def decorate(function: Callable[..., T]) -> Callable[..., T]:
        cached = functools.lru_cache(maxsize=maxsize)(function)
        _memos.append(cached)
        return cached

    return decorate
