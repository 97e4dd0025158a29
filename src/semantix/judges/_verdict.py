"""What a judge returns: the `Verdict` on one (output, intent) pair, and who gave it.

```python
from semantix import Verdict

print(Verdict(passed=True, score=0.93, reason="entailment", threshold=0.5))
#> <Verdict PASS score=0.930 >= 0.50 reason='entailment'>
```
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass, field

from semantix._config import check_threshold
from semantix._text import preview

__all__ = ["JudgeIdentity", "TokenUsage", "Verdict"]


@dataclass(frozen=True, slots=True)
class JudgeIdentity:
    """Who gave a verdict: the judge class and, for model-backed judges, the exact model."""

    name: str
    model: str | None = None
    revision: str | None = None
    file: str | None = None
    #: Why the loaded file is not the one preferred (e.g. a CPU variant absent at the revision).
    note: str | None = None
    #: Where a local model directory is (absolute), for messages; not part of who the judge is
    #: (a copied directory is the same, and the fingerprint names it by its digest).
    location: str | None = field(default=None, compare=False, repr=False)

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
    # What the verdict cost, not what it decided: two verdicts that differ only there are ==.
    latency_ms: float | None = field(default=None, compare=False)
    usage: TokenUsage | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.passed, bool):
            raise TypeError(
                f"Verdict.passed must be a bool, got {self.passed!r} "
                f"({type(self.passed).__name__}); use bool(...) around numpy or other values"
            )
        score = self.score
        # The common case, a float in [0, 1], is checked by the one comparison (NaN fails it).
        if score is not None and not (type(score) is float and 0.0 <= score <= 1.0):
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
        threshold = self.threshold
        if threshold is not None and not (type(threshold) is float and 0.0 <= threshold <= 1.0):
            object.__setattr__(
                self, "threshold", check_threshold(threshold, what="Verdict.threshold")
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
            reason = preview(self.reason, 60, quote=False)
            parts.append(f"reason={reason!r}")
        return f"<Verdict {' '.join(parts)}>"


for _public in (JudgeIdentity, TokenUsage, Verdict):
    _public.__module__ = "semantix"
