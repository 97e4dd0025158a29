"""Transcripts and streams read into one view (issue 35): every format on real SDK objects and
their dicts, tool results matched to their calls, usage summed, the final reply, bad input."""

from __future__ import annotations

import cProfile
import pstats
from typing import Any

import pytest

from agent_runs import (
    FINAL,
    LOOKUP,
    REFUND,
    AgentState,
    AIMessage,
    anthropic_run,
    anthropic_stream,
    chunk,
    function_call,
    langchain_call,
    langchain_run,
    openai_run,
    openai_stream,
    responses_run,
    tool_message,
)
from semantix.outputs import OutputView, Step, ToolCall, Usage, output_text, output_view


def dumped(messages: list[Any]) -> list[Any]:
    """The dict form users store: every SDK object through model_dump(mode="json")."""
    return [m.model_dump(mode="json") if hasattr(m, "model_dump") else m for m in messages]


def roles(view: OutputView) -> list[str]:
    return [step.role for step in view.steps]


@pytest.mark.parametrize("form", [lambda m: m, dumped], ids=["sdk", "dicts"])
def test_openai_chat_transcript(form: Any) -> None:
    view = output_view(form(openai_run()))
    assert roles(view) == ["system", "user", "assistant", "tool", "assistant", "tool", "assistant"]
    assert view.text == FINAL
    assert view.judged_turn == 6
    assert [(call.name, call.arguments, call.id) for call in view.tool_calls] == [
        ("lookup_order", LOOKUP, "call_1"),
        ("issue_refund", REFUND, "call_2"),
    ]
    (result,) = view.steps[5].tool_results
    assert result.call is view.tool_calls[1]  # matched by id, to the very call of the view
    assert (result.content, result.is_error) == ('{"refund_id": "R-1"}', False)
    # Chat messages carry no usage (it is on the ChatCompletion): none is invented.
    assert view.usage is None


def test_whole_chat_completions_in_a_transcript_sum_their_usage() -> None:
    view = output_view(openai_run(whole=True))
    assert view.usage == Usage(450, 42, 492, None, None)
    assert view.model == "gpt-4o-mini-2024-07-18"  # the last model named
    assert view.text == FINAL


def test_a_transcript_missing_one_steps_usage_cannot_sum_it() -> None:
    messages = openai_run(whole=True)
    messages[4] = messages[4].choices[0].message  # this step reports no usage
    usage = output_view(messages).usage
    assert usage is not None
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (None, None, None)


def test_openai_error_convention_json_object_with_an_error_key() -> None:
    failed = output_view(openai_run(refund_result={"error": "card declined"}))
    assert failed.steps[5].tool_results[0].is_error
    for content in ({"error": None, "refund_id": "R-1"}, {"error": ""}, ["error"], "no error: ok"):
        view = output_view(openai_run(refund_result=content))
        assert not view.steps[5].tool_results[0].is_error, content


@pytest.mark.parametrize("form", [lambda m: m, dumped], ids=["sdk", "dicts"])
def test_anthropic_transcript(form: Any) -> None:
    view = output_view(form(anthropic_run(refund_error=True)))
    assert roles(view) == ["user", "assistant", "tool", "assistant", "tool", "assistant"]
    assert view.steps[1].text == "Let me look that up."
    assert view.text == FINAL
    assert [call.id for call in view.tool_calls] == ["toolu_1", "toolu_2"]
    lookup, refund = view.steps[2].tool_results[0], view.steps[4].tool_results[0]
    assert (lookup.content, lookup.is_error) == ("delivered", False)
    assert (refund.call.name, refund.content, refund.is_error) == (
        "issue_refund",
        "card declined",
        True,
    )
    assert view.usage == Usage(250, 43, 293, None, None)
    assert view.model == "claude-sonnet-4-5-20250929"


@pytest.mark.parametrize("form", [lambda m: m, dumped], ids=["sdk", "dicts"])
def test_responses_items_transcript(form: Any) -> None:
    view = output_view(form(responses_run()))
    # The reasoning item and the call after it are one assistant step.
    assert roles(view) == ["user", "assistant", "tool", "assistant", "tool", "assistant"]
    assert view.steps[1].tool_calls[0].name == "lookup_order"
    assert view.text == FINAL
    assert view.steps[4].tool_results[0].call.arguments == REFUND


def test_parallel_responses_calls_are_one_step() -> None:
    items = [
        {"role": "user", "content": "Refund A17 and email me."},
        function_call("call_1", "issue_refund", REFUND),
        function_call("call_2", "send_email", {"to": "me"}),
        {"type": "function_call_output", "call_id": "call_2", "output": "sent"},
        {"type": "function_call_output", "call_id": "call_1", "output": "R-1"},
    ]
    view = output_view(items)
    assert roles(view) == ["user", "assistant", "tool", "tool"]
    assert [call.name for call in view.steps[1].tool_calls] == ["issue_refund", "send_email"]
    assert view.text is None
    with pytest.raises(TypeError, match=r"has no final answer to judge: it ended on a tool result"):
        output_text(items)


@pytest.mark.parametrize("status", ["success", "error"])
def test_langchain_shaped_messages_without_langchain(status: str) -> None:
    import sys

    assert "langchain_core" not in sys.modules
    view = output_view(langchain_run(refund_status=status))
    assert roles(view) == ["user", "assistant", "tool", "assistant", "tool", "assistant"]
    assert [call.name for call in view.tool_calls] == ["lookup_order", "issue_refund"]
    assert view.steps[4].tool_results[0].is_error is (status == "error")
    assert view.usage == Usage(90, 9, 99, None, None)
    assert view.model == "gpt-4o-mini"
    assert view.text == FINAL


def test_an_object_with_messages_is_its_transcript() -> None:
    state = AgentState(openai_run())
    assert output_view(state) == output_view(openai_run())
    assert output_view({"messages": dumped(openai_run())}).text == FINAL


def test_langchain_tool_use_blocks_and_tool_calls_are_counted_once() -> None:
    message = AIMessage(
        [{"type": "tool_use", "id": "c1", "name": "lookup_order", "input": LOOKUP}],
        [langchain_call("c1", "lookup_order", LOOKUP)],
    )
    assert output_view([message]).tool_calls == (ToolCall("lookup_order", LOOKUP, None, "c1"),)


def test_the_final_reply_is_the_last_assistant_text_not_the_first() -> None:
    """deepeval #1380 graded the first turn where its docs said the last."""
    messages = [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello! How can I help?"},
        {"role": "user", "content": "Refund A17"},
        {"role": "assistant", "content": "Done, it is refunded."},
    ]
    view = output_view(messages)
    assert (view.text, view.judged_turn) == ("Done, it is refunded.", 3)
    # A blank final message is no answer: the run's answer is not an earlier reply (issue 43).
    blank = output_view([*messages, {"role": "assistant", "content": "   "}])
    assert (blank.text, blank.judged_turn) == (None, None)
    assert blank.unanswered == "its final assistant message holds no text"


# --- streams -----------------------------------------------------------------------------------


@pytest.mark.parametrize("form", [list, iter, dumped], ids=["list", "iterator", "dicts"])
def test_openai_stream_is_assembled(form: Any) -> None:
    view = output_view(form(openai_stream()))
    assert view.text == "Checking now."
    assert view.tool_calls == (
        ToolCall("lookup_order", LOOKUP, '{"order_id": "A17"}', "call_1"),
        ToolCall("issue_refund", REFUND, '{"order_id": "A17", "amount": 20}', "call_2"),
    )
    assert view.usage == Usage(40, 12, 52, None, None)
    assert view.model == "gpt-4o-mini"
    assert view.steps == ()  # one response: one assistant step


@pytest.mark.parametrize("form", [list, iter, dumped], ids=["list", "iterator", "dicts"])
def test_anthropic_stream_is_assembled(form: Any) -> None:
    view = output_view(form(anthropic_stream()))
    assert view.text == "Let me check."
    assert view.tool_calls == (ToolCall("lookup_order", LOOKUP, None, "toolu_1"),)
    assert view.usage == Usage(25, 30, 55, None, None)
    assert view.model == "claude-sonnet-4-5-20250929"


def test_a_stream_of_tool_calls_only_has_no_text() -> None:
    pieces = [
        chunk({"role": "assistant", "content": None}),
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "c",
                        "type": "function",
                        "function": {"name": "f", "arguments": "{}"},
                    }
                ]
            }
        ),
        chunk({}, "tool_calls"),
    ]
    view = output_view(pieces)
    assert (view.text, [call.name for call in view.tool_calls]) == (None, ["f"])


@pytest.mark.parametrize(
    ("stream", "pattern"),
    [
        (
            openai_stream(cut=True),
            r"cut in the middle of the arguments of tool call 'issue_refund' \(no chunk has a finish_reason; arguments so far: '\{\"order_id\":'\)",
        ),
        (
            anthropic_stream(cut=True),
            r"cut in the middle of the arguments of tool call 'lookup_order' \(no message_stop event; arguments so far: '\{\"order_id\"'\)",
        ),
        (openai_stream()[:3], r"cut before its end \(no chunk has a finish_reason\)"),
        (anthropic_stream()[:5], r"cut before its end \(no message_stop event\)"),
        (anthropic_stream()[1:], r"no message_start event"),
    ],
    ids=[
        "openai-mid-arguments",
        "anthropic-mid-arguments",
        "openai-text",
        "anthropic-text",
        "anthropic-no-start",
    ],
)
def test_a_cut_stream_is_an_error(stream: list[Any], pattern: str) -> None:
    with pytest.raises(ValueError, match=pattern):
        output_view(stream)


# --- bad transcripts ---------------------------------------------------------------------------


def test_a_result_for_an_unknown_call_id_is_an_error() -> None:
    messages = openai_run()
    messages[3] = tool_message("call_9", "delivered")
    with pytest.raises(
        ValueError,
        match=r"messages\[3\] is the result of tool call 'call_9', but no earlier message made "
        r"that call \(calls so far: call_1 \(lookup_order\)\); pass the whole transcript",
    ):
        output_view(messages)


def test_a_result_before_its_call_is_an_error() -> None:
    messages = openai_run()
    messages[2], messages[3] = messages[3], messages[2]
    with pytest.raises(ValueError, match=r"messages\[2\] is the result of tool call 'call_1'"):
        output_view(messages)


def test_a_result_without_a_call_id_and_no_open_call_and_a_second_result_are_errors() -> None:
    messages = openai_run()
    messages.insert(4, {"role": "tool", "content": "delivered again"})  # call_1 is answered
    with pytest.raises(ValueError, match=r"messages\[4\] is a tool result without the id"):
        output_view(messages)
    messages = openai_run()
    messages.insert(4, tool_message("call_1", "again"))
    with pytest.raises(
        ValueError, match=r"messages\[4\] is a second result for tool call 'call_1'"
    ):
        output_view(messages)


@pytest.mark.parametrize(
    ("messages", "error", "pattern"),
    [
        ([], TypeError, r"messages is an empty transcript"),
        (["a", "b"], TypeError, r"messages\[0\] is str 'a', not a message"),
        (
            [{"role": "user", "content": "hi"}, 3],
            TypeError,
            r"messages\[1\] \(int\) is not a chat message",
        ),
        (
            AgentState([{"content": "hi"}]),
            TypeError,
            r"AgentState.messages\[0\] \(dict\) is not a chat message",
        ),
    ],
)
def test_what_is_not_a_transcript_says_so(
    messages: object, error: type[Exception], pattern: str
) -> None:
    with pytest.raises(error, match=pattern):
        output_view(messages)


def test_a_transcript_without_assistant_text_is_the_no_text_error() -> None:
    messages = openai_run()[:4]
    with pytest.raises(
        TypeError,
        match=r"messages \(4 steps, no assistant reply with text\) has no final answer to judge: "
        r"it ended on a tool result \(lookup_order",
    ):
        output_text(messages)


def test_the_view_repr_names_the_steps() -> None:
    view = output_view(langchain_run())
    assert repr(view).endswith(
        "steps=[user, assistant, tool, assistant, tool, assistant], judged_turn=5)"
    )
    assert view.steps[0] == Step("user", "Please refund order A17.")


def test_building_the_view_is_linear_in_the_transcript() -> None:
    """Counted in function calls (deterministic), not timed: 10x the steps, 10x the calls."""

    def calls_for(rounds: int) -> int:
        messages: list[Any] = [{"role": "user", "content": "Go."}]
        for i in range(rounds):
            messages.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": f"c{i}",
                            "type": "function",
                            "function": {"name": "step", "arguments": '{"n": 1}'},
                        }
                    ],
                }
            )
            messages.append(tool_message(f"c{i}", "ok"))
        messages.append({"role": "assistant", "content": "Done."})
        profile = cProfile.Profile()
        profile.runcall(output_view, messages)
        return sum(stat[1] for stat in pstats.Stats(profile).stats.values())  # type: ignore[attr-defined]

    small, large = calls_for(20), calls_for(200)
    assert large / small < 10.5


def test_whole_responses_objects_in_a_transcript() -> None:
    from agent_runs import call_output, openai_responses, output_message

    def response(*items: Any, tokens: int) -> Any:
        return openai_responses.Response.model_validate(
            {
                "id": "resp_1",
                "object": "response",
                "created_at": 1,
                "model": "gpt-4.1",
                "parallel_tool_calls": True,
                "tool_choice": "auto",
                "tools": [],
                "output": [item.model_dump() for item in items],
                "usage": {
                    "input_tokens": tokens,
                    "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                    "output_tokens": 5,
                    "output_tokens_details": {"reasoning_tokens": 0},
                    "total_tokens": tokens + 5,
                },
            }
        )

    messages = [
        {"role": "user", "content": "Refund A17."},
        response(function_call("call_1", "issue_refund", REFUND), tokens=40),
        call_output("call_1", '{"error": "card declined"}'),
        response(output_message("Sorry, the card was declined."), tokens=60),
    ]
    view = output_view(messages)
    assert roles(view) == ["user", "assistant", "tool", "assistant"]
    assert view.steps[2].tool_results[0].is_error
    assert view.text == "Sorry, the card was declined."
    assert view.usage == Usage(100, 10, 110, 0, 0)
    assert view.model == "gpt-4.1"
