"""The failure message: semantix-ai's first line, borderline flags, previews."""

from __future__ import annotations

import pytest

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
    assert line.startswith("  output (truncated, 500 chars in all): 'word word")
    assert line.count("500") == 1  # the length is stated once (issue 21, item 14)
    shown = line.split(": ", 1)[1]
    assert len(shown) == 200 + 2 and shown.endswith("…'")  # 200 characters and the quotes


def test_short_outputs_show_their_length_alone() -> None:
    message = evaluate_semantic("Go away.", Polite, judge=FakeJudge(lambda o, d: 0.1)).explain()
    assert message.splitlines()[-1] == "  output (8 chars): 'Go away.'"


class Guidelines(Intent):
    """The text follows the support guidelines.

    It greets the customer by name,
    and thanks them for waiting.

    It never blames the customer.
    """


def test_a_multi_paragraph_docstring_keeps_the_message_indentation() -> None:
    reason = "first line\nsecond line"
    judge = FakeJudge(lambda o, d: Verdict(passed=False, score=0.1, reason=reason))
    message = evaluate_semantic("Go away.", Guidelines, judge=judge).explain()
    lines = message.splitlines()
    start = lines.index("  Guidelines: The text follows the support guidelines.")
    assert lines[start + 1 : start + 6] == [
        "",
        "    It greets the customer by name,",
        "    and thanks them for waiting.",
        "",
        "    It never blames the customer.",
    ]
    assert "    reason: first line" in lines
    assert "      second line" in lines


def test_borderline_scores_are_flagged() -> None:
    result = evaluate_semantic("Hm.", Polite, judge=FakeJudge(lambda o, d: 0.78))
    assert result.leaves[0].borderline and result.borderline
    message = result.explain()
    assert "FAIL: not satisfied (borderline)" in message
    assert "borderline: Polite scored within 0.05 of the threshold" in message


def test_the_borderline_margin_in_the_message_is_the_results_constant(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from semantix.pipeline import _results as results

    monkeypatch.setattr(results, "BORDERLINE_MARGIN", 0.1)
    message = evaluate_semantic("Hm.", Polite, judge=FakeJudge(lambda o, d: 0.72)).explain()
    assert "borderline: Polite scored within 0.10 of the threshold" in message
    clear = evaluate_semantic("Hm.", Polite, judge=FakeJudge(lambda o, d: 0.5))
    assert not clear.borderline


def test_the_openai_key_is_masked_in_the_message(monkeypatch: pytest.MonkeyPatch) -> None:
    key = "sk-test-secret-0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    judge = FakeJudge(lambda o, d: Verdict(passed=False, score=0.1, reason=f"saw {key}"))
    message = evaluate_semantic(f"my key: {key}", Polite, judge=judge).explain()
    assert key not in message
    assert "reason: saw ********" in message and "'my key: ********'" in message


# -- issue 25, items 3 and 4: what a similarity judge measured; why a failure above the threshold


class SimilarityJudge(FakeJudge):
    """A fake judge that declares what the embedding judge declares."""

    scale = "similarity"
    uses_examples = True


class PoliteByExample(Intent):
    """The text is polite."""

    examples = ("Thank you for waiting!",)
    counterexamples = ("Whatever. Figure it out yourself.",)


def test_a_similarity_judge_on_a_description_only_intent_says_what_it_measured() -> None:
    judge = SimilarityJudge(lambda o, d: 0.16)
    message = evaluate_semantic("So sorry it is late.", Polite, judge=judge).explain()
    note = next(line for line in message.splitlines() if line.startswith("  similarity: "))
    assert "Polite was judged by topical closeness to the description" in note
    assert "give the intent examples and counterexamples" in note
    assert "use an entailment judge" in note


def test_the_similarity_note_names_every_description_only_leaf_once() -> None:
    judge = SimilarityJudge(lambda o, d: 0.1)
    message = evaluate_semantic("Go away.", Polite & Kind, judge=judge).explain()
    notes = [line for line in message.splitlines() if line.startswith("  similarity: ")]
    assert len(notes) == 1 and "Polite, Kind were judged by topical closeness" in notes[0]


@pytest.mark.parametrize(
    ("judge", "intent"),
    [
        (FakeJudge(lambda o, d: 0.1), Polite),  # an entailment-or-score judge
        (SimilarityJudge(lambda o, d: 0.1), PoliteByExample),  # similarity, with examples
    ],
)
def test_no_similarity_note_for_other_judges_or_intents_with_examples(
    judge: FakeJudge, intent: type[Intent]
) -> None:
    result = evaluate_semantic("Go away.", intent, judge=judge, threshold=0.5)
    assert not result.passed
    assert "topical closeness" not in result.explain()


def test_a_failure_above_the_threshold_shows_the_first_clause_of_its_reason() -> None:
    reason = (
        "closer to counterexample 'Whatever. Figure it out yourself.' (0.41) than to any "
        "example (0.36); closest example (similarity 0.360): 'Thank you for waiting!'"
    )
    judge = SimilarityJudge(lambda o, d: Verdict(passed=False, score=0.36, reason=reason))
    result = evaluate_semantic("Figure it out.", PoliteByExample, judge=judge, threshold=0.2)
    row = next(line for line in result.explain().splitlines() if "0.36" in line and "0.20" in line)
    assert row.endswith(
        "FAIL: closer to counterexample 'Whatever. Figure it out yourself.' (0.41) than to any "
        "example (0.36)"
    )


def test_a_failure_above_the_threshold_without_a_reason_says_so() -> None:
    judge = FakeJudge(lambda o, d: Verdict(passed=False, score=0.9, reason=None))
    message = evaluate_semantic("Hi.", Polite, judge=judge, threshold=0.5).explain()
    assert "FAIL: failed at or above its threshold (a condition of the judge" in message


def test_a_failure_below_the_threshold_still_reads_not_satisfied() -> None:
    judge = FakeJudge(lambda o, d: Verdict(passed=False, score=0.3, reason="entailment 0.30"))
    message = evaluate_semantic("Hi.", Polite, judge=judge, threshold=0.5).explain()
    assert "FAIL: not satisfied" in message and "FAIL: entailment" not in message
