from __future__ import annotations

import io
import math
import sys
import threading
import unittest
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from semantix import (
    ConfigurationError,
    FakeJudge,
    Intent,
    JudgeError,
    JudgeTimeoutError,
    SemanticAssertionError,
    VerdictNotRecordedError,
)
from semantix import (
    _context as context,
)
from semantix.judges._base import JudgeRequest, Verdict
from semantix.pipeline import assert_semantic, evaluate_semantic
from semantix.pipeline._results import CheckError
from semantix.runs import (
    PassRateError,
    RunResult,
    RunStats,
    assert_pass_rate,
    evaluate_pass_rate,
    wilson_interval,
)
from semantix.runs._runner import raise_for_stats
from semantix.runs._stats import suite_stability
from semantix.unittest import SemanticAssertionsMixin


class Polite(Intent):
    """The text must be polite and professional."""


POLITE = "Thank you for your patience, your order is on its way."
RUDE = "Stop asking. It ships when it ships."


def judge_polite(output: str, intent: str) -> float:
    return 0.1 if "Stop asking" in output else 0.9


class BatchJudge(FakeJudge):
    """A FakeJudge that records the size of every batch it is given."""

    def __init__(self, handler: Callable[[str, str], float]) -> None:
        super().__init__(handler)
        self.batches: list[int] = []

    def evaluate_batch(self, requests: Sequence[JudgeRequest]) -> list[Verdict]:
        self.batches.append(len(requests))
        return super().evaluate_batch(requests)


class Scripted:
    """A flaky system under test: returns (or raises) its script in order, one item per call."""

    def __init__(self, script: Sequence[str | Exception]) -> None:
        self.script = list(script)
        self.calls = 0
        self.lock = threading.Lock()

    def __call__(self) -> str:
        with self.lock:
            item = self.script[self.calls % len(self.script)]
            self.calls += 1
        if isinstance(item, Exception):
            raise item
        return item


# --- the Wilson interval -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("passes", "runs", "expected"),
    [(5, 5, (0.57, 1.00)), (4, 5, (0.38, 0.96)), (0, 5, (0.00, 0.43))],
)
def test_wilson_interval_matches_the_documented_figures(
    passes: int, runs: int, expected: tuple[float, float]
) -> None:
    low, high = wilson_interval(passes, runs)
    assert (round(low, 2), round(high, 2)) == expected


# Computed with scipy.stats.binomtest(k, n).proportion_ci(method="wilson"), which uses the exact
# quantile z = 1.95996...; ours uses the documented 1.96, hence the 5e-5 tolerance.
SCIPY_WILSON = {
    (8, 10): (0.4901624715366418, 0.9433178485456248),
    (1, 3): (0.06149194472039626, 0.7923403991979523),
    (37, 50): (0.6044684273515115, 0.8412847250644762),
    (99, 100): (0.9455138038212946, 0.9982325679358593),
}


@pytest.mark.parametrize(("passes", "runs"), sorted(SCIPY_WILSON))
def test_wilson_interval_agrees_with_scipy(passes: int, runs: int) -> None:
    low, high = wilson_interval(passes, runs)
    assert low == pytest.approx(SCIPY_WILSON[passes, runs][0], abs=5e-5)
    assert high == pytest.approx(SCIPY_WILSON[passes, runs][1], abs=5e-5)


def test_wilson_interval_by_hand_for_one_run() -> None:
    # 1/1: centre (1 + z²/2) / (1 + z²), half z/(1 + z²) · sqrt(z²/4): lower = 1 / (1 + z²).
    low, high = wilson_interval(1, 1)
    assert low == pytest.approx(1 / (1 + 1.96**2))
    assert high == 1.0


@pytest.mark.parametrize("runs", [1, 2, 7, 30])
def test_wilson_interval_is_symmetric_and_contains_the_rate(runs: int) -> None:
    for passes in range(runs + 1):
        low, high = wilson_interval(passes, runs)
        mirror_low, mirror_high = wilson_interval(runs - passes, runs)
        assert 0.0 <= low <= passes / runs <= high <= 1.0
        assert low == pytest.approx(1 - mirror_high)
        assert high == pytest.approx(1 - mirror_low)


@pytest.mark.parametrize(("passes", "runs"), [(6, 5), (-1, 5), (1.0, 5), (True, 5)])
def test_wilson_interval_rejects_impossible_counts(passes: object, runs: int) -> None:
    with pytest.raises(
        ValueError, match=rf"passes must be an int between 0 and runs=5, got {passes!r}"
    ):
        wilson_interval(passes, runs)  # type: ignore[arg-type]


def test_wilson_interval_rejects_zero_runs() -> None:
    with pytest.raises(ConfigurationError, match="runs must be a positive int, got 0"):
        wilson_interval(0, 0)


# --- assert_pass_rate with a scripted flaky system --------------------------------------------


def test_every_run_passing_returns_the_stats() -> None:
    judge = FakeJudge(judge_polite)
    stats = assert_pass_rate(lambda: POLITE, Polite, runs=5, judge=judge)
    assert (stats.runs, stats.passes, stats.failures, stats.errors) == (5, 5, 0, 0)
    assert stats.pass_rate == 1.0
    assert tuple(round(bound, 2) for bound in stats.interval) == (0.57, 1.0)
    assert stats.passed and stats.verdict == "passed"
    assert len(judge.calls) == 1  # five runs, one output: judged once (the run's memo)
    assert [run.index for run in stats.results] == [1, 2, 3, 4, 5]
    assert all(run.output == POLITE for run in stats.results)


def test_flaky_system_passes_at_its_floor_and_fails_above_it() -> None:
    script = [POLITE] * 4 + [RUDE]  # 8 of 10 runs are polite
    stats = assert_pass_rate(
        Scripted(script), Polite, runs=10, min_pass_rate=0.8, judge=FakeJudge(judge_polite)
    )
    assert (stats.passes, stats.failures, stats.pass_rate) == (8, 2, 0.8)
    assert [run.outcome for run in stats.results] == (["passed"] * 4 + ["failed"]) * 2

    with pytest.raises(PassRateError) as caught:
        assert_pass_rate(
            Scripted(script), Polite, runs=10, min_pass_rate=0.9, judge=FakeJudge(judge_polite)
        )
    error = caught.value
    assert isinstance(error, SemanticAssertionError) and isinstance(error, AssertionError)
    message = str(error)
    assert message.splitlines()[:4] == [
        "pass rate of Polite is below its floor",
        "  pass rate: 8/10 = 80% (floor 90%)",
        "  95% Wilson interval: [0.49, 0.94]",
        "  runs: 8 passed, 2 failed, 0 errors (an error counts as a run that did not pass)",
    ]
    assert "  judge: FakeJudge" in message
    assert "runs that did not pass (first 2 of 2):" in message
    assert f"#5 FAIL  Polite=0.10/0.80  output: {RUDE!r}" in message
    assert "#10 FAIL" in message
    assert len(error.stats.results) == 10
    assert error.result is error.stats.results[4].results[0]
    assert not error.result.passed


def test_default_floor_is_every_run() -> None:
    with pytest.raises(PassRateError, match=r"9/10 = 90% \(floor 100%\)"):
        assert_pass_rate(
            Scripted([POLITE] * 9 + [RUDE]), Polite, runs=10, judge=FakeJudge(judge_polite)
        )


def test_failure_message_shows_only_the_first_few_runs_previewed() -> None:
    long_rude = "Stop asking. " + "blah " * 100
    with pytest.raises(PassRateError) as caught:
        assert_pass_rate(lambda: long_rude, Polite, runs=6, judge=FakeJudge(judge_polite))
    message = str(caught.value)
    assert "runs that did not pass (first 3 of 6):" in message
    assert "#3 FAIL" in message and "#4 FAIL" not in message
    assert f"(truncated, {len(long_rude)} chars in all)" in message
    assert len(caught.value.stats.results) == 6


def test_a_crash_of_the_system_is_an_error_counted_separately_never_a_pass() -> None:
    system = Scripted([POLITE, POLITE, RuntimeError("upstream timeout"), POLITE, POLITE])
    with pytest.raises(PassRateError) as caught:
        assert_pass_rate(system, Polite, runs=10, min_pass_rate=0.9, judge=FakeJudge(judge_polite))
    stats = caught.value.stats
    assert (stats.passes, stats.failures, stats.errors, stats.pass_rate) == (8, 0, 2, 0.8)
    assert stats.results[2].outcome == "error"
    assert isinstance(stats.results[2].error, RuntimeError)
    assert stats.results[2].output is None
    message = str(caught.value)
    assert "runs: 8 passed, 0 failed, 2 errors" in message
    assert "#3 ERROR RuntimeError: upstream timeout" in message
    # The floor counts errors as runs that did not pass: 8/10 reaches 0.8.
    passing = assert_pass_rate(
        Scripted(system.script), Polite, runs=10, min_pass_rate=0.8, judge=FakeJudge(judge_polite)
    )
    assert (passing.passes, passing.errors, passing.verdict) == (8, 2, "passed")


def test_when_every_run_crashes_the_first_error_is_raised_whatever_the_floor() -> None:
    system = Scripted([RuntimeError("first"), RuntimeError("second")])
    with pytest.raises(RuntimeError, match="first") as caught:
        assert_pass_rate(system, Polite, runs=4, min_pass_rate=0.0, judge=FakeJudge(judge_polite))
    if sys.version_info >= (3, 11):
        note = "semantix: all 4 runs of Polite raised, so nothing was judged; this is the first"
        assert caught.value.__notes__ == [f"{note} run's error"]
    stats = evaluate_pass_rate(
        Scripted(system.script), Polite, runs=4, min_pass_rate=0.0, judge=FakeJudge(judge_polite)
    )
    assert (stats.errors, stats.verdict, stats.passed) == (4, "error", False)


def test_a_system_that_asserts_internally_fails_with_the_runs_errors() -> None:
    # Regression: no run produced a result of its own, and raise_for_stats hit IndexError.
    judge = FakeJudge(judge_polite)

    def system() -> str:
        assert_semantic(RUDE, Polite, judge=judge)
        return RUDE

    with pytest.raises(PassRateError) as caught:
        assert_pass_rate(system, Polite, runs=3, judge=judge)
    error = caught.value
    assert (error.stats.failures, error.stats.errors, error.stats.verdict) == (3, 0, "failed")
    assert len(error.errors) == 3
    assert all(isinstance(inner, SemanticAssertionError) for inner in error.errors)
    assert error.result is error.errors[0].result
    assert error.result.output == RUDE
    assert error.__cause__ is error.errors[0]


def test_raise_for_stats_with_a_crash_then_failures_without_results_is_a_pass_rate_error() -> None:
    failed = evaluate_semantic(RUDE, Polite, judge=FakeJudge(judge_polite))
    crash = RuntimeError("bot is down")
    asserted = SemanticAssertionError(failed.explain(), failed)
    stats = RunStats(
        "test_bot", (RunResult(1, error=crash), RunResult(2, error=asserted)), min_pass_rate=0.5
    )
    with pytest.raises(PassRateError, match="pass rate of test_bot is below its floor") as caught:
        raise_for_stats(stats)
    assert caught.value.errors == (crash, asserted)
    assert caught.value.result is failed


def test_an_internal_assertion_is_published_once_by_itself_not_again_as_a_check_error(
    observed: list[object],
) -> None:
    judge = FakeJudge(judge_polite)

    def system() -> str:
        assert_semantic(RUDE, Polite, judge=judge)
        return RUDE

    with pytest.raises(PassRateError):
        assert_pass_rate(system, Polite, runs=2, judge=judge)
    kinds = [type(item).__name__ for item in observed]
    assert kinds == ["SemanticResult", "SemanticResult", "RunStats"]


def test_timeout_bounds_the_judge_of_every_run_as_in_assert_semantic() -> None:
    release = threading.Event()

    def stuck(output: str, intent: str) -> float:
        release.wait(30)
        return 0.9

    try:
        stats = evaluate_pass_rate(
            lambda: POLITE, Polite, runs=2, judge=FakeJudge(stuck), timeout=0.05
        )
    finally:
        release.set()
    assert (stats.errors, stats.verdict) == (2, "error")
    assert all(isinstance(run.error, JudgeTimeoutError) for run in stats.results)
    passing = assert_pass_rate(
        lambda: POLITE, Polite, runs=2, judge=FakeJudge(judge_polite), timeout=0.5
    )
    assert passing.passes == 2


@pytest.mark.parametrize("timeout", [0, -1, "abc", float("nan")])
def test_a_bad_timeout_is_an_error_naming_it_before_any_call(timeout: object) -> None:
    system = Scripted([POLITE])
    with pytest.raises(ValueError, match=r"timeout must be a positive number of seconds, got"):
        assert_pass_rate(system, Polite, runs=2, judge=FakeJudge(judge_polite), timeout=timeout)  # type: ignore[arg-type]
    assert system.calls == 0


def test_a_passing_check_can_have_its_floor_unproven_and_the_old_name_warns() -> None:
    stats = evaluate_pass_rate(
        Scripted([POLITE] * 4 + [RUDE]),
        Polite,
        runs=10,
        min_pass_rate=0.8,
        judge=FakeJudge(judge_polite),
    )
    assert (stats.verdict, stats.floor_unproven) == ("passed", True)  # lower bound 0.49 < 0.8
    proven = evaluate_pass_rate(
        lambda: POLITE, Polite, runs=20, min_pass_rate=0.8, judge=FakeJudge(judge_polite)
    )
    assert (proven.verdict, proven.floor_unproven) == ("passed", False)  # lower bound 0.84


def test_a_judge_error_is_an_error_for_every_run_it_judged() -> None:
    def broken(output: str, intent: str) -> float:
        raise OSError("model file vanished")

    stats = evaluate_pass_rate(lambda: POLITE, Polite, runs=3, judge=FakeJudge(broken))
    assert (stats.passes, stats.errors, stats.verdict) == (0, 3, "error")
    assert all(isinstance(run.error, JudgeError) for run in stats.results)
    assert all(run.output == POLITE for run in stats.results)
    with pytest.raises(JudgeError, match="model file vanished"):
        assert_pass_rate(lambda: POLITE, Polite, runs=3, judge=FakeJudge(broken))


def test_an_output_that_is_not_text_is_that_runs_error() -> None:
    values = iter([POLITE, 42, {"choices": [{"message": {"content": RUDE}}]}])
    stats = evaluate_pass_rate(
        lambda: next(values), Polite, runs=3, min_pass_rate=0.0, judge=FakeJudge(judge_polite)
    )
    assert [run.outcome for run in stats.results] == ["passed", "error", "failed"]
    assert isinstance(stats.results[1].error, TypeError)
    assert stats.results[2].output == RUDE


def test_outputs_are_judged_in_one_batch() -> None:
    judge = BatchJudge(judge_polite)
    outputs = [f"{POLITE} (reply {number})" for number in range(7)]
    assert_pass_rate(Scripted(outputs), Polite, runs=7, judge=judge)
    assert judge.batches == [7]


def test_concurrency_calls_the_system_concurrently() -> None:
    # Four calls can only all get past the barrier when four run at once.
    barrier = threading.Barrier(4, timeout=30)

    def system() -> str:
        barrier.wait()
        return POLITE

    stats = assert_pass_rate(system, Polite, runs=8, concurrency=4, judge=FakeJudge(judge_polite))
    assert (stats.passes, stats.errors) == (8, 0)


def test_concurrent_runs_keep_their_order() -> None:
    system = Scripted([POLITE, RUDE, POLITE, POLITE])
    stats = evaluate_pass_rate(
        system, Polite, runs=8, concurrency=3, min_pass_rate=0.5, judge=FakeJudge(judge_polite)
    )
    assert stats.passes == 6
    assert [run.index for run in stats.results] == list(range(1, 9))
    assert all(run.output == (RUDE if run.outcome == "failed" else POLITE) for run in stats.results)


def test_explicit_threshold_and_composite_intents_reach_the_judge() -> None:
    class Apologises(Intent):
        """The text apologises."""

    judge = FakeJudge({Polite.description: 0.7, Apologises.description: 0.2})
    stats = assert_pass_rate(
        lambda: POLITE, Polite & ~Apologises, runs=2, judge=judge, threshold=0.6
    )
    assert stats.passes == 2
    assert stats.name == "Polite & ~Apologises"


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        ({"runs": 0}, ConfigurationError, "runs must be a positive int, got 0"),
        ({"runs": 2.5}, ConfigurationError, "runs must be a positive int, got 2.5"),
        ({"runs": True}, ConfigurationError, "runs must be a positive int, got True"),
        (
            {"min_pass_rate": 1.5},
            ValueError,
            "min_pass_rate must be between 0 and 1 inclusive, got 1.5",
        ),
        (
            {"min_pass_rate": -0.1},
            ValueError,
            "min_pass_rate must be between 0 and 1 inclusive, got -0.1",
        ),
        (
            {"min_pass_rate": math.nan},
            ValueError,
            "min_pass_rate must be between 0 and 1 inclusive, got nan",
        ),
        (
            {"min_pass_rate": "0.8"},
            ValueError,
            "min_pass_rate must be a number between 0 and 1, got '0.8'",
        ),
        ({"concurrency": 0}, ConfigurationError, "concurrency must be a positive int, got 0"),
        ({"threshold": 2.0}, ValueError, "threshold must be between 0 and 1 inclusive, got 2.0"),
    ],
)
def test_bad_arguments_are_errors_naming_the_value_before_any_call(
    arguments: dict[str, object], error: type[Exception], message: str
) -> None:
    system = Scripted([POLITE])
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        assert_pass_rate(system, Polite, judge=FakeJudge(judge_polite), **arguments)  # type: ignore[arg-type]
    assert system.calls == 0


def test_a_system_that_is_not_callable_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="system must be a callable .* got str"):
        assert_pass_rate(POLITE, Polite, judge=FakeJudge(judge_polite))  # type: ignore[arg-type]


# --- results and their reprs -------------------------------------------------------------------


def test_reprs_show_the_decision_at_a_glance() -> None:
    stats = evaluate_pass_rate(
        Scripted([POLITE, RUDE, RuntimeError("boom"), POLITE, POLITE]),
        Polite,
        runs=5,
        min_pass_rate=0.6,
        judge=FakeJudge(judge_polite),
    )
    assert repr(stats) == "<RunStats PASS Polite 3/5 = 0.60 [0.23, 0.88] floor 0.60, 1 error>"
    assert repr(stats.results[1]) == (f"<RunResult #2 FAIL  Polite=0.10/0.80  output: {RUDE!r}>")
    assert repr(stats.results[2]) == "<RunResult #3 ERROR RuntimeError: boom>"
    assert repr(stats.results[0]).startswith("<RunResult #1 PASS  Polite=0.90/0.80  output:")
    assert type(stats).__module__ == "semantix"


def test_to_dict_carries_every_figure() -> None:
    stats = evaluate_pass_rate(
        Scripted([POLITE, RUDE, RuntimeError("boom"), POLITE, POLITE]),
        Polite,
        runs=5,
        min_pass_rate=0.8,
        judge=FakeJudge(judge_polite),
    )
    data = stats.to_dict()
    low, high = data.pop("interval")
    assert (round(low, 2), round(high, 2)) == (0.23, 0.88)
    latencies = data.pop("latency_ms")
    assert len(latencies) == 5 and all(latency >= 0 for latency in latencies)
    assert data == {
        "name": "Polite",
        "runs": 5,
        "passes": 3,
        "failures": 1,
        "errors": 1,
        "pass_rate": 0.6,
        "min_pass_rate": 0.8,
        "floor_unproven": True,
        "below_floor": True,
        "verdict": "failed",
        "outcomes": ["passed", "failed", "error", "passed", "passed"],
    }


def test_run_results_count_a_semantic_assertion_error_as_a_failure() -> None:
    judge = FakeJudge(judge_polite)
    failed = evaluate_semantic(RUDE, Polite, judge=judge)
    passed = evaluate_semantic(POLITE, Polite, judge=judge)
    error = SemanticAssertionError(failed.explain(), failed)
    assert RunResult(1, (failed,), error=error).outcome == "failed"
    assert RunResult(1, (), error=error).outcome == "failed"
    assert RunResult(1, (passed,)).outcome == "passed"
    assert RunResult(1, (passed, failed)).outcome == "failed"
    assert RunResult(1, (passed,), error=KeyError("x")).outcome == "error"
    assert RunResult(1, ()).outcome == "error"
    assert RunResult(1, ()).describe() == "#1 ERROR no semantic assertion was made"


def test_run_stats_validate_what_they_are_given() -> None:
    with pytest.raises(ValueError, match="RunStats for x needs at least one run"):
        RunStats("x", ())
    passed = evaluate_semantic(POLITE, Polite, judge=FakeJudge(judge_polite))
    with pytest.raises(ValueError, match="min_pass_rate must be between 0 and 1"):
        RunStats("x", (RunResult(1, (passed,)),), min_pass_rate=2)


def test_suite_stability_is_the_mean_rate_and_counts_unproven_floors() -> None:
    judge = FakeJudge(judge_polite)
    always = evaluate_pass_rate(lambda: POLITE, Polite, runs=5, min_pass_rate=0.5, judge=judge)
    flaky = evaluate_pass_rate(
        Scripted([POLITE, RUDE]), Polite, runs=4, min_pass_rate=0.5, judge=judge
    )
    score, below = suite_stability([always, flaky])
    assert score == pytest.approx((1.0 + 0.5) / 2)
    # 5/5 has lower bound 0.57 >= 0.5; 2/4 has lower bound 0.15 < 0.5.
    assert below == 1
    assert suite_stability([]) == (None, 0)


# --- the unittest mixin ------------------------------------------------------------------------


class FlakyBotTests(SemanticAssertionsMixin, unittest.TestCase):
    __test__ = False  # run by the tests below through unittest's own runner
    semantic_judge = FakeJudge(judge_polite)

    def test_at_floor(self) -> None:
        stats = self.assertPassRate(Scripted([POLITE] * 4 + [RUDE]), Polite, min_pass_rate=0.8)
        self.assertEqual(stats.passes, 8)

    def test_below_floor(self) -> None:
        self.assertPassRate(
            Scripted([POLITE, RUDE]), Polite, runs=4, min_pass_rate=0.75, msg="bot must be polite"
        )

    def test_every_run_crashes(self) -> None:
        self.assertPassRate(Scripted([RuntimeError("bot is down")]), Polite, runs=3)


def run_unittest(name: str) -> unittest.TestResult:
    runner = unittest.TextTestRunner(stream=io.StringIO(), verbosity=0)
    return runner.run(FlakyBotTests(name))


def test_unittest_assert_pass_rate_passes_at_the_floor() -> None:
    result = run_unittest("test_at_floor")
    assert result.wasSuccessful() and result.testsRun == 1


def test_unittest_assert_pass_rate_below_the_floor_is_a_failure_with_the_stats() -> None:
    result = run_unittest("test_below_floor")
    assert len(result.failures) == 1 and not result.errors
    report = result.failures[0][1]
    assert "AssertionError: bot must be polite" in report
    assert "pass rate: 2/4 = 50% (floor 75%)" in report
    assert "95% Wilson interval: [0.15, 0.85]" in report
    assert "#2 FAIL  Polite=0.10/0.80" in report
    assert "semantix/unittest.py" not in report


def test_unittest_assert_pass_rate_with_every_run_crashing_is_an_error() -> None:
    result = run_unittest("test_every_run_crashes")
    assert len(result.errors) == 1 and not result.failures
    assert "RuntimeError: bot is down" in result.errors[0][1]


# --- what observers (the pytest report) see ----------------------------------------------------


@pytest.fixture
def observed() -> Iterator[list[object]]:
    events: list[object] = []
    context.add_observer(events.append)
    yield events
    context.remove_observer(events.append)


def test_assert_pass_rate_publishes_every_check_then_the_stats(observed: list[object]) -> None:
    def judge_or_break(output: str, intent: str) -> float:
        if output == "break the judge":
            raise OSError("judge down")
        return judge_polite(output, intent)

    stats = assert_pass_rate(
        Scripted([POLITE, RUDE, RuntimeError("bot down")]),
        Polite,
        runs=3,
        min_pass_rate=0.3,
        judge=FakeJudge(judge_or_break),
    )
    assert [type(event).__name__ for event in observed] == [
        "SemanticResult",
        "SemanticResult",
        "RunStats",
    ]
    assert observed[-1] is stats

    observed.clear()
    evaluate_pass_rate(lambda: POLITE, Polite, runs=2, judge=FakeJudge(judge_polite))
    assert observed == []  # like evaluate_semantic: only assertions are recorded

    with pytest.raises(JudgeError):
        assert_pass_rate(lambda: "break the judge", Polite, runs=2, judge=FakeJudge(judge_or_break))
    assert [type(event).__name__ for event in observed] == ["CheckError", "CheckError", "RunStats"]
    assert isinstance(observed[0], CheckError) and observed[0].intent == "Polite"
    assert observed[0].output == "break the judge"


def test_suite_stability_reads_records_as_workers_send_them() -> None:
    judge = FakeJudge(judge_polite)
    flaky = evaluate_pass_rate(
        Scripted([POLITE, RUDE]), Polite, runs=4, min_pass_rate=0.5, judge=judge
    )
    assert suite_stability([flaky.to_dict(), flaky]) == (0.5, 2)


def test_frozen_verdicts_judge_every_run_through_the_same_store(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SEMANTIX_VERDICTS_PATH", str(tmp_path / "verdicts"))
    monkeypatch.setenv("SEMANTIX_VERDICTS", "update")
    recorder = FakeJudge(judge_polite)
    stats = assert_pass_rate(
        Scripted([POLITE, RUDE]), Polite, runs=4, min_pass_rate=0.5, judge=recorder
    )
    assert stats.passes == 2
    assert set(recorder.calls) == {(POLITE, Polite.description), (RUDE, Polite.description)}

    def unavailable(output: str, intent: str) -> float:
        raise RuntimeError("the LLM server is down")

    monkeypatch.setenv("SEMANTIX_VERDICTS", "strict")
    replayed = assert_pass_rate(
        Scripted([POLITE, RUDE]), Polite, runs=4, min_pass_rate=0.5, judge=FakeJudge(unavailable)
    )
    assert [run.outcome for run in replayed.results] == ["passed", "failed", "passed", "failed"]
    # strict never calls a judge: an output never recorded is every run's error, never a pass
    with pytest.raises(VerdictNotRecordedError):
        assert_pass_rate(lambda: "Something new", Polite, runs=2, judge=FakeJudge(unavailable))
