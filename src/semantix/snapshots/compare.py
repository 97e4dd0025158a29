"""Do two texts mean the same? Judged both ways, through the normal judge protocol.

The new output must entail the stored snapshot (it still states everything the snapshot
states) **and** the stored snapshot must entail the new output (the new output adds no claim).
Each direction is one ordinary judge request whose intent description is the other text,
verbatim, also given as the explicit ``hypothesis``:

* NLI judges use that hypothesis as it is and window a long premise as usual;
* the embedding judge scores cosine similarity to the description (the other text);
* a judge whose class has ``evaluate_equivalence(stored, new, threshold)`` (the LLM judge) is
  asked once whether the two texts say the same thing, instead of twice (behind the
  frozen-verdict store it gets the two ordinary requests, which the store records and replays);
* any custom judge works through ``evaluate`` / ``evaluate_batch``.

A text longer than `PART_CHARS` characters is asked about in **parts** of whole sentences
(each at most that long, a longer sentence alone): an NLI hypothesis must fit the model, and a
part the other text does not state is named in the failure. A direction passes when every part
passes; its verdict is the weakest part's.

Texts with the same words (whitespace aside) mean the same without asking a judge; an empty text
never means the same as a non-empty one.

Before any judge is asked, the two texts' facts are compared (`semantix.snapshots.facts`:
numbers with units, dates, negations, names): a change fails the snapshot without a judge
(``facts="fail"``, the default) or is quoted beside the judge's verdict (``facts="judge"``).

Each judge judges on its own scale (its declared ``scale``): an entailment judge at its
entailment threshold, both ways; a similarity judge (the embedding judge) at
`SIMILARITY_THRESHOLD`, a paraphrase-level similarity measured by
``scripts/measure-snapshot-threshold``, with the reason "similarity to the snapshot" and a
`SIMILARITY_NOTE` on the `Equivalence`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from semantix.config import check_threshold
from semantix.intent import IntentDescription
from semantix.judges.base import Judge, JudgeIdentity, JudgeRequest, Verdict, capabilities
from semantix.judges.calls import ask_judge
from semantix.pipeline.thresholds import judge_threshold
from semantix.snapshots.facts import FactChange, compare_facts
from semantix.text import SENTENCE_END

__all__ = [
    "FACTS_MODES",
    "PART_CHARS",
    "SIMILARITY_NOTE",
    "SIMILARITY_THRESHOLD",
    "Equivalence",
    "FactsMode",
    "judge_equivalence",
    "resolve_snapshot_threshold",
    "text_parts",
]

#: A text longer than this (in characters, ~150 tokens) is judged in parts of whole sentences.
PART_CHARS = 600

#: The snapshot threshold of a similarity judge: a paraphrase keeps at least this cosine
#: similarity both ways. Measured with the real all-MiniLM-L6-v2 on
#: tests/data/snapshot_pairs.jsonl (scripts/measure-snapshot-threshold): balanced accuracy 0.892
#: on 20 paraphrases against 12 changed meanings (paraphrases 0.749-0.950, median 0.839;
#: changed meanings 0.475-0.835, median 0.649).
SIMILARITY_THRESHOLD = 0.75

#: Said once with a snapshot judged by a similarity judge (`Equivalence.note`).
SIMILARITY_NOTE = (
    "judged by similarity, which cannot see a reversed meaning (a dropped 'not', 'all' for "
    "'none') or a changed fact beyond what the fact comparison catches (numbers, dates, "
    "negation words, names); use an entailment judge for those"
)

FactsMode = Literal["fail", "judge"]
#: What a changed fact does: fail the snapshot without a judge, or go to the judge, quoted.
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
    #: One judgement decided both directions (identical words, an empty text, or a judge's
    #: ``evaluate_equivalence``); ``forward`` and ``backward`` are then the same verdict.
    symmetric: bool = False
    #: Parts of a long stored text the new output does not state (empty for short texts).
    unstated_parts: tuple[str, ...] = ()
    #: Parts of a long new output the stored text does not state (empty for short texts).
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
        def score(verdict: Verdict) -> str:
            return "n/a" if verdict.score is None else f"{verdict.score:.2f}"

        scores = (
            score(self.forward)
            if self.symmetric
            else f"forward={score(self.forward)} backward={score(self.backward)}"
        )
        decision = "SAME" if self.passed else "DRIFT"
        return (
            f"<Equivalence {decision} {scores} threshold={self.threshold:.2f} judge={self.judge}>"
        )


def resolve_snapshot_threshold(
    judge: object, explicit: object = None, *, judge_default: float | None = None
) -> float:
    """The threshold, in the usual order without an intent: ``explicit``; else
    ``judge_default`` (the pytest ``semantic`` marker's threshold); else, for a judge whose
    ``scale`` is ``similarity``, `SIMILARITY_THRESHOLD` (its intent threshold is for intent
    descriptions, not for two texts that should mean the same); else the judge's
    ``recommended_threshold``; else 0.8 (`semantix.pipeline.thresholds.judge_threshold`)."""
    if explicit is None and judge_default is None and capabilities(judge).scale == "similarity":
        return SIMILARITY_THRESHOLD
    return judge_threshold(judge, explicit, judge_default=judge_default).value


def judge_equivalence(
    stored: str,
    output: str,
    *,
    judge: Judge,
    threshold: float,
    timeout: float | None = None,
    facts: FactsMode = "fail",
) -> Equivalence:
    """Judge whether ``output`` means the same as ``stored``, in both directions.

    ``judge`` is asked as it is (resolve specs and the default first, e.g. with
    `semantix.pipeline.judging.resolve_judge`); ``timeout`` bounds the judge's answer in seconds.
    ``facts``: a changed fact fails without asking the judge (``"fail"``), or the judge decides
    and the change is quoted in the message (``"judge"``).
    """
    threshold = check_threshold(threshold)
    if facts not in FACTS_MODES:
        raise ValueError(
            f"facts must be one of {', '.join(map(repr, FACTS_MODES))}, got {facts!r}; pass "
            "facts='judge' to let the judge decide when a number, date, negation or name changed"
        )
    declared = capabilities(judge)
    name = declared.identity
    note = SIMILARITY_NOTE if declared.scale == "similarity" else None
    changes = compare_facts(stored, output) if stored.split() != output.split() else ()

    def decided(verdict: Verdict) -> Equivalence:
        return Equivalence(
            stored,
            output,
            threshold,
            name,
            verdict,
            verdict,
            symmetric=True,
            fact_changes=changes,
            note=note,
        )

    if stored.split() == output.split():
        return decided(
            Verdict(
                passed=True,
                score=1.0,
                reason="the same words as the snapshot (judge not called)",
                threshold=threshold,
            )
        )
    if not stored.strip() or not output.strip():
        empty = "new output" if not output.strip() else "stored snapshot"
        return decided(
            Verdict(
                passed=False,
                score=0.0,
                reason=f"the {empty} is empty and the other text is not (judge not called)",
                threshold=threshold,
            )
        )
    if changes and facts == "fail":
        return decided(
            Verdict(
                passed=False,
                score=0.0,
                reason="facts changed (judge not called): "
                + "; ".join(change.describe() for change in changes),
                threshold=threshold,
            )
        )
    what = "a new output against its semantic snapshot"
    if declared.equivalence is not None and _asks_equivalence(judge):
        (verdict,) = ask_judge(
            _EquivalenceQuestion(declared.equivalence, name),
            [(output, _as_description(stored), threshold)],
            what=what,
            timeout=timeout,
        )
        return decided(verdict)
    stored_parts, output_parts = text_parts(stored), text_parts(output)
    requests: Sequence[JudgeRequest] = [
        *((output, _as_description(part), threshold) for part in stored_parts),
        *((stored, _as_description(part), threshold) for part in output_parts),
    ]
    verdicts = ask_judge(judge, requests, what=what, timeout=timeout)
    if declared.scale == "similarity":
        verdicts = [_as_similarity(verdict) for verdict in verdicts]
    forward, unstated = _direction(stored_parts, verdicts[: len(stored_parts)])
    backward, added = _direction(output_parts, verdicts[len(stored_parts) :])
    return Equivalence(
        stored,
        output,
        threshold,
        name,
        forward,
        backward,
        unstated_parts=unstated,
        added_parts=added,
        fact_changes=changes,
        note=note,
    )


def _as_similarity(verdict: Verdict) -> Verdict:
    """A similarity judge's verdict, its reason saying what was compared: the snapshot."""
    if verdict.score is None:
        return verdict
    return replace(verdict, reason=f"similarity to the snapshot: {verdict.score:.3f}")


def text_parts(text: str) -> list[str]:
    """``text`` as parts of whole sentences of at most `PART_CHARS` characters.

    A text that short is one part, itself; a sentence longer than that is a part on its own.
    """
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


def _asks_equivalence(judge: object) -> bool:
    """Whether the judge's own class answers ``evaluate_equivalence`` (not a wrapper's store
    passing the question on), and the instance has not declined (``answers_equivalence``)."""
    has_method = callable(getattr(type(judge), "evaluate_equivalence", None))
    return has_method and getattr(judge, "answers_equivalence", True) is not False


def _as_description(text: str) -> IntentDescription:
    """``text`` as an intent description that NLI judges use verbatim as their hypothesis."""
    return IntentDescription(text, hypothesis=text)


class _EquivalenceQuestion(Judge):
    """A judge's declared ``evaluate_equivalence`` seen through the judge protocol."""

    def __init__(self, ask: Callable[[str, str, float], Verdict], identity: JudgeIdentity) -> None:
        self._ask = ask
        self.identity = identity

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        return self._ask(str(intent_description), output, threshold)
