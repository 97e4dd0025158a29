"""What a semantic check returns — one `LeafResult` per leaf intent, in a `SemanticResult` — and
its failure message (`failure_message`, what ``SemanticResult.explain()`` returns).

The failure message says what was asked, what the judge saw and by how much it missed (its shape:
docs/index.md). Its first line keeps the shape semantix-ai users match on (``Semantic check
failed (score=...)``, ``score=N/A`` without a score) for single-intent checks.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from semantix import _config as config
from semantix._intent import Intent
from semantix._text import mask_secrets, preview
from semantix.judges._base import JudgeIdentity, Verdict

__all__ = [
    "BORDERLINE_MARGIN",
    "OUTPUT_PREVIEW_CHARS",
    "CheckError",
    "LeafResult",
    "SemanticResult",
    "failure_message",
    "leaf_verdict_text",
]

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
        threshold_source: the step of the threshold order that chose it (``argument``,
            ``intent``, ``calibrated``, ``marker``, ``scale``, ``judge``, ``default``), or
            ``structural`` for a leaf semantix decides itself (score 1.0 or 0.0, threshold 1.0).
        judged_as: the positive statement a negatively phrased requirement was judged as the
            negation of ("The text uses profanity."), else None.
        judged: False when structural leaves had already decided the check, so the leaf was not
            sent to the judge (its reason says which); such a leaf never fails.
        scale: the judge's declared scale (``entailment``, ``similarity`` or ``score``).
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
        fails)."""
        return not self.judged or self.verdict.passed is self.expected

    @property
    def structural(self) -> bool:
        """Whether semantix decided this leaf itself (`semantix.checks`), without a judge."""
        return self.threshold_source == "structural"

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

    @property
    def topical(self) -> bool:
        """Whether a similarity judge decided this leaf from its description alone (no examples):
        closeness of topic, not whether the output does what it says (marked in every report)."""
        if self.scale != "similarity" or not self.judged or self.structural:
            return False
        description = self.intent.judge_description()
        return not description.examples and not description.counterexamples

    @property
    def summary(self) -> str:
        """``Polite=0.41/0.80`` or ``~MedicalAdvice=0.10/0.70``: the label, score and threshold
        (repeated runs' lines, reprs)."""
        if self.structural:  # decided by semantix itself: 0.00/1.00 says nothing, the reason does
            return f"{self.label}: {preview(self.verdict.reason or 'no reason given', 80, quote=False)}"
        score = "n/a" if self.verdict.score is None else f"{self.verdict.score:.2f}"
        text = f"{self.label}={score}/{self.threshold:.2f}"
        if (
            not self.passed
            and self.verdict.score is not None
            and ((self.verdict.score >= self.threshold) is self.expected)
        ):  # failed on the passing side of its threshold: why
            text += f" ({preview(self.verdict.reason or 'no reason given', 80, quote=False)})"
        return text

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able summary (reports, the CLI's ``--json``)."""
        verdict = self.verdict
        return {
            "intent": self.label,
            "description": str(self.intent.description),  # plain: xdist sends only str
            "judged_as": self.judged_as,
            "expected": self.expected,
            "satisfied": verdict.passed,
            "passed": self.passed,
            "judged": self.judged,
            "score": verdict.score,
            "threshold": self.threshold,
            "threshold_source": self.threshold_source,
            "borderline": self.borderline,
            "topical": self.topical,
            "reason": verdict.reason,
            "evidence": verdict.evidence,
            "judge": None if verdict.judge is None else str(verdict.judge),
            "judge_model": None if verdict.judge is None else verdict.judge.model,
            "latency_ms": verdict.latency_ms,
            "usage": None if verdict.usage is None else asdict(verdict.usage),
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
        scores = ", ".join(leaf.summary for leaf in self.leaves)
        return (
            f"<SemanticResult {'PASS' if self.passed else 'FAIL'} {self.intent.__name__} "
            f"judge={self.judge} [{scores}]>"
        )

    @property
    def score(self) -> float | None:
        """The score of a single-leaf check (None for composites and score-less judges)."""
        return self.leaves[0].verdict.score if len(self.leaves) == 1 else None

    def score_of(self, intent: object = None) -> float:
        """The score of one leaf, as a ``float`` (no ``None`` to narrow under ``mypy --strict``).

        ``intent`` is the leaf's intent class or its name (``"Polite"``, ``"~MedicalAdvice"``);
        omitted for a single-leaf check.

        Raises:
            KeyError: no such leaf, or ``intent`` omitted on a composite (the message lists them).
            ValueError: the judge gave that leaf no score (a structural leaf has 1.0 or 0.0).
        """
        named = [c for c in self.leaves if intent in (c.intent, c.label, c.intent.__name__)]
        if intent is None and len(self.leaves) != 1:
            raise KeyError(
                f"{self.intent.__name__} has {len(self.leaves)} leaves; name one: "
                f"score_of({self.leaves[0].label!r}); leaves: "
                f"{', '.join(leaf.label for leaf in self.leaves)}"
            )
        if intent is not None and not named:
            raise KeyError(
                f"no leaf {intent!r} in {self.intent.__name__}; leaves: "
                f"{', '.join(leaf.label for leaf in self.leaves)}"
            )
        leaf = self.leaves[0] if intent is None else named[0]
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


#: How every message and report shows an outcome (the words are pytest's: passed, failed, error).
OUTCOME_WORDS = {"passed": "PASS", "failed": "FAIL", "error": "ERROR"}

#: The reason of a semantic leaf on an empty output: it fails whichever way it is wanted.
EMPTY_REASON = (
    "nothing to judge: the output is empty (judge not called; never a pass, negated or not)"
)

#: Characters of the output shown in a failure message (the length of the whole is shown too).
OUTPUT_PREVIEW_CHARS = 200
EVIDENCE_PREVIEW_CHARS = 160
#: The most characters of a reason's first clause shown in the verdict column.
WHY_CHARS = 120


def failure_message(result: SemanticResult) -> str:
    """The multi-line failure message of a result (also used by the CLI for a failed check)."""
    name_width = max(len("intent"), *(len(leaf.label) for leaf in result.leaves))
    lines = [_headline(result), f"  judge: {result.judge}", ""]
    lines.append(f"  {'intent':<{name_width}}  score  threshold  verdict")
    for leaf in result.leaves:
        score = "  n/a" if leaf.verdict.score is None else f"{leaf.verdict.score:5.2f}"
        threshold = f"{leaf.threshold:9.2f}" if leaf.judged else f"{'—':>9}"
        lines.append(
            f"  {leaf.label:<{name_width}}  {score}  {threshold}  {leaf_verdict_text(leaf)}"
        )
    lines.append("")
    for leaf in result.leaves:
        lines.append(_block(f"  {leaf.intent.__name__}: ", leaf.intent.description, "    "))
        if leaf.judged_as is not None:
            lines.append(
                f"    judged as NOT: {leaf.judged_as} (a model cannot confirm an absence, so a "
                "negative requirement is judged as the negation of its positive statement)"
            )
        if leaf.threshold_source != "default" and leaf.judged:
            lines.append(
                f"    threshold {leaf.threshold:.2f} from: {_SOURCES[leaf.threshold_source]}"
            )
        if leaf.verdict.reason:
            lines.append(_block("    reason: ", leaf.verdict.reason, "      "))
        evidence = leaf.verdict.evidence
        if evidence and evidence != result.output:
            lines.append(f"    evidence: {preview(evidence, EVIDENCE_PREVIEW_CHARS)}")
    borderline = ", ".join(leaf.label for leaf in result.leaves if leaf.borderline)
    if borderline:
        lines.append("")
        lines.append(
            f"  borderline: {borderline} scored within {BORDERLINE_MARGIN:.2f} of the "
            "threshold; a reworded output may flip this verdict"
        )
    topical = [leaf for leaf in result.leaves if leaf.topical]
    if topical:
        lines += ["", _similarity_note(topical)]
    lines += ["", _output_line(result.output)]
    # The message reaches the terminal, JUnit XML and CI logs: the API key is masked there too.
    return mask_secrets("\n".join(lines), config.api_keys())


def _output_line(output: str) -> str:
    """``output (55 chars): '…'``, or ``output (truncated, 500 chars in all): '…'``."""
    shown = preview(output, OUTPUT_PREVIEW_CHARS, quote=False)
    cut = shown != " ".join(output.split())
    return f"  output ({'truncated, ' if cut else ''}{len(output)} chars{' in all' if cut else ''}): {shown!r}"


def _block(head: str, text: str, indent: str) -> str:
    """``head`` and ``text``, its further lines (a docstring's paragraphs) indented by ``indent``."""
    import textwrap  # a multi-paragraph docstring only

    first, _, rest = text.strip("\n").partition("\n")
    if not rest:
        return head + first
    return head + first + "\n" + textwrap.indent(textwrap.dedent(rest), indent)


def _similarity_note(leaves: list[LeafResult]) -> str:
    labels = list(dict.fromkeys(leaf.label for leaf in leaves))
    judged = "was judged" if len(labels) == 1 else "were judged"
    return (
        f"  similarity: {', '.join(labels)} {judged} by topical closeness to the description (cosine "
        "similarity), not by whether the output does what it says: a curt reply about the same "
        "thing scores like a polite one. For better verdicts give the intent examples and "
        "counterexamples (the judge then compares the output with them), or use an entailment "
        'judge (judge="quantized", --judge quantized).'
    )


_SOURCES = {
    "argument": "the threshold= argument",
    "intent": "the intent's threshold attribute",
    "calibrated": "calibrated from the intent's examples and counterexamples",
    "marker": "the pytest semantic marker",
    "judge": "the judge's recommended_threshold",
    "scale": "the check's own threshold for this judge's scale",
    "default": "the Intent default",
    "structural": "decided by semantix itself, exactly (no judge)",
}


def _headline(result: SemanticResult) -> str:
    name = result.intent.__name__
    if result.passed:
        score = result.leaves[0].verdict.score if len(result.leaves) == 1 else None
        shown = "" if score is None else f" (score={score:.2f})"
        return f"Semantic check passed{shown}: the output satisfies {name}"
    if result.empty:
        return f"Semantic check failed: the output is empty, so it cannot satisfy {name}"
    if len(result.leaves) == 1:
        score = result.leaves[0].verdict.score
        shown = "N/A" if score is None else f"{score:.2f}"
        return f"Semantic check failed (score={shown}): the output does not satisfy {name}"
    return f"Semantic check failed: the output does not satisfy {name}"


def leaf_verdict_text(leaf: LeafResult) -> str:
    """``ok``, ``FAIL: not satisfied``, ``FAIL: the output DID satisfy X (0.91 >= 0.70)``, or
    ``not judged``; a verdict that fails at or above its threshold (a judge's extra condition,
    such as the embedding judge's counterexamples) shows the first clause of its reason."""
    verdict = leaf.verdict
    flag = " (borderline)" if leaf.borderline else ""
    if not leaf.judged:
        return "not judged"
    if leaf.passed:
        return "ok" + flag
    if verdict.reason == EMPTY_REASON:
        return "FAIL: nothing to judge"
    if leaf.expected:
        if verdict.score is None or verdict.score < leaf.threshold:
            return "FAIL: not satisfied" + flag
        first = (verdict.reason or "").split(";", 1)[0].strip()  # the reason's first clause
        if not first:
            return (
                "FAIL: failed at or above its threshold (a condition of the judge beyond the score)"
            )
        return "FAIL: " + preview(first, WHY_CHARS, quote=False)
    what = leaf.judged_as if leaf.judged_as is not None else leaf.intent.__name__
    if verdict.score is None:
        return f"FAIL: the output DID satisfy {what}"
    return (
        f"FAIL: the output DID satisfy {what} ({verdict.score:.2f} >= {leaf.threshold:.2f}){flag}"
    )


for _public in (CheckError, LeafResult, SemanticResult):
    _public.__module__ = "semantix"
