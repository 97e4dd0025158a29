"""Trace shapes no installed framework emits here: OTLP JSON as a collector writes it, MCP tool
spans, OpenInference agent and tool spans, failing tools (spans made with the SDK's own
tracer); and the errors for spans that claim to be calls but cannot be read."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk.trace")

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, Status, StatusCode, Tracer

from semantix import evaluate_semantic
from semantix.agents import AnsweredBy, ByAgent, HandedOff, ToolFailed
from semantix.checks import CalledTool, NoToolCalls
from semantix.outputs import output_view


@pytest.fixture
def traced() -> tuple[Tracer, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider.get_tracer("test"), exporter


def passes(output: object, check: Any) -> bool:
    return evaluate_semantic(output, check).passed


def chat(text: str | None = None, *calls: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    """A GenAI chat span's attributes: output messages with ``text`` and ``calls``."""
    parts: list[dict[str, Any]] = [{"type": "text", "content": text}] if text else []
    parts += [{"type": "tool_call", "id": i, "name": n, "arguments": a} for i, n, a in calls]
    output = [{"role": "assistant", "parts": parts, "finish_reason": "stop"}]
    return {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "gpt-test",
        "gen_ai.output.messages": json.dumps(output),
        "gen_ai.usage.input_tokens": 10,
        "gen_ai.usage.output_tokens": 2,
    }


# --- OTLP JSON --------------------------------------------------------------------------------


def _value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}  # int64 travels as a string in OTLP JSON
    if isinstance(value, (list, tuple)):
        return {"arrayValue": {"values": [_value(v) for v in value]}}
    return {"stringValue": value}


def otlp_span(
    span_id: str, parent: str, name: str, start: int, attrs: dict[str, Any], **extra: Any
) -> dict[str, Any]:
    return {
        "traceId": "5b8efff798038103d269b633813fc60c",
        "spanId": span_id,
        "parentSpanId": parent,
        "name": name,
        "kind": 1,
        "startTimeUnixNano": str(1_700_000_000_000_000_000 + start * 1_000_000),
        "endTimeUnixNano": str(1_700_000_000_000_000_000 + (start + 10) * 1_000_000),
        "attributes": [{"key": k, "value": _value(v)} for k, v in attrs.items()],
        "status": {},
        **extra,
    }


def test_otlp_json_as_a_collector_exports_it() -> None:
    agent = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "billing"}
    tool = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "issue_refund",
        "gen_ai.tool.call.id": "c1",
        "gen_ai.tool.call.arguments": '{"order_id": "A17"}',
        "gen_ai.tool.call.result": "payment service down",
    }
    failed = {"code": 2, "message": "payment service down"}
    document = {
        "resourceSpans": [
            {
                "resource": {"attributes": [{"key": "service.name", "value": _value("shop")}]},
                "scopeSpans": [
                    {
                        "scope": {"name": "pydantic-ai"},
                        "spans": [
                            otlp_span("a1", "", "invoke_agent billing", 0, agent),
                            otlp_span(
                                "b2",
                                "a1",
                                "chat gpt-test",
                                1,
                                chat(None, ("c1", "issue_refund", {"order_id": "A17"})),
                            ),
                            otlp_span(
                                "c3", "a1", "execute_tool issue_refund", 20, tool, status=failed
                            ),
                            otlp_span(
                                "d4", "a1", "chat gpt-test", 40, chat("Sorry, the refund failed.")
                            ),
                        ],
                    }
                ],
            }
        ]
    }
    view = output_view(document)
    assert [(s.role, s.agent) for s in view.steps] == [
        ("assistant", "billing"),
        ("tool", "billing"),
        ("assistant", "billing"),
    ]
    assert view.text == "Sorry, the refund failed."
    assert view.usage is not None and view.usage.input_tokens == 20
    assert view.timing is not None and view.timing.total_ms == 50.0
    assert view.steps[1].timing is not None and view.steps[1].timing.total_ms == 10.0
    assert passes(document, CalledTool("issue_refund", args={"order_id": "A17"}))
    assert passes(document, ToolFailed("issue_refund") & AnsweredBy("billing"))
    assert not passes(document, NoToolCalls)
    # a collector's file exporter writes one document a batch: the lines of one trace
    spans = document["resourceSpans"][0]["scopeSpans"][0]["spans"]
    lines = [
        {"resourceSpans": [{"scopeSpans": [{"spans": part}]}]} for part in (spans[:2], spans[2:])
    ]
    assert output_view(lines).steps == view.steps
    assert output_view(json.loads(json.dumps(document))).text == view.text


def test_an_otlp_span_without_times_is_an_error_naming_it() -> None:
    document = {"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "chat", "spanId": "a"}]}]}]}
    with pytest.raises(ValueError, match="OTLP span 0 \\('chat'\\) cannot be read"):
        output_view(document)


# --- MCP, OpenInference agents, failing tools ---------------------------------------------------


def test_an_mcp_call_inside_a_tool_span_is_one_mcp_call(
    traced: tuple[Tracer, InMemorySpanExporter],
) -> None:
    tracer, exporter = traced
    tool = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "get_weather",
        "gen_ai.tool.call.id": "c1",
    }
    mcp = {
        "mcp.method.name": "tools/call",
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "get_weather",
        "server.address": "weather.local",
        "server.port": 8080,
    }
    with tracer.start_as_current_span(
        "invoke_agent helper",
        attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "helper"},
    ):
        with tracer.start_as_current_span(
            "chat", attributes=chat(None, ("c1", "get_weather", {"city": "Oslo"}))
        ):
            pass
        with (
            tracer.start_as_current_span("execute_tool get_weather", attributes=tool),
            tracer.start_as_current_span("tools/call get_weather", attributes=mcp),
            tracer.start_as_current_span("tools/call", attributes=mcp, kind=SpanKind.SERVER),
        ):
            pass
        with tracer.start_as_current_span("chat", attributes=chat("Sunny in Oslo.")):
            pass
    view = output_view(exporter.get_finished_spans())
    (call,) = view.tool_calls
    assert (call.name, call.kind, call.server, call.arguments) == (
        "get_weather",
        "mcp",
        "weather.local:8080",
        {"city": "Oslo"},
    )
    assert [s.role for s in view.steps] == ["assistant", "tool", "assistant"]
    assert view.steps[1].tool_results[0].call is call


def test_openinference_agents_tools_and_a_handoff(
    traced: tuple[Tracer, InMemorySpanExporter],
) -> None:
    tracer, exporter = traced

    def llm(text: str) -> dict[str, Any]:
        return {
            "openinference.span.kind": "LLM",
            "llm.model_name": "gpt-test",
            "llm.output_messages.0.message.role": "assistant",
            "llm.output_messages.0.message.contents.0.message_content.type": "text",
            "llm.output_messages.0.message.contents.0.message_content.text": text,
            "llm.token_count.prompt": 5,
            "llm.token_count.completion": 1,
        }

    lookup = {
        "openinference.span.kind": "TOOL",
        "tool.name": "lookup",
        "input.value": '{"order_id": "A17"}',
        "output.value": "paid",
    }
    with tracer.start_as_current_span("run", attributes={"openinference.span.kind": "CHAIN"}):
        with (
            tracer.start_as_current_span("Triage", attributes={"openinference.span.kind": "AGENT"}),
            tracer.start_as_current_span("response", attributes=llm("Passing you to billing.")),
        ):
            pass
        with tracer.start_as_current_span(
            "Billing", attributes={"openinference.span.kind": "AGENT"}
        ):
            with tracer.start_as_current_span("lookup", attributes=lookup) as span:
                span.set_status(Status(StatusCode.OK))
            with tracer.start_as_current_span("response", attributes=llm("A17 is paid.")):
                pass
    spans = exporter.get_finished_spans()
    view = output_view(spans)
    # the tool span names no call the model made: its call joins a step of its own
    assert [(s.role, s.agent) for s in view.steps] == [
        ("assistant", "Triage"),
        ("assistant", "Billing"),
        ("tool", "Billing"),
        ("assistant", "Billing"),
    ]
    assert passes(spans, HandedOff("Triage", "Billing") & AnsweredBy("Billing"))
    assert passes(spans, ByAgent("Billing", CalledTool("lookup", args={"order_id": "A17"})))
    assert passes(spans, ByAgent("Triage", NoToolCalls))
    assert not passes(spans, HandedOff("Billing", "Triage"))


def test_a_tool_span_fills_in_a_model_call_that_recorded_no_content(
    traced: tuple[Tracer, InMemorySpanExporter],
) -> None:
    tracer, exporter = traced
    quiet = {"gen_ai.operation.name": "chat", "gen_ai.response.finish_reasons": ("tool_calls",)}
    tool = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "delete_database"}
    with tracer.start_as_current_span("chat", attributes=quiet):
        pass
    with tracer.start_as_current_span("execute_tool", attributes=tool) as span:
        span.record_exception(RuntimeError("permission denied"))
        span.set_status(Status(StatusCode.ERROR))
    spans = exporter.get_finished_spans()
    view = output_view(spans)
    assert [s.role for s in view.steps] == ["assistant", "tool"]
    assert view.steps[0].tool_calls[0].name == "delete_database"
    assert view.steps[1].tool_results[0].content == "permission denied"
    assert not passes(spans, ~CalledTool("delete_database"))
    assert passes(spans, ToolFailed("delete_database"))


# --- spans that claim to be calls but cannot be read -------------------------------------------


def test_a_model_call_that_asked_for_a_tool_nobody_records_is_an_error(
    traced: tuple[Tracer, InMemorySpanExporter],
) -> None:
    tracer, exporter = traced
    quiet = {"gen_ai.operation.name": "chat", "gen_ai.response.finish_reasons": ("tool_calls",)}
    with tracer.start_as_current_span("chat gpt-4o", attributes=quiet):
        pass
    with pytest.raises(ValueError, match="span 'chat gpt-4o' .* ended for a tool call"):
        evaluate_semantic(exporter.get_finished_spans(), ~CalledTool("delete_database"))


@pytest.mark.parametrize(
    ("attributes", "error"),
    [
        ({"gen_ai.operation.name": "execute_tool"}, "is a tool span without a tool name"),
        ({"openinference.span.kind": "TOOL", "tool.name": ""}, "is a tool span without a tool"),
        (
            {"gen_ai.operation.name": "chat", "gen_ai.output.messages": "[{not json"},
            "gen_ai.output.messages is not JSON",
        ),
        (
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.output.messages": '[{"role": "assistant", "parts": [{"type": "hologram"}]}]',
            },
            "parts\\[0\\] is a message part of type 'hologram'",
        ),
        (
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.output.messages": '[{"role": "assistant", "parts": [{"type": "tool_call"}]}]',
            },
            "is a tool call without a tool name",
        ),
        (
            {
                "openinference.span.kind": "LLM",
                "llm.output_messages.0.message.tool_calls.0.tool_call.id": "c1",
            },
            "llm.output_messages.0.tool_calls.0 is a tool call without a tool name",
        ),
        (
            {"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": -3},
            "gen_ai.usage.input_tokens=-3, expected a whole number",
        ),
    ],
)
def test_a_call_span_that_cannot_be_read_is_an_error_naming_it(
    traced: tuple[Tracer, InMemorySpanExporter], attributes: dict[str, Any], error: str
) -> None:
    tracer, exporter = traced
    with tracer.start_as_current_span("the span", attributes=attributes):
        pass
    spans = exporter.get_finished_spans()
    with pytest.raises(
        (ValueError, TypeError), match=f"span 'the span' \\(id [0-9a-f]{{16}}\\).*{error}"
    ):
        evaluate_semantic(spans, ~CalledTool("delete_database") & NoToolCalls)


def test_a_trace_of_no_known_convention_is_an_error(
    traced: tuple[Tracer, InMemorySpanExporter],
) -> None:
    tracer, exporter = traced
    with tracer.start_as_current_span("POST /v1/chat/completions"):
        pass
    with pytest.raises(ValueError, match="none of the trace's 1 spans .* 'POST /v1/chat"):
        evaluate_semantic(exporter.get_finished_spans(), NoToolCalls)
    with pytest.raises(TypeError, match="the trace holds no spans"):
        evaluate_semantic(InMemorySpanExporter(), NoToolCalls)


def test_agent_leaves_refuse_a_run_that_names_no_agents() -> None:
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello."}]
    with pytest.raises(TypeError, match="needs a run whose steps name their agents"):
        evaluate_semantic(messages, AnsweredBy("billing"))
    with pytest.raises(ValueError, match="names one agent twice"):
        HandedOff("billing", "billing")
    with pytest.raises(TypeError, match="takes structural checks"):
        ByAgent("billing", "The reply is polite.")


def test_reading_a_trace_imports_no_opentelemetry() -> None:
    code = (
        "import sys, semantix.agents\n"
        "from semantix.outputs import output_view\n"
        "span = {'spanId': 'a', 'name': 'execute_tool', 'startTimeUnixNano': '1',\n"
        "        'endTimeUnixNano': '2', 'attributes': [\n"
        "            {'key': 'gen_ai.operation.name', 'value': {'stringValue': 'execute_tool'}},\n"
        "            {'key': 'gen_ai.tool.name', 'value': {'stringValue': 'lookup'}}]}\n"
        "assert output_view([span]).tool_calls[0].name == 'lookup'\n"
        "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "[]"


def test_openllmetry_spans(traced: tuple[Tracer, InMemorySpanExporter]) -> None:
    tracer, exporter = traced
    asked = {
        "llm.request.type": "chat",
        "gen_ai.request.model": "gpt-test",
        "gen_ai.prompt.0.role": "user",
        "gen_ai.prompt.0.content": "Refund A17",
        "gen_ai.completion.0.role": "assistant",
        "gen_ai.completion.0.finish_reason": "tool_calls",
        "gen_ai.completion.0.tool_calls.0.id": "c1",
        "gen_ai.completion.0.tool_calls.0.name": "issue_refund",
        "gen_ai.completion.0.tool_calls.0.arguments": '{"order_id": "A17"}',
        "gen_ai.usage.prompt_tokens": 9,
        "gen_ai.usage.completion_tokens": 3,
    }
    tool = {
        "traceloop.span.kind": "tool",
        "traceloop.entity.name": "issue_refund",
        "traceloop.entity.input": '{"args": [], "kwargs": {"order_id": "A17"}}',
        "traceloop.entity.output": '{"error": "card declined"}',
    }
    answered = {
        "llm.request.type": "chat",
        "gen_ai.completion.0.role": "assistant",
        "gen_ai.completion.0.content": "The card was declined.",
    }
    agent = {"traceloop.span.kind": "agent", "traceloop.entity.name": "billing"}
    with tracer.start_as_current_span("billing.agent", attributes=agent):
        for name, attributes in (("openai.chat", asked), ("issue_refund.tool", tool)):
            with tracer.start_as_current_span(name, attributes=attributes):
                pass
        with tracer.start_as_current_span("openai.chat", attributes=answered):
            pass
    spans = exporter.get_finished_spans()
    view = output_view(spans)
    assert [(s.role, s.agent) for s in view.steps] == [
        ("user", "billing"),
        ("assistant", "billing"),
        ("tool", "billing"),
        ("assistant", "billing"),
    ]
    assert view.usage is not None and view.usage.total_tokens == 12
    assert passes(spans, CalledTool("issue_refund", args={"order_id": "A17"}))
    assert passes(spans, ToolFailed("issue_refund") & AnsweredBy("billing"))


def test_messages_recorded_as_events_are_an_error(
    traced: tuple[Tracer, InMemorySpanExporter],
) -> None:
    tracer, exporter = traced
    with tracer.start_as_current_span("chat", attributes={"gen_ai.operation.name": "chat"}) as span:
        span.add_event("gen_ai.choice", {"index": 0})
    with pytest.raises(ValueError, match="records its messages as events \\(gen_ai.choice\\)"):
        evaluate_semantic(exporter.get_finished_spans(), NoToolCalls)


def test_the_benchmark_runs_and_prints_its_figures() -> None:
    script = Path(__file__).resolve().parent.parent / "scripts" / "bench-traces"
    completed = subprocess.run(
        [sys.executable, str(script), "--spans", "100", "--rounds", "1"],
        check=False,
        capture_output=True,
        text=True,
    )
    assert completed.returncode == 0, completed.stderr
    labels = [line.split()[0] for line in completed.stdout.splitlines()]
    assert labels == ["trace", "load", "sdk", "otlp", "check"]


def test_an_mcp_leg_without_a_server_address_still_makes_an_mcp_call(
    traced: tuple[Tracer, InMemorySpanExporter],
) -> None:
    tracer, exporter = traced
    tool = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "search"}
    with (
        tracer.start_as_current_span("execute_tool search", attributes=tool),
        tracer.start_as_current_span(
            "tools/call search", attributes={"mcp.method.name": "tools/call"}
        ),
    ):
        pass
    (call,) = output_view(exporter.get_finished_spans()).tool_calls
    assert (call.name, call.kind, call.server) == ("search", "mcp", None)


def test_a_second_result_for_one_call_and_a_parent_cycle_are_errors() -> None:
    call = chat(None, ("c1", "lookup", {}))
    tool = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup"}
    tool["gen_ai.tool.call.id"] = "c1"
    twice = [
        otlp_span("a", "", "chat", 0, call),
        otlp_span("b", "", "execute_tool lookup", 20, tool),
        otlp_span("c", "", "execute_tool lookup", 40, tool),
    ]
    with pytest.raises(
        ValueError, match="span 'execute_tool lookup' \\(id c\\) is a second result"
    ):
        output_view(twice)
    cycle = [otlp_span("a", "b", "chat", 0, call), otlp_span("b", "a", "x", 0, {})]
    with pytest.raises(ValueError, match="is its own ancestor"):
        output_view(cycle)
    with pytest.raises(TypeError, match="OTLP document 1 is str"):
        output_view([{"resourceSpans": []}, "not a document"])


def test_a_span_still_open_or_not_a_span_is_an_error(
    traced: tuple[Tracer, InMemorySpanExporter],
) -> None:
    tracer, exporter = traced
    with tracer.start_as_current_span("chat", attributes=chat("Hello.")):
        pass
    still_open = tracer.start_span("execute_tool", attributes={"gen_ai.tool.name": "x"})
    finished = exporter.get_finished_spans()
    with pytest.raises(TypeError, match="span 1 \\(_Span\\) is not a finished OpenTelemetry span"):
        output_view([*finished, still_open])
    with pytest.raises(TypeError, match="span 1 \\(object\\) is not a finished"):
        output_view([*finished, object()])
    still_open.end()


def test_genai_parts_provider_tools_and_results_only_the_next_call_shows(
    traced: tuple[Tracer, InMemorySpanExporter],
) -> None:
    tracer, exporter = traced
    searched = {"type": "server_tool_call", "id": "s1", "name": "web_search", "arguments": {}}
    asked = chat(None, ("c1", "lookup", {"order_id": "A17"}))
    output = json.loads(asked["gen_ai.output.messages"])
    output[0]["parts"].insert(0, searched)
    asked["gen_ai.output.messages"] = json.dumps(output)
    history = [
        {"role": "user", "parts": [{"type": "text", "content": "Where is A17?"}]},
        *output,
        {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "late"}]},
    ]
    answered = chat("A17 is late.")
    answered["gen_ai.input.messages"] = json.dumps(history)
    for attributes in (asked, answered):
        with tracer.start_as_current_span("chat", attributes=attributes):
            pass
    view = output_view(exporter.get_finished_spans())
    assert [(call.name, call.kind) for call in view.tool_calls] == [
        ("web_search", "provider"),
        ("lookup", "function"),
    ]
    assert [step.role for step in view.steps] == ["assistant", "tool", "assistant"]
    (result,) = view.steps[1].tool_results
    assert (result.call.name, result.content, result.is_error) == ("lookup", "late", False)


def test_arguments_with_a_repeated_name_match_no_args(
    traced: tuple[Tracer, InMemorySpanExporter],
) -> None:
    tracer, exporter = traced
    tool = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "issue_refund",
        "gen_ai.tool.call.arguments": '{"order_id": "B99", "order_id": "A17"}',
    }
    with tracer.start_as_current_span("execute_tool issue_refund", attributes=tool):
        pass
    spans = exporter.get_finished_spans()
    (call,) = output_view(spans).tool_calls
    assert (call.arguments, call.raw_arguments) == (None, tool["gen_ai.tool.call.arguments"])
    assert not passes(spans, CalledTool("issue_refund", args={"order_id": "A17"}))
    assert passes(spans, CalledTool("issue_refund"))


def test_a_tool_span_inside_a_span_of_the_same_call_is_one_call(
    traced: tuple[Tracer, InMemorySpanExporter],
) -> None:
    """Two instrumentations of one tool call (a framework's execute_tool around OpenInference's
    TOOL span), with an HTTP span between them: one call, read from the outer span."""
    tracer, exporter = traced
    outer = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "lookup",
        "gen_ai.tool.call.id": "c1",
        "gen_ai.tool.call.result": "paid",
    }
    inner = {"openinference.span.kind": "TOOL", "tool.name": "lookup", "tool_call.id": "c1"}
    with tracer.start_as_current_span("chat", attributes=chat(None, ("c1", "lookup", {}))):
        pass
    with (
        tracer.start_as_current_span("execute_tool lookup", attributes=outer),
        tracer.start_as_current_span("GET /orders/A17"),
        tracer.start_as_current_span("lookup", attributes=inner),
    ):
        pass
    view = output_view(exporter.get_finished_spans())
    assert [s.role for s in view.steps] == ["assistant", "tool"]
    assert [r.content for r in view.steps[1].tool_results] == ["paid"]


def test_the_openai_agents_sdk_as_openinference_records_it(
    traced: tuple[Tracer, InMemorySpanExporter],
) -> None:
    """The shape of openinference-instrumentation-openai-agents: a workflow AGENT span, an AGENT
    span per agent, Response spans as LLM spans, function calls as TOOL spans without a call id,
    and a handoff as a TOOL span with no tool name ("handoff to Billing")."""
    tracer, exporter = traced
    agent = {"openinference.span.kind": "AGENT"}

    def response(text: str | None = None, call: tuple[str, str] | None = None) -> dict[str, Any]:
        out = "llm.output_messages.0.message."
        attributes: dict[str, Any] = {"openinference.span.kind": "LLM", f"{out}role": "assistant"}
        if text:
            attributes[f"{out}contents.0.message_content.type"] = "text"
            attributes[f"{out}contents.0.message_content.text"] = text
        if call:
            attributes[f"{out}tool_calls.0.tool_call.id"] = call[0]
            attributes[f"{out}tool_calls.0.tool_call.function.name"] = call[1]
        return attributes

    lookup = {"openinference.span.kind": "TOOL", "tool.name": "lookup", "output.value": "paid"}
    lookup["input.value"] = '{"order_id": "A17"}'
    with tracer.start_as_current_span("Agent workflow", attributes=agent):
        with tracer.start_as_current_span("Triage", attributes=agent):
            with tracer.start_as_current_span(
                "response", attributes=response(call=("h1", "transfer_to_billing"))
            ):
                pass
            with tracer.start_as_current_span(
                "handoff to Billing", attributes={"openinference.span.kind": "TOOL"}
            ):
                pass
        with tracer.start_as_current_span("Billing", attributes=agent):
            with tracer.start_as_current_span(
                "response", attributes=response(call=("call_9", "lookup"))
            ):
                pass
            with tracer.start_as_current_span("lookup", attributes=lookup):
                pass
            with tracer.start_as_current_span("response", attributes=response("A17 is paid.")):
                pass
    spans = exporter.get_finished_spans()
    view = output_view(spans)
    assert [(s.role, s.agent) for s in view.steps] == [
        ("assistant", "Triage"),
        ("assistant", "Billing"),
        ("tool", "Billing"),
        ("assistant", "Billing"),
    ]
    assert [call.name for call in view.tool_calls] == ["transfer_to_billing", "lookup"]
    assert view.steps[2].tool_results[0].call.id == "call_9"  # matched by name: no id on the span
    assert passes(spans, HandedOff("Triage", "Billing") & AnsweredBy("Billing"))
    # the model's call records no arguments ("{}" is left out): the tool span's are read
    assert passes(spans, ByAgent("Billing", CalledTool("lookup", args={"order_id": "A17"})))


def test_a_trace_that_ended_on_a_tool_result_has_no_answer_to_judge(
    traced: tuple[Tracer, InMemorySpanExporter],
) -> None:
    """The preamble before the call is not the run's answer: the same rule as a transcript's."""
    tracer, exporter = traced
    lookup = ("c1", "lookup_order", {"id": "A17"})
    tool = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup_order",
            "gen_ai.tool.call.id": "c1"}  # fmt: skip
    with tracer.start_as_current_span("chat", attributes=chat("Sure, refunding A17 now.", lookup)):
        pass
    with tracer.start_as_current_span("execute_tool", attributes=tool):
        pass
    view = output_view(exporter.get_finished_spans())
    assert view.text is None
    assert view.unanswered is not None and "ended on a tool result" in view.unanswered
    with pytest.raises(TypeError, match="ended on a tool result"):
        evaluate_semantic(exporter.get_finished_spans(), "The text apologizes.")
