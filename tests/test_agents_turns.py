"""Turn leaves, Steps, ToolSucceeded / ToolFailed (issue 35): which turn is judged, how the
verdicts of several turns fold, semantic and structural inner intents, the composite rules."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_runs import FINAL, anthropic_run, langchain_run, openai_run, responses_run
from semantix import FakeJudge, Intent, evaluate_semantic
from semantix.agents import (
    AnyTurn,
    EachTurn,
    FinalTurn,
    Steps,
    ToolCalls,
    ToolFailed,
    ToolSucceeded,
    Turn,
    WholeConversation,
)
from semantix.checks import CalledTool, Contains, Length
from semantix.outputs import output_view
from semantix.verdicts import RecordReplayJudge, VerdictStore


class Polite(Intent):
    """The text is polite."""


class Apologizes(Intent):
    """The text apologizes."""

    threshold = 0.3


CONVERSATION = [
    {"role": "system", "content": "You are Max, a cheerful support agent."},
    {"role": "user", "content": "Hi"},
    {"role": "assistant", "content": "Hello, thank you for writing! How can I help?"},
    {"role": "user", "content": "Where is my refund?"},
    {"role": "assistant", "content": "Whatever. Read the manual."},
]


def keywords(output: str, description: str) -> float:
    text = output.lower()
    if "polite" in description.lower():
        return 0.9 if "thank" in text else 0.1
    if "apolog" in description.lower():
        return 0.8 if "sorry" in text else 0.05
    if "refund" in description.lower():
        return 0.95 if "refund" in text else 0.02
    return 0.5


def judge() -> FakeJudge:
    return FakeJudge(keywords)


def reasons(result: Any) -> list[str]:
    return [leaf.verdict.reason for leaf in result.leaves]


def test_final_turn_judges_the_last_reply_not_the_first() -> None:
    """deepeval #1380 graded the first turn where its docs said the last: on this conversation
    the first reply is polite and the last is not, so the first-turn rule passes wrongly."""
    fake = judge()
    result = evaluate_semantic(CONVERSATION, FinalTurn(Polite), judge=fake)
    assert not result.passed
    assert fake.calls == [("Whatever. Read the manual.", "The text is polite.")]
    assert reasons(result) == ["turn 2 of 2: fake score 0.100"]
    # A plain intent on a transcript is judged on the same final reply.
    plain = judge()
    assert not evaluate_semantic(CONVERSATION, Polite, judge=plain).passed
    assert plain.calls == fake.calls


def test_each_turn_asks_once_per_turn_and_the_first_failure_decides() -> None:
    fake = judge()
    result = evaluate_semantic(CONVERSATION, EachTurn(Polite), judge=fake)
    assert [output for output, _ in fake.calls] == [
        "Hello, thank you for writing! How can I help?",
        "Whatever. Read the manual.",
    ]
    assert (result.passed, reasons(result)) == (False, ["turn 2 of 2: fake score 0.100"])
    fake = judge()
    result = evaluate_semantic([*CONVERSATION, *CONVERSATION[1:3]], EachTurn(Polite), judge=fake)
    # issue 43: the message quotes the turn that failed, not (only) the final reply it shows
    assert reasons(result) == ["turn 2 of 3 ('Whatever. Read the manual.'): fake score 0.100"]
    polite = [*CONVERSATION[:4], {"role": "assistant", "content": "Thank you, it left today."}]
    result = evaluate_semantic(
        polite,
        EachTurn(Polite),
        judge=FakeJudge(lambda output, _: 0.95 if "writing" in output else 0.85),
    )
    assert result.passed
    assert reasons(result) == ["turn 2 of 2: fake score 0.850"]  # all pass: the weakest


def test_any_turn_the_first_pass_decides_else_the_strongest() -> None:
    result = evaluate_semantic(CONVERSATION, AnyTurn(Polite), judge=judge())
    first = "turn 1 of 2 ('Hello, thank you for writing! How can I help?')"
    assert (result.passed, reasons(result)) == (True, [f"{first}: fake score 0.900"])
    result = evaluate_semantic(CONVERSATION, AnyTurn(Apologizes), judge=judge())
    assert (result.passed, reasons(result)) == (False, [f"{first}: fake score 0.050"])
    assert result.leaves[0].threshold == 0.3  # the inner intent's own threshold


def test_turn_by_index() -> None:
    assert evaluate_semantic(CONVERSATION, Turn(0, Polite), judge=judge()).passed
    result = evaluate_semantic(CONVERSATION, Turn(-1, Polite), judge=judge())
    assert (result.passed, reasons(result)) == (False, ["turn 2 of 2: fake score 0.100"])
    with pytest.raises(
        ValueError,
        match=r"Turn\(2, Polite\): the output has 2 assistant replies, so there is no reply 2 \(0 to 1, or -2 to -1\)",
    ):
        evaluate_semantic(CONVERSATION, Turn(2, Polite), judge=judge())
    with pytest.raises(TypeError, match="needs the index of an assistant reply as an int"):
        Turn("last", Polite)  # type: ignore[arg-type]


def test_a_turn_is_described_and_reported_with_the_same_number() -> None:
    """issue 43: Turn(1) was described as "Assistant reply 1" while its reason said "turn 2 of
    3"; a failing turn that is not the final reply is quoted."""
    three = [*CONVERSATION, {"role": "user", "content": "?"}]
    three.append({"role": "assistant", "content": "Thank you, it left today."})
    fake = judge()
    result = evaluate_semantic(three, Turn(1, Polite), judge=fake)
    assert Turn(-1, Contains("x")).description.startswith("The final assistant turn: ")
    assert Turn(-2, Contains("x")).description.startswith("Assistant turn 2 from the end: ")
    assert reasons(result) == ["turn 2 of 3 ('Whatever. Read the manual.'): fake score 0.100"]
    structural = evaluate_semantic(three, Turn(1, Contains("thank")))
    assert structural.leaves[0].intent.description == (
        "Assistant turn 2: The text contains 'thank' (ignoring case)."
    )
    assert reasons(structural) == [
        (
            "turn 2 of 3 ('Whatever. Read the manual.'): 'thank' not found (ignoring case) in 26 "
            "characters of text"
        )
    ]
    each = evaluate_semantic(three, EachTurn(Contains("thank")))
    assert reasons(each)[0].startswith("turn 2 of 3 ('Whatever. Read the manual.'): ")


def test_whole_conversation_is_one_role_labelled_text() -> None:
    fake = judge()
    result = evaluate_semantic(CONVERSATION, WholeConversation(Polite), judge=fake)
    assert fake.calls[0][0] == (
        "user: Hi\n"
        "assistant: Hello, thank you for writing! How can I help?\n"
        "user: Where is my refund?\n"
        "assistant: Whatever. Read the manual."
    )
    assert reasons(result) == ["the whole conversation (4 messages): fake score 0.900"]


def test_a_negative_requirement_on_each_turn_means_no_turn_does_it() -> None:
    """judged as NOT its positive statement, the fold turns over: "every turn avoids X" is "no
    turn does X", so the turn that does X decides."""
    fake = judge()
    fake.reads_negation = False  # reads descriptions literally, as the NLI judges do
    check = EachTurn("The text must not mention a refund.")
    result = evaluate_semantic(CONVERSATION, check, judge=fake)
    assert [description for _, description in fake.calls] == ["The text mentions a refund."] * 2
    assert result.passed  # no reply mentions one
    mentions = [*CONVERSATION[:4], {"role": "assistant", "content": "Your refund left today."}]
    fake = judge()
    fake.reads_negation = False
    result = evaluate_semantic(mentions, check, judge=fake)
    assert not result.passed
    assert reasons(result) == ["turn 2 of 2: fake score 0.950"]


def test_structural_inner_intents_are_decided_on_each_turn() -> None:
    result = evaluate_semantic(CONVERSATION, EachTurn(Length(max_words=10)))
    assert (result.passed, reasons(result)) == (
        True,
        [
            "turn 1 of 2 ('Hello, thank you for writing! How can I help?'): 9 words: within at most 10 words"
        ],
    )
    result = evaluate_semantic(CONVERSATION, AnyTurn(Contains("manual") | Contains("sorry")))
    assert result.passed
    assert reasons(result)[0].startswith("turn 2 of 2: Contains('manual'): found 'manual'")
    result = evaluate_semantic(CONVERSATION, FinalTurn(~Contains("whatever")))
    assert (result.passed, reasons(result)) == (
        False,
        ["turn 2 of 2: found 'whatever' at character 0"],
    )


@pytest.mark.parametrize(
    ("check", "name"),
    [
        (FinalTurn(Polite & Apologizes), "FinalTurn(Polite) & FinalTurn(Apologizes)"),
        (FinalTurn(~Polite), "~FinalTurn(Polite)"),
        (EachTurn(~Polite), "~AnyTurn(Polite)"),
        (AnyTurn(~Polite), "~EachTurn(Polite)"),
        (AnyTurn(Polite | Apologizes), "AnyTurn(Polite) | AnyTurn(Apologizes)"),
        (EachTurn(Polite & Contains("x")), "EachTurn(Polite) & EachTurn(Contains('x'))"),
        (Turn(1, ~(Polite | Apologizes)), "~(Turn(1, Polite) | Turn(1, Apologizes))"),
        (EachTurn(Contains("a") | Contains("b")), "EachTurn(Contains('a') | Contains('b'))"),
    ],
)
def test_composites_are_distributed_where_exact(check: Any, name: str) -> None:
    assert check.__name__ == name


def test_the_distributed_checks_mean_what_they_say() -> None:
    """EachTurn(~Polite): no reply is polite; the first reply is, so it fails, on that reply."""
    result = evaluate_semantic(CONVERSATION, EachTurn(~Polite), judge=judge())
    assert not result.passed
    assert reasons(result) == [
        "turn 1 of 2 ('Hello, thank you for writing! How can I help?'): fake score 0.900"
    ]
    assert evaluate_semantic(CONVERSATION, AnyTurn(~Polite), judge=judge()).passed


@pytest.mark.parametrize(
    ("build", "pattern"),
    [
        (
            lambda: EachTurn(Polite | Apologizes),
            r"EachTurn\(Polite \| Apologizes\) cannot be decided exactly.*Write EachTurn\(Polite\) \| EachTurn\(Apologizes\)",
        ),
        (
            lambda: AnyTurn(Polite & Contains("x")),
            r"Write AnyTurn\(Polite\) & AnyTurn\(Contains\('x'\)\)",
        ),
        (lambda: FinalTurn(EachTurn(Polite)), r"turn leaves do not nest \(EachTurn\(Polite\)\)"),
        (lambda: EachTurn(FinalTurn(Contains("x"))), r"turn leaves do not nest"),
    ],
)
def test_what_cannot_be_decided_exactly_is_refused(build: Any, pattern: str) -> None:
    with pytest.raises(TypeError, match=pattern):
        build()


def test_a_run_without_assistant_text_is_an_error_for_turn_leaves() -> None:
    tool_only = openai_run()[:4]
    for check in (EachTurn(Polite), FinalTurn(Contains("x")), WholeConversation(Polite)):
        pattern = r"no assistant step with text|the run has none: it ended on a tool result"
        with pytest.raises(TypeError, match=pattern):
            evaluate_semantic(tool_only, check, judge=judge())


def test_a_single_reply_is_one_turn() -> None:
    result = evaluate_semantic("Thank you for waiting.", EachTurn(Polite), judge=judge())
    assert (result.passed, reasons(result)) == (True, ["turn 1 of 1: fake score 0.900"])


def test_only_semantic_turn_leaves_reach_the_verdict_store(tmp_path: Path) -> None:
    store = VerdictStore(tmp_path / "verdicts")
    recording = RecordReplayJudge(judge(), store=store, mode="update")
    check = EachTurn(Polite) & EachTurn(Length(max_words=20)) & Steps(max=2)
    evaluate_semantic(CONVERSATION, check, judge=recording)
    assert len(list(store.path.glob("*/*.json"))) == 2  # one verdict per judged turn
    replaying = RecordReplayJudge(FakeJudge(lambda *_: 0.0), store=store, mode="replay")
    replayed = evaluate_semantic(CONVERSATION, check, judge=replaying)
    assert reasons(replayed)[0] == "turn 2 of 2: fake score 0.100"


# --- Steps ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "transcript",
    [openai_run(), anthropic_run(), responses_run(), langchain_run()],
    ids=["openai", "anthropic", "responses", "langchain"],
)
def test_steps_counts_assistant_steps(transcript: list[Any]) -> None:
    assert Steps(max=3).decide(output_view(transcript)).reason == "3 assistant steps (at most 3)"
    too_many = Steps(max=2).decide(output_view(transcript))
    assert (too_many.passed, too_many.reason) == (
        False,
        "3 assistant steps, more than the maximum 2",
    )
    too_few = Steps(min=4).decide(output_view(transcript))
    assert (too_few.passed, too_few.reason) == (
        False,
        "3 assistant steps, fewer than the minimum 4",
    )
    assert Steps(min=1, max=5).decide(output_view("One reply.")).reason == (
        "1 assistant step (at least 1 and at most 5)"  # issue 45 item 12: "1 assistant steps"
    )
    one = Steps(max=1)
    assert one.description == "The run took at most 1 assistant step."
    assert (
        one.decide(output_view(transcript)).reason == "3 assistant steps, more than the maximum 1"
    )


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({"max": -1}, r"Steps\(max=-1\) must be a whole number of steps, 0 or more"),
        ({"min": 1.5}, r"Steps\(min=1.5\) must be a whole number"),
        ({"max": True}, r"Steps\(max=True\)"),
        ({}, r"Steps\(\) needs max= or min="),
        ({"min": 3, "max": 2}, r"min is above max"),
    ],
)
def test_bad_steps_are_errors(kwargs: dict[str, Any], pattern: str) -> None:
    with pytest.raises(ValueError, match=pattern):
        Steps(**kwargs)


def test_steps_name_and_description() -> None:
    check = Steps(min=1, max=4)
    assert (check.__name__, check.description) == (
        "Steps(min=1, max=4)",
        "The run took at least 1 and at most 4 assistant steps.",
    )


# --- ToolSucceeded / ToolFailed --------------------------------------------------------------


@pytest.mark.parametrize(
    "failed",
    [
        anthropic_run(refund_error=True),
        openai_run(refund_result={"error": "card declined"}),
        langchain_run(refund_status="error"),
    ],
    ids=["anthropic-is_error", "openai-error-key", "langchain-status"],
)
def test_a_failed_tool_call_can_be_asserted(failed: list[Any]) -> None:
    """promptfoo #10607: a failed tool call could not be asserted."""
    view = output_view(failed)
    result = ToolFailed("issue_refund").decide(view)
    assert result.passed
    assert result.reason.startswith('issue_refund({"order_id": "A17", "amount": 20}) -> error:')
    succeeded = ToolSucceeded("issue_refund").decide(view)
    assert not succeeded.passed
    assert succeeded.reason.startswith("no call of issue_refund succeeded: issue_refund(")
    assert ToolSucceeded("lookup_order").decide(view).passed
    assert evaluate_semantic(
        failed, ~ToolFailed("lookup_order") & ToolFailed("issue_refund")
    ).passed


def test_tool_outcomes_on_a_run_that_succeeded() -> None:
    view = output_view(anthropic_run())
    assert ToolSucceeded("issue_refund", args={"order_id": "A17"}).decide(view).reason == (
        'issue_refund({"order_id": "A17", "amount": 20}) -> ok: \'R-1\''
    )
    assert not ToolFailed("issue_refund").decide(view).passed
    wrong = ToolSucceeded("issue_refund", args={"order_id": "B2"}).decide(view)
    assert (wrong.passed, wrong.reason) == (
        False,
        "issue_refund({\"order_id\": \"A17\", \"amount\": 20}): 'order_id' is 'A17', expected 'B2'",
    )
    missing = ToolSucceeded("escalate").decide(view)
    assert missing.reason.startswith("escalate was not called; calls made: lookup_order(")


def test_a_call_without_a_result_never_succeeded_nor_failed() -> None:
    unanswered = openai_run()[:5]  # the refund call has no result yet
    view = output_view(unanswered)
    for check in (ToolSucceeded("issue_refund"), ToolFailed("issue_refund")):
        verdict = check.decide(view)
        assert not verdict.passed
        assert verdict.reason.endswith(
            'issue_refund({"order_id": "A17", "amount": 20}) -> no result recorded'
        )
    single = ToolSucceeded("issue_refund").decide(output_view(openai_run(whole=True)[4]))
    assert single.reason.endswith("-> no result recorded")  # one response: no results at all


def test_tool_outcome_names_and_bad_arguments() -> None:
    assert ToolFailed("issue_refund").description == "The model got an error from 'issue_refund'."
    assert repr(ToolSucceeded("x", args={"a": 1})) == "ToolSucceeded('x', args={'a': 1})"
    with pytest.raises(ValueError, match=r"ToolSucceeded\(\) got an empty tool name"):
        ToolSucceeded("")
    with pytest.raises(ValueError, match=r"ToolFailed\('x', exact=True\) compares the arguments"):
        ToolFailed("x", exact=True)


def test_a_whole_agent_check_in_one_assertion() -> None:
    check = (
        ToolCalls(CalledTool("lookup_order"), CalledTool("issue_refund", args={"amount": 20}))
        & ToolSucceeded("issue_refund")
        & Steps(max=4)
        & FinalTurn(Apologizes)
        & EachTurn(~Contains("manual"))
    )
    for transcript in (openai_run(), anthropic_run(), responses_run(), langchain_run()):
        result = evaluate_semantic(transcript, check, judge=judge())
        assert result.passed, result.explain()
        assert result.output == FINAL


def test_turn_leaves_in_a_batch_and_awaited() -> None:
    """Several transcripts in one batch keep their own turns; the async pipeline folds alike."""
    import asyncio

    from semantix import aevaluate_semantic, evaluate_many

    polite = [*CONVERSATION[:4], {"role": "assistant", "content": "Thank you, it left today."}]
    fake = judge()
    results = evaluate_many([CONVERSATION, polite], EachTurn(Polite), judge=fake)
    assert [result.passed for result in results] == [False, True]
    # Two turns each, in one batch; the first turn, the same in both, is judged once (the memo).
    assert [output for output, _ in fake.calls] == [
        "Hello, thank you for writing! How can I help?",
        "Whatever. Read the manual.",
        "Thank you, it left today.",
    ]
    awaited = asyncio.run(aevaluate_semantic(CONVERSATION, EachTurn(Polite), judge=judge()))
    assert (awaited.passed, reasons(awaited)) == (False, ["turn 2 of 2: fake score 0.100"])


def test_an_intent_with_a_subjects_attribute_of_its_own_is_judged_as_usual() -> None:
    class OnTopic(Intent):
        """The text is polite."""

        subjects = ("refunds", "orders")  # the user's own data, not the pipeline's hook

    fake = judge()
    assert evaluate_semantic(CONVERSATION, OnTopic, judge=fake).leaves[0].verdict.reason == (
        "the final reply (step 5 of 5): fake score 0.100"  # a plain intent: the final reply
    )
    assert fake.calls == [("Whatever. Read the manual.", "The text is polite.")]


# --- issue 43: a judge that sees the whole run; a leaf asserting the run answered ---------------


def test_whole_run_shows_the_judge_the_tool_calls_and_results() -> None:
    from semantix.agents import WholeRun

    fake = judge()
    result = evaluate_semantic(openai_run(), WholeRun("The agent refunds the order."), judge=fake)
    assert fake.calls[0][0] == (
        "user: Please refund order A17.\n"
        'assistant calls lookup_order({"order_id": "A17"})\n'
        'tool lookup_order returned: {"status": "delivered", "total": 20}\n'
        'assistant calls issue_refund({"order_id": "A17", "amount": 20})\n'
        'tool issue_refund returned: {"refund_id": "R-1"}\n'
        f"assistant: {FINAL}"
    )
    assert reasons(result) == ["the whole run (6 lines): fake score 0.950"]
    failed = judge()
    evaluate_semantic(anthropic_run(refund_error=True), WholeRun(Polite), judge=failed)
    assert "tool issue_refund failed: " in failed.calls[0][0]


def view_of(*steps: Any, unanswered: str | None = None) -> Any:
    from semantix.outputs import OutputView

    texts = [step.text for step in steps if step.role == "assistant" and step.text]
    calls = tuple(call for step in steps for call in step.tool_calls)
    return OutputView(
        texts[-1] if texts else None, calls, steps=tuple(steps), unanswered=unanswered
    )


def test_answered_passes_only_on_a_run_that_ended_with_a_reply() -> None:
    from semantix.agents import Answered
    from semantix.outputs import OutputView, Step, ToolCall, ToolResult

    call = ToolCall("issue_refund", {"order_id": "A17"}, id="c1")
    preamble = Step("assistant", "Sure, I'll refund order A17 right away.", (call,))
    result = Step("tool", None, (), (ToolResult(call, "card declined", True),))
    answered = view_of(Step("user", "Refund A17"), preamble, result, Step("assistant", "Done."))
    verdict = Answered.decide(answered)
    assert (verdict.passed, verdict.reason) == (True, "the run ended with a reply: 'Done.'")
    cases = {
        "ended on a tool result": (
            view_of(Step("user", "Refund A17"), preamble, result),
            "the run has no final answer: it ended on a tool result (step 3 of 3)",
        ),
        "ended on calls": (
            view_of(Step("user", "Refund A17"), Step("assistant", None, (call,))),
            "the run has no final answer: its last step only calls tools (step 2 of 2)",
        ),
        "the reader says why": (
            view_of(
                Step("user", "Hi"),
                Step("assistant", "Sure, I"),
                unanswered="cut at its token limit (finish_reason='length')",
            ),
            "the run has no final answer: cut at its token limit (finish_reason='length')",
        ),
        "a single response with only calls": (
            OutputView(None, (call,)),
            (
                "the run has no final answer: the output holds no text, only tool calls: "
                'issue_refund({"order_id": "A17"})'
            ),
        ),
        "a refusal": (
            OutputView(None, unanswered="the model refused: 'I can't help with that.'"),
            "the run has no final answer: the model refused: 'I can't help with that.'",
        ),
    }
    for label, (view, reason) in cases.items():
        verdict = Answered.decide(view)
        assert (verdict.passed, verdict.reason) == (False, reason), label
    assert Answered.decide(OutputView("Plain reply.")).passed
    assert evaluate_semantic(cases["ended on a tool result"][0], ~Answered).passed


def test_tool_outcomes_take_globs_kinds_and_results() -> None:
    view = output_view(anthropic_run(refund_error=True))
    assert ToolFailed("issue_*").decide(view).passed
    assert ToolSucceeded("*_order", result="delivered").decide(view).passed
    assert not ToolSucceeded("lookup_order", result="refunded").decide(view).passed
    assert not ToolSucceeded("lookup_order", kind="mcp").decide(view).passed
    assert ToolSucceeded("lookup_order", kind="function").decide(view).passed
