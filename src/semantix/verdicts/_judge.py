"""The recording/replaying judge: any judge, with frozen verdicts on disk and a bounded memo
(the package docstring, ``semantix.verdicts``, shows it at work).

`VerdictCache` is a judge's frozen verdicts as a step of a check: each request is answered from
the memo, else the store (modes other than ``off``), else the judge (modes ``off`` and
``update``; misses of one batch together), each by its one key
(`semantix.judges._request.RequestKey`: the memo's key, and the fingerprint's input).
`RecordReplayJudge` is the public adapter users build: a judge with its cache.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from semantix import _config as config
from semantix import _context as context
from semantix._config import check_positive_int
from semantix._text import preview
from semantix.errors import VerdictNotRecordedError
from semantix.judges._base import (
    Judge,
    JudgeLike,
    JudgeRequest,
    Verdict,
    WrappingJudge,
    capabilities,
    judge_identity,
)
from semantix.judges._calls import aask_judge, as_requests, ask_judge, in_pool
from semantix.judges._request import Request, RequestKey
from semantix.verdicts._fingerprint import fingerprint_of
from semantix.verdicts._memo import DEFAULT_MEMO_SIZE, Latch, Memo
from semantix.verdicts._modes import RECORD_HINT, policy, resolve_mode
from semantix.verdicts._record import StoredVerdict, replay_at, replayable
from semantix.verdicts._store import VerdictStore

#: How a `VerdictCache` asks the judge for its misses (checked verdicts, one per request).
_Ask = Callable[[Sequence[Request]], list[Verdict]]
_AAsk = Callable[[Sequence[Request]], Awaitable[list[Verdict]]]

__all__ = ["RecordReplayJudge", "VerdictCache", "VerdictStats", "VerdictUsage", "wrap_judge"]


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


class VerdictCache:
    """One judge's verdicts: the in-run memo, the frozen-verdict store and the mode, with what
    was done so far. A check asks it through ``answer``/``aanswer``, handing it the way to ask
    the judge for what is neither remembered nor stored (module docstring).

    Thread-safe: concurrent requests for the same check wait for one answer.
    """

    def __init__(self, judge: JudgeLike, *, store: VerdictStore, mode: str, memo_size: int) -> None:
        self.judge = judge
        self.store = store
        self.mode = mode
        self.policy = policy(mode)
        self.memo = Memo(memo_size)
        self._lock = threading.Lock()
        self._counts = {"judged": 0, "replayed": 0, "recorded": 0, "memo_hits": 0}
        self._used: set[str] = set()

    @property
    def stats(self) -> VerdictStats:
        with self._lock:
            return VerdictStats(**self._counts)

    def usage(self) -> VerdictUsage:
        with self._lock:
            counts = self._counts
            return VerdictUsage(
                counts["recorded"], counts["replayed"], counts["judged"], frozenset(self._used)
            )

    def reset_usage(self) -> None:
        with self._lock:
            self._counts = dict.fromkeys(self._counts, 0)
            self._used.clear()

    def answer(self, requests: Sequence[Request], ask: _Ask) -> list[Verdict]:
        """A verdict per request: remembered, stored, else asked of the judge (``ask``: the
        misses in one batch) and remembered, recorded as the mode says."""
        found = _Found(requests)
        while found.pending:
            try:
                self._look(found)
                if found.asking:
                    self._record(found, ask(found.asked()))
            finally:
                self.memo.release(found.claimed)
            found.wait()
        return found.verdicts()

    async def aanswer(self, requests: Sequence[Request], ask: _AAsk) -> list[Verdict]:
        """`answer` for an async check: the misses awaited (``ask``) on the caller's loop, the
        memo and the store read and written in the worker pool."""
        import asyncio

        found = _Found(requests)
        while found.pending:
            look = asyncio.ensure_future(in_pool(self._look, found))
            try:
                await asyncio.shield(look)
                if found.asking:
                    verdicts = await ask(found.asked())
                    await in_pool(self._record, found, verdicts)
            finally:
                if look.done():
                    self.memo.release(found.claimed)
                else:  # cancelled: the claims it makes end with it, never left behind
                    look.add_done_callback(lambda _: self.memo.release(found.claimed))
            if found.waiting:
                await in_pool(found.wait)
            else:
                found.wait()
        return found.verdicts()

    # -- steps --

    def _look(self, found: _Found) -> None:
        """Answer what the memo and the store can; claim the rest for asking (a duplicate at a
        threshold the first answer may not tell waits for the next round)."""
        claimed: dict[RequestKey, list[int]] = {}
        exact = self.policy.exact_threshold
        hits = 0
        for index in found.pending:
            key, threshold = found.keys[index], found.requests[index].threshold
            if key in claimed:
                claimed[key].append(index)
                continue
            verdict, latch = self.memo.acquire(key, threshold, exact)
            if verdict is not None:
                found.results[index] = verdict
                hits += 1
            elif latch is not None:
                found.waiting.append((index, latch))
            else:
                claimed[key] = [index]
        found.claimed = list(claimed)
        self._count("memo_hits", hits)
        for key, indices in claimed.items():
            key_fingerprint, record = self._stored(key, found.requests[indices[0]])
            stored = None if record is None else record.replayable()
            if stored is not None:
                self.memo.put(key, stored)
            asked = False
            for index in indices:
                threshold = found.requests[index].threshold
                answer = None if stored is None else replay_at(stored, threshold, exact=exact)
                if answer is not None:
                    found.results[index] = answer
                elif record is not None and not self.policy.calls_judge:
                    raise VerdictNotRecordedError(record.threshold_message(threshold, exact=exact))
                elif not asked:
                    asked = True
                    found.asking.append((index, key_fingerprint))
                else:
                    found.again.append(index)

    def _stored(self, key: RequestKey, request: Request) -> tuple[str | None, StoredVerdict | None]:
        """(fingerprint, stored record) — (None, None) when the mode reads no store.

        Raises:
            VerdictNotRecordedError: nothing is stored and the mode never calls the judge.
        """
        if not self.policy.reads_store:
            return None, None
        key_fingerprint = fingerprint_of(self.judge, key)
        record = self.store.get(key_fingerprint)
        with self._lock:
            self._used.add(key_fingerprint)
        replayed = int(record is not None)
        context.note_verdicts(str(self.store.path), replayed=replayed, used=(key_fingerprint,))
        if record is None and not self.policy.calls_judge:
            raise self._not_recorded(key_fingerprint, request)
        self._count("replayed", replayed)
        return key_fingerprint, record

    def _record(self, found: _Found, verdicts: list[Verdict]) -> None:
        """Remember the judge's verdicts of the misses, and store them when the mode writes."""
        policy_ = self.policy
        self._count("judged", len(verdicts))
        if policy_.reads_store:
            recorded = len(verdicts) if policy_.writes_store else 0
            context.note_verdicts(str(self.store.path), judged=len(verdicts), recorded=recorded)
        secrets = self._secrets() if policy_.writes_store else ()
        for (index, key_fingerprint), verdict in zip(found.asking, verdicts, strict=True):
            output, intent, threshold = found.requests[index]
            if key_fingerprint is not None and policy_.writes_store:
                record = StoredVerdict.from_verdict(
                    key_fingerprint, verdict, self.judge, output, intent,
                    threshold=threshold, secrets=secrets,
                )  # fmt: skip
                self.store.put(record)
                self._count("recorded")
                remembered = record.replayable()
            else:
                remembered = replayable(verdict, self.judge, threshold)
            self.memo.put(found.keys[index], remembered)
            found.results[index] = replayable(verdict, self.judge, threshold, cost=True)

    def _secrets(self) -> tuple[object, ...]:
        """What must never reach a stored file: ``OPENAI_API_KEY`` and the judge's ``secrets``
        (a tuple of values a judge may declare, e.g. the API key it was given)."""
        return (*config.api_keys(), *capabilities(self.judge).secrets)

    def _not_recorded(self, key: str, request: Request) -> VerdictNotRecordedError:
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


class _Found:
    """One batch on its way through a `VerdictCache`: the verdicts known so far, and per
    round what was claimed, what is asked of the judge, and what waits."""

    def __init__(self, requests: Sequence[Request]) -> None:
        self.requests = requests
        self.keys = [request.key() for request in requests]
        self.results: list[Verdict | None] = [None] * len(requests)
        self.pending = list(range(len(requests)))
        self.claimed: list[RequestKey] = []
        self.asking: list[tuple[int, str | None]] = []  #: (index, fingerprint or None)
        self.waiting: list[tuple[int, Latch]] = []  #: answered by another thread
        self.again: list[int] = []  #: asked next round

    def asked(self) -> list[Request]:
        return [self.requests[index] for index, _ in self.asking]

    def wait(self) -> None:
        """Wait for the other threads' answers; what is still open goes round again."""
        for _, latch in self.waiting:
            latch.wait()
        self.pending = self.again + [index for index, _ in self.waiting]
        self.claimed, self.asking, self.waiting, self.again = [], [], [], []

    def verdicts(self) -> list[Verdict]:
        return [verdict for verdict in self.results if verdict is not None]


class RecordReplayJudge(WrappingJudge):
    """Any judge, recording its verdicts to a store and replaying them (``CachingJudge`` is the
    same class under its former name): the judge and its `VerdictCache`. A check unwraps it
    (`semantix.pipeline._judging`) and asks the judge through the cache itself; asked directly
    (``evaluate``, ``evaluate_batch``), it does the same (docs/frozen-verdicts.md).

    Args:
        judge: the judge to wrap; everything it declares is forwarded (`WrappingJudge`).
        store: a ``VerdictStore`` or its directory; default: see ``VerdictStore``.
        mode: ``off``, ``replay``, ``update`` or ``strict``; default ``SEMANTIX_VERDICTS``, else
            ``off``.
        memo: remember verdicts in memory, ``memo_size`` of them, least recently used dropped
            first (``maxsize``: semantix-ai's name for ``memo_size``).
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
        self.memo = memo
        self.verdicts = VerdictCache(
            self.judge,
            store=store if isinstance(store, VerdictStore) else VerdictStore(store),
            mode=resolve_mode(mode),
            memo_size=memo_size if memo else 0,
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.judge!r}, mode={self.mode!r}, store={self.store!r})"

    @property
    def mode(self) -> str:
        return self.verdicts.mode

    @property
    def store(self) -> VerdictStore:
        return self.verdicts.store

    @property
    def stats(self) -> VerdictStats:
        """Counts of judged, replayed, recorded and memoised verdicts so far."""
        return self.verdicts.stats

    def usage(self) -> VerdictUsage:
        """What this judge did with the store so far: counts and the fingerprints it used."""
        return self.verdicts.usage()

    def reset_usage(self) -> None:
        """Start counting afresh (e.g. at the start of a run that reuses this judge)."""
        self.verdicts.reset_usage()

    def clear_memo(self) -> None:
        """Forget the verdicts remembered in memory (the store is untouched)."""
        self.verdicts.memo.clear()

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        return self.evaluate_batch([(output, intent_description, threshold)])[0]

    def evaluate_batch(self, requests: Sequence[JudgeRequest]) -> list[Verdict]:
        """Answer each request from memory, the store or the judge (misses in one batch)."""
        return self.verdicts.answer(as_requests(requests), self._ask)

    def _ask(self, requests: Sequence[Request]) -> list[Verdict]:
        return ask_judge(self.judge, requests, what=_about(requests))

    @property
    def aevaluate_batch(
        self,
    ) -> Callable[[Sequence[JudgeRequest]], Awaitable[list[Verdict]]] | None:
        """The async ability, when the wrapped judge declares one (else None: async checks use
        the worker pool): the same memo and store, the misses awaited from the wrapped judge."""
        return (
            self._aevaluate_batch
            if callable(getattr(self.judge, "aevaluate_batch", None))
            else None
        )

    async def _aevaluate_batch(self, requests: Sequence[JudgeRequest]) -> list[Verdict]:
        async def ask(asked: Sequence[Request]) -> list[Verdict]:
            return await aask_judge(self.judge, asked, what=_about(asked))

        return await self.verdicts.aanswer(as_requests(requests), ask)


def wrap_judge(
    judge: JudgeLike,
    *,
    mode: str | None = None,
    path: VerdictStore | str | os.PathLike[str] | None = None,
    memo: bool = True,
) -> Judge:
    """``judge`` behind the frozen-verdict store, as configured (what it returns when:
    docs/frozen-verdicts.md, "API"); a `ConfigurationError` for a mode not in ``MODES``."""
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


def _about(asked: Sequence[JudgeRequest]) -> str:
    """What a batch of misses is, for an error message."""
    return f"intent {preview(asked[0][1], 60)}" if len(asked) == 1 else f"{len(asked)} checks"


# Shown as importable from the top level: ``semantix.RecordReplayJudge``.
RecordReplayJudge.__module__ = "semantix"
