"""Latency and cost ceilings of repeated runs: timed around the system only, checked after the
runs, and a ceiling nobody can check is never a pass."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

import pytest

from semantix import FakeJudge, Intent
from semantix.errors import UnenforceableCheckError
from semantix.runs import PassRateError, assert_pass_rate, evaluate_pass_rate
from semantix.runs.ceilings import percentile

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")


class Polite(Intent):
    """The text is polite."""


JUDGE = FakeJudge(lambda output, intent: 0.9)
PRICES = {"gpt-4o-mini": (0.15, 0.60)}


def completion(prompt: int = 1000, completion_tokens: int = 200, model: str = "gpt-4o-mini") -> Any:
    return openai.types.chat.ChatCompletion.model_validate(
        {
            "id": "c1",
            "object": "chat.completion",
            "created": 1,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": "Thank you for waiting!"},
                }
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt + completion_tokens,
            },
        }
    )


class FakeClock:
    """A clock the system under test advances: each call takes the next duration (seconds)."""

    def __init__(self, durations: list[float]) -> None:
        self.now = 0.0
        self.durations = iter(durations)

    def __call__(self) -> float:
        return self.now

    def system(self, output: Callable[[], Any]) -> Callable[[], Any]:
        def call() -> Any:
            self.now += next(self.durations)
            return output()

        return call


def test_the_latency_percentile_is_checked_after_the_runs() -> None:
    clock = FakeClock([0.1, 0.2, 0.3, 0.4, 2.0])
    stats = evaluate_pass_rate(
        clock.system(lambda: "Thank you!"),
        Polite,
        runs=5,
        judge=JUDGE,
        max_latency_ms=500,
        latency_percentile=80,
        clock=clock,
    )
    assert [round(run.latency_ms or 0) for run in stats.results] == [100, 200, 300, 400, 2000]
    (ceiling,) = stats.ceilings
    assert (ceiling.what, ceiling.measured, ceiling.passed) == (
        "latency p80",
        pytest.approx(400),
        True,
    )
    assert stats.passed


def test_a_slow_maximum_fails_the_check_with_the_figure() -> None:
    clock = FakeClock([0.1, 3.5])
    with pytest.raises(PassRateError, match=r"latency max 3500 ms > 3000 ms: FAIL"):
        assert_pass_rate(
            clock.system(lambda: "Thank you!"),
            Polite,
            runs=2,
            judge=JUDGE,
            max_latency_ms=3000,
            clock=clock,
        )


def test_the_judges_time_is_not_the_systems() -> None:
    clock = FakeClock([0.05] * 3)

    def slow_judge(output: str, intent: str) -> float:
        clock.now += 10.0  # the judge takes 10 s: never counted as the system's latency
        return 0.9

    stats = evaluate_pass_rate(
        clock.system(lambda: "Thank you!"),
        Polite,
        runs=3,
        judge=FakeJudge(slow_judge),
        max_latency_ms=100,
        clock=clock,
    )
    assert stats.passed and stats.ceilings[0].measured == pytest.approx(50)


def test_cost_sums_every_runs_response_at_the_given_prices() -> None:
    stats = evaluate_pass_rate(
        completion, Polite, runs=3, judge=JUDGE, max_cost_usd=0.001, prices=PRICES
    )
    each = (1000 * 0.15 + 200 * 0.60) / 1e6
    assert [run.cost_usd for run in stats.results] == [pytest.approx(each)] * 3
    (ceiling,) = stats.ceilings
    assert ceiling.measured == pytest.approx(3 * each) and ceiling.passed
    with pytest.raises(PassRateError, match=r"cost total .* > 0.0005 USD: FAIL"):
        assert_pass_rate(
            completion, Polite, runs=3, judge=JUDGE, max_cost_usd=0.0005, prices=PRICES
        )


def test_anthropic_responses_are_priced_too() -> None:
    message = anthropic.types.Message.model_validate(
        {
            "id": "m1",
            "type": "message",
            "role": "assistant",
            "model": "claude-3-5-haiku-20241022",
            "content": [{"type": "text", "text": "Thank you!"}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 100, "output_tokens": 50},
        }
    )
    stats = evaluate_pass_rate(
        lambda: message,
        Polite,
        runs=2,
        judge=JUDGE,
        max_cost_usd=1.0,
        prices={"claude-3-5-haiku": (0.8, 4.0)},
    )
    assert stats.ceilings[0].measured == pytest.approx(2 * (100 * 0.8 + 50 * 4.0) / 1e6)


@pytest.mark.parametrize(
    ("outputs", "why"),
    [
        (["Thank you!"], "carries no token usage"),  # a plain str
        ([completion(model="gpt-4o")], "no price for model 'gpt-4o'"),
        ([RuntimeError("down")], "run 2 raised"),
    ],
)
def test_one_run_without_a_known_cost_makes_the_ceiling_unenforceable(
    outputs: list[object], why: str
) -> None:
    script = itertools.chain([completion()], outputs)

    def system() -> Any:
        value = next(script)
        if isinstance(value, BaseException):
            raise value
        return value

    with pytest.raises(UnenforceableCheckError, match=f"never a pass.*{why}"):
        assert_pass_rate(
            system,
            Polite,
            runs=2,
            min_pass_rate=0.5,
            judge=JUDGE,
            max_cost_usd=1.0,
            prices=PRICES,
        )


def test_an_unenforceable_ceiling_is_an_error_verdict_never_a_pass() -> None:
    stats = evaluate_pass_rate(
        lambda: "Thank you!", Polite, runs=2, judge=JUDGE, max_cost_usd=1.0, prices=PRICES
    )
    assert stats.verdict == "error" and not stats.passed
    assert stats.to_dict()["ceilings"][0]["unenforceable"].startswith("2 of 2 runs")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"max_latency_ms": -1}, "max_latency_ms must be a number, 0 or more"),
        ({"max_latency_ms": float("nan")}, "max_latency_ms must be a number"),
        (
            {"max_latency_ms": 100, "latency_percentile": 0},
            r"latency_percentile must be in \(0, 100\]",
        ),
        ({"max_latency_ms": 100, "latency_percentile": 101}, "latency_percentile must be in"),
        ({"max_cost_usd": -0.1, "prices": PRICES}, "max_cost_usd must be a number, 0 or more"),
        ({"max_cost_usd": 0.1}, "max_cost_usd= needs prices="),
        ({"prices": PRICES}, "prices= was given without max_cost_usd="),
        ({"max_cost_usd": 0.1, "prices": {"m": (0.1,)}}, r"prices\['m'\] must be"),
        ({"max_cost_usd": 0.1, "prices": {"m": (-1, 1)}}, r"prices\['m'\] must be"),
    ],
)
def test_bad_ceilings_are_errors_before_any_run(arguments: dict[str, Any], message: str) -> None:
    calls: list[int] = []
    with pytest.raises((ValueError, TypeError), match=message):
        evaluate_pass_rate(lambda: calls.append(1) or "x", Polite, runs=2, judge=JUDGE, **arguments)
    assert calls == []


def test_nearest_rank_percentile() -> None:
    values = [5.0, 1.0, 4.0, 2.0, 3.0]
    assert [percentile(values, rank) for rank in (1, 20, 50, 95, 100)] == [1, 1, 3, 5, 5]


def test_the_reports_show_ceilings_and_warn_of_unenforceable_ones(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_budget="""
from semantix import FakeJudge
from semantix.runs import assert_pass_rate

JUDGE = FakeJudge(lambda output, intent: 0.9)

def test_latency():
    assert_pass_rate(lambda: "Thank you!", "polite", runs=3, judge=JUDGE, max_latency_ms=60000)

def test_cost():
    assert_pass_rate(lambda: "Thank you!", "polite", runs=2, judge=JUDGE, max_cost_usd=0.05,
                     prices={"gpt-4o-mini": (0.15, 0.6)})
"""
    )
    report = pytester.path / "report.json"
    page = pytester.path / "report.html"
    result = pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "-p",
        "no:asyncio",
        "--semantic-report",
        f"--semantic-report-json={report}",
        f"--semantic-report-html={page}",
    )
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*UnenforceableCheckError*never a pass*"])
    result.stdout.fnmatch_lines(
        [
            (
                "WARNING unenforceable: test_budget.py::test_cost: cost total <= 0.05 USD cannot "
                "be checked (2 of 2 runs have no known cost*"
            ),
            "ceiling test_budget.py::test_latency: latency max * ms (limit 60000 ms): ok",
        ]
    )
    tests = json.loads(report.read_text(encoding="utf-8"))["runs"]["tests"]
    by_test = {record["nodeid"].split("::")[1]: record for record in tests}
    assert by_test["test_cost"]["ceilings"][0]["unenforceable"].startswith("2 of 2 runs")
    assert by_test["test_latency"]["ceilings"][0]["passed"] is True
    html = page.read_text(encoding="utf-8")
    assert "<b>unenforceable</b> test_budget.py::test_cost: cost total" in html
    assert "test_budget.py::test_latency: latency max" in html
