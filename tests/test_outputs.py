from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from semantix.outputs import OutputView, ToolCall, Usage, output_text, output_view


# Shapes of the SDK objects, built here so that no SDK is needed (or imported).
@dataclass
class Message:
    content: Any
    role: str = "assistant"


@dataclass
class Choice:
    message: Message
    index: int = 0


@dataclass
class ChatCompletion:
    choices: list[Choice]
    object: str = "chat.completion"


@dataclass
class TextBlock:
    text: str
    type: str = "text"


@dataclass
class ToolUseBlock:
    name: str
    type: str = "tool_use"


@dataclass
class AnthropicMessage:
    content: list[Any]
    role: str = "assistant"
    type: str = "message"


@dataclass
class ResponseOutputText:
    text: str
    type: str = "output_text"


@dataclass
class ResponseMessage:
    content: list[ResponseOutputText]
    type: str = "message"


@dataclass
class Response:
    output: list[Any] = field(default_factory=list)

    @property
    def output_text(self) -> str:
        return "".join(c.text for item in self.output for c in item.content)


def test_str_is_returned_as_is() -> None:
    assert output_text("  hello ") == "  hello "


def test_openai_chat_completion_object_and_dict() -> None:
    completion = ChatCompletion([Choice(Message("Thanks for waiting."))])
    assert output_text(completion) == "Thanks for waiting."
    as_dict = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi."}}]}
    assert output_text(as_dict) == "Hi."


def test_chat_completion_with_content_parts() -> None:
    as_dict = {
        "choices": [
            {"message": {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}}
        ]
    }
    assert output_text(as_dict) == "ab"


def test_chat_completion_without_text_says_why() -> None:
    as_dict = {"choices": [{"message": {"role": "assistant", "content": None, "tool_calls": []}}]}
    with pytest.raises(
        TypeError, match=r"choices\[0\].message \(content None\) has no text content"
    ):
        output_text(as_dict)
    with pytest.raises(TypeError, match="has no choices"):
        output_text({"choices": []})


def test_openai_responses_object_and_dict() -> None:
    response = Response([ResponseMessage([ResponseOutputText("Your order ships today.")])])
    assert output_text(response) == "Your order ships today."
    as_dict = {
        "object": "response",
        "output": [
            {"type": "reasoning", "summary": []},
            {"type": "message", "content": [{"type": "output_text", "text": "Done."}]},
        ],
    }
    assert output_text(as_dict) == "Done."


def test_anthropic_message_object_and_dict() -> None:
    message = AnthropicMessage([TextBlock("Hello"), ToolUseBlock("lookup"), TextBlock(" there")])
    assert output_text(message) == "Hello there"
    as_dict = {"role": "assistant", "type": "message", "content": [{"type": "text", "text": "Hi"}]}
    assert output_text(as_dict) == "Hi"


def test_plain_chat_message() -> None:
    assert output_text({"role": "assistant", "content": "Sure."}) == "Sure."


@pytest.mark.parametrize(
    ("value", "pattern"),
    [
        (None, r"got None \(NoneType\).*return nothing"),
        (b"bytes", r"bytes, not text; decode it first"),
        (42, r"got 42 \(int\)"),
        (3.5, r"got 3.5 \(float\)"),
        (object(), r"cannot read text from output of type object"),
        ({"unrelated": 1}, r"cannot read text from output of type dict"),
    ],
)
def test_unsupported_outputs_say_what_is_accepted(value: object, pattern: str) -> None:
    with pytest.raises(TypeError, match=pattern) as info:
        output_text(value)
    assert "ChatCompletion" in str(info.value) or "decode" in str(info.value)


# --- messages with no text, unencodable characters (issue 13 items 8 and 9) ---------------------


@pytest.mark.parametrize(
    "message",
    [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "lookup"}]},
        {"output": [{"type": "function_call", "name": "lookup", "arguments": "{}"}]},
    ],
    ids=["anthropic-tool-use", "responses-function-call"],
)
def test_a_message_without_text_says_what_it_holds(message: object) -> None:
    with pytest.raises(TypeError, match=r"has no text content, only tool calls: lookup\("):
        output_text(message)


def test_an_anthropic_tool_call_never_passes_a_negation() -> None:
    from semantix import FakeJudge, Intent, evaluate_semantic

    class Rude(Intent):
        """The text is rude."""

    judge = FakeJudge(lambda output, description: 0.0)
    tool_only = {"role": "assistant", "content": [{"type": "tool_use", "name": "lookup"}]}
    with pytest.raises(TypeError, match="lookup"):  # the message names the tool call
        evaluate_semantic(tool_only, ~Rude, judge=judge)
    assert judge.calls == []


def test_lone_surrogates_are_replaced_once() -> None:
    text = output_text("Thank you \ud800 for waiting.")
    assert text == "Thank you \ufffd for waiting."
    text.encode("utf-8")  # every judge and the store can encode it
    assert output_text("emoji \U0001f600 stays") == "emoji \U0001f600 stays"


# --- the output view: tool calls, usage and model (issue 23 item 4, issue 26 item 1) -----------

openai_chat = pytest.importorskip("openai.types.chat")
openai_responses = pytest.importorskip("openai.types.responses")
anthropic_types = pytest.importorskip("anthropic.types")

CHAT_TOOL_CALL = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1,
    "model": "gpt-4o-mini-2024-07-18",
    "choices": [
        {
            "index": 0,
            "finish_reason": "tool_calls",
            "message": {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "issue_refund", "arguments": '{"order_id": "A17"}'},
                    },
                    {
                        "id": "call_2",
                        "type": "function",
                        "function": {"name": "notify", "arguments": "{not json"},
                    },
                ],
            },
        }
    ],
    "usage": {
        "prompt_tokens": 120,
        "completion_tokens": 18,
        "total_tokens": 138,
        "prompt_tokens_details": {"cached_tokens": 64},
    },
}

RESPONSES_TOOL_CALL = {
    "id": "resp_1",
    "object": "response",
    "created_at": 1,
    "model": "gpt-4.1",
    "parallel_tool_calls": True,
    "tool_choice": "auto",
    "tools": [],
    "output": [
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_9",
            "name": "lookup_order",
            "arguments": '{"order_id": "A17", "fields": ["status"]}',
            "status": "completed",
        },
    ],
    "usage": {
        "input_tokens": 50,
        "input_tokens_details": {"cached_tokens": 10, "cache_write_tokens": 0},
        "output_tokens": 5,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 55,
    },
}

ANTHROPIC_TOOL_USE = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5-20250929",
    "content": [
        {"type": "text", "text": "Let me look that up."},
        {"type": "tool_use", "id": "toolu_1", "name": "lookup_order", "input": {"order_id": "A17"}},
    ],
    "stop_reason": "tool_use",
    "usage": {
        "input_tokens": 10,
        "output_tokens": 7,
        "cache_read_input_tokens": 100,
        "cache_creation_input_tokens": 5,
    },
}


def _forms(model: Any, data: dict[str, Any]) -> list[object]:
    sdk = model.model_validate(data)
    return [sdk, sdk.model_dump(), sdk.model_dump(mode="json")]


@pytest.mark.parametrize("form", range(3), ids=["sdk", "model_dump", "json"])
def test_chat_completion_tool_calls_usage_and_model(form: int) -> None:
    output = _forms(openai_chat.ChatCompletion, CHAT_TOOL_CALL)[form]
    view = output_view(output)
    assert view.text is None
    assert view.tool_calls == (
        ToolCall("issue_refund", {"order_id": "A17"}, '{"order_id": "A17"}', "call_1"),
        ToolCall("notify", None, "{not json", "call_2"),
    )
    assert view.usage == Usage(120, 18, 138, cache_read_tokens=64, cache_write_tokens=None)
    assert view.model == "gpt-4o-mini-2024-07-18"


def test_a_tool_only_reply_names_its_calls_in_output_text() -> None:
    completion = openai_chat.ChatCompletion.model_validate(CHAT_TOOL_CALL)
    with pytest.raises(TypeError) as info:
        output_text(completion)
    message = str(info.value)
    assert 'only tool calls: issue_refund({"order_id": "A17"})' in message
    assert "notify(<arguments are not a JSON object: '{not json'>)" in message
    assert "CalledTool" in message


def test_chat_completion_legacy_function_call() -> None:
    data = {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": None,
                    "function_call": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                }
            }
        ]
    }
    assert output_view(data).tool_calls == (
        ToolCall("get_weather", {"city": "Oslo"}, '{"city": "Oslo"}', None),
    )


def test_tool_arguments_that_are_json_but_no_object_are_kept_raw() -> None:
    data = {"output": [{"type": "function_call", "name": "f", "arguments": "[1, 2]"}]}
    (call,) = output_view(data).tool_calls
    assert call.arguments is None
    assert call.raw_arguments == "[1, 2]"


@pytest.mark.parametrize("form", range(3), ids=["sdk", "model_dump", "json"])
def test_responses_function_call_items(form: int) -> None:
    output = _forms(openai_responses.Response, RESPONSES_TOOL_CALL)[form]
    view = output_view(output)
    assert view.text is None
    assert view.tool_calls == (
        ToolCall(
            "lookup_order",
            {"order_id": "A17", "fields": ["status"]},
            '{"order_id": "A17", "fields": ["status"]}',
            "call_9",
        ),
    )
    assert view.usage == Usage(50, 5, 55, cache_read_tokens=10, cache_write_tokens=0)
    assert view.model == "gpt-4.1"


@pytest.mark.parametrize("form", range(3), ids=["sdk", "model_dump", "json"])
def test_anthropic_tool_use_blocks_and_cache_tokens(form: int) -> None:
    output = _forms(anthropic_types.Message, ANTHROPIC_TOOL_USE)[form]
    view = output_view(output)
    assert view.text == "Let me look that up."
    assert view.tool_calls == (ToolCall("lookup_order", {"order_id": "A17"}, None, "toolu_1"),)
    # Anthropic's input_tokens exclude the cache; the view counts every input token.
    assert view.usage == Usage(115, 7, 122, cache_read_tokens=100, cache_write_tokens=5)
    assert view.model == "claude-sonnet-4-5-20250929"


def test_a_text_reply_from_the_sdk_has_text_and_no_calls() -> None:
    data = dict(CHAT_TOOL_CALL)
    data["choices"] = [
        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Done."}}
    ]
    view = output_view(openai_chat.ChatCompletion.model_validate(data))
    assert (view.text, view.tool_calls) == ("Done.", ())
    assert output_text(data) == "Done."


def test_a_plain_str_has_no_usage_and_no_model() -> None:
    assert output_view("Hi.") == OutputView("Hi.", (), None, None)


def test_the_view_repr_shows_text_calls_usage_and_model() -> None:
    view = output_view(ANTHROPIC_TOOL_USE)
    assert repr(view) == (
        "OutputView(text='Let me look that up.', tool_calls=[lookup_order({\"order_id\": "
        '"A17"})], usage=Usage(input_tokens=115, output_tokens=7, total_tokens=122, '
        "cache_read_tokens=100, cache_write_tokens=5), model='claude-sonnet-4-5-20250929')"
    )


def test_a_refusal_is_named_when_there_is_no_text() -> None:
    data = {"choices": [{"message": {"content": None, "refusal": "I can't help with that."}}]}
    assert output_view(data).text is None
    with pytest.raises(TypeError, match=r"refusal \"I can't help with that.\"|refusal 'I can"):
        output_text(data)


def test_view_text_replaces_lone_surrogates() -> None:
    data = {"role": "assistant", "content": [{"type": "text", "text": "ok \ud800"}]}
    assert output_view(data).text == "ok \ufffd"


def test_tool_arguments_with_nan_are_not_a_json_object() -> None:
    from semantix.outputs import output_view

    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "pay", "arguments": '{"usd": NaN}'},
            }
        ],
    }
    (call,) = output_view(message).tool_calls
    assert (call.arguments, call.raw_arguments) == (None, '{"usd": NaN}')
