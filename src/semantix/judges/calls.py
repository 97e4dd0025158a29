"""The one way semantix asks a judge and names it.

Every path that asks a judge — assertions, the frozen-verdict judge, the escalating judge, the
pytest plugin — goes through `ask_judge`: it uses ``evaluate_batch`` when the judge has
one, turns any exception into a `JudgeError` (a judge error is never a pass),
and checks what came back against what was asked: one `Verdict` per request, a score
that is a finite number in [0, 1], no pass below the threshold asked for, and no other threshold
reported. `judge_identity` is the one way to name a judge.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import math
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from semantix.cache import model_cache
from semantix.config import is_number
from semantix.errors import JudgeError, JudgeTimeoutError, SemantixError
from semantix.judges.base import (
    JudgeIdentity,
    JudgeLike,
    JudgeRequest,
    Verdict,
    capabilities,
    judge_identity,
)

T = TypeVar("T")
from semantix.judges.deadline import run_with_deadline

__all__ = ["POOL_SIZE", "aask_judge", "ask_judge", "check_verdict", "in_pool", "judge_identity"]

#: Threads of the worker pool async checks run blocking steps in (a sync judge's call, model
#: loading, calibration). A judge's own ``max_concurrency`` bounds its requests in flight.
POOL_SIZE = 32


def ask_judge(
    judge: JudgeLike,
    requests: Sequence[JudgeRequest],
    *,
    what: str = "",
    timeout: float | None = None,
) -> list[Verdict]:
    """Ask ``judge`` for one verdict per request (in one batch when it can) and check them.

    ``what`` names what is being judged (e.g. the intents), for error messages. With a
    ``timeout`` (seconds), a judge that has not answered by then raises
    `JudgeTimeoutError`; its call cannot be interrupted and finishes in a
    background thread, but its answer is never used.
    """
    if not requests:
        return []
    if timeout is None:
        return _ask(judge, requests, what)
    about = f" on {what}" if what else ""

    def expired() -> JudgeTimeoutError:
        return JudgeTimeoutError(
            f"judge {judge_identity(judge)} did not answer within {timeout:g} s{about}; a judge "
            "that times out is never a pass. Raise the timeout (timeout=..., "
            "--semantic-timeout) or find out why the judge hangs"
        )

    return run_with_deadline(
        lambda: _ask(judge, requests, what), timeout, expired, name="semantix-judge-call"
    )


def _ask(judge: JudgeLike, requests: Sequence[JudgeRequest], what: str) -> list[Verdict]:
    batch = capabilities(judge).batch if len(requests) > 1 else None
    try:
        if batch is not None:
            verdicts = list(batch(list(requests)))
        else:
            verdicts = [judge.evaluate(*request) for request in requests]
    except SemantixError:
        raise
    except Exception as exc:
        raise _raised(judge, exc, what) from exc
    return _checked(judge, verdicts, requests, what)


async def aask_judge(
    judge: JudgeLike, requests: Sequence[JudgeRequest], *, what: str = ""
) -> list[Verdict]:
    """`ask_judge`, awaitable: a judge that declares ``aevaluate_batch`` is awaited; any other
    is asked in the worker pool (`in_pool`), so the event loop never blocks. The same checks
    of what comes back, the same errors."""
    if not requests:
        return []
    abatch = capabilities(judge).abatch
    if abatch is None:
        return await in_pool(_ask, judge, requests, what)
    try:
        verdicts = list(await abatch(list(requests)))
    except SemantixError:
        raise
    except Exception as exc:
        raise _raised(judge, exc, what) from exc
    return _checked(judge, verdicts, requests, what)


async def in_pool(function: Callable[..., T], *args: object) -> T:
    """``function(*args)`` in semantix's bounded worker pool, in a copy of the caller's context
    (its marker scope); awaiting it never blocks the event loop."""
    loop = asyncio.get_running_loop()
    run = functools.partial(contextvars.copy_context().run, function, *args)
    return await loop.run_in_executor(_pool(), run)


def _pool() -> ThreadPoolExecutor:
    return model_cache.get_or_create(
        ("worker-pool", POOL_SIZE),
        lambda: ThreadPoolExecutor(POOL_SIZE, thread_name_prefix="semantix-worker"),
        region="judges",
    )


def _raised(judge: JudgeLike, exc: Exception, what: str) -> JudgeError:
    about = f" while judging {what}" if what else ""
    return JudgeError(
        f"judge {judge_identity(judge)} raised {type(exc).__name__}{about}: {exc}. "
        "A judge error is never a pass; fix the cause (see the chained exception)"
    )


def _checked(
    judge: JudgeLike, verdicts: list[Verdict], requests: Sequence[JudgeRequest], what: str
) -> list[Verdict]:
    if len(verdicts) != len(requests):
        raise JudgeError(
            f"judge {judge_identity(judge)}.evaluate_batch returned {len(verdicts)} verdicts "
            f"for {len(requests)} requests; it must return one Verdict per request, in order"
        )
    for verdict, request in zip(verdicts, requests, strict=True):
        check_verdict(verdict, request[2], judge=judge, what=what)
    return verdicts


def check_verdict(verdict: object, threshold: float, *, judge: object, what: str = "") -> Verdict:
    """Return ``verdict`` if it is a consistent answer at ``threshold``, else raise JudgeError.

    A verdict may *fail* above its threshold (a judge can have extra conditions), but it may not
    pass below it, report another threshold, or carry a score that is not a finite number in
    [0, 1] (a score set after construction is checked here too).
    """
    about = f" for {what}" if what else ""
    if not isinstance(judge, (str, JudgeIdentity)):
        judge = _Named(judge)
    if not isinstance(verdict, Verdict):
        raise JudgeError(
            f"judge {judge} returned {type(verdict).__name__} ({verdict!r:.80}){about}; a judge "
            "must return semantix.Verdict(passed=..., score=..., reason=...)"
        )
    if not isinstance(verdict.passed, bool):
        raise JudgeError(
            f"judge {judge} returned a verdict whose passed is {verdict.passed!r}{about}; "
            "passed must be a bool"
        )
    score = verdict.score
    if score is not None and not is_number(score, low=0.0, high=1.0):
        raise JudgeError(
            f"judge {judge} returned score {score!r}{about}; a score must be a finite number "
            "between 0 and 1 (or None). A judge error is never a pass"
        )
    if verdict.threshold is not None and not math.isclose(
        verdict.threshold, threshold, rel_tol=0.0, abs_tol=1e-9
    ):
        raise JudgeError(
            f"judge {judge} was asked at threshold {threshold:g} but its verdict reports "
            f"threshold {verdict.threshold:g}{about}; a judge must decide at the threshold it "
            "is given"
        )
    if verdict.passed and score is not None and score < threshold:
        raise JudgeError(
            f"judge {judge} passed{about} with score {score:.3f}, below the threshold "
            f"{threshold:g} it was asked at; a verdict that contradicts itself is never a pass"
        )
    return verdict


class _Named:
    """A judge that is named only when a message needs its name (naming may cost)."""

    def __init__(self, judge: object) -> None:
        self.judge = judge

    def __str__(self) -> str:
        return str(judge_identity(self.judge))

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)
