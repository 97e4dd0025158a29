"""semantix.testing.Satisfies (issue 23 item 5): a text matcher usable inside == on data."""

from __future__ import annotations

import pytest

from semantix import FakeJudge, Intent, Verdict
from semantix import _context as context
from semantix.errors import JudgeError
from semantix.testing import Satisfies


class Apologizes(Intent):
    """The text apologizes for the delay."""


def keyword_judge() -> FakeJudge:
    return FakeJudge(lambda output, description: 0.9 if "sorry" in output.lower() else 0.1)


def test_equal_inside_a_dict_and_a_list() -> None:
    judge = keyword_judge()
    payload = {"status": "ok", "messages": ["Sorry for the delay!"]}
    assert payload == {"status": "ok", "messages": [Satisfies(Apologizes, judge=judge)]}
    assert {"message": "Your parcel ships today."} != {
        "message": Satisfies(Apologizes, judge=judge)
    }


def test_repr_is_the_matched_value_after_a_match() -> None:
    matcher = Satisfies(Apologizes, judge=keyword_judge())
    assert repr(matcher) == f"Satisfies(Apologizes, judge={matcher.judge!r})"
    assert matcher == "Sorry for the delay!"
    assert repr(matcher) == "'Sorry for the delay!'"
    assert matcher.result is not None and matcher.result.passed


def test_repr_shows_the_verdict_after_a_mismatch() -> None:
    judge = FakeJudge(
        lambda output, description: Verdict(passed=False, score=0.1, reason="no apology found")
    )
    matcher = Satisfies(Apologizes, judge=judge, threshold=0.5)
    assert matcher != "Your parcel ships today."
    shown = repr(matcher)
    assert shown.startswith("Satisfies(Apologizes, judge=")
    assert "threshold=0.5" in shown
    assert "FAIL" in shown
    assert "Apologizes=0.10/0.50" in shown
    assert "no apology found" in shown


def test_a_value_that_is_no_output_is_unequal_and_says_why() -> None:
    matcher = Satisfies(Apologizes, judge=keyword_judge())
    assert matcher != 42
    assert "[not an output: output must be text, got 42 (int)" in repr(matcher)


def test_a_judge_error_decides_neither_equal_nor_unequal() -> None:
    """Issue 45, item 4b: ``!=`` must not pass on a judge that never answered: it raises."""

    def broken(output: str, description: str) -> float:
        raise ConnectionError("server closed the connection")

    seen: list[object] = []
    matcher = Satisfies(Apologizes, judge=FakeJudge(broken))
    with context.capture(seen.append, forward=False):
        with pytest.raises(JudgeError, match="judge FakeJudge raised ConnectionError"):
            _ = {"m": "Sorry!"} == {"m": matcher}
        with pytest.raises(JudgeError, match="judge FakeJudge raised ConnectionError"):
            _ = {"m": "Sorry!"} != {"m": matcher}
    assert isinstance(matcher.error, JudgeError) and matcher.result is None
    assert "JudgeError: judge FakeJudge raised ConnectionError" in repr(matcher)
    assert [type(event).__name__ for event in seen] == ["CheckError", "CheckError"]


def test_not_equal_means_judged_and_failed() -> None:
    matcher = Satisfies(Apologizes, judge=keyword_judge())
    assert "The order shipped." != matcher
    assert matcher.result is not None and not matcher.result.passed


def test_truth_value_and_bad_arguments() -> None:
    with pytest.raises(TypeError, match=r"not a truth value; compare it with =="):
        bool(Satisfies(Apologizes))
    with pytest.raises(ValueError, match="threshold must be between 0 and 1"):
        Satisfies(Apologizes, threshold=2)
    with pytest.raises(TypeError, match="intent must be an Intent class or a description str"):
        Satisfies(3)  # type: ignore[arg-type]
