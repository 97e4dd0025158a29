"""The recording judge's in-process memo: bounded, least recently used first out, thread-safe
(docs/frozen-verdicts.md). Concurrent requests for the same check are answered once: the first
thread *claims* the key, the others wait for it and then look again; claims live only while a
check is being answered."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Iterable

from semantix.judges._base import Verdict
from semantix.verdicts._record import replay_at

__all__ = ["DEFAULT_MEMO_SIZE", "Latch", "Memo"]

#: How many checks a recording judge remembers by default (the most recently used).
DEFAULT_MEMO_SIZE = 1024


class Latch:
    """Closed until `set`, then open for good: what a thread waits on while another answers the
    same check (a lock held from the start, so making one costs little on every miss)."""

    __slots__ = ("_lock",)

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._lock.acquire()

    def set(self) -> None:
        self._lock.release()

    def wait(self) -> None:
        with self._lock:
            pass


class Memo:
    """At most ``size`` verdicts by key, least recently used dropped first; 0 keeps none."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[Hashable, Verdict] = OrderedDict()
        self._claims: dict[Hashable, Latch] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    @property
    def claims(self) -> int:
        """How many checks are being answered right now."""
        with self._lock:
            return len(self._claims)

    def acquire(
        self, key: Hashable, threshold: float, exact: bool
    ) -> tuple[Verdict | None, Latch | None]:
        """Look ``key`` up at ``threshold`` (`replay_at`), or claim it for answering.

        Returns ``(verdict, None)`` when an entry is there and answers at ``threshold``;
        ``(None, event)`` when another thread is answering it (wait for ``event``, then ask
        again); ``(None, None)`` when the caller has claimed it and must ``release()`` it.
        """
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                answer = replay_at(entry, threshold, exact=exact)
                if answer is not None:
                    return answer, None
            event = self._claims.get(key)
            if event is not None:
                return None, event
            self._claims[key] = Latch()
            return None, None

    def put(self, key: Hashable, verdict: Verdict) -> None:
        """Remember ``verdict`` for ``key``, dropping the least recently used beyond ``size``."""
        if self.size <= 0:
            return
        with self._lock:
            self._entries[key] = verdict
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def release(self, keys: Iterable[Hashable]) -> None:
        """End the claims on ``keys`` and wake whoever waits for them."""
        with self._lock:
            events = [self._claims.pop(key) for key in keys if key in self._claims]
        for event in events:
            event.set()

    def clear(self) -> None:
        """Forget every remembered verdict."""
        with self._lock:
            self._entries.clear()
