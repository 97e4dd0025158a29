"""The messages a model span records, in the three ways instrumentations write them: the GenAI
conventions' ``gen_ai.input.messages`` / ``gen_ai.output.messages`` (JSON, messages of typed
parts), OpenInference's flattened ``llm.input_messages.{i}.message.*`` attributes, and
OpenLLMetry's ``gen_ai.prompt.{i}.*`` / ``gen_ai.completion.{i}.*``. A message we cannot read
is an error naming the span and the place, never skipped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from semantix._text import preview, read_model_json
from semantix.outputs._spans import Span, text_of
from semantix.outputs._view import ToolCall

__all__ = ["Message", "messages_of", "tool_call", "with_kind"]

#: GenAI message parts that hold neither text nor a call.
_SILENT_PARTS = frozenset({"reasoning", "thinking", "blob", "file", "uri"})


@dataclass(slots=True)
class Message:
    role: str | None
    texts: list[str] = field(default_factory=list)
    calls: list[ToolCall] = field(default_factory=list)
    results: list[tuple[str | None, object]] = field(default_factory=list)  # (call id, content)


def messages_of(span: Span, direction: str) -> list[Message] | None:
    """The ``"input"`` or ``"output"`` messages a model span records, or None when it records
    none (content capture off)."""
    attrs = span.attrs
    recorded = attrs.get(f"gen_ai.{direction}.messages")
    if recorded is not None:
        return _genai_messages(recorded, f"{span.where}, gen_ai.{direction}.messages")
    flat = "llm.input_messages." if direction == "input" else "llm.output_messages."
    found = _flattened(attrs, flat, span)
    if found is None:  # OpenLLMetry's gen_ai.prompt.N.* / gen_ai.completion.N.*
        legacy = "gen_ai.prompt." if direction == "input" else "gen_ai.completion."
        found = _flattened(attrs, legacy, span)
    return found


def _genai_messages(recorded: object, where: str) -> list[Message]:
    document = recorded
    if isinstance(recorded, str):
        try:
            document = read_model_json(recorded)
        except ValueError as exc:
            raise ValueError(f"{where} is not JSON ({exc}): {preview(recorded, 80)}") from None
    if not isinstance(document, (list, tuple)):
        raise TypeError(f"{where} is {type(document).__name__}, expected a list of messages")
    messages = []
    for number, message in enumerate(document):
        place = f"{where}[{number}]"
        if not isinstance(message, dict) or not isinstance(message.get("parts"), (list, tuple)):
            raise TypeError(f"{place} is not a message with 'role' and 'parts': {message!r:.100}")
        read = Message(message.get("role"))
        for index, part in enumerate(message["parts"]):
            _part(part, read, f"{place}.parts[{index}]")
        messages.append(read)
    return messages


def _part(part: object, message: Message, where: str) -> None:
    kind = part.get("type") if isinstance(part, dict) else None
    if not isinstance(part, dict) or not isinstance(kind, str):
        raise TypeError(f"{where} is not a message part with a 'type': {part!r:.100}")
    if kind == "text":
        content = part.get("content")
        if isinstance(content, str):
            message.texts.append(content)
    elif kind in ("tool_call", "server_tool_call"):
        provider = kind == "server_tool_call"
        call = tool_call(part.get("name"), part.get("arguments"), part.get("id"), where)
        message.calls.append(with_kind(call, "provider") if provider else call)
    elif kind in ("tool_call_response", "server_tool_call_response"):
        content = part.get("response", part.get("result"))
        message.results.append((text_of(part.get("id")), content))
    elif kind not in _SILENT_PARTS:
        raise ValueError(
            f"{where} is a message part of type {kind!r}, which semantix does not read (it reads "
            f"text, tool_call, tool_call_response, server_tool_call and {', '.join(sorted(_SILENT_PARTS))})"
        )


def _flattened(attrs: Mapping[str, Any], prefix: str, span: Span) -> list[Message] | None:
    """Messages flattened into attributes: OpenInference ``{prefix}{i}.message.role``,
    ``.content``, ``.contents.{j}.message_content.text``, ``.tool_calls.{j}.tool_call.id`` /
    ``.function.name`` / ``.function.arguments``, ``.tool_call_id``; OpenLLMetry's the same
    without the ``message.`` and ``tool_call.function.`` parts."""
    fields: dict[int, dict[str, Any]] = {}
    size = len(prefix)
    for key, value in attrs.items():
        if not key.startswith(prefix):
            continue
        head, _, rest = key[size:].partition(".")
        if not head.isdigit():  # not a message (MCP's gen_ai.prompt.name)
            continue
        fields.setdefault(int(head), {})[rest.removeprefix("message.")] = value
    if not fields:
        return None
    messages = []
    for index in sorted(fields):
        found = fields[index]
        message = Message(text_of(found.get("role")))
        content = found.get("content")
        if isinstance(content, str):
            message.texts.append(content)
        calls: dict[int, dict[str, Any]] = {}
        parts: dict[int, dict[str, Any]] = {}
        for key, value in found.items():
            if key.startswith("tool_calls."):
                head, _, rest = key[11:].partition(".")
                rest = rest.removeprefix("tool_call.").removeprefix("function.")
                calls.setdefault(_index(head, key, span), {})[rest] = value
            elif key.startswith("contents."):
                head, _, rest = key[9:].partition(".")
                parts.setdefault(_index(head, key, span), {})[rest] = value
        for number in sorted(parts):
            text = parts[number].get("message_content.text")
            if (
                isinstance(text, str)
                and parts[number].get("message_content.type", "text") == "text"
            ):
                message.texts.append(text)
        for number in sorted(calls):
            where = f"{span.where}, {prefix}{index}.tool_calls.{number}"
            call = calls[number]
            message.calls.append(
                tool_call(call.get("name"), call.get("arguments"), call.get("id"), where)
            )
        if "function_call_name" in found:
            where = f"{span.where}, {prefix}{index}.function_call_name"
            arguments = found.get("function_call_arguments_json")
            message.calls.append(tool_call(found["function_call_name"], arguments, None, where))
        if message.role == "tool":
            message.results.append((text_of(found.get("tool_call_id")), content))
        messages.append(message)
    return messages


def _index(number: str, key: str, span: Span) -> int:
    if not number.isdigit():
        raise ValueError(f"{span.where} has attribute {key!r}, whose index {number!r} is no number")
    return int(number)


def tool_call(name: object, arguments: object, call_id: object, where: str) -> ToolCall:
    """A call named ``name``; arguments given as a mapping, or a JSON string (kept raw, and
    parsed by `read_model_json` into ``arguments`` when it is a JSON object)."""
    if not isinstance(name, str) or not name:
        raise ValueError(
            f"{where} is a tool call without a tool name (got {name!r}); semantix cannot tell "
            "which tool was called, so it does not read the trace"
        )
    identity = text_of(call_id)
    if isinstance(arguments, dict):
        return ToolCall(name, dict(arguments), None, identity)
    raw = arguments if isinstance(arguments, str) else None
    parsed: object = None
    if raw is not None:
        try:
            parsed = read_model_json(raw)
        except ValueError:
            parsed = None  # kept raw: no args= matches it, and the reason quotes it
    return ToolCall(name, dict(parsed) if isinstance(parsed, dict) else None, raw, identity)


def with_kind(call: ToolCall, kind: str, server: str | None = None) -> ToolCall:
    return ToolCall(call.name, call.arguments, call.raw_arguments, call.id, kind, server)
