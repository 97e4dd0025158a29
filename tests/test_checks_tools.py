"""Tool-call checks (issue 23 item 4) on real OpenAI and Anthropic SDK objects and their dicts."""

from __future__ import annotations

from typing import Any

import pytest

from semantix import evaluate_semantic
from semantix.checks import CalledTool, NoToolCalls
from semantix.outputs import output_view

openai_chat = pytest.importorskip("openai.types.chat")
openai_responses = pytest.importorskip("openai.types.responses")
anthropic_types = pytest.importorskip("anthropic.types")


def chat(*calls: tuple[str, str], content: str | None = None) -> Any:
    return openai_chat.ChatCompletion.model_validate(
        {
            "id": "c",
            "object": "chat.completion",
            "created": 1,
            "model": "gpt-4o-mini",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls" if calls else "stop",
                    "message": {
                        "role": "assistant",
                        "content": content,
                        "tool_calls": [
                            {
                                "id": f"call_{i}",
                                "type": "function",
                                "function": {"name": name, "arguments": arguments},
                            }
                            for i, (name, arguments) in enumerate(calls)
                        ]
                        or None,
                    },
                }
            ],
        }
    )


def anthropic(name: str, arguments: dict[str, Any]) -> Any:
    return anthropic_types.Message.model_validate(
        {
            "id": "m",
            "type": "message",
            "role": "assistant",
            "model": "claude-3-5-haiku-20241022",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": name, "input": arguments}],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
    )


def responses(name: str, arguments: str) -> Any:
    return openai_responses.Response.model_validate(
        {
            "id": "r",
            "object": "response",
            "created_at": 1,
            "model": "gpt-4.1",
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "output": [
                {
                    "type": "function_call",
                    "call_id": "call_1",
                    "name": name,
                    "arguments": arguments,
                    "status": "completed",
                }
            ],
        }
    )


def decide(check: Any, output: object) -> tuple[bool, str]:
    verdict = check.decide(output_view(output))
    assert verdict.score == (1.0 if verdict.passed else 0.0)
    return verdict.passed, verdict.reason


REFUND = ("issue_refund", '{"order_id": "A17", "amount": 20}')


@pytest.mark.parametrize(
    "output",
    [
        chat(REFUND),
        chat(REFUND).model_dump(),
        anthropic("issue_refund", {"order_id": "A17", "amount": 20}),
        anthropic("issue_refund", {"order_id": "A17", "amount": 20}).model_dump(),
        responses(*REFUND),
        responses(*REFUND).model_dump(mode="json"),
    ],
    ids=["chat", "chat-dict", "anthropic", "anthropic-dict", "responses", "responses-dict"],
)
def test_called_tool_with_a_subset_of_the_arguments(output: object) -> None:
    # An argument args= does not name is allowed, and named in the reason (issue 35).
    assert decide(CalledTool("issue_refund", args={"order_id": "A17"}), output) == (
        True,
        'called issue_refund({"order_id": "A17", "amount": 20}); \'amount\' not in args=',
    )
    assert decide(CalledTool("issue_refund"), output)[0]
    passed, reason = decide(CalledTool("issue_refund", args={"order_id": "B2"}), output)
    assert not passed
    assert reason == (
        "issue_refund({\"order_id\": \"A17\", \"amount\": 20}): 'order_id' is 'A17', expected 'B2'"
    )


def test_exact_mode_rejects_other_arguments() -> None:
    output = chat(REFUND)
    assert decide(CalledTool("issue_refund", args={"order_id": "A17"}, exact=True), output) == (
        False,
        'issue_refund({"order_id": "A17", "amount": 20}): unexpected \'amount\' (exact=True)',
    )
    exact = CalledTool("issue_refund", args={"order_id": "A17", "amount": 20}, exact=True)
    assert decide(exact, output)[0]


def test_a_callable_checks_the_arguments() -> None:
    def small_amount(arguments: Any) -> bool:
        return bool(arguments["amount"] < 50)

    check = CalledTool("issue_refund", args=small_amount)
    assert repr(check) == ("CalledTool('issue_refund', args=small_amount)")
    assert decide(check, chat(REFUND))[0]
    passed, reason = decide(check, chat(("issue_refund", '{"amount": 500}')))
    assert (
        passed,
        reason.endswith("rejected by small_amount"),
    ) == (False, True)


def test_one_matching_call_among_several_passes() -> None:
    output = chat(("issue_refund", '{"order_id": "X"}'), ("issue_refund", '{"order_id": "A17"}'))
    assert decide(CalledTool("issue_refund", args={"order_id": "A17"}), output) == (
        True,
        'called issue_refund({"order_id": "A17"})',
    )  # nothing unnamed: nothing listed


def test_a_missing_call_lists_the_calls_made() -> None:
    output = chat(("lookup_order", '{"order_id": "A17"}'))
    assert decide(CalledTool("issue_refund"), output) == (
        False,
        'issue_refund was not called; calls made: lookup_order({"order_id": "A17"})',
    )
    assert decide(CalledTool("issue_refund"), "Your refund is on its way.") == (
        False,
        "issue_refund was not called; no tool calls were made; the text: 'Your refund is on its way.'",
    )


def test_bad_json_arguments_never_match_and_are_quoted() -> None:
    output = chat(("issue_refund", '{"order_id": A17}'))
    assert decide(CalledTool("issue_refund", args={"order_id": "A17"}), output) == (
        False,
        (
            "issue_refund(<arguments are not a JSON object: '{\"order_id\": A17}'>): "
            "its arguments are not a JSON object"
        ),
    )


@pytest.mark.parametrize(
    "function",
    [{"arguments": "{}"}, {"name": None, "arguments": "{}"}, {"name": "", "arguments": "{}"}],
    ids=["missing", "null", "empty"],
)
def test_a_call_without_a_name_is_an_error(function: dict[str, Any]) -> None:
    """Issue 33 item 8: a missing name was read as the string "None". Issue 43: read as a call
    of no name, ``~CalledTool("delete_database")`` passed on a call that may have been it, so a
    call without a name (OpenAI's, Anthropic's, pydantic-ai's 123) is a TypeError."""
    from pydantic_ai.messages import ModelResponse, ToolCallPart

    output = {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [{"id": "c", "type": "function", "function": function}],
                }
            }
        ]
    }
    anthropic_block = {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "t", "input": {}}],
    }
    pydantic_ai = [ModelResponse(parts=[ToolCallPart(123, None, "c1")])]  # type: ignore[arg-type]
    for run in (output, anthropic_block, pydantic_ai):
        for check in (CalledTool("None"), ~CalledTool("delete_database")):
            with pytest.raises(TypeError, match=r"tool call without a tool name \(got "):
                evaluate_semantic(run, check)


def test_argument_values_compare_as_json_or_with_their_own_eq() -> None:
    from dirty_equals import IsInt, IsStr

    output = chat(("issue_refund", '{"order_id": "A17", "amount": 20, "items": [{"sku": "X1"}]}'))
    assert decide(CalledTool("issue_refund", args={"amount": 20.0}), output)[0]  # JSON: 20 == 20.0
    assert not decide(CalledTool("issue_refund", args={"amount": True}), output)[0]  # not 1 == True
    nested = {"order_id": IsStr(regex=r"A\d+"), "items": [{"sku": IsStr}], "amount": IsInt(gt=10)}
    assert decide(CalledTool("issue_refund", args=nested), output)[0]
    assert decide(CalledTool("issue_refund", args={"amount": lambda value: value < 50}), output)[0]
    passed, reason = decide(CalledTool("issue_refund", args={"amount": IsInt(gt=50)}), output)
    assert (passed, reason.endswith("'amount' is 20, expected IsInt(gt=50)")) == (False, True)


def test_text_values_compare_only_with_text_and_extra_arguments_keep_their_order() -> None:
    """Arguments whose expected values are all str are compared at once (a fast path): a str
    still never equals a number, a bool, null or a list, and the unnamed arguments are listed in
    the call's own order."""
    output = chat(("issue_refund", '{"z": 1, "order_id": "A17", "note": null, "a": [2]}'))
    check = CalledTool("issue_refund", args={"order_id": "A17"})
    assert decide(check, output) == (
        True,
        (
            'called issue_refund({"z": 1, "order_id": "A17", "note": null, "a": [2]}); '
            "'z', 'note', 'a' not in args="
        ),
    )
    for name, value in (("z", "1"), ("note", "None"), ("a", "[2]"), ("order_id", "a17")):
        assert not decide(CalledTool("issue_refund", args={name: value}), output)[0], name
    assert not decide(CalledTool("issue_refund", args={"missing": "A17"}), output)[0]
    truth = chat(("issue_refund", '{"flag": true}'))
    assert not decide(CalledTool("issue_refund", args={"flag": "True"}), truth)[0]


def test_no_tool_calls() -> None:
    assert decide(NoToolCalls, chat(content="Done.")) == (True, "no tool calls were made")
    assert decide(NoToolCalls, anthropic("lookup", {"q": "x"})) == (
        False,
        'tool calls were made: lookup({"q": "x"})',
    )
    assert NoToolCalls.description == "The model made no tool calls."


def test_names_and_descriptions() -> None:
    check = CalledTool("issue_refund", args={"order_id": "A17"})
    assert repr(check) == "CalledTool('issue_refund', args={'order_id': 'A17'})"
    assert check.description == (
        "The model called the tool 'issue_refund' with arguments {'order_id': 'A17'}."
    )
    assert repr(~NoToolCalls & CalledTool("x")) == "~NoToolCalls & CalledTool('x')"


@pytest.mark.parametrize(
    ("build", "error", "pattern"),
    [
        (lambda: CalledTool(""), ValueError, r"CalledTool\(\) got an empty tool name"),
        (lambda: CalledTool(None), TypeError, r"needs the tool name as a str"),
        (lambda: CalledTool("f", args=[1]), TypeError, r"must be a dict .* or a callable"),
        (lambda: CalledTool("f", exact=True), ValueError, r"exact=True\) compares the arguments"),
        (lambda: CalledTool("f", args={1: "a"}), TypeError, r"keys must be argument names"),
    ],
)
def test_bad_arguments_are_errors(build, error, pattern) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(error, match=pattern):
        build()


# --- issue 45 item 2: argument matchers that raise or answer something else than a bool --------


def test_a_matcher_that_raises_is_an_error_naming_the_check_the_call_and_the_matcher() -> None:
    output = chat(("issue_refund", '{"order_id": "A17"}'))

    def under_50(arguments: Any) -> bool:
        return bool(arguments["amount"] <= 50)

    check = CalledTool("issue_refund", args=under_50)
    with pytest.raises(ValueError) as caught:
        decide(check, output)
    message = str(caught.value)
    assert "CalledTool('issue_refund', args=" in message
    assert 'issue_refund({"order_id": "A17"})' in message
    assert "under_50 (test_checks_tools.py, line " in message
    assert "raised KeyError: 'amount'" in message
    assert isinstance(caught.value.__cause__, KeyError)
    value_check = CalledTool("issue_refund", args={"order_id": lambda v: v.startswith(1)})
    with pytest.raises(ValueError, match=r"raised TypeError.*on the argument 'order_id' of"):
        decide(value_check, output)


@pytest.mark.parametrize("answer", ["nope", None, 1, [True]])
def test_a_matcher_answering_something_else_than_a_bool_is_an_error(answer: object) -> None:
    output = chat(("issue_refund", '{"order_id": "A17"}'))
    for check in (
        CalledTool("issue_refund", args=lambda _: answer),
        CalledTool("issue_refund", args={"order_id": lambda _: answer}),
    ):
        with pytest.raises(TypeError, match=r"answered .*, not True or False"):
            decide(check, output)


def test_dirty_equals_matchers_and_bool_answers_keep_working() -> None:
    from dirty_equals import IsPartialDict, IsStr

    output = chat(("issue_refund", '{"order_id": "A17", "meta": {"a": 1, "b": 2}}'))
    assert decide(CalledTool("issue_refund", args={"order_id": IsStr(regex="A.*")}), output)[0]
    assert decide(CalledTool("issue_refund", args={"meta": IsPartialDict(a=1)}), output)[0]
    assert not decide(CalledTool("issue_refund", args=lambda a: "amount" in a), output)[0]


# --- issue 43 section 3: the argument and call vocabulary --------------------------------------


def test_glob_tool_names() -> None:
    output = chat(("search_web", '{"q": "A17"}'), ("search_docs", '{"q": "refund"}'))
    assert decide(CalledTool("search_*", args={"q": "refund"}), output) == (
        True,
        'called search_docs({"q": "refund"})',
    )
    assert not decide(CalledTool("delete_*"), output)[0]
    assert not decide(CalledTool("search"), output)[0]  # no pattern: the exact name
    assert repr(CalledTool("search_*")) == "CalledTool('search_*')"


def test_nested_arguments_match_as_a_subset_and_name_what_they_leave_out() -> None:
    output = chat(("create_ticket", '{"customer": {"id": 7, "email": "a@b.c"}, "tags": ["x"]}'))
    check = CalledTool("create_ticket", args={"customer": {"id": 7}})
    assert decide(check, output) == (
        True,
        (
            'called create_ticket({"customer": {"id": 7, "email": "a@b.c"}, "tags": ["x"]}); '
            "'customer.email', 'tags' not in args="
        ),
    )
    assert not decide(CalledTool("create_ticket", args={"customer": {"id": 8}}), output)[0]
    exact = CalledTool("create_ticket", args={"customer": {"id": 7}, "tags": ["x"]}, exact=True)
    assert not decide(exact, output)[0]  # exact is exact all the way down


def test_ignore_leaves_volatile_keys_out_of_exact_matching() -> None:
    output = chat(("issue_refund", '{"order_id": "A17", "request_id": "f81d4fae"}'))
    check = CalledTool("issue_refund", args={"order_id": "A17"}, exact=True, ignore=["request_id"])
    assert decide(check, output)[0]
    assert repr(check) == (
        "CalledTool('issue_refund', args={'order_id': 'A17'}, exact=True, ignore=['request_id'])"
    )
    other = chat(("issue_refund", '{"order_id": "A17", "amount": 5}'))
    assert decide(check, other) == (
        False,
        'issue_refund({"order_id": "A17", "amount": 5}): unexpected \'amount\' (exact=True)',
    )
    with pytest.raises(ValueError, match=r"ignore= leaves keys out of exact=True matching"):
        CalledTool("issue_refund", args={"order_id": "A17"}, ignore=["request_id"])
    with pytest.raises(ValueError, match=r"'order_id' is both in args= and in ignore="):
        CalledTool("issue_refund", args={"order_id": "A17"}, exact=True, ignore=["order_id"])


def test_calls_are_selected_by_kind_and_server() -> None:
    from semantix.outputs import OutputView, ToolCall

    view = OutputView(
        None,
        (
            ToolCall("search", {"q": "x"}, kind="mcp", server="docs"),
            ToolCall("web_search", {"q": "y"}, kind="provider"),
        ),
    )
    assert CalledTool("search", kind="mcp", server="docs").decide(view).passed
    assert not CalledTool("search", kind="mcp", server="tickets").decide(view).passed
    assert not CalledTool("search", kind="function").decide(view).passed
    assert CalledTool("*", kind="provider").decide(view).passed  # any tool the provider ran
    assert evaluate_semantic(view, ~CalledTool("*", kind="mcp", server="billing")).passed
    assert repr(CalledTool("search", kind="mcp", server="docs")) == (
        "CalledTool('search', kind='mcp', server='docs')"
    )
    with pytest.raises(
        ValueError, match=r"kind='tool'\) must be one of 'function', 'mcp', 'provider'"
    ):
        CalledTool("search", kind="tool")
    with pytest.raises(ValueError, match=r"server= names an MCP server: use it with kind='mcp'"):
        CalledTool("search", kind="function", server="docs")


def test_a_tool_result_content_is_matched() -> None:
    from semantix.outputs import OutputView, Step, ToolCall, ToolResult

    call = ToolCall("lookup_order", {"order_id": "A17"}, id="c1")
    view = OutputView(
        "Delivered.",
        (call,),
        steps=(
            Step("assistant", None, (call,)),
            Step("tool", None, (), (ToolResult(call, '{"status": "delivered"}'),)),
            Step("assistant", "Delivered."),
        ),
    )
    assert CalledTool("lookup_order", result="delivered").decide(view).passed
    assert CalledTool("lookup_order", result={"status": "delivered"}).decide(view).passed
    assert CalledTool("lookup_order", result=lambda text: "deliv" in text).decide(view).passed
    verdict = CalledTool("lookup_order", result="refunded").decide(view)
    assert (verdict.passed, verdict.reason) == (
        False,
        (
            'lookup_order({"order_id": "A17"}): its result \'{"status": "delivered"}\' does not '
            "contain 'refunded'"
        ),
    )
    unanswered = OutputView(None, (call,), steps=(Step("assistant", None, (call,)),))
    verdict = CalledTool("lookup_order", result="delivered").decide(unanswered)
    assert verdict.reason.endswith("no result recorded")


def test_a_matcher_object_whose_eq_answers_a_non_bool_or_raises_is_an_error() -> None:
    class Loose:
        def __eq__(self, other: object) -> Any:
            return "yes"

    class Broken:
        def __eq__(self, other: object) -> bool:
            raise KeyError("currency")

    class Picky:  # TypeError and ValueError are "not equal", as dirty-equals has it
        def __eq__(self, other: object) -> bool:
            raise TypeError("not comparable")

    output = chat(("issue_refund", '{"amount": 20}'))
    with pytest.raises(
        TypeError, match=r"the matcher .*Loose.* answered 'yes' \(str\) on the argument 'amount'"
    ):
        decide(CalledTool("issue_refund", args={"amount": Loose()}), output)
    with pytest.raises(ValueError, match=r"raised KeyError: 'currency' on the argument 'amount'"):
        decide(CalledTool("issue_refund", args={"amount": Broken()}), output)
    assert not decide(CalledTool("issue_refund", args={"amount": Picky()}), output)[0]
