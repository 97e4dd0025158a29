"""Session fixtures: tiny NLI models built once per test session (import them in a test module).

```python
from models.fixtures import *  # noqa: F403  (registers the fixtures)
```

Every fixture returns a read-only model directory; copy it (``copy_model``) before editing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .tiny import build_tiny_nli_model

__all__ = [
    "PERMUTED",
    "contradicting_model",
    "copy_model",
    "entailing_model",
    "semantix_cache",
    "two_label_model",
    "wide_bert_model",
    "wide_deberta_model",
    "wide_roberta_model",
]


@pytest.fixture(autouse=True)
def semantix_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary semantix cache, never the user's; optimized ONNX copies off (the tests of
    ``semantix.judges._sessions.optimize_model`` turn them on themselves)."""
    monkeypatch.setenv("SEMANTIX_CACHE_PATH", str(tmp_path / "semantix-cache"))
    monkeypatch.setenv("SEMANTIX_ORT_CACHE", "0")
    return tmp_path / "semantix-cache"


#: A label order no real model uses, so a judge that assumes an index is caught.
PERMUTED = {0: "Neutral", 1: "CONTRADICTION", 2: "entailment"}


def copy_model(source: Path, target: Path) -> Path:
    """A writable copy of a fixture model."""
    shutil.copytree(source, target)
    return target


def _build(
    factory: pytest.TempPathFactory, name: str, arch: str = "bert", **kwargs: object
) -> Path:
    return build_tiny_nli_model(factory.mktemp(name) / "model", arch, **kwargs)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def entailing_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """BERT, permuted labels, head rigged so every pair is ~0.96 entailment."""
    return _build(
        tmp_path_factory, "entailing", id2label=PERMUTED, head="bias", bias_label="entailment"
    )


@pytest.fixture(scope="session")
def contradicting_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """BERT, permuted labels, head rigged so every pair is ~0.96 contradiction."""
    return _build(
        tmp_path_factory,
        "contradicting",
        id2label=PERMUTED,
        head="bias",
        bias_label="CONTRADICTION",
    )


@pytest.fixture(scope="session")
def two_label_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """BERT with entailment / not_entailment labels, rigged towards entailment."""
    return _build(
        tmp_path_factory,
        "two-label",
        id2label={0: "entailment", 1: "not_entailment"},
        head="bias",
        bias_label="entailment",
    )


@pytest.fixture(scope="session")
def wide_bert_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """BERT with a wide random head: scores vary with the input."""
    return _build(tmp_path_factory, "wide-bert", head="wide", seed=1)


@pytest.fixture(scope="session")
def wide_deberta_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """DeBERTa-v2/v3 architecture (no token types) with a wide random head."""
    return _build(tmp_path_factory, "wide-deberta", "deberta", head="wide", seed=2)


@pytest.fixture(scope="session")
def wide_roberta_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """RoBERTa architecture (byte-level BPE, no token types) with a wide random head."""
    return _build(tmp_path_factory, "wide-roberta", "roberta", head="wide", seed=3)
