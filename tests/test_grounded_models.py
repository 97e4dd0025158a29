"""Grounded checks on the real judges: both NLI judges on tiny rigged models (long sources over
several 64-token windows), and LLMJudge against a scripted OpenAI-compatible server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from llm_server import FakeOpenAIServer, RecordedRequest, Reply, completion
from models.fixtures import *  # session fixtures: the tiny models
from semantix import (
    ConfigurationError,
    JudgeError,
    QuantizedNLIJudge,
    SemanticAssertionError,
    assert_semantic,
    evaluate_semantic,
)
from semantix.intents import Contradicts, Grounded
from semantix.judges._base import capabilities
from semantix.judges._escalating import EscalatingJudge
from semantix.judges._llm import LLMJudge
from semantix.judges._llm_prompt import SUPPORT_PROMPT_VERSION

SOURCE = " ".join(
    f"Refunds are paid within {n} days of the return, and the agent mentions the refund."
    for n in range(10, 30)
)
ANSWER = "Refunds are paid within 14 days. The agent mentions the refund."


def test_quantized_judge_supports_on_an_entailing_model(entailing_model: Path) -> None:
    judge = QuantizedNLIJudge(entailing_model)
    assert capabilities(judge).support is not None
    result = evaluate_semantic(ANSWER, Grounded([SOURCE, "Shipping is free."]), judge=judge)
    (leaf,) = result.leaves
    assert leaf.passed and leaf.threshold == 0.5
    assert leaf.verdict.reason is not None and "all 2 claims supported" in leaf.verdict.reason
    assert (
        leaf.verdict.evidence is not None and leaf.verdict.evidence in SOURCE + "Shipping is free."
    )
    assert_semantic(ANSWER, ~Contradicts(SOURCE), judge=judge)


def test_quantized_judge_reports_contradicted_claims(contradicting_model: Path) -> None:
    judge = QuantizedNLIJudge(contradicting_model)
    with pytest.raises(SemanticAssertionError) as failure:
        assert_semantic(ANSWER, Grounded(SOURCE), judge=judge)
    message = str(failure.value)
    assert "2 of 2 claims below 0.50" in message
    assert "'Refunds are paid within 14 days.' contradicted" in message
    assert "best window source 1, characters" in message
    assert evaluate_semantic(ANSWER, Contradicts(SOURCE), judge=judge).passed


def test_two_label_models_cannot_tell_contradiction(two_label_model: Path) -> None:
    judge = QuantizedNLIJudge(two_label_model)
    assert_semantic(ANSWER, Grounded(SOURCE), judge=judge)
    with pytest.raises(ConfigurationError, match="cannot tell a contradicted claim"):
        assert_semantic(ANSWER, ~Contradicts(SOURCE), judge=judge)


def test_the_transformers_judge_gives_the_quantized_judges_verdicts(entailing_model: Path) -> None:
    pytest.importorskip("torch")
    from semantix import NLIJudge

    torch_leaf = evaluate_semantic(ANSWER, Grounded(SOURCE), judge=NLIJudge(entailing_model))
    onnx_leaf = evaluate_semantic(
        ANSWER, Grounded(SOURCE), judge=QuantizedNLIJudge(entailing_model, file="model.onnx")
    )
    assert torch_leaf.passed and onnx_leaf.passed
    assert torch_leaf.leaves[0].verdict.score == pytest.approx(
        onnx_leaf.leaves[0].verdict.score, abs=1e-3
    )


def test_support_and_plain_intents_share_one_batch(entailing_model: Path) -> None:
    from semantix import Intent

    class Polite(Intent):
        """The text is polite."""

    judge = QuantizedNLIJudge(entailing_model)
    result = evaluate_semantic(ANSWER, Grounded(SOURCE) & Polite, judge=judge)
    assert [leaf.passed for leaf in result.leaves] == [True, True]
    reasons = [leaf.verdict.reason or "" for leaf in result.leaves]
    assert "claims supported" in reasons[0] and "claims" not in reasons[1]


# -- LLMJudge ---------------------------------------------------------------------------------


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    pytest.importorskip("openai")
    with FakeOpenAIServer() as running:
        yield running


def _reply(claims: list[dict[str, str]], score: float) -> Reply:
    return completion(json.dumps({"claims": claims, "reason": "checked", "score": score}))


def test_llm_judge_asks_with_the_sources_and_quotes_unsupported_claims(
    server: FakeOpenAIServer,
) -> None:
    server.script(
        _reply([{"claim": "Refunds are paid within 14 days.", "status": "contradicted"}], 0.1),
        _reply([{"claim": "Refunds come by pigeon.", "status": "unsupported"}], 0.2),
    )
    judge = LLMJudge(model="m", base_url=server.base_url)
    try:
        assert capabilities(judge).support is not None
        leaf = evaluate_semantic(ANSWER, Grounded(["Refunds take 30 days."]), judge=judge).leaves[0]
        assert not leaf.passed and leaf.verdict.score == pytest.approx(0.1)
        reason = leaf.verdict.reason or ""
        assert reason.startswith('"Refunds are paid within 14 days." contradicted. checked')
        assert leaf.verdict.judge is not None
        assert leaf.verdict.judge.revision == SUPPORT_PROMPT_VERSION
        made_up = judge.evaluate(ANSWER, Grounded("x y.").judge_description(), 0.5)
        assert "(not in the output)" in (made_up.reason or "")
    finally:
        judge.close()
    first: RecordedRequest = server.requests[0]
    user = first.json["messages"][1]["content"]
    assert "SOURCE 1:\n<<<\nRefunds take 30 days.\n>>>" in user and ANSWER in user
    schema: dict[str, Any] = first.json["response_format"]["json_schema"]
    assert schema["name"] == "semantix_support"
    assert schema["schema"]["required"] == ["claims", "reason", "score"]


def test_an_llm_reply_without_the_claims_list_is_an_error(server: FakeOpenAIServer) -> None:
    server.script(completion(json.dumps({"reason": "fine", "score": 0.9})))
    judge = LLMJudge(model="m", base_url=server.base_url)
    try:
        with pytest.raises(JudgeError, match='no "claims" list'):
            assert_semantic(ANSWER, Grounded(SOURCE), judge=judge)
    finally:
        judge.close()


def test_escalating_nli_then_llm_escalates_an_uncertain_support_verdict(
    two_label_model: Path, server: FakeOpenAIServer
) -> None:
    server.script(_reply([], 0.95))
    llm = LLMJudge(model="m", base_url=server.base_url)
    try:
        chain = EscalatingJudge(QuantizedNLIJudge(two_label_model), llm, band=0.5)
        leaf = evaluate_semantic(ANSWER, Grounded(SOURCE), judge=chain).leaves[0]
        assert leaf.passed
        assert (leaf.verdict.reason or "").startswith("decided by LLMJudge(m@support-v1)")
        assert [level.decided for level in chain.stats()] == [0, 1]
    finally:
        llm.close()


CONTRADICTED = {"claim": "Refunds are paid within 14 days.", "status": "contradicted"}
UNSUPPORTED = {"claim": "The agent mentions the refund.", "status": "unsupported"}


@pytest.mark.parametrize(
    ("intent", "claims", "score"),
    [
        (Grounded(SOURCE), [CONTRADICTED], 0.95),  # claims: fails; score: passes
        (Grounded(SOURCE), [UNSUPPORTED], 0.6),
        (~Contradicts(SOURCE), [CONTRADICTED], 0.0),  # claims: contradicted; score: not
        (~Contradicts(SOURCE), [UNSUPPORTED], 0.9),  # claims: none contradicted; score: is
    ],
)
def test_an_llm_support_reply_whose_claims_and_score_disagree_is_an_error(
    server: FakeOpenAIServer, intent: Any, claims: list[dict[str, str]], score: float
) -> None:
    """The score no longer wins over the claims the reply lists (a false pass): a reply that
    contradicts itself is a JudgeError naming both."""
    server.script(_reply(claims, score))
    judge = LLMJudge(model="m", base_url=server.base_url)
    try:
        with pytest.raises(JudgeError) as raised:
            assert_semantic(ANSWER, intent, judge=judge)
    finally:
        judge.close()
    message = str(raised.value)
    assert not isinstance(raised.value, SemanticAssertionError)
    assert "contradicts itself" in message and f"score {score:g}" in message
    assert json.dumps(claims[0]["claim"]) in message


@pytest.mark.parametrize(
    ("intent", "claims", "score", "passed"),
    [
        (Grounded(SOURCE), [], 0.2, False),  # no claims listed: the score decides
        (Grounded(SOURCE), [], 0.9, True),
        (Grounded(SOURCE), [UNSUPPORTED], 0.1, False),
        (Contradicts(SOURCE), [CONTRADICTED, UNSUPPORTED], 0.9, True),
        (Contradicts(SOURCE), [], 0.7, True),
        (Contradicts(SOURCE), [UNSUPPORTED], 0.1, False),
    ],
)
def test_an_llm_support_reply_whose_claims_and_score_agree_decides(
    server: FakeOpenAIServer, intent: Any, claims: list[dict[str, str]], score: float, passed: bool
) -> None:
    server.script(_reply(claims, score))
    judge = LLMJudge(model="m", base_url=server.base_url)
    try:
        assert evaluate_semantic(ANSWER, intent, judge=judge).passed is passed
    finally:
        judge.close()


def test_an_llm_support_claim_with_an_unknown_status_is_an_error(server: FakeOpenAIServer) -> None:
    server.script(_reply([{"claim": "Refunds are paid within 14 days.", "status": "fine"}], 0.1))
    judge = LLMJudge(model="m", base_url=server.base_url)
    try:
        with pytest.raises(JudgeError, match="status 'fine'"):
            assert_semantic(ANSWER, Grounded(SOURCE), judge=judge)
    finally:
        judge.close()
