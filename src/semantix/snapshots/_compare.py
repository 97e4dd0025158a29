"""Do two texts mean the same? Judged both ways, as one leaf of the one check pipeline: each
direction is an ordinary judge request whose description (and ``hypothesis``) is the other text,
verbatim; a judge that declares ``evaluate_equivalence`` (the LLM judge) gets one request with an
`semantix._intent.EquivalenceDescription`. The rules are in docs/semantic-snapshots.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Literal, cast

from semantix._intent import EquivalenceDescription, Intent, IntentDescription, IntentMeta
from semantix._text import SENTENCE_END
from semantix.checks._base import Scoped
from semantix.judges._base import Capabilities, JudgeIdentity, JudgeLike, JudgeRequest, Verdict
from semantix.outputs import OutputView
from semantix.pipeline import SemanticResult, check
from semantix.pipeline._options import read_options
from semantix.snapshots._facts import FactChange, compare_facts

__all__ = [
    "FACTS_MODES",
    "PART_CHARS",
    "SIMILARITY_NOTE",
    "SIMILARITY_THRESHOLD",
    "Equivalence",
    "EquivalenceVerdict",
    "FactsMode",
    "equivalence_of",
    "judge_equivalence",
    "same_meaning",
    "text_parts",
]

#: A text longer than this (in characters, ~150 tokens) is judged in parts of whole sentences.
PART_CHARS = 600

#: The snapshot threshold of a similarity judge (scripts/measure-snapshot-threshold; the figures:
#: docs/semantic-snapshots.md, "Each judge on its own scale").
SIMILARITY_THRESHOLD = 0.75

#: Said once with a snapshot judged by a similarity judge (`Equivalence.note`).
SIMILARITY_NOTE = (
    "judged by similarity, which cannot see a reversed meaning (a dropped 'not', 'all' for "
    "'none') or a changed fact beyond what the fact comparison catches (numbers, dates, "
    "negation words, names); use an entailment judge for those"
)

#: What a changed fact does: fail the snapshot without a judge, or go to the judge, quoted.
FactsMode = Literal["fail", "judge"]
FACTS_MODES: tuple[FactsMode, ...] = ("fail", "judge")


@dataclass(frozen=True, slots=True)
class Equivalence:
    """The judgement of whether a new output means the same as a stored snapshot."""

    stored: str
    output: str
    threshold: float
    judge: JudgeIdentity
    #: The new output entails the stored text: it still states everything the snapshot states.
    forward: Verdict
    #: The stored text entails the new output: the new output adds nothing the snapshot lacks.
    backward: Verdict
    #: One verdict decided both directions (the same words, an empty text, one LLM request).
    symmetric: bool = False
    #: Parts of a long stored text the new output does not state, and the reverse.
    unstated_parts: tuple[str, ...] = ()
    added_parts: tuple[str, ...] = ()
    #: Facts (numbers, dates, negations, names) that differ, found before any judge was asked.
    fact_changes: tuple[FactChange, ...] = ()
    #: What the judge's scale cannot see (`SIMILARITY_NOTE` for a similarity judge), or None.
    note: str | None = None

    @property
    def passed(self) -> bool:
        """Whether the two texts mean the same in both directions."""
        return self.forward.passed and self.backward.passed

    def __bool__(self) -> bool:
        raise TypeError("an Equivalence is not a truth value; use equivalence.passed")

    def __repr__(self) -> str:
        forward, backward = _score(self.forward), _score(self.backward)
        scores = forward if self.symmetric else f"forward={forward} backward={backward}"
        decision = "SAME" if self.passed else "DRIFT"
        return (
            f"<Equivalence {decision} {scores} threshold={self.threshold:.2f} judge={self.judge}>"
        )


@dataclass(frozen=True, slots=True, repr=False)
class EquivalenceVerdict(Verdict):
    """The snapshot leaf's verdict: the weakest direction's, with the whole `Equivalence`."""

    equivalence: Equivalence | None = None


class SameMeaning(Scoped, abstract=True):
    """The snapshot leaf: the output means the same as ``stored``, both ways (module docstring)."""

    stored: ClassVar[str]
    facts: ClassVar[FactsMode]
    scale_thresholds: ClassVar[dict[str, float]] = {"similarity": SIMILARITY_THRESHOLD}

    @classmethod
    def asks(
        cls,
        view: OutputView,
        description: IntentDescription,
        threshold: float,
        declared: Capabilities,
    ) -> Verdict | Sequence[tuple[str, JudgeRequest]]:
        stored, output = cls.stored, view.text or ""
        if stored.split() == output.split():
            return cls._decided(view, declared, threshold, True, "the same words as the snapshot")
        if not stored.strip():
            return cls._decided(view, declared, threshold, False, "the stored snapshot is empty")
        changes = compare_facts(stored, output)
        if changes and cls.facts == "fail":
            reason = "facts changed: " + "; ".join(change.describe() for change in changes)
            return cls._decided(view, declared, threshold, False, reason)
        if declared.equivalence is not None:
            return [("same meaning", (output, EquivalenceDescription(stored), threshold))]
        return [
            *(
                (f"forward {i}", (output, _as_description(part), threshold))
                for i, part in enumerate(text_parts(stored))
            ),
            *(
                (f"backward {i}", (stored, _as_description(part), threshold))
                for i, part in enumerate(text_parts(output))
            ),
        ]

    @classmethod
    def fold(
        cls,
        view: OutputView,
        answers: Sequence[tuple[str, Verdict]],
        threshold: float,
        declared: Capabilities,
        *,
        inverted: bool = False,
    ) -> Verdict:
        stored, output = cls.stored, view.text or ""
        changes = compare_facts(stored, output)
        note = SIMILARITY_NOTE if declared.scale == "similarity" else None
        verdicts = [verdict for _, verdict in answers]
        if len(answers) == 1 and answers[0][0] == "same meaning":
            verdict = verdicts[0]
            equivalence = Equivalence(
                stored, output, threshold, declared.identity, verdict, verdict,
                symmetric=True, fact_changes=changes, note=note,
            )  # fmt: skip
            return EquivalenceVerdict(**_fields(verdict), equivalence=equivalence)
        if declared.scale == "similarity":  # the reason says what was compared: the snapshot
            verdicts = [
                v
                if v.score is None
                else replace(v, reason=f"similarity to the snapshot: {v.score:.3f}")
                for v in verdicts
            ]
        stored_parts, output_parts = text_parts(stored), text_parts(output)
        forward, unstated = _direction(stored_parts, verdicts[: len(stored_parts)])
        backward, added = _direction(output_parts, verdicts[len(stored_parts) :])
        equivalence = Equivalence(
            stored, output, threshold, declared.identity, forward, backward,
            unstated_parts=unstated, added_parts=added, fact_changes=changes, note=note,
        )  # fmt: skip
        weakest = forward if not forward.passed or backward.passed else backward
        said = [f"{_score(v)} {'pass' if v.passed else 'FAIL'}" for v in (forward, backward)]
        reason = f"new output => snapshot: {said[0]}; snapshot => new output: {said[1]}"
        return EquivalenceVerdict(
            **{**_fields(weakest), "reason": reason, "evidence": None}, equivalence=equivalence
        )

    @classmethod
    def _decided(
        cls, view: OutputView, declared: Capabilities, threshold: float, passed: bool, why: str
    ) -> Verdict:
        verdict = Verdict(
            passed, 1.0 if passed else 0.0, f"{why} (judge not called)", threshold=threshold
        )
        return cls.fold(view, [("same meaning", verdict)], threshold, declared)


def same_meaning(name: str, stored: str, *, facts: FactsMode = "fail") -> type[Intent]:
    """The snapshot leaf ``Snapshot[name]``: the output means the same as ``stored``."""
    if facts not in FACTS_MODES:
        raise ValueError(
            f"facts must be one of {', '.join(map(repr, FACTS_MODES))}, got {facts!r}; pass "
            "facts='judge' to let the judge decide when a number, date, negation or name changed"
        )
    description = f"The output means the same as semantic snapshot {name}."
    namespace: dict[str, Any] = {
        "__doc__": description,
        "__module__": "semantix.snapshots",
        "hypothesis": description,
        "stored": stored,
        "facts": facts,
    }
    return cast("type[Intent]", IntentMeta(f"Snapshot[{name}]", (SameMeaning,), namespace))


def equivalence_of(result: SemanticResult, stored: str) -> Equivalence:
    """The `Equivalence` a snapshot check's result carries (else its verdict, both ways)."""
    leaf = result.leaves[0]
    verdict = leaf.verdict
    if isinstance(verdict, EquivalenceVerdict) and verdict.equivalence is not None:
        return verdict.equivalence
    return Equivalence(
        stored, result.output, leaf.threshold, result.judge, verdict, verdict, symmetric=True
    )


def judge_equivalence(
    stored: str,
    output: str,
    *,
    judge: JudgeLike | str | None = None,
    threshold: float | None = None,
    timeout: float | None = None,
    facts: FactsMode = "fail",
) -> Equivalence:
    """Judge whether ``output`` means the same as ``stored``, in both directions: one check of
    the pipeline (no report record); ``facts`` as for `assert_semantic_snapshot`."""
    options = read_options(
        {"judge": judge, "threshold": threshold, "timeout": timeout}, what="judge_equivalence"
    )
    (outcome,) = check([output], same_meaning("snapshot", stored, facts=facts), options)
    if isinstance(outcome, BaseException):
        raise outcome
    return equivalence_of(outcome, stored)


def _fields(verdict: Verdict) -> dict[str, Any]:
    return {name: getattr(verdict, name) for name in Verdict.__dataclass_fields__}


def _score(verdict: Verdict) -> str:
    return "n/a" if verdict.score is None else f"{verdict.score:.2f}"


def text_parts(text: str) -> list[str]:
    """``text`` in parts of whole sentences of at most `PART_CHARS` characters (a longer
    sentence is a part of its own)."""
    if len(text) <= PART_CHARS:
        return [text]
    cuts = [match.end() for match in SENTENCE_END.finditer(text)]
    sentences = [text[begin:end] for begin, end in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    parts: list[str] = []
    current = ""
    for sentence in sentences:
        if current and len(current) + len(sentence) > PART_CHARS:
            parts.append(current.strip())
            current = ""
        current += sentence
    if current.strip():
        parts.append(current.strip())
    return [part for part in parts if part]


def _direction(parts: list[str], verdicts: list[Verdict]) -> tuple[Verdict, tuple[str, ...]]:
    """One direction's verdict (the weakest part's) and, for a text in parts, the failed ones."""
    if len(verdicts) == 1:
        return verdicts[0], ()
    failed = tuple(
        part for part, verdict in zip(parts, verdicts, strict=True) if not verdict.passed
    )
    candidates = [verdict for verdict in verdicts if not verdict.passed] or verdicts
    weakest = min(candidates, key=lambda verdict: 1.0 if verdict.score is None else verdict.score)
    return weakest, failed


def _as_description(text: str) -> IntentDescription:
    """``text`` as an intent description that NLI judges use verbatim as their hypothesis."""
    return IntentDescription(text, hypothesis=text)
