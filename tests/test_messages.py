"""The failure message: semantix-ai's first line, borderline flags, previews."""

from __future__ import annotations

from semantix import FakeJudge, Intent, Verdict, evaluate_semantic


class Polite(Intent):
    """The text is polite."""


class Kind(Intent):
    """The text is kind."""


def test_single_intent_first_line_keeps_semantix_ai_shape() -> None:
    result = evaluate_semantic("Go away.", Polite, judge=FakeJudge(lambda o, d: 0.12))
    first = result.explain().splitlines()[0]
    assert first == "Semantic check failed (score=0.12): the output does not satisfy Polite"


def test_a_score_less_verdict_shows_n_a() -> None:
    judge = FakeJudge(lambda o, d: Verdict(passed=False, score=None, reason=None))
    first = evaluate_semantic("Go away.", Polite, judge=judge).explain().splitlines()[0]
    assert first.startswith("Semantic check failed (score=N/A)")


def test_composites_name_the_whole_intent() -> None:
    result = evaluate_semantic("Go away.", Polite & Kind, judge=FakeJudge(lambda o, d: 0.1))
    assert result.explain().startswith(
        "Semantic check failed: the output does not satisfy Polite & Kind\n"
    )


def test_long_outputs_are_cut_to_200_characters_with_their_length() -> None:
    output = "word " * 100
    message = evaluate_semantic(output, Polite, judge=FakeJudge(lambda o, d: 0.1)).explain()
    line = next(line for line in message.splitlines() if "output (" in line)
    assert "output (500 chars):" in line
    assert "(truncated, 500 chars in all)" in line
    shown = line.split(": ", 1)[1].split(" (truncated")[0]
    assert len(shown) == 200 + 2  # 200 characters and the quotes


def test_borderline_scores_are_flagged() -> None:
    result = evaluate_semantic("Hm.", Polite, judge=FakeJudge(lambda o, d: 0.78))
    assert result.leaves[0].borderline and result.borderline
    message = result.explain()
    assert "FAIL: not satisfied (borderline)" in message
    assert "borderline: Polite scored within 0.05 of the threshold" in message
    clear = evaluate_semantic("Hm.", Polite, judge=FakeJudge(lambda o, d: 0.5))
    assert not clear.borderline
