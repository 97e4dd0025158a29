"""LLMJudge through the real openai SDK, against a scripted OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest

from llm_server import (
    FakeOpenAIServer,
    RecordedRequest,
    Reply,
    Script,
    completion,
    error,
    trickled,
    verdict,
)
from semantix import (
    ConfigurationError,
    Intent,
    JudgeError,
    JudgeTimeoutError,
    JudgeUnavailableError,
    SemanticAssertionError,
    assert_semantic,
)
from semantix.judges._base import JudgeIdentity
from semantix.judges._llm import (
    EQUIVALENCE_PROMPT_VERSION,
    PROMPT_VERSION,
    LLMJudge,
    mask_url,
    parse_verdict,
)
from semantix.judges._llm_prompt import MAX_REPLY_CHARS

SECRET = "sk-test-Very-Secret-Key-0123456789"


class Polite(Intent):
    """The text must be polite and professional."""


@pytest.fixture(autouse=True)
def no_openai_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def serve() -> Iterator[Callable[..., FakeOpenAIServer]]:
    pytest.importorskip("openai")  # the [openai] extra: without it these tests skip, not fail
    servers: list[FakeOpenAIServer] = []

    def start(*script: Script, default: Script | None = None) -> FakeOpenAIServer:
        server = FakeOpenAIServer(script, default=default).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def make_judge() -> Iterator[Callable[..., LLMJudge]]:
    pytest.importorskip("openai")
    judges: list[LLMJudge] = []

    def make(server: FakeOpenAIServer | None = None, **kwargs: Any) -> LLMJudge:
        if server is not None:
            kwargs.setdefault("base_url", server.base_url)
        judge = LLMJudge(**kwargs)
        judges.append(judge)
        return judge

    yield make
    for judge in judges:
        judge.close()


# --- verdicts ---------------------------------------------------------------------------------


def test_good_json_gives_a_full_verdict(serve: Any, make_judge: Any) -> None:
    server = serve(verdict(0.92, "Courteous and professional."))
    judge = make_judge(server)
    result = judge.evaluate("Thank you for your patience.", "polite", 0.5)
    assert result.passed is True
    assert result.score == pytest.approx(0.92)
    assert result.threshold == 0.5
    assert result.reason == "Courteous and professional."
    assert str(result.judge) == f"LLMJudge(gpt-4o-mini@{PROMPT_VERSION})"
    assert result.judge is not None and result.judge.revision == PROMPT_VERSION
    assert result.usage is not None
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (42, 7)
    assert result.latency_ms is not None and result.latency_ms > 0


def test_request_asks_for_structured_output_deterministically(serve: Any, make_judge: Any) -> None:
    server = serve(verdict(0.9))
    make_judge(server, model="my-model", seed=7).evaluate("Thanks!", "polite", 0.5)
    [request] = server.requests
    assert request.path == "/v1/chat/completions"
    body = request.json
    assert body["model"] == "my-model"
    assert body["temperature"] == 0
    assert body["seed"] == 7
    assert body["response_format"]["type"] == "json_schema"
    schema = body["response_format"]["json_schema"]["schema"]
    assert list(schema["properties"]) == ["reason", "score"]
    user = body["messages"][-1]["content"]
    assert "REQUIREMENT:\npolite" in user
    assert "Thanks!" in user


def test_temperature_and_seed_none_are_omitted(serve: Any, make_judge: Any) -> None:
    server = serve(verdict(0.9))
    make_judge(server, temperature=None, seed=None).evaluate("Thanks!", "polite", 0.5)
    assert "temperature" not in server.requests[0].json
    assert "seed" not in server.requests[0].json


def test_intent_examples_reach_the_prompt(serve: Any, make_judge: Any) -> None:
    class Greeting(Intent):
        """The text greets the reader."""

        examples = ("Hello there!",)
        counterexamples = ("Goodbye.",)

    def by_output(request: RecordedRequest) -> Reply:
        user = request.json["messages"][-1]["content"]
        return verdict(0.1) if "<<<\nGoodbye.\n>>>" in user else verdict(0.9)

    server = serve(default=by_output)  # the examples may also be judged, to calibrate
    assert_semantic("Hi!", Greeting, judge=make_judge(server))
    [user] = [
        request.json["messages"][-1]["content"]
        for request in server.requests
        if "<<<\nHi!\n>>>" in request.json["messages"][-1]["content"]
    ]
    assert "- Hello there!" in user
    assert "do NOT satisfy it:\n- Goodbye." in user


@pytest.mark.parametrize(
    ("content", "score", "reason"),
    [
        ('{"score": 0.8, "reason": "fine"}', 0.8, "fine"),
        ('Here is my verdict: {"reason": "fine", "score": 0.75}. Hope it helps!', 0.75, "fine"),
        ('```json\n{"score": 1, "reason": "clearly"}\n```', 1.0, "clearly"),
        ('```\n{"score": "0.3", "reason": "meh"}\n```', 0.3, "meh"),
        ('{"note": {"a": 1}} then {"score": 0, "reason": "no"}', 0.0, "no"),
        ('{"score": 0.6}', 0.6, "(the judge gave no reason)"),
        ('{"score": 0.6, "reason": "two\n  lines"}', 0.6, "two lines"),
    ],
)
def test_tolerant_parsing(content: str, score: float, reason: str) -> None:
    parsed = parse_verdict(content)
    assert (parsed.score, parsed.reason) == (pytest.approx(score), reason)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "empty"),
        (None, "empty"),
        ("The text is polite.", "no JSON object with a 'score'"),
        ('{"score": 0.8, "reason": "unterminated', "no JSON object"),
        ('{"verdict": "pass"}', "no JSON object with a 'score'"),
        ('{"score": 1.5, "reason": "x"}', "outside [0, 1]"),
        ('{"score": 85, "reason": "x"}', "outside [0, 1]"),
        ('{"score": -0.1, "reason": "x"}', "outside [0, 1]"),
        ('{"score": "high", "reason": "x"}', "not a number"),
        ('{"score": true, "reason": "x"}', "not a number"),
        ('{"score": null, "reason": "x"}', "not a number"),
        ('{"score": NaN, "reason": "x"}', "NaN is not a JSON number"),
        (["not", "text"], "is a list, not text"),
    ],
)
def test_unusable_replies_are_errors(content: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_verdict(content)


@pytest.mark.parametrize(
    "content",
    ["I think it is polite.", '{"score": 0.9, "reason": ', '{"score": 1.7, "reason": "very"}'],
)
def test_unparseable_reply_is_a_judge_error_never_a_pass(
    serve: Any, make_judge: Any, content: str
) -> None:
    server = serve(completion(content))
    with pytest.raises(JudgeError, match="unusable verdict") as raised:
        assert_semantic("Thank you.", Polite, judge=make_judge(server))
    assert not isinstance(raised.value, SemanticAssertionError)
    assert "never a pass" in str(raised.value)
    assert len(server.requests) == 1


def test_cut_off_reply_says_so(serve: Any, make_judge: Any) -> None:
    server = serve(completion('{"reason": "The text is', finish_reason="length"))
    with pytest.raises(JudgeError, match="finish_reason=length"):
        make_judge(server).evaluate("x", "polite", 0.5)


def test_refusal_is_a_judge_error(serve: Any, make_judge: Any) -> None:
    server = serve(completion(None, refusal="I can't help with that."))
    with pytest.raises(JudgeError, match='refused to judge: "I can\'t help with that."'):
        make_judge(server).evaluate("x", "polite", 0.5)


def test_no_choices_is_a_judge_error(serve: Any, make_judge: Any) -> None:
    server = serve(Reply(200, {**completion("x").body, "choices": []}))
    with pytest.raises(JudgeError, match="no choices"):
        make_judge(server).evaluate("x", "polite", 0.5)


# --- through assert_semantic -------------------------------------------------------------------


def test_reason_reaches_the_failure_message(serve: Any, make_judge: Any) -> None:
    server = serve(verdict(0.1, "The reply insults the customer."))
    with pytest.raises(SemanticAssertionError) as raised:
        assert_semantic("Go away, idiot.", Polite, judge=make_judge(server))
    message = str(raised.value)
    assert "reason: The reply insults the customer." in message
    assert "LLMJudge(gpt-4o-mini@v1)" in message
    assert "0.10" in message and "0.50" in message  # the score against the recommended threshold


def test_recommended_threshold_applies(serve: Any, make_judge: Any) -> None:
    server = serve(verdict(0.55))
    result = assert_semantic("Thanks.", Polite, judge=make_judge(server))
    assert LLMJudge.recommended_threshold == 0.5
    assert result.leaves[0].threshold == 0.5


def test_composite_intents_are_judged_leaf_by_leaf_in_order(serve: Any, make_judge: Any) -> None:
    class Apologetic(Intent):
        """The text apologises."""

    def by_intent(request: RecordedRequest) -> Reply:
        user = request.json["messages"][-1]["content"]
        return verdict(0.9, "polite") if "polite" in user else verdict(0.2, "no apology")

    server = serve(default=by_intent)
    judge = make_judge(server, max_concurrency=2)
    with pytest.raises(SemanticAssertionError) as raised:
        assert_semantic("Thank you.", Polite & Apologetic, judge=judge)
    scores = [verdict_.score for verdict_ in raised.value.verdicts]
    assert scores == [pytest.approx(0.9), pytest.approx(0.2)]
    assert len(server.requests) == 2


def test_seed_example_through_openai_base_url(serve: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    server = serve(verdict(0.97, "A courteous reply."))
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    response = "Thank you for reaching out. I'm happy to help with your order."

    with LLMJudge(model="gpt-4o-mini") as judge:
        assert_semantic(response, "polite", judge=judge)

    [request] = server.requests
    assert request.json["model"] == "gpt-4o-mini"
    assert request.headers["authorization"] == "Bearer semantix-no-key"  # a local server: no key


# --- retries (the openai SDK's) and deadlines ----------------------------------------------------


@pytest.mark.parametrize(
    "first", [error(500), error(502), error(503), error(429, "slow down"), error(408)]
)
def test_transient_failure_is_retried(serve: Any, make_judge: Any, first: Reply) -> None:
    server = serve(first, verdict(0.9, "fine"))
    result = make_judge(server).evaluate("Thanks.", "polite", 0.5)
    assert result.passed and result.reason == "fine"
    assert len(server.requests) == 2


def test_the_sdk_retries_not_the_judge(serve: Any, make_judge: Any) -> None:
    server = serve(error(429), error(503), verdict(0.9))
    assert make_judge(server, max_retries=2).evaluate("x", "polite", 0.5).passed
    counts = [request.headers.get("x-stainless-retry-count") for request in server.requests]
    assert counts == ["0", "1", "2"]  # one SDK call that retried twice


def test_persistent_500_is_a_judge_error_after_the_retries(serve: Any, make_judge: Any) -> None:
    server = serve(default=error(500, "upstream exploded"))
    with pytest.raises(JudgeError) as raised:
        assert_semantic("Thanks.", Polite, judge=make_judge(server, max_retries=3))
    assert not isinstance(raised.value, (SemanticAssertionError, JudgeTimeoutError))
    assert len(server.requests) == 4
    message = str(raised.value)
    assert "failed 4 times" in message and "upstream exploded" in message
    assert "SEMANTIX_VERDICTS=replay" in message
    assert type(raised.value.__cause__).__name__ == "InternalServerError"


def test_max_retries_zero_tries_once(serve: Any, make_judge: Any) -> None:
    server = serve(default=error(503))
    with pytest.raises(JudgeError, match="failed once"):
        make_judge(server, max_retries=0).evaluate("x", "polite", 0.5)
    assert len(server.requests) == 1


def test_rate_limit_says_what_to_do(serve: Any, make_judge: Any) -> None:
    server = serve(default=error(429, "Rate limit reached"))
    with pytest.raises(JudgeError, match=r"failed 2 times .*rate-limiting.*max_concurrency"):
        make_judge(server, max_retries=1).evaluate("x", "polite", 0.5)


def test_slow_server_is_a_timeout_error(serve: Any, make_judge: Any) -> None:
    server = serve(default=completion('{"score": 1, "reason": "late"}', delay=5))
    judge = make_judge(server, request_timeout=0.2, max_retries=1)
    with pytest.raises(JudgeTimeoutError, match=r"did not answer within 0.2s .*\(2 attempts\)"):
        assert_semantic("Thanks.", Polite, judge=judge)
    assert len(server.requests) == 2


def test_a_trickling_body_is_a_timeout_never_a_pass(serve: Any, make_judge: Any) -> None:
    """Headers at once, then 12 bytes every 0.4 s: each read is quick, the whole is not."""
    server = serve(default=trickled(verdict(1.0, "late but sure")))
    judge = make_judge(server, request_timeout=0.5, max_retries=0)
    with pytest.raises(JudgeTimeoutError, match="did not answer within 0.5s"):
        assert_semantic("Thanks.", Polite, judge=judge)
    assert len(server.requests) == 1


def test_trickling_headers_are_a_timeout(serve: Any, make_judge: Any) -> None:
    server = serve(default=replace(verdict(1.0), trickle_headers=0.2))
    judge = make_judge(server, request_timeout=0.5, max_retries=0)
    with pytest.raises(JudgeTimeoutError, match="did not answer within 0.5s"):
        judge.evaluate("Thanks.", "polite", 0.5)


def test_an_injected_client_is_bounded_as_a_whole(serve: Any) -> None:
    import openai

    server = serve(default=trickled(verdict(1.0)))
    with openai.OpenAI(base_url=server.base_url, api_key="x") as client:
        judge = LLMJudge(client=client, request_timeout=0.25, max_retries=1)
        with pytest.raises(JudgeTimeoutError, match=r"did not finish within 0.5s at http://127"):
            judge.evaluate("x", "polite", 0.5)


def test_server_down_is_a_judge_error(make_judge: Any) -> None:
    judge = make_judge(base_url="http://127.0.0.1:9/v1", max_retries=1)
    with pytest.raises(JudgeError, match="could not reach http://127.0.0.1:9/v1 after 2 attempts"):
        judge.evaluate("x", "polite", 0.5)


@pytest.mark.parametrize(("status", "what"), [(401, "API key was refused"), (403, "denied")])
def test_auth_error_is_not_retried(serve: Any, make_judge: Any, status: int, what: str) -> None:
    server = serve(default=error(status, f"Incorrect API key provided: {SECRET}"))
    judge = make_judge(server, api_key=SECRET)
    with pytest.raises(JudgeError, match=what) as raised:
        assert_semantic("Thanks.", Polite, judge=judge)
    assert len(server.requests) == 1
    assert "OPENAI_API_KEY" in str(raised.value)
    _assert_no_secret(raised.value)


# --- response_format fallback -----------------------------------------------------------------


def _rejects(*formats: str) -> Callable[[RecordedRequest], Reply]:
    def reply(request: RecordedRequest) -> Reply:
        kind = request.json.get("response_format", {}).get("type", "prompt")
        if kind in formats:
            return error(400, f"response_format {kind} is not supported by this server")
        return verdict(0.9, f"answered in {kind} mode")

    return reply


def test_falls_back_to_json_object(serve: Any, make_judge: Any) -> None:
    server = serve(default=_rejects("json_schema"))
    judge = make_judge(server)
    assert judge.evaluate("x", "polite", 0.5).reason == "answered in json_object mode"
    assert judge.evaluate("x", "polite", 0.5).reason == "answered in json_object mode"
    kinds = [r.json.get("response_format", {}).get("type") for r in server.requests]
    assert kinds == ["json_schema", "json_object", "json_object"]  # the working mode is kept


def test_falls_back_to_the_prompt_alone(serve: Any, make_judge: Any) -> None:
    server = serve(default=_rejects("json_schema", "json_object"))
    judge = make_judge(server)
    assert judge.evaluate("x", "polite", 0.5).reason == "answered in prompt mode"
    assert "response_format" not in server.requests[-1].json
    assert "JSON object" in server.requests[-1].json["messages"][0]["content"]
    assert len(server.requests) == 3


def test_bad_request_everywhere_is_a_judge_error(serve: Any, make_judge: Any) -> None:
    server = serve(default=error(400, "model 'nope' does not exist"))
    with pytest.raises(JudgeError) as raised:
        make_judge(server, model="nope").evaluate("x", "polite", 0.5)
    message = str(raised.value)
    assert "after the server rejected response_format json_schema (400), json_object (400)" in (
        message
    )
    assert "model 'nope' does not exist" in message
    assert len(server.requests) == 3


def test_a_failed_fallback_is_not_remembered(serve: Any, make_judge: Any) -> None:
    server = serve(
        error(400, "context length exceeded"),
        error(400, "context length exceeded"),
        error(400, "context length exceeded"),
        default=verdict(0.9),
    )
    judge = make_judge(server)
    with pytest.raises(JudgeError, match="context length exceeded"):
        judge.evaluate("a very long output", "polite", 0.5)
    assert judge.evaluate("short", "polite", 0.5).passed
    assert server.requests[-1].json["response_format"]["type"] == "json_schema"


# --- secrets -------------------------------------------------------------------------------------


def _assert_no_secret(exc: BaseException) -> None:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        assert SECRET not in str(current)
        assert SECRET not in repr(current)
        current = current.__cause__ or current.__context__


def test_key_never_in_repr(make_judge: Any) -> None:
    judge = make_judge(base_url="http://user:hunter2@127.0.0.1:1/v1", api_key=SECRET)
    text = repr(judge)
    assert SECRET not in text and "hunter2" not in text
    assert text == (
        "LLMJudge(model='gpt-4o-mini', base_url='http://user:********@127.0.0.1:1/v1', "
        "api_key='********')"
    )


def test_key_from_environment_is_sent_but_never_shown(
    serve: Any, make_judge: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    server = serve(
        error(500, f"echo {SECRET}"),
        default=error(500, f"still failing for key {SECRET}"),
    )
    judge = make_judge(server, max_retries=1)
    with caplog.at_level(logging.DEBUG), pytest.raises(JudgeError) as raised:
        assert_semantic("Thanks.", Polite, judge=judge)
    assert server.requests[0].headers["authorization"] == f"Bearer {SECRET}"
    assert SECRET not in repr(judge)
    _assert_no_secret(raised.value)
    assert len(server.requests) == 2
    assert SECRET not in caplog.text


def test_mask_url() -> None:
    assert mask_url("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"
    assert mask_url("https://me:pw@proxy.example/v1") == "https://me:********@proxy.example/v1"
    assert mask_url(None) is None


# --- construction --------------------------------------------------------------------------------


def test_injected_client(serve: Any) -> None:
    import openai

    server = serve(error(500), verdict(0.9))
    with openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=5) as client:
        judge = LLMJudge(client=client, max_retries=1)
        assert judge.evaluate("x", "polite", 0.5).passed
    assert len(server.requests) == 2  # our retries, not the SDK's five


def test_injected_clients_key_is_scrubbed_too(serve: Any) -> None:
    import openai

    server = serve(default=error(401, f"Incorrect API key provided: {SECRET}"))
    with openai.OpenAI(base_url=server.base_url, api_key=SECRET) as client:
        judge = LLMJudge(client=client)
        with pytest.raises(JudgeError, match="API key was refused") as raised:
            judge.evaluate("x", "polite", 0.5)
    _assert_no_secret(raised.value)
    assert SECRET not in repr(judge)


def test_client_and_base_url_together_is_an_error() -> None:
    with pytest.raises(ConfigurationError, match="either client=... or base_url="):
        LLMJudge(client=object(), base_url="http://127.0.0.1:1/v1")


def test_no_key_for_openai_is_a_configuration_error_on_first_use() -> None:
    pytest.importorskip("openai")
    judge = LLMJudge()  # constructing is fine (e.g. at import time of a test module)
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY or pass api_key=") as raised:
        assert_semantic("Thanks.", Polite, judge=judge)
    assert "OPENAI_BASE_URL" in str(raised.value)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"model": ""}, "model must be a model name"),
        ({"request_timeout": 0}, "request_timeout must be a positive number"),
        ({"max_retries": -1}, "max_retries must be an integer >= 0"),
        ({"max_retries": 1.5}, "max_retries must be an integer >= 0"),
        ({"request_timeout": True}, "request_timeout must be a positive number"),
        ({"max_concurrency": 0}, "max_concurrency must be a positive int"),
    ],
)
def test_bad_arguments(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        LLMJudge(**kwargs)


def test_missing_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "openai", None)
    with pytest.raises(JudgeUnavailableError, match=r"pip install 'semantix-judge\[openai\]'"):
        LLMJudge(base_url="http://127.0.0.1:1/v1")


def test_importing_semantix_does_not_import_openai() -> None:
    code = (
        "import sys, semantix, semantix.judges._llm, semantix.verdicts; "
        "semantix.LLMJudge; print(sorted(m for m in sys.modules if m.split('.')[0] == 'openai'))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert json.loads(out.strip().replace("'", '"')) == []


def test_close_is_idempotent(serve: Any) -> None:
    server = serve(verdict(0.9), verdict(0.9))
    judge = LLMJudge(base_url=server.base_url)
    judge.evaluate("x", "polite", 0.5)
    judge.close()
    judge.close()
    assert judge.evaluate("x", "polite", 0.5).passed  # a closed judge builds a new client
    judge.close()


# --- big and hostile replies ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{" * 5_000_000, "5,000,000 characters long"),
        ("{" * (MAX_REPLY_CHARS + 1), "characters long"),
        ("{" * MAX_REPLY_CHARS, "no JSON object"),
        ("{}" * (MAX_REPLY_CHARS // 2), "no JSON object"),
        ('{"score": 2, "a": "' + "}{" * 20_000 + '"}', "outside"),
        ('{"k": [' * 5_000 + "1", "no JSON object"),
        ("def f(x):\n    return {'a': {x: [y for y in x]}}\n" * 1_000, "no JSON object"),
    ],
)
def test_big_replies_are_refused_or_parsed_in_linear_time(content: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_verdict(content)


def test_a_verdict_after_many_braces_is_still_found() -> None:
    content = "{" * 10_000 + ' {"reason": "ok", "score": 0.7} ' + "}" * 3
    assert parse_verdict(content).score == pytest.approx(0.7)


def test_a_huge_reply_is_a_judge_error(serve: Any, make_judge: Any) -> None:
    server = serve(completion("{" * 5_000_000), completion("{" * 200_000))
    judge = make_judge(server, max_retries=0)
    with pytest.raises(JudgeError, match="over 1,000,000 bytes"):
        judge.evaluate("x", "polite", 0.5)
    with pytest.raises(JudgeError, match="200,000 characters long"):
        judge.evaluate("x", "polite", 0.5)


def _echo_key(request: RecordedRequest) -> Reply:
    return verdict(0.1, f"you sent {request.headers['authorization']}")


def test_a_key_echoed_into_the_reason_is_masked(serve: Any, make_judge: Any) -> None:
    server = serve(default=_echo_key)
    judge = make_judge(server, api_key=SECRET)
    result = judge.evaluate("Thanks.", "polite", 0.5)
    assert server.requests[0].headers["authorization"] == f"Bearer {SECRET}"
    assert result.reason == "you sent Bearer ********"
    with pytest.raises(SemanticAssertionError) as raised:
        assert_semantic("Thanks.", Polite, judge=judge)
    assert SECRET not in str(raised.value)
    assert all(SECRET not in repr(v) and SECRET not in v.reason for v in raised.value.verdicts)


def test_an_injected_clients_key_echoed_into_the_reason_is_masked(serve: Any) -> None:
    import openai

    server = serve(default=_echo_key)
    with openai.OpenAI(base_url=server.base_url, api_key=SECRET) as client:
        assert SECRET not in LLMJudge(client=client).evaluate("x", "polite", 0.5).reason


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (completion(f"I cannot score this, {SECRET}"), "unusable verdict"),
        (completion(f'{{"score": 7, "reason": "{SECRET}"}}'), "unusable verdict"),
        (completion(None, refusal=f"no, {SECRET}"), "refused to judge"),
        (error(404, f"model not found for key {SECRET}"), "request failed"),
    ],
)
def test_a_key_echoed_into_an_error_is_masked(
    serve: Any, make_judge: Any, reply: Reply, message: str
) -> None:
    server = serve(default=reply)
    with pytest.raises(JudgeError, match=message) as raised:
        make_judge(server, api_key=SECRET, max_retries=0).evaluate("x", "polite", 0.5)
    assert "********" in str(raised.value)
    _assert_no_secret(raised.value)


def test_a_url_password_is_masked_like_a_key(serve: Any, make_judge: Any) -> None:
    server = serve(default=verdict(0.9, "your proxy password is hunter2-password"))
    url = server.base_url.replace("http://", "http://me:hunter2-password@")
    assert "hunter2" not in make_judge(base_url=url).evaluate("x", "polite", 0.5).reason


# --- equivalence (semantic snapshots) -------------------------------------------------------------


def test_equivalence_asks_whether_two_texts_say_the_same(serve: Any, make_judge: Any) -> None:
    server = serve(verdict(0.2, "The new text drops the 30-day limit."))
    judge = make_judge(server)
    result = judge.evaluate_equivalence(
        "Refunds within 30 days.", "We refund purchases.", threshold=0.5
    )
    assert (result.passed, result.score, result.threshold) == (False, pytest.approx(0.2), 0.5)
    assert result.reason == "The new text drops the 30-day limit."
    assert result.judge == JudgeIdentity(
        "LLMJudge", model="gpt-4o-mini", revision=EQUIVALENCE_PROMPT_VERSION
    )
    assert EQUIVALENCE_PROMPT_VERSION != PROMPT_VERSION
    [request] = server.requests
    system, user = (message["content"] for message in request.json["messages"])
    assert "say the same thing" in system
    assert (
        user == "STORED:\n<<<\nRefunds within 30 days.\n>>>\n\nNEW:\n<<<\nWe refund purchases.\n>>>"
    )
    assert request.json["response_format"]["json_schema"]["name"] == "semantix_equivalence"


def test_equivalence_passes_at_the_threshold_and_checks_its_inputs(
    serve: Any, make_judge: Any
) -> None:
    judge = make_judge(serve(verdict(0.8, "Both state the 30-day refund window.")))
    assert judge.evaluate_equivalence("a", "b", 0.8).passed
    with pytest.raises(TypeError, match="takes a str, got int"):
        judge.evaluate_equivalence("a", 3, 0.5)
    with pytest.raises(ValueError, match="threshold must be between 0 and 1"):
        judge.evaluate_equivalence("a", "b", 1.5)


def test_concurrent_fallbacks_remember_one_working_format(serve: Any, make_judge: Any) -> None:
    server = serve(default=_rejects("json_schema"))
    judge = make_judge(server, max_concurrency=4)
    verdicts = judge.evaluate_batch([(f"text {i}", "polite", 0.5) for i in range(8)])
    assert {v.reason for v in verdicts} == {"answered in json_object mode"}
    judge.evaluate("x", "polite", 0.5)
    assert server.requests[-1].json["response_format"]["type"] == "json_object"


def test_request_timeout_bounds_one_attempt(serve: Any) -> None:
    """``timeout`` bounds a whole check in semantix; the judge's per-attempt limit is
    ``request_timeout`` (the openai SDK's name), 30 s by default."""
    server = serve(default=completion('{"score": 1, "reason": "late"}', delay=5))
    judge = LLMJudge(base_url=server.base_url, request_timeout=0.2, max_retries=0)
    try:
        with pytest.raises(JudgeTimeoutError, match=r"within 0.2s .*raise request_timeout="):
            judge.evaluate("Thanks.", "polite", 0.5)
    finally:
        judge.close()
    assert LLMJudge(base_url=server.base_url).request_timeout == 30.0
