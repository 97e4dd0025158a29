"""The one way semantix asks a judge, `ask_judge` (docs/architecture.md, step 3 "ask"): each
request to the ability that answers it, any exception a `JudgeError`, each verdict checked
against what was asked (docs/custom-judges.md), the run's secrets masked in every error; and
`judge_identity`, the one way to name a judge."""

from __future__ import annotations

import contextvars
import functools
import math
from collections.abc import Callable, Sequence
from typing import TypeVar

from semantix import _config as config
from semantix import _context as context
from semantix._config import is_number
from semantix._text import mask_exception
from semantix.errors import JudgeError, SemantixError
from semantix.judges._base import (
    Capabilities,
    JudgeIdentity,
    JudgeLike,
    JudgeRequest,
    Verdict,
    WrappingJudge,
    capabilities,
    judge_identity,
)
from semantix.judges._request import Request

T = TypeVar("T")
E = TypeVar("E", bound=BaseException)

__all__ = ["aask_judge", "as_requests", "ask_judge", "check_verdict", "in_pool", "judge_identity"]


def ask_judge(
    judge: JudgeLike,
    requests: Sequence[JudgeRequest],
    *,
    what: str = "",
    declared: Capabilities | None = None,
) -> list[Verdict]:
    """Ask ``judge`` for one verdict per request (in one batch when it can) and check them.

    Each request (a `Request`, or the plain triple) goes to the ability that answers what it
    asks (`_route`). ``what`` names what is being judged (e.g. the intents), for error
    messages; ``declared`` is the judge's `capabilities`, when the caller has read them.
    """
    if not requests:
        return []
    return _ask(judge, as_requests(requests), what, declared or capabilities(judge))


def as_requests(requests: Sequence[JudgeRequest]) -> list[Request]:
    """``requests`` as typed `Request` values (those that are already are kept)."""
    return [r if type(r) is Request else Request(*r) for r in requests]


def _ask(
    judge: JudgeLike, requests: list[Request], what: str, declared: Capabilities
) -> list[Verdict]:
    try:
        verdicts = _route(judge, declared, requests)
        return _checked(judge, verdicts, requests, what)
    except SemantixError as exc:
        _masked(exc, declared)
        raise
    except Exception as exc:
        raise _masked(_raised(judge, _masked(exc, declared), what), declared) from exc


def _route(judge: JudgeLike, declared: Capabilities, requests: list[Request]) -> list[Verdict]:
    """Support requests to the declared ``evaluate_support`` (in one batch), equivalence
    requests to ``evaluate_equivalence``, statements (and what the judge has no ability for:
    its ``evaluate`` reads the description) to ``evaluate_batch`` or ``evaluate``. A wrapper
    (`WrappingJudge`) gets every request through its own ``evaluate_batch``."""
    # issubclass: type's own check, not the structural isinstance of Judge's metaclass
    wrapper = issubclass(type(judge), WrappingJudge)
    answers: dict[int, Verdict] = {}
    if declared.support is not None and not wrapper:
        support = [i for i, request in enumerate(requests) if request.asks == "support"]
        if support:
            answered = declared.support([requests[i] for i in support])
            answers.update(zip(support, answered, strict=True))
    if declared.equivalence is not None and not wrapper:
        for index, (output, description, threshold) in enumerate(requests):
            if requests[index].asks == "equivalence":
                stored = description.stored  # type: ignore[attr-defined]
                answers[index] = declared.equivalence(stored, output, threshold)
    rest = [request for i, request in enumerate(requests) if i not in answers]
    if declared.batch is not None and len(rest) > 1:
        plain = list(declared.batch(rest))
    else:
        plain = [judge.evaluate(*request) for request in rest]
    if not answers:
        return plain
    if len(plain) != len(rest):
        return plain  # `_checked` names the wrong count
    others = iter(plain)
    return [answers[i] if i in answers else next(others) for i in range(len(requests))]


async def aask_judge(
    judge: JudgeLike,
    requests: Sequence[JudgeRequest],
    *,
    what: str = "",
    declared: Capabilities | None = None,
) -> list[Verdict]:
    """`ask_judge`, awaitable: a judge that declares ``aevaluate_batch`` is awaited; any other
    is asked in the worker pool (`in_pool`), so the event loop never blocks. The same checks
    of what comes back, the same errors."""
    if not requests:
        return []
    declared = declared or capabilities(judge)
    typed = as_requests(requests)
    routed = (
        (declared.support is not None or declared.equivalence is not None)
        and not issubclass(type(judge), WrappingJudge)  # a wrapper takes every request itself
        and any(request.asks != "statement" for request in typed)
    )
    if declared.abatch is None or routed:
        return await in_pool(_ask, judge, typed, what, declared)
    abatch = declared.abatch
    try:
        verdicts = list(await abatch(typed))
        return _checked(judge, verdicts, typed, what)
    except SemantixError as exc:
        _masked(exc, declared)
        raise
    except Exception as exc:
        raise _masked(_raised(judge, _masked(exc, declared), what), declared) from exc


async def in_pool(function: Callable[..., T], *args: object) -> T:
    """``function(*args)`` in the run's bounded worker pool (`semantix._context.worker_pool`),
    in a copy of the caller's context (its marker scope); awaiting it never blocks the loop."""
    import asyncio

    loop = asyncio.get_running_loop()
    run = functools.partial(contextvars.copy_context().run, function, *args)
    return await loop.run_in_executor(context.worker_pool(), run)


def _masked(exc: E, declared: Capabilities) -> E:
    """``exc`` and its chain, in place, with the run's known secrets masked: ``OPENAI_API_KEY``
    and the ``secrets`` the judge declares (as the JSON and HTML reports mask them)."""
    mask_exception(exc, (*config.api_keys(), *declared.secrets))
    return exc


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
    if (
        type(verdict) is Verdict
        and type(verdict.passed) is bool
        and type(verdict.score) is float
        and 0.0 <= verdict.score <= 1.0
        and (verdict.threshold is None or abs(verdict.threshold - threshold) <= 1e-9)
        and not (verdict.passed and verdict.score < threshold)
    ):
        return verdict  # the common answer, checked in one comparison chain
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
