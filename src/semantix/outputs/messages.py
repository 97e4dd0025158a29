"""Reading one response or message by its shape (duck typing, no SDK imported): its text, tool
calls, usage and model. Shared by single responses, transcripts and assembled streams."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeGuard

from semantix.outputs.view import ToolCall, Usage
from semantix.text import preview

#: text (None: none), tool calls, and a phrase saying what the message holds (for errors).
Read = tuple[str | None, list[ToolCall], str]


def get(obj: object, name: str) -> Any:
    """``obj[name]`` for a mapping, else ``obj.name``; None when missing."""
    if type(obj) is dict:  # the common case, without the (slow) abstract-class check
        return obj.get(name)
    if isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


def is_list(value: object) -> TypeGuard[Sequence[Any]]:
    if type(value) is list or type(value) is tuple:
        return True
    return (
        value is not None
        and isinstance(value, Sequence)
        and not isinstance(value, (str, bytes, bytearray))
    )


def read_response(obj: object) -> Read | None:
    """A ChatCompletion, a Responses object, an Anthropic Message or a chat message; None when
    ``obj`` is none of these."""
    # OpenAI Chat Completions: {"choices": [{"message": {"content": ..., "tool_calls": ...}}]}
    choices = get(obj, "choices")
    if is_list(choices):
        if not choices:
            raise TypeError("the ChatCompletion has no choices; the model returned nothing")
        message = get(choices[0], "message")
        if message is None:
            return None
        return read_message(message, where="choices[0].message")
    # OpenAI Responses API: {"output": [{"type": "message", "content": [...]}, {"type": ...}]}
    items = get(obj, "output")
    if is_list(items) and (not items or get(items[0], "type") is not None):
        return read_items(items)
    # Anthropic Message or any chat message: {"content": "..."} or {"content": [blocks]}
    if get(obj, "content") is not None or get(obj, "role") is not None:
        return read_message(obj, where="content")
    return None


def read_items(items: Sequence[Any]) -> Read:
    """The text and calls of Responses output items."""
    texts: list[str] = []
    calls: list[ToolCall] = []
    has_message = not items
    for item in items:
        kind = get(item, "type")
        if kind == "message":
            has_message = True
            texts.extend(text_parts(get(item, "content")))
        elif kind == "function_call":
            call_id = get(item, "call_id") or get(item, "id")
            calls.append(json_call(get(item, "name"), get(item, "arguments"), call_id))
    kinds = ", ".join(dict.fromkeys(str(get(item, "type")) for item in items))
    text = "".join(texts) if has_message else None
    return text, calls, f"the Responses output (items of type {kinds})"


def read_message(message: object, *, where: str) -> Read:
    content = get(message, "content")
    calls = openai_calls(message)
    if isinstance(content, str):
        return content, calls, where
    if is_list(content):
        parts = text_parts(content)
        known = {call.id for call in calls if call.id is not None}
        calls.extend(call for call in anthropic_calls(content) if call.id not in known)
        if content and not parts:
            kinds = [block if isinstance(block, str) else get(block, "type") for block in content]
            held = ", ".join(dict.fromkeys(str(kind) for kind in kinds))
            return None, calls, f"{where} (blocks of type {held})"
        return "".join(parts), calls, where
    if content is None:
        refusal = get(message, "refusal")
        if isinstance(refusal, str):
            return None, calls, f"{where} (content None, refusal {preview(refusal, 80)})"
        return None, calls, f"{where} (content None)"
    raise TypeError(f"{where} is {type(content).__name__}, expected text or a list of text parts")


def openai_calls(message: object) -> list[ToolCall]:
    """OpenAI ``tool_calls`` (function and custom tools), the legacy ``function_call``, and
    LangChain's ``tool_calls`` (``{"name", "args", "id"}``)."""
    calls = []
    tool_calls = get(message, "tool_calls")
    for call in tool_calls if is_list(tool_calls) else ():
        function = get(call, "function")
        if function is not None:
            calls.append(
                json_call(get(function, "name"), get(function, "arguments"), get(call, "id"))
            )
        elif get(call, "custom") is not None:  # custom tools take free text, not JSON
            custom = get(call, "custom")
            raw = get(custom, "input")
            raw = raw if isinstance(raw, str) else None
            calls.append(ToolCall(_name(get(custom, "name")), None, raw, get(call, "id")))
        elif get(call, "args") is not None or get(call, "name") is not None:  # LangChain
            calls.append(json_call(get(call, "name"), get(call, "args"), get(call, "id")))
    legacy = get(message, "function_call")
    if legacy is not None:
        calls.append(json_call(get(legacy, "name"), get(legacy, "arguments"), None))
    return calls


def anthropic_calls(content: Sequence[Any]) -> list[ToolCall]:
    calls = []
    for block in content:
        if isinstance(block, str) or get(block, "type") != "tool_use":
            continue
        arguments = get(block, "input")
        mapping = dict(arguments) if isinstance(arguments, Mapping) else None
        raw = None if mapping is not None or arguments is None else str(arguments)
        calls.append(ToolCall(_name(get(block, "name")), mapping, raw, get(block, "id")))
    return calls


def json_call(name: object, arguments: object, call_id: object) -> ToolCall:
    identity = call_id if isinstance(call_id, str) else None
    if isinstance(arguments, Mapping):
        return ToolCall(_name(name), dict(arguments), None, identity)
    raw = arguments if isinstance(arguments, str) else None
    parsed: object = None
    if raw is not None:
        import json  # only for a provider that sends the arguments as a string

        try:  # RFC 8259: NaN and Infinity are not JSON, so such arguments are not an object
            parsed = json.loads(raw, parse_constant=_not_json)
        except ValueError:
            parsed = None
    mapping = dict(parsed) if isinstance(parsed, Mapping) else None
    return ToolCall(_name(name), mapping, raw, identity)


def _not_json(constant: str) -> None:
    raise ValueError(f"{constant} is not a JSON number")


def _name(name: object) -> str | None:
    """A tool's name as sent, or None when the provider sent none (never the string "None")."""
    return name if isinstance(name, str) and name else None


def text_parts(content: object) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not is_list(content):
        return []
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif get(block, "type") in ("text", "output_text", "input_text") and isinstance(
            get(block, "text"), str
        ):
            parts.append(get(block, "text"))
    return parts


# --- usage and model ---------------------------------------------------------------------------


def read_usage(usage: object) -> Usage | None:
    if usage is None:
        return None
    # OpenAI Chat Completions (prompt_tokens) and the Responses API (input_tokens) count the
    # cached tokens in the input already.
    chat = get(usage, "prompt_tokens") is not None or get(usage, "completion_tokens") is not None
    words = ("prompt", "completion") if chat else ("input", "output")
    input_tokens = _count(get(usage, f"{words[0]}_tokens"))
    output_tokens = _count(get(usage, f"{words[1]}_tokens"))
    details = get(usage, f"{words[0]}_tokens_details")
    cache_read = _count(get(details, "cached_tokens"))
    cache_write = _count(get(details, "cache_write_tokens"))
    if not chat:
        anthropic_read = _count(get(usage, "cache_read_input_tokens"))
        anthropic_write = _count(get(usage, "cache_creation_input_tokens"))
        if anthropic_read is not None or anthropic_write is not None:
            # Anthropic: input_tokens are the uncached ones; reads and writes come apart.
            cache_read, cache_write = anthropic_read, anthropic_write
            if input_tokens is not None:
                input_tokens += (cache_read or 0) + (cache_write or 0)
    total = _count(get(usage, "total_tokens"))
    if total is None and input_tokens is not None and output_tokens is not None:
        total = input_tokens + output_tokens
    if input_tokens is None and output_tokens is None and total is None:
        return None
    return Usage(input_tokens, output_tokens, total, cache_read, cache_write)


def _count(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def model_of(output: object) -> str | None:
    """``model``, or LangChain's ``response_metadata`` ``model_name`` / ``model``."""
    model = get(output, "model")
    if model is None:
        metadata = get(output, "response_metadata")
        model = get(metadata, "model_name") or get(metadata, "model")
    return model if isinstance(model, str) and model.strip() else None
