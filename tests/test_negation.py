"""Negatively phrased requirements are judged as NOT their positive statement (issue 11 part 1)."""

from __future__ import annotations

import pytest

from semantix import FakeJudge, Intent, evaluate_semantic


class NoProfanity(Intent):
    """The text must not use profanity."""


class NoProfanityExplicit(Intent):
    """The text must not use profanity."""

    hypothesis = "The text is clean."


def literal_judge(score: float) -> FakeJudge:
    judge = FakeJudge(lambda output, description: score, recommended_threshold=0.5)
    judge.reads_negation = False  # type: ignore[attr-defined]  # like the NLI/embedding judges
    return judge


def test_a_negative_requirement_is_judged_as_not_its_positive_statement() -> None:
    judge = literal_judge(0.05)
    result = evaluate_semantic("Have a lovely day.", NoProfanity, judge=judge)
    assert judge.calls == [("Have a lovely day.", "The text uses profanity.")]
    assert result.passed is True
    [leaf] = result.leaves
    assert (leaf.judged_as, leaf.expected, leaf.label) == (
        "The text uses profanity.",
        False,
        "NoProfanity",
    )


def test_the_failure_says_it_was_judged_as_not() -> None:
    result = evaluate_semantic("Damn this thing.", NoProfanity, judge=literal_judge(0.91))
    assert result.passed is False
    message = result.explain()
    assert "judged as NOT: The text uses profanity." in message
    assert "FAIL: the output DID satisfy The text uses profanity. (0.91 >= 0.50)" in message


def test_negating_a_negative_requirement_holds_when_the_positive_does() -> None:
    result = evaluate_semantic("Damn this thing.", ~NoProfanity, judge=literal_judge(0.91))
    assert result.passed is True
    assert result.leaves[0].label == "~NoProfanity"


def test_an_explicit_hypothesis_turns_the_rewrite_off() -> None:
    judge = literal_judge(0.9)
    result = evaluate_semantic("Have a lovely day.", NoProfanityExplicit, judge=judge)
    assert judge.calls == [("Have a lovely day.", "The text must not use profanity.")]
    assert result.passed is True and result.leaves[0].judged_as is None


def test_judges_that_read_negation_get_the_description_as_written() -> None:
    judge = FakeJudge(lambda output, description: 0.9, recommended_threshold=0.5)  # an LLM
    result = evaluate_semantic("Have a lovely day.", NoProfanity, judge=judge)
    assert judge.calls == [("Have a lovely day.", "The text must not use profanity.")]
    assert result.passed is True and result.leaves[0].judged_as is None


class NoMed(Intent):
    """The text must not give medical advice."""


class GivesMed(Intent):
    """The text gives medical advice."""


@pytest.mark.parametrize(("intent", "label"), [(NoMed, "NoMed"), (~GivesMed, "~GivesMed")])
def test_a_negated_leaf_has_one_label_in_every_report(intent: type[Intent], label: str) -> None:
    from semantix.runs import evaluate_pass_rate

    judge = FakeJudge(lambda output, description: 0.95)
    judge.reads_negation = False  # "must not X" is judged as NOT "X", like ~X
    result = evaluate_semantic("Take two aspirin.", intent, judge=judge)
    stats = evaluate_pass_rate(lambda: "Take two aspirin.", intent, runs=1, judge=judge)
    labels = {
        "leaf": result.leaves[0].label,
        "json": result.to_dict()["leaves"][0]["intent"],
        "repr": repr(result).split("[")[1].split("=")[0],
        "run": stats.results[0].describe().split()[2].split("=")[0],
    }
    assert set(labels.values()) == {label}, labels
    assert f"  {label} " in result.explain()
