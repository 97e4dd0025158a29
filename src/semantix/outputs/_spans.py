"""Spans in one shape: opentelemetry-sdk ``ReadableSpan`` objects and OTLP JSON spans read into
`Span` records (no OpenTelemetry import), with what a span says of itself under the GenAI and
OpenInference conventions: what it is (`kind_of`), its agent (`agents_of`), tool, MCP server,
model, usage and duration. `semantix.outputs._traces` builds the steps from them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from semantix.outputs._view import Timing, Usage

__all__ = [
    "Span",
    "agents_of",
    "is_mcp",
    "kind_of",
    "mcp_server",
    "model_of",
    "read_span",
    "spans_of",
    "text_of",
    "timing_of",
    "tool_name",
    "usage_of",
]

_MODEL_CALLS = frozenset({"chat", "text_completion", "generate_content"})
_AGENTS = frozenset({"invoke_agent", "create_agent"})
#: OTLP JSON status codes and span kinds, as numbers or enum names.
_ERROR_CODES = frozenset({2, "2", "STATUS_CODE_ERROR", "ERROR"})
_SERVER_KINDS = frozenset({2, "2", "SPAN_KIND_SERVER", "SERVER"})


@dataclass(slots=True)
class Span:
    """One span in one shape, whichever it came in."""

    id: str
    parent: str | None
    name: str
    start: int  # nanoseconds
    end: int
    attrs: Mapping[str, Any]
    error: str | None  # the error's description (or "error") when the span failed, else None
    server: bool  # span kind SERVER
    source: Any = None  # the span as given (its events are read from it only when needed)

    def event_names(self) -> list[str]:
        if isinstance(self.source, dict):
            return [str(event.get("name", "")) for event in self.source.get("events") or ()]
        return [str(getattr(event, "name", "")) for event in getattr(self.source, "events", ())]

    @property
    def where(self) -> str:
        return f"span {self.name!r} (id {self.id})"


def spans_of(output: object) -> Sequence[Any] | None:
    """The spans ``output`` holds (ReadableSpans, OTLP span dicts), or None when it is no trace."""
    finished = getattr(output, "get_finished_spans", None)
    if callable(finished) and not isinstance(output, Mapping):  # an InMemorySpanExporter
        return tuple(finished())
    if isinstance(output, Mapping) and "resourceSpans" in output:
        return _otlp_spans([output])
    if isinstance(output, (list, tuple)) and output:
        first = output[0]
        if isinstance(first, Mapping):
            if "resourceSpans" in first:
                return _otlp_spans(output)
            if "spanId" in first:
                return output
            return None
        if (
            hasattr(first, "context")
            and hasattr(first, "attributes")
            and hasattr(first, "end_time")
        ):
            return output
    return None


def _otlp_spans(documents: Sequence[Any]) -> list[Mapping[str, Any]]:
    spans: list[Mapping[str, Any]] = []
    for number, document in enumerate(documents):
        if not isinstance(document, Mapping) or not isinstance(document.get("resourceSpans"), list):
            raise TypeError(
                f"OTLP document {number} is {type(document).__name__} {document!r:.80}, expected "
                "a dict with a 'resourceSpans' list, as an OTLP JSON exporter writes it"
            )
        for resource in document["resourceSpans"]:
            for scope in (
                resource.get("scopeSpans") or resource.get("instrumentationLibrarySpans") or ()
            ):
                spans.extend(scope.get("spans") or ())
    return spans


def read_span(raw: Any, position: int) -> Span:
    if isinstance(raw, dict):
        return _otlp_span(raw, position)
    try:
        context, parent, status = raw.context, raw.parent, raw.status
        # One copy, as a dict: the SDK's BoundedAttributes reads through Python-level mapping
        # methods (7 us a span); its own dict is copied directly where it is there.
        inner = getattr(getattr(raw, "_attributes", None), "_dict", None)
        attrs = dict(inner) if type(inner) is dict else dict(raw.attributes or ())
        start, end = int(raw.start_time), int(raw.end_time)
    except (AttributeError, TypeError) as exc:
        raise TypeError(
            f"span {position} ({type(raw).__name__}) is not a finished OpenTelemetry span "
            f"({exc}); pass the spans of an InMemorySpanExporter, or OTLP JSON"
        ) from None
    error = None
    if getattr(status.status_code, "name", None) == "ERROR" or "error.type" in attrs:
        error = status.description or _exception(raw.events) or str(attrs.get("error.type"))
    return Span(
        f"{context.span_id:016x}",
        None if parent is None else f"{parent.span_id:016x}",
        str(raw.name),
        start,
        end,
        attrs,
        error,
        getattr(raw.kind, "name", None) == "SERVER",
        raw,
    )


def _exception(events: Iterable[Any]) -> str | None:
    for event in events or ():
        if getattr(event, "name", None) == "exception":
            return str((event.attributes or {}).get("exception.message", "exception"))
    return None


def _otlp_span(raw: Mapping[str, Any], position: int) -> Span:
    try:
        attrs = {
            item["key"]: _otlp_value(item.get("value") or {})
            for item in raw.get("attributes") or ()
        }
        start, end = int(raw["startTimeUnixNano"]), int(raw["endTimeUnixNano"])
        span_id = str(raw["spanId"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(
            f"OTLP span {position} ({raw.get('name')!r}) cannot be read: {type(exc).__name__} "
            f"{exc}; expected spanId, startTimeUnixNano, endTimeUnixNano and attributes as "
            "[{'key': ..., 'value': {'stringValue': ...}}]"
        ) from None
    status = raw.get("status") or {}
    error = None
    if status.get("code") in _ERROR_CODES or "error.type" in attrs:
        exception = None
        for event in raw.get("events") or ():
            if event.get("name") == "exception":
                values = {
                    i["key"]: _otlp_value(i.get("value") or {})
                    for i in event.get("attributes") or ()
                }
                exception = str(values.get("exception.message", "exception"))
        error = status.get("message") or exception or str(attrs.get("error.type", "error"))
    return Span(
        span_id,
        raw.get("parentSpanId") or None,
        str(raw.get("name", "")),
        start,
        end,
        attrs,
        error,
        raw.get("kind") in _SERVER_KINDS,
        raw,
    )


def _otlp_value(value: Mapping[str, Any]) -> Any:
    """An OTLP ``AnyValue`` as Python: ``{"intValue": "3"}`` is 3 (int64 travels as a string)."""
    for key, item in value.items():
        if key == "stringValue" or key == "boolValue" or key == "bytesValue":
            return item
        if key == "intValue":
            return int(item)
        if key == "doubleValue":
            return float(item)
        if key == "arrayValue":
            return tuple(_otlp_value(v) for v in item.get("values") or ())
        if key == "kvlistValue":
            return {i["key"]: _otlp_value(i.get("value") or {}) for i in item.get("values") or ()}
    return None


def kind_of(span: Span) -> str | None:
    """``"model"``, ``"tool"``, ``"agent"``, or None for a span of no convention read here."""
    attrs = span.attrs
    operation = attrs.get("gen_ai.operation.name")
    kind = attrs.get("openinference.span.kind")
    if operation in _MODEL_CALLS or kind == "LLM":
        return "model"
    if kind == "TOOL" and "tool.name" not in attrs and span.name.startswith("handoff"):
        return None  # OpenInference's handoff of the OpenAI Agents SDK: the agents show it
    if (
        operation == "execute_tool"
        or kind == "TOOL"
        or attrs.get("mcp.method.name") == "tools/call"
    ):
        return "tool"
    if operation in _AGENTS or kind == "AGENT":
        return "agent"
    if operation is None and kind is None:  # OpenLLMetry (traceloop)
        if attrs.get("llm.request.type") in ("chat", "completion"):
            return "model"
        traceloop = attrs.get("traceloop.span.kind")
        if traceloop in ("tool", "agent"):
            return str(traceloop)
    return None


def agents_of(spans: Sequence[Span], kinds: Mapping[str, str | None]) -> dict[str, str | None]:
    """The agent of each span: its own ``gen_ai.agent.name``, an agent span's name, or its
    nearest ancestor's."""
    by_id = {span.id: span for span in spans}
    found: dict[str, str | None] = {}
    for span in spans:
        path: list[Span] = []
        current: Span | None = span
        agent = None
        while current is not None:
            if current.id in found:
                agent = found[current.id]
                break
            path.append(current)
            agent = _own_agent(current, kinds[current.id])
            if agent is not None or len(path) > len(spans):
                break
            current = by_id.get(current.parent) if current.parent else None
        if len(path) > len(spans):
            raise ValueError(
                f"{span.where} is its own ancestor: the trace's parent ids form a cycle"
            )
        for step in path:
            found[step.id] = agent
    return found


def _own_agent(span: Span, kind: str | None) -> str | None:
    name = span.attrs.get("gen_ai.agent.name")
    if isinstance(name, str) and name:
        return name
    if kind != "agent":
        return None
    for key in ("agent.name", "traceloop.entity.name"):
        name = span.attrs.get(key)
        if isinstance(name, str) and name:
            return name
    return span.name.removeprefix("invoke_agent ").strip() or None


def tool_name(span: Span) -> str | None:
    attrs = span.attrs
    for key in ("gen_ai.tool.name", "tool.name", "traceloop.entity.name"):
        name = attrs.get(key)
        if isinstance(name, str) and name:
            return name
    if attrs.get("mcp.method.name") == "tools/call":  # span name "tools/call {tool}"
        return span.name.removeprefix("tools/call").strip() or None
    return None


def mcp_server(span: Span) -> str | None:
    attrs = span.attrs
    name = attrs.get("mcp.server.name")
    if isinstance(name, str) and name:
        return name
    address = attrs.get("server.address")
    if not isinstance(address, str) or not address:
        return None
    port = attrs.get("server.port")
    return address if port is None else f"{address}:{port}"


def is_mcp(span: Span) -> bool:
    return (
        span.attrs.get("mcp.method.name") == "tools/call"
        or span.attrs.get("gen_ai.tool.type") == "mcp"
    )


def timing_of(span: Span) -> Timing:
    return Timing(total_ms=(span.end - span.start) / 1e6)


def model_of(span: Span) -> str | None:
    for key in ("gen_ai.response.model", "gen_ai.request.model", "llm.model_name"):
        model = span.attrs.get(key)
        if isinstance(model, str) and model:
            return model
    return None


_USAGE = (
    (
        "input_tokens",
        ("gen_ai.usage.input_tokens", "llm.token_count.prompt", "gen_ai.usage.prompt_tokens"),
    ),
    (
        "output_tokens",
        (
            "gen_ai.usage.output_tokens",
            "llm.token_count.completion",
            "gen_ai.usage.completion_tokens",
        ),
    ),
    ("total_tokens", ("llm.token_count.total", "llm.usage.total_tokens")),
    (
        "cache_read_tokens",
        ("gen_ai.usage.cache_read.input_tokens", "llm.token_count.prompt_details.cache_read"),
    ),
    (
        "cache_write_tokens",
        ("gen_ai.usage.cache_creation.input_tokens", "llm.token_count.prompt_details.cache_write"),
    ),
)


def usage_of(span: Span) -> Usage | None:
    counts: dict[str, int] = {}
    for field_name, keys in _USAGE:
        for key in keys:
            value = span.attrs.get(key)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(
                    f"{span.where} has {key}={value!r}, expected a whole number of tokens, 0 or more"
                )
            counts[field_name] = value
            break
    if not counts:
        return None
    if "total_tokens" not in counts and "input_tokens" in counts and "output_tokens" in counts:
        counts["total_tokens"] = counts["input_tokens"] + counts["output_tokens"]
    return Usage(**counts)


def text_of(value: object) -> str | None:
    """``value`` when it is a non-empty str, else None."""
    return value if isinstance(value, str) and value else None
