"""Never drop a call (issue 43 §1), beyond OpenAI and Anthropic: Gemini / Vertex, Bedrock
Converse, the Vercel AI SDK, inspect_ai and pydantic-ai runs read as calls with their results,
on the SDK objects where the SDK is installed (google-genai, inspect-ai, pydantic-ai) and plain
dicts otherwise."""

from __future__ import annotations

from typing import Any

import pytest

from semantix import evaluate_semantic
from semantix.agents import ToolFailed
from semantix.checks import CalledTool
from semantix.outputs import output_view


def calls(output: object) -> list[tuple[str | None, str, str | None]]:
    return [(call.name, call.kind, call.server) for call in output_view(output).tool_calls]


def results(output: object) -> list[tuple[str | None, str | None, bool]]:
    view = output_view(output)
    return [
        (result.call.name, result.content, result.is_error)
        for step in view.steps
        for result in step.tool_results
    ]


def passes(output: object, check: Any) -> bool:
    return evaluate_semantic(output, check).passed


# --- OpenAI Responses --------------------------------------------------------------------------


def gemini_run(*, dump: bool) -> list[Any]:
    types = pytest.importorskip("google.genai.types")
    call = types.Part(function_call=types.FunctionCall(name="issue_refund", args={"id": "A17"}))
    answer = types.Part(
        function_response=types.FunctionResponse(
            name="issue_refund", response={"error": "card declined"}
        )
    )
    run = [
        types.Content(role="user", parts=[types.Part(text="Refund A17")]),
        types.Content(role="model", parts=[types.Part(text="thinking", thought=True), call]),
        types.Content(role="user", parts=[answer]),
        types.Content(role="model", parts=[types.Part(text="Sorry, the card was declined.")]),
    ]
    return [content.model_dump(mode="json", exclude_none=True) for content in run] if dump else run


@pytest.mark.parametrize("dump", [False, True], ids=["sdk", "dicts"])
def test_gemini_function_call_and_response_parts(dump: bool) -> None:
    run = gemini_run(dump=dump)
    view = output_view(run)
    assert [step.role for step in view.steps] == ["user", "assistant", "tool", "assistant"]
    assert calls(run) == [("issue_refund", "function", None)]
    assert results(run) == [("issue_refund", '{"error": "card declined"}', True)]
    assert view.text == "Sorry, the card was declined."
    assert passes(run, ToolFailed("issue_refund", args={"id": "A17"}))


def test_gemini_camel_case_json_and_its_response() -> None:
    types = pytest.importorskip("google.genai.types")
    reply = types.GenerateContentResponse.model_validate(
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [{"functionCall": {"name": "f", "args": {}}}],
                    },
                    "finishReason": "STOP",
                }
            ],
            "usageMetadata": {
                "promptTokenCount": 7,
                "candidatesTokenCount": 3,
                "totalTokenCount": 10,
            },
            "modelVersion": "gemini-2.5-flash",
        }
    )
    view = output_view(reply)
    assert calls(reply) == [("f", "function", None)]
    assert (view.usage and view.usage.total_tokens, view.model) == (10, "gemini-2.5-flash")
    as_json = {"role": "model", "parts": [{"functionCall": {"name": "g", "args": {"a": 1}}}]}
    assert calls(as_json) == [("g", "function", None)]


def test_bedrock_converse_tool_use_and_tool_result_blocks() -> None:
    run = [
        {"role": "user", "content": [{"text": "Refund A17"}]},
        {
            "role": "assistant",
            "content": [
                {"text": "Refunding."},
                {"toolUse": {"toolUseId": "t1", "name": "issue_refund", "input": {"id": "A17"}}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "toolResult": {
                        "toolUseId": "t1",
                        "content": [{"text": "card declined"}],
                        "status": "error",
                    }
                }
            ],
        },
        {"role": "assistant", "content": [{"text": "Sorry, it failed."}]},
    ]
    assert calls(run) == [("issue_refund", "function", None)]
    assert results(run) == [("issue_refund", "card declined", True)]
    assert output_view(run).text == "Sorry, it failed."
    converse = {
        "output": {"message": run[1]},
        "stopReason": "tool_use",
        "usage": {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15},
    }
    assert calls(converse) == [("issue_refund", "function", None)]
    assert output_view(converse).usage is not None


def test_vercel_ai_sdk_tool_call_and_tool_result_parts() -> None:
    run = [
        {"role": "user", "content": "Refund A17"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "On it."},
                {
                    "type": "tool-call",
                    "toolCallId": "c1",
                    "toolName": "issue_refund",
                    "input": {"id": "A17"},
                },
            ],
        },
        {
            "role": "tool",
            "content": [
                {
                    "type": "tool-result",
                    "toolCallId": "c1",
                    "toolName": "issue_refund",
                    "output": {"type": "error-text", "value": "card declined"},
                }
            ],
        },
        {"role": "assistant", "content": [{"type": "text", "text": "Sorry."}]},
    ]
    assert calls(run) == [("issue_refund", "function", None)]
    assert results(run) == [("issue_refund", "card declined", True)]
    assert passes(run, ToolFailed("issue_refund"))


def test_inspect_ai_tool_call_reads_function_as_the_name() -> None:
    model = pytest.importorskip("inspect_ai.model")
    tool = pytest.importorskip("inspect_ai.tool")
    run = [
        model.ChatMessageUser(content="What is 6 x 7?"),
        model.ChatMessageAssistant(
            content="",
            tool_calls=[tool.ToolCall(id="c1", function="submit", arguments={"answer": "42"})],
        ),
        model.ChatMessageTool(
            content="bad",
            tool_call_id="c1",
            function="submit",
            error=tool.ToolCallError(type="parsing", message="bad"),
        ),
        model.ChatMessageAssistant(content="The answer is 42."),
    ]
    assert calls(run) == [("submit", "function", None)]
    assert passes(run, CalledTool("submit", args={"answer": "42"}))
    assert not passes(run, ~CalledTool("submit"))
    assert results(run) == [("submit", "bad", True)]


# --- calls lost or wrong (issue 44) ------------------------------------------------------------


def test_vercel_ui_message_tool_parts_are_calls_with_their_outputs() -> None:
    ui = [
        {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Refund A17"}]},
        {
            "id": "a1",
            "role": "assistant",
            "parts": [
                {"type": "step-start"},
                {
                    "type": "tool-issueRefund",
                    "toolCallId": "c1",
                    "state": "output-error",
                    "input": {"id": "A17"},
                    "errorText": "card declined",
                },
                {"type": "data-progress", "data": {"percent": 100}},
                {"type": "text", "text": "Sorry, the card was declined."},
            ],
        },
    ]
    assert calls(ui) == [("issueRefund", "function", None)]
    assert results(ui) == [("issueRefund", "card declined", True)]
    assert output_view(ui).text == "Sorry, the card was declined."
    assert passes(ui, ToolFailed("issueRefund", args={"id": "A17"}))


def test_inspect_ai_content_tool_use_is_a_provider_or_mcp_call() -> None:
    model = pytest.importorskip("inspect_ai.model")
    reply = model.ChatMessageAssistant(
        content=[
            model.ContentToolUse(
                tool_type="mcp_call",
                id="m1",
                name="delete_account",
                context="crm",
                arguments='{"user": "u1"}',
                result="deleted",
                error=None,
            ),
            model.ContentText(text="Done."),
        ]
    )
    run = [model.ChatMessageUser(content="Close my account"), reply]
    assert calls(run) == [("delete_account", "mcp", "crm")]
    assert results(run) == [("delete_account", "deleted", False)]


def test_gemini_code_execution_parts_are_a_provider_call_and_its_result() -> None:
    message = {
        "role": "model",
        "parts": [
            {"executableCode": {"language": "PYTHON", "code": "print(1/0)"}},
            {"codeExecutionResult": {"outcome": "OUTCOME_FAILED", "output": "ZeroDivisionError"}},
            {"text": "The code failed."},
        ],
    }
    assert calls(message) == [("code_execution", "provider", None)]
    assert results(message) == [("code_execution", "ZeroDivisionError", True)]


def pydantic_ai_run() -> list[Any]:
    messages = pytest.importorskip("pydantic_ai.messages")
    usage = pytest.importorskip("pydantic_ai.usage")
    return [
        messages.ModelRequest(
            parts=[
                messages.SystemPromptPart(content="You are a support agent."),
                messages.UserPromptPart(content="Refund A17"),
            ]
        ),
        messages.ModelResponse(
            parts=[
                messages.ThinkingPart(content="Refund it."),
                messages.ToolCallPart(
                    tool_name="issue_refund", args='{"id": "A17"}', tool_call_id="c1"
                ),
            ],
            model_name="gpt-4o",
            usage=usage.RequestUsage(input_tokens=100, output_tokens=10, cache_read_tokens=40),
        ),
        messages.ModelRequest(
            parts=[
                messages.ToolReturnPart(
                    tool_name="issue_refund",
                    content="card declined",
                    tool_call_id="c1",
                    outcome="failed",
                )
            ]
        ),
        messages.ModelResponse(
            parts=[messages.TextPart(content="Sorry, the card was declined.")],
            model_name="gpt-4o-mini",
            usage=usage.RequestUsage(input_tokens=120, output_tokens=8),
        ),
    ]


def test_pydantic_ai_messages_are_read_with_calls_results_and_usage() -> None:
    run = pydantic_ai_run()
    view = output_view(run)
    assert [step.role for step in view.steps] == ["user", "assistant", "tool", "assistant"]
    assert view.steps[0].text == "Refund A17"  # the system prompt is not the user's text
    assert calls(run) == [("issue_refund", "function", None)]
    assert view.tool_calls[0].arguments == {"id": "A17"}
    assert results(run) == [("issue_refund", "card declined", True)]
    assert (view.text, view.model) == ("Sorry, the card was declined.", "gpt-4o-mini")
    assert view.steps[1].usage is not None
    assert view.steps[1].usage.cache_read_tokens == 40
    assert view.usage is not None and view.usage.input_tokens == 220
    assert passes(run, ToolFailed("issue_refund"))
    assert not passes(run, ~CalledTool("issue_refund"))


def test_an_unknown_pydantic_ai_part_is_an_error() -> None:
    message = {"kind": "response", "parts": [{"part_kind": "teleport"}]}
    with pytest.raises(TypeError, match=r"parts\[0\] is a pydantic-ai part of kind 'teleport'"):
        output_view([{"role": "user", "content": "x"}, message])


def test_a_single_pydantic_ai_response_is_read_with_its_stop() -> None:
    messages = pytest.importorskip("pydantic_ai.messages")
    reply = messages.ModelResponse(
        parts=[messages.TextPart(content="Sorry, the")], model_name="gpt-4o", finish_reason="length"
    )
    view = output_view(reply)
    assert (view.text, view.model) == (None, "gpt-4o")
    assert view.unanswered == "the reply was cut at its token limit (finish_reason 'length')"
    done = messages.ModelResponse(parts=[messages.TextPart(content="Done.")], model_name="gpt-4o")
    assert output_view(done).text == "Done."
