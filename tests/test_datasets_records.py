"""`semantix eval` makes each row's record as its JSON at once (issue 46: the typed record made
then turned into JSON was most of a structural row's cost): it equals the pytest plugin's record
(`result_record`) as the report writes it, whatever the result holds."""

from __future__ import annotations

import pytest

from semantix import FakeJudge, Intent, Verdict, evaluate_semantic
from semantix.checks import Contains
from semantix.datasets._records import Tally, row_error, row_record
from semantix.judges._verdict import TokenUsage
from semantix.report._model import summarize, to_json
from semantix.report._records import error_record, result_record
from semantix.report._schema import record_from_json

SECRET = "sk-test-0123456789abcdef"


class Polite(Intent):
    """The text is polite."""

    threshold = 0.88  # a score of 0.9 is borderline


class Medical(Intent):
    """The text gives medical advice."""


def _verdict(output: str, description: str) -> Verdict:
    usage = TokenUsage(prompt_tokens=12, completion_tokens=3)
    reason = f"said {output[:12]} with key {SECRET}"
    polite = "thank" in output.lower()
    return Verdict(passed=polite, score=0.9 if polite else 0.1, reason=reason, usage=usage)


RESULTS = [
    ("Thank you ✓ — déjà vu", Polite),
    (f"leaked {SECRET} thank you", Polite & ~Medical),
    ("refund issued", Contains("refund") & Polite),
    ("nothing here", Contains("refund") & Polite),  # decided before the judge: not judged
    ("", Polite),
]


@pytest.mark.parametrize(("output", "intent"), RESULTS)
@pytest.mark.parametrize("secrets", [(), (SECRET,)])
@pytest.mark.parametrize("expected", [None, True, False])
def test_a_rows_record_is_the_plugins_record_as_json(
    output: str, intent: object, secrets: tuple[str, ...], expected: bool | None
) -> None:
    result = evaluate_semantic(output, intent, judge=FakeJudge(_verdict))  # type: ignore[arg-type]
    typed = result_record(result, "row-1", source="d.jsonl:3", expected=expected, secrets=secrets)
    made = row_record(result, "row-1", "d.jsonl:3", expected, secrets)
    assert made == to_json(typed)
    assert list(made) == list(to_json(typed))  # the same order: the same report text
    assert record_from_json(made) == typed
    if secrets:
        assert SECRET not in str(made)


def test_the_tally_counts_as_summarize_counts() -> None:
    judge = FakeJudge(_verdict)
    results = [evaluate_semantic(output, intent, judge=judge) for output, intent in RESULTS]  # type: ignore[arg-type]
    typed = [result_record(result, f"r{n}", secrets=()) for n, result in enumerate(results)]
    typed.append(error_record("r9", RuntimeError("boom"), intent="Polite", source="d.jsonl:9"))
    made = [row_record(result, f"r{n}", "d.jsonl:1", None, ()) for n, result in enumerate(results)]
    made.append(row_error("r9", "d.jsonl:9", RuntimeError("boom"), intent="Polite", output=None))
    tally = Tally()
    tally.add(made)
    assert tally.summary.summary() == summarize(typed)
    assert tally.summary.summary().decided_by == {"FakeJudge": 5, "structural": 2}
    assert tally.summary.summary().borderline == 2  # polite at 0.9 against 0.88
    assert tally.judges == {"FakeJudge"}
