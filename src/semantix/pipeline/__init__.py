"""The one check pipeline: every runner judges an output against an intent through `check`.

For each output and leaf intent, in this order:

1. **view** — the output becomes one `semantix.outputs.OutputView` (text, tool calls, usage);
2. **structural leaves** (`semantix.checks`) are decided by semantix itself, without a judge;
3. **which semantic leaves still matter** — with a judge that declares itself ``costly`` (an LLM;
   set ``judge.costly = True`` to opt any judge in), a semantic leaf whose verdict cannot change
   the outcome any more (``Contains("refund") & Polite`` when the text lacks "refund") is not
   sent, and the report says "not judged: decided by …". Replay and strict modes follow the
   same rule, so a replayed run asks the store for exactly what a live run asked the judge;
4. **thresholds** per semantic leaf, in the documented order (`semantix.pipeline.thresholds`);
5. **ask** the judge once, in one batch, for every semantic leaf of every output
   (`semantix.judges.calls.ask_judge`: errors are `JudgeError`, never a pass);
6. **combine**: ``~`` inverts, ``&`` needs all, ``|`` needs one;
7. **result** (`semantix.pipeline.results`) and, for asserting runners, **one report record**
   per check: the result, or the `CheckError` that stopped it (`semantix.context.notify`).

The run's defaults (judge, verdict mode, marker threshold, timeout) are read once per check from
`semantix.context`; ``timeout`` bounds the whole check, calibration included.

**Negatively phrased requirements.** A model cannot confirm an absence, so for judges that read
descriptions literally (NLI and embedding judges, ``reads_negation = False``) a requirement such as
"The text must not contain medical advice." is judged as the negation of its positive statement
("The text contains medical advice."), exactly like ``~MedicalAdvice``, and the message says so.
An explicit ``hypothesis`` on the intent turns this off; other judges (LLM judges, your own) get
the description as written.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from semantix.config import check_seconds
from semantix.errors import SemanticAssertionError, SemantixError, without_our_frames
from semantix.intent import IntentLike, as_intent
from semantix.judges.base import JudgeLike, Verdict
from semantix.judges.calls import aask_judge, in_pool
from semantix.pipeline.results import LeafResult, SemanticResult
from semantix.pipeline.steps import (
    REPORTED,
    Asked,
    Setup,
    ask_within_limit,
    begin,
    expired,
    finish,
    plan_requests,
    report_error,
)

__all__ = [
    "LeafResult",
    "SemanticResult",
    "aassert_semantic",
    "acheck",
    "aevaluate_many",
    "aevaluate_semantic",
    "arun_check",
    "assert_semantic",
    "check",
    "evaluate_many",
    "evaluate_semantic",
    "run_check",
]


def check(
    outputs: Sequence[object],
    intent: IntentLike,
    *,
    judge: JudgeLike | str | None = None,
    threshold: float | None = None,
    timeout: float | None = None,
    report: bool = False,
) -> list[SemanticResult]:
    """The pipeline (module docstring): one result per output, in order.

    With ``report``, the observers (the pytest report) get one record per output: its result,
    or the `CheckError` that stopped the check, before it is raised.
    """
    __tracebackhide__ = True
    try:
        setup = begin(outputs, intent, judge, threshold, timeout)
        return finish(setup, ask_within_limit(setup), report)
    except REPORTED as exc:
        if report:
            report_error(outputs, intent, exc)
        if isinstance(exc, SemantixError):  # a script shows its own line and the message
            raise without_our_frames(exc) from exc.__cause__
        raise


async def acheck(
    outputs: Sequence[object],
    intent: IntentLike,
    *,
    judge: JudgeLike | str | None = None,
    threshold: float | None = None,
    timeout: float | None = None,
    report: bool = False,
) -> list[SemanticResult]:
    """`check`, awaitable: the same steps, results, errors and report records; only the waiting
    differs. What may block (building the judge, calibration, a sync judge's call) runs in
    semantix's bounded worker pool, never on the event loop; a judge that declares
    ``aevaluate_batch`` is awaited instead. ``timeout`` bounds the whole check with asyncio's
    semantics (`JudgeTimeoutError`), and cancelling the task cancels the wait."""
    __tracebackhide__ = True
    try:
        if timeout is None:
            setup, answers = await _aask(outputs, intent, judge, threshold, timeout)
        else:
            # The limit is known before the judge is built: the argument, not the run's default.
            try:
                setup, answers = await asyncio.wait_for(
                    _aask(outputs, intent, judge, threshold, timeout), check_seconds(timeout)
                )
            except asyncio.TimeoutError:
                raise expired(None, timeout, as_intent(intent)) from None
        return finish(setup, answers, report)
    except REPORTED as exc:
        if report:
            report_error(outputs, intent, exc)
        if isinstance(exc, SemantixError):  # a script shows its own line and the message
            raise without_our_frames(exc) from exc.__cause__
        raise


async def _aask(
    outputs: Sequence[object],
    intent: IntentLike,
    judge: JudgeLike | str | None,
    threshold: float | None,
    timeout: float | None,
) -> tuple[Setup, tuple[Asked, list[Verdict]]]:
    """Setup, planning and asking, with one hop to the worker pool for a sync judge."""

    def prepare() -> tuple[Setup, tuple[Asked, list[Verdict]] | None]:
        setup = begin(outputs, intent, judge, threshold, timeout)
        if setup.declared is not None and setup.declared.abatch is not None:
            return setup, None  # asked on the loop below
        return setup, ask_within_limit(setup)

    setup, answers = await in_pool(prepare)
    if answers is not None:
        return setup, answers
    if setup.limit is not None and timeout is None:  # the run's default timeout
        try:
            return setup, await asyncio.wait_for(_aask_declared(setup), setup.limit)
        except asyncio.TimeoutError:
            raise setup.expired() from None
    return setup, await _aask_declared(setup)


async def _aask_declared(setup: Setup) -> tuple[Asked, list[Verdict]]:
    asked = await in_pool(plan_requests, setup)
    assert setup.judge is not None  # only reached for a judge that declares aevaluate_batch
    return asked, await aask_judge(setup.judge, asked.requests, what=asked.what)


def evaluate_many(
    outputs: Sequence[object],
    intent: IntentLike,
    *,
    judge: JudgeLike | str | None = None,
    threshold: float | None = None,
    timeout: float | None = None,
) -> list[SemanticResult]:
    """Judge several outputs against one intent, in one batch; one result per output, in order.

    Arguments are those of `assert_semantic`; ``timeout`` bounds the whole batch.
    """
    if isinstance(outputs, (str, bytes)) or not isinstance(outputs, Sequence):
        raise TypeError(
            f"evaluate_many needs a sequence of outputs, got {type(outputs).__name__}; "
            "for one output use evaluate_semantic(output, intent)"
        )
    return check(outputs, intent, judge=judge, threshold=threshold, timeout=timeout)


def evaluate_semantic(
    output: object,
    intent: IntentLike,
    *,
    judge: JudgeLike | str | None = None,
    threshold: float | None = None,
    timeout: float | None = None,
) -> SemanticResult:
    """Judge ``output`` against ``intent`` and return the result, without raising on failure.

    Arguments are those of `assert_semantic`. Nothing is reported (see `run_check`).
    """
    return check([output], intent, judge=judge, threshold=threshold, timeout=timeout)[0]


def run_check(
    output: object,
    intent: IntentLike,
    *,
    judge: JudgeLike | str | None = None,
    threshold: float | None = None,
    timeout: float | None = None,
) -> SemanticResult:
    """Judge and report (the pytest report gets one record): what every asserting runner does.

    A check that cannot be judged (a judge or configuration error) is reported as a
    `CheckError`, then raised.
    """
    __tracebackhide__ = True
    return check([output], intent, judge=judge, threshold=threshold, timeout=timeout, report=True)[
        0
    ]


def assert_semantic(
    output: object,
    intent: IntentLike,
    *,
    judge: JudgeLike | str | None = None,
    threshold: float | None = None,
    timeout: float | None = None,
) -> SemanticResult:
    """Assert that ``output`` means what ``intent`` describes.

    Args:
        output: the text, or an OpenAI / Anthropic response object or its dict form (tool
            calls included, for `semantix.checks`).
        intent: an `Intent` class (``~``, ``&``, ``|`` allowed) or a description string.
        judge: the judge to ask, or a spec such as ``"embedding"``; default: the run's default
            judge (quantized NLI unless configured otherwise).
        threshold: overrides every semantic leaf's threshold (step 1 of the threshold order).
        timeout: seconds the whole check may take (calibration included) before
            `JudgeTimeoutError`; default: the run's (``--semantic-timeout``), else no limit.

    Returns:
        The `SemanticResult` (every leaf verdict), when the assertion holds.

    Raises:
        SemanticAssertionError: the output does not satisfy the intent (an ``AssertionError``).
        JudgeError: the judge raised, timed out or returned something that is not a verdict.
        TypeError: a bad output or intent.
        ValueError: a bad threshold or timeout.
    """
    __tracebackhide__ = True
    result = check(
        [output], intent, judge=judge, threshold=threshold, timeout=timeout, report=True
    )[0]
    if not result.passed:
        raise SemanticAssertionError(result.explain(), result)
    return result


async def aevaluate_semantic(
    output: object,
    intent: IntentLike,
    *,
    judge: JudgeLike | str | None = None,
    threshold: float | None = None,
    timeout: float | None = None,
) -> SemanticResult:
    """`evaluate_semantic`, awaitable (see `acheck`)."""
    return (await acheck([output], intent, judge=judge, threshold=threshold, timeout=timeout))[0]


async def aevaluate_many(
    outputs: Sequence[object],
    intent: IntentLike,
    *,
    judge: JudgeLike | str | None = None,
    threshold: float | None = None,
    timeout: float | None = None,
) -> list[SemanticResult]:
    """`evaluate_many`, awaitable (see `acheck`): one batch, one result per output."""
    if isinstance(outputs, (str, bytes)) or not isinstance(outputs, Sequence):
        raise TypeError(
            f"aevaluate_many needs a sequence of outputs, got {type(outputs).__name__}; "
            "for one output use aevaluate_semantic(output, intent)"
        )
    return await acheck(outputs, intent, judge=judge, threshold=threshold, timeout=timeout)


async def arun_check(
    output: object,
    intent: IntentLike,
    *,
    judge: JudgeLike | str | None = None,
    threshold: float | None = None,
    timeout: float | None = None,
) -> SemanticResult:
    """`run_check`, awaitable: judged and reported (one record), never raising on a failure."""
    __tracebackhide__ = True
    results = await acheck(
        [output], intent, judge=judge, threshold=threshold, timeout=timeout, report=True
    )
    return results[0]


async def aassert_semantic(
    output: object,
    intent: IntentLike,
    *,
    judge: JudgeLike | str | None = None,
    threshold: float | None = None,
    timeout: float | None = None,
) -> SemanticResult:
    """`assert_semantic`, awaitable: the same arguments, result, errors and report record.

    Use it in async tests and apps: many checks can wait at once (``asyncio.gather``), e.g. an
    LLM judge's requests, up to its ``max_concurrency``. ``assert_semantic`` also works inside a
    running event loop (it never starts one), but blocks the loop while the judge works.
    """
    __tracebackhide__ = True
    result = await arun_check(output, intent, judge=judge, threshold=threshold, timeout=timeout)
    if not result.passed:
        raise SemanticAssertionError(result.explain(), result)
    return result
