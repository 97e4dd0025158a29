"""The types of the output view: `OutputView` and its parts (`Step`, `ToolCall`, `ToolResult`,
`Usage`, `Timing`), and `Timed`, an output with the time it took."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from semantix._text import preview

#: How much of a tool call's arguments (or a tool result) a description shows.
_ARGUMENTS_PREVIEW = 200


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool (function) call the model made.

    Attributes:
        name: the tool's name; None when the provider sent none (no `CalledTool` matches it).
        arguments: the arguments as a mapping (parsed from JSON for OpenAI), or None when the
            provider's string is not a JSON object (then ``raw_arguments`` holds it).
        raw_arguments: the arguments as the provider sent them, when it sent a string (OpenAI);
            None for Anthropic, whose ``input`` is already structured.
        id: the call's id (``call_id`` for the Responses API), or None.
        kind: what ran it: ``"function"`` (a tool the application runs), ``"mcp"`` (a tool of
            an MCP server, named in ``server``) or ``"provider"`` (a tool the model's provider
            ran itself: web search, code execution, ...).
        server: the MCP server's label for an ``"mcp"`` call, else None.
    """

    name: str | None
    arguments: Mapping[str, Any] | None
    raw_arguments: str | None = None
    id: str | None = None
    kind: str = "function"
    server: str | None = None

    def __str__(self) -> str:
        name = "<no name>" if self.name is None else self.name
        if self.arguments is not None:
            import json  # a call shown in a message: not on the checking path

            shown = json.dumps(self.arguments, ensure_ascii=False, default=str)
            return f"{name}({preview(shown, _ARGUMENTS_PREVIEW, quote=False)})"
        if self.raw_arguments is None:
            return f"{name}()"
        raw = preview(self.raw_arguments, _ARGUMENTS_PREVIEW)
        return f"{name}(<arguments are not a JSON object: {raw}>)"


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What a tool returned to one call of a transcript.

    Attributes:
        call: the call it answers (matched by id; Gemini's, which have none, by tool name).
        content: the result's text (its text parts joined), or None.
        is_error: whether the tool failed: the provider's flag (Anthropic's ``is_error``,
            LangChain's ``status == "error"``, ...) or what the content says, by the rule of
            `semantix.outputs.set_tool_error_rule` (by default: text starting ``Error:``, a
            JSON object with a true ``"error"`` or a failed ``"status"``; docs/agents.md).
    """

    call: ToolCall
    content: str | None
    is_error: bool = False

    def __str__(self) -> str:
        outcome = "error" if self.is_error else "ok"
        shown = "no content" if self.content is None else preview(self.content, 80)
        return f"{self.call} -> {outcome}: {shown}"


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
    chunk of a stream (None when the output was not streamed or not timed that way).
    """

    total_ms: float | None = None
    first_token_ms: float | None = None


@dataclass(frozen=True, slots=True)
class Step:
    """One message of a transcript.

    Attributes:
        role: ``system``, ``user``, ``assistant`` or ``tool`` (LangChain's ``human`` and ``ai``
            read as ``user`` and ``assistant``; a message that holds only tool results is
            ``tool``).
        text: its text parts joined, or None when it has none.
        tool_calls: the calls an assistant step made.
        tool_results: the results a tool step carries, each matched to its call.
        usage: the tokens the step reports (a response object in the transcript), or None.
        model: the model the step names, or None.
        timing: how long the step took, where it was measured, or None.
        agent: the agent that took the step, where the run names it (a trace), or None.
    """

    role: str
    text: str | None
    tool_calls: tuple[ToolCall, ...] = ()
    tool_results: tuple[ToolResult, ...] = ()
    usage: Usage | None = None
    model: str | None = None
    timing: Timing | None = None
    agent: str | None = None


@dataclass(frozen=True, slots=True)
class OutputView:
    """What an output holds: its text (None when it has none), tool calls, usage, model, where a
    runner measured it its timing, and for a transcript its steps.

    For a transcript (a list of messages, an object with ``messages``), ``text`` is the final
    assistant reply (the run's last step, an assistant step with text), ``judged_turn`` its
    index in ``steps``, ``tool_calls`` every call of the run in order, ``usage`` the sum over
    the steps and ``model`` the last model named. A single response or text has no ``steps``:
    it is one assistant step (unless the provider ran tools for it: one step holds their
    results).

    ``unanswered`` says why the run has no final answer, when it has none: it ended on a tool
    result or a call, a refusal, a message with no text, or a reply cut at its token limit
    (``text`` is then None, so no check of the answer judges an earlier preamble); None when it
    answered.
    """

    text: str | None
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage | None = None
    model: str | None = None
    timing: Timing | None = None
    steps: tuple[Step, ...] = ()
    judged_turn: int | None = None
    unanswered: str | None = None

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
        if self.steps:
            roles = ", ".join(step.role for step in self.steps)
            parts.append(f"steps=[{preview(roles, 80, quote=False)}]")
            parts.append(f"judged_turn={self.judged_turn}")
        if self.unanswered is not None:
            parts.append(f"unanswered={preview(self.unanswered, 80)}")
        return f"OutputView({', '.join(parts)})"


@dataclass(frozen=True, slots=True)
class Timed:
    """An output and the time the system took to give it (`semantix.agents.timed` makes one);
    `semantix.outputs.output_view` reads it into the output's view with ``timing`` set."""

    output: object
    timing: Timing


def describe_calls(calls: Sequence[ToolCall]) -> str:
    """The calls on one line, e.g. ``lookup({"id": 1}), issue_refund({"order_id": "A17"})``."""
    return ", ".join(str(call) for call in calls)


#: How `OutputView.unanswered` begins for a run (or response) that ended on calls.
ON_CALLS = "it ended on tool calls"
#: How it begins for a single response with no text and no call.
NO_TEXT = "the response holds no text"


def ended_on_calls(calls: Sequence[ToolCall]) -> str:
    """The ``unanswered`` reason of a run that ended on ``calls``, with no result after them."""
    return f"{ON_CALLS} ({describe_calls(calls)}), with no result or reply after them"


for _public in (ToolCall, ToolResult, Usage, Timing, Step, OutputView, Timed):
    _public.__module__ = "semantix.outputs"
