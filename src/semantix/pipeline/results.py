"""What a semantic check returns: one `LeafResult` per leaf intent, in a `SemanticResult`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from semantix import compat
from semantix.intent import Intent
from semantix.judges.base import JudgeIdentity, Verdict
from semantix.pipeline.messages import failure_message

__all__ = ["BORDERLINE_MARGIN", "CheckError", "LeafResult", "SemanticResult"]

#: A score this close to its threshold is flagged "borderline": the verdict most likely to flip
#: on a reworded output.
BORDERLINE_MARGIN = 0.05


@dataclass(frozen=True, slots=True)
class LeafResult:
    """The verdict on one leaf intent, and whether the composite wanted it to hold.

    Attributes:
        intent: the leaf intent.
        verdict: the judge's verdict on the statement it was asked about.
        threshold: the threshold the leaf was judged at.
        expected: whether the output should satisfy the statement judged: False under an odd
            number of ``~``, and for a negatively phrased requirement judged as NOT its positive
            statement (``judged_as``).
        threshold_source: which step of the threshold order chose the threshold: ``argument``,
            ``intent``, ``calibrated``, ``marker``, ``judge`` or ``default``; ``structural``
            for a leaf semantix decides itself (score 1.0 or 0.0, at threshold 1.0).
        judged_as: the positive statement a negatively phrased requirement was judged as the
            negation of ("The text uses profanity."), else None.
        judged: False when the leaf was not sent to the judge because structural leaves had
            already decided the check (its reason says which); such a leaf never fails.
        scale: the judge's declared scale (``entailment``, ``similarity`` or ``score``; the
            failure message says what a similarity judge measured); ``score`` when structural.
    """

    intent: type[Intent]
    verdict: Verdict
    threshold: float
    expected: bool
    threshold_source: str = "default"
    judged_as: str | None = None
    judged: bool = True
    scale: str = "score"

    @property
    def passed(self) -> bool:
        """Whether this leaf went the way the composite intent wanted (a leaf not judged never
        fails: the check was decided without it)."""
        return not self.judged or self.verdict.passed is self.expected

    @property
    def structural(self) -> bool:
        """Whether semantix decided this leaf itself (`semantix.checks`), without a judge."""
        return self.threshold_source == "structural"

    @property
    def ok(self) -> bool:
        """Deprecated: the name semantix 0.1 used for `passed`."""
        compat.warn_renamed("LeafResult.ok", "LeafResult.passed")
        return self.passed

    @property
    def borderline(self) -> bool:
        """Whether the score is within `BORDERLINE_MARGIN` of the threshold."""
        score = self.verdict.score
        if score is None or self.structural:  # a structural leaf is exact, never borderline
            return False
        return abs(score - self.threshold) < BORDERLINE_MARGIN

    @property
    def label(self) -> str:
        """The leaf as the composite names it: ``Polite`` or ``~MedicalAdvice``."""
        negated = not self.expected if self.judged_as is None else self.expected
        return f"~{self.intent.__name__}" if negated else self.intent.__name__

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able summary (reports, the CLI's ``--json``)."""
        verdict = self.verdict
        return {
            "intent": self.label,
            "description": self.intent.description,
            "judged_as": self.judged_as,
            "expected": self.expected,
            "satisfied": verdict.passed,
            "passed": self.passed,
            "judged": self.judged,
            "score": verdict.score,
            "threshold": self.threshold,
            "threshold_source": self.threshold_source,
            "borderline": self.borderline,
            "reason": verdict.reason,
            "evidence": verdict.evidence,
            "judge": None if verdict.judge is None else str(verdict.judge),
            "latency_ms": verdict.latency_ms,
        }


@dataclass(frozen=True, slots=True)
class SemanticResult:
    """The outcome of judging one output against one (possibly composite) intent."""

    intent: type[Intent]
    output: str
    passed: bool
    leaves: tuple[LeafResult, ...]
    judge: JudgeIdentity
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

    @property
    def score(self) -> float | None:
        """The score of a single-leaf check (None for composites and score-less judges)."""
        if len(self.leaves) != 1:
            return None
        return self.leaves[0].verdict.score

    def score_of(self, intent: object = None) -> float:
        """The score of one leaf, as a ``float`` (no ``None`` to narrow under ``mypy --strict``).

        ``intent`` is the leaf's intent class or its name (``"Polite"``, ``"~MedicalAdvice"``);
        omitted for a single-leaf check.

        Raises:
            KeyError: no such leaf, or ``intent`` omitted on a composite (the message lists them).
            ValueError: the judge gave that leaf no score (a structural leaf has 1.0 or 0.0).
        """
        if intent is None:
            if len(self.leaves) != 1:
                raise KeyError(
                    f"{self.intent.__name__} has {len(self.leaves)} leaves; name one: "
                    f"score_of({self.leaves[0].label!r}); leaves: "
                    f"{', '.join(leaf.label for leaf in self.leaves)}"
                )
            leaf = self.leaves[0]
        else:
            found = [
                candidate
                for candidate in self.leaves
                if intent in (candidate.intent, candidate.label, candidate.intent.__name__)
            ]
            if not found:
                raise KeyError(
                    f"no leaf {intent!r} in {self.intent.__name__}; leaves: "
                    f"{', '.join(leaf.label for leaf in self.leaves)}"
                )
            leaf = found[0]
        if leaf.verdict.score is None:
            raise ValueError(
                f"the judge gave {leaf.label} no score (reason: {leaf.verdict.reason!r}); "
                "use result.leaves[...].verdict.passed instead"
            )
        return leaf.verdict.score

    @property
    def borderline(self) -> bool:
        """Whether any leaf's score is within the borderline margin of its threshold."""
        return any(leaf.borderline for leaf in self.leaves)

    def explain(self) -> str:
        """The multi-line explanation used as the failure message."""
        return failure_message(self)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able summary: every leaf's score, threshold and verdict (CLI, reports)."""
        return {
            "intent": self.intent.__name__,
            "judge": str(self.judge),
            "passed": self.passed,
            "empty": self.empty,
            "borderline": self.borderline,
            "duration_ms": self.duration_ms,
            "leaves": [leaf.to_dict() for leaf in self.leaves],
        }


@dataclass(frozen=True, slots=True)
class CheckError:
    """A check that could not be judged: what observers (the pytest report) see for an error."""

    intent: str
    output: str | None
    error: BaseException

    def __repr__(self) -> str:
        return f"<CheckError {self.intent}: {type(self.error).__name__}: {self.error}>"


def _leaf_summary(leaf: LeafResult) -> str:
    score = "n/a" if leaf.verdict.score is None else f"{leaf.verdict.score:.2f}"
    return f"{leaf.label}={score}/{leaf.threshold:.2f}"


for _public in (CheckError, LeafResult, SemanticResult):
    _public.__module__ = "semantix"
