"""EscalatingJudge: a fast judge decides what it is sure of; the uncertain rest goes on.

```python
from semantix import FakeJudge, Intent, assert_semantic
from semantix.judges._escalating import EscalatingJudge

fast = FakeJudge(lambda output, intent: 0.95 if "sorry" in output.lower() else 0.45, name="Fast")
slow = FakeJudge(lambda output, intent: 0.9, name="Slow")
judge = EscalatingJudge(fast, slow, band=0.15)


class Apology(Intent):
    \"\"\"The text apologizes.\"\"\"


assert_semantic("Sorry for the delay.", Apology, judge=judge, threshold=0.5)  # Fast decided
assert_semantic("The parcel is late.", Apology, judge=judge, threshold=0.5)  # 0.45: Slow decided
assert [level.decided for level in judge.stats()] == [1, 1]
```

The rules are in docs/verdicts.md ("A judge hierarchy that escalates only what is uncertain"),
support checks in docs/grounded.md (every level must check support; a verdict escalates whole).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from semantix._config import is_number
from semantix.judges._base import (
    Capabilities,
    Judge,
    JudgeIdentity,
    JudgeLike,
    JudgeRequest,
    Verdict,
    capabilities,
    check_judge,
    judge_identity,
    settable,
)
from semantix.judges._calls import ask_judge

__all__ = ["EscalatingJudge", "LevelStats"]

_EPSILON = 1e-9  # 0.35 is within 0.15 of 0.5, although 0.5 - 0.35 is 0.15000000000000002
#: The widest band allowed: with 0.5 every score in [0, 1] around a 0.5 threshold escalates.
MAX_BAND = 0.5


@dataclass(frozen=True, slots=True)
class LevelStats:
    """How one level (from 1) of an `EscalatingJudge` has done so far: the verdicts it gave as
    final (``decided``) and those it was unsure of and handed on (``escalated``)."""

    level: int
    judge: str
    decided: int
    escalated: int


class EscalatingJudge(Judge):
    """Judges in order of cost: each decides what it is sure of and hands on the rest.

    Args:
        *judges: two or more judges, cheapest first (e.g. ``QuantizedNLIJudge()``, then
            ``LLMJudge(model=...)``).
        band: how close to the threshold a score must be to go to the next judge: a score
            within ``band`` of it (inclusive) is uncertain. A float in [0, 0.5]; 0 escalates only
            scores exactly at the threshold (and scoreless verdicts).

    Raises:
        TypeError: fewer than two judges, a level without ``evaluate``, or a band that is not
            a number.
        ValueError: a band outside [0, 0.5].
    """

    def __init__(self, *judges: JudgeLike, band: float = 0.15) -> None:
        if len(judges) < 2:
            raise TypeError(
                f"EscalatingJudge needs at least two judges, cheapest first, got {len(judges)}; "
                "e.g. EscalatingJudge(QuantizedNLIJudge(), LLMJudge(model='gpt-4o-mini'))"
            )
        for position, judge in enumerate(judges, start=1):
            check_judge(judge, what=f"EscalatingJudge's judge {position}")
        if isinstance(band, bool) or not isinstance(band, (int, float)):
            raise TypeError(
                f"EscalatingJudge band must be a float in [0, {MAX_BAND}], got {band!r} "
                f"({type(band).__name__})"
            )
        if math.isnan(band) or not 0.0 <= band <= MAX_BAND:
            raise ValueError(
                f"EscalatingJudge band must be between 0 and {MAX_BAND}, got {band!r}: it is the "
                "distance from the threshold within which a score goes to the next judge "
                "(e.g. band=0.15)"
            )
        self.judges: tuple[JudgeLike, ...] = tuple(judges)
        self.band = float(band)
        self._lock = threading.Lock()
        self._decided = [0] * len(judges)
        self._escalated = [0] * len(judges)

    def own_identity(self) -> JudgeIdentity:
        """``EscalatingJudge[A -> B, band=0.15]``: every level and the band."""
        chain = " -> ".join(str(judge_identity(judge)) for judge in self.judges)
        return JudgeIdentity(f"EscalatingJudge[{chain}, band={self.band:g}]")

    def __repr__(self) -> str:
        levels = ", ".join(repr(judge) for judge in self.judges)
        return f"EscalatingJudge({levels}, band={self.band:g})"

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        """Judge one output: the first sure level decides."""
        return self.evaluate_batch([(output, intent_description, threshold)])[0]

    def evaluate_batch(self, requests: Sequence[JudgeRequest]) -> list[Verdict]:
        """Judge a batch: each level gets, in one batch, what the levels before were unsure of."""
        requests = list(requests)
        final: list[Verdict | None] = [None] * len(requests)
        notes: list[list[str]] = [[] for _ in requests]
        pending = list(range(len(requests)))
        last = len(self.judges) - 1
        for level, judge in enumerate(self.judges):
            if not pending:
                break
            name = judge_identity(judge)
            verdicts = ask_judge(
                judge,
                [requests[index] for index in pending],
                what=f"level {level + 1} of {self.identity.name}",
            )
            unsure: list[int] = []
            for index, verdict in zip(pending, verdicts, strict=True):
                threshold = requests[index][2]
                note = self._uncertainty(name, verdict, threshold)
                if level == last or note is None:
                    final[index] = self._decided_by(judge, verdict, threshold, notes[index])
                else:
                    notes[index].append(note)
                    unsure.append(index)
            with self._lock:
                self._decided[level] += len(pending) - len(unsure)
                self._escalated[level] += len(unsure)
            pending = unsure
        return [verdict for verdict in final if verdict is not None]

    def _uncertainty(self, name: JudgeIdentity, verdict: Verdict, threshold: float) -> str | None:
        """Why ``verdict`` is uncertain (for the reason), or None when it is sure."""
        if verdict.score is None:
            return f"{name} gave no score"
        if abs(verdict.score - threshold) <= self.band + _EPSILON:
            return f"{name} score {verdict.score:.2f} within {self.band:g} of {threshold:.2f}"
        return None

    def _decided_by(
        self, judge: JudgeLike, verdict: Verdict, threshold: float, notes: list[str]
    ) -> Verdict:
        identity = verdict.judge if verdict.judge is not None else judge_identity(judge)
        if notes:
            why = "; ".join(notes)
        elif verdict.score is not None:
            why = f"score {verdict.score:.2f}, more than {self.band:g} from {threshold:.2f}"
        else:
            why = "last level"
        reason = f"decided by {identity} ({why})"
        if verdict.reason:
            reason += f": {verdict.reason}"
        return replace(verdict, judge=identity, reason=reason)

    def stats(self) -> tuple[LevelStats, ...]:
        """How often each level decided (and escalated) since this judge was built."""
        with self._lock:
            decided, escalated = list(self._decided), list(self._escalated)
        return tuple(
            LevelStats(level + 1, str(judge_identity(judge)), decided[level], escalated[level])
            for level, judge in enumerate(self.judges)
        )


def _joined_versions(levels: list[Capabilities]) -> str | None:
    versions = [level.prompt_version for level in levels]
    if not any(isinstance(version, str) for version in versions):
        return None
    return " -> ".join(v if isinstance(v, str) else "-" for v in versions)


#: The first judge's threshold (its scores decide most) and use of examples; reads negation only
#: when every level does (else every level judges the positive statement, inverted); costly when
#: any level is; the levels' shared scale, else "score"; their prompt versions and secrets.
_COMBINED: dict[str, Callable[[list[Capabilities]], Any]] = {
    "recommended_threshold": lambda levels: (
        levels[0].recommended_threshold if is_number(levels[0].recommended_threshold) else None
    ),
    "reads_negation": lambda levels: all(level.reads_negation for level in levels),
    "uses_examples": lambda levels: levels[0].uses_examples,
    "calibrates": lambda levels: levels[0].calibrates,
    "costly": lambda levels: any(level.costly for level in levels),
    "scale": lambda levels: levels[0].scale if len({lv.scale for lv in levels}) == 1 else "score",
    "prompt_version": _joined_versions,
    "secrets": lambda levels: tuple(secret for level in levels for secret in level.secrets),
}


def _combined(name: str, combine: Callable[[list[Capabilities]], Any]) -> property:
    """A declared ability of the chain, derived from its levels' (read live), unless set on it."""
    return settable(
        name,
        lambda chain: combine([capabilities(judge) for judge in chain.judges]),
        f"The chain's {name}, from its levels'.",
    )


for _name, _combine in _COMBINED.items():
    setattr(EscalatingJudge, _name, _combined(_name, _combine))
EscalatingJudge.evaluate_support = settable(  # type: ignore[attr-defined]
    "evaluate_support",
    lambda chain: (
        None
        if any(capabilities(judge).support is None for judge in chain.judges)
        else chain.evaluate_batch
    ),
    "The support ability when every level has it, else None (it escalates whole).",
)
