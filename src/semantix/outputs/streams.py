"""Recorded streams assembled into the response they stream: OpenAI ``ChatCompletionChunk``s
(text and tool-call argument deltas joined by index) and Anthropic stream events (content blocks
and their deltas). A stream cut before its end (no ``finish_reason``, no ``message_stop``) is a
``ValueError``: its text or arguments would be judged half-written."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from semantix.outputs.messages import get, is_list
from semantix.text import preview

#: Anthropic stream event types.
_EVENTS = frozenset(
    {"message_start", "message_delta", "message_stop", "ping", "error"}
    | {f"content_block_{part}" for part in ("start", "delta", "stop")}
)
_USAGE = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")


def kind_of(item: object) -> str | None:
    """``"openai"`` for a ChatCompletionChunk, ``"anthropic"`` for a stream event, else None."""
    if get(item, "object") == "chat.completion.chunk":
        return "openai"
    choices = get(item, "choices")
    if is_list(choices) and choices and get(choices[0], "delta") is not None:
        return "openai"
    return "anthropic" if get(item, "type") in _EVENTS else None


def assemble(items: Sequence[Any], kind: str) -> dict[str, Any]:
    """The response the stream ``items`` of ``kind`` add up to, as a dict `read_response` reads."""
    return _openai(items) if kind == "openai" else _anthropic(items)


def _openai(chunks: Sequence[Any]) -> dict[str, Any]:
    text: list[str] = []
    has_text = False
    calls: dict[int, dict[str, Any]] = {}
    model = usage = None
    finished = False
    for chunk in chunks:
        model = model or get(chunk, "model")
        usage = get(chunk, "usage") or usage
        for choice in get(chunk, "choices") or ():
            if (get(choice, "index") or 0) != 0:
                continue  # choices[0], as for a ChatCompletion
            finished = finished or get(choice, "finish_reason") is not None
            delta = get(choice, "delta")
            if isinstance(get(delta, "content"), str):
                text.append(get(delta, "content"))
                has_text = has_text or bool(get(delta, "content"))
            for part in get(delta, "tool_calls") or ():
                slot = calls.setdefault(get(part, "index") or 0, {"arguments": []})
                slot["id"] = slot.get("id") or get(part, "id")
                function = get(part, "function")
                slot["name"] = slot.get("name") or get(function, "name")
                if isinstance(get(function, "arguments"), str):
                    slot["arguments"].append(get(function, "arguments"))
    tool_calls = [
        {
            "id": slot["id"],
            "type": "function",
            "function": {"name": slot["name"], "arguments": "".join(slot["arguments"])},
        }
        for _, slot in sorted(calls.items())
    ]
    if not finished:
        last = tool_calls[-1]["function"] if tool_calls else None
        _cut("no chunk has a finish_reason", _unfinished(last) if last else None)
    message: dict[str, Any] = {"role": "assistant", "content": "".join(text) if has_text else None}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {"model": model, "usage": usage, "choices": [{"message": message}]}


def _anthropic(events: Sequence[Any]) -> dict[str, Any]:
    message: Any = None
    blocks: dict[int, dict[str, Any]] = {}
    open_blocks: set[int] = set()
    usage: dict[str, Any] = {}
    finished = False
    for event in events:
        kind = get(event, "type")
        index = get(event, "index")
        if kind == "message_start":
            message = get(event, "message")
            usage.update(_fields(get(message, "usage")))
        elif kind == "content_block_start":
            block = get(event, "content_block")
            blocks[index] = {
                "type": get(block, "type"),
                "text": [get(block, "text") or ""],
                "json": [],
                "id": get(block, "id"),
                "name": get(block, "name"),
                "input": get(block, "input"),
            }
            open_blocks.add(index)
        elif kind == "content_block_delta":
            if index not in blocks:
                raise ValueError(
                    f"the stream has a content_block_delta for block {index!r} before its "
                    "content_block_start: record the whole stream, from message_start on"
                )
            delta = get(event, "delta")
            if get(delta, "type") == "text_delta":
                blocks[index]["text"].append(get(delta, "text") or "")
            elif get(delta, "type") == "input_json_delta":
                blocks[index]["json"].append(get(delta, "partial_json") or "")
        elif kind == "content_block_stop":
            open_blocks.discard(index)
        elif kind == "message_delta":
            usage.update(_fields(get(event, "usage")))
        elif kind == "message_stop":
            finished = True
        elif kind == "error":
            raise ValueError(f"the stream ended with an error event: {get(event, 'error')!r:.200}")
    if message is None:
        raise ValueError("the Anthropic stream has no message_start event: record the whole stream")
    content = [_block(blocks[index]) for index in sorted(blocks)]
    if not finished or open_blocks:
        cut = [blocks[i] for i in sorted(open_blocks) if blocks[i]["type"] == "tool_use"]
        why = "a content block has no content_block_stop" if finished else "no message_stop event"
        _cut(why, (cut[-1]["name"], "".join(cut[-1]["json"])) if cut else None)
    return {
        "role": "assistant",
        "content": content,
        "model": get(message, "model"),
        "usage": usage or None,
    }


def _block(block: dict[str, Any]) -> dict[str, Any]:
    if block["type"] != "tool_use":
        return {"type": block["type"], "text": "".join(block["text"])}
    joined = "".join(block["json"])
    arguments: Any = block["input"]
    if joined:
        try:
            arguments = json.loads(joined)
        except ValueError:
            arguments = joined  # kept raw, as for a response whose arguments are not JSON
    return {"type": "tool_use", "id": block["id"], "name": block["name"], "input": arguments}


def _fields(usage: object) -> dict[str, Any]:
    """The usage counts that are set, from an SDK object or a dict."""
    return {name: get(usage, name) for name in _USAGE if get(usage, name) is not None}


def _unfinished(function: dict[str, Any]) -> tuple[object, str] | None:
    """``(name, arguments)`` when the arguments are not yet a whole JSON document."""
    try:
        json.loads(function["arguments"])
    except ValueError:
        return function["name"], function["arguments"]
    return None


def _cut(why: str, call: tuple[object, str] | None) -> None:
    if call:
        name, arguments = call
        raise ValueError(
            f"the stream was cut in the middle of the arguments of tool call {name!r} ({why}; "
            f"arguments so far: {preview(arguments, 80)}): record the whole stream, up to its end"
        )
    raise ValueError(
        f"the stream was cut before its end ({why}), so its text may be half-written: record "
        "the whole stream, up to its end"
    )
