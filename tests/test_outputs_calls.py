"""Never drop a call (issue 43 §1): every call shape read as a call with its result, kind and
server, on real SDK objects where the SDK is installed; a block of a shape semantix does not
read is an error naming its type and where it sits, never skipped."""

from __future__ import annotations

from typing import Any

import pytest

from agent_runs import anthropic_message, completion, tool_message
from semantix import evaluate_semantic
from semantix.agents import ToolCalls, ToolFailed, ToolSucceeded
from semantix.checks import CalledTool
from semantix.outputs import output_text, output_view

openai_responses = pytest.importorskip("openai.types.responses")
anthropic_types = pytest.importorskip("anthropic.types")

RESPONSE = {
    "id": "resp_1",
    "object": "response",
    "created_at": 1,
    "model": "gpt-4.1",
    "parallel_tool_calls": True,
    "tool_choice": "auto",
    "tools": [],
}
REPLY = {
    "type": "message",
    "id": "msg_1",
    "role": "assistant",
    "status": "completed",
    "content": [{"type": "output_text", "text": "Done.", "annotations": []}],
}


def response(*items: dict[str, Any]) -> Any:
    return openai_responses.Response.model_validate({**RESPONSE, "output": [*items, REPLY]})


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


def test_responses_mcp_call_is_an_mcp_call_with_its_server_and_result() -> None:
    mcp = {
        "type": "mcp_call",
        "id": "mcp_1",
        "name": "delete_account",
        "arguments": '{"user": "u1"}',
        "server_label": "crm",
        "output": None,
        "error": {"type": "http_error", "code": 403, "message": "permission denied"},
    }
    output = response(mcp)
    assert calls(output) == [("delete_account", "mcp", "crm")]
    assert output_view(output).tool_calls[0].arguments == {"user": "u1"}
    ((name, content, failed),) = results(output)
    assert (name, failed) == ("delete_account", True)
    assert "permission denied" in (content or "")
    assert not passes(output, ~CalledTool("delete_account"))
    assert not passes(output, ToolCalls())
    assert passes(output, ToolFailed("delete_account"))


BUILT_IN = [
    {
        "type": "web_search_call",
        "id": "ws_1",
        "status": "completed",
        "action": {"type": "search", "query": "weather"},
    },
    {"type": "file_search_call", "id": "fs_1", "status": "completed", "queries": ["refunds"]},
    {
        "type": "code_interpreter_call",
        "id": "ci_1",
        "status": "failed",
        "code": "1/0",
        "container_id": "c",
        "outputs": None,
    },
    {"type": "image_generation_call", "id": "ig_1", "status": "completed", "result": "aGk="},
    {
        "type": "computer_call",
        "id": "cu_1",
        "call_id": "call_c",
        "status": "completed",
        "pending_safety_checks": [],
        "action": {"type": "click", "button": "left", "x": 1, "y": 2},
    },
    {
        "type": "local_shell_call",
        "id": "ls_1",
        "call_id": "call_s",
        "status": "completed",
        "action": {"type": "exec", "command": ["rm", "-rf", "/"], "env": {}},
    },
    {
        "type": "custom_tool_call",
        "id": "ct_1",
        "call_id": "call_x",
        "name": "run_sql",
        "input": "DROP TABLE users",
    },
]


def test_responses_built_in_and_custom_calls_are_calls() -> None:
    output = response(*BUILT_IN)
    assert calls(output) == [
        ("web_search", "provider", None),
        ("file_search", "provider", None),
        ("code_interpreter", "provider", None),
        ("image_generation", "provider", None),
        ("computer", "function", None),  # the application runs these two
        ("local_shell", "function", None),
        ("run_sql", "function", None),
    ]
    view = output_view(output)
    assert view.tool_calls[0].arguments == {"type": "search", "query": "weather"}
    assert view.tool_calls[5].arguments == {
        "type": "exec",
        "command": ["rm", "-rf", "/"],
        "env": {},
    }
    assert view.tool_calls[6].raw_arguments == "DROP TABLE users"
    assert ("code_interpreter", None, True) in results(output)  # status "failed"
    assert not passes(output, ToolCalls())
    assert not passes(output, ~CalledTool("run_sql"))


def test_responses_custom_tool_call_output_in_a_transcript() -> None:
    run = [
        {"role": "user", "content": "Clean up"},
        {"type": "custom_tool_call", "call_id": "call_x", "name": "run_sql", "input": "DROP"},
        {"type": "custom_tool_call_output", "call_id": "call_x", "output": "Error: no rights"},
        REPLY,
    ]
    assert results(run) == [("run_sql", "Error: no rights", True)]
    assert passes(run, ToolFailed("run_sql"))


def test_an_unknown_responses_item_is_an_error_naming_it() -> None:
    with pytest.raises(TypeError, match=r"output\[0\] is an item of type 'teleport'"):
        output_view({"output": [{"type": "teleport", "id": "t"}, REPLY]})


# --- Anthropic ---------------------------------------------------------------------------------


def test_anthropic_server_tool_use_and_its_result_block() -> None:
    message = anthropic_message(
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"q": "x"}},
        {
            "type": "web_search_tool_result",
            "tool_use_id": "srvtoolu_1",
            "content": {"type": "web_search_tool_result_error", "error_code": "unavailable"},
        },
        {"type": "text", "text": "I could not search."},
    )
    assert calls(message) == [("web_search", "provider", None)]
    ((name, content, failed),) = results(message)
    assert (name, failed) == ("web_search", True)
    assert "unavailable" in (content or "")
    assert output_text(message) == "I could not search."
    assert not passes(message, ~CalledTool("web_search"))


def test_anthropic_mcp_tool_use_on_the_beta_message() -> None:
    beta = pytest.importorskip("anthropic.types.beta")
    message = beta.BetaMessage.model_validate(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 1, "output_tokens": 2},
            "content": [
                {
                    "type": "mcp_tool_use",
                    "id": "mcptoolu_1",
                    "name": "delete_account",
                    "server_name": "crm",
                    "input": {"user": "u1"},
                },
                {
                    "type": "mcp_tool_result",
                    "tool_use_id": "mcptoolu_1",
                    "is_error": False,
                    "content": [{"type": "text", "text": "deleted"}],
                },
                {"type": "text", "text": "Done."},
            ],
        }
    )
    assert calls(message) == [("delete_account", "mcp", "crm")]
    assert results(message) == [("delete_account", "deleted", False)]
    assert passes(message, ToolSucceeded("delete_account"))
    assert not passes(message, ~CalledTool("delete_account"))


def test_an_unknown_block_is_an_error_naming_its_type_and_place() -> None:
    run = [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": [{"type": "text", "text": "ok"}, {"type": "hologram"}]},
    ]
    with pytest.raises(
        TypeError, match=r"messages\[1\]\.content\[1\] is a block of type 'hologram'"
    ):
        output_view(run)
    with pytest.raises(TypeError, match=r"content\[0\] is a dict with no type"):
        output_view({"role": "assistant", "content": [{"teleport": {}}]})


def test_known_blocks_without_calls_stay_readable() -> None:
    message = anthropic_message(
        {"type": "thinking", "thinking": "hmm", "signature": "s"},
        {"type": "redacted_thinking", "data": "x"},
        {"type": "text", "text": "Hello"},
    )
    assert output_text(message) == "Hello"
    chat = {"role": "user", "content": [{"type": "text", "text": "see"}, {"type": "image_url"}]}
    assert output_text(chat) == "see"


# --- Gemini / Vertex, Bedrock, Vercel, inspect_ai ----------------------------------------------


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


def test_two_calls_sharing_one_id_in_one_message_are_an_error() -> None:
    twice = completion(None, ("call_1", "lookup_order", {}), ("call_1", "issue_refund", {}))
    with pytest.raises(
        ValueError, match=r"two tool calls with the id 'call_1'.*cannot be told apart"
    ):
        output_view([{"role": "user", "content": "x"}, twice.choices[0].message])
    with pytest.raises(ValueError, match=r"two tool calls with the id 'call_1'"):
        output_view(twice)


def test_a_repeated_argument_name_is_never_matched() -> None:
    message = completion(None, ("call_1", "issue_refund", {}))
    dumped = message.model_dump()
    function = dumped["choices"][0]["message"]["tool_calls"][0]["function"]
    function["arguments"] = '{"order_id": "B99", "order_id": "A17"}'
    view = output_view(dumped)
    assert view.tool_calls[0].arguments is None  # unread, kept raw
    assert not passes(dumped, CalledTool("issue_refund", args={"order_id": "A17"}))
    assert not passes(dumped, CalledTool("issue_refund", args={"order_id": "B99"}))


def test_arguments_and_results_nested_too_deep_are_clear() -> None:
    deep: Any = "x"
    for _ in range(50_000):
        deep = {"a": deep}
    as_json = '{"a": ' * 50_000 + "1" + "}" * 50_000
    chat = completion(None, ("call_1", "f", {})).model_dump()
    chat["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = as_json
    assert output_view(chat).tool_calls[0].arguments is None
    with pytest.raises(ValueError, match="nest more than 100 levels"):
        output_view(
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t", "name": "f", "input": deep}],
            }
        )
    run = [completion(None, ("call_1", "f", {})).choices[0].message, tool_message("call_1", "ok")]
    run[1] = {**run[1], "content": [deep]}
    with pytest.raises(ValueError, match="tool result nests more than 100 levels"):
        output_view(run)


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
