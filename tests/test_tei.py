"""`semantix.judges._tei.TEIJudge` against a loopback server that follows text-embeddings-
inference's ``/predict`` schema and runs the same tiny ONNX model as the local judge: the same
verdicts; errors, timeouts and off-schema replies are JudgeErrors."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from models.fixtures import *  # session fixtures: the tiny models
from models.fixtures import PERMUTED
from semantix import Intent, JudgeError, QuantizedNLIJudge, evaluate_many
from semantix.errors import ConfigurationError, JudgeTimeoutError
from semantix.judges._tei import TEIJudge
from semantix.pipeline._specs import judge_from_spec
from tei_server import TEIModel, TEIServer

ONNX_FILE = "model_quantized.onnx"
OUTPUTS = [
    "Thank you for waiting, your refund is on its way.",
    "No.",
    "I am sorry for the delay. " * 30,  # longer than the model's 64 tokens: windows
    "The weather is nice today and the order shipped.",
]


class Polite(Intent):
    """The text must be polite."""


class NoAdvice(Intent):
    """The text must not give medical advice."""


@pytest.fixture
def served(wide_bert_model: Path) -> Iterator[tuple[TEIServer, str]]:
    server = TEIServer(TEIModel(wide_bert_model, ONNX_FILE))
    with server.running() as url:
        yield server, url


def test_served_and_local_verdicts_agree(
    served: tuple[TEIServer, str], wide_bert_model: Path
) -> None:
    server, url = served
    local = QuantizedNLIJudge(wide_bert_model, file=ONNX_FILE)
    remote = TEIJudge(url, model_dir=wide_bert_model)
    for intent in (Polite, NoAdvice, Polite & ~NoAdvice):
        mine = evaluate_many(OUTPUTS, intent, judge=local, threshold=0.4)
        theirs = evaluate_many(OUTPUTS, intent, judge=remote, threshold=0.4)
        for a, b in zip(mine, theirs, strict=True):
            assert a.passed == b.passed
            for x, y in zip(a.leaves, b.leaves, strict=True):
                assert y.verdict.score == pytest.approx(x.verdict.score, abs=1e-5)
                assert y.verdict.reason == x.verdict.reason  # hypothesis, windows, labels
                assert y.verdict.evidence == x.verdict.evidence
    assert any("windows" in leaf.verdict.reason for leaf in theirs[2].leaves)
    sent = server.requests[0]
    assert sent["raw_scores"] is True and sent["truncate"] is False
    assert sent["inputs"][0][1] == "The text is polite."  # the NLI judges' phrasing


def test_labels_are_read_by_name_in_any_order(entailing_model: Path) -> None:
    server = TEIServer(TEIModel(entailing_model, ONNX_FILE))  # labels permuted (PERMUTED)
    with server.running() as url:
        verdict = TEIJudge(url, model_dir=entailing_model).evaluate("Hi there.", "polite", 0.5)
    local = QuantizedNLIJudge(entailing_model, file=ONNX_FILE).evaluate("Hi there.", "polite", 0.5)
    assert verdict.passed and verdict.score == pytest.approx(local.score, abs=1e-5)
    assert set(verdict.probabilities or {}) == {"entailment", "contradiction", "neutral"}
    assert PERMUTED[2] == "entailment"


@pytest.mark.parametrize(
    ("setup", "error", "message"),
    [
        ({"fail": (424, {"error": "Inference failed", "error_type": "backend"})}, JudgeError,
         "answered HTTP 424: .*Inference failed"),
        ({"fail": (429, {"error": "Model is overloaded", "error_type": "overloaded"})}, JudgeError,
         "HTTP 429"),
        ({"garbage": {"oops": 1}}, JudgeError, "expected one list of predictions per pair"),
        ({"garbage": [[{"label": "entailment", "score": "high"}]]}, JudgeError,
         'expected a list of {"label"'),
        ({"garbage": [[{"label": "yes", "score": 1.0}]]}, JudgeError,
         "serves a model with the labels"),
        ({"delay": 1.5}, JudgeTimeoutError, "did not answer within 0.5s"),
    ],
)  # fmt: skip
def test_server_errors_are_judge_errors_never_passes(
    served: tuple[TEIServer, str], wide_bert_model: Path, setup: dict[str, object],
    error: type[Exception], message: str,
) -> None:  # fmt: skip
    server, url = served
    for name, value in setup.items():
        setattr(server, name, value)
    judge = TEIJudge(url, model_dir=wide_bert_model, timeout=0.5)
    with pytest.raises(error, match=message):
        judge.evaluate("Hello.", "polite", 0.5)


def test_an_unreachable_server_is_a_judge_error(wide_bert_model: Path) -> None:
    judge = TEIJudge("http://127.0.0.1:9", model_dir=wide_bert_model, timeout=2)
    with pytest.raises(JudgeError, match=r"cannot reach http://127.0.0.1:9/predict"):
        judge.evaluate("Hello.", "polite", 0.5)


def test_the_spec_names_the_url_and_the_model_dir_comes_from_the_environment(
    wide_bert_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ConfigurationError, match="set SEMANTIX_MODEL_DIR"):
        judge_from_spec("tei:http://127.0.0.1:8080")
    monkeypatch.setenv("SEMANTIX_MODEL_DIR", str(wide_bert_model))
    judge = judge_from_spec("tei:http://127.0.0.1:8080/")
    assert isinstance(judge, TEIJudge) and judge.url == "http://127.0.0.1:8080"
    assert judge.identity.model == "http://127.0.0.1:8080"
    with pytest.raises(ConfigurationError, match="needs the server's URL"):
        TEIJudge("localhost:8080", model_dir=wide_bert_model)
