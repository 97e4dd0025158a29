"""The documented import path for test code: ``from semantix.testing import assert_semantic``.

``assert_semantic`` raises `SemanticAssertionError`, a plain ``AssertionError``
subclass, so it works under pytest, unittest, or a bare ``python script.py``; so does
``assert_pass_rate`` (repeated runs held to a floor, see `semantix.runs`). `Satisfies` checks a
text inside a data structure with ``==``.
"""

from __future__ import annotations

from semantix.config import check_threshold
from semantix.errors import SemanticAssertionError
from semantix.intent import IntentLike, as_intent
from semantix.judges.base import Judge
from semantix.judges.fake import FakeJudge
from semantix.pipeline import SemanticResult, assert_semantic, evaluate_semantic
from semantix.runs import PassRateError, RunStats, assert_pass_rate, evaluate_pass_rate

__all__ = [
    "FakeJudge",
    "PassRateError",
    "RunStats",
    "Satisfies",
    "SemanticAssertionError",
    "SemanticResult",
    "assert_pass_rate",
    "assert_semantic",
    "evaluate_pass_rate",
    "evaluate_semantic",
]


class Satisfies:
    """Equal to any output that satisfies ``intent``, for ``==`` inside dicts and lists.

    ```python
    from semantix import Intent
    from semantix.testing import Satisfies

    class Apologizes(Intent):
        \"\"\"The text apologizes for the delay.\"\"\"

    payload = {"status": "ok", "message": "Sorry for the delay!"}
    assert payload == {"status": "ok", "message": Satisfies(Apologizes)}
    ```

    Each comparison runs `evaluate_semantic` (so it is reported like any check). After a
    match the repr is the matched value, so pytest's diff shows no difference there; after a
    mismatch it shows the verdict, so the diff says why. An output that is not text or a known
    response object compares unequal (the repr says why); a judge error is raised, never a
    mismatch and never a match.

    Args:
        intent: an intent class or a description string.
        judge: the judge, as for `assert_semantic` (None: the run's default).
        threshold: the threshold, as for `assert_semantic`.
    """

    __hash__ = None  # type: ignore[assignment]

    def __init__(
        self, intent: IntentLike, judge: Judge | str | None = None, threshold: float | None = None
    ) -> None:
        self.intent = as_intent(intent)
        self.judge = judge
        self.threshold = None if threshold is None else check_threshold(threshold)
        #: The result of the last comparison, or None before any.
        self.result: SemanticResult | None = None
        self._shown: str | None = None

    def __eq__(self, other: object) -> bool:
        try:
            result = evaluate_semantic(
                other, self.intent, judge=self.judge, threshold=self.threshold
            )
        except TypeError as exc:  # not an output: unequal, as dirty-equals does
            self.result = None
            self._shown = f"{self._call()} [not an output: {exc}]"
            return False
        self.result = result
        if result.passed:
            self._shown = repr(other)
        else:
            reasons = "; ".join(
                f"{leaf.label}: {leaf.verdict.reason}"
                for leaf in result.leaves
                if not leaf.passed and leaf.verdict.reason
            )
            self._shown = f"{self._call()} [{result!r}" + (f" {reasons}]" if reasons else "]")
        return result.passed

    def __bool__(self) -> bool:
        raise TypeError(
            "Satisfies(...) is not a truth value; compare it with ==, or call "
            "assert_semantic(output, intent) to check one output"
        )

    def __repr__(self) -> str:
        return self._shown if self._shown is not None else self._call()

    def _call(self) -> str:
        options = "" if self.judge is None else f", judge={self.judge!r}"
        options += "" if self.threshold is None else f", threshold={self.threshold!r}"
        return f"Satisfies({self.intent!r}{options})"
