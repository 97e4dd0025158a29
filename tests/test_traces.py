"""Traces as the subject, from real instrumentation: OpenInference's OpenAI instrumentor around
the real openai client, and pydantic-ai's own GenAI spans, both against the loopback server;
spans made with the SDK's tracer for the shapes no installed framework emits (MCP, OpenInference
agents, failing tools); captures and the ``semantic_trace`` fixture."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk.trace")

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from llm_server import FakeOpenAIServer, Reply, completion
from semantix import evaluate_semantic
from semantix.agents import (
    AnsweredBy,
    ByAgent,
    FinalTurn,
    HandedOff,
    Steps,
    ToolCalls,
    ToolFailed,
    ToolSucceeded,
    Turn,
    capture_spans,
)
from semantix.checks import CalledTool, Contains, Latency, NoToolCalls, Tokens
from semantix.outputs import ToolCall, output_view


def tool_reply(*calls: tuple[str, str, dict[str, Any]]) -> Reply:
    """A completion that calls tools: (id, name, arguments)."""
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, n, a in calls
        ],
    }
    body = {
        "id": "chatcmpl-tools",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-test",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }
    return Reply(200, body)


@pytest.fixture
def tracing() -> tuple[TracerProvider, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


def passes(output: object, check: Any) -> bool:
    return evaluate_semantic(output, check).passed


# --- OpenInference: the openai client, instrumented --------------------------------------------


@pytest.fixture
def instrumented_openai(
    tracing: tuple[TracerProvider, InMemorySpanExporter],
) -> Iterator[InMemorySpanExporter]:
    instrumentation = pytest.importorskip("openinference.instrumentation.openai")
    instrumentor = instrumentation.OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=tracing[0])
    try:
        yield tracing[1]
    finally:
        instrumentor.uninstrument()


def test_openinference_spans_of_the_openai_client(
    instrumented_openai: InMemorySpanExporter,
) -> None:
    import openai

    script = [tool_reply(("call_1", "issue_refund", {"order_id": "A17"})), completion("Refunded.")]
    with FakeOpenAIServer(script) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="test", max_retries=0)
        messages: list[Any] = [{"role": "user", "content": "Refund A17"}]
        first = client.chat.completions.create(model="gpt-test", messages=messages)
        messages.append(first.choices[0].message.model_dump(exclude_none=True))
        messages.append({"role": "tool", "tool_call_id": "call_1", "content": '{"ok": true}'})
        client.chat.completions.create(model="gpt-test", messages=messages)

    spans = instrumented_openai.get_finished_spans()
    view = output_view(spans)
    assert [step.role for step in view.steps] == ["user", "assistant", "tool", "assistant"]
    assert view.text == "Refunded."
    assert view.tool_calls == (
        ToolCall("issue_refund", {"order_id": "A17"}, '{"order_id": "A17"}', "call_1"),
    )
    # the result is read from the next model call's input: no tool span was recorded
    assert view.steps[2].tool_results[0].content == '{"ok": true}'
    assert view.usage is not None
    assert (view.usage.input_tokens, view.usage.output_tokens) == (10 + 42, 5 + 7)
    assert view.model == "gpt-4o-mini-test"
    assert view.timing is not None and view.timing.total_ms is not None
    check = ToolCalls(CalledTool("issue_refund", args={"order_id": "A17"})) & ToolSucceeded(
        "issue_refund"
    )
    assert passes(spans, check & FinalTurn(Contains("Refunded")) & Steps(max=2))
    assert not passes(spans, ~CalledTool("issue_refund"))
    assert not passes(spans, NoToolCalls)
    assert passes(spans, Tokens(max_total=100))
    assert not passes(spans, Tokens(max_total=60))


# --- pydantic-ai: GenAI spans of the framework itself ------------------------------------------


def _agent(client: Any, name: str, provider: TracerProvider) -> Any:
    """A pydantic-ai agent on ``client`` (an AsyncOpenAI the test closes) that traces itself."""
    pydantic_ai = pytest.importorskip("pydantic_ai")
    from pydantic_ai.capabilities.instrumentation import Instrumentation
    from pydantic_ai.models.instrumented import InstrumentationSettings
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    model = OpenAIChatModel("gpt-test", provider=OpenAIProvider(openai_client=client))
    settings = InstrumentationSettings(tracer_provider=provider)
    return pydantic_ai.Agent(model, name=name, capabilities=[Instrumentation(settings=settings)])


def _client(server: FakeOpenAIServer) -> Any:
    import openai

    return openai.AsyncOpenAI(base_url=server.base_url, api_key="test", max_retries=0)


def test_pydantic_ai_spans_one_agent(
    tracing: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    provider, exporter = tracing
    script = [
        tool_reply(("call_1", "lookup", {"order_id": "A17"})),
        tool_reply(("call_2", "issue_refund", {"order_id": "A17"})),
        completion("Done: order A17 is refunded."),
    ]

    async def run(server: FakeOpenAIServer) -> None:
        async with _client(server) as client:
            agent = _agent(client, "billing", provider)

            @agent.tool_plain
            def lookup(order_id: str) -> str:
                return f"order {order_id}: paid"

            @agent.tool_plain
            def issue_refund(order_id: str) -> str:
                raise RuntimeError("the payment service is down")

            await agent.run("Refund A17")

    with FakeOpenAIServer(script) as server, pytest.raises(Exception, match="payment service"):
        asyncio.run(run(server))

    spans = exporter.get_finished_spans()
    view = output_view(spans)
    assert [call.name for call in view.tool_calls] == ["lookup", "issue_refund"]
    assert {step.agent for step in view.steps} == {"billing"}
    assert passes(spans, ToolSucceeded("lookup") & ToolFailed("issue_refund"))
    assert not passes(spans, ~CalledTool("issue_refund"))
    failed = view.steps[-1].tool_results[0]
    assert failed.is_error and "payment service is down" in (failed.content or "")


def test_pydantic_ai_agents_handing_over(
    tracing: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    """Triage answers by asking billing (an agent run inside triage's tool): billing's steps
    name billing, triage's name triage, and the timing of every step comes from its span."""
    provider, exporter = tracing
    script = [
        tool_reply(("t1", "ask_billing", {"question": "Refund A17"})),
        tool_reply(("b1", "issue_refund", {"order_id": "A17"})),
        completion("Refunded A17."),
        completion("Billing refunded order A17."),
    ]

    async def run(server: FakeOpenAIServer) -> str:
        async with _client(server) as client:
            triage = _agent(client, "triage", provider)
            billing = _agent(client, "billing", provider)

            @billing.tool_plain
            def issue_refund(order_id: str) -> str:
                return "refunded"

            @triage.tool_plain
            async def ask_billing(question: str) -> str:
                return str((await billing.run(question)).output)

            return str((await triage.run("Refund A17, please")).output)

    with FakeOpenAIServer(script) as server:
        assert asyncio.run(run(server)) == "Billing refunded order A17."

    spans = exporter.get_finished_spans()
    view = output_view(spans)
    assert [(step.role, step.agent) for step in view.steps] == [
        ("user", "triage"),
        ("assistant", "triage"),  # ask_billing: billing runs inside this tool
        ("assistant", "billing"),  # issue_refund
        ("tool", "billing"),
        ("assistant", "billing"),
        ("tool", "triage"),  # ask_billing's result: billing's answer
        ("assistant", "triage"),
    ]
    assert passes(spans, HandedOff("triage", "billing") & HandedOff("billing", "triage"))
    assert passes(spans, AnsweredBy("triage"))
    assert not passes(spans, AnsweredBy("billing"))
    assert passes(spans, ByAgent("billing", CalledTool("issue_refund", args={"order_id": "A17"})))
    assert passes(spans, ByAgent("triage", ~CalledTool("issue_refund") & CalledTool("ask_billing")))
    assert not passes(spans, ByAgent("triage", CalledTool("issue_refund")))
    reason = evaluate_semantic(spans, AnsweredBy("billing")).leaves[0].verdict.reason or ""
    assert "'triage', not 'billing'" in reason and "triage -> billing -> triage" in reason
    assert passes(spans, Latency(max_ms=60_000) & Turn(-1, Latency(max_ms=60_000)))
    assert all(s.timing is not None for s in view.steps if s.role in ("assistant", "tool"))


# --- captures ----------------------------------------------------------------------------------


def test_capture_spans_on_a_given_provider_nests_and_stops(
    tracing: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    provider = tracing[0]
    tracer = provider.get_tracer("test")
    with capture_spans(provider) as outer:
        with tracer.start_as_current_span("chat", attributes={"gen_ai.operation.name": "chat"}):
            pass
        with (
            capture_spans(provider) as inner,
            tracer.start_as_current_span(
                "execute_tool x",
                attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "x"},
            ),
        ):
            pass
    with tracer.start_as_current_span("after"):
        pass
    assert [span.name for span in outer] == ["chat", "execute_tool x"]
    assert [span.name for span in inner] == ["execute_tool x"]
    assert passes(inner, CalledTool("x"))
    assert "2 spans" in repr(outer)


def test_capture_spans_refuses_what_is_not_an_sdk_provider() -> None:
    refused = pytest.raises(TypeError, match="needs an opentelemetry-sdk TracerProvider, got str")
    with refused, capture_spans("provider"):
        pass


def test_the_semantic_trace_fixture(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from opentelemetry import trace
        from semantix import evaluate_semantic
        from semantix.checks import CalledTool

        def test_it(semantic_trace):
            tracer = trace.get_tracer("app")
            attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup"}
            with tracer.start_as_current_span("execute_tool lookup", attributes=attributes):
                pass
            assert evaluate_semantic(semantic_trace, CalledTool("lookup")).passed
            assert not evaluate_semantic(semantic_trace, ~CalledTool("lookup")).passed
        """
    )
    pytester.runpytest_subprocess("-p", "no:randomly").assert_outcomes(passed=1)


def test_a_framework_span_around_the_instrumented_client_is_one_model_call(
    tracing: tuple[TracerProvider, InMemorySpanExporter],
    instrumented_openai: InMemorySpanExporter,
) -> None:
    """pydantic-ai's chat spans hold OpenInference's ChatCompletion spans of the same calls
    (both instrumentations on one provider): each call is read once, from the span inside."""
    provider = tracing[0]
    script = [tool_reply(("c1", "lookup", {"order_id": "A17"})), completion("Paid.")]

    async def run(server: FakeOpenAIServer) -> None:
        async with _client(server) as client:
            agent = _agent(client, "billing", provider)

            @agent.tool_plain
            def lookup(order_id: str) -> str:
                return "paid"

            await agent.run("Is A17 paid?")

    with FakeOpenAIServer(script) as server:
        asyncio.run(run(server))
    spans = instrumented_openai.get_finished_spans()
    assert sorted({span.name for span in spans}) == [
        "ChatCompletion",
        "chat gpt-test",
        "execute_tool lookup",
        "invoke_agent billing",
    ]
    view = output_view(spans)
    assert [(s.role, s.agent) for s in view.steps] == [
        ("user", "billing"),
        ("assistant", "billing"),
        ("tool", "billing"),
        ("assistant", "billing"),
    ]
    assert passes(spans, ToolCalls(CalledTool("lookup")))  # one call, not two
    assert view.usage is not None and view.usage.input_tokens == 10 + 42
