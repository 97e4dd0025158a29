"""Judge an output against an intent: pick the judge, resolve thresholds, ask, combine.

One path for every check: `evaluate_many` (and `evaluate_semantic`,
`assert_semantic` on top of it) takes the judge from `semantix.pipeline.judging.resolve_judge`,
each leaf's threshold from `semantix.pipeline.thresholds.resolve_threshold` (the documented order),
asks through `semantix.judges.calls.ask_judge` (one batch for every leaf and output), and
combines the leaf verdicts: ``~`` inverts, ``&`` needs all, ``|`` needs one.

**Negatively phrased requirements.** A model cannot confirm an absence, so for judges that read
descriptions literally (NLI and embedding judges, ``reads_negation = False``) a requirement such as
"The text must not contain medical advice." is judged as the negation of its positive statement
("The text contains medical advice."), exactly like ``~MedicalAdvice``, and the message says so.
An explicit ``hypothesis`` on the intent turns this off; other judges (LLM judges, your own) get
the description as written.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from semantix import context
from semantix.config import check_seconds, check_threshold
from semantix.errors import SemanticAssertionError, SemantixError
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
from semantix.judges.base import JudgeLike, JudgeRequest, Verdict
from semantix.judges.calls import ask_judge, judge_identity
from semantix.judges.phrasing import negated_statement
from semantix.outputs import output_text
from semantix.pipeline.judging import resolve_judge
from semantix.pipeline.results import CheckError, LeafResult, SemanticResult
from semantix.pipeline.thresholds import resolve_threshold

__all__ = [
    "LeafResult",
    "SemanticResult",
    "assert_semantic",
    "evaluate_many",
    "evaluate_semantic",
    "notify_observers",
    "run_check",
]

EMPTY_REASON = "the output is empty, so it cannot satisfy the intent (judge not called)"


@dataclass(frozen=True, slots=True)
class _LeafPlan:
    """How one leaf is asked: the description sent, its threshold, and whether it is inverted."""

    intent: type[Intent]
    description: str
    threshold: float
    threshold_source: str
    judged_as: str | None


def evaluate_semantic(
    output: object,
    intent: IntentLike,
    *,
    judge: JudgeLike | str | None = None,
    threshold: float | None = None,
    timeout: float | None = None,
) -> SemanticResult:
    """Judge ``output`` against ``intent`` and return the result, without raising on failure.

    Arguments are those of `assert_semantic`.
    """
    return evaluate_many([output], intent, judge=judge, threshold=threshold, timeout=timeout)[0]


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
    started = time.perf_counter()
    intent_class = as_intent(intent)
    if threshold is not None:
        check_threshold(threshold)
    if isinstance(outputs, (str, bytes)) or not isinstance(outputs, Sequence):
        raise TypeError(
            f"evaluate_many needs a sequence of outputs, got {type(outputs).__name__}; "
            "for one output use evaluate_semantic(output, intent)"
        )
    texts = [output_text(output) for output in outputs]
    defaults = context.current()
    limit = check_seconds(timeout if timeout is not None else defaults.timeout)
    resolved = resolve_judge(judge)
    plans = [
        _plan(leaf, resolved, threshold, defaults.threshold) for leaf in iter_leaves(intent_class)
    ]
    judged = [index for index, text in enumerate(texts) if text.strip()]
    requests: list[JudgeRequest] = [
        (texts[index], plan.description, plan.threshold) for index in judged for plan in plans
    ]
    names = ", ".join(plan.intent.__name__ for plan in plans)
    answers = iter(ask_judge(resolved, requests, what=names, timeout=limit))
    verdicts_by_output = {index: [next(answers) for _ in plans] for index in judged}
    identity = judge_identity(resolved)
    each_ms = (time.perf_counter() - started) * 1000 / max(1, len(texts))
    results = []
    for index, text in enumerate(texts):
        verdicts = verdicts_by_output.get(index) or [_empty_verdict(plan) for plan in plans]
        by_leaf = {
            plan.intent: (plan, verdict) for plan, verdict in zip(plans, verdicts, strict=True)
        }
        leaf_results: list[LeafResult] = []
        passed = _combine(intent_class, by_leaf, expected=True, out=leaf_results)
        results.append(
            SemanticResult(
                intent=intent_class,
                output=text,
                passed=passed,
                leaves=tuple(leaf_results),
                judge=identity,
                empty=index not in verdicts_by_output,
                duration_ms=each_ms,
            )
        )
    return results


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
        output: the text, or an OpenAI / Anthropic response object or its dict form.
        intent: an `Intent` class (``~``, ``&``, ``|`` allowed) or a description string.
        judge: the judge to ask, or a spec such as ``"embedding"``; default: the run's default
            judge (quantized NLI unless configured otherwise).
        threshold: overrides every leaf's threshold (step 1 of the threshold order).
        timeout: seconds to wait for the judge before raising `JudgeTimeoutError`; default: the
            run's (``--semantic-timeout``), else no limit.

    Returns:
        The `SemanticResult` (every leaf verdict), when the assertion holds.

    Raises:
        SemanticAssertionError: the output does not satisfy the intent (an ``AssertionError``).
        JudgeError: the judge raised, timed out or returned something that is not a verdict.
        TypeError: a bad output or intent.
        ValueError: a bad threshold or timeout.
    """
    __tracebackhide__ = True
    result = run_check(output, intent, judge=judge, threshold=threshold, timeout=timeout)
    if not result.passed:
        raise SemanticAssertionError(result.explain(), result)
    return result


def run_check(
    output: object,
    intent: IntentLike,
    *,
    judge: JudgeLike | str | None = None,
    threshold: float | None = None,
    timeout: float | None = None,
) -> SemanticResult:
    """Judge and tell the observers (the pytest report): what every asserting runner does.

    A check that cannot be judged (a judge or configuration error) is reported as a
    `CheckError`, then raised.
    """
    __tracebackhide__ = True
    try:
        result = evaluate_semantic(
            output, intent, judge=judge, threshold=threshold, timeout=timeout
        )
    except SemantixError as exc:
        notify_observers(CheckError(_name_of(intent), _text_or_none(output), exc))
        raise
    notify_observers(result)
    return result


def notify_observers(result: object) -> None:
    """Hand a finished check (a result, or the exception that stopped it) to every observer."""
    context.notify(result)


def _name_of(intent: object) -> str:
    try:
        return as_intent(intent).__name__
    except (TypeError, ValueError):
        return repr(intent)


def _text_or_none(output: object) -> str | None:
    try:
        return output_text(output)
    except TypeError:
        return None


def _plan(
    leaf: type[Intent], judge: JudgeLike, explicit: float | None, judge_default: float | None
) -> _LeafPlan:
    description: IntentDescription = leaf.judge_description()
    judged_as = None
    if description.hypothesis is None and not getattr(judge, "reads_negation", True):
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


def _empty_verdict(plan: _LeafPlan) -> Verdict:
    return Verdict(passed=False, score=0.0, reason=EMPTY_REASON, threshold=plan.threshold)


def _combine(
    node: type[Intent],
    by_leaf: dict[type[Intent], tuple[_LeafPlan, Verdict]],
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
    plan, verdict = by_leaf[node]
    inverted = plan.judged_as is not None
    wanted = expected is not inverted
    if not any(existing.intent is node and existing.expected is wanted for existing in out):
        out.append(
            LeafResult(node, verdict, plan.threshold, wanted, plan.threshold_source, plan.judged_as)
        )
    return verdict.passed is not inverted
