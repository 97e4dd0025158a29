"""The implementation behind `semantix.pipeline` (its face re-exports `__all__`)."""

from __future__ import annotations

import os
import types
from collections.abc import Sequence
from typing import TYPE_CHECKING, NoReturn, TypeVar

from semantix._intent import IntentLike
from semantix.errors import SemanticAssertionError, SemantixError
from semantix.pipeline._options import CheckOptions, Options, read_options
from semantix.pipeline._results import SemanticResult
from semantix.pipeline._steps import (
    REPORTED,
    Outcome,
    ask_within_limit,
    begin,
    finish,
    report_error,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack


def check(
    outputs: Sequence[object], intent: IntentLike, options: Options, *, report: bool = False
) -> list[Outcome]:
    """The pipeline (docs/architecture.md): one outcome per output, in order — its result, or the
    error that stopped its check (a budget that cannot be checked, no text to judge). An error
    that stops the whole check (the judge's, a bad intent) is raised.

    With ``report``, the observers (the pytest report) get one record per output: its result,
    or the `CheckError` that stopped it.
    """
    __tracebackhide__ = True
    try:
        setup = begin(outputs, intent, options)
        return finish(setup, ask_within_limit(setup), report)
    except REPORTED as exc:
        _stopped(outputs, intent, exc, report)


async def acheck(
    outputs: Sequence[object], intent: IntentLike, options: Options, *, report: bool = False
) -> list[Outcome]:
    """`check`, awaitable: the same steps, outcomes, errors and records; only the waiting
    differs. What may block (building the judge, calibration, a sync judge's call) runs in
    semantix's bounded worker pool, never on the event loop; a judge that declares
    ``aevaluate_batch`` is awaited instead. The timeout bounds the whole check with asyncio's
    semantics (`JudgeTimeoutError`), and cancelling the task cancels the wait."""
    __tracebackhide__ = True
    from semantix.pipeline._awaiting import aask

    try:
        setup, answers = await aask(outputs, intent, options)
        return finish(setup, answers, report)
    except REPORTED as exc:
        _stopped(outputs, intent, exc, report)


def _stopped(
    outputs: Sequence[object], intent: IntentLike, exc: Exception, report: bool
) -> NoReturn:
    """Raise ``exc``, which stopped the whole check (recorded first with ``report``)."""
    __tracebackhide__ = True
    if report:
        report_error(outputs, intent, exc)
    if isinstance(exc, SemantixError):  # a script shows its own line and the message
        raise without_our_frames(exc) from exc.__cause__
    raise exc


def _one(outcomes: list[Outcome]) -> SemanticResult:
    __tracebackhide__ = True
    (result,) = _all(outcomes)
    return result


def _all(outcomes: list[Outcome]) -> list[SemanticResult]:
    __tracebackhide__ = True
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            raise outcome
    return outcomes  # type: ignore[return-value]


def _raise_failed(result: SemanticResult) -> SemanticResult:
    __tracebackhide__ = True
    if not result.passed:
        raise SemanticAssertionError(result.explain(), result)  # no frames yet: raised fresh
    return result


def _sequence(outputs: object, what: str) -> Sequence[object]:
    if isinstance(outputs, (str, bytes)) or not isinstance(outputs, Sequence):
        raise TypeError(
            f"{what} needs a sequence of outputs, got {type(outputs).__name__}; for one output "
            f"use {what.removesuffix('_many')}_semantic(output, intent)"
        )
    return outputs


def assert_semantic(
    output: object, intent: IntentLike, **options: Unpack[CheckOptions]
) -> SemanticResult:
    """Assert that ``output`` means what ``intent`` describes.

    Args:
        output: the text, an OpenAI / Anthropic response object, a transcript or stream, or
            their dict forms (`semantix.outputs`).
        intent: an `Intent` class (``~``, ``&``, ``|`` allowed) or a description string.
        **options: ``judge``, ``threshold``, ``timeout`` (`semantix.pipeline._options`).

    Returns:
        The `SemanticResult` (every leaf verdict), when the assertion holds.

    Raises:
        SemanticAssertionError: the output does not satisfy the intent (an ``AssertionError``).
        JudgeError: the judge raised, timed out or returned something that is not a verdict.
        TypeError: a bad output, intent or option.
        ValueError: a bad threshold or timeout.
    """
    __tracebackhide__ = True
    checked = read_options(options, what="assert_semantic")
    try:
        return _raise_failed(_one(check([output], intent, checked, report=True)))
    except SemantixError as exc:  # raised here: a script shows its line and this one frame
        raise without_our_frames(exc) from exc.__cause__


def evaluate_semantic(
    output: object, intent: IntentLike, **options: Unpack[CheckOptions]
) -> SemanticResult:
    """Judge ``output`` against ``intent`` and return the result, without raising on failure
    and without a report record. Options as for `assert_semantic`."""
    return _one(check([output], intent, read_options(options, what="evaluate_semantic")))


def evaluate_many(
    outputs: Sequence[object], intent: IntentLike, **options: Unpack[CheckOptions]
) -> list[SemanticResult]:
    """Judge several outputs against one intent, in one batch; one result per output, in order.
    Options as for `assert_semantic`; ``timeout`` bounds the whole batch."""
    checked = read_options(options, what="evaluate_many")
    return _all(check(_sequence(outputs, "evaluate_many"), intent, checked))


async def aassert_semantic(
    output: object, intent: IntentLike, **options: Unpack[CheckOptions]
) -> SemanticResult:
    """`assert_semantic`, awaitable: the same options, result, errors and report record.

    Use it in async tests and apps: many checks can wait at once (``asyncio.gather``), e.g. an
    LLM judge's requests, up to its ``max_concurrency``. ``assert_semantic`` also works inside a
    running event loop (it never starts one), but blocks the loop while the judge works.
    """
    __tracebackhide__ = True
    checked = read_options(options, what="aassert_semantic")
    try:
        return _raise_failed(_one(await acheck([output], intent, checked, report=True)))
    except SemantixError as exc:  # raised here: a script shows its line and this one frame
        raise without_our_frames(exc) from exc.__cause__


async def aevaluate_semantic(
    output: object, intent: IntentLike, **options: Unpack[CheckOptions]
) -> SemanticResult:
    """`evaluate_semantic`, awaitable (see `acheck`)."""
    return _one(await acheck([output], intent, read_options(options, what="aevaluate_semantic")))


async def aevaluate_many(
    outputs: Sequence[object], intent: IntentLike, **options: Unpack[CheckOptions]
) -> list[SemanticResult]:
    """`evaluate_many`, awaitable (see `acheck`): one batch, one result per output."""
    checked = read_options(options, what="aevaluate_many")
    return _all(await acheck(_sequence(outputs, "aevaluate_many"), intent, checked))


def judged(output: object, intent: IntentLike, options: Options) -> SemanticResult:
    """Judged and reported (one record), never raising on a failure: what the asserting
    runners that decide themselves (the unittest mixin, ``Satisfies``, fixtures) call."""
    __tracebackhide__ = True
    return _one(check([output], intent, options, report=True))


_E = TypeVar("_E", bound=BaseException)
#: semantix's own files: src/semantix/ (this module is in src/semantix/pipeline/).
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def without_our_frames(exc: _E) -> _E:
    """``exc`` without semantix's own frames in its traceback (chained causes keep theirs): a
    script or ``python -m unittest`` shows the user's line, the one public function that raised
    (Python adds the frame an exception leaves; semantix installs no ``sys.excepthook`` to hide
    it: nothing behind the user's back) and one message."""
    kept, entry = [], exc.__traceback__
    while entry is not None:
        if not entry.tb_frame.f_code.co_filename.startswith(_PACKAGE):
            kept.append(entry)
        entry = entry.tb_next
    shortened: types.TracebackType | None = None
    for entry in reversed(kept):
        shortened = types.TracebackType(shortened, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return exc.with_traceback(shortened)
