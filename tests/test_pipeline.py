"""The one check pipeline: one record per check, errors never escape raw, structural leaves
decide before a costly judge is asked, the timeout bounds the whole check, calibration failures
are not remembered, and a declared secret never reaches a verdict file."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from llm_server import FakeOpenAIServer, verdict
from semantix import (
    FakeJudge,
    Intent,
    JudgeError,
    JudgeTimeoutError,
    SemanticAssertionError,
    Verdict,
    evaluate_semantic,
)
from semantix import (
    _context as context,
)
from semantix.checks import Contains
from semantix.judges._base import Judge
from semantix.judges._llm import LLMJudge
from semantix.pipeline import assert_semantic
from semantix.pipeline._results import CheckError, SemanticResult
from semantix.verdicts import RecordReplayJudge, VerdictStore


class Polite(Intent):
    """The text is polite."""


class Apologizes(Intent):
    """The text apologizes."""


class WithExamples(Intent):
    """The text is cheerful."""

    examples = ("What a lovely day!", "I am so happy for you!")
    counterexamples = ("This is awful.", "I hate this.")


@pytest.fixture
def records() -> Iterator[list[object]]:
    seen: list[object] = []
    context.add_observer(seen.append)
    yield seen
    context.remove_observer(seen.append)


class CostlyFake(FakeJudge):
    costly = True


# --- one record per check, error paths included ---------------------------------------------


def test_a_passing_and_a_failing_assertion_each_make_one_record(records: list[object]) -> None:
    judge = FakeJudge(lambda output, intent: 0.9 if "thanks" in output.lower() else 0.1)
    assert_semantic("Thanks!", Polite, judge=judge)
    with pytest.raises(SemanticAssertionError):
        assert_semantic("Go away.", Polite, judge=judge)
    assert [type(record) for record in records] == [SemanticResult, SemanticResult]
    assert [record.passed for record in records] == [True, False]  # type: ignore[attr-defined]


def test_evaluate_semantic_reports_nothing(records: list[object]) -> None:
    evaluate_semantic("Thanks!", Polite, judge=FakeJudge(lambda o, i: 0.9))
    assert records == []


def test_a_judge_whose_identity_raises_is_a_judge_error_and_one_record(
    records: list[object],
) -> None:
    # The bug: identity was read before the try, so a bare RuntimeError escaped unrecorded.
    class Broken(Judge):
        @property
        def identity(self) -> Any:
            raise RuntimeError("cannot reach the model registry")

        def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
            return Verdict(passed=True, score=1.0)

    with pytest.raises(JudgeError, match="cannot reach the model registry") as info:
        assert_semantic("Thanks!", Polite, judge=Broken())
    assert isinstance(info.value.__cause__, RuntimeError)
    assert len(records) == 1 and isinstance(records[0], CheckError)
    assert records[0].error is info.value


def test_a_judge_that_raises_makes_one_check_error_record(records: list[object]) -> None:
    def explode(output: str, intent: str) -> float:
        raise RuntimeError("model exploded")

    with pytest.raises(JudgeError):
        assert_semantic("Thanks!", Polite, judge=FakeJudge(explode))
    assert len(records) == 1 and isinstance(records[0], CheckError)


# --- structural leaves before a costly judge ---------------------------------------------------


def test_structural_leaves_that_decide_keep_a_costly_judge_from_being_asked() -> None:
    judge = CostlyFake(lambda o, i: 0.9)
    result = evaluate_semantic(
        "Your order ships tomorrow.", Contains("refund") & Polite, judge=judge
    )
    assert not result.passed
    assert judge.calls == []
    polite = next(leaf for leaf in result.leaves if leaf.intent is Polite)
    assert polite.judged is False and polite.passed  # not judged never fails
    assert polite.verdict.reason == "not judged: decided by Contains('refund')"
    assert polite.to_dict()["judged"] is False


def test_only_the_leaves_that_can_still_matter_are_sent() -> None:
    judge = CostlyFake(lambda o, i: 0.9)
    intent = (Contains("refund") & Polite) | Apologizes
    result = evaluate_semantic("We are sorry.", intent, judge=judge)
    assert [description for _, description in judge.calls] == ["The text apologizes."]
    assert result.passed


def test_a_cheap_judge_is_asked_for_every_leaf() -> None:
    judge = FakeJudge(lambda o, i: 0.9)
    evaluate_semantic("Your order ships tomorrow.", Contains("refund") & Polite, judge=judge)
    assert len(judge.calls) == 1  # the report shows every leaf's score


def test_a_structural_only_check_resolves_no_judge() -> None:
    # A spec that cannot be built: resolving it would raise.
    result = evaluate_semantic("A refund is on its way.", Contains("refund"), judge="nope:nothing")
    assert result.passed and result.judge.name == "structural"
    assert result.leaves[0].threshold_source == "structural"


def test_threshold_on_a_structural_only_check_is_an_error() -> None:
    with pytest.raises(TypeError, match="only structural leaves.*drop threshold="):
        evaluate_semantic("refund", Contains("refund"), threshold=0.5)


def test_a_semantic_leaf_on_a_tool_only_reply_names_the_calls() -> None:
    reply = {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "issue_refund", "arguments": '{"order": "A17"}'},
                        }
                    ],
                }
            }
        ]
    }
    with pytest.raises(TypeError, match="has none: it holds only tool calls: issue_refund"):
        evaluate_semantic(reply, Polite, judge=FakeJudge(lambda o, i: 0.9))


# --- timeouts and calibration -------------------------------------------------------------------


def test_the_timeout_bounds_calibration_too() -> None:
    # The bug: four example calls of 0.3 s each ran outside a 0.5 s deadline.
    def slow(output: str, intent: str) -> float:
        time.sleep(0.3)
        return 0.9 if "happy" in output or "lovely" in output or output == "Yay" else 0.1

    started = time.perf_counter()
    with pytest.raises(JudgeTimeoutError, match=r"within 0\.5 s"):
        evaluate_semantic("Yay", WithExamples, judge=FakeJudge(slow), timeout=0.5)
    assert time.perf_counter() - started < 1.2


def test_a_failed_calibration_is_asked_again() -> None:
    # The bug: a transient error while scoring the examples was cached as the calibration.
    failures = iter([True])

    def flaky(output: str, intent: str) -> float:
        if next(failures, False):
            raise ConnectionError("connection reset")
        return 0.9 if output in WithExamples.examples or output == "Yay" else 0.1

    judge = FakeJudge(flaky)
    with pytest.raises(JudgeError, match="connection reset"):
        evaluate_semantic("Yay", WithExamples, judge=judge)
    result = evaluate_semantic("Yay", WithExamples, judge=judge)
    assert result.passed and result.leaves[0].threshold_source == "calibrated"


def test_a_scope_reaches_the_judge_call_under_a_deadline() -> None:
    seen: list[object] = []

    def spy(output: str, intent: str) -> float:
        seen.append(context.current().threshold)
        return 0.9

    with context.scope(threshold=0.3):
        evaluate_semantic("x", Polite, judge=FakeJudge(spy), timeout=5)
    assert seen == [0.3]
    assert threading.active_count() >= 1


# --- secrets ---------------------------------------------------------------------------------


def test_an_explicit_api_key_never_reaches_the_verdict_file(
    store: VerdictStore, openai_sdk: None
) -> None:
    # The bug: the store masked judge.secrets, the judge kept _secrets.
    key = "sk-explicit-0123456789abcdef"
    server = FakeOpenAIServer(default=verdict(0.9, "kind"))
    with server, LLMJudge(base_url=server.base_url, api_key=key) as llm:
        judge = RecordReplayJudge(llm, store=store, mode="update")
        assert_semantic(f"my key is {key}", "polite", judge=judge)
    written = "".join(path.read_text() for path in store.path.glob("**/*.json"))
    assert written and key not in written
    assert "********" in written


def test_score_of_is_a_float_for_typed_tests() -> None:
    class MedicalAdvice(Intent):
        """The text gives medical advice."""

    judge = FakeJudge(lambda output, intent: 0.25 if "medical" in intent else 0.75)
    single = evaluate_semantic("x", Polite, judge=judge)
    assert single.score_of() == 0.75
    both = evaluate_semantic("x", Polite & ~MedicalAdvice, judge=judge)
    assert both.score_of(Polite) == 0.75
    assert both.score_of("~MedicalAdvice") == 0.25
    with pytest.raises(KeyError, match="has 2 leaves; name one"):
        both.score_of()
    with pytest.raises(KeyError, match="no leaf 'Rude'"):
        both.score_of("Rude")
    not_judged = evaluate_semantic(
        "x", Contains("refund") & Polite, judge=CostlyFake(judge._handler)
    )
    with pytest.raises(ValueError, match="gave Polite no score"):
        not_judged.score_of(Polite)


# --- one record per check, from every runner ----------------------------------------------------


def test_every_runner_makes_one_record_per_check_errors_included(
    records: list[object], tmp_path: Any
) -> None:
    import unittest

    from semantix.runs import assert_pass_rate
    from semantix.snapshots import assert_semantic_snapshot
    from semantix.testing import Satisfies
    from semantix.unittest import SemanticAssertionsMixin

    judge = FakeJudge(lambda output, intent: 0.9 if "thank" in output.lower() else 0.1)

    def explode(output: str, intent: str) -> float:
        raise RuntimeError("model exploded")

    class Case(SemanticAssertionsMixin, unittest.TestCase):
        def runTest(self) -> None:
            self.assertSemantic("Thank you!", Polite, judge=judge)

    kinds: dict[str, list[str]] = {}

    def runner(name: str, call: Any) -> None:
        del records[:]
        try:
            call()
        except Exception:  # noqa: BLE001, S110 - the record is what is checked here
            pass
        kinds[name] = [type(record).__name__ for record in records]

    runner("assert_semantic", lambda: assert_semantic("Thank you!", Polite, judge=judge))
    runner("assert_semantic error", lambda: assert_semantic("x", Polite, judge=FakeJudge(explode)))
    runner("unittest", lambda: Case().runTest())
    runner(
        "snapshot written",
        lambda: assert_semantic_snapshot(
            "Thank you!", "reply", directory=tmp_path, judge=judge, update=True
        ),
    )
    runner(
        "snapshot",
        lambda: assert_semantic_snapshot("Thank you!", "reply", directory=tmp_path, judge=judge),
    )
    runner(
        "snapshot error",
        lambda: assert_semantic_snapshot(
            "Thanks a lot!", "reply", directory=tmp_path, judge=FakeJudge(explode)
        ),
    )
    runner(
        "repeated runs",
        lambda: assert_pass_rate(lambda: "Thank you!", Polite, runs=3, judge=judge),
    )
    runner("Satisfies", lambda: {"m": "Thank you!"} == {"m": Satisfies(Polite, judge=judge)})
    runner("Satisfies, not an output", lambda: Satisfies(Polite, judge=judge) == 42)
    runner("Satisfies error", lambda: "x" == Satisfies(Polite, judge=FakeJudge(explode)))
    assert kinds == {
        "assert_semantic": ["SemanticResult"],
        "assert_semantic error": ["CheckError"],
        "unittest": ["SemanticResult"],
        "snapshot written": [],  # writing a snapshot checks nothing
        "snapshot": ["SemanticResult"],
        "snapshot error": ["CheckError"],
        "repeated runs": ["SemanticResult"] * 3 + ["RunStats"],
        "Satisfies": ["SemanticResult"],
        "Satisfies, not an output": [],  # unequal, nothing judged
        "Satisfies error": ["CheckError"],
    }
