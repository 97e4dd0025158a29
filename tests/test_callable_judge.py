"""CallableJudge: the LLM judge's prompts and reply parser over the user's own function
``prompt -> raw model text`` (fakellm-assert's ``CallableJudge(fn, model_name=...)``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import semantix
from semantix import (
    ConfigurationError,
    Intent,
    JudgeError,
    SemanticAssertionError,
    assert_semantic,
    evaluate_semantic,
)
from semantix.intents import Contradicts, Grounded
from semantix.judges import CallableJudge
from semantix.judges._base import capabilities
from semantix.judges._llm import LLMJudge
from semantix.judges._llm_prompt import PROMPT_VERSION, SUPPORT_PROMPT_VERSION, SYSTEM_PROMPT
from semantix.verdicts import RecordReplayJudge
from semantix.verdicts._fingerprint import fingerprint


class Apologizes(Intent):
    """The text apologizes for the delay."""


def replying(*replies: str) -> tuple[list[str], CallableJudge]:
    """A judge whose function answers ``replies`` in turn and records the prompts it got."""
    prompts: list[str] = []
    answers = iter(replies)

    def fn(prompt: str) -> str:
        prompts.append(prompt)
        return next(answers)

    return prompts, CallableJudge(fn, model_name="gpt-4o-mini")


@pytest.mark.parametrize(
    ("reply", "passed", "score", "reason"),
    [
        ('{"pass": true, "reasoning": "It says sorry."}', True, 1.0, "It says sorry."),
        ('{"pass": false, "reasoning": "No apology."}', False, 0.0, "No apology."),
        ('```json\n{"pass": true, "reasoning": "ok"}\n```', True, 1.0, "ok"),
        ('{"score": 0.8, "reason": "mostly"}', True, 0.8, "mostly"),
        ('Verdict: {"reason": "barely", "score": 0.3}', False, 0.3, "barely"),
        ('{"pass": true, "score": 0.9, "reasoning": "both agree"}', True, 0.9, "both agree"),
    ],
)
def test_replies_in_either_shape_become_verdicts(
    reply: str, passed: bool, score: float, reason: str
) -> None:
    prompts, judge = replying(reply)
    verdict = judge.evaluate("Sorry for the delay!", Apologizes.judge_description(), 0.5)
    assert (verdict.passed, verdict.score, verdict.reason) == (passed, score, reason)
    (prompt,) = prompts
    assert prompt.startswith(SYSTEM_PROMPT)  # the LLM judge's own prompt, as one text
    assert "REQUIREMENT:\nThe text apologizes for the delay." in prompt
    assert "OUTPUT:\n<<<\nSorry for the delay!\n>>>" in prompt


def test_it_is_the_llm_judges_questions_under_its_own_name() -> None:
    _, judge = replying()
    assert judge.prompt_version == LLMJudge.prompt_version == PROMPT_VERSION
    assert str(judge.identity) == f"CallableJudge(gpt-4o-mini@{PROMPT_VERSION})"
    assert judge.model_name == "gpt-4o-mini"
    declared = capabilities(judge)
    assert declared.costly and declared.recommended_threshold == 0.5
    assert declared.support is not None and declared.equivalence is not None
    assert "CallableJudge" not in semantix.__all__  # in semantix.judges only
    assert repr(judge).startswith("CallableJudge(") and "gpt-4o-mini" in repr(judge)


def test_a_failing_verdict_reaches_the_failure_message() -> None:
    _, judge = replying('{"pass": false, "reasoning": "It blames the customer."}')
    with pytest.raises(SemanticAssertionError) as raised:
        assert_semantic("Your fault.", Apologizes, judge=judge)
    assert "It blames the customer." in str(raised.value)
    assert "CallableJudge(gpt-4o-mini@v1)" in str(raised.value)


@pytest.mark.parametrize(
    ("reply", "words"),
    [
        ("I think it apologizes.", "no JSON object with a 'score' or 'pass'"),
        ('{"pass": "yes", "reasoning": "x"}', "'pass' is 'yes'; expected true or false"),
        ('{"pass": true, "score": 0.1, "reasoning": "x"}', "pass=true but score 0.1"),
        ('{"score": 3}', "outside [0, 1]"),
        ("", "empty"),
    ],
)
def test_a_reply_it_cannot_read_is_a_judge_error_naming_it(reply: str, words: str) -> None:
    _, judge = replying(reply)
    with pytest.raises(JudgeError) as raised:
        assert_semantic("Sorry!", Apologizes, judge=judge)
    message = str(raised.value)
    assert not isinstance(raised.value, SemanticAssertionError)
    assert words in message and "CallableJudge(gpt-4o-mini)" in message
    if reply:
        assert f"Reply: {json.dumps(reply)[:40]}" in message or "Reply: '" in message


def test_a_long_unreadable_reply_is_previewed_and_a_secret_in_it_masked() -> None:
    secret = "sk-live-0123456789abcdef0123"
    _, judge = replying(f"key {secret} " + "blah " * 5_000)
    judge.secrets = (secret,)
    with pytest.raises(JudgeError) as raised:
        judge.evaluate("Sorry!", "apologizes", 0.5)
    message = str(raised.value)
    assert secret not in message and "Reply: " in message and len(message) < 1_000


def test_an_exception_from_the_function_is_a_judge_error_never_a_pass() -> None:
    def broken(prompt: str) -> str:
        raise ConnectionError("model server unreachable")

    judge = CallableJudge(broken, model_name="local")
    with pytest.raises(JudgeError) as raised:
        assert_semantic("Sorry!", Apologizes, judge=judge)
    assert "ConnectionError: model server unreachable" in str(raised.value)
    assert isinstance(raised.value.__cause__, ConnectionError)


@pytest.mark.parametrize(
    ("returned", "words"), [(None, "NoneType"), ({"pass": True}, "dict"), (b"{}", "bytes")]
)
def test_a_function_that_returns_no_text_is_a_judge_error(returned: object, words: str) -> None:
    judge = CallableJudge(lambda prompt: returned, model_name="local")  # type: ignore[arg-type,return-value]
    with pytest.raises(JudgeError, match=f"returned {words}, not the model's reply text"):
        judge.evaluate("Sorry!", "apologizes", 0.5)


def test_an_async_function_is_refused_without_a_never_awaited_warning() -> None:
    async def answer(prompt: str) -> str:
        return '{"pass": true}'

    judge = CallableJudge(answer, model_name="local")  # type: ignore[arg-type]
    with pytest.raises(JudgeError, match="returned a coroutine"):
        judge.evaluate("Sorry!", "apologizes", 0.5)  # filterwarnings=error: no RuntimeWarning


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ({"fn": "gpt-4o-mini", "model_name": "m"}, "must be a function prompt -> reply text"),
        ({"fn": str, "model_name": ""}, "model_name must name the model"),
        ({"fn": str, "model_name": 3}, "model_name must name the model"),
        ({"fn": str, "model_name": "m", "max_concurrency": 0}, "max_concurrency"),
    ],
)
def test_bad_arguments_are_configuration_errors(arguments: dict[str, object], words: str) -> None:
    with pytest.raises(ConfigurationError, match=words):
        CallableJudge(**arguments)  # type: ignore[arg-type]


def test_frozen_verdicts_record_and_replay_like_the_llm_judges(tmp_path: Path) -> None:
    _, judge = replying('{"pass": true, "reasoning": "It apologizes."}')
    recorder = RecordReplayJudge(judge, store=tmp_path, mode="update")
    assert evaluate_semantic("Sorry for the delay.", Apologizes, judge=recorder).passed
    (stored,) = tmp_path.rglob("*.json")
    record = json.loads(stored.read_text())
    assert record["judge"]["model"] == "gpt-4o-mini" and record["verdict"]["score"] == 1.0

    def never(prompt: str) -> str:
        raise AssertionError("a replayed verdict calls no model")

    replayer = RecordReplayJudge(
        CallableJudge(never, model_name="gpt-4o-mini"), store=tmp_path, mode="strict"
    )
    replayed = evaluate_semantic("Sorry for the delay.", Apologizes, judge=replayer)
    assert replayed.passed and replayed.leaves[0].verdict.reason == "It apologizes."
    other = CallableJudge(never, model_name="llama-3")
    description = Apologizes.judge_description()
    assert fingerprint(other, "x", description) != fingerprint(judge, "x", description)


def test_grounded_checks_use_the_support_prompt() -> None:
    claims = [{"claim": "Refunds take 3 days.", "status": "contradicted"}]
    prompts, judge = replying(
        json.dumps({"claims": [], "reason": "all supported", "score": 0.9}),
        json.dumps({"claims": claims, "reason": "14, not 3", "score": 0.95}),
        json.dumps({"claims": [], "reason": "fine", "score": 0.9}),
    )
    assert evaluate_semantic(
        "Refunds take 14 days.", Grounded("Refunds take 14 days."), judge=judge
    ).passed
    with pytest.raises(SemanticAssertionError) as raised:
        assert_semantic("Refunds take 3 days.", ~Contradicts("Refunds take 14 days."), judge=judge)
    assert '"Refunds take 3 days." contradicted' in str(raised.value)
    assert "SOURCE 1:\n<<<\nRefunds take 14 days.\n>>>" in prompts[0]
    verdict = judge.evaluate("x.", Grounded("y.").judge_description(), 0.5)
    assert verdict.judge is not None and verdict.judge.revision == SUPPORT_PROMPT_VERSION


@pytest.mark.parametrize(
    ("reply", "words"),
    [
        ('{"pass": false, "reasoning": "No apology.", "pass": true}', "'pass' appears twice"),
        ('{"score": 0.1, "reason": "no", "score": 0.9}', "'score' appears twice"),
        ('{"score": NaN, "reason": "?"}', "NaN is not a JSON number"),
        ('{"score": 0.9, "reason": "x", "detail": ' + "[" * 150 + "]" * 150 + "}", "nested"),
        # A refused object is never skipped for a later one that would pass.
        ('{"pass": false, "pass": false} {"pass": true, "reasoning": "ok"}', "appears twice"),
    ],
)
def test_a_reply_whose_json_is_refused_is_a_judge_error_never_a_pass(
    reply: str, words: str
) -> None:
    _, judge = replying(reply)
    with pytest.raises(JudgeError, match="unusable verdict") as raised:
        assert_semantic("Sorry!", Apologizes, judge=judge)
    assert words in str(raised.value)


def test_a_raw_newline_inside_a_reply_string_is_still_read() -> None:
    _, judge = replying('{"pass": true, "reasoning": "It says\nsorry."}')
    assert judge.evaluate("Sorry!", "apologizes", 0.5).reason == "It says sorry."


def test_a_reason_or_reply_echoing_the_api_key_is_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    key = "sk-proj-Echoed-Key-0123456789"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    _, judge = replying(f'{{"pass": true, "reasoning": "Sent with {key}."}}')
    assert judge.evaluate("Sorry!", "apologizes", 0.5).reason == "Sent with ********."
    _, judge = replying(f"no verdict, key {key}")
    with pytest.raises(JudgeError) as raised:
        judge.evaluate("Sorry!", "apologizes", 0.5)
    assert key not in str(raised.value) and "key ********" in str(raised.value)
