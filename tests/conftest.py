from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from embedding_fixtures import (  # session fixtures shared by every module: one MiniLM export
    minilm_dir_fixture,  # noqa: F401  (minilm_dir)
    minilm_judge_fixture,  # noqa: F401  (minilm_judge)
    reference_model_fixture,  # noqa: F401  (reference_model)
)
from semantix import VerdictStore, set_default_judge

pytest_plugins = ["pytester"]

_OUR_VARIABLES = ("SEMANTIX_", "PYTEST_XDIST_WORKER_COUNT")
#: Set by CI services; tests of CI behaviour set them themselves.
_CI_VARIABLES = (
    "CI",
    "GITHUB_STEP_SUMMARY",
    "GITHUB_RUN_ID",
    "GITHUB_RUN_ATTEMPT",
    "CI_PIPELINE_ID",
)


@pytest.fixture(scope="session")
def semantix_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """semantix's own cache (optimized ONNX sessions) for this run: never the user's."""
    return tmp_path_factory.mktemp("semantix-cache")


@pytest.fixture(autouse=True)
def clean_environ(monkeypatch: pytest.MonkeyPatch, semantix_cache_dir: Path) -> Iterator[None]:
    """Each test starts with no semantix or CI environment variables and no default judge.

    The optimized-session cache is off (no background writer per model): the tests of that
    cache turn it on themselves.
    """
    for name in list(os.environ):
        if name.startswith(_OUR_VARIABLES) or name in _CI_VARIABLES:
            monkeypatch.delenv(name)
    monkeypatch.setenv("SEMANTIX_CACHE_PATH", str(semantix_cache_dir))
    monkeypatch.setenv("SEMANTIX_ORT_CACHE", "0")
    set_default_judge(None)
    yield
    set_default_judge(None)


@pytest.fixture
def store(tmp_path: Path) -> VerdictStore:
    """An empty frozen-verdict store in the test's temporary directory."""
    return VerdictStore(tmp_path / "verdicts")


@pytest.fixture
def openai_sdk() -> None:
    """Skip (not fail) where the [openai] extra is not installed."""
    pytest.importorskip("openai")
