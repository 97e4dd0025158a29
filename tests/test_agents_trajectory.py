"""ToolCalls and AnyOrder (issue 35): each order and extra mode on every transcript format, the
reported bugs of other tools (each a case their rule gets wrong), the reasons, bad arguments."""

from __future__ import annotations

from typing import Any

import pytest
from dirty_equals import IsPositiveInt, IsStr

from agent_runs import (
    REFUND,
    anthropic_run,
    completion,
    langchain_run,
    openai_run,
    openai_stream,
    responses_run,
)
from semantix import evaluate_semantic
from semantix.agents import AnyOrder, ToolCalls, ToolSucceeded
from semantix.checks import CalledTool, Contains
from semantix.outputs import output_view

LOOKUP_CALL = CalledTool("lookup_order", args={"order_id": "A17"})
REFUND_CALL = CalledTool("issue_refund", args={"order_id": "A17"})


def decide(check: Any, output: object) -> tuple[bool, str]:
    verdict = check.decide(output_view(output))
    assert verdict.score == (1.0 if verdict.passed else 0.0)
    return verdict.passed, verdict.reason


def run(*steps: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """A transcript whose assistant steps make these calls (a list per step: parallel calls)."""
    messages: list[Any] = [{"role": "user", "content": "Go."}]
    number = 0
    for calls in steps:
        made = []
        for name, arguments in calls:
            number += 1
            made.append((f"call_{number}", name, arguments))
        messages.append(completion(None, *made).choices[0].message)
        messages.extend({"role": "tool", "tool_call_id": i, "content": "ok"} for i, _, _ in made)
    messages.append({"role": "assistant", "content": "Done."})
    return messages


@pytest.mark.parametrize(
    "transcript",
    [openai_run(), anthropic_run(), responses_run(), langchain_run()],
    ids=["openai", "anthropic", "responses", "langchain"],
)
def test_the_two_step_agent_in_every_format(transcript: list[Any]) -> None:
    assert decide(ToolCalls(LOOKUP_CALL, REFUND_CALL), transcript) == (
        True,
        (
            "the 2 expected calls were made, in order; arguments no expected call names: "
            "issue_refund: 'amount'"
        ),
    )
    assert not decide(ToolCalls(REFUND_CALL, LOOKUP_CALL), transcript)[0]
    assert decide(ToolCalls(REFUND_CALL, LOOKUP_CALL, order="any_order"), transcript)[0]
    assert not decide(ToolCalls(REFUND_CALL), transcript)[0]
    assert decide(ToolCalls(REFUND_CALL, extra="allow"), transcript)[0]


def test_in_order_forbid_shows_the_aligned_sequences_and_the_first_mismatch() -> None:
    transcript = run(
        [("lookup_order", {"order_id": "A17"})], [("issue_refund", {"order_id": "B2"})]
    )
    passed, reason = decide(ToolCalls(LOOKUP_CALL, REFUND_CALL), transcript)
    assert not passed
    assert reason == (
        "call 2 issue_refund({\"order_id\": \"B2\"}): 'order_id' is 'B2', expected 'A17'\n"
        "        expected                      actual\n"
        '     1  lookup_order(order_id=\'A17\')  lookup_order({"order_id": "A17"})\n'
        '  >  2  issue_refund(order_id=\'A17\')  issue_refund({"order_id": "B2"})'
    )


def test_a_missing_call_and_a_trailing_extra_call() -> None:
    transcript = run([("lookup_order", {"order_id": "A17"})])
    passed, reason = decide(ToolCalls(LOOKUP_CALL, REFUND_CALL), transcript)
    assert not passed
    assert reason.splitlines()[0] == (
        "issue_refund(order_id='A17') was not called (no call after call 1)"
    )
    assert reason.splitlines()[-1] == "  >  2  issue_refund(order_id='A17')  -"
    passed, reason = decide(
        ToolCalls(LOOKUP_CALL), run([("lookup_order", LOOKUP_ARGS)], [("escalate", {})])
    )
    assert (passed, reason.splitlines()[0]) == (False, "call 2 is not expected: escalate({})")
    assert reason.splitlines()[-1] == "  >     -                             escalate({})"


LOOKUP_ARGS = {"order_id": "A17"}


# --- the reported bugs of other tools --------------------------------------------------------


def test_duplicate_calls_count() -> None:
    """ragas #1658: a duplicated call scored 1.0 (a set of names matched). Each expected call
    takes one actual call, so a second refund is an extra call, and two expected refunds need
    two calls."""
    twice = run([("issue_refund", REFUND)], [("issue_refund", REFUND)])
    passed, reason = decide(ToolCalls(REFUND_CALL), twice)
    assert (passed, reason.splitlines()[0]) == (
        False,
        'call 2 is not expected: issue_refund({"order_id": "A17", "amount": 20})',
    )
    assert decide(ToolCalls(REFUND_CALL, REFUND_CALL), twice)[0]
    once = run([("issue_refund", REFUND)])
    passed, reason = decide(ToolCalls(REFUND_CALL, REFUND_CALL, order="any_order"), once)
    assert (passed, reason.splitlines()[0]) == (
        False,
        (
            "issue_refund(order_id='A17') was not called often enough: its calls (1) are taken by "
            "other expected calls (each expected call takes one call)"
        ),
    )


def test_swapped_parallel_calls_match_an_any_order_group() -> None:
    """ragas #1658: parallel calls made in the other order scored 0 under a strict order."""
    swapped = run([("send_email", {"to": "me"}), ("issue_refund", REFUND)])
    email = CalledTool("send_email")
    assert not decide(ToolCalls(REFUND_CALL, email), swapped)[0]  # strict order: they differ
    assert decide(ToolCalls(AnyOrder(REFUND_CALL, email)), swapped) == (
        True,
        (
            "the 2 expected calls were made, in order; arguments no expected call names: "
            "issue_refund: 'amount'"
        ),
    )


def test_extra_calls_are_not_ignored() -> None:
    """ragas #1893: calls beyond the expected ones did not lower the score."""
    transcript = run(
        [("lookup_order", LOOKUP_ARGS)], [("delete_account", {})], [("issue_refund", REFUND)]
    )
    passed, reason = decide(ToolCalls(LOOKUP_CALL, REFUND_CALL), transcript)
    assert (passed, reason.splitlines()[0]) == (
        False,
        "call 2: expected issue_refund(order_id='A17'), got delete_account({})",
    )
    passed, reason = decide(ToolCalls(LOOKUP_CALL, REFUND_CALL, extra="allow"), transcript)
    assert passed
    assert "other calls (extra='allow'): delete_account({})" in reason  # allowed, but listed
    passed, reason = decide(ToolCalls(REFUND_CALL, LOOKUP_CALL, order="any_order"), transcript)
    assert (passed, reason.splitlines()[0]) == (False, "call 2 is not expected: delete_account({})")


def test_a_hallucinated_argument_is_visible_and_exact_rejects_it() -> None:
    """promptfoo #9458: exact matching is too brittle, and partial matching let a hallucinated
    ``delete_database: true`` pass unseen. Subset matching passes, naming the argument; exact
    fails on it."""
    transcript = run([("issue_refund", {"order_id": "A17", "delete_database": True})])
    passed, reason = decide(ToolCalls(REFUND_CALL), transcript)
    assert (passed, reason) == (
        True,
        (
            "the 1 expected call was made, in order; arguments no expected call names: "
            "issue_refund: 'delete_database'"
        ),
    )
    exact = CalledTool("issue_refund", args={"order_id": "A17"}, exact=True)
    passed, reason = decide(ToolCalls(exact), transcript)
    assert not passed
    assert "unexpected 'delete_database' (exact=True)" in reason.splitlines()[0]


def test_calls_in_one_turn_are_one_group() -> None:
    """promptfoo #9463: calls made in parallel, in one turn, could not be expressed. AnyOrder
    means made together in one step; the same calls in two steps do not match it."""
    email = CalledTool("send_email")
    parallel = run([("lookup_order", LOOKUP_ARGS)], [("send_email", {}), ("issue_refund", REFUND)])
    assert decide(ToolCalls(LOOKUP_CALL, AnyOrder(REFUND_CALL, email)), parallel)[0]
    apart = run([("lookup_order", LOOKUP_ARGS)], [("send_email", {})], [("issue_refund", REFUND)])
    passed, reason = decide(ToolCalls(LOOKUP_CALL, AnyOrder(REFUND_CALL, email)), apart)
    assert not passed
    assert reason.splitlines()[0] == (
        "AnyOrder(issue_refund(order_id='A17'), send_email) was not made in one step from call 2 "
        'on; calls: send_email({}) (step 4), issue_refund({"order_id": "A17", "amount": 20}) '
        "(step 6)"
    )
    passed, reason = decide(
        ToolCalls(AnyOrder(REFUND_CALL, email), LOOKUP_CALL, order="any_order"), apart
    )
    assert (passed, reason.splitlines()[0]) == (
        False,
        "issue_refund(order_id='A17') was not made in one step with the rest of its AnyOrder group",
    )
    allowed = ToolCalls(AnyOrder(REFUND_CALL, email), extra="allow")
    assert decide(allowed, parallel)[0]
    assert not decide(allowed, apart)[0]


# --- matching details --------------------------------------------------------------------------


def test_argument_values_may_be_matchers_or_functions() -> None:
    transcript = run([("issue_refund", {"order_id": "A17", "amount": 20, "note": "late"})])
    matching = CalledTool(
        "issue_refund",
        args={"order_id": IsStr(regex=r"A\d+"), "amount": IsPositiveInt, "note": lambda v: v != ""},
    )
    assert decide(ToolCalls(matching), transcript)[0]
    assert decide(matching, transcript)[0]
    wrong = CalledTool("issue_refund", args={"order_id": IsStr(regex=r"B\d+")})
    passed, reason = decide(wrong, transcript)
    assert (passed, reason) == (
        False,
        (
            'issue_refund({"order_id": "A17", "amount": 20, "note": "late"}): \'order_id\' is '
            "'A17', expected IsStr(regex='B\\\\d+')"
        ),
    )


def test_in_order_with_extras_finds_a_match_whenever_one_exists() -> None:
    """The earliest fit of each expected call never blocks a later one."""
    transcript = run(
        [("lookup_order", {"order_id": "B2"})],
        [("lookup_order", LOOKUP_ARGS)],
        [("issue_refund", REFUND)],
        [("lookup_order", LOOKUP_ARGS)],
    )
    check = ToolCalls(LOOKUP_CALL, REFUND_CALL, LOOKUP_CALL, extra="allow")
    passed, reason = decide(check, transcript)
    assert passed
    assert 'other calls (extra=\'allow\'): lookup_order({"order_id": "B2"})' in reason
    passed, reason = decide(
        ToolCalls(REFUND_CALL, LOOKUP_CALL, REFUND_CALL, extra="allow"), transcript
    )
    assert (passed, reason.splitlines()[0]) == (
        False,
        (
            "issue_refund(order_id='A17') was not called after call 4; it was called before, as "
            "call 3 (order='in_order')"
        ),
    )


def test_any_order_is_a_maximum_matching() -> None:
    """A greedy pick would give the specific expectation's only call to the general one."""
    transcript = run([("issue_refund", REFUND)], [("issue_refund", {"order_id": "B2"})])
    general, specific = (
        CalledTool("issue_refund"),
        CalledTool("issue_refund", args={"order_id": "B2"}),
    )
    assert decide(ToolCalls(general, specific, order="any_order"), transcript)[0]
    assert decide(ToolCalls(general, specific, order="any_order", extra="allow"), transcript)[0]


def test_no_calls_expected() -> None:
    assert decide(ToolCalls(), "Just text.") == (True, "no tool calls were made")
    passed, reason = decide(ToolCalls(), openai_run())
    assert (passed, reason.splitlines()[0]) == (
        False,
        'call 1 is not expected: lookup_order({"order_id": "A17"})',
    )


def test_a_single_response_and_a_stream_are_one_step() -> None:
    parallel = completion(None, ("c1", "issue_refund", REFUND), ("c2", "send_email", {}))
    assert decide(ToolCalls(AnyOrder(CalledTool("send_email"), REFUND_CALL)), parallel)[0]
    both = (LOOKUP_CALL, CalledTool("issue_refund", args=REFUND))
    assert decide(ToolCalls(AnyOrder(*both)), openai_stream())[0]
    passed, reason = decide(ToolCalls(*both), openai_stream())  # one message: made together
    assert (passed, reason.splitlines()[0]) == (
        False,
        (
            'calls 1, 2 were made together in one step (step 1): lookup_order({"order_id": '
            '"A17"}), issue_refund({"order_id": "A17", "amount": 20}); order=\'in_order\' means '
            "separate steps in this order: expect calls made together as AnyOrder(...)"
        ),
    )


def test_names_descriptions_and_composition() -> None:
    check = ToolCalls(LOOKUP_CALL, AnyOrder(REFUND_CALL, CalledTool("send_email")), extra="allow")
    assert repr(check) == (
        "ToolCalls(lookup_order(order_id='A17'), AnyOrder(issue_refund(order_id='A17'), "
        "send_email), extra='allow')"
    )
    assert check.description == (
        "The model made at least these tool calls, in this order, each in a later step: "
        "lookup_order(order_id='A17'), "
        "AnyOrder(issue_refund(order_id='A17'), send_email)."
    )
    result = evaluate_semantic(
        openai_run(), ToolCalls(LOOKUP_CALL, REFUND_CALL) & ~Contains("sorry")
    )
    assert not result.passed  # the final reply apologizes
    assert [leaf.passed for leaf in result.leaves] == [True, False]


@pytest.mark.parametrize(
    ("build", "error", "pattern"),
    [
        (
            lambda: ToolCalls(order="sorted"),
            ValueError,
            r"ToolCalls\(order='sorted'\) must be one of 'in_order', 'any_order'",
        ),
        (lambda: ToolCalls(extra="ignore"), ValueError, r"must be one of 'forbid', 'allow'"),
        (lambda: ToolCalls(extra="allow"), ValueError, r"passes on every output"),
        (
            lambda: ToolCalls("lookup_order"),
            TypeError,
            r"ToolCalls\(\) takes CalledTool\(...\) leaves and AnyOrder",
        ),
        (lambda: ToolCalls(Contains("x")), TypeError, r"got Contains\('x'\)"),
        (lambda: ToolCalls(ToolSucceeded("x")), TypeError, r"got ToolSucceeded\('x'\)"),
        (lambda: AnyOrder(), ValueError, r"AnyOrder\(\) needs the calls"),
        (lambda: AnyOrder(AnyOrder(CalledTool("a"))), TypeError, r"groups do not nest"),
        (
            lambda: AnyOrder(CalledTool("a")) & CalledTool("b"),
            TypeError,
            r"AnyOrder\(CalledTool\('a'\)\) is a group of calls made together inside ToolCalls",
        ),
        (
            lambda: ~AnyOrder(CalledTool("a")),
            TypeError,
            r"not an intent of its own: write ToolCalls\(..., AnyOrder",
        ),
        (
            lambda: CalledTool("b") | AnyOrder(CalledTool("a")),
            TypeError,
            r"got AnyOrder AnyOrder\(CalledTool\('a'\)\)",
        ),
    ],
)
def test_bad_arguments_are_errors(build: Any, error: type[Exception], pattern: str) -> None:
    with pytest.raises(error, match=pattern):
        build()


def test_an_any_order_group_outside_tool_calls_is_an_error_at_the_call() -> None:
    with pytest.raises(TypeError, match=r"intent must be an Intent class .* got AnyOrder"):
        evaluate_semantic(openai_run(), AnyOrder(CalledTool("a")))  # type: ignore[arg-type]


def test_arguments_that_are_not_json_never_match() -> None:
    messages: list[Any] = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c",
                    "type": "function",
                    "function": {"name": "issue_refund", "arguments": "{oops"},
                }
            ],
        },
    ]
    passed, reason = decide(ToolCalls(REFUND_CALL), messages)
    assert not passed
    assert reason.splitlines()[0] == (
        "call 1 issue_refund(<arguments are not a JSON object: '{oops'>): its arguments are not "
        "a JSON object"
    )


# --- issue 43 section 3: in order means separate steps; agentevals' modes ----------------------


def test_in_order_means_separate_steps_in_that_order() -> None:
    """Two calls made in parallel (one step) are not "a, then b": before, ToolCalls(a, b)
    passed on them."""
    email = CalledTool("send_email")
    parallel = run([("issue_refund", REFUND), ("send_email", {})])
    passed, reason = decide(ToolCalls(REFUND_CALL, email), parallel)
    assert not passed
    assert reason.startswith("calls 1, 2 were made together in one step (step 2)")
    passed, reason = decide(ToolCalls(REFUND_CALL, email, extra="allow"), parallel)
    assert (passed, reason.splitlines()[0]) == (
        False,
        (
            "send_email was made in the same step as the expected call before it (calls 1 and 2, "
            "step 2), not after it: order='in_order' means separate steps in this order; expect "
            "calls made together as AnyOrder(...)"
        ),
    )
    assert decide(ToolCalls(AnyOrder(REFUND_CALL, email)), parallel)[0]
    apart = run([("issue_refund", REFUND)], [("send_email", {})])
    assert decide(ToolCalls(REFUND_CALL, email), apart)[0]


MODE_CASES = [  # (calls per step, expected, the result in each mode)
    ([[("a", {})], [("b", {})]], ["a", "b"], {"strict": 1, "unordered": 1, "subset": 1, "superset": 1}),
    ([[("b", {})], [("a", {})]], ["a", "b"], {"strict": 0, "unordered": 1, "subset": 1, "superset": 1}),
    ([[("a", {})]], ["a", "b"], {"strict": 0, "unordered": 0, "subset": 1, "superset": 0}),
    ([[("a", {})], [("b", {})], [("c", {})]], ["a", "b"], {"strict": 0, "unordered": 0, "subset": 0, "superset": 1}),
    ([[("a", {})], [("a", {})]], ["a"], {"strict": 0, "unordered": 0, "subset": 0, "superset": 1}),
    ([[("a", {})], [("a", {})]], ["a", "a"], {"strict": 1, "unordered": 1, "subset": 1, "superset": 1}),
    ([[("c", {})]], ["a", "b"], {"strict": 0, "unordered": 0, "subset": 0, "superset": 0}),
]  # fmt: skip


@pytest.mark.parametrize(("steps", "expected", "outcomes"), MODE_CASES)
def test_the_agentevals_modes_map_to_order_extra_and_missing(
    steps: list[list[tuple[str, dict[str, Any]]]], expected: list[str], outcomes: dict[str, int]
) -> None:
    transcript = run(*steps)
    checks = [CalledTool(name) for name in expected]
    for mode, outcome in outcomes.items():
        assert decide(ToolCalls(*checks, mode=mode), transcript)[0] is bool(outcome), mode
    spelled = {
        "strict": {},
        "unordered": {"order": "any_order"},
        "subset": {"order": "any_order", "missing": "allow"},
        "superset": {"order": "any_order", "extra": "allow"},
    }
    for mode, options in spelled.items():
        assert decide(ToolCalls(*checks, **options), transcript)[0] is bool(outcomes[mode]), mode


def test_subset_names_the_call_outside_the_expected_ones_and_in_order_subsets() -> None:
    transcript = run([("lookup_order", LOOKUP_ARGS)], [("delete_account", {})])
    passed, reason = decide(ToolCalls(LOOKUP_CALL, REFUND_CALL, mode="subset"), transcript)
    assert (passed, reason.splitlines()[0]) == (False, "call 2 is not expected: delete_account({})")
    passed, reason = decide(
        ToolCalls(LOOKUP_CALL, REFUND_CALL, mode="subset"), run([("lookup_order", LOOKUP_ARGS)])
    )
    assert passed
    assert reason == (
        "every call made is one of the 2 expected, in any order; expected calls not made "
        "(missing='allow'): issue_refund(order_id='A17')"
    )
    in_order = ToolCalls(LOOKUP_CALL, REFUND_CALL, missing="allow")
    assert decide(in_order, run([("issue_refund", REFUND)]))[0]
    assert not decide(in_order, run([("issue_refund", REFUND)], [("lookup_order", LOOKUP_ARGS)]))[0]
    assert repr(ToolCalls(LOOKUP_CALL, mode="subset")) == (
        "ToolCalls(lookup_order(order_id='A17'), mode='subset')"
    )


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        (
            {"mode": "exact"},
            r"mode='exact'\) must be one of 'strict', 'unordered', 'subset', 'superset'",
        ),
        ({"mode": "subset", "order": "in_order"}, r"mode= sets order, extra and missing"),
        ({"missing": "some"}, r"missing='some'\) must be one of 'forbid', 'allow'"),
        ({"extra": "allow", "missing": "allow"}, r"passes on every output"),
    ],
)
def test_bad_modes_are_errors(kwargs: dict[str, Any], pattern: str) -> None:
    with pytest.raises(ValueError, match=pattern):
        ToolCalls(CalledTool("a"), **kwargs)


# --- issue 44: matching is iterative and near-linear ---------------------------------------------


def long_run(count: int, tools: int = 5, together: int = 1) -> Any:
    """A looping agent's view: ``count`` calls of ``tools`` tools, ``together`` per step."""
    from semantix.outputs import OutputView, Step, ToolCall

    calls = [ToolCall(f"tool_{j % tools}", {"n": j % 3}) for j in range(count)]
    steps = tuple(
        Step("assistant", None, tuple(calls[j : j + together])) for j in range(0, count, together)
    )
    return OutputView("Done.", tuple(calls), steps=steps)


def test_1100_expected_calls_in_any_order_match_without_recursion() -> None:
    """Before: a bare RecursionError (one recursion per call)."""
    view = long_run(1100)
    same = [CalledTool(f"tool_{j % 5}") for j in range(1100)]  # 1,100 distinct classes
    for order in ("any_order", "in_order"):
        assert ToolCalls(*same, order=order).decide(view).passed, order
        assert ToolCalls(*reversed(same), order="any_order").decide(view).passed
    verdict = ToolCalls(*same[:-1], CalledTool("tool_9"), order="any_order").decide(view)
    assert not verdict.passed
    assert verdict.reason.splitlines()[0] == "tool_9 was not called"
    assert len(verdict.reason.splitlines()) < 20  # the table shows the rows around the mismatch


def test_a_maximum_matching_where_greedy_fails_at_scale() -> None:
    view = long_run(3000, tools=1)  # 3,000 calls of tool_0 with n = 0, 1, 2
    specific = [CalledTool("tool_0", args={"n": j % 3}) for j in range(2000)]
    general = [CalledTool("tool_0")] * 1000
    assert ToolCalls(*general, *specific, order="any_order").decide(view).passed
    verdict = ToolCalls(*general, *specific, CalledTool("tool_0"), order="any_order").decide(view)
    assert not verdict.passed
    assert "was not called often enough" in verdict.reason.splitlines()[0]


def test_many_any_order_groups() -> None:
    view = long_run(2000, tools=2, together=2)
    group = AnyOrder(CalledTool("tool_1"), CalledTool("tool_0"))
    assert ToolCalls(*[group] * 1000, order="any_order").decide(view).passed
    assert ToolCalls(*[group] * 1000).decide(view).passed
    assert not ToolCalls(*[group] * 1001, order="any_order").decide(view).passed


# --- issue 43: a tool message without tool_call_id ---------------------------------------------


def test_a_tool_message_without_an_id_answers_the_one_open_call() -> None:
    """agentevals' own tests write tool messages without ``tool_call_id`` (and calls without
    ``id``): the message answers the one call still waiting for a result."""
    for call in (
        {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}},
        {"function": {"name": "lookup", "arguments": "{}"}},  # agentevals: no id, no type
    ):
        messages = [
            {"role": "user", "content": "Where is A17?"},
            {"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "content": "delivered"},
            {"role": "assistant", "content": "It was delivered."},
        ]
        view = output_view(messages)
        (result,) = view.steps[2].tool_results
        assert result.call is view.tool_calls[0]
        assert result.content == "delivered"
        assert decide(ToolCalls(CalledTool("lookup", result="delivered")), messages)[0]


def test_a_tool_message_without_an_id_and_two_open_calls_is_an_error() -> None:
    """Ambiguous: two calls wait for a result, so which one this answers cannot be known (results
    need not come in the order of the calls: pairing them by guess could pin an error or a
    result on the wrong call)."""
    calls = [
        {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}},
        {"id": "c2", "type": "function", "function": {"name": "refund", "arguments": "{}"}},
    ]
    messages = [
        {"role": "user", "content": "Refund A17"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        {"role": "tool", "content": "done"},
    ]
    with pytest.raises(ValueError, match=r"messages\[2\] .*2 calls wait.*which one it answers"):
        output_view(messages)


def test_a_tool_message_without_an_id_and_no_open_call_is_an_error() -> None:
    messages = [
        {"role": "user", "content": "Refund A17"},
        {"role": "assistant", "content": "On it."},
        {"role": "tool", "content": "done"},
    ]
    with pytest.raises(ValueError, match=r"messages\[2\] .*id of the call it answers"):
        output_view(messages)


def test_nothing_expected_in_any_order_fails_on_a_call_instead_of_crashing() -> None:
    """promptfoo's tool-call-f1 with no expected tool: any-order matching of nothing against a
    call raised IndexError (the table of expected kinds took its first slot)."""
    from semantix.agents import ToolCallScore

    made = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"function": {"name": "gw", "arguments": "{}"}}],
        }
    ]
    for check in (
        ToolCalls(order="any_order"),
        ToolCalls(mode="unordered"),
        ToolCalls(mode="subset"),
    ):
        assert not evaluate_semantic(made, check).passed
    verdict = evaluate_semantic(made, ToolCallScore(threshold=0.5)).leaves[0].verdict
    assert (verdict.passed, verdict.score) == (False, 0.0)


# --- issue 43: counting calls, picking calls, partial credit -------------------------------------


def test_call_count_in_all_or_of_one_tool() -> None:
    from semantix.agents import CallCount

    looping = run(
        [("search_web", {"q": "a"})],
        [("search_web", {"q": "b"})],
        [("search_docs", {"q": "c"})],
        [("issue_refund", REFUND)],
    )
    verdict = CallCount(max=3).decide(output_view(looping))
    assert (verdict.passed, verdict.reason) == (False, "4 calls, more than the maximum 3")
    verdict = CallCount("search_*", max=2).decide(output_view(looping))
    assert (verdict.passed, verdict.reason) == (
        False,
        (
            '3 calls of search_*, more than the maximum 2: search_web({"q": "a"}), '
            'search_web({"q": "b"}), search_docs({"q": "c"})'
        ),
    )
    assert CallCount("issue_refund", min=1, max=1).decide(output_view(looping)).passed
    by_args = CallCount(CalledTool("search_web", args={"q": "a"}), max=1)
    assert by_args.decide(output_view(looping)).reason == (
        "1 call of search_web(q='a') (at most 1)"
    )
    assert repr(CallCount("search_*", max=2)) == "CallCount('search_*', max=2)"
    assert CallCount(max=0).description == "The run made at most 0 tool calls."
    with pytest.raises(ValueError, match=r"CallCount\(\) needs max= or min="):
        CallCount("x")
    with pytest.raises(TypeError, match=r"CallCount\(\) counts the calls of a tool"):
        CallCount(Contains("x"), max=1)


def test_picking_the_first_last_or_nth_call() -> None:
    from semantix.agents import Call

    transcript = run([("lookup_order", LOOKUP_ARGS)], [("issue_refund", REFUND)])
    view = output_view(transcript)
    assert Call(0, LOOKUP_CALL).decide(view).reason == (
        'call 1 of 2: lookup_order({"order_id": "A17"})'
    )
    assert Call(-1, REFUND_CALL).decide(view).passed
    verdict = Call(0, REFUND_CALL).decide(view)
    assert (verdict.passed, verdict.reason) == (
        False,
        'call 1 of 2: expected issue_refund(order_id=\'A17\'), got lookup_order({"order_id": "A17"})',
    )
    verdict = Call(2, REFUND_CALL).decide(view)
    assert (verdict.passed, verdict.reason) == (False, "no call 3: the run made 2 calls")
    assert repr(Call(-1, REFUND_CALL)) == "Call(-1, issue_refund(order_id='A17'))"
    with pytest.raises(TypeError, match=r"Call\(index, expected\) needs the index of a call"):
        Call("last", REFUND_CALL)  # type: ignore[arg-type]


def test_one_steps_calls() -> None:
    from semantix.agents import CallCount, StepCalls

    transcript = run(
        [("lookup_order", LOOKUP_ARGS)], [("send_email", {}), ("issue_refund", REFUND)]
    )
    view = output_view(transcript)
    both = StepCalls(1, ToolCalls(AnyOrder(CalledTool("send_email"), REFUND_CALL)))
    verdict = both.decide(view)
    assert (verdict.passed, verdict.reason.split(":")[0]) == (True, "assistant step 2 of 3")
    assert not StepCalls(0, CallCount(min=2)).decide(view).passed
    assert StepCalls(-1, ToolCalls()).decide(view).passed  # the reply makes no call
    assert not StepCalls(5, CalledTool("x")).decide(view).passed
    assert StepCalls(1, CalledTool("issue_refund", result="ok")).decide(view).passed
    with pytest.raises(TypeError, match=r"StepCalls\(\) takes a check of tool calls"):
        StepCalls(0, Contains("x"))


def test_partial_credit_f1_and_order_scores() -> None:
    """promptfoo's tool-call-f1 and pydantic-evals: a score with a threshold, for evaluation."""
    from semantix.agents import ToolCallScore

    transcript = run(
        [("lookup_order", LOOKUP_ARGS)], [("escalate", {})], [("issue_refund", REFUND)]
    )
    view = output_view(transcript)
    email = CalledTool("send_email")
    f1 = ToolCallScore(LOOKUP_CALL, REFUND_CALL, email, threshold=0.6).decide(view)
    assert (f1.passed, round(f1.score, 4)) == (True, 0.6667)
    assert f1.reason == (
        "F1 0.67 (at least 0.60): 2 of the 3 calls made were expected (precision 0.67), 2 of "
        "the 3 expected calls were made (recall 0.67); not made: send_email; not expected: "
        "escalate({})"
    )
    strict = ToolCallScore(LOOKUP_CALL, REFUND_CALL, email, threshold=0.7).decide(view)
    assert (strict.passed, round(strict.score, 4)) == (False, 0.6667)
    ordered = ToolCallScore(REFUND_CALL, LOOKUP_CALL, metric="order", threshold=0.5).decide(view)
    assert (ordered.passed, round(ordered.score, 4)) == (False, 0.4)  # pydantic-evals' F1 of LCS
    assert ordered.reason == (
        "order score 0.40 (at least 0.50): the longest run of expected calls made in their order "
        "is 1, of 3 made (precision 0.33) and 2 expected (recall 0.50), F1 of the two"
    )
    perfect = ToolCallScore(LOOKUP_CALL, CalledTool("escalate"), REFUND_CALL, metric="order")
    assert perfect.decide(view).score == 1.0
    result = evaluate_semantic(transcript, ToolCallScore(LOOKUP_CALL, email, threshold=0.4))
    assert result.passed and result.leaves[0].verdict.score == 0.4
    assert result.leaves[0].threshold == 0.4  # shown against its own threshold, not 1.00
    assert repr(ToolCallScore(LOOKUP_CALL, threshold=0.5)) == (
        "ToolCallScore(lookup_order(order_id='A17'), threshold=0.5)"
    )
    for bad, pattern in (
        ({"threshold": 1.5}, r"threshold=1.5\) must be a number from 0 to 1"),
        ({"metric": "bleu"}, r"metric='bleu'\) must be one of 'f1', 'order'"),
    ):
        with pytest.raises(ValueError, match=pattern):
            ToolCallScore(LOOKUP_CALL, **bad)
    with pytest.raises(TypeError, match=r"metric='order'\) compares sequences"):
        ToolCallScore(AnyOrder(LOOKUP_CALL, email), metric="order")


def test_the_order_score_is_the_longest_common_subsequence() -> None:
    """The bit-parallel LCS against the textbook table, on random runs."""
    import random

    from semantix.agents._scores import common_run

    rng = random.Random(7)
    for _ in range(200):
        m, n = rng.randint(0, 12), rng.randint(0, 12)
        fits = [[rng.random() < 0.3 for _ in range(m)] for _ in range(n)]
        table = [[0] * (m + 1) for _ in range(n + 1)]
        for i in range(n):
            for j in range(m):
                table[i + 1][j + 1] = (
                    table[i][j] + 1 if fits[i][j] else max(table[i][j + 1], table[i + 1][j])
                )
        masks = [sum(1 << j for j in range(m) if row[j]) for row in fits]
        assert common_run(masks, m) == table[n][m]


def test_the_trajectory_benchmark_prints_every_figure() -> None:
    """A smoke run of scripts/bench-trajectory (no timing asserted: figures, not tests)."""
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parent.parent / "scripts" / "bench-trajectory"
    done = subprocess.run(
        [sys.executable, str(script), "--quick"],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    labels = [line.split()[0] for line in done.stdout.splitlines()]
    assert labels[0] == "check_20_us" and labels[-1] == "slowest_1000_ms"
    assert "distinct_args_unordered_1000_ms" in labels and len(labels) == 10


def test_a_group_that_took_a_call_a_single_call_needed_is_placed_again() -> None:
    """The group fits both steps; in the first it would take the only x(k=1) call."""
    transcript = run([("x", {}), ("t", {"k": 1})], [("x", {}), ("t", {"k": 2})])
    group = AnyOrder(CalledTool("x"), CalledTool("t"))
    check = ToolCalls(group, CalledTool("t", args={"k": 1}), CalledTool("x"), order="any_order")
    assert decide(check, transcript)[0]
    assert not decide(ToolCalls(group, group, CalledTool("x"), order="any_order"), transcript)[0]
