"""Records are complete where they are built (issue 34, items 5 and 14): a custom judge's leaf
names its judge, a similarity verdict on a description alone is marked topical on passes too, and
money reads the same in every report."""

from __future__ import annotations

import pytest

from semantix import FakeJudge, Intent, Verdict, evaluate_semantic
from semantix.checks import Contains
from semantix.report import result_record, summarize
from semantix.report._model import CheckRecord
from semantix.report._records import format_usd, outcome
from semantix.report._schema import check_document
from semantix.report._terminal import report_lines


class Polite(Intent):
    """The text is polite."""

    threshold = 0.5


class Apologizes(Intent):
    """The text apologizes."""

    threshold = 0.5
    examples = ("We are sorry for the delay.",)
    counterexamples = ("Your invoice is attached.",)


class KeywordJudge:
    """A judge written against the documented protocol only: its verdicts name no judge."""

    recommended_threshold = None

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        score = 0.9 if "thank" in output.lower() else 0.2
        return Verdict(passed=score >= threshold, score=score, reason=None)


def test_a_custom_judges_leaves_name_the_checks_judge_and_count_in_decided_by() -> None:
    result = evaluate_semantic("Thank you!", Polite & Contains("Thank"), judge=KeywordJudge())
    assert result.leaves[0].verdict.judge == result.judge  # the pipeline names the check's judge
    record = result_record(result, "t::a")
    judged, structural = record.leaves
    assert judged.judge == "KeywordJudge" == record.judge
    assert structural.judge == "structural"  # a leaf's own identity is kept
    assert summarize([record]).decided_by == {"KeywordJudge": 1, "structural": 1}


def _similarity_judge() -> FakeJudge:
    judge = FakeJudge(lambda output, description: 0.6, name="EmbeddingJudge")
    judge.scale = "similarity"
    return judge


def test_a_similarity_verdict_on_a_description_alone_is_marked_topical_when_it_passes() -> None:
    judge = _similarity_judge()
    passing = result_record(
        evaluate_semantic("Your invoice is attached.", Polite, judge=judge), "t::a"
    )
    assert passing.passed is True
    assert passing.leaves[0].topical is True
    # with examples, the judge compared the output with them: not topical
    with_examples = result_record(evaluate_semantic("Sorry!", Apologizes, judge=judge), "t::b")
    assert with_examples.leaves[0].topical is False
    # an entailment judge is never topical
    entailment = result_record(
        evaluate_semantic("Thanks", Polite, judge=FakeJudge(lambda o, d: 0.6)), "t::c"
    )
    assert entailment.leaves[0].topical is False
    summary = summarize([passing, with_examples, entailment])
    assert summary.topical == 1

    texts = [text for text, _ in report_lines([passing, with_examples], width=200)]
    row = next(text for text in texts if text.startswith("t::a"))
    assert row.split()[-3:-2] == ["*"] and "PASS *" in row
    assert any(text.startswith("* topical: a similarity judge compared") for text in texts)
    assert texts[-1].endswith("(1 topical)")
    assert not any("PASS *" in text for text in texts if text.startswith("t::b"))


def test_outcome_combines_the_checks_and_the_tests() -> None:
    cases = {
        ("failed", "xfailed"): "xfailed",
        ("error", "xfailed"): "xfailed",
        ("passed", "xfailed"): "passed",
        ("passed", "xpassed"): "xpassed",
        ("failed", "skipped"): "skipped",
        ("failed", "failed"): "failed",
        ("error", None): "error",
    }
    found = {
        key: outcome(CheckRecord(nodeid="t", outcome=key[0], test_outcome=key[1], intent="I"))
        for key in cases
    }
    assert found == cases
    # a record of a version-2 report (no outcome field at all) reads from "passed"
    old = {"version": 2, "assertions": [{"nodeid": "t", "intent": "I", "passed": False}]}
    assert [outcome(record) for record in check_document(old).assertions] == ["failed"]


@pytest.mark.parametrize(
    ("usd", "shown"),
    [
        (0.0011952, "$0.0011952"),
        (0.000012, "$0.000012"),
        (0.15, "$0.15"),
        (3.0, "$3.00"),
        (12.345678, "$12.3457"),
        (1234.5, "$1,234.50"),
        (0.0, "$0.00"),
    ],
)
def test_money_keeps_six_significant_digits_and_never_rounds_to_zero(
    usd: float, shown: str
) -> None:
    assert format_usd(usd) == shown
