"""The one way semantix asks a judge and names it.

Every path that asks a judge — assertions, the frozen-verdict judge, the escalating judge, the
pytest plugin — goes through `ask_judge`: it uses ``evaluate_batch`` when the judge has
one, turns any exception into a `JudgeError` (a judge error is never a pass), masks the run's
known secrets in every error it lets through and in its whole chain (`_masked`: every sink, the
terminal and JUnit included, reads masked text), and checks what came back against what was
asked: one `Verdict` per request, a score that is a finite number in [0, 1], no pass below the
threshold asked for, and no other threshold reported. `judge_identity` is the one way to name a
judge.
"""

from __future__ import annotations

import contextvars
import functools
import math
from collections.abc import Callable, Sequence
from typing import TypeVar

from semantix import config, context
from semantix.config import is_number
from semantix.errors import JudgeError, SemantixError
from semantix.intent import EquivalenceDescription, SupportDescription
from semantix.judges.base import (
    PLAIN_WRAPPERS,
    Capabilities,
    JudgeIdentity,
    JudgeLike,
    JudgeRequest,
    Verdict,
    WrappingJudge,
    capabilities,
    judge_identity,
)
from semantix.text import mask_exception

T = TypeVar("T")
E = TypeVar("E", bound=BaseException)

__all__ = ["aask_judge", "ask_judge", "check_verdict", "in_pool", "judge_identity"]


def ask_judge(
    judge: JudgeLike,
    requests: Sequence[JudgeRequest],
    *,
    what: str = "",
    declared: Capabilities | None = None,
) -> list[Verdict]:
    """Ask ``judge`` for one verdict per request (in one batch when it can) and check them.

    ``what`` names what is being judged (e.g. the intents), for error messages; ``declared``
    is the judge's `capabilities`, when the caller has read them (once per check).
    """
    if not requests:
        return []
    return _ask(judge, requests, what, declared)


def _ask(
    judge: JudgeLike,
    requests: Sequence[JudgeRequest],
    what: str,
    declared: Capabilities | None = None,
) -> list[Verdict]:
    declared = declared or capabilities(judge)
    kinds = _kinds(judge, declared, requests)
    try:
        if kinds:
            verdicts = _answer_kinds(judge, declared, requests, kinds, what)
        elif declared.batch is not None and len(requests) > 1:
            verdicts = list(declared.batch(list(requests)))
        else:
            verdicts = [judge.evaluate(*request) for request in requests]
        return _checked(judge, verdicts, requests, what)
    except SemantixError as exc:
        _masked(exc, declared)
        raise
    except Exception as exc:
        raise _masked(_raised(judge, _masked(exc, declared), what), declared) from exc


def _kinds(
    judge: JudgeLike, declared: Capabilities, requests: Sequence[JudgeRequest]
) -> dict[int, str]:
    """The requests of another kind than a plain intent, by index: ``support`` (a grounded
    check's `SupportDescription`, for the declared ``evaluate_support``) and ``equivalence`` (a
    snapshot's `EquivalenceDescription`, for ``evaluate_equivalence``). They go to the ability
    of the judge that answers them; a wrapper passes them on through its ``evaluate_batch``
    (its memo, its store) to the judge it wraps, which routes them here in turn."""
    # issubclass: type's own check, not the structural isinstance of Judge's metaclass
    if (declared.support is None and declared.equivalence is None) or issubclass(
        type(judge), WrappingJudge
    ):
        return {}
    kinds: dict[int, str] = {}
    for index, (_, description, _) in enumerate(requests):
        if isinstance(description, SupportDescription) and declared.support is not None:
            kinds[index] = "support"
        elif isinstance(description, EquivalenceDescription) and declared.equivalence is not None:
            kinds[index] = "equivalence"
    return kinds


def _answer_kinds(
    judge: JudgeLike,
    declared: Capabilities,
    requests: Sequence[JudgeRequest],
    kinds: dict[int, str],
    what: str,
) -> list[Verdict]:
    answers: dict[int, Verdict] = {}
    support = [index for index, kind in kinds.items() if kind == "support"]
    if support:
        assert declared.support is not None
        answered = declared.support([requests[index] for index in support])
        answers.update(zip(support, answered, strict=True))
    for index, kind in kinds.items():
        if kind == "equivalence":
            assert declared.equivalence is not None
            output, description, threshold = requests[index]
            stored = description.stored  # type: ignore[attr-defined]
            answers[index] = declared.equivalence(stored, output, threshold)
    rest = [index for index in range(len(requests)) if index not in answers]
    plain = _ask(judge, [requests[index] for index in rest], what, declared) if rest else []
    answers.update(zip(rest, plain, strict=True))
    return [answers[index] for index in range(len(requests))]


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
    if declared.abatch is None or _kinds(judge, declared, requests):
        return await in_pool(_ask, judge, requests, what, declared)
    abatch = declared.abatch
    try:
        verdicts = list(await abatch(list(requests)))
        return _checked(judge, verdicts, requests, what)
    except SemantixError as exc:
        _masked(exc, declared)
        raise
    except Exception as exc:
        raise _masked(_raised(judge, _masked(exc, declared), what), declared) from exc


async def in_pool(function: Callable[..., T], *args: object) -> T:
    """``function(*args)`` in the run's bounded worker pool (`semantix.context.worker_pool`),
    in a copy of the caller's context (its marker scope); awaiting it never blocks the loop."""
    import asyncio

    loop = asyncio.get_running_loop()
    run = functools.partial(contextvars.copy_context().run, function, *args)
    return await loop.run_in_executor(context.worker_pool(), run)


def _masked(exc: E, declared: Capabilities) -> E:
    """``exc`` and its chain, in place, with the run's known secrets masked: ``OPENAI_API_KEY``
    and the ``secrets`` the judge declares (as the JSON and HTML reports mask them)."""
    mask_exception(exc, (config.openai_api_key(), *declared.secrets))
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
    if type(judge) in PLAIN_WRAPPERS:
        return verdicts  # a recording judge's verdicts were checked where it asked for them
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
