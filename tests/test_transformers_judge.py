"""NLIJudge (transformers + torch, fp32) against the ONNX judge on the same tiny models."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from models.fixtures import *  # session fixtures: the tiny models
from models.tiny import make_hf_cache
from semantix import ConfigurationError, ModelNotFoundError
from semantix._cache import clear_cache, model_cache
from semantix.judges._quantized import QuantizedNLIJudge
from semantix.judges._transformers import NLIJudge

OUTPUTS = [
    "The agent is polite.",
    "Go away!",
    "The reply mentions the refund and apologizes for the delay. It seems calm and kind.",
    "The customer is angry.",
    " ".join(["The agent offers a discount. The reply is formal."] * 10),
]
DESCRIPTIONS = ["polite", "The reply must mention the refund."]


def test_follows_permuted_labels(entailing_model: Path, contradicting_model: Path) -> None:
    passing = NLIJudge(entailing_model).evaluate("Hello.", "polite", 0.5)
    assert passing.passed
    assert passing.probabilities is not None
    assert passing.probabilities["entailment"] == pytest.approx(0.9647, abs=1e-3)
    assert passing.judge is not None and passing.judge.name == "NLIJudge"
    failing = NLIJudge(contradicting_model).evaluate("Hello.", "polite", 0.5)
    assert not failing.passed
    assert failing.probabilities is not None
    assert failing.probabilities["contradiction"] == pytest.approx(0.9647, abs=1e-3)


@pytest.mark.parametrize("fixture", ["wide_bert_model", "wide_deberta_model", "wide_roberta_model"])
def test_same_scores_as_onnx_fp32_and_int8(fixture: str, request: pytest.FixtureRequest) -> None:
    model: Path = request.getfixturevalue(fixture)
    requests = [(o, d, 0.5) for o in OUTPUTS for d in DESCRIPTIONS]
    torch_scores = [v.score for v in NLIJudge(model).evaluate_batch(requests)]
    fp32 = [v.score for v in QuantizedNLIJudge(model, file="model.onnx").evaluate_batch(requests)]
    int8 = [v.score for v in QuantizedNLIJudge(model).evaluate_batch(requests)]
    assert max(torch_scores) - min(torch_scores) > 0.05  # the head really discriminates
    assert fp32 == pytest.approx(torch_scores, abs=1e-5)
    assert int8 == pytest.approx(torch_scores, abs=0.05)


def test_windows_and_evidence_match_the_onnx_judge(wide_bert_model: Path) -> None:
    output = " ".join(OUTPUTS * 4)
    torch_verdict = NLIJudge(wide_bert_model).evaluate(output, "polite", 0.5)
    onnx_verdict = QuantizedNLIJudge(wide_bert_model, file="model.onnx").evaluate(
        output, "polite", 0.5
    )
    assert torch_verdict.evidence is not None
    assert torch_verdict.evidence == onnx_verdict.evidence
    assert torch_verdict.score == pytest.approx(onnx_verdict.score, abs=1e-5)


def test_batch_equals_one_by_one(wide_bert_model: Path) -> None:
    judge = NLIJudge(wide_bert_model, batch_size=3)
    requests = [(o, d, 0.5) for o in OUTPUTS for d in DESCRIPTIONS]
    batched = [v.score for v in judge.evaluate_batch(requests)]
    single = [judge.evaluate(*r).score for r in requests]
    assert batched == pytest.approx(single, abs=1e-5)


def test_shares_the_loaded_model(wide_bert_model: Path) -> None:
    clear_cache()
    before = model_cache.builds
    first, second = NLIJudge(wide_bert_model), NLIJudge(wide_bert_model)
    first.evaluate("Hello.", "polite", 0.5)
    second.evaluate("Hello.", "polite", 0.5)
    assert model_cache.builds - before == 3  # tokenizer, NLI core, torch model: once each
    assert first._load().backend is second._load().backend


def test_loads_from_hf_cache_offline(
    entailing_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hub = tmp_path / "hub"
    make_hf_cache(hub, "acme/tiny-nli", entailing_model)
    monkeypatch.setenv("HF_HUB_CACHE", str(hub))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    judge = NLIJudge("acme/tiny-nli")
    assert judge.evaluate("Hello.", "polite", 0.5).passed
    assert judge.identity.model == "acme/tiny-nli"
    with pytest.raises(ModelNotFoundError, match="semantix download"):
        NLIJudge("acme/missing", lazy_load=False)


@pytest.mark.parametrize(
    ("kwargs", "message"), [({"batch_size": 0}, "batch_size"), ({"device": ""}, "device")]
)
def test_bad_arguments(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        NLIJudge(**kwargs)  # type: ignore[arg-type]


def test_recommended_threshold_matches_the_quantized_judge() -> None:
    assert NLIJudge.recommended_threshold == QuantizedNLIJudge.recommended_threshold


def test_bfloat16_scores_are_within_a_hundredth_of_fp32(wide_bert_model: Path) -> None:
    requests = [(output, description, 0.5) for output in OUTPUTS for description in DESCRIPTIONS]
    fp32 = NLIJudge(wide_bert_model).evaluate_batch(requests)
    half = NLIJudge(wide_bert_model, dtype="bfloat16")
    bf16 = half.evaluate_batch(requests)
    assert half._load().backend.dtype == torch.bfloat16
    assert [v.score for v in bf16] == pytest.approx([v.score for v in fp32], abs=0.01)
    assert [v.score for v in bf16] != [v.score for v in fp32]  # it really ran in bfloat16
    assert half.identity.note == "bfloat16 weights"


def test_unknown_dtype_is_named() -> None:
    with pytest.raises(ConfigurationError, match=r"dtype='int4'.*'float32', 'bfloat16'"):
        NLIJudge(dtype="int4")


def test_a_cuda_device_that_does_not_exist_is_named(
    wide_bert_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    with pytest.raises(ConfigurationError, match=r"device='cuda:7' does not exist.*1 CUDA device"):
        NLIJudge(wide_bert_model, device="cuda:7", lazy_load=False)


def test_cuda_without_a_gpu_is_named(
    wide_bert_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ConfigurationError, match=r"device='cuda' but torch sees no CUDA GPU"):
        NLIJudge(wide_bert_model, device="cuda", lazy_load=False)


def test_a_device_string_torch_does_not_know_is_named(wide_bert_model: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"device='gpu0' is not a torch device"):
        NLIJudge(wide_bert_model, device="gpu0", lazy_load=False)
