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
import time
from collections.abc import Sequence
from dataclasses import dataclass

from semantix import context
from semantix.checks.base import STRUCTURAL, Structural
from semantix.config import check_seconds, check_threshold
from semantix.errors import JudgeTimeoutError, SemanticAssertionError, SemantixError
from semantix.intent import (
    Conjunction,
    Disjunction,
    Intent,
    IntentDescription,
    IntentLike,
    Negation,
    as_intent,
    iter_leaves,
)
from semantix.judges.base import Capabilities, JudgeLike, JudgeRequest, Verdict, capabilities
from semantix.judges.calls import aask_judge, ask_judge, in_pool
from semantix.judges.deadline import run_with_deadline
from semantix.judges.phrasing import negated_statement
from semantix.outputs import OutputView, describe_calls, output_view
from semantix.pipeline.judging import resolve_judge
from semantix.pipeline.results import CheckError, LeafResult, SemanticResult
from semantix.pipeline.thresholds import resolve_threshold

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

#: Per leaf: how it was asked (None: structural), its verdict, and whether it was judged.
_Verdicts = dict[type[Intent], tuple["_LeafPlan | None", Verdict, bool]]

EMPTY_REASON = "the output is empty, so it cannot satisfy the intent (judge not called)"


@dataclass(frozen=True, slots=True)
class _LeafPlan:
    """How one semantic leaf is asked: the description sent, its threshold, whether inverted."""

    intent: type[Intent]
    description: str
    threshold: float
    threshold_source: str
    judged_as: str | None


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
        setup = _setup(outputs, intent, judge, threshold, timeout)
        return _finish(setup, _ask_within_limit(setup), report)
    except _REPORTED as exc:
        if report:
            _report_error(outputs, intent, exc)
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
                raise _expired(None, timeout, as_intent(intent)) from None
        return _finish(setup, answers, report)
    except _REPORTED as exc:
        if report:
            _report_error(outputs, intent, exc)
        raise


#: Errors a reporting check records as a `CheckError` before raising them.
_REPORTED = (SemantixError, TypeError, ValueError)


@dataclass
class _Setup:
    """One check before its judge answers: outputs read, structural leaves decided, the judge
    resolved, and the semantic requests still to ask (filled by `_plan_requests`)."""

    intent: type[Intent]
    semantic: list[type[Intent]]
    views: list[OutputView]
    decided: list[dict[type[Intent], Verdict]]
    judge: JudgeLike | None
    declared: Capabilities | None
    threshold: float | None
    defaults: context.Defaults
    limit: float | None
    started: float

    def expired(self) -> Exception:
        return _expired(self.declared, self.limit or 0.0, self.intent)


@dataclass
class _Asked:
    """The semantic verdicts known without asking, and the requests the judge must answer."""

    plans: dict[type[Intent], _LeafPlan]
    verdicts: list[_Verdicts]
    asked: list[tuple[int, type[Intent]]]
    requests: list[JudgeRequest]
    what: str


def _setup(
    outputs: Sequence[object],
    intent: IntentLike,
    judge: JudgeLike | str | None,
    threshold: float | None,
    timeout: float | None,
) -> _Setup:
    started = time.perf_counter()
    intent_class = as_intent(intent)
    leaves = list(iter_leaves(intent_class))
    structural: list[type[Structural]] = [leaf for leaf in leaves if issubclass(leaf, Structural)]
    semantic = [leaf for leaf in leaves if not issubclass(leaf, Structural)]
    if threshold is not None:
        check_threshold(threshold)
        if not semantic:
            raise TypeError(
                f"threshold={threshold!r} was given, but {intent_class.__name__} has only "
                "structural leaves, which are decided exactly (1.0 or 0.0) without a judge; "
                "drop threshold="
            )
    views = [output_view(output) for output in outputs]
    decided: list[dict[type[Intent], Verdict]] = [
        {leaf: leaf.decide(view) for leaf in structural} for view in views
    ]
    defaults = context.current()
    limit = check_seconds(timeout if timeout is not None else defaults.timeout)
    resolved = resolve_judge(judge) if semantic else None
    declared = capabilities(resolved) if resolved is not None else None
    return _Setup(
        intent_class,
        semantic,
        views,
        decided,
        resolved,
        declared,
        threshold,
        defaults,
        limit,
        started,
    )


def _ask_within_limit(setup: _Setup) -> tuple[_Asked, list[Verdict]]:
    """`_ask`, bounded by the check's time limit when it has one."""
    if setup.judge is None or setup.limit is None:
        return _ask(setup)
    return run_with_deadline(lambda: _ask(setup), setup.limit, setup.expired, name="semantix-check")


def _ask(setup: _Setup) -> tuple[_Asked, list[Verdict]]:
    asked = _plan_requests(setup)
    if setup.judge is None:
        return asked, []
    return asked, ask_judge(setup.judge, asked.requests, what=asked.what)


async def _aask(
    outputs: Sequence[object],
    intent: IntentLike,
    judge: JudgeLike | str | None,
    threshold: float | None,
    timeout: float | None,
) -> tuple[_Setup, tuple[_Asked, list[Verdict]]]:
    """Setup, planning and asking, with one hop to the worker pool for a sync judge."""

    def prepare() -> tuple[_Setup, tuple[_Asked, list[Verdict]] | None]:
        setup = _setup(outputs, intent, judge, threshold, timeout)
        if setup.declared is not None and setup.declared.abatch is not None:
            return setup, None  # asked on the loop below
        return setup, _ask_within_limit(setup)

    setup, answers = await in_pool(prepare)
    if answers is not None:
        return setup, answers
    if setup.limit is not None and timeout is None:  # the run's default timeout
        try:
            return setup, await asyncio.wait_for(_aask_declared(setup), setup.limit)
        except asyncio.TimeoutError:
            raise setup.expired() from None
    return setup, await _aask_declared(setup)


async def _aask_declared(setup: _Setup) -> tuple[_Asked, list[Verdict]]:
    asked = await in_pool(_plan_requests, setup)
    assert setup.judge is not None  # only reached for a judge that declares aevaluate_batch
    return asked, await aask_judge(setup.judge, asked.requests, what=asked.what)


def _plan_requests(setup: _Setup) -> _Asked:
    """Thresholds (calibration may ask the judge), then which leaves to send, per output."""
    judge, declared = setup.judge, setup.declared
    if judge is None or declared is None:
        return _Asked({}, [{} for _ in setup.views], [], [], "")
    plans = {
        leaf: _plan(leaf, judge, declared, setup.threshold, setup.defaults.threshold)
        for leaf in setup.semantic
    }
    asked: list[tuple[int, type[Intent]]] = []
    requests: list[JudgeRequest] = []
    verdicts: list[_Verdicts] = []
    for index, (view, known) in enumerate(zip(setup.views, setup.decided, strict=True)):
        needed = set(setup.semantic)
        if known and declared.costly:
            needed = set(_undecided(setup.intent, {k: v.passed for k, v in known.items()}))
        mine: _Verdicts = {}
        deciders = ", ".join(leaf.__name__ for leaf in known)
        for leaf in setup.semantic:
            plan = plans[leaf]
            if leaf not in needed:
                mine[leaf] = (plan, _not_judged(deciders), False)
            elif view.text is None:
                raise TypeError(
                    f"{leaf.__name__} is judged on the output's text, but the output has none: "
                    f"it holds {_held(view)}. Check tool calls with semantix.checks "
                    "(e.g. CalledTool(...)), or pass the text you expect"
                )
            elif not view.text.strip():
                mine[leaf] = (plan, _empty_verdict(plan), True)
            else:
                asked.append((index, leaf))
                requests.append((view.text, plan.description, plan.threshold))
        verdicts.append(mine)
    what = ", ".join(leaf.__name__ for leaf in setup.semantic)
    return _Asked(plans, verdicts, asked, requests, what)


def _finish(
    setup: _Setup, answers: tuple[_Asked, list[Verdict]], report: bool
) -> list[SemanticResult]:
    asked, verdicts = answers
    for (index, leaf), verdict in zip(asked.asked, verdicts, strict=True):
        asked.verdicts[index][leaf] = (asked.plans[leaf], verdict, True)
    each_ms = (time.perf_counter() - setup.started) * 1000 / max(1, len(setup.views))
    identity = setup.declared.identity if setup.declared is not None else STRUCTURAL
    results = []
    for view, structural, semantic in zip(setup.views, setup.decided, asked.verdicts, strict=True):
        by_leaf: _Verdicts = {leaf: (None, verdict, True) for leaf, verdict in structural.items()}
        by_leaf.update(semantic)
        leaf_results: list[LeafResult] = []
        passed = _combine(setup.intent, by_leaf, expected=True, out=leaf_results)
        text = view.text or ""
        results.append(
            SemanticResult(
                intent=setup.intent,
                output=text,
                passed=passed,
                leaves=tuple(leaf_results),
                judge=identity,
                empty=bool(setup.semantic) and not text.strip(),
                duration_ms=each_ms,
            )
        )
    if report:
        for result in results:
            context.notify(result)
    return results


def _report_error(outputs: Sequence[object], intent: object, exc: BaseException) -> None:
    for output in outputs:
        context.notify(CheckError(_name_of(intent), _text_or_none(output), exc))


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


def _name_of(intent: object) -> str:
    try:
        return as_intent(intent).__name__
    except (TypeError, ValueError):
        return repr(intent)


def _text_or_none(output: object) -> str | None:
    try:
        return output_view(output).text
    except TypeError:
        return None


def _expired(declared: Capabilities | None, limit: float, intent: type[Intent]) -> Exception:
    name = declared.identity if declared is not None else "the judge"
    return JudgeTimeoutError(
        f"judge {name} did not answer within {limit:g} s on {intent.__name__}; a judge that "
        "times out is never a pass (the timeout bounds the whole check, calibration included). "
        "Raise the timeout "
        "(timeout=..., --semantic-timeout) or find out why the judge hangs"
    )


def _plan(
    leaf: type[Intent],
    judge: JudgeLike,
    declared: Capabilities,
    explicit: float | None,
    judge_default: float | None,
) -> _LeafPlan:
    description: IntentDescription = leaf.judge_description()
    judged_as = None
    if description.hypothesis is None and not declared.reads_negation:
        judged_as = negated_statement(str(description))
    if judged_as is not None:
        description = IntentDescription(
            judged_as,
            hypothesis=None,
            examples=description.counterexamples,
            counterexamples=description.examples,
        )
    chosen = resolve_threshold(
        leaf,
        judge,
        explicit,
        judge_default=judge_default,
        description=description,
        swap_examples=judged_as is not None,
    )
    return _LeafPlan(leaf, description, chosen.value, chosen.source, judged_as)


def _undecided(node: type[Intent], known: dict[type[Intent], bool]) -> frozenset[type[Intent]]:
    """The leaves whose verdict can still change ``node``'s outcome, given the ``known`` ones."""
    return _partial(node, known)[1]


def _partial(
    node: type[Intent], known: dict[type[Intent], bool]
) -> tuple[bool | None, frozenset[type[Intent]]]:
    """``node`` evaluated with only ``known`` leaves: (its value or None, the leaves it needs)."""
    if issubclass(node, Negation):
        value, needed = _partial(node.operand, known)
        return (None if value is None else not value), needed
    if issubclass(node, (Conjunction, Disjunction)):
        absorbing = issubclass(node, Disjunction)  # True decides an |, False decides an &
        still_needed: set[type[Intent]] = set()
        open_operand = False
        for operand in node.operands:
            value, operand_needs = _partial(operand, known)
            if value is absorbing:
                return absorbing, frozenset()
            if value is None:
                open_operand = True
                still_needed |= operand_needs
        return (None if open_operand else not absorbing), frozenset(still_needed)
    if node in known:
        return known[node], frozenset()
    return None, frozenset({node})


def _empty_verdict(plan: _LeafPlan) -> Verdict:
    return Verdict(passed=False, score=0.0, reason=EMPTY_REASON, threshold=plan.threshold)


def _not_judged(deciders: str) -> Verdict:
    return Verdict(passed=False, score=None, reason=f"not judged: decided by {deciders}")


def _held(view: OutputView) -> str:
    if not view.tool_calls:
        return "no text and no tool calls"
    return f"only tool calls: {describe_calls(view.tool_calls)}"


def _combine(
    node: type[Intent],
    by_leaf: _Verdicts,
    *,
    expected: bool,
    out: list[LeafResult],
) -> bool:
    if issubclass(node, Negation):
        return not _combine(node.operand, by_leaf, expected=not expected, out=out)
    if issubclass(node, (Conjunction, Disjunction)):
        results = [
            _combine(operand, by_leaf, expected=expected, out=out) for operand in node.operands
        ]
        return all(results) if issubclass(node, Conjunction) else any(results)
    plan, verdict, judged = by_leaf[node]
    inverted = plan is not None and plan.judged_as is not None
    wanted = expected is not inverted
    if not any(existing.intent is node and existing.expected is wanted for existing in out):
        if plan is None:  # structural: decided exactly, at 1.0
            out.append(LeafResult(node, verdict, 1.0, wanted, "structural"))
        else:
            out.append(
                LeafResult(
                    node,
                    verdict,
                    plan.threshold,
                    wanted,
                    plan.threshold_source,
                    plan.judged_as,
                    judged=judged,
                )
            )
    return verdict.passed is not inverted
