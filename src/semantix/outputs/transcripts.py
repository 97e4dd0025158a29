"""Transcripts: a whole run read into one `OutputView` with its steps, in one pass.

The shapes read (OpenAI, Anthropic, Responses and LangChain messages, whole responses, mixed
freely) are listed on the "Testing agents" page of the docs; a message wrapped in
`semantix.outputs.Timed` is a step with its timing. Every tool result is matched to the call it
answers by id; a result that names no call, an unknown call or a call already answered is a
``ValueError``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from semantix.files import encodable
from semantix.outputs.messages import (
    get,
    is_list,
    model_of,
    read_items,
    read_message,
    read_response,
    read_usage,
    text_parts,
)
from semantix.outputs.view import OutputView, Step, Timed, ToolCall, ToolResult, Usage

_ROLES = {"human": "user", "ai": "assistant", "AIMessageChunk": "assistant", "function": "tool"}


class _Calls:
    """The calls made so far, by id, and the ids already answered by a result."""

    def __init__(self) -> None:
        self.by_id: dict[str, ToolCall] = {}
        self.answered: set[str] = set()

    def add(self, calls: Sequence[ToolCall]) -> None:
        for call in calls:
            if call.id is not None:
                self.by_id[call.id] = call

    def result(
        self, call_id: object, content: object, is_error: bool | None, where: str
    ) -> ToolResult:
        """The result of ``call_id``; ``is_error`` None: by the JSON ``"error"`` convention."""
        if not isinstance(call_id, str) or not call_id:
            raise ValueError(
                f"{where} is a tool result without the id of the call it answers (got "
                f"{call_id!r}); pass the messages as the provider gave them"
            )
        call = self.by_id.get(call_id)
        if call is None:
            known = ", ".join(f"{key} ({found.name})" for key, found in self.by_id.items())
            raise ValueError(
                f"{where} is the result of tool call {call_id!r}, but no earlier message made "
                f"that call (calls so far: {known or 'none'}); pass the whole transcript, with "
                "the assistant message that made the call"
            )
        if call_id in self.answered:
            raise ValueError(f"{where} is a second result for tool call {call_id!r} ({call.name})")
        self.answered.add(call_id)
        text = _content_text(content)
        return ToolResult(call, text, _json_error(text) if is_error is None else is_error)


def read_transcript(messages: Sequence[Any], where: str) -> tuple[OutputView, str]:
    """The view of ``messages`` and a phrase for a transcript without an assistant reply."""
    if not messages:
        raise TypeError(f"{where} is an empty transcript: there is nothing to check")
    calls = _Calls()
    steps: list[Step] = []
    merging = False  # the last step is Responses output items, which the next one may join
    for position, message in enumerate(messages):
        place = f"{where}[{position}]"
        step, is_item = _step(message, place, calls)
        if merging and is_item:
            steps[-1] = _joined(steps[-1], step)
        else:
            steps.append(step)
        merging = is_item
    final = next(
        (
            i
            for i in range(len(steps) - 1, -1, -1)
            if steps[i].role == "assistant" and _has_text(steps[i].text)
        ),
        None,
    )
    every_call = tuple(call for step in steps for call in step.tool_calls)
    models = [step.model for step in steps if step.model is not None]
    view = OutputView(
        text=None if final is None else steps[final].text,
        tool_calls=every_call,
        usage=_summed(steps),
        model=models[-1] if models else None,
        steps=tuple(steps),
        judged_turn=final,
    )
    return view, f"{where} ({len(steps)} steps, no assistant reply with text)"


def _step(message: object, where: str, calls: _Calls) -> tuple[Step, bool]:
    """The step of one message, and whether it is a Responses output item (which joins the
    output items next to it into one assistant step)."""
    if isinstance(message, (str, bytes)) or message is None:
        raise TypeError(
            f"{where} is {type(message).__name__} {message!r:.60}, not a message: a transcript "
            "is a list of messages such as {'role': 'user', 'content': '...'}"
        )
    if isinstance(message, Timed):  # a step the agent loop timed
        step, item = _step(message.output, where, calls)
        return replace(step, timing=message.timing), item
    kind = get(message, "type")
    kind = kind if isinstance(kind, str) else None
    if kind == "function_call_output":
        result = calls.result(get(message, "call_id"), get(message, "output"), None, where)
        return Step("tool", None, tool_results=(result,)), False
    if kind is not None and (kind.endswith("_call") or kind == "reasoning"):
        made = read_items([message])[1]  # function_call; other built-in tool items hold no call
        calls.add(made)
        return Step("assistant", None, tuple(made)), True
    role = get(message, "role")
    if not isinstance(role, str) and (
        get(message, "choices") is not None or is_list(get(message, "output"))
    ):
        read = read_response(message)  # a whole response object in the transcript
        if read is None:
            raise TypeError(f"{where} is a response with no message")
        calls.add(read[1])
        usage = read_usage(get(message, "usage"))
        return Step(
            "assistant", _clean(read[0]), tuple(read[1]), (), usage, model_of(message)
        ), False
    role = role if isinstance(role, str) else _ROLES.get(kind or "", kind)
    content = get(message, "content")
    if role is None or (content is None and role != "assistant"):
        raise TypeError(
            f"{where} ({type(message).__name__}) is not a chat message: expected 'role' (or a "
            "LangChain 'type') and 'content'"
        )
    results: list[ToolResult] = []
    if role == "tool":
        status = get(message, "status")
        error = status == "error" if isinstance(status, str) else None
        results.append(calls.result(get(message, "tool_call_id"), content, error, where))
        text, made = None, []
    else:
        text, made, _ = read_message(message, where=where)
        calls.add(made)
    for block in content if is_list(content) else ():
        if not isinstance(block, str) and get(block, "type") == "tool_result":
            error = bool(get(block, "is_error"))
            results.append(
                calls.result(get(block, "tool_use_id"), get(block, "content"), error, where)
            )
    if results and role == "user" and not _has_text(text):
        role, text = "tool", None
    usage = read_usage(get(message, "usage") or get(message, "usage_metadata"))
    model = model_of(message)
    item = kind == "message" and role == "assistant" and usage is None and model is None
    return Step(role, _clean(text), tuple(made), tuple(results), usage, model), item


def _joined(first: Step, second: Step) -> Step:
    texts = [text for text in (first.text, second.text) if text is not None]
    return Step(
        "assistant",
        "".join(texts) if texts else None,
        first.tool_calls + second.tool_calls,
        first.tool_results + second.tool_results,
    )


def _summed(steps: Sequence[Step]) -> Usage | None:
    """Usage over the steps: a count is None unless every assistant step reports it."""
    usages = [step.usage for step in steps if step.usage is not None]
    if not usages:
        return None
    complete = all(step.usage is not None for step in steps if step.role == "assistant")

    def total(field: str, *, strict: bool) -> int | None:
        counts = [getattr(usage, field) for usage in usages]
        if strict and (not complete or None in counts):
            return None
        present = [count for count in counts if count is not None]
        return sum(present) if present else None

    counts = ("input_tokens", "output_tokens", "total_tokens")  # cache counts are not strict
    cache = ("cache_read_tokens", "cache_write_tokens")
    return Usage(*(total(name, strict=name in counts) for name in (*counts, *cache)))


def _content_text(content: object) -> str | None:
    if content is None:
        return None
    if isinstance(content, str):
        return content
    parts = text_parts(content)
    if parts:
        return "".join(parts)
    return json.dumps(content, ensure_ascii=False, default=str)


def _json_error(text: str | None) -> bool:
    """The OpenAI convention: a result that is a JSON object with a truthy ``"error"``."""
    if text is None or not text.lstrip().startswith("{"):
        return False
    try:
        parsed = json.loads(text)
    except ValueError:
        return False
    return isinstance(parsed, dict) and bool(parsed.get("error"))


def _clean(text: str | None) -> str | None:
    return None if text is None else encodable(text)


def _has_text(text: str | None) -> bool:
    return text is not None and bool(text.strip())
