"""The run context: what a check uses when the call does not say, and who hears about it.

Three layers, the nearest first:

1. **the scope** of one test or task (`scope`, kept in a `contextvars.ContextVar`): the pytest
   ``semantic`` marker's judge, threshold and timeout. It belongs to the test, thread or asyncio
   task that opened it: two threads in two scopes each see their own, and a scope never outlives
   its ``with`` block. A thread you start sees the scope it was started in when its target is
   wrapped with `bind` (asyncio tasks copy the context by themselves);
2. **the run** (`run_defaults`): what a runner sets for its whole run (the pytest plugin's
   ``--semantic-judge``, ``--semantic-verdicts``, ``--semantic-timeout``); only the options that
   were given, so a `set_default_judge` in ``conftest.py`` survives a run that names no judge;
3. **the process** (`set_defaults`, `semantix.set_default_judge`): the user's own defaults.

The observers (the pytest report) and download listeners are process-wide: a check in any
thread is reported.

**What the run used** belongs to the run too (`current_run`): the frozen verdicts its recording
judges read and wrote, per store (`note_verdicts`, what ``--semantic-verdicts-prune`` reads), and
the worker pool async checks run their blocking steps in (`worker_pool`), which the run owns
and shuts down when it ends. Outside a run (a script), the process is the run. Nothing here is
a cache: `semantix._cache` holds only what can be rebuilt (loaded models, built judges,
calibrations), and nothing asks it what the run did.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, NamedTuple, ParamSpec, TypeVar

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor
    from pathlib import Path

__all__ = [
    "POOL_SIZE",
    "Defaults",
    "Run",
    "add_download_listener",
    "add_observer",
    "bind",
    "capture",
    "current",
    "current_run",
    "download_listeners",
    "note_verdicts",
    "notify",
    "observers",
    "recent_downloads",
    "record_download",
    "remove_download_listener",
    "remove_observer",
    "run_defaults",
    "scope",
    "set_defaults",
    "worker_pool",
]

P = ParamSpec("P")
T = TypeVar("T")


class Defaults(NamedTuple):
    """What a check uses when the call does not say.

    Attributes:
        judge: a judge object or a spec (``"embedding"``, ``"module:attr"``); None: the built-in
            default (``SEMANTIX_JUDGE``, else the quantized NLI judge).
        verdicts_mode: the frozen-verdict mode; None: ``SEMANTIX_VERDICTS``, else ``off``.
        verdicts_path: the frozen-verdict store, absolute; None: ``SEMANTIX_VERDICTS_PATH``,
            else ``.semantix/verdicts`` in ``verdicts_root`` (`config.verdicts_path`).
        verdicts_root: where the default store ``.semantix/verdicts`` is (a pytest run: its
            rootdir); None: the current directory.
        threshold: stands in for the judge's recommended threshold (the ``semantic`` marker's).
        timeout: seconds a check may take; None: no limit.
    """

    judge: object = None
    verdicts_mode: str | None = None
    verdicts_path: Path | None = None
    verdicts_root: Path | None = None
    threshold: float | None = None
    timeout: float | None = None


#: Threads of the worker pool async checks run blocking steps in (a sync judge's call, model
#: loading, calibration). A judge's own ``max_concurrency`` bounds its requests in flight.
POOL_SIZE = 32


class Verdicts:
    """What a run's recording judges did with one verdict store."""

    __slots__ = ("judged", "recorded", "replayed", "used")

    def __init__(self) -> None:
        self.recorded = self.replayed = self.judged = 0
        self.used: set[str] = set()


class Run:
    """One run (a pytest session, or the process): its defaults layer, the verdicts its
    recording judges used, per store directory, and the worker pool it owns."""

    __slots__ = ("layer", "pool", "verdicts")

    def __init__(self, layer: dict[str, Any] | None = None) -> None:
        self.layer: dict[str, Any] = layer or {}
        self.verdicts: dict[str, Verdicts] = {}
        self.pool: ThreadPoolExecutor | None = None


_FIELDS = frozenset(Defaults._fields)
_lock = threading.Lock()
_process = Run()
_runs: list[Run] = []
_scope: contextvars.ContextVar[tuple[dict[str, Any], ...]] = contextvars.ContextVar(
    "semantix_scope", default=()
)
#: Replaced whole under `_lock`, so every check reads it without taking the lock.
_observers: tuple[Callable[[Any], None], ...] = ()
#: Bumped whenever the process's or a run's layer changes; `current` keeps its last merge.
_generation = 0
_merged: tuple[int, tuple[dict[str, Any], ...], Defaults] = (-1, (), Defaults())
#: The captures open in this context, innermost last: (callback, forward to the ones outside).
_captures: contextvars.ContextVar[tuple[tuple[Callable[[Any], None], bool], ...]] = (
    contextvars.ContextVar("semantix_captures", default=())
)
_download_listeners: list[Callable[[str], AbstractContextManager[object]]] = []
_downloads: deque[Any] = deque(maxlen=64)


def _checked(changes: dict[str, Any]) -> dict[str, Any]:
    unknown = set(changes) - _FIELDS
    if unknown:
        raise TypeError(
            f"unknown default(s) {', '.join(sorted(unknown))}; the defaults are "
            f"{', '.join(sorted(_FIELDS))}"
        )
    return changes


def current() -> Defaults:
    """The defaults in force here and now: the process's, the run's, then this scope's.

    Every check reads them, so the merge is kept until a layer changes (the generation) or
    another scope asks (the scope's tuple of layers, held by the entry, is its identity)."""
    scopes = _scope.get()
    kept = _merged
    if kept[0] == _generation and kept[1] is scopes:
        return kept[2]
    with _lock:
        generation = _generation
        layers = [_process.layer, *(run.layer for run in _runs)]
    merged: dict[str, Any] = {}
    for layer in (*layers, *scopes):
        merged.update(layer)
    defaults = Defaults(**merged)
    _remember(generation, scopes, defaults)
    return defaults


def _remember(generation: int, scopes: tuple[dict[str, Any], ...], defaults: Defaults) -> None:
    global _merged
    _merged = (generation, scopes, defaults)


def _changed() -> None:
    """A layer of the process or a run changed (under ``_lock``): `current` merges again."""
    global _generation
    _generation += 1


def current_run() -> Run:
    """The innermost run in force (a `run_defaults` block), else the process's."""
    with _lock:
        return _runs[-1] if _runs else _process


def note_verdicts(
    store: str, *, recorded: int = 0, replayed: int = 0, judged: int = 0, used: Iterable[str] = ()
) -> None:
    """Count, for the current run, what a recording judge did with the store at ``store``."""
    run = current_run()
    with _lock:
        tally = run.verdicts.setdefault(store, Verdicts())
        tally.recorded += recorded
        tally.replayed += replayed
        tally.judged += judged
        tally.used.update(used)


def worker_pool() -> ThreadPoolExecutor:
    """The current run's worker pool (`POOL_SIZE` threads), made on first use; the run shuts it
    down when it ends."""
    run = current_run()
    with _lock:
        if run.pool is None:
            from concurrent.futures import ThreadPoolExecutor  # stdlib; pulls in logging

            run.pool = ThreadPoolExecutor(POOL_SIZE, thread_name_prefix="semantix-worker")
        return run.pool


def set_defaults(**changes: Any) -> None:
    """Change the process's own defaults (``None`` restores the built-in for that field)."""
    with _lock:
        for key, value in _checked(changes).items():
            if value is None:
                _process.layer.pop(key, None)
            else:
                _process.layer[key] = value
        _changed()


@contextlib.contextmanager
def run_defaults(**changes: Any) -> Iterator[Run]:
    """A whole run (a pytest session): its defaults on top of the process's, what it uses,
    the worker pool it owns; all removed (the pool shut down) at the end.

    Only the values that are not None apply: an option the user did not give keeps what the
    process set.
    """
    run = Run({key: value for key, value in _checked(changes).items() if value is not None})
    with _lock:
        _runs.append(run)
        _changed()
    try:
        yield run
    finally:
        with _lock:
            _runs.remove(run)
            _changed()
        if run.pool is not None:
            run.pool.shutdown(wait=False, cancel_futures=True)


@contextlib.contextmanager
def scope(**changes: Any) -> Iterator[Defaults]:
    """Defaults for one test or task (the ``semantic`` marker), for this context only.

    Values that are None keep the value in force outside the block.
    """
    layer = {key: value for key, value in _checked(changes).items() if value is not None}
    token = _scope.set((*_scope.get(), layer))
    try:
        yield current()
    finally:
        _scope.reset(token)


def bind(function: Callable[P, T]) -> Callable[P, T]:
    """``function``, to run in a copy of the current context (its scope included).

    ``threading.Thread(target=semantix._context.bind(work))``: checks inside ``work`` use the
    marker's judge of the test that started the thread. Executors: ``pool.submit(bind(work))``.
    """
    captured = contextvars.copy_context()

    @functools.wraps(function)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        return captured.copy().run(function, *args, **kwargs)

    return run


# Observers see every finished check: a SemanticResult, or the CheckError that stopped it.


def add_observer(callback: Callable[[Any], None]) -> None:
    global _observers
    with _lock:
        _observers = (*_observers, callback)


def remove_observer(callback: Callable[[Any], None]) -> None:
    global _observers
    with _lock:
        if callback in _observers:
            index = _observers.index(callback)
            _observers = _observers[:index] + _observers[index + 1 :]


def observers() -> list[Callable[[Any], None]]:
    return list(_observers)


def notify(event: object) -> None:
    """Hand a finished check (a result, or the `CheckError` that stopped it) to every observer.

    Inside `capture` blocks of this context, their callbacks hear it first, the innermost
    first; one opened with ``forward=False`` keeps it from everything outside it.
    """
    for callback, forward in reversed(_captures.get()):
        callback(event)
        if not forward:
            return
    for callback in _observers:
        callback(event)


@contextlib.contextmanager
def capture(callback: Callable[[Any], None], *, forward: bool = True) -> Iterator[None]:
    """``callback`` hears every event notified in this context (this thread or task) while the
    block runs; with ``forward=False`` the observers do not (a relation's variant runs are
    judged, not reported as the test's own checks)."""
    token = _captures.set((*_captures.get(), (callback, forward)))
    try:
        yield
    finally:
        _captures.reset(token)


# Download listeners: ``factory(description)`` returns a context manager entered around each
# model download from the hub (never around a cache hit), e.g. to show its progress.


def add_download_listener(factory: Callable[[str], AbstractContextManager[object]]) -> None:
    with _lock:
        _download_listeners.append(factory)


def remove_download_listener(factory: Callable[[str], AbstractContextManager[object]]) -> None:
    with _lock:
        if factory in _download_listeners:
            _download_listeners.remove(factory)


def download_listeners() -> list[Callable[[str], AbstractContextManager[object]]]:
    with _lock:
        return list(_download_listeners)


def record_download(download: Any) -> None:
    """Remember one finished download (the last 64 are kept)."""
    with _lock:
        _downloads.append(download)


def recent_downloads() -> list[Any]:
    """The downloads remembered, oldest first."""
    with _lock:
        return list(_downloads)
