"""Judge an output against an intent: resolve thresholds, ask the judge, combine, explain.

Threshold order, per leaf intent, first that applies:

1. the explicit ``threshold=`` argument;
2. a ``threshold`` set on the intent class or on an intent class the user wrote above it
   (the library's own ``Intent`` default does not count here);
3. the judge's ``recommended_threshold``;
4. the ``Intent`` base default, 0.8.

``~X`` uses X's threshold; ``&`` and ``|`` resolve each leaf on its own.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from semantix.errors import JudgeError, SemanticAssertionError, SemantixError
from semantix.intent import (
    DEFAULT_THRESHOLD,
    AllOf,
    AnyOf,
    Intent,
    IntentLike,
    Not,
    as_intent,
    iter_leaves,
)
from semantix.judges.base import Judge, JudgeIdentity, JudgeRequest, Verdict
from semantix.validation import check_threshold
from semantix.outputs import output_text

__all__ = [
    "LeafResult",
    "SemanticResult",
    "assert_semantic",
    "evaluate_semantic",
    "judge_name",
    "resolve_threshold",
]

PREVIEW_CHARS = 300


@dataclass(frozen=True, slots=True)
class LeafResult:
    """The verdict on one leaf intent, and whether the composite wanted it to hold."""

    intent: type[Intent]
    verdict: Verdict
    threshold: float
    #: False when the leaf sits under an odd number of ``~``: the output must NOT satisfy it.
    expected: bool

    @property
    def ok(self) -> bool:
        """Whether this leaf went the way the composite intent wanted."""
        return self.verdict.passed is self.expected


@dataclass(frozen=True, slots=True)
class SemanticResult:
    """The outcome of judging one output against one (possibly composite) intent."""

    intent: type[Intent]
    output: str
    passed: bool
    leaves: tuple[LeafResult, ...]
    judge: str
    empty: bool = False
    #: Wall time of the whole check (judge calls included), in milliseconds.
    duration_ms: float | None = None

    def __bool__(self) -> bool:
        raise TypeError(
            "a SemanticResult is not a truth value; use result.passed, or call "
            "assert_semantic(...) to fail the test"
        )

    def __repr__(self) -> str:
        scores = ", ".join(_leaf_summary(leaf) for leaf in self.leaves)
        return (
            f"<SemanticResult {'PASS' if self.passed else 'FAIL'} {self.intent.__name__} "
            f"judge={self.judge} [{scores}]>"
        )

    def explain(self) -> str:
        """The multi-line explanation used as the failure message."""
        return _format_message(self)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able summary: every leaf's score, threshold and verdict (CLI, reports)."""
        return {
            "intent": self.intent.__name__,
            "judge": self.judge,
            "passed": self.passed,
            "empty": self.empty,
            "duration_ms": self.duration_ms,
            "leaves": [
                {
                    "intent": _leaf_label(leaf),
                    "description": leaf.intent.description,
                    "expected": leaf.expected,
                    "score": leaf.verdict.score,
                    "threshold": leaf.threshold,
                    "satisfied": leaf.verdict.passed,
                    "ok": leaf.ok,
                    "reason": leaf.verdict.reason,
                    "latency_ms": leaf.verdict.latency_ms,
                }
                for leaf in self.leaves
            ],
        }


def _leaf_summary(leaf: LeafResult) -> str:
    score = "n/a" if leaf.verdict.score is None else f"{leaf.verdict.score:.2f}"
    prefix = "" if leaf.expected else "~"
    return f"{prefix}{leaf.intent.__name__}={score}/{leaf.threshold:.2f}"


def resolve_threshold(intent: type[Intent], judge: object, explicit: object = None) -> float:
    """The threshold for one leaf intent, following the documented order."""
    if explicit is not None:
        return check_threshold(explicit)
    from_intent = intent.explicit_threshold()
    if from_intent is not None:
        return from_intent
    recommended = getattr(judge, "recommended_threshold", None)
    if recommended is not None:
        return check_threshold(recommended, what=f"{type(judge).__name__}.recommended_threshold")
    return DEFAULT_THRESHOLD


def judge_name(judge: object) -> str:
    identity = getattr(judge, "identity", None)
    if isinstance(identity, JudgeIdentity):
        return str(identity)
    return type(judge).__name__


def evaluate_semantic(
    output: object,
    intent: IntentLike,
    *,
    judge: Judge | None = None,
    threshold: float | None = None,
) -> SemanticResult:
    """Judge ``output`` against ``intent`` and return the result, without raising on failure."""
    started = time.perf_counter()
    intent_class = as_intent(intent)
    if threshold is not None:
        check_threshold(threshold)
    text = output_text(output)
    if judge is None:
        from semantix.judges import default_judge

        judge = default_judge()
    elif not callable(getattr(judge, "evaluate", None)):
        raise TypeError(
            f"judge must have an evaluate(output, intent_description, threshold) method, got "
            f"{type(judge).__name__}; pass a judge such as QuantizedNLIJudge() or FakeJudge(...)"
        )
    leaves = list(iter_leaves(intent_class))
    thresholds = [resolve_threshold(leaf, judge, threshold) for leaf in leaves]
    empty = not text.strip()
    if empty:
        verdicts = [
            Verdict(
                passed=False,
                score=0.0,
                reason="the output is empty, so it cannot satisfy the intent (judge not called)",
                threshold=leaf_threshold,
            )
            for leaf_threshold in thresholds
        ]
    else:
        requests = [
            (text, leaf.judge_description(), leaf_threshold)
            for leaf, leaf_threshold in zip(leaves, thresholds, strict=True)
        ]
        verdicts = _ask_judge(judge, requests, leaves)
    by_leaf = dict(zip(leaves, zip(verdicts, thresholds, strict=True), strict=True))
    leaf_results: list[LeafResult] = []
    passed = _combine(intent_class, by_leaf, expected=True, out=leaf_results)
    return SemanticResult(
        intent=intent_class,
        output=text,
        passed=passed,
        leaves=tuple(leaf_results),
        judge=judge_name(judge),
        empty=empty,
        duration_ms=(time.perf_counter() - started) * 1000,
    )


def assert_semantic(
    output: object,
    intent: IntentLike,
    *,
    judge: Judge | None = None,
    threshold: float | None = None,
) -> SemanticResult:
    """Assert that ``output`` means what ``intent`` describes.

    Args:
        output: the text, or an OpenAI / Anthropic response object or its dict form.
        intent: an :class:`Intent` class (``~``, ``&``, ``|`` allowed) or a description string.
        judge: the judge to ask; default: the process's default judge (quantized NLI).
        threshold: overrides every leaf's threshold (see the threshold order).

    Returns:
        The :class:`SemanticResult` (every leaf verdict), when the assertion holds.

    Raises:
        SemanticAssertionError: the output does not satisfy the intent (an ``AssertionError``).
        JudgeError: the judge raised or returned something that is not a verdict.
        TypeError, ValueError: a bad output, intent or threshold.
    """
    __tracebackhide__ = True
    result = evaluate_semantic(output, intent, judge=judge, threshold=threshold)
    notify_observers(result)
    if not result.passed:
        raise SemanticAssertionError(result.explain(), result)
    return result


def notify_observers(result: SemanticResult) -> None:
    from semantix.cache import model_cache

    for callback in model_cache.observers():
        callback(result)


def _ask_judge(
    judge: Judge, requests: Sequence[JudgeRequest], leaves: Sequence[type[Intent]]
) -> list[Verdict]:
    name = judge_name(judge)
    batch = getattr(judge, "evaluate_batch", None)
    try:
        if callable(batch) and len(requests) > 1:
            verdicts = list(batch(requests))
        else:
            verdicts = [judge.evaluate(*request) for request in requests]
    except SemantixError:
        raise
    except Exception as exc:
        intents = ", ".join(leaf.__name__ for leaf in leaves)
        raise JudgeError(
            f"judge {name} raised {type(exc).__name__} while judging {intents}: {exc}. "
            "A judge error is never a pass; fix the cause (see the chained exception)"
        ) from exc
    if len(verdicts) != len(requests):
        raise JudgeError(
            f"judge {name}.evaluate_batch returned {len(verdicts)} verdicts for "
            f"{len(requests)} requests; it must return one Verdict per request, in order"
        )
    for leaf, verdict in zip(leaves, verdicts, strict=True):
        if not isinstance(verdict, Verdict):
            raise JudgeError(
                f"judge {name} returned {type(verdict).__name__} ({verdict!r:.80}) for "
                f"{leaf.__name__}; a judge must return semantix.Verdict(passed=..., score=..., "
                "reason=...)"
            )
    return verdicts


def _combine(
    node: type[Intent],
    by_leaf: dict[type[Intent], tuple[Verdict, float]],
    *,
    expected: bool,
    out: list[LeafResult],
) -> bool:
    if issubclass(node, Not):
        return not _combine(node.operand, by_leaf, expected=not expected, out=out)
    if issubclass(node, (AllOf, AnyOf)):
        results = [
            _combine(operand, by_leaf, expected=expected, out=out) for operand in node.operands
        ]
        return all(results) if issubclass(node, AllOf) else any(results)
    verdict, leaf_threshold = by_leaf[node]
    if not any(existing.intent is node and existing.expected is expected for existing in out):
        out.append(LeafResult(node, verdict, leaf_threshold, expected))
    return verdict.passed


def _format_message(result: SemanticResult) -> str:
    intent = result.intent
    lines = []
    if result.empty:
        lines.append(
            f"semantic assertion failed: the output is empty, so it cannot satisfy {intent.__name__}"
        )
    else:
        lines.append(f"semantic assertion failed: the output does not satisfy {intent.__name__}")
    lines.append(f"  judge: {result.judge}")
    lines.append("")
    name_width = max(len("intent"), *(len(_leaf_label(leaf)) for leaf in result.leaves))
    lines.append(f"  {'intent':<{name_width}}  score  threshold  verdict")
    for leaf in result.leaves:
        score = "  n/a" if leaf.verdict.score is None else f"{leaf.verdict.score:5.2f}"
        lines.append(
            f"  {_leaf_label(leaf):<{name_width}}  {score}  {leaf.threshold:9.2f}  "
            f"{_leaf_verdict(leaf)}"
        )
    lines.append("")
    for leaf in result.leaves:
        lines.append(f"  {leaf.intent.__name__}: {leaf.intent.description}")
        if leaf.verdict.reason:
            lines.append(f"    reason: {leaf.verdict.reason}")
        if leaf.verdict.evidence and leaf.verdict.evidence != result.output:
            lines.append(f"    evidence: {_preview(leaf.verdict.evidence, 160)}")
    lines.append("")
    lines.append(f"  output ({len(result.output)} chars): {_preview(result.output, PREVIEW_CHARS)}")
    return "\n".join(lines)


def _leaf_label(leaf: LeafResult) -> str:
    return leaf.intent.__name__ if leaf.expected else f"~{leaf.intent.__name__}"


def _leaf_verdict(leaf: LeafResult) -> str:
    verdict = leaf.verdict
    if leaf.ok:
        return "ok"
    if leaf.expected:
        return "FAIL: not satisfied"
    if verdict.score is None:
        return f"FAIL: the output DID satisfy {leaf.intent.__name__}"
    return (
        f"FAIL: the output DID satisfy {leaf.intent.__name__} "
        f"({verdict.score:.2f} >= {leaf.threshold:.2f})"
    )


def _preview(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return repr(flat)
    return repr(flat[: limit - 1] + "…") + f" (truncated, {len(text)} chars in all)"


for _public in (LeafResult, SemanticResult):
    _public.__module__ = "semantix"
