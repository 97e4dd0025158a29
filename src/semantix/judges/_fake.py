"""`FakeJudge`: a judge for your own tests, whose scores come from a function you give it."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from semantix._config import check_threshold
from semantix.judges._base import Judge, JudgeIdentity, Verdict

__all__ = ["FakeJudge"]


class FakeJudge(Judge):
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

    def __repr__(self) -> str:
        return f"{self.identity.name}()"


FakeJudge.__module__ = "semantix"
