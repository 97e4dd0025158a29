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
