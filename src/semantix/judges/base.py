"""The judge protocol and the verdict it returns.

A judge is anything with ``evaluate(output, intent_description, threshold) -> Verdict`` and a
``recommended_threshold`` attribute (a float, or None for "no opinion"). Judges may add
``evaluate_batch(requests)`` for speed; semantix uses it when present.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass
from typing import Any, Protocol, runtime_checkable

from semantix.config import check_threshold

__all__ = [
    "FakeJudge",
    "Judge",
    "JudgeIdentity",
    "JudgeRequest",
    "TokenUsage",
    "Verdict",
]


@dataclass(frozen=True, slots=True)
class JudgeIdentity:
    """Who gave a verdict: the judge class and, for model-backed judges, the exact model."""

    name: str
    model: str | None = None
    revision: str | None = None
    file: str | None = None
    #: Why the loaded file is not the one preferred (e.g. a CPU variant absent at the revision).
    note: str | None = None

    def __str__(self) -> str:
        if self.model is None:
            return self.name
        where = self.model
        if self.revision:
            where += f"@{self.revision[:12]}"
        if self.file:
            where += f", {self.file}"
        return f"{self.name}({where})"


@dataclass(frozen=True, slots=True)
class TokenUsage:
    """Tokens an LLM judge spent on one verdict."""

    prompt_tokens: int
    completion_tokens: int

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True, slots=True)
class Verdict:
    """A judge's decision on one (output, intent) pair.

    ``Verdict(passed=True, score=0.93, reason="entailment")`` is all a custom judge needs; the
    keyword-only fields are optional detail that built-in judges fill in.

    Attributes:
        passed: whether the output satisfies the intent.
        score: how strongly, from 0 to 1, or None when the judge gives no score.
        reason: a short human explanation, shown in failure messages, or None.
        threshold: the threshold the decision was made against.
        probabilities: per-label probabilities (NLI judges), e.g. ``{"entailment": 0.93, ...}``.
        evidence: the part of a long output the decision rests on (the best window).
        judge: the judge's identity (class, model, revision, file).
        latency_ms: wall time the judge spent on this verdict.
        usage: token usage (LLM judges).
    """

    passed: bool
    score: float | None = None
    reason: str | None = None
    _: KW_ONLY
    threshold: float | None = None
    probabilities: Mapping[str, float] | None = None
    evidence: str | None = None
    judge: JudgeIdentity | None = None
    latency_ms: float | None = None
    usage: TokenUsage | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.passed, bool):
            raise TypeError(
                f"Verdict.passed must be a bool, got {self.passed!r} "
                f"({type(self.passed).__name__}); use bool(...) around numpy or other values"
            )
        if self.score is not None:
            if isinstance(self.score, bool) or not isinstance(self.score, (int, float)):
                raise TypeError(
                    f"Verdict.score must be a float between 0 and 1 or None, got {self.score!r} "
                    f"({type(self.score).__name__})"
                )
            if math.isnan(self.score) or not 0.0 <= self.score <= 1.0:
                raise ValueError(
                    f"Verdict.score must be between 0 and 1, got {self.score!r}; "
                    "normalise the judge's score (e.g. a probability) before returning it"
                )
            object.__setattr__(self, "score", float(self.score))
        if self.reason is not None and not isinstance(self.reason, str):
            raise TypeError(
                f"Verdict.reason must be a str or None, got {type(self.reason).__name__} "
                f"({self.reason!r:.60}); pass reason=str(...)"
            )
        if self.threshold is not None:
            object.__setattr__(
                self, "threshold", check_threshold(self.threshold, what="Verdict.threshold")
            )

    def __repr__(self) -> str:
        decision = "PASS" if self.passed else "FAIL"
        parts = [decision]
        if self.score is not None:
            comparison = ""
            if self.threshold is not None:
                sign = ">=" if self.score >= self.threshold else "<"
                comparison = f" {sign} {self.threshold:.2f}"
            parts.append(f"score={self.score:.3f}{comparison}")
        if self.judge is not None:
            parts.append(f"judge={self.judge}")
        if self.reason:
            reason = self.reason if len(self.reason) <= 60 else self.reason[:57] + "..."
            parts.append(f"reason={reason!r}")
        return f"<Verdict {' '.join(parts)}>"


def model_argument(model: object, model_name: object, *, judge: str) -> Any:
    """``model``, or semantix-ai's ``model_name=`` spelling of it (never both)."""
    if model_name is None:
        return model
    if model is not None:
        raise TypeError(
            f"{judge} got both model={model!r} and model_name={model_name!r}; pass one "
            "(model_name is the semantix-ai spelling of model)"
        )
    return model_name


#: One item of a batch: (output, intent description, threshold).
JudgeRequest = tuple[str, str, float]


@runtime_checkable
class Judge(Protocol):
    """What semantix needs from a judge.

    Subclassing is optional: any object with these members plugs in. ``intent_description`` is a
    ``str``; for built-in intents it is an `IntentDescription`, a ``str`` that
    also carries the intent's optional ``hypothesis``, ``examples`` and ``counterexamples``.
    """

    @property
    def recommended_threshold(self) -> float | None:
        """The threshold this judge's scores are calibrated for, or None.

        A class attribute, an instance attribute or a property all satisfy this.
        """
        ...

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        """Decide whether ``output`` satisfies ``intent_description`` at ``threshold``."""
        ...


class FakeJudge:
    """A judge for your own tests: scores come from a function you give it.

    ``handler(output, intent_description)`` returns a score in [0, 1] (the verdict passes when
    ``score >= threshold``) or a complete `Verdict`. Every call is recorded in ``calls``.

    Example:
        ```python
        from semantix import FakeJudge, Intent, assert_semantic

        class Greeting(Intent):
            \"\"\"The text greets the reader.\"\"\"

        judge = FakeJudge(lambda output, intent: 1.0 if "hello" in output.lower() else 0.0)
        assert_semantic("Hello there!", Greeting, judge=judge)
        assert judge.calls == [("Hello there!", "The text greets the reader.")]
        ```
    """

    recommended_threshold: float | None = None

    def __init__(
        self,
        handler: Callable[[str, str], float | Verdict] | Mapping[str, float],
        *,
        recommended_threshold: float | None = None,
        name: str = "FakeJudge",
    ) -> None:
        if isinstance(handler, Mapping):
            scores = dict(handler)

            def lookup(output: str, intent_description: str) -> float:
                return scores[str(intent_description)]

            self._handler: Callable[[str, str], float | Verdict] = lookup
        elif callable(handler):
            self._handler = handler
        else:
            raise TypeError(
                "FakeJudge needs a function (output, intent_description) -> score or a mapping "
                f"{{intent_description: score}}, got {type(handler).__name__}"
            )
        if recommended_threshold is not None:
            recommended_threshold = check_threshold(
                recommended_threshold, what="recommended_threshold"
            )
        self.recommended_threshold = recommended_threshold
        self.identity = JudgeIdentity(name)
        self.calls: list[tuple[str, str]] = []

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        self.calls.append((output, str(intent_description)))
        result = self._handler(output, intent_description)
        if isinstance(result, Verdict):
            return result
        score = float(result)
        return Verdict(
            passed=score >= threshold,
            score=score,
            reason=f"fake score {score:.3f}",
            threshold=threshold,
            judge=self.identity,
        )

    def evaluate_batch(self, requests: Sequence[JudgeRequest]) -> list[Verdict]:
        return [self.evaluate(*request) for request in requests]

    def __repr__(self) -> str:
        return f"{self.identity.name}()"


for _public in (FakeJudge, Judge, JudgeIdentity, TokenUsage, Verdict):
    _public.__module__ = "semantix"
