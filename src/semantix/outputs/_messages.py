"""Reading one response or message by its shape (duck typing, no SDK imported): its text, tool
calls, results, usage, model, and why it is no answer. Shared by single responses, transcripts
and assembled streams; the blocks inside a message are read by `semantix.outputs._blocks`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from semantix._text import preview
from semantix.outputs._blocks import (
    Read,
    get,
    is_list,
    json_call,
    name_of,
    read_blocks,
    text_parts,
)
from semantix.outputs._items import read_item
from semantix.outputs._view import ToolCall, Usage

__all__ = [
    "Read",
    "get",
    "is_list",
    "is_response",
    "message_stop",
    "model_of",
    "read_items",
    "read_message",
    "read_response",
    "read_usage",
    "text_parts",
    "usage_of",
]

#: Why a reply is no answer, by its finish or stop reason (Chat Completions, Anthropic,
#: Bedrock Converse, Gemini): cut at a token limit, refused, filtered, or paused.
_CUT = "the reply was cut at its token limit"
_STOPS = {
    "length": _CUT,
    "max_tokens": _CUT,
    "MAX_TOKENS": _CUT,
    "model_context_window_exceeded": "the reply was cut at the model's context window",
    "content_filter": "the reply was stopped by the provider's content filter",
    "content_filtered": "the reply was stopped by the provider's content filter",
    "guardrail_intervened": "the reply was stopped by a guardrail",
    "refusal": "the model refused",
    "pause_turn": "the turn was paused before its end (send it back to let the model finish)",
    "error": "the reply ended with an error",
}
#: Gemini's reasons a reply ended normally.
_GEMINI_DONE = frozenset({"STOP", "FINISH_REASON_UNSPECIFIED"})


def is_response(obj: object) -> bool:
    """Whether ``obj`` is a whole response (Chat Completions, Responses, Gemini, Bedrock)."""
    return (
        get(obj, "choices") is not None
        or is_list(get(obj, "output"))
        or is_list(get(obj, "candidates"))
        or get(get(obj, "output"), "message") is not None
    )


def read_response(obj: object) -> Read | None:
    """A ChatCompletion, a Responses object, an Anthropic Message, a Gemini response, a Bedrock
    Converse response or a chat message; None when ``obj`` is none of these."""
    # OpenAI Chat Completions: {"choices": [{"message": {"content": ..., "tool_calls": ...}}]}
    choices = get(obj, "choices")
    if is_list(choices):
        if not choices:
            raise TypeError("the ChatCompletion has no choices; the model returned nothing")
        message = get(choices[0], "message")
        if message is None:
            return None
        return _stopped(
            read_message(message, where="choices[0].message"), choices[0], "finish_reason"
        )
    # OpenAI Responses API: {"output": [{"type": "message", "content": [...]}, {"type": ...}]}
    items = get(obj, "output")
    if is_list(items) and (not items or get(items[0], "type") is not None):
        read = read_items(items, "output")
        status = get(obj, "status")
        if status in ("incomplete", "failed", "cancelled", "in_progress", "queued"):
            why = get(get(obj, "incomplete_details"), "reason") or get(get(obj, "error"), "message")
            cut = why in ("max_output_tokens", "max_tokens")
            read.stopped = (
                f"{_CUT} (the response is {status}: {why})"
                if cut
                else (f"the response is {status}" + (f" ({why})" if why else ""))
            )
        return read
    # Gemini / Vertex: {"candidates": [{"content": {"role": "model", "parts": [...]}}]}
    candidates = get(obj, "candidates")
    if is_list(candidates):
        if not candidates or get(candidates[0], "content") is None:
            raise TypeError(
                "the Gemini response has no candidate content; the model returned nothing"
            )
        read = read_message(get(candidates[0], "content"), where="candidates[0].content")
        reason = get(candidates[0], "finish_reason") or get(candidates[0], "finishReason")
        reason = getattr(reason, "value", reason)
        if isinstance(reason, str) and reason not in _GEMINI_DONE:
            read.stopped = (
                f"{_STOPS.get(reason, 'the reply did not finish')} (finish_reason {reason!r})"
            )
        return read
    # Bedrock Converse: {"output": {"message": {...}}, "stopReason": ...}
    if get(items, "message") is not None:
        return _stopped(
            read_message(get(items, "message"), where="output.message"), obj, "stopReason"
        )
    # Anthropic Message or any chat message: {"content": "..."} or {"content": [blocks]}, and a
    # message of parts (Gemini Content, a pydantic-ai ModelResponse)
    if (
        get(obj, "content") is not None
        or get(obj, "role") is not None
        or is_list(get(obj, "parts"))
    ):
        return message_stop(read_message(obj, where="the message"), obj)
    return None


def message_stop(read: Read, message: object) -> Read:
    """``read`` with why the assistant ``message`` of a transcript is no answer: its own
    ``finish_reason`` / ``stop_reason`` (pydantic-ai, an Anthropic Message) or LangChain's
    ``response_metadata``."""
    if read.stopped is None:
        for holder in (message, get(message, "response_metadata")):
            for name in ("finish_reason", "stop_reason"):
                _stopped(read, holder, name)
                if read.stopped is not None:
                    return read
    return read


def _stopped(read: Read, holder: object, name: str) -> Read:
    reason = get(holder, name)
    if isinstance(reason, str) and reason in _STOPS:
        read.stopped = f"{_STOPS[reason]} ({name} {reason!r})"
    return read


def read_items(items: Sequence[Any], where: str) -> Read:
    """The text and calls of Responses output items."""
    read = Read()
    has_message = not items
    for index, item in enumerate(items):
        has_message = read_item(item, f"{where}[{index}]", read) or has_message
    kinds = ", ".join(dict.fromkeys(read.kinds))
    read.text = "".join(read.texts) if has_message and read.refusal is None else None
    read.held = f"the Responses output (items of type {kinds})"
    _refused(read, "the Responses output")
    return read


def read_message(message: object, *, where: str) -> Read:
    """One chat message of any shape: its text, calls and results (still to be matched)."""
    content, key = get(message, "content"), "content"
    if content is None and is_list(get(message, "parts")):  # Gemini, pydantic-ai, Vercel UI
        content, key = get(message, "parts"), "parts"
    read = Read(calls=openai_calls(message, where))
    if isinstance(content, str):
        read.text, read.held = content, where
        return read
    if is_list(content):
        known = {call.id for call in read.calls if call.id is not None}
        listed = read.calls
        read.calls = []
        read_blocks(content, f"{where}.{key}", read)
        _unique(read.calls, where)
        read.calls = listed + [call for call in read.calls if call.id not in known]
        if content and not read.texts:
            held = ", ".join(dict.fromkeys(read.kinds))
            read.held = f"{where} (blocks of type {held})"
        else:
            read.text, read.held = "".join(read.texts), where
        _refused(read, where)
        return read
    if content is None:
        refusal = get(message, "refusal")
        if isinstance(refusal, str):
            read.refusal = refusal
            _refused(read, where)
            read.held = f"{where} (content None, refusal {preview(refusal, 80)})"
        else:
            read.held = f"{where} (content None)"
        return read
    raise TypeError(f"{where} is {type(content).__name__}, expected text or a list of text parts")


def _refused(read: Read, where: str) -> None:
    if read.refusal is not None:
        read.text = None
        read.stopped = f"the model refused ({where} is a refusal: {preview(read.refusal, 80)})"


def _unique(calls: Sequence[ToolCall], where: str) -> None:
    """Two calls of one message sharing an id: no result could be given to the right one."""
    seen: dict[str, ToolCall] = {}
    for call in calls:
        if call.id is None:
            continue
        if call.id in seen:
            raise ValueError(
                f"{where} makes two tool calls with the id {call.id!r} ({seen[call.id]} and "
                f"{call}), so their results cannot be told apart; pass the calls as the "
                "provider gave them (each call has its own id)"
            )
        seen[call.id] = call


def openai_calls(message: object, where: str) -> list[ToolCall]:
    """OpenAI ``tool_calls`` (function and custom tools), the legacy ``function_call``,
    LangChain's ``tool_calls`` (``{"name", "args", "id"}``) and ``invalid_tool_calls``, and
    inspect_ai's ``ToolCall(function=..., arguments=...)``."""
    calls = []
    tool_calls = get(message, "tool_calls")
    for index, call in enumerate(tool_calls if is_list(tool_calls) else ()):
        place = f"{where}.tool_calls[{index}]"
        function = get(call, "function")
        if get(call, "part_kind") is not None:
            continue  # pydantic-ai's tool_calls repeat the message's parts, read there
        if isinstance(function, str):  # inspect_ai: the function's name, arguments a dict
            calls.append(json_call(function, get(call, "arguments"), get(call, "id"), place))
        elif function is not None:
            calls.append(
                json_call(get(function, "name"), get(function, "arguments"), get(call, "id"), place)
            )
        elif get(call, "custom") is not None:  # custom tools take free text, not JSON
            custom = get(call, "custom")
            raw = get(custom, "input")
            raw = raw if isinstance(raw, str) else None
            calls.append(ToolCall(name_of(get(custom, "name"), place), None, raw, get(call, "id")))
        elif get(call, "args") is not None or get(call, "name") is not None:  # LangChain
            calls.append(json_call(get(call, "name"), get(call, "args"), get(call, "id"), place))
        else:
            raise TypeError(
                f"{place} is a tool call semantix does not read ({call!r:.80}); expected "
                "'function' (OpenAI, inspect_ai), 'custom', or LangChain's 'name' and 'args'"
            )
    invalid = get(message, "invalid_tool_calls")  # LangChain: calls whose arguments are no JSON
    for index, call in enumerate(invalid if is_list(invalid) else ()):
        place = f"{where}.invalid_tool_calls[{index}]"
        calls.append(json_call(get(call, "name"), get(call, "args"), get(call, "id"), place))
    legacy = get(message, "function_call")
    if legacy is not None and not isinstance(legacy, bool):
        calls.append(json_call(get(legacy, "name"), get(legacy, "arguments"), None, where))
    _unique(calls, where)
    return calls


# --- usage and model ---------------------------------------------------------------------------


def usage_of(obj: object) -> Usage | None:
    """The usage ``obj`` reports: ``usage`` (OpenAI, Anthropic, Bedrock), ``usage_metadata``
    (LangChain, Gemini's SDK) or ``usageMetadata`` (Gemini's JSON)."""
    usage = get(obj, "usage")
    if usage is None:
        usage = get(obj, "usage_metadata") or get(obj, "usageMetadata")
    return read_usage(usage)


def read_usage(usage: object) -> Usage | None:
    if usage is None:
        return None
    camel = _camel(usage)
    if camel is not None:
        return camel
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
        elif get(usage, "input_token_details") is not None:  # LangChain: counted in the input
            langchain = get(usage, "input_token_details")
            cache_read = _count(get(langchain, "cache_read"))
            cache_write = _count(get(langchain, "cache_creation"))
        else:  # pydantic-ai: cache reads and writes are counted in input_tokens
            cache_read = (
                cache_read if cache_read is not None else _count(get(usage, "cache_read_tokens"))
            )
            cache_write = (
                _count(get(usage, "cache_write_tokens")) if cache_write is None else cache_write
            )
    reported = get(usage, "total_tokens")
    total = _count(reported)
    if reported is None and input_tokens is not None and output_tokens is not None:
        total = input_tokens + output_tokens
    if input_tokens is None and output_tokens is None and total is None:
        return None
    return Usage(input_tokens, output_tokens, total, cache_read, cache_write)


def _camel(usage: object) -> Usage | None:
    """Gemini's ``usage_metadata`` (prompt / candidates / thoughts token counts; cached ones
    counted in the prompt) and Bedrock's camelCase usage (cache reads and writes apart from
    ``inputTokens``, as Anthropic's); None for any other usage."""

    def count(*names: str) -> int | None:
        for name in names:
            value = get(usage, name)
            if value is not None:
                return _count(value)
        return None

    prompt = count("prompt_token_count", "promptTokenCount")
    candidates = count("candidates_token_count", "candidatesTokenCount")
    if prompt is not None or candidates is not None:
        thoughts = count("thoughts_token_count", "thoughtsTokenCount")
        output = (
            None if candidates is None and thoughts is None else (candidates or 0) + (thoughts or 0)
        )
        total = count("total_token_count", "totalTokenCount")
        cached = count("cached_content_token_count", "cachedContentTokenCount")
        tools = count("tool_use_prompt_token_count", "toolUsePromptTokenCount")
        if prompt is not None and tools:
            prompt += tools
        if total is None and prompt is not None and output is not None:
            total = prompt + output
        return Usage(prompt, output, total, cached, None)
    inputs, outputs = count("inputTokens"), count("outputTokens")
    if inputs is None and outputs is None:
        return None
    read, write = count("cacheReadInputTokens"), count("cacheWriteInputTokens")
    if inputs is not None:
        inputs += (read or 0) + (write or 0)
    total = count("totalTokens")
    if total is None and inputs is not None and outputs is not None:
        total = inputs + outputs
    return Usage(inputs, outputs, total, read, write)


def _count(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def model_of(output: object) -> str | None:
    """``model``, pydantic-ai's ``model_name``, Gemini's ``model_version``, or LangChain's ``response_metadata``
    ``model_name`` / ``model``."""
    model = (
        get(output, "model")
        or get(output, "model_name")  # pydantic-ai
        or get(output, "model_version")
        or get(output, "modelVersion")
    )
    if model is None:
        metadata = get(output, "response_metadata")
        model = get(metadata, "model_name") or get(metadata, "model")
    return model if isinstance(model, str) and model.strip() else None
