"""The one piece of global state in semantix: an explicit, thread-safe, bounded cache.

It holds, each in its own bounded region:

- ``models``: loaded models (ONNX sessions, tokenizers, torch modules) keyed by what identifies
  them — e.g. ``("onnx-session", model_dir, file, threads)`` — so a judge built twice on the same
  model reuses the loaded weights;
- ``judges``: judges built from a spec or wrapped for the frozen-verdict store, and the default
  judge (built once per process, on first use; a failed build is remembered, so a missing model is
  reported once, not looked for again in every test);
- ``calibrations``: thresholds calibrated from an intent's examples, per judge and intent.

It also keeps the run's `Defaults` (the judge, verdict mode, threshold and timeout used
when a call does not say; the pytest plugin and its ``semantic`` marker set them) and the observers
that see every assertion result (the pytest plugin's report). ``clear_cache()`` drops every
region (tests, notebooks); the defaults and observers stay until changed or removed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = ["Defaults", "ModelCache", "clear_cache", "model_cache"]

T = TypeVar("T")

#: Bounded regions and their sizes: a loaded model takes about three entries (session, tokenizer,
#: NLI core), so 16 hold five models at once; judges are few; calibrations are small.
REGIONS: dict[str, int] = {"models": 16, "judges": 32, "calibrations": 512}


@dataclass(frozen=True, slots=True)
class Defaults:
    """What a check uses when the call does not say (set by runners, scoped by the marker).

    Attributes:
        judge: a judge object or a spec (``"embedding"``, ``"module:attr"``); None: the built-in
            default (``SEMANTIX_JUDGE``, else the quantized NLI judge).
        verdicts_mode: the frozen-verdict mode; None: ``SEMANTIX_VERDICTS``, else ``off``.
        threshold: stands in for the judge's recommended threshold (the ``semantic`` marker's).
        timeout: seconds an assertion may wait for its judge; None: no limit.
    """

    judge: object = None
    verdicts_mode: str | None = None
    threshold: float | None = None
    timeout: float | None = None


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
        self._base_defaults = Defaults()
        self._scopes: list[dict[str, Any]] = []
        self._observers: list[Callable[[Any], None]] = []
        self._downloads: deque[Any] = deque(maxlen=64)
        self._download_listeners: list[Callable[[str], AbstractContextManager[object]]] = []
        self.builds = 0  # how many factories ran: observable proof of reuse

    def get_or_create(
        self,
        key: Hashable,
        factory: Callable[[], T],
        *,
        region: str = "models",
        remember_failure: bool = False,
    ) -> T:
        """The value for ``key`` in ``region``, built by ``factory`` once (thread-safe).

        With ``remember_failure``, a factory that raised is not run again for that key: the same
        error is raised at once until `clear` (a missing model is reported once).
        """
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
            except Exception as exc:
                if remember_failure:
                    with self._lock:
                        self._failures[(region, key)] = exc
                raise
            finally:
                with self._lock:
                    self._key_locks.pop((region, key), None)
            with self._lock:
                entries[key] = value
                self.builds += 1
                while len(entries) > self._sizes[region]:
                    entries.popitem(last=False)
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
        """Forget every region's entries and remembered failures (the defaults stay)."""
        with self._lock:
            for entries in self._regions.values():
                entries.clear()
            self._failures.clear()
            self._key_locks.clear()

    # The run's defaults: set by runners, scoped (pushed and popped) by the pytest marker.

    def defaults(self) -> Defaults:
        """The defaults in force now: the run's, with every open scope's changes on top."""
        with self._lock:
            effective = self._base_defaults
            for changes in self._scopes:
                effective = dataclasses.replace(effective, **changes)
            return effective

    def set_defaults(self, **changes: Any) -> None:
        """Change the run's defaults (e.g. ``judge=...``; ``None`` restores the built-in)."""
        with self._lock:
            self._base_defaults = dataclasses.replace(self._base_defaults, **changes)

    @contextlib.contextmanager
    def scoped_defaults(self, **changes: Any) -> Iterator[Defaults]:
        """Defaults changed for the duration of a ``with`` block (one test), then restored.

        A change whose value is None keeps the value in force outside the block.
        """
        scope = {key: value for key, value in changes.items() if value is not None}
        with self._lock:
            self._scopes.append(scope)
        try:
            yield self.defaults()
        finally:
            with self._lock:
                for index in range(len(self._scopes) - 1, -1, -1):
                    if self._scopes[index] is scope:
                        del self._scopes[index]
                        break

    def set_default_judge(self, judge: Any) -> None:
        """Make ``judge`` the default judge (``None``: build it from the environment again)."""
        self.set_defaults(judge=judge)

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

    # Download listeners: ``factory(description)`` returns a context manager entered around each
    # model download from the hub (never around a cache hit), e.g. to show its progress.

    def record_download(self, download: Any) -> None:
        """Remember one finished download (the last 64 are kept)."""
        with self._lock:
            self._downloads.append(download)

    def recent_downloads(self) -> list[Any]:
        """The downloads remembered, oldest first."""
        with self._lock:
            return list(self._downloads)

    def add_download_listener(
        self, factory: Callable[[str], AbstractContextManager[object]]
    ) -> None:
        with self._lock:
            self._download_listeners.append(factory)

    def remove_download_listener(
        self, factory: Callable[[str], AbstractContextManager[object]]
    ) -> None:
        with self._lock:
            if factory in self._download_listeners:
                self._download_listeners.remove(factory)

    def download_listeners(self) -> list[Callable[[str], AbstractContextManager[object]]]:
        with self._lock:
            return list(self._download_listeners)


#: The process-wide cache. Use `clear_cache` to empty it.
model_cache = ModelCache()


def clear_cache() -> None:
    """Empty semantix's in-process cache: loaded models, built judges and calibrations.

    Everything is rebuilt on next use. On-disk caches are not touched: the Hugging Face model
    cache, the optimized-session cache (``SEMANTIX_CACHE_PATH``) and the frozen-verdict store.
    """
    model_cache.clear()
