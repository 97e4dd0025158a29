"""Runs with no final answer (issue 43 §4, 44): a run that ended on a tool result, a refusal, a
thinking-only message or a reply cut at its token limit is never judged on an earlier preamble;
streams that lose or merge calls, fail mid-way, or were consumed; which tool result is an error
(issue 45 item 1)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from agent_runs import (
    anthropic_message,
    anthropic_run,
    completion,
    openai_run,
    tool_message,
)
from semantix import FakeJudge, evaluate_semantic
from semantix.agents import FinalTurn, ToolCalls, ToolFailed, ToolSucceeded
from semantix.checks import CalledTool, Contains
from semantix.outputs import (
    default_tool_error_rule,
    output_text,
    output_view,
    set_tool_error_rule,
)

openai_chat = pytest.importorskip("openai.types.chat")
openai_responses = pytest.importorskip("openai.types.responses")

PREAMBLE = "Sure, I'll refund order A17 right away."


def judge() -> FakeJudge:
    return FakeJudge(lambda output, description: 0.9)


def ended_on_a_tool_result() -> list[Any]:
    lookup = completion(PREAMBLE, ("call_1", "issue_refund", {"order_id": "A17"}))
    return [
        {"role": "user", "content": "Refund A17"},
        lookup.choices[0].message,
        tool_message("call_1", "Error: card declined"),
    ]


def refused_at_the_end() -> list[Any]:
    refusal = openai_chat.ChatCompletionMessage.model_validate(
        {"role": "assistant", "content": None, "refusal": "I can't help with that."}
    )
    return [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": PREAMBLE},
        {"role": "user", "content": "Now do it"},
        refusal,
    ]


def thinking_only_at_the_end() -> list[Any]:
    return [
        {"role": "user", "content": "Hi"},
        anthropic_message({"type": "text", "text": PREAMBLE}),
        {"role": "user", "content": "Now do it"},
        anthropic_message({"type": "thinking", "thinking": "hmm", "signature": "s"}),
    ]


def cut_at_the_token_limit() -> list[Any]:
    cut = completion("Sorry, the refund", usage=(100, 16)).model_dump()
    cut["choices"][0]["finish_reason"] = "length"
    return [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": PREAMBLE}, cut]


RUNS = {
    "tool result": (ended_on_a_tool_result, r"it ended on a tool result \(issue_refund"),
    "refusal": (refused_at_the_end, r"the model refused .*I can't help"),
    "thinking only": (thinking_only_at_the_end, r"holds no text"),
    "cut": (cut_at_the_token_limit, r"cut at its token limit \(finish_reason 'length'\)"),
}


@pytest.mark.parametrize("name", list(RUNS))
def test_a_run_without_a_final_answer_is_never_judged_on_a_preamble(name: str) -> None:
    build, reason = RUNS[name]
    view = output_view(build())
    assert (view.text, view.judged_turn) == (None, None)
    assert view.unanswered is not None
    assert re.search(reason, view.unanswered), view.unanswered
    for check in ("The text apologizes.", FinalTurn("The text apologizes."), Contains("refund")):
        with pytest.raises(TypeError, match=reason):
            evaluate_semantic(build(), check, judge=judge())
    with pytest.raises(TypeError, match="has no final answer to judge"):
        output_text(build())


def test_calls_are_still_checked_on_a_run_without_an_answer() -> None:
    run = ended_on_a_tool_result()
    assert evaluate_semantic(
        run, ToolCalls(CalledTool("issue_refund")) & ToolFailed("issue_refund")
    ).passed


def test_an_answered_run_has_no_unanswered_reason() -> None:
    assert output_view(openai_run()).unanswered is None
    assert output_view(anthropic_run()).unanswered is None


@pytest.mark.parametrize(
    ("output", "reason"),
    [
        (
            lambda: {
                **completion("Sorry, the").model_dump(),
                "choices": [
                    {
                        "finish_reason": "length",
                        "message": {"role": "assistant", "content": "Sorry, the"},
                    }
                ],
            },
            r"cut at its token limit \(finish_reason 'length'\)",
        ),
        (
            lambda: {
                **anthropic_message({"type": "text", "text": "Sorry, the"}).model_dump(),
                "stop_reason": "max_tokens",
            },
            r"cut at its token limit \(stop_reason 'max_tokens'\)",
        ),
        (
            lambda: {
                **anthropic_message({"type": "text", "text": "I won't"}).model_dump(),
                "stop_reason": "refusal",
            },
            r"the model refused \(stop_reason 'refusal'\)",
        ),
        (
            lambda: {
                "output": [
                    {"type": "message", "content": [{"type": "output_text", "text": "Sorry, the"}]}
                ],
                "status": "incomplete",
                "incomplete_details": {"reason": "max_output_tokens"},
            },
            r"cut at its token limit \(the response is incomplete: max_output_tokens\)",
        ),
        (
            lambda: {
                "output": [{"type": "message", "content": [{"type": "refusal", "refusal": "No."}]}]
            },
            r"the model refused \(the Responses output is a refusal: 'No.'\)",
        ),
    ],
    ids=[
        "chat length",
        "anthropic max_tokens",
        "anthropic refusal",
        "responses incomplete",
        "responses refusal",
    ],
)
def test_a_single_reply_cut_or_refused_has_no_answer(output: Any, reason: str) -> None:
    view = output_view(output())
    assert view.text is None
    with pytest.raises(TypeError, match=reason):
        evaluate_semantic(output(), Contains("Sorry"))


@pytest.mark.parametrize(
    "content",
    [
        "Error: card declined",
        "error: card declined",
        "FAILED: timeout",
        '{"status": "error", "message": "card declined"}',
        '{"status": "Failed"}',
        '{"success": false}',
        '{"ok": false, "reason": "x"}',
        '{"isError": true, "content": []}',
    ],
)
def test_results_that_say_they_failed_are_errors(content: str) -> None:
    run = openai_run(refund_result=content)
    assert output_view(run).steps[5].tool_results[0].is_error
    assert not evaluate_semantic(run, ToolSucceeded("issue_refund")).passed


@pytest.mark.parametrize(
    "content", ["Refund R-1 issued", '{"status": "ok"}', '{"errors": []}', "No error: all fine"]
)
def test_results_that_do_not_say_so_are_successes(content: str) -> None:
    assert not output_view(openai_run(refund_result=content)).steps[5].tool_results[0].is_error


def test_a_provider_flag_is_an_error_and_no_flag_hides_what_a_result_says() -> None:
    anthropic = anthropic_run()
    anthropic[4] = {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_2",
                "content": "Error: declined",
                "is_error": False,
            }
        ],
    }
    assert output_view(anthropic).steps[4].tool_results[0].is_error


def test_a_user_rule_is_set_once_and_restored() -> None:
    run = openai_run(refund_result="DECLINED (code 51)")
    assert not output_view(run).steps[5].tool_results[0].is_error
    previous = set_tool_error_rule(
        lambda content, call: (
            default_tool_error_rule(content, call) or (content or "").startswith("DECLINED")
        )
    )
    try:
        assert previous is default_tool_error_rule
        assert output_view(run).steps[5].tool_results[0].is_error
    finally:
        set_tool_error_rule(None)
    assert not output_view(run).steps[5].tool_results[0].is_error


def test_a_rule_that_raises_or_answers_no_bool_is_named() -> None:
    run = openai_run()

    def nope(content: str | None, call: object) -> Any:
        return "nope"

    def broken(content: str | None, call: object) -> bool:
        raise KeyError("x")

    try:
        set_tool_error_rule(nope)
        with pytest.raises(
            TypeError, match=r"rule .*nope returned 'nope' \(str\) on the result of lookup_order"
        ):
            output_view(run)
        set_tool_error_rule(broken)
        with pytest.raises(TypeError, match=r"rule .*broken raised KeyError"):
            output_view(run)
    finally:
        set_tool_error_rule(None)
    with pytest.raises(TypeError, match="takes a function"):
        set_tool_error_rule("error")  # type: ignore[arg-type]


def test_a_number_gets_a_hint_that_fits_it_and_none_its_own() -> None:
    with pytest.raises(
        TypeError, match=r"got 42 \(int\), a number, not what a model wrote"
    ) as info:
        output_view(42)
    assert "return nothing" not in str(info.value)
    with pytest.raises(TypeError, match=r"got None \(NoneType\); did the model call"):
        output_view(None)


def test_a_langchain_or_anthropic_message_cut_in_a_transcript_has_no_answer() -> None:
    from agent_runs import AIMessage

    cut = AIMessage("Sorry, the", response_metadata={"finish_reason": "length"})
    view = output_view([{"role": "user", "content": "Hi"}, cut])
    assert view.unanswered == "the reply was cut at its token limit (finish_reason 'length')"
    message = anthropic_message({"type": "text", "text": "Sorry, the"}).model_dump()
    message["stop_reason"] = "max_tokens"
    assert "stop_reason 'max_tokens'" in (
        output_view([{"role": "user", "content": "Hi"}, message]).unanswered or ""
    )


def test_langchain_cache_details_are_read() -> None:
    from agent_runs import AIMessage

    usage = {
        "input_tokens": 100,
        "output_tokens": 5,
        "total_tokens": 105,
        "input_token_details": {"cache_read": 30, "cache_creation": 20},
    }
    view = output_view(
        [{"role": "user", "content": "Hi"}, AIMessage("Hello", usage_metadata=usage)]
    )
    assert view.usage is not None
    assert (
        view.usage.input_tokens,
        view.usage.cache_read_tokens,
        view.usage.cache_write_tokens,
    ) == (100, 30, 20)
