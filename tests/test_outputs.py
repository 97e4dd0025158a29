from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from semantix.outputs import output_text


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
    with pytest.raises(TypeError, match="no text content.*tool call"):
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
        (["a", "b"], r"cannot read text from output of type list"),
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
    with pytest.raises(TypeError, match="has no text content, only blocks of type"):
        output_text(message)


def test_an_anthropic_tool_call_never_passes_a_negation() -> None:
    from semantix import FakeJudge, Intent, evaluate_semantic

    class Rude(Intent):
        """The text is rude."""

    judge = FakeJudge(lambda output, description: 0.0)
    tool_only = {"role": "assistant", "content": [{"type": "tool_use", "name": "lookup"}]}
    with pytest.raises(TypeError, match="tool_use"):
        evaluate_semantic(tool_only, ~Rude, judge=judge)
    assert judge.calls == []


def test_lone_surrogates_are_replaced_once() -> None:
    text = output_text("Thank you \ud800 for waiting.")
    assert text == "Thank you \ufffd for waiting."
    text.encode("utf-8")  # every judge and the store can encode it
    assert output_text("emoji \U0001f600 stays") == "emoji \U0001f600 stays"
