"""The recording/replaying judge: any judge, with frozen verdicts on disk and a bounded memo
(the package docstring, ``semantix.verdicts``, shows it at work).

Each request is answered from the memo, else the store (modes other than ``off``), else the
wrapped judge (modes ``off`` and ``update``), asked through ``semantix.judges.calls.ask_judge()``
— misses of one batch together. The fingerprint is computed only when the store is read or
written: with mode ``off`` a memo hit costs a tuple hash.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Awaitable, Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from semantix import config, context
from semantix.config import check_positive_int
from semantix.errors import VerdictNotRecordedError
from semantix.judges.base import (
    Judge,
    JudgeLike,
    JudgeRequest,
    Verdict,
    WrappingJudge,
    capabilities,
    declares,
    judge_identity,
    plain_wrapper,
)
from semantix.judges.calls import aask_judge, ask_judge, in_pool
from semantix.text import preview
from semantix.verdicts.fingerprint import fingerprint
from semantix.verdicts.memo import DEFAULT_MEMO_SIZE, Latch, Memo, memo_key
from semantix.verdicts.modes import RECORD_HINT, policy, resolve_mode
from semantix.verdicts.record import StoredVerdict, answered, replay_at, replayable
from semantix.verdicts.store import VerdictStore

#: How the recording judge asks the wrapped judge for its misses: (judge, requests, what).
_Asker = Callable[[JudgeLike, Sequence[JudgeRequest], str], list[Verdict]]


def _ask_sync(judge: JudgeLike, requests: Sequence[JudgeRequest], what: str) -> list[Verdict]:
    return ask_judge(judge, requests, what=what)


__all__ = ["RecordReplayJudge", "VerdictStats", "VerdictUsage", "wrap_judge"]


@dataclass(frozen=True, slots=True)
class VerdictStats:
    """What a ``RecordReplayJudge`` did so far."""

    judged: int = 0  #: verdicts the wrapped judge produced
    replayed: int = 0  #: verdicts read from the store
    recorded: int = 0  #: verdicts written to the store
    memo_hits: int = 0  #: verdicts answered from memory


@dataclass(frozen=True, slots=True)
class VerdictUsage:
    """What a run did with the store: the counts a runner reports, and the fingerprints
    ``VerdictStore.unused()`` and ``VerdictStore.prune()`` need.

    Workers' usages add up with ``+``; ``to_dict()`` and ``from_dict()`` carry one across
    processes (e.g. pytest-xdist's ``workeroutput``).
    """

    recorded: int = 0  #: verdicts the judge gave that were written to the store
    replayed: int = 0  #: verdicts read from the store
    judged: int = 0  #: verdicts the wrapped judge gave live (recorded or not)
    used: frozenset[str] = field(default_factory=frozenset)  #: fingerprints read or written

    def __add__(self, other: VerdictUsage) -> VerdictUsage:
        return VerdictUsage(
            recorded=self.recorded + other.recorded,
            replayed=self.replayed + other.replayed,
            judged=self.judged + other.judged,
            used=self.used | other.used,
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able data: counts, and the used fingerprints sorted."""
        return {
            "recorded": self.recorded,
            "replayed": self.replayed,
            "judged": self.judged,
            "used": sorted(self.used),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> VerdictUsage:
        """The inverse of ``to_dict()``."""
        return cls(
            recorded=int(data["recorded"]),
            replayed=int(data["replayed"]),
            judged=int(data["judged"]),
            used=frozenset(str(key) for key in data["used"]),
        )


@plain_wrapper
class RecordReplayJudge(WrappingJudge):
    """Any judge, recording its verdicts to a store and replaying them (``CachingJudge`` is the
    same class under its former name).

    Args:
        judge: the judge to wrap (anything with ``evaluate``; ``evaluate_batch`` is used when
            present). Everything it declares (``recommended_threshold``, ``identity``,
            ``prompt_version``, ``secrets``, ...) is forwarded by `WrappingJudge`, so thresholds,
            fingerprints and messages are the same as without the wrapper.
        store: a ``VerdictStore`` or its directory; default: see ``VerdictStore``.
        mode: ``off``, ``replay``, ``update`` or ``strict``; default ``SEMANTIX_VERDICTS``, else
            ``off`` (see ``semantix.verdicts.modes``).
        memo: remember verdicts in memory, so each (output, intent) is judged — or read from
            disk — once per instance. Thread-safe: concurrent requests for the same check wait
            for one answer.
        memo_size: how many checks the memo keeps, least recently used dropped first
            (default 1024).
        maxsize: semantix-ai's name for ``memo_size`` (``CachingJudge(judge, maxsize=256)``).
    """

    def __init__(
        self,
        judge: JudgeLike,
        *,
        store: VerdictStore | str | os.PathLike[str] | None = None,
        mode: str | None = None,
        memo: bool = True,
        memo_size: int = DEFAULT_MEMO_SIZE,
        maxsize: int | None = None,
    ) -> None:
        if maxsize is not None:  # semantix-ai's CachingJudge(judge, maxsize=...): the memo's size
            memo_size = maxsize
        super().__init__(judge)
        check_positive_int(memo_size, what="memo_size", example=DEFAULT_MEMO_SIZE)
        self.mode = resolve_mode(mode)
        self._policy = policy(self.mode)
        self.store = store if isinstance(store, VerdictStore) else VerdictStore(store)
        self.memo = memo
        self._memo = Memo(memo_size if memo else 0)
        self._lock = threading.Lock()
        self._counts = {"judged": 0, "replayed": 0, "recorded": 0, "memo_hits": 0}
        self._used: set[str] = set()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.judge!r}, mode={self.mode!r}, store={self.store!r})"

    @property
    def stats(self) -> VerdictStats:
        """Counts of judged, replayed, recorded and memoised verdicts so far."""
        with self._lock:
            return VerdictStats(**self._counts)

    def usage(self) -> VerdictUsage:
        """What this judge did with the store so far: counts and the fingerprints it used."""
        with self._lock:
            return VerdictUsage(
                recorded=self._counts["recorded"],
                replayed=self._counts["replayed"],
                judged=self._counts["judged"],
                used=frozenset(self._used),
            )

    def reset_usage(self) -> None:
        """Start counting afresh (e.g. at the start of a run that reuses this judge)."""
        with self._lock:
            self._counts = dict.fromkeys(self._counts, 0)
            self._used.clear()

    def clear_memo(self) -> None:
        """Forget the verdicts remembered in memory (the store is untouched)."""
        self._memo.clear()

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        if self.memo:  # the hot path: a remembered check costs a tuple hash and one lock
            key = memo_key(output, intent_description)
            if not self._policy.reads_store:  # mode off: the memo alone, one request
                return self._judge_one(key, (output, intent_description, threshold))
            verdict = self._memo.lookup(key, threshold, self._policy.exact_threshold)
            if verdict is not None:
                self._count("memo_hits")
                return verdict
        return self.evaluate_batch([(output, intent_description, threshold)])[0]

    def _judge_one(self, key: Hashable, request: JudgeRequest) -> Verdict:
        """One request in mode ``off``: remembered, or claimed (a concurrent ask of the same
        check waits for this answer), asked of the wrapped judge and remembered. The batch
        path, minus the store."""
        while True:
            verdict, event = self._memo.acquire(key, request[2], self._policy.exact_threshold)
            if verdict is not None:
                self._count("memo_hits")
                return verdict
            if event is None:
                break  # claimed: this thread answers
            event.wait()
        remembered = None
        try:
            fresh = ask_judge(self.judge, [request], what=_What([request]))[0]  # type: ignore[arg-type]
            remembered = replayable(fresh, self.judge, request[2])
        finally:
            self._memo.settle(key, remembered)
        self._count("judged")
        return answered(fresh, self.judge, request[2])  # with its latency and usage

    @property
    def aevaluate_batch(
        self,
    ) -> Callable[[Sequence[JudgeRequest]], Awaitable[list[Verdict]]] | None:
        """The async ability, when the wrapped judge declares one (else None: async checks use
        the worker pool): the same memo and store, the misses awaited from the wrapped judge."""
        return self._aevaluate_batch if declares(self.judge, "aevaluate_batch") else None

    async def _aevaluate_batch(self, requests: Sequence[JudgeRequest]) -> list[Verdict]:
        import asyncio

        loop = asyncio.get_running_loop()

        def ask(judge: JudgeLike, asked: Sequence[JudgeRequest], what: str) -> list[Verdict]:
            # Runs in the worker thread: the wrapped judge's coroutine runs on the caller's loop.
            future = asyncio.run_coroutine_threadsafe(aask_judge(judge, asked, what=what), loop)
            return future.result()

        return await in_pool(self._evaluate_batch, requests, ask)

    def evaluate_batch(self, requests: Sequence[JudgeRequest]) -> list[Verdict]:
        """Answer each request from memory, the store or the judge (misses in one batch)."""
        return self._evaluate_batch(requests, _ask_sync)

    def _evaluate_batch(self, requests: Sequence[JudgeRequest], ask: _Asker) -> list[Verdict]:
        keys = [memo_key(output, intent) for output, intent, _ in requests]
        results: list[Verdict | None] = [None] * len(requests)
        pending = list(range(len(requests)))
        while pending:
            claimed: dict[Hashable, list[int]] = {}
            waiting: list[int] = []
            events: list[Latch] = []
            hits = 0
            for index in pending:
                key, threshold = keys[index], requests[index][2]
                if key in claimed:
                    claimed[key].append(index)
                    continue
                if not self.memo:
                    claimed[key] = [index]
                    continue
                verdict, event = self._memo.acquire(key, threshold, self._policy.exact_threshold)
                if verdict is not None:
                    results[index] = verdict
                    hits += 1
                elif event is not None:
                    waiting.append(index)
                    events.append(event)
                else:
                    claimed[key] = [index]
            self._count("memo_hits", hits)
            try:
                undecided = self._answer(claimed, requests, results, ask) if claimed else []
            finally:
                if self.memo and claimed:
                    self._memo.release(claimed)
            for event in events:
                event.wait()
            pending = undecided + waiting
        return [verdict for verdict in results if verdict is not None]

    # -- steps --

    def _answer(
        self,
        claimed: dict[Hashable, list[int]],
        requests: Sequence[JudgeRequest],
        results: list[Verdict | None],
        ask: _Asker,
    ) -> list[int]:
        """Answer the claimed checks from the store or the judge; return indices left undecided
        (a duplicate at a threshold the fresh verdict cannot tell: asked again next round)."""
        asking: list[tuple[Hashable, int, str | None]] = []
        undecided: list[int] = []
        exact = self._policy.exact_threshold
        for key, indices in claimed.items():
            key_fingerprint, record = self._lookup(requests[indices[0]])
            stored = None if record is None else record.replayable()
            if stored is not None:
                self._memo.put(key, stored)
            first_unknown = True
            for index in indices:
                threshold = requests[index][2]
                answer = None if stored is None else replay_at(stored, threshold, exact=exact)
                if answer is not None:
                    results[index] = answer
                elif record is not None and not self._policy.calls_judge:
                    raise VerdictNotRecordedError(record.threshold_message(threshold, exact=exact))
                elif first_unknown:
                    first_unknown = False
                    asking.append((key, index, key_fingerprint))
                else:
                    undecided.append(index)
        if asking:
            self._judge(asking, requests, results, ask)
        return undecided

    def _lookup(self, request: JudgeRequest) -> tuple[str | None, StoredVerdict | None]:
        """(fingerprint, stored record) — (None, None) in mode ``off``.

        Raises:
            VerdictNotRecordedError: nothing is stored and the mode never calls the judge.
        """
        if not self._policy.reads_store:
            return None, None
        key_fingerprint = fingerprint(self.judge, request[0], request[1])
        record = self.store.get(key_fingerprint)
        with self._lock:
            self._used.add(key_fingerprint)
        replayed = int(record is not None)
        context.note_verdicts(str(self.store.path), replayed=replayed, used=(key_fingerprint,))
        if record is None and not self._policy.calls_judge:
            raise self._not_recorded(key_fingerprint, request)
        self._count("replayed", replayed)
        return key_fingerprint, record

    def _judge(
        self,
        asking: list[tuple[Hashable, int, str | None]],
        requests: Sequence[JudgeRequest],
        results: list[Verdict | None],
        ask: _Asker,
    ) -> None:
        """Ask the wrapped judge for the missing checks (one batch); remember, maybe record."""
        asked = [requests[index] for _, index, _ in asking]
        # Named only if a message needs it (a preview costs more than a verdict from the memo).
        what = _What(asked)
        verdicts = ask(self.judge, asked, what)  # type: ignore[arg-type]  # str() on demand
        self._count("judged", len(verdicts))
        if self._policy.reads_store:
            recorded = len(verdicts) if self._policy.writes_store else 0
            context.note_verdicts(str(self.store.path), judged=len(verdicts), recorded=recorded)
        for (key, index, key_fingerprint), verdict in zip(asking, verdicts, strict=True):
            output, intent, threshold = requests[index]
            if self._policy.writes_store and key_fingerprint is not None:
                record = StoredVerdict.from_verdict(
                    key_fingerprint,
                    verdict,
                    self.judge,
                    output,
                    intent,
                    threshold=threshold,
                    secrets=self._secrets(),
                )
                self.store.put(record)
                self._count("recorded")
                remembered = record.replayable()
            else:
                remembered = replayable(verdict, self.judge, threshold)
            self._memo.put(key, remembered)
            results[index] = answered(verdict, self.judge, threshold)  # latency, usage kept

    def _secrets(self) -> tuple[object, ...]:
        """What must never reach a stored file: ``OPENAI_API_KEY`` and the judge's ``secrets``
        (a tuple of values a judge may declare, e.g. the API key it was given)."""
        return (config.openai_api_key(), *capabilities(self.judge).secrets)

    def _not_recorded(self, key: str, request: JudgeRequest) -> VerdictNotRecordedError:
        output, intent, _ = request
        never = " (strict mode never calls the judge)" if self.mode == "strict" else ""
        return VerdictNotRecordedError(
            f"no frozen verdict of {judge_identity(self.judge)} for intent "
            f"{preview(intent, 120)} on output {preview(output, 80)} in mode "
            f"{self.mode!r}{never}: expected {self.store.file_for(key)}; {RECORD_HINT}"
        )

    def _count(self, name: str, increment: int = 1) -> None:
        if increment:
            with self._lock:
                self._counts[name] += increment


def wrap_judge(
    judge: JudgeLike,
    *,
    mode: str | None = None,
    path: VerdictStore | str | os.PathLike[str] | None = None,
    memo: bool = True,
) -> Judge:
    """``judge`` behind the frozen-verdict store, as configured.

    ``mode`` (default ``SEMANTIX_VERDICTS``, else ``off``) and ``path`` (default
    ``SEMANTIX_VERDICTS_PATH``, else ``.semantix/verdicts`` in the current directory) are those
    of ``RecordReplayJudge``. Returns:

    - ``judge`` itself, unchanged, when the mode resolves to ``off`` and ``memo`` is False, or
      when ``judge`` already is a ``RecordReplayJudge`` and neither ``mode``, ``path`` nor
      ``memo`` asks for something else (so wrapping twice is harmless);
    - the judge inside a ``RecordReplayJudge``, wrapped afresh, when ``mode``, ``path`` or
      ``memo`` differ from its own (an explicit ``--semantic-verdicts`` wins over an earlier
      wrapping);
    - otherwise ``RecordReplayJudge(judge, mode=..., store=path, memo=memo)`` — with mode ``off``
      that is the memo alone: nothing is read or written on disk.

    Raises:
        ConfigurationError: the mode (argument or ``SEMANTIX_VERDICTS``) is not one of
            ``off``, ``replay``, ``update``, ``strict``.
    """
    if isinstance(judge, RecordReplayJudge):
        if _same_settings(judge, mode, path, memo):
            return judge
        judge = judge.judge
    resolved = resolve_mode(mode)
    if resolved == "off" and not memo:
        return cast("Judge", judge)
    return RecordReplayJudge(judge, store=path, mode=resolved, memo=memo)


def _same_settings(
    judge: RecordReplayJudge,
    mode: str | None,
    path: VerdictStore | str | os.PathLike[str] | None,
    memo: bool,
) -> bool:
    same_mode = mode is None or resolve_mode(mode) == judge.mode
    store = path if isinstance(path, VerdictStore) else None if path is None else VerdictStore(path)
    same_path = store is None or store.path == judge.store.path
    return same_mode and same_path and memo == judge.memo


class _What:
    """What a batch of misses is, for an error message: built only when one is shown."""

    def __init__(self, asked: Sequence[JudgeRequest]) -> None:
        self.asked = asked

    def __str__(self) -> str:
        if len(self.asked) == 1:
            return f"intent {preview(self.asked[0][1], 60)}"
        return f"{len(self.asked)} checks"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __bool__(self) -> bool:
        return True


# Shown as importable from the top level: ``semantix.RecordReplayJudge``.
RecordReplayJudge.__module__ = "semantix"
