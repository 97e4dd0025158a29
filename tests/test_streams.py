"""Recorded streams (issue 44, 45 item 8): calls that share an index keep apart, several
messages in one list keep both, a repeated argument name or deep nesting is unread arguments, a
mid-stream error, a block without an index or started twice, and a consumed iterator are errors
that say so, and a stream stopped at its token limit has no final answer."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from agent_runs import anthropic_stream, chunk, event, openai_stream
from semantix import evaluate_semantic
from semantix.checks import CalledTool
from semantix.outputs import output_view

openai_chat = pytest.importorskip("openai.types.chat")


def call_chunk(call_id: str, name: str, arguments: str) -> Any:
    part = {
        "index": 0,
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }
    return chunk({"tool_calls": [part]})


def test_two_stream_calls_on_index_0_with_their_own_ids_are_two_calls() -> None:
    stream = [
        chunk({"role": "assistant", "content": None}),
        call_chunk("a", "lookup_order", '{"order_id": "A17"}'),
        call_chunk("b", "delete_account", '{"user": "u1"}'),
        chunk({}, "tool_calls"),
    ]
    view = output_view(stream)
    assert [(call.id, call.name, call.arguments) for call in view.tool_calls] == [
        ("a", "lookup_order", {"order_id": "A17"}),
        ("b", "delete_account", {"user": "u1"}),
    ]
    assert not evaluate_semantic(stream, ~CalledTool("delete_account")).passed


def test_two_anthropic_messages_in_one_recorded_stream_keep_both() -> None:
    first = anthropic_stream()
    second = [
        event(
            "message_start",
            message={
                "id": "msg_2",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5-20250929",
                "content": [],
                "stop_reason": None,
                "usage": {"input_tokens": 5, "output_tokens": 1},
            },
        ),
        event(
            "content_block_start",
            index=0,
            content_block={
                "type": "tool_use",
                "id": "toolu_2",
                "name": "delete_account",
                "input": {},
            },
        ),
        event(
            "content_block_delta", index=0, delta={"type": "input_json_delta", "partial_json": "{}"}
        ),
        event("content_block_stop", index=0),
        event("message_delta", delta={"stop_reason": "tool_use"}, usage={"output_tokens": 3}),
        event("message_stop"),
    ]
    view = output_view(first + second)
    assert [call.name for call in view.tool_calls] == ["lookup_order", "delete_account"]
    assert len(view.steps) == 2


def test_two_openai_responses_in_one_recorded_stream_keep_both() -> None:
    first = openai_stream()
    second = [
        chunk({"role": "assistant", "content": "Done."}, id="chatcmpl-2"),
        chunk({}, "stop", id="chatcmpl-2"),
    ]
    view = output_view(first + second)
    assert [call.name for call in view.tool_calls] == ["lookup_order", "issue_refund"]
    assert view.text == "Done."


def test_a_repeated_name_in_streamed_arguments_is_never_matched() -> None:
    events = anthropic_stream()
    events[6] = event(
        "content_block_delta",
        index=1,
        delta={"type": "input_json_delta", "partial_json": '{"order_id": "B99", "order_id"'},
    )
    assert output_view(events).tool_calls[0].arguments is None
    assert not evaluate_semantic(
        events, CalledTool("lookup_order", args={"order_id": "A17"})
    ).passed


def test_an_input_json_delta_nested_too_deep_is_unreadable_arguments() -> None:
    events = anthropic_stream()
    events[6] = event(
        "content_block_delta",
        index=1,
        delta={"type": "input_json_delta", "partial_json": "[" * 100_000},
    )
    events[7] = event(
        "content_block_delta", index=1, delta={"type": "input_json_delta", "partial_json": ""}
    )
    call = output_view(events).tool_calls[0]
    assert call.arguments is None
    assert call.name == "lookup_order"


@pytest.mark.parametrize(
    "failure",
    [
        lambda: openai_chat.ChatCompletionChunk.model_validate(
            {
                "id": "chatcmpl-s",
                "object": "chat.completion.chunk",
                "created": 1,
                "model": "m",
                "choices": [],
                "error": {"message": "upstream overloaded"},
            }
        ),
        lambda: {
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "error"}],
        },
    ],
    ids=["error field", "finish_reason error"],
)
def test_a_mid_stream_error_chunk_is_an_error(failure: Any) -> None:
    stream = [*openai_stream()[:3], failure(), chunk({}, "stop")]
    with pytest.raises(ValueError, match="mid-stream"):
        output_view(stream)


def test_an_anthropic_block_without_an_index_is_a_clear_error() -> None:
    events = anthropic_stream()
    events[1] = {"type": "content_block_start", "content_block": {"type": "text", "text": ""}}
    with pytest.raises(ValueError, match=r"event 1 \(content_block_start\) has no block index"):
        output_view(events)


def test_a_consumed_stream_says_it_was_consumed() -> None:
    def stream() -> Iterator[Any]:
        yield from openai_stream()

    live = stream()
    assert output_view(live).text == "Checking now."
    with pytest.raises(TypeError, match="consumed already"):
        output_view(live)


# --- which tool result is an error (issue 45 item 1) -------------------------------------------


def test_a_stream_stopped_at_its_token_limit_has_no_answer() -> None:
    stream = [*openai_stream()[:3], chunk({}, "length")]
    view = output_view(stream)
    assert view.text is None
    assert view.unanswered == "the reply was cut at its token limit (finish_reason 'length')"
    events = anthropic_stream()
    events[9] = event(
        "message_delta", delta={"stop_reason": "max_tokens"}, usage={"output_tokens": 30}
    )
    assert "stop_reason 'max_tokens'" in (output_view(events).unanswered or "")


def test_streamed_server_tool_use_and_its_result_are_read() -> None:
    events = anthropic_stream()
    events[5] = event(
        "content_block_start",
        index=1,
        content_block={
            "type": "server_tool_use",
            "id": "srvtoolu_1",
            "name": "web_search",
            "input": {},
        },
    )
    events[6] = event(
        "content_block_delta",
        index=1,
        delta={"type": "input_json_delta", "partial_json": '{"query"'},
    )
    events[7] = event(
        "content_block_delta",
        index=1,
        delta={"type": "input_json_delta", "partial_json": ': "A17"}'},
    )
    view = output_view(events)
    assert [(call.name, call.kind, call.arguments) for call in view.tool_calls] == [
        ("web_search", "provider", {"query": "A17"})
    ]


def test_two_stream_calls_on_index_0_without_ids_are_two_calls() -> None:
    def piece(name: str | None, arguments: str) -> Any:
        function = (
            {"arguments": arguments} if name is None else {"name": name, "arguments": arguments}
        )
        return chunk({"tool_calls": [{"index": 0, "function": function}]})

    stream = [
        piece("lookup_order", '{"order_id": '),
        piece(None, '"A17"}'),
        piece("delete_account", '{"user": "u1"}'),
        chunk({}, "tool_calls"),
    ]
    assert [(call.name, call.arguments) for call in output_view(stream).tool_calls] == [
        ("lookup_order", {"order_id": "A17"}),
        ("delete_account", {"user": "u1"}),
    ]
    repeated = [
        piece("lookup_order", '{"order_id": '),
        piece("lookup_order", '"A17"}'),
        chunk({}, "stop"),
    ]
    assert [(call.name, call.arguments) for call in output_view(repeated).tool_calls] == [
        ("lookup_order", {"order_id": "A17"})
    ]


def test_a_block_started_twice_in_one_message_is_an_error_not_an_overwrite() -> None:
    events = anthropic_stream()
    again = event(
        "content_block_start",
        index=1,
        content_block={"type": "tool_use", "id": "toolu_9", "name": "delete_account", "input": {}},
    )
    events = [*events[:9], again, event("content_block_stop", index=1), *events[9:]]
    with pytest.raises(ValueError, match="starts block 1 a second time"):
        output_view(events)
