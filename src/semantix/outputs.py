"""Turn whatever the user passes as "the output" into one typed view, without importing any SDK.

Accepted: ``str``; an OpenAI ``ChatCompletion`` (first choice's message), an OpenAI Responses
object (its ``output`` items), an Anthropic ``Message`` (its content blocks), a chat message with
a ``content`` field, and the plain-dict forms of all of these (``model_dump()`` / JSON). Objects
are recognised by shape (duck typing), never by import.

`output_view` gives the text, the tool calls (OpenAI ``tool_calls`` and legacy
``function_call``, Responses ``function_call`` items, Anthropic ``tool_use`` blocks, with their
arguments parsed from JSON), the token usage and the model name. `output_text` gives the text
alone; a message with no text at all (only tool calls, a refusal, ``content=None``) is a
``TypeError`` there that says what the message holds: judging the empty string would let ``~X``
pass unjudged. Characters that cannot be encoded (lone surrogates such as ``"\\ud800"``, left by
a bad decode) are replaced once, here, with U+FFFD, so every judge and the verdict store get
text they can encode.

```python
from semantix.outputs import output_view

view = output_view({
    "model": "gpt-4o-mini",
    "choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function",
         "function": {"name": "issue_refund", "arguments": '{"order_id": "A17"}'}},
    ]}}],
    "usage": {"prompt_tokens": 120, "completion_tokens": 18, "total_tokens": 138},
})
print(view.text, view.tool_calls[0], view.usage.output_tokens)
#> None issue_refund({"order_id": "A17"}) 18
```
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeGuard

from semantix.text import preview

__all__ = [
    "ACCEPTED_OUTPUTS",
    "OutputView",
    "Timing",
    "ToolCall",
    "Usage",
    "describe_calls",
    "encodable",
    "output_text",
    "output_view",
]

ACCEPTED_OUTPUTS = (
    "a str, an OpenAI ChatCompletion or Responses object, an Anthropic Message, "
    "a chat message with 'content', or the dict form of any of these"
)

#: How much of a tool call's arguments a description shows.
_ARGUMENTS_PREVIEW = 200


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool (function) call the model made.

    Attributes:
        name: the tool's name.
        arguments: the arguments as a mapping (parsed from JSON for OpenAI), or None when the
            provider's string is not a JSON object (then ``raw_arguments`` holds it).
        raw_arguments: the arguments as the provider sent them, when it sent a string (OpenAI);
            None for Anthropic, whose ``input`` is already structured.
        id: the call's id (``call_id`` for the Responses API), or None.
    """

    name: str
    arguments: Mapping[str, Any] | None
    raw_arguments: str | None = None
    id: str | None = None

    def __str__(self) -> str:
        if self.arguments is not None:
            shown = json.dumps(self.arguments, ensure_ascii=False, default=str)
            return f"{self.name}({preview(shown, _ARGUMENTS_PREVIEW, quote=False)})"
        if self.raw_arguments is None:
            return f"{self.name}()"
        raw = preview(self.raw_arguments, _ARGUMENTS_PREVIEW)
        return f"{self.name}(<arguments are not a JSON object: {raw}>)"


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens the response reports, in one vocabulary for every provider (None: not reported).

    ``input_tokens`` counts every input token, cached ones included: OpenAI's ``prompt_tokens``
    and the Responses ``input_tokens`` already do; Anthropic reports cache reads and writes apart
    from ``input_tokens``, so they are added here. ``total_tokens`` is input plus output when the
    provider does not report it.
    """

    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class Timing:
    """How long the system under test took to give an output, where a runner measured it.

    ``total_ms`` is the wall time of the whole call; ``first_token_ms`` the time to the first
    token of a stream (None when the output was not streamed or not timed that way).
    """

    total_ms: float | None = None
    first_token_ms: float | None = None


@dataclass(frozen=True, slots=True)
class OutputView:
    """What an output holds: its text (None when it has none), tool calls, usage, model and,
    where a runner measured it, its timing."""

    text: str | None
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage | None = None
    model: str | None = None
    timing: Timing | None = None

    def __repr__(self) -> str:
        parts = ["text=None" if self.text is None else f"text={preview(self.text, 60)}"]
        if self.tool_calls:
            parts.append(f"tool_calls=[{describe_calls(self.tool_calls)}]")
        if self.usage is not None:
            parts.append(f"usage={self.usage}")
        if self.model is not None:
            parts.append(f"model={self.model!r}")
        if self.timing is not None:
            parts.append(f"timing={self.timing}")
        return f"OutputView({', '.join(parts)})"


def describe_calls(calls: Sequence[ToolCall]) -> str:
    """The calls on one line, e.g. ``lookup({"id": 1}), issue_refund({"order_id": "A17"})``."""
    return ", ".join(str(call) for call in calls)


def output_view(output: object) -> OutputView:
    """Return the view of ``output`` or raise ``TypeError`` saying what is accepted."""
    return _read(output)[0]


def output_text(output: object) -> str:
    """Return the text of ``output`` or raise ``TypeError`` saying what it holds instead."""
    view, held = _read(output)
    if view.text is not None:
        return view.text
    if view.tool_calls:
        raise TypeError(
            f"{held} has no text content, only tool calls: {describe_calls(view.tool_calls)}; "
            "check them with semantix.checks.CalledTool, or assert on the text you expect "
            "(e.g. run the tool and pass the final answer)"
        )
    raise TypeError(
        f"{held} has no text content; the model probably answered with a refusal or "
        "another kind of block. Assert on the text you expect, or pass it explicitly"
    )


def encodable(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD (valid pairs are kept)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


# --- reading -----------------------------------------------------------------------------------


def _read(output: object) -> tuple[OutputView, str]:
    """The view and, for a view without text, a phrase saying what the output holds."""
    if isinstance(output, OutputView):  # a runner's view, read once: every leaf reads the same
        return output, "the output"
    if isinstance(output, str):
        return OutputView(encodable(output)), "the output"
    if isinstance(output, (bytes, bytearray, memoryview)):
        raise TypeError(
            f"output is {type(output).__name__}, not text; decode it first, "
            f"e.g. output.decode('utf-8'). Accepted: {ACCEPTED_OUTPUTS}"
        )
    if output is None or isinstance(output, (int, float, complex, bool)):
        raise TypeError(
            f"output must be text, got {output!r} ({type(output).__name__}); did the model call "
            f"return nothing? Accepted: {ACCEPTED_OUTPUTS}"
        )
    read = _extract(output)
    if read is None:
        raise TypeError(
            f"cannot read text from output of type {type(output).__name__} ({output!r:.120}); "
            f"accepted: {ACCEPTED_OUTPUTS}. Pass the text itself if it is something else"
        )
    text, calls, held = read
    view = OutputView(
        text=None if text is None else encodable(text),
        tool_calls=tuple(calls),
        usage=_usage(_get(output, "usage")),
        model=_model(output),
    )
    return view, held


def _get(obj: object, name: str) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


_Read = tuple[str | None, list[ToolCall], str]


def _extract(obj: object) -> _Read | None:
    # OpenAI Chat Completions: {"choices": [{"message": {"content": ..., "tool_calls": ...}}]}
    choices = _get(obj, "choices")
    if _is_list(choices):
        if not choices:
            raise TypeError("the ChatCompletion has no choices; the model returned nothing")
        message = _get(choices[0], "message")
        if message is None:
            return None
        return _message(message, where="choices[0].message")
    # OpenAI Responses API: {"output": [{"type": "message", "content": [...]}, {"type": ...}]}
    items = _get(obj, "output")
    if _is_list(items) and (not items or _get(items[0], "type") is not None):
        return _responses(items)
    # Anthropic Message or any chat message: {"content": "..."} or {"content": [blocks]}
    if _get(obj, "content") is not None or _get(obj, "role") is not None:
        return _message(obj, where="content")
    return None


def _responses(items: Sequence[Any]) -> _Read:
    texts: list[str] = []
    calls: list[ToolCall] = []
    has_message = not items
    for item in items:
        kind = _get(item, "type")
        if kind == "message":
            has_message = True
            texts.extend(_text_parts(_get(item, "content")))
        elif kind == "function_call":
            call_id = _get(item, "call_id") or _get(item, "id")
            calls.append(_json_call(_get(item, "name"), _get(item, "arguments"), call_id))
    kinds = ", ".join(dict.fromkeys(str(_get(item, "type")) for item in items))
    text = "".join(texts) if has_message else None
    return text, calls, f"the Responses output (items of type {kinds})"


def _message(message: object, *, where: str) -> _Read:
    content = _get(message, "content")
    calls = _openai_calls(message)
    if isinstance(content, str):
        return content, calls, where
    if _is_list(content):
        parts = _text_parts(content)
        calls.extend(_anthropic_calls(content))
        if content and not parts:
            kinds = [block if isinstance(block, str) else _get(block, "type") for block in content]
            held = ", ".join(dict.fromkeys(str(kind) for kind in kinds))
            return None, calls, f"{where} (blocks of type {held})"
        return "".join(parts), calls, where
    if content is None:
        refusal = _get(message, "refusal")
        if isinstance(refusal, str):
            return None, calls, f"{where} (content None, refusal {preview(refusal, 80)})"
        return None, calls, f"{where} (content None)"
    raise TypeError(f"{where} is {type(content).__name__}, expected text or a list of text parts")


def _openai_calls(message: object) -> list[ToolCall]:
    calls = []
    tool_calls = _get(message, "tool_calls")
    for call in tool_calls if _is_list(tool_calls) else ():
        function = _get(call, "function")
        if function is not None:
            calls.append(
                _json_call(_get(function, "name"), _get(function, "arguments"), _get(call, "id"))
            )
        elif _get(call, "custom") is not None:  # custom tools take free text, not JSON
            custom = _get(call, "custom")
            raw = _get(custom, "input")
            raw = raw if isinstance(raw, str) else None
            calls.append(ToolCall(str(_get(custom, "name")), None, raw, _get(call, "id")))
    legacy = _get(message, "function_call")
    if legacy is not None:
        calls.append(_json_call(_get(legacy, "name"), _get(legacy, "arguments"), None))
    return calls


def _anthropic_calls(content: Sequence[Any]) -> list[ToolCall]:
    calls = []
    for block in content:
        if isinstance(block, str) or _get(block, "type") != "tool_use":
            continue
        arguments = _get(block, "input")
        mapping = dict(arguments) if isinstance(arguments, Mapping) else None
        raw = None if mapping is not None or arguments is None else str(arguments)
        calls.append(ToolCall(str(_get(block, "name")), mapping, raw, _get(block, "id")))
    return calls


def _json_call(name: object, arguments: object, call_id: object) -> ToolCall:
    identity = call_id if isinstance(call_id, str) else None
    if isinstance(arguments, Mapping):
        return ToolCall(str(name), dict(arguments), None, identity)
    raw = arguments if isinstance(arguments, str) else None
    parsed: object = None
    if raw is not None:
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = None
    mapping = dict(parsed) if isinstance(parsed, Mapping) else None
    return ToolCall(str(name), mapping, raw, identity)


def _text_parts(content: object) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not _is_list(content):
        return []
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif _get(block, "type") in ("text", "output_text") and isinstance(
            _get(block, "text"), str
        ):
            parts.append(_get(block, "text"))
    return parts


# --- usage and model ---------------------------------------------------------------------------


def _usage(usage: object) -> Usage | None:
    if usage is None:
        return None
    if _get(usage, "prompt_tokens") is not None or _get(usage, "completion_tokens") is not None:
        # OpenAI Chat Completions: prompt_tokens already include the cached ones.
        input_tokens = _count(_get(usage, "prompt_tokens"))
        output_tokens = _count(_get(usage, "completion_tokens"))
        details = _get(usage, "prompt_tokens_details")
        cache_read = _count(_get(details, "cached_tokens"))
        cache_write = _count(_get(details, "cache_write_tokens"))
    else:
        input_tokens = _count(_get(usage, "input_tokens"))
        output_tokens = _count(_get(usage, "output_tokens"))
        # Responses API: input_tokens already include the cached ones (input_tokens_details).
        details = _get(usage, "input_tokens_details")
        cache_read = _count(_get(details, "cached_tokens"))
        cache_write = _count(_get(details, "cache_write_tokens"))
        anthropic_read = _count(_get(usage, "cache_read_input_tokens"))
        anthropic_write = _count(_get(usage, "cache_creation_input_tokens"))
        if anthropic_read is not None or anthropic_write is not None:
            # Anthropic: input_tokens are the uncached ones; reads and writes come apart.
            cache_read, cache_write = anthropic_read, anthropic_write
            if input_tokens is not None:
                input_tokens += (cache_read or 0) + (cache_write or 0)
    total = _count(_get(usage, "total_tokens"))
    if total is None and input_tokens is not None and output_tokens is not None:
        total = input_tokens + output_tokens
    if input_tokens is None and output_tokens is None and total is None:
        return None
    return Usage(input_tokens, output_tokens, total, cache_read, cache_write)


def _count(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def _model(output: object) -> str | None:
    model = _get(output, "model")
    return model if isinstance(model, str) and model.strip() else None


def _is_list(value: object) -> TypeGuard[Sequence[Any]]:
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes, bytearray))
