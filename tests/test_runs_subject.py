"""Repeated runs and relations judge what ``assert_semantic`` judges: the output's view (tool
calls, usage, the time the call took), never its text alone — budgets are leaves everywhere."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from typing import Any, ClassVar

import pytest

from semantix import FakeJudge, Intent, evaluate_semantic
from semantix.checks import CalledTool, Cost, Structural, Tokens
from semantix.checks._base import verdict
from semantix.errors import UnenforceableCheckError
from semantix.judges._base import Verdict
from semantix.outputs import OutputView
from semantix.relations import evaluate_relations, order
from semantix.runs import PassRateError, aassert_pass_rate, assert_pass_rate, evaluate_pass_rate

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")

JUDGE = FakeJudge(lambda output, intent: 0.9)
PRICES = {"gpt-4o-mini": (0.15, 0.60), "claude-3-5-haiku-latest": (0.8, 4.0)}


class Polite(Intent):
    """The text is polite."""


def refund_call(text: str | None = None, *, completion_tokens: int = 18) -> Any:
    """A real ChatCompletion that calls issue_refund (and says ``text``, if given)."""
    return openai.types.chat.ChatCompletion.model_validate(
        {
            "id": "c1",
            "object": "chat.completion",
            "created": 1,
            "model": "gpt-4o-mini",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls",
                    "message": {
                        "role": "assistant",
                        "content": text,
                        "tool_calls": [
                            {
                                "id": "call_1",
                                "type": "function",
                                "function": {
                                    "name": "issue_refund",
                                    "arguments": '{"order_id": "A17"}',
                                },
                            }
                        ],
                    },
                }
            ],
            "usage": {
                "prompt_tokens": 120,
                "completion_tokens": completion_tokens,
                "total_tokens": 120 + completion_tokens,
            },
        }
    )


def anthropic_reply(text: str) -> Any:
    return anthropic.types.Message.model_validate(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-3-5-haiku-latest",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 200, "output_tokens": 40},
        }
    )


BUDGETED = Tokens(max_total=400) & CalledTool("issue_refund", args={"order_id": "A17"})


def test_a_budget_and_a_tool_call_hold_in_repeated_runs_as_in_one_assertion() -> None:
    response = refund_call()
    assert evaluate_semantic(response, BUDGETED).passed
    stats = assert_pass_rate(lambda: response, BUDGETED, runs=3)
    assert (stats.runs, stats.passes, stats.errors) == (3, 3, 0)
    assert stats.results[0].results[0].leaves[0].verdict.reason == (
        "138 total tokens (at most 400)"
    )


def test_a_tools_only_agent_is_checked_in_every_run_and_every_relation_variant() -> None:
    def agent(case: dict[str, Any]) -> Any:
        return refund_call()  # an agent that only calls a tool: no text at all

    results = evaluate_relations(
        agent,
        {"id": "refund-1", "documents": ["a", "b", "c"]},
        CalledTool("issue_refund"),
        relations=[order("documents")],
    )
    (result,) = results
    assert result.original is not None and result.original.passes == 1
    assert [variant.stats.passes for variant in result.variants if variant.stats] == [1, 1, 1]
    assert (result.rate, result.errors) == (0.0, 0)


def test_a_semantic_leaf_on_a_tools_only_run_is_that_runs_error_not_a_pass() -> None:
    stats = evaluate_pass_rate(lambda: refund_call(), Polite, runs=2, judge=JUDGE)
    assert [run.outcome for run in stats.results] == ["error", "error"]
    assert isinstance(stats.results[0].error, TypeError)
    assert "only tool calls: issue_refund" in str(stats.results[0].error)


def test_a_tool_call_that_decides_an_or_spares_the_missing_text() -> None:
    stats = assert_pass_rate(
        lambda: refund_call(), CalledTool("issue_refund") | Polite, runs=2, judge=JUDGE
    )
    leaf = stats.results[0].results[0].leaves[1]
    assert (stats.passes, leaf.judged) == (2, False)


def test_cost_is_a_leaf_of_every_run_openai_and_anthropic_alike() -> None:
    replies = itertools.cycle([refund_call("Done, sorry!"), anthropic_reply("Sorry, done.")])
    stats = assert_pass_rate(
        lambda: next(replies), Polite & Cost(max_usd=0.001, prices=PRICES), runs=4, judge=JUDGE
    )
    reasons = [run.results[0].leaves[1].verdict.reason for run in stats.results]
    assert reasons[1] == (
        "cost $0.000320 (200 input tokens at $0.8/1M, 40 output at $4.0/1M), at most $0.001"
    )
    expensive = evaluate_pass_rate(
        lambda: next(replies), Cost(max_usd=0.0001, prices=PRICES), runs=2
    )
    assert [run.outcome for run in expensive.results] == ["passed", "failed"]


def test_an_unenforceable_budget_is_each_runs_error_never_a_pass() -> None:
    stats = evaluate_pass_rate(lambda: "Thank you!", Polite & Tokens(max_total=400), runs=3)
    assert (stats.verdict, stats.errors) == ("error", 3)
    assert all(isinstance(run.error, UnenforceableCheckError) for run in stats.results)
    with pytest.raises(UnenforceableCheckError, match="a plain str never does"):
        assert_pass_rate(lambda: "Thank you!", Polite & Tokens(max_total=400), runs=3)


class Within(Structural, abstract=True):
    """A test leaf that reads the time the runner measured (what ``Latency`` reads)."""

    limit_ms: ClassVar[float] = 150.0

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        if view.timing is None or view.timing.total_ms is None:
            raise UnenforceableCheckError("no timing")
        return verdict(view.timing.total_ms <= cls.limit_ms, f"{view.timing.total_ms:g} ms")


class Fast(Within):
    """The system answered within 150 ms."""


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


def test_each_run_is_judged_with_the_time_its_call_took_not_the_judges() -> None:
    clock = FakeClock([0.1, 0.2, 0.1])
    slow_judge = FakeJudge(lambda output, intent: (setattr(clock, "now", clock.now + 5), 0.9)[1])
    stats = evaluate_pass_rate(
        clock.system(lambda: "Thanks!"), Polite & Fast, runs=3, judge=slow_judge, clock=clock
    )
    assert [run.outcome for run in stats.results] == ["passed", "failed", "passed"]
    assert [run.results[0].leaves[1].verdict.reason for run in stats.results] == [
        "100 ms",
        "200 ms",
        "100 ms",
    ]
    slow = FakeClock([0.1, 0.2])
    with pytest.raises(PassRateError, match="pass rate of Polite & Fast is below its floor"):
        assert_pass_rate(
            slow.system(lambda: "Thanks!"), Polite & Fast, runs=2, judge=JUDGE, clock=slow
        )


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("max_latency_ms", r"no longer takes max_latency_ms=: put Latency\(max_ms=...\)"),
        ("max_cost_usd", r"no longer takes max_cost_usd=: put Cost\(max_usd=..., prices=...\)"),
        ("max_workers", "no longer takes max_workers=: use concurrency="),
        ("runz", "unknown option runz=; did you mean runs="),
    ],
)
def test_a_removed_or_unknown_option_says_what_to_use(option: str, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        evaluate_pass_rate(lambda: "Thanks!", Polite, judge=JUDGE, **{option: 1})


def test_an_async_system_given_as_a_lambda_is_awaited() -> None:
    async def answer(question: str) -> str:
        await asyncio.sleep(0)
        return f"Thank you for asking about {question}."

    stats = asyncio.run(
        aassert_pass_rate(lambda: answer("refunds"), Polite, runs=3, concurrency=2, judge=JUDGE)
    )
    assert stats.passes == 3
    assert stats.results[0].output == "Thank you for asking about refunds."


def test_a_sync_run_of_a_coroutine_says_to_use_the_async_runner() -> None:
    async def answer() -> str:
        return "Thanks!"

    stats = evaluate_pass_rate(lambda: answer(), Polite, runs=1, judge=JUDGE)
    assert "use aassert_pass_rate / aevaluate_pass_rate" in str(stats.results[0].error)


def test_a_whole_agent_run_is_the_subject_of_repeated_runs_and_relations() -> None:
    from agent_runs import FINAL, LOOKUP, REFUND, anthropic_run, openai_run
    from semantix.agents import FinalTurn, Steps, ToolCalls, ToolSucceeded

    apologizes = FakeJudge(lambda output, intent: 0.9 if "Sorry" in output else 0.1)
    agent = (
        ToolCalls(CalledTool("lookup_order", args=LOOKUP), CalledTool("issue_refund", args=REFUND))
        & ToolSucceeded("issue_refund")
        & Steps(max=4)
        & FinalTurn("The text apologizes.")
    )
    runs = itertools.cycle([openai_run(), anthropic_run()])
    stats = assert_pass_rate(lambda: next(runs), agent, runs=4, judge=apologizes)
    assert (stats.passes, stats.results[0].output) == (4, FINAL)
    failing = evaluate_pass_rate(
        lambda: anthropic_run(refund_error=True), agent, runs=2, judge=apologizes
    )
    assert [run.outcome for run in failing.results] == ["failed", "failed"]
    (result,) = evaluate_relations(
        lambda case: openai_run(),
        {"id": "a17", "documents": ["a", "b"]},
        agent,
        relations=[order("documents")],
        judge=apologizes,
    )
    assert result.errors == 0 and result.rate == 0.0 and result.original is not None
    assert result.original.passes == 1


def test_latency_is_fed_by_the_time_each_run_took() -> None:
    from semantix.checks import Latency

    clock = FakeClock([0.5, 2.5, 0.5])
    stats = evaluate_pass_rate(
        clock.system(lambda: "Thanks!"), Latency(max_ms=1000), runs=3, clock=clock
    )
    assert [run.outcome for run in stats.results] == ["passed", "failed", "passed"]
    assert "2500" in (stats.results[1].results[0].leaves[0].verdict.reason or "")
