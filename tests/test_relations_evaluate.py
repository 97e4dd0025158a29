"""evaluate_relations: both violation directions, errors, not applicable, runs, ceilings,
observers, frozen verdicts and summaries."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from semantix import FakeJudge, Intent, assert_semantic
from semantix import _context as context
from semantix.errors import ConfigurationError, JudgeError, VerdictNotRecordedError
from semantix.relations import (
    RelationError,
    RelationResult,
    RelationViolationError,
    evaluate_relations,
    format_jitter,
    order,
    order_invariant,
    relation,
    summarize,
    violation,
)
from semantix.report._schema import REPORT_VERSION, check_document
from semantix.runs import RunResult, RunStats
from semantix.verdicts import RecordReplayJudge


class MentionsFirst(Intent):
    """The answer quotes the first document."""


#: Passes when the output names "d0".
JUDGE = FakeJudge(lambda output, intent: 1.0 if "d0" in output else 0.0)


def first_document(case: dict[str, Any]) -> str:
    """A system that only reads the first document: reordering moves its verdict."""
    return f"According to {case['documents'][0]}."


CASE = {"id": "c1", "question": "Which document?", "documents": ["d0", "d1", "d2"]}


@pytest.fixture
def heard() -> Iterator[list[object]]:
    events: list[object] = []
    with context.capture(events.append, forward=False):
        yield events


def test_a_variant_failing_where_the_original_passed_is_a_violation() -> None:
    (result,) = evaluate_relations(
        first_document, CASE, MentionsFirst, relations=[order("documents")], judge=JUDGE
    )
    assert (result.violations, result.judged, result.errors) == (2, 3, 0)
    assert result.rate == pytest.approx(2 / 3)
    assert [v.label for v in result.violating] == ["order [2, 1, 0]", "order [1, 2, 0]"]
    assert {v.direction for v in result.violating} == {"broke"}
    assert (
        repr(result) == "<RelationResult order(documents) case c1: 2/3 violations = 0.67, 0 errors>"
    )
    assert "order [2, 1, 0]: VIOLATION, the variant failed (original passed" in result.explain()


def test_a_variant_passing_where_the_original_failed_is_a_violation_too() -> None:
    case = {**CASE, "documents": ["d2", "d1", "d0"]}  # the original fails
    (result,) = evaluate_relations(
        first_document, case, MentionsFirst, relations=[order("documents")], judge=JUDGE
    )
    assert result.original is not None and result.original.passes == 0
    assert [(v.label, v.direction) for v in result.violating] == [("order [2, 1, 0]", "fixed")]
    assert "passed where the original failed" in result.explain()


def test_a_crash_on_a_variant_is_an_error_never_a_violation_or_a_pass() -> None:
    def fragile(case: dict[str, Any]) -> str:
        if case["documents"][0] == "d1":
            raise RuntimeError("upstream timeout")
        return first_document(case)

    (result,) = evaluate_relations(
        fragile, CASE, MentionsFirst, relations=[order("documents")], judge=JUDGE
    )
    outcomes = {v.label: v.outcome for v in result.variants}
    assert outcomes == {
        "order [2, 1, 0]": "violation",
        "order [1, 2, 0]": "error",
        "order [0, 2, 1]": "held",
    }
    assert (result.violations, result.judged, result.errors, result.rate) == (1, 2, 1, 0.5)
    assert "order [1, 2, 0]: ERROR RuntimeError: upstream timeout" in result.explain()


def test_a_judge_error_on_a_variant_is_an_error() -> None:
    def judge(output: str, intent: str) -> float:
        if "d2" in output:
            raise RuntimeError("judge down")
        return 1.0 if "d0" in output else 0.0

    (result,) = evaluate_relations(
        first_document, CASE, MentionsFirst, relations=[order("documents")], judge=FakeJudge(judge)
    )
    errored = [v for v in result.variants if v.outcome == "error"]
    assert [v.label for v in errored] == ["order [2, 1, 0]"]
    assert isinstance(errored[0].error, JudgeError)


def crashes_on(*first: str) -> Callable[[dict[str, Any]], str]:
    """A system that raises when the first document is one of ``first`` (``"variants"``: on
    every case but the original)."""

    def system(case: dict[str, Any]) -> str:
        crash = case != CASE if first == ("variants",) else case["documents"][0] in first
        if crash:
            raise RuntimeError(f"upstream timeout on {case['documents']}")
        return first_document(case)

    return system


@pytest.mark.parametrize("ceiling", [0.0, 0.5, None])
def test_a_relation_whose_every_variant_crashed_is_an_error_never_held(
    heard: list[object], ceiling: float | None
) -> None:
    with pytest.raises(RelationError) as caught:
        evaluate_relations(
            crashes_on("variants"),
            CASE,
            MentionsFirst,
            relations=[order("documents")],
            judge=JUDGE,
            max_violation_rate=ceiling,
        )
    (result,) = caught.value.results
    assert result.outcome == "error" and result.rate is None and not result.over_ceiling
    assert result.to_dict()["outcome"] == "error"
    assert heard == [result]  # the report records it as an error
    message = str(caught.value)
    assert "could not be judged" in message and "all 3 variants raised" in message
    assert "order [2, 1, 0]: ERROR RuntimeError: upstream timeout on ['d2', 'd1', 'd0']" in message
    assert isinstance(caught.value.__cause__, RuntimeError)
    assert not isinstance(caught.value, AssertionError)


def test_an_errored_variant_leaves_a_ceiling_unproven() -> None:
    # 3 variants, the reversal crashed, the other two held: 0 of 2 judged, but the crashed one
    # might have violated a ceiling of 0.0 -- so nothing is proven.
    case = {**CASE, "documents": ["d0", "d0b", "d2"]}

    def system(case: dict[str, Any]) -> str:
        if case["documents"][0] == "d2":
            raise RuntimeError("down")
        return "d0"

    with pytest.raises(RelationError, match="max_violation_rate=0.00 is not proven: 1 of 3"):
        evaluate_relations(
            system,
            case,
            MentionsFirst,
            relations=[order("documents")],
            judge=JUDGE,
            max_violation_rate=0.0,
        )
    (result,) = evaluate_relations(  # without a ceiling nothing is claimed: shown, not raised
        system, case, MentionsFirst, relations=[order("documents")], judge=JUDGE
    )
    assert (result.outcome, result.rate, result.errors) == ("held", 0.0, 1)


def test_a_ceiling_held_whatever_the_errored_variants_did_holds() -> None:
    # 1 violation, 1 error of 3: even if the error were a violation, 2/3 <= 0.7.
    (result,) = evaluate_relations(
        crashes_on("d1"),
        CASE,
        MentionsFirst,
        relations=[order("documents")],
        judge=JUDGE,
        max_violation_rate=0.7,
    )
    assert (result.outcome, result.violations, result.errors) == ("held", 1, 1)


def test_a_ceiling_broken_whatever_the_errored_variants_did_is_a_violation() -> None:
    # 1 violation, 1 error of 3: even if the error had held, 1/3 > 0.2.
    with pytest.raises(RelationViolationError) as caught:
        evaluate_relations(
            crashes_on("d1"),
            CASE,
            MentionsFirst,
            relations=[order("documents")],
            judge=JUDGE,
            max_violation_rate=0.2,
        )
    (result,) = caught.value.results
    assert (result.outcome, result.violations, result.errors) == ("violation", 1, 1)


def test_the_decorators_raise_for_a_relation_nothing_judged() -> None:
    calls: list[object] = []

    @pytest.mark.parametrize("case", [CASE])
    @order_invariant(field="documents", max_violation_rate=0.0)
    def test_body(case: dict[str, Any]) -> None:
        calls.append(case)
        assert_semantic(crashes_on("variants")(case), MentionsFirst, judge=JUDGE)

    with pytest.raises(RelationError, match="all 3 variants raised"):
        test_body(case=CASE)
    assert len(calls) == 4  # the original and its 3 variants ran


def test_a_crash_on_the_original_is_raised() -> None:
    def broken(case: dict[str, Any]) -> str:
        raise RuntimeError("no connection")

    with pytest.raises(RuntimeError, match="no connection"):
        evaluate_relations(broken, CASE, MentionsFirst, relations=[order("documents")], judge=JUDGE)


def test_not_applicable_is_never_a_rate(heard: list[object]) -> None:
    case = {"id": "c2", "documents": ["d0"]}
    results = evaluate_relations(
        first_document,
        case,
        MentionsFirst,
        relations=[order("documents"), format_jitter("question")],
        judge=JUDGE,
    )
    assert [r.applicable for r in results] == [False, False]
    assert [r.rate for r in results] == [None, None]
    assert repr(results[1]) == (
        "<RelationResult format_jitter(question) case c2: not applicable (the case has no field "
        "'question' (its fields: documents, id))>"
    )
    assert results[0].to_dict()["rate"] is None
    assert heard == results  # observers hear each relation result once, and nothing else


def test_observers_hear_one_result_per_relation_and_no_check(heard: list[object]) -> None:
    results = evaluate_relations(
        first_document,
        CASE,
        MentionsFirst,
        relations=[order("documents"), relation(lambda case: [case], name="same")],
        judge=JUDGE,
    )
    assert heard == results
    assert all(isinstance(event, RelationResult) for event in heard)


def test_a_ceiling_fails_with_the_violating_variants_shown() -> None:
    with pytest.raises(RelationViolationError) as caught:
        evaluate_relations(
            first_document,
            CASE,
            MentionsFirst,
            relations=[order("documents")],
            judge=JUDGE,
            max_violation_rate=0.5,
        )
    message = str(caught.value)
    assert "violated more often than its ceiling allows" in message
    assert "ceiling: max_violation_rate=0.50" in message
    assert "order [2, 1, 0]: VIOLATION" in message and "order [1, 2, 0]: VIOLATION" in message
    assert isinstance(caught.value, AssertionError)
    assert caught.value.results[0].rate == pytest.approx(2 / 3)
    assert caught.value.verdicts[0].score == 1.0  # the original's verdict


def test_under_the_ceiling_nothing_is_raised() -> None:
    (result,) = evaluate_relations(
        first_document,
        CASE,
        MentionsFirst,
        relations=[order("documents")],
        judge=JUDGE,
        max_violation_rate=0.7,
    )
    assert result.violations == 2 and not result.over_ceiling


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        ({"system": "bot"}, TypeError, "system must be a callable case -> output"),
        ({"case": ["d0"]}, TypeError, "a case must be a mapping of fields"),
        ({"relations": []}, TypeError, "relations must be a non-empty list"),
        ({"relations": ["order"]}, TypeError, "relations must be Relation objects"),
        ({"runs": 0}, ConfigurationError, "runs must be a positive int"),
        ({"max_violation_rate": 1.5}, ValueError, "max_violation_rate must be between 0 and 1"),
        ({"case_id": 3}, TypeError, "case_id must be a non-empty string"),
    ],
)
def test_bad_arguments_are_errors(
    arguments: dict[str, Any], error: type[Exception], message: str
) -> None:
    call: dict[str, Any] = {
        "system": first_document,
        "case": CASE,
        "relations": [order("documents")],
        **arguments,
    }
    system, case = call.pop("system"), call.pop("case")
    with pytest.raises(error, match=message):
        evaluate_relations(system, case, MentionsFirst, judge=JUDGE, **call)


# --- repeated runs ---------------------------------------------------------------------------


def scripted(rates: dict[str, list[str]]) -> Callable[[dict[str, Any]], str]:
    """A flaky system: per first document, the replies cycle through the script."""
    cycles = {key: itertools.cycle(replies) for key, replies in rates.items()}
    return lambda case: next(cycles[case["documents"][0]])


def stats(passes: int, runs: int) -> RunStats:
    """RunStats with ``passes`` passing runs (built from real results)."""
    from semantix import evaluate_semantic

    good = evaluate_semantic("d0", MentionsFirst, judge=JUDGE)
    bad = evaluate_semantic("nope", MentionsFirst, judge=JUDGE)
    results = [RunResult(i + 1, (good if i < passes else bad,)) for i in range(runs)]
    return RunStats("x", tuple(results), 0.0)


@pytest.mark.parametrize(
    ("original", "variant", "expected"),
    [
        ((1, 1), (0, 1), "broke"),
        ((0, 1), (1, 1), "fixed"),
        ((1, 1), (1, 1), None),
        ((9, 10), (7, 10), None),  # flakiness: Newcombe's interval holds 0
        # semantix compare's rule (issue 42): 10/10 -> 6/10 is significantly worse in both
        ((10, 10), (6, 10), "broke"),
        ((10, 10), (5, 10), "broke"),  # [-0.76, -0.12] excludes 0 (the Wilson ones overlap)
        ((10, 10), (2, 10), "broke"),
        ((1, 10), (10, 10), "fixed"),
    ],
)
def test_the_violation_rule(
    original: tuple[int, int], variant: tuple[int, int], expected: str | None
) -> None:
    assert violation(stats(*original), stats(*variant)) == expected


def test_with_runs_flakiness_is_no_violation_and_a_moved_verdict_is() -> None:
    system = scripted(
        {
            "d0": ["d0"] * 9 + ["x"],  # the original: 9/10
            "d2": ["d0"] * 2 + ["x"] * 8,  # reversed: 2/10, the verdict moved
            "d1": ["d0"] * 7 + ["x"] * 3,  # 7/10: flaky, not moved
        }
    )
    (result,) = evaluate_relations(
        system, CASE, MentionsFirst, relations=[order("documents", count=2)], judge=JUDGE, runs=10
    )
    by_label = {v.label: v for v in result.variants}
    assert by_label["order [2, 1, 0]"].outcome == "violation"
    assert by_label["order [1, 2, 0]"].outcome == "held"
    assert result.original is not None and result.original.passes == 9
    assert "original 9/10 passed, variant 2/10 passed" in result.explain()
    assert result.to_dict()["results"][0]["passes"] == 2


def test_with_runs_one_crashing_run_makes_the_variant_an_error() -> None:
    calls = itertools.count()

    def system(case: dict[str, Any]) -> str:
        if case["documents"][0] == "d2" and next(calls) == 3:
            raise RuntimeError("once")
        return "d0"

    with pytest.raises(RelationError) as caught:
        evaluate_relations(
            system,
            CASE,
            MentionsFirst,
            relations=[order("documents", count=1)],
            judge=JUDGE,
            runs=5,
        )
    (result,) = caught.value.results
    assert [v.outcome for v in result.variants] == ["error"]
    assert result.rate is None


# --- frozen verdicts -------------------------------------------------------------------------


def test_replay_gives_the_same_results_without_calling_a_judge(tmp_path: Path) -> None:
    recorder = RecordReplayJudge(JUDGE, mode="update", store=tmp_path)
    recorded = evaluate_relations(
        first_document, CASE, MentionsFirst, relations=[order("documents")], judge=recorder
    )
    never = FakeJudge(lambda output, intent: pytest.fail("replay called the judge"))
    replayer = RecordReplayJudge(never, mode="replay", store=tmp_path)
    replayed = evaluate_relations(
        first_document, CASE, MentionsFirst, relations=[order("documents")], judge=replayer
    )
    assert [r.to_dict() for r in replayed] == [r.to_dict() for r in recorded]
    assert never.calls == []


def test_a_replay_miss_on_a_variant_is_an_error_for_it(tmp_path: Path) -> None:
    recorder = RecordReplayJudge(JUDGE, mode="update", store=tmp_path)
    evaluate_relations(
        first_document, CASE, MentionsFirst, relations=[order("documents", count=1)], judge=recorder
    )
    replayer = RecordReplayJudge(FakeJudge(lambda o, i: 1.0), mode="replay", store=tmp_path)
    (result,) = evaluate_relations(
        first_document, CASE, MentionsFirst, relations=[order("documents", count=2)], judge=replayer
    )
    assert [v.outcome for v in result.variants] == ["violation", "error"]
    assert isinstance(result.variants[1].error, VerdictNotRecordedError)


# --- summaries -------------------------------------------------------------------------------


def test_summaries_per_relation_over_cases() -> None:
    results = []
    for documents in (["d0", "d1", "d2"], ["d0", "d1"], ["d0"]):
        case = {"id": f"c{len(documents)}", "documents": documents}
        results += evaluate_relations(
            first_document, case, MentionsFirst, relations=[order("documents")], judge=JUDGE
        )
    # a report's records of them, read back from the JSON file
    cases = [{"nodeid": "t.py::test_r", **result.to_dict()} for result in results]
    document = {"version": REPORT_VERSION, "assertions": [], "relations": {"results": cases}}
    (summary,) = summarize(check_document(json.loads(json.dumps(document))).relations)
    assert summary == summarize(results)[0]
    assert (summary.cases, summary.not_applicable) == (3, 1)
    assert (summary.violations, summary.judged) == (3, 4)
    assert summary.mean_rate == pytest.approx((2 / 3 + 1.0) / 2)
    assert summary.worst_rate == 1.0
    assert repr(summary) == (
        "<RelationSummary order(documents): 3 cases, 1 not applicable, 3/4 violations, mean "
        "0.83, worst 1.00, 0 errors>"
    )
