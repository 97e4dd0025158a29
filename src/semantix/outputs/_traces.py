"""Traces: OpenTelemetry spans read into one `OutputView`, by convention, without OpenTelemetry.

Read: opentelemetry-sdk ``ReadableSpan`` objects (what an ``InMemorySpanExporter`` holds, or the
exporter itself), and OTLP JSON as a collector exports it (``{"resourceSpans": [...]}``, or a
list of such documents). Spans are read by what they say they are, under the OpenTelemetry GenAI
semantic conventions (``gen_ai.operation.name``: ``chat`` / ``text_completion`` /
``generate_content`` model calls, ``execute_tool`` tool calls, ``invoke_agent`` agents; MCP
``tools/call`` spans) or OpenInference's (``openinference.span.kind``: ``LLM``, ``TOOL``,
``AGENT``); other spans (HTTP, chains, retrievers) only place these in their agent.

- A model call is an assistant step: the text and calls of its output messages
  (``gen_ai.output.messages``, ``llm.output_messages.*``), its usage (``gen_ai.usage.*``,
  ``llm.token_count.*``), model and duration. The first model call's user and system messages
  open the steps.
- A tool span is a tool step with the call's result (``gen_ai.tool.call.result``,
  ``output.value``); an ERROR status (or ``error.type``) makes it an error result. Its call is
  the one the model made with that id; a tool span no model output names (content capture off,
  tools traced alone) adds its call to the model step before it. An MCP tool (``mcp.method.name``
  ``tools/call``, or ``gen_ai.tool.type`` ``mcp``) is a call of kind ``"mcp"`` with its server.
- Each step names its agent: ``gen_ai.agent.name`` on the span, or the nearest enclosing agent
  span; a handoff is a step of one agent followed by a step of another.
- Steps are in the order their spans ended (a reply when it arrived, a result when the tool
  returned); the view's timing is the trace's extent, each step's its span's duration.

A span that claims to be a model or tool call but cannot be read (no tool name, output messages
that are not JSON, a message part of a type not read here) is a ``ValueError`` naming the span,
never skipped: a check that no call was made must only ever pass on a trace read whole.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from semantix._files import encodable
from semantix._text import preview, read_model_json
from semantix.outputs._spans import (
    Span,
    agents_of,
    is_mcp,
    kind_of,
    mcp_server,
    model_of,
    read_span,
    spans_of,
    text_of,
    timing_of,
    tool_name,
    usage_of,
)
from semantix.outputs._trace_messages import messages_of, tool_call, with_kind
from semantix.outputs._transcripts import final_answer
from semantix.outputs._view import OutputView, Step, Timing, ToolCall, ToolResult, Usage

__all__ = ["read_trace", "spans_of"]

#: Finish reasons that say the model asked for a tool (OpenAI, GenAI, Anthropic, Gemini).
_TOOL_FINISH = frozenset({"tool_calls", "tool_call", "tool_use", "function_call"})


@dataclass(slots=True)
class _Draft:
    """A step being built: model calls may still gain the calls of tool spans."""

    role: str
    text: str | None
    agent: str | None
    calls: list[ToolCall] = field(default_factory=list)
    results: list[ToolResult] = field(default_factory=list)
    usage: Usage | None = None
    model: str | None = None
    timing: Timing | None = None
    open: bool = False  # a model call whose output is not recorded: tool spans add its calls
    wants_calls: str | None = None  # its span, when it ended for a tool call none names yet


def read_trace(raw_spans: Sequence[Any]) -> tuple[OutputView, str]:
    """The view of a trace's spans and a phrase for a view without an assistant reply."""
    if not raw_spans:
        raise TypeError(
            "the trace holds no spans: was the exporter installed before the run, and did the "
            "run end (spans are exported when they end)? See semantix.capture_spans"
        )
    spans = [read_span(raw, position) for position, raw in enumerate(raw_spans)]
    kinds = {span.id: kind_of(span) for span in spans}
    if not any(kinds.values()):
        names = ", ".join(dict.fromkeys(repr(span.name) for span in spans))
        raise ValueError(
            f"none of the trace's {len(spans)} spans is a model call, tool call or agent under the "
            "OpenTelemetry GenAI conventions (gen_ai.operation.name), OpenInference's "
            "(openinference.span.kind) or OpenLLMetry's (llm.request.type, traceloop.span.kind): "
            f"{preview(names, 200, quote=False)}; instrument the "
            "model client or the agent framework (see the Traces section of the docs)"
        )
    agents = agents_of(spans, kinds)
    by_id = {span.id: span for span in spans}
    legs = _legs(spans, kinds, by_id)
    echoes = _echoes(spans, kinds, by_id)
    reader = _Reader()
    for span in sorted(spans, key=lambda s: (s.end, s.start)):
        kind = kinds[span.id]
        if kind == "model" and span.id not in echoes:
            reader.model(span, agents[span.id])
        elif kind == "tool" and span.id not in legs.inner:
            leg = span.id in legs.servers  # an MCP call inside: an MCP tool, of its server
            reader.tool(span, agents[span.id], leg, legs.servers.get(span.id))
    return reader.view(spans)


def _echoes(
    spans: Sequence[Span], kinds: Mapping[str, str | None], by_id: Mapping[str, Span]
) -> set[str]:
    """Model spans that record a call another model span records too: a framework's model span
    around the client's (pydantic-ai's ``chat`` around OpenInference's ``ChatCompletion``) is
    one call. The inner spans that record output messages are read; when none does, the outer
    one is."""
    inner: dict[str, list[Span]] = {}  # outer model span id: the model spans directly inside
    for span in spans:
        if kinds[span.id] != "model":
            continue
        parent = _above(span, kinds, by_id, len(spans))
        if parent is not None and kinds[parent.id] == "model":
            inner.setdefault(parent.id, []).append(span)
    echoes: set[str] = set()
    for outer, nested in inner.items():
        recorded = [span.id for span in nested if _records_output(span)]
        if recorded:
            echoes.add(outer)
            echoes.update(span.id for span in nested if span.id not in recorded)
        else:
            echoes.update(span.id for span in nested)
    return echoes


def _records_output(span: Span) -> bool:
    attrs = span.attrs
    return "gen_ai.output.messages" in attrs or any(
        key.startswith(("llm.output_messages.", "gen_ai.completion.")) for key in attrs
    )


@dataclass(slots=True)
class _Legs:
    inner: set[str] = field(default_factory=set)  # tool spans read as part of an outer one
    servers: dict[str, str | None] = field(default_factory=dict)  # tool span id: MCP server


def _legs(
    spans: Sequence[Span], kinds: Mapping[str, str | None], by_id: Mapping[str, Span]
) -> _Legs:
    """A tool span whose nearest traced span above is a tool span of the same tool is a leg of
    that call, recorded by another instrumentation (an MCP client's ``tools/call``, the MCP
    server's side of it): the outer span is read, the inner one not again; an MCP leg makes the
    outer call an MCP call of that leg's server."""
    found = _Legs()
    for span in spans:
        if kinds[span.id] != "tool":
            continue
        outer = _above(span, kinds, by_id, len(spans))
        if outer is None or kinds[outer.id] != "tool" or tool_name(outer) != tool_name(span):
            continue
        found.inner.add(span.id)
        if is_mcp(span) and not span.server:
            found.servers[outer.id] = mcp_server(span)
    return found


def _above(
    span: Span, kinds: Mapping[str, str | None], by_id: Mapping[str, Span], limit: int
) -> Span | None:
    """The nearest span above ``span`` that is a model call, tool call or agent."""
    parent, hops = by_id.get(span.parent) if span.parent else None, 0
    while parent is not None and kinds[parent.id] is None and hops <= limit:
        parent, hops = by_id.get(parent.parent) if parent.parent else None, hops + 1
    return parent


class _Reader:
    """Steps built span by span, in the order the spans ended."""

    def __init__(self) -> None:
        self.drafts: list[_Draft] = []
        self.calls: dict[str, tuple[_Draft, int]] = {}  # call id: the step that made it, where
        self.answered: set[str] = set()
        self.pending: _Draft | None = None  # a model step whose calls only tool spans name
        self.opened = False
        self.waiting: dict[str, deque[str]] = {}  # tool name: ids of its calls, in order made

    def model(self, span: Span, agent: str | None) -> None:
        if not self.opened:  # the run's input: the first model call's user and system messages
            self.opened = True
            for message in messages_of(span, "input") or ():
                text = "".join(message.texts)
                if message.role in ("user", "system") and text:
                    self.drafts.append(_Draft(message.role, encodable(text), agent))
        elif len(self.answered) < len(self.calls):  # results only the next model call shows
            self._results_from(span, agent)
        output = messages_of(span, "output")
        draft = _Draft(
            "assistant",
            None,
            agent,
            usage=usage_of(span),
            model=model_of(span),
            timing=timing_of(span),
        )
        if output is None:
            events = [name for name in span.event_names() if name.startswith("gen_ai.")]
            if events:
                raise ValueError(
                    f"{span.where} records its messages as events ({', '.join(events)}), which "
                    "semantix does not read; use an instrumentation that records them as span "
                    "attributes (gen_ai.output.messages, llm.output_messages)"
                )
            draft.open = True
            reasons = span.attrs.get("gen_ai.response.finish_reasons", ())
            reasons = (reasons,) if isinstance(reasons, str) else tuple(reasons or ())
            reasons += (span.attrs.get("llm.finish_reason"),)
            if any(reason in _TOOL_FINISH for reason in reasons):
                draft.wants_calls = span.where
        else:
            texts = [t for m in output if m.role in (None, "assistant", "model") for t in m.texts]
            draft.text = encodable("".join(texts)) if texts else None
            for message in output:
                for call in message.calls:
                    self._made(draft, call)
        self.drafts.append(draft)
        self.pending = draft if draft.open else None

    def _results_from(self, span: Span, agent: str | None) -> None:
        for message in messages_of(span, "input") or ():
            for call_id, content in message.results:
                if call_id is None or call_id in self.answered or call_id not in self.calls:
                    continue
                self.answered.add(call_id)
                made, index = self.calls[call_id]
                result = ToolResult(made.calls[index], _content(content), _json_error(content))
                self.drafts.append(_Draft("tool", None, agent, results=[result]))

    def _made(self, draft: _Draft, call: ToolCall) -> None:
        if call.id is not None:
            self.calls[call.id] = (draft, len(draft.calls))
            self.waiting.setdefault(call.name or "", deque()).append(call.id)
        draft.calls.append(call)

    def _first_open(self, name: str) -> str | None:
        """The id of the first call of ``name`` no result answers yet (for a tool span that
        names no call id, as OpenLLMetry's do)."""
        ids = self.waiting.get(name)
        while ids and ids[0] in self.answered:
            ids.popleft()
        return ids[0] if ids else None

    def tool(self, span: Span, agent: str | None, leg: bool, leg_server: str | None) -> None:
        attrs = span.attrs
        name = tool_name(span)
        if name is None:
            raise ValueError(
                f"{span.where} is a tool span without a tool name (gen_ai.tool.name or "
                "tool.name); semantix cannot tell which tool was called, so it does not read "
                "the trace"
            )
        call_id = next(
            (
                i
                for k in ("gen_ai.tool.call.id", "tool_call.id", "tool.id")
                if (i := text_of(attrs.get(k)))
            ),
            None,
        )
        arguments = next(
            (
                attrs[key]
                for key in (
                    "gen_ai.tool.call.arguments",
                    "tool_call.function.arguments",
                    "input.value",
                )
                if key in attrs
            ),
            None,
        )
        if arguments is None and "traceloop.entity.input" in attrs:
            arguments = _traceloop_arguments(attrs["traceloop.entity.input"])
        mcp = leg or is_mcp(span)
        server = leg_server if leg else (mcp_server(span) if mcp else None)
        if call_id is None:
            call_id = self._first_open(name)
        if call_id is not None and call_id in self.calls:
            if call_id in self.answered:
                raise ValueError(
                    f"{span.where} is a second result for tool call {call_id!r} ({name})"
                )
            made, index = self.calls[call_id]
            call = made.calls[index]
            if call.arguments is None and call.raw_arguments is None and arguments is not None:
                # the model's call without its arguments (OpenInference leaves out "{}"): the
                # tool span's are what the tool was called with
                found = tool_call(call.name, arguments, call.id, span.where)
                call = with_kind(found, call.kind, call.server)
            if mcp:
                call = with_kind(call, "mcp", server)
            made.calls[index] = call
        else:
            call = tool_call(name, arguments, call_id, span.where)
            if mcp:
                call = with_kind(call, "mcp", server)
            owner = self.pending
            if owner is None or owner.agent != agent:
                owner = _Draft("assistant", None, agent, open=True)
                self.drafts.append(owner)
                self.pending = owner
            owner.wants_calls = None
            self._made(owner, call)
        if call.id is not None:
            self.answered.add(call.id)
        result = next(
            (
                attrs[k]
                for k in ("gen_ai.tool.call.result", "output.value", "traceloop.entity.output")
                if k in attrs
            ),
            None,
        )
        content = _content(result)
        if span.error is not None and content is None:
            content = span.error
        failed = span.error is not None or _json_error(result)
        self.drafts.append(
            _Draft(
                "tool",
                None,
                agent,
                results=[ToolResult(call, content, failed)],
                timing=timing_of(span),
            )
        )

    def view(self, spans: Sequence[Span]) -> tuple[OutputView, str]:
        for draft in self.drafts:
            if draft.wants_calls is not None and not draft.calls:
                raise ValueError(
                    f"{draft.wants_calls} ended for a tool call (its finish reason), but records "
                    "neither its output messages nor a tool span for the call, so semantix cannot "
                    "tell which tool it called; record message content (e.g. "
                    "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true, or the "
                    "framework's include_content option) or instrument the tools"
                )
        steps = tuple(
            Step(
                d.role,
                d.text,
                tuple(d.calls),
                tuple(d.results),
                d.usage,
                d.model,
                d.timing,
                d.agent,
            )
            for d in self.drafts
        )
        final, unanswered = final_answer(steps, None)
        models = [step.model for step in steps if step.model is not None]
        start, end = min(span.start for span in spans), max(span.end for span in spans)
        view = OutputView(
            text=None if final is None else steps[final].text,
            tool_calls=tuple(call for step in steps for call in step.tool_calls),
            usage=_summed([step.usage for step in steps if step.usage is not None]),
            model=models[-1] if models else None,
            timing=Timing(total_ms=(end - start) / 1e6),
            steps=steps,
            judged_turn=final,
            unanswered=unanswered,
        )
        agents = ", ".join(dict.fromkeys(s.agent for s in steps if s.agent)) or "none named"
        return (
            view,
            f"the trace ({len(spans)} spans, {len(steps)} steps, agents: {agents}; no assistant reply with text)",
        )


def _traceloop_arguments(recorded: object) -> object:
    """OpenLLMetry's ``traceloop.entity.input``: ``{"args": [...], "kwargs": {...}}``."""
    if isinstance(recorded, str):
        try:
            document = read_model_json(recorded)
        except ValueError:
            return recorded
        if isinstance(document, Mapping) and isinstance(document.get("kwargs"), Mapping):
            return document["kwargs"] if not document.get("args") else recorded
    return recorded


def _content(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return encodable(value)
    import json  # a structured result (OTLP kvlist, a GenAI part's object)

    return json.dumps(value, ensure_ascii=False, default=str)


def _json_error(value: object) -> bool:
    """A result that is a JSON object with a true ``"error"`` (the transcripts' rule)."""
    if isinstance(value, str):
        if not value.startswith("{"):
            return False
        try:
            value = read_model_json(value)
        except ValueError:
            return False
    return isinstance(value, Mapping) and bool(value.get("error"))


def _summed(usages: Sequence[Usage]) -> Usage | None:
    """The usage of the whole trace: each count summed over the model calls that report it."""
    if not usages:
        return None
    totals: dict[str, int | None] = {}
    for name in (
        "input_tokens",
        "output_tokens",
        "total_tokens",
        "cache_read_tokens",
        "cache_write_tokens",
    ):
        values = [getattr(usage, name) for usage in usages]
        totals[name] = None if all(v is None for v in values) else sum(v or 0 for v in values)
    return Usage(**totals)
