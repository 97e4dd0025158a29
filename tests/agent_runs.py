"""Agent runs built from real SDK objects (``model_validate``, no network), shared by the agent
and transcript tests: the same two-step agent (look the order up, then refund it) in each
provider's shape, and streams from both SDKs."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

openai_chat = pytest.importorskip("openai.types.chat")
openai_responses = pytest.importorskip("openai.types.responses")
anthropic_types = pytest.importorskip("anthropic.types")

LOOKUP = {"order_id": "A17"}
REFUND = {"order_id": "A17", "amount": 20}
FINAL = "Sorry for the wait: order A17 is refunded, 20 euros."


def completion(
    content: str | None = None,
    *calls: tuple[str, str, dict[str, Any]],
    usage: tuple[int, int] = (100, 10),
    model: str = "gpt-4o-mini",
) -> Any:
    """A ChatCompletion; ``calls`` are (id, name, arguments)."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [
            {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, n, a in calls
        ]
    return openai_chat.ChatCompletion.model_validate(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1,
            "model": model,
            "choices": [
                {"index": 0, "finish_reason": "tool_calls" if calls else "stop", "message": message}
            ],
            "usage": {
                "prompt_tokens": usage[0],
                "completion_tokens": usage[1],
                "total_tokens": sum(usage),
            },
        }
    )


def tool_message(call_id: str, content: object) -> dict[str, Any]:
    text = content if isinstance(content, str) else json.dumps(content)
    return {"role": "tool", "tool_call_id": call_id, "content": text}


def openai_run(*, refund_result: object = None, whole: bool = False) -> list[Any]:
    """OpenAI chat messages: the assistant turns are the SDK's ChatCompletionMessage objects
    (``whole``: the ChatCompletion objects themselves, with their usage)."""
    steps = [
        completion(None, ("call_1", "lookup_order", LOOKUP)),
        completion(None, ("call_2", "issue_refund", REFUND), usage=(150, 12)),
        completion(FINAL, usage=(200, 20), model="gpt-4o-mini-2024-07-18"),
    ]
    turns = steps if whole else [step.choices[0].message for step in steps]
    return [
        {"role": "system", "content": "You are a support agent."},
        {"role": "user", "content": "Please refund order A17."},
        turns[0],
        tool_message("call_1", {"status": "delivered", "total": 20}),
        turns[1],
        tool_message("call_2", refund_result or {"refund_id": "R-1"}),
        turns[2],
    ]


def anthropic_message(*blocks: dict[str, Any], usage: tuple[int, int] = (50, 5)) -> Any:
    return anthropic_types.Message.model_validate(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5-20250929",
            "content": list(blocks),
            "stop_reason": "tool_use" if blocks[-1]["type"] == "tool_use" else "end_turn",
            "usage": {"input_tokens": usage[0], "output_tokens": usage[1]},
        }
    )


def tool_use(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def anthropic_run(*, refund_error: bool = False) -> list[Any]:
    """Anthropic messages: assistant turns are SDK ``Message`` objects, tool results the
    ``tool_result`` blocks the API takes (``is_error`` on a failure)."""
    refund_result = {
        "type": "tool_result",
        "tool_use_id": "toolu_2",
        "content": [{"type": "text", "text": "card declined" if refund_error else "R-1"}],
    }
    if refund_error:
        refund_result["is_error"] = True
    return [
        {"role": "user", "content": "Please refund order A17."},
        anthropic_message(
            {"type": "text", "text": "Let me look that up."},
            tool_use("toolu_1", "lookup_order", LOOKUP),
        ),
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "delivered"}],
        },
        anthropic_message(tool_use("toolu_2", "issue_refund", REFUND), usage=(80, 8)),
        {"role": "user", "content": [refund_result]},
        anthropic_message({"type": "text", "text": FINAL}, usage=(120, 30)),
    ]


def function_call(call_id: str, name: str, arguments: dict[str, Any]) -> Any:
    return openai_responses.ResponseFunctionToolCall.model_validate(
        {
            "type": "function_call",
            "id": f"fc_{call_id}",
            "call_id": call_id,
            "name": name,
            "arguments": json.dumps(arguments),
            "status": "completed",
        }
    )


def call_output(call_id: str, output: str) -> Any:
    return openai_responses.ResponseFunctionToolCallOutputItem.model_validate(
        {
            "type": "function_call_output",
            "id": f"fco_{call_id}",
            "call_id": call_id,
            "output": output,
            "status": "completed",
        }
    )


def output_message(text: str) -> Any:
    return openai_responses.ResponseOutputMessage.model_validate(
        {
            "type": "message",
            "id": "msg_9",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
    )


def responses_run() -> list[Any]:
    """Responses API items: the input message, function calls and their outputs, the reply."""
    return [
        {"role": "user", "content": "Please refund order A17."},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        function_call("call_1", "lookup_order", LOOKUP),
        call_output("call_1", '{"status": "delivered"}'),
        function_call("call_2", "issue_refund", REFUND),
        call_output("call_2", '{"refund_id": "R-1"}'),
        output_message(FINAL),
    ]


# --- LangChain-shaped messages, without LangChain: duck typing by .type / .content ------------


@dataclass
class HumanMessage:
    content: Any
    type: str = "human"


@dataclass
class AIMessage:
    content: Any
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    usage_metadata: dict[str, int] | None = None
    response_metadata: dict[str, Any] = field(default_factory=dict)
    type: str = "ai"


@dataclass
class ToolMessage:
    content: Any
    tool_call_id: str
    status: str = "success"
    type: str = "tool"


@dataclass
class AgentState:
    """What an agent framework returns: the run's messages on an attribute."""

    messages: list[Any]


def langchain_call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "args": arguments, "id": call_id, "type": "tool_call"}


def langchain_run(*, refund_status: str = "success") -> list[Any]:
    usage = {"input_tokens": 30, "output_tokens": 3, "total_tokens": 33}
    meta = {"model_name": "gpt-4o-mini"}
    return [
        HumanMessage("Please refund order A17."),
        AIMessage("", [langchain_call("c1", "lookup_order", LOOKUP)], usage, meta),
        ToolMessage('{"status": "delivered"}', "c1"),
        AIMessage("", [langchain_call("c2", "issue_refund", REFUND)], usage, meta),
        ToolMessage(
            "Error: card declined" if refund_status == "error" else "Refund R-1 issued",
            "c2",
            status=refund_status,
        ),
        AIMessage(FINAL, [], usage, meta),
    ]


# --- streams ---------------------------------------------------------------------------------


def chunk(delta: dict[str, Any] | None, finish: str | None = None, **extra: Any) -> Any:
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    return openai_chat.ChatCompletionChunk.model_validate(
        {
            "id": "chatcmpl-s",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "gpt-4o-mini",
            "choices": choices,
            **extra,
        }
    )


def openai_stream(*, cut: bool = False) -> list[Any]:
    """A streamed reply: some text, two parallel tool calls whose arguments arrive in pieces,
    the finish_reason, then the usage chunk (``cut``: it stops inside the second arguments)."""
    pieces = [
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": "Checking "}),
        chunk({"content": "now."}),
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "lookup_order", "arguments": ""},
                    }
                ]
            }
        ),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"order_'}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": 'id": "A17"}'}}]}),
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 1,
                        "id": "call_2",
                        "type": "function",
                        "function": {"name": "issue_refund", "arguments": '{"order_id": '},
                    }
                ]
            }
        ),
        chunk({"tool_calls": [{"index": 1, "function": {"arguments": '"A17", "amount": 20}'}}]}),
        chunk({}, "tool_calls"),
        chunk(None, usage={"prompt_tokens": 40, "completion_tokens": 12, "total_tokens": 52}),
    ]
    return pieces[:7] if cut else pieces


def event(kind: str, **fields: Any) -> Any:
    classes = {
        "message_start": anthropic_types.RawMessageStartEvent,
        "content_block_start": anthropic_types.RawContentBlockStartEvent,
        "content_block_delta": anthropic_types.RawContentBlockDeltaEvent,
        "content_block_stop": anthropic_types.RawContentBlockStopEvent,
        "message_delta": anthropic_types.RawMessageDeltaEvent,
        "message_stop": anthropic_types.RawMessageStopEvent,
    }
    return classes[kind].model_validate({"type": kind, **fields})


def anthropic_stream(*, cut: bool = False) -> list[Any]:
    """A streamed Anthropic message: a text block, then a tool_use block whose input arrives as
    JSON pieces (``cut``: it stops inside them)."""
    events = [
        event(
            "message_start",
            message={
                "id": "msg_s",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5-20250929",
                "content": [],
                "stop_reason": None,
                "usage": {"input_tokens": 25, "output_tokens": 1},
            },
        ),
        event("content_block_start", index=0, content_block={"type": "text", "text": ""}),
        event("content_block_delta", index=0, delta={"type": "text_delta", "text": "Let me "}),
        event("content_block_delta", index=0, delta={"type": "text_delta", "text": "check."}),
        event("content_block_stop", index=0),
        event(
            "content_block_start",
            index=1,
            content_block={
                "type": "tool_use",
                "id": "toolu_1",
                "name": "lookup_order",
                "input": {},
            },
        ),
        event(
            "content_block_delta",
            index=1,
            delta={"type": "input_json_delta", "partial_json": '{"order_id"'},
        ),
        event(
            "content_block_delta",
            index=1,
            delta={"type": "input_json_delta", "partial_json": ': "A17"}'},
        ),
        event("content_block_stop", index=1),
        event("message_delta", delta={"stop_reason": "tool_use"}, usage={"output_tokens": 30}),
        event("message_stop"),
    ]
    return events[:7] if cut else events
