"""Transcripts: a whole run read into one `OutputView` with its steps, in one pass.

The shapes read (OpenAI, Anthropic, Responses, Gemini, Bedrock, Vercel AI SDK, inspect_ai and
LangChain messages, whole responses, mixed freely) are listed on the "Testing agents" page of
the docs; a message wrapped in `semantix.outputs.Timed` is a step with its timing. Every tool
result is matched to the call it answers by id (Gemini's, without ids, by tool name, in order);
a result that names no call, an unknown call or a call already answered, and a call id reused
while its earlier call is unanswered, are a ``ValueError``. A run that does not end on an
assistant reply with text (or ends on one cut, refused or stopped) has no final answer:
``text`` is None and ``unanswered`` says why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from semantix._files import encodable
from semantix._text import preview
from semantix.outputs._blocks import Pending, Read, result_text
from semantix.outputs._items import read_item
from semantix.outputs._messages import (
    get,
    is_list,
    is_response,
    message_stop,
    model_of,
    read_message,
    read_response,
    usage_of,
)
from semantix.outputs._tool_errors import is_tool_error
from semantix.outputs._view import (
    OutputView,
    Step,
    Timed,
    ToolCall,
    ToolResult,
    Usage,
    describe_calls,
    ended_on_calls,
)

_ROLES = {"human": "user", "ai": "assistant", "AIMessageChunk": "assistant", "function": "tool"}
#: The ``type`` of a message (a Responses input message, LangChain's), not of an output item.
_MESSAGES = frozenset({"message", "human", "ai", "system", "tool", "function", "chat", "developer"})
_MESSAGES |= {
    f"{name}Chunk" for name in ("AIMessage", "HumanMessage", "ToolMessage", "ChatMessage")
}
#: Message roles read as another: Gemini's ``model``, the legacy OpenAI ``function`` result.
_AS = {"model": "assistant", "function": "tool"}


class _Calls:
    """The calls made so far, by id, the ids already answered, and the calls still open (for
    results that name their call's tool but no id: Gemini's)."""

    def __init__(self) -> None:
        self.by_id: dict[str, ToolCall] = {}
        self.answered: set[str] = set()
        self.open: dict[int, ToolCall] = {}  # by id(), in the order made

    def add(self, calls: Sequence[ToolCall], where: str) -> None:
        for call in calls:
            if call.id is not None:
                earlier = self.by_id.get(call.id)
                if earlier is not None and call.id not in self.answered:
                    raise ValueError(
                        f"{where} makes tool call {call.id!r} ({call}), but {earlier} has that "
                        "id and no result yet, so a result could not be told apart; pass the "
                        "run as the provider gave it (each call has its own id)"
                    )
                self.answered.discard(call.id)
                self.by_id[call.id] = call
            self.open[id(call)] = call

    def result(self, pending: Pending) -> ToolResult:
        """The result ``pending`` matched to its call (by id, else by its tool's name)."""
        call_id, where = pending.call_id, pending.where
        if not isinstance(call_id, str) or not call_id:
            call = self._by_name(pending)
        else:
            found = self.by_id.get(call_id)
            if found is None:
                known = ", ".join(f"{key} ({found.name})" for key, found in self.by_id.items())
                raise ValueError(
                    f"{where} is the result of tool call {call_id!r}, but no earlier message "
                    f"made that call (calls so far: {known or 'none'}); pass the whole "
                    "transcript, with the assistant message that made the call"
                )
            if call_id in self.answered:
                raise ValueError(
                    f"{where} is a second result for tool call {call_id!r} ({found.name})"
                )
            self.answered.add(call_id)
            call = found
        self.open.pop(id(call), None)
        text = result_text(pending.content, where)
        return ToolResult(call, text, is_tool_error(text, call, pending.flagged, where))

    def _by_name(self, pending: Pending) -> ToolCall:
        """A result without its call's id: Gemini's name their tool and come in the order of
        the calls (the earliest open call of that tool); a tool message without
        ``tool_call_id`` (hand-written runs, agentevals' fixtures) answers the one open call."""
        waiting = list(self.open.values())
        if pending.name is not None:
            waiting = [made for made in waiting if made.name == pending.name][:1]
        if len(waiting) != 1:
            named = f", and no open call of {pending.name!r}" if pending.name else ""
            if len(waiting) > 1:
                named = (
                    f", and {len(waiting)} calls wait for a result "
                    f"({describe_calls(waiting)}), so which one it answers is unknown"
                )
            raise ValueError(
                f"{pending.where} is a tool result without the id of the call it answers (got "
                f"{pending.call_id!r}{named}); give it the tool_call_id of its call, or pass the "
                "messages as the provider gave them"
            )
        call = waiting[0]
        if call.id is not None:
            self.answered.add(call.id)
        return call


def read_transcript(messages: Sequence[Any], where: str) -> tuple[OutputView, str]:
    """The view of ``messages`` and a phrase for a transcript without an assistant reply."""
    if not messages:
        raise TypeError(f"{where} is an empty transcript: there is nothing to check")
    calls = _Calls()
    steps: list[Step] = []
    stopped: str | None = None  # why the last assistant message is no answer
    merging = False  # the last step is Responses output items, which the next one may join
    for position, message in enumerate(messages):
        place = f"{where}[{position}]"
        step, is_item, why = _step(message, place, calls)
        if merging and is_item:
            steps[-1] = _joined(steps[-1], step)
        else:
            steps.append(step)
        if step.role == "assistant":
            stopped = why
        merging = is_item
    final, unanswered = final_answer(steps, stopped)
    every_call = tuple(call for step in steps for call in step.tool_calls)
    models = [step.model for step in steps if step.model is not None]
    view = OutputView(
        text=None if final is None else steps[final].text,
        tool_calls=every_call,
        usage=_summed(steps),
        model=models[-1] if models else None,
        steps=tuple(steps),
        judged_turn=final,
        unanswered=unanswered,
    )
    return view, f"{where} ({len(steps)} steps, no assistant reply with text)"


def final_answer(steps: Sequence[Step], stopped: str | None) -> tuple[int | None, str | None]:
    """The index of the run's final answer, or None and why there is none (``stopped``: why
    the last assistant message is no answer, e.g. cut or refused) — one rule for every run."""
    unanswered = _unanswered(steps, stopped)
    if unanswered is not None:
        return None, unanswered
    return next(i for i in range(len(steps) - 1, -1, -1) if steps[i].role == "assistant"), None


def _unanswered(steps: Sequence[Step], stopped: str | None) -> str | None:
    """Why the run has no final answer, or None: it must end on an assistant step with text
    that was not cut, refused or stopped (system messages after it aside)."""
    last = next((step for step in reversed(steps) if step.role != "system"), None)
    if last is None:
        return "it holds only system messages"
    if last.role == "tool":
        shown = "; ".join(str(result) for result in last.tool_results)
        return f"it ended on a tool result ({preview(shown, 160, quote=False)}), with no reply after it"
    if last.role != "assistant":
        return f"it ended on a {last.role} message, with no reply after it"
    if stopped is not None:
        return stopped
    if last.tool_calls and not all(
        any(result.call is call for result in last.tool_results) for call in last.tool_calls
    ):
        return ended_on_calls(last.tool_calls)
    if not _has_text(last.text):
        return "its final assistant message holds no text"
    return None


def _step(message: object, where: str, calls: _Calls) -> tuple[Step, bool, str | None]:
    """The step of one message, whether it is a Responses output item (which joins the output
    items next to it into one assistant step), and why it is no answer (cut, refused)."""
    if isinstance(message, (str, bytes)) or message is None:
        raise TypeError(
            f"{where} is {type(message).__name__} {message!r:.60}, not a message: a transcript "
            "is a list of messages such as {'role': 'user', 'content': '...'}"
        )
    if isinstance(message, Timed):  # a step the agent loop timed
        step, item, why = _step(message.output, where, calls)
        return replace(step, timing=message.timing), item, why
    kind = get(message, "type")
    kind = kind if isinstance(kind, str) else None
    if kind is not None and kind not in _MESSAGES and get(message, "role") is None:
        read = Read()
        read_item(message, where, read)  # a Responses item: a call, its output, reasoning
        calls.add(read.calls, where)
        results = [*read.results, *(calls.result(pending) for pending in read.pending)]
        if read.pending and not read.calls:
            return Step("tool", None, tool_results=tuple(results)), False, None
        return Step("assistant", None, tuple(read.calls), tuple(results)), True, None
    role = get(message, "role")
    if not isinstance(role, str) and is_response(message):
        whole = read_response(message)  # a whole response object in the transcript
        if whole is None:
            raise TypeError(f"{where} is a response with no message")
        return _assistant(whole, message, where, calls), False, whole.stopped
    exchange = get(message, "kind")  # pydantic-ai: a ModelRequest or a ModelResponse
    if role is None and exchange in ("request", "response") and is_list(get(message, "parts")):
        role = "assistant" if exchange == "response" else "user"
    role = role if isinstance(role, str) else _ROLES.get(kind or "", kind)
    role = _AS.get(role, role) if role is not None else None
    content = get(message, "content")
    if content is None:
        content = get(message, "parts")
    if role is None or (content is None and role != "assistant"):
        raise TypeError(
            f"{where} ({type(message).__name__}) is not a chat message: expected 'role' (or a "
            "LangChain 'type') and 'content'"
        )
    if role == "tool":
        return _tool(message, content, where, calls), False, None
    read = read_message(message, where=where)
    if role == "assistant":
        step = _assistant(read, message, where, calls)
        item = kind == "message" and step.usage is None and step.model is None
        why = message_stop(read, message).stopped
        if why is None and read.text is None and not read.calls:
            why = f"its final message, {read.held}, holds no text"
        return step, item, why
    calls.add(read.calls, where)
    results = [*read.results, *(calls.result(pending) for pending in read.pending)]
    text = read.text
    if results and not _has_text(text):
        role, text = "tool", None
    step = Step(role, _clean(text), tuple(read.calls), tuple(results), usage_of(message))
    return step, False, None


def _assistant(read: Read, message: object, where: str, calls: _Calls) -> Step:
    calls.add(read.calls, where)
    results = [*read.results, *(calls.result(pending) for pending in read.pending)]
    return Step(
        "assistant", _clean(read.text), tuple(read.calls), tuple(results), usage_of(message),
        model_of(message),
    )  # fmt: skip


def _tool(message: object, content: object, where: str, calls: _Calls) -> Step:
    """A tool message: OpenAI's and LangChain's (``tool_call_id``, LangChain ``status``,
    inspect_ai ``error``), the legacy ``function`` message (by ``name``), or a list of result
    parts (Vercel AI SDK ``tool-result``, Gemini ``functionResponse``)."""
    call_id = get(message, "tool_call_id")
    if call_id is None and is_list(content):
        read = read_message(message, where=where)
        if read.pending or read.results:
            results = [*read.results, *(calls.result(pending) for pending in read.pending)]
            return Step("tool", None, tool_results=tuple(results))
    status = get(message, "status")
    flagged = status == "error" or bool(get(message, "error"))
    name = get(message, "name") if call_id is None else None
    pending = Pending(call_id, name if isinstance(name, str) else None, content, flagged, where)
    return Step("tool", None, tool_results=(calls.result(pending),))


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


def _clean(text: str | None) -> str | None:
    return None if text is None else encodable(text)


def _has_text(text: str | None) -> bool:
    return text is not None and bool(text.strip())
