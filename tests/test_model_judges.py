"""What the three model judges share (judges.lazy.ModelJudge, judges.onnx.OnnxJudge): one
constructor, one error type for bad arguments, an identity that never loads the model, declared
capabilities, one NLI core per tokenizer source, and no process started behind the user's back."""

from __future__ import annotations

import inspect
import json
import subprocess
from pathlib import Path
from typing import Any, ClassVar

import pytest

from models.fixtures import *  # session fixtures: the tiny models
from models.fixtures import copy_model
from semantix import ConfigurationError, ModelNotFoundError
from semantix._cache import clear_cache, model_cache
from semantix.judges._base import capabilities
from semantix.judges._embedding import EmbeddingJudge
from semantix.judges._quantized import QuantizedNLIJudge
from semantix.judges._transformers import NLIJudge

JUDGES = [QuantizedNLIJudge, NLIJudge, EmbeddingJudge]
SHARED = ["model", "revision", "cache_dir", "batch_size", "lazy_load", "model_name"]


@pytest.mark.parametrize("judge", JUDGES)
def test_one_constructor_signature(judge: type) -> None:
    parameters = inspect.signature(judge).parameters
    assert [name for name in parameters if name in SHARED] == SHARED
    if judge is not NLIJudge:  # torch picks the weights; its threads are per process
        assert {"file", "threads"} <= set(parameters)


@pytest.mark.parametrize("judge", JUDGES)
def test_model_name_is_accepted_by_every_model_judge(judge: type, entailing_model: Path) -> None:
    built = judge(model_name=entailing_model)
    assert built.model == entailing_model
    with pytest.raises(TypeError, match="pass one"):
        judge(entailing_model, model_name=entailing_model)


BAD_ARGUMENTS: list[tuple[type, dict[str, object], str]] = [
    *(
        (judge, kwargs, message)
        for judge in JUDGES
        for kwargs, message in (
            ({"batch_size": 0}, "batch_size must be a positive int, got 0"),
            ({"batch_size": True}, "batch_size must be a positive int, got True"),
            ({"model": 42}, "must be a model directory, a short name or a Hugging Face repo"),
            ({"model": " "}, "model must be a non-empty str or None, got ' '"),
            ({"revision": ""}, "revision must be a non-empty str or None, got ''"),
            ({"cache_dir": 3}, "cache_dir must be a directory (a str or a path) or None, got 3"),
            ({"lazy_load": "no"}, "lazy_load must be True or False, got 'no'"),
        )
    ),
    (QuantizedNLIJudge, {"threads": 0}, "threads must be a positive int or None"),
    (EmbeddingJudge, {"threads": -1}, "threads must be a positive int or None"),
    (QuantizedNLIJudge, {"file": ""}, "file must be the path of an ONNX file"),
    (NLIJudge, {"device": ""}, "device must be a torch device string such as 'cpu'"),
    (NLIJudge, {"device": 0}, "device must be a torch device string such as 'cpu'"),
    (NLIJudge, {"dtype": "int4"}, "dtype='int4' is not supported; use one of 'float32'"),
]


@pytest.mark.parametrize(("judge", "kwargs", "message"), BAD_ARGUMENTS)
def test_every_bad_constructor_argument_is_a_configuration_error(
    judge: type, kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(ConfigurationError) as info:
        judge(**kwargs)
    assert message in str(info.value)


def _lazy(kind: type, model: Path) -> Any:
    return kind(model, file="model.onnx") if kind is EmbeddingJudge else kind(model)


@pytest.mark.parametrize("judge", JUDGES)
def test_identity_of_a_lazy_judge_never_loads_the_model(judge: type, entailing_model: Path) -> None:
    clear_cache()
    lazy = _lazy(judge, entailing_model)
    builds = model_cache.builds
    named = lazy.identity
    assert str(named) in repr(lazy)
    assert not lazy.loaded
    assert model_cache.builds == builds  # no session, tokenizer or torch module built
    assert (named.model, named.location) == (entailing_model.name, str(entailing_model.resolve()))
    lazy.evaluate("The agent is polite.", "polite", 0.5)
    assert lazy.identity == named  # what was named is what loaded: frozen verdicts keep their key


def test_the_file_a_directory_will_load_is_named_from_its_listing(
    entailing_model: Path, tmp_path: Path
) -> None:
    model = copy_model(entailing_model, tmp_path / "model")
    assert QuantizedNLIJudge(model).identity.file == "model_quantized.onnx"
    (model / "model_quantized.onnx").unlink()
    assert QuantizedNLIJudge(model).identity.file == "model.onnx"
    assert EmbeddingJudge(model).identity.file == "model.onnx"


def test_naming_a_registered_model_needs_no_cache(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    identity = QuantizedNLIJudge().identity
    assert identity.model == "MoritzLaurer/deberta-v3-xsmall-zeroshot-v1.1-all-33"
    assert identity.file == "onnx/model_quantized.onnx"
    with pytest.raises(ModelNotFoundError):  # loading it is what fails offline
        QuantizedNLIJudge(lazy_load=False)


def test_capabilities_are_declared_on_the_classes() -> None:
    for judge in (QuantizedNLIJudge(), NLIJudge()):
        declared = capabilities(judge)
        assert (declared.reads_negation, declared.scale) == (False, "entailment")
        assert declared.recommended_threshold == 0.5
        assert not declared.uses_examples and not declared.costly
    embedding = capabilities(EmbeddingJudge())
    assert (embedding.reads_negation, embedding.uses_examples, embedding.scale) == (
        False,
        True,
        "similarity",
    )


def _without_tokenizer_json(source: Path, target: Path) -> Path:
    """A BERT model directory with the slow tokenizer's vocab.txt but no tokenizer.json."""
    model = copy_model(source, target)
    vocab = json.loads((model / "tokenizer.json").read_text())["model"]["vocab"]
    ordered = sorted(vocab, key=vocab.__getitem__)
    (model / "vocab.txt").write_text("\n".join(ordered) + "\n", encoding="utf-8")
    (model / "tokenizer.json").unlink()
    return model


def test_the_nli_judges_do_not_share_a_tokenizer_built_differently(
    entailing_model: Path, tmp_path: Path
) -> None:
    """Regression: both NLI judges cached their core under one key, so the quantized judge used
    the tokenizer transformers had converted for NLIJudge, when NLIJudge was built first."""
    model = _without_tokenizer_json(entailing_model, tmp_path / "model")
    clear_cache()
    assert NLIJudge(model).evaluate("The agent is polite.", "polite", 0.5).passed
    with pytest.raises(ModelNotFoundError, match="no tokenizer.json"):
        QuantizedNLIJudge(model).evaluate("The agent is polite.", "polite", 0.5)
    clear_cache()


def test_with_tokenizer_json_both_nli_judges_share_one_core(wide_bert_model: Path) -> None:
    clear_cache()
    assert QuantizedNLIJudge(wide_bert_model).core is NLIJudge(wide_bert_model).core
    clear_cache()


class _NoProcess:
    calls: ClassVar[list[object]] = []

    def __init__(self, *args: object, **kwargs: object) -> None:
        _NoProcess.calls.append(args)
        raise AssertionError(f"a process was started: {args!r}")


def test_loading_and_scoring_start_no_process(
    wide_bert_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: the first session started a background optimiser process and measuring
    subprocesses during the user's test run (with the optimized-session cache on)."""
    monkeypatch.setenv("SEMANTIX_ORT_CACHE", "1")
    monkeypatch.setattr(subprocess, "Popen", _NoProcess)
    _NoProcess.calls = []
    model = copy_model(wide_bert_model, tmp_path / "model")
    clear_cache()
    for judge in (QuantizedNLIJudge(model), EmbeddingJudge(model, file="model.onnx")):
        verdicts = judge.evaluate_batch([("The agent is polite.", "polite", 0.5)] * 3)
        assert all(v.score is not None for v in verdicts)
    assert _NoProcess.calls == []
    clear_cache()
