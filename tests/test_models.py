from __future__ import annotations

import time
from pathlib import Path

import pytest

from semantix import ModelNotFoundError, UnknownModelError
from semantix.models import (
    default_model,
    download_model,
    hf_cache_dir,
    list_supported_models,
    resolve_model,
)

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def fake_hf_cache(root: Path, repo_id: str, files: dict[str, str], commit: str = COMMIT) -> Path:
    """Lay out a Hugging Face hub cache entry the way huggingface_hub writes it."""
    repo = root / f"models--{repo_id.replace('/', '--')}"
    snapshot = repo / "snapshots" / commit
    snapshot.mkdir(parents=True)
    for name, text in files.items():
        (snapshot / name).parent.mkdir(parents=True, exist_ok=True)
        (snapshot / name).write_text(text)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    return snapshot


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    cache = tmp_path / "hub"
    cache.mkdir()
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return cache


def test_local_directory_is_used_as_is(tmp_path: Path) -> None:
    resolved = resolve_model(tmp_path, kind="nli")
    assert resolved.path == tmp_path and resolved.repo_id is None
    assert resolve_model(str(tmp_path), kind="nli").path == tmp_path


def test_missing_directory_is_named(tmp_path: Path) -> None:
    with pytest.raises(ModelNotFoundError, match="does-not-exist' does not exist"):
        resolve_model(tmp_path / "does-not-exist", kind="nli")
    with pytest.raises(ModelNotFoundError, match="neither an existing directory"):
        resolve_model("./does-not-exist", kind="nli")


def test_unknown_name_lists_known_models() -> None:
    with pytest.raises(UnknownModelError, match="known nli models: .*cross-encoder/") as info:
        resolve_model("no such model", kind="nli")
    assert "'no such model'" in str(info.value)


def test_default_model_directory_from_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SEMANTIX_MODEL_DIR", str(tmp_path))
    assert resolve_model(None, kind="nli").path == tmp_path
    monkeypatch.setenv("SEMANTIX_MODEL_DIR", str(tmp_path / "nope"))
    with pytest.raises(ModelNotFoundError, match="SEMANTIX_MODEL_DIR=.*is not a directory"):
        resolve_model(None, kind="nli")


def test_repo_found_in_a_prepopulated_cache_while_offline(offline: Path) -> None:
    snapshot = fake_hf_cache(
        offline, "acme/tiny-nli", {"config.json": "{}", "onnx/model.onnx": "x"}
    )
    resolved = resolve_model("acme/tiny-nli", kind="nli")
    assert resolved.path == snapshot
    assert (resolved.repo_id, resolved.revision) == ("acme/tiny-nli", "main")
    pinned = resolve_model("acme/tiny-nli", kind="nli", revision=COMMIT)
    assert pinned.path == snapshot


def test_hf_home_is_honoured(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    assert hf_cache_dir() == tmp_path / "hf" / "hub"
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    snapshot = fake_hf_cache(tmp_path / "hf" / "hub", "acme/tiny-nli", {"config.json": "{}"})
    assert resolve_model("acme/tiny-nli", kind="nli").path == snapshot


def test_offline_with_nothing_cached_fails_fast_and_explains(offline: Path) -> None:
    started = time.perf_counter()
    with pytest.raises(ModelNotFoundError) as info:
        resolve_model(None, kind="nli")
    elapsed = time.perf_counter() - started
    message = str(info.value)
    assert default_model("nli").repo_id in message
    assert str(offline) in message
    assert "HF_HUB_OFFLINE is set" in message
    assert "semantix download" in message and "local directory" in message
    assert "SEMANTIX_MODEL_DIR" in message
    assert elapsed < 5


def test_unreachable_endpoint_fails_fast(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # discard port: nothing listens
    started = time.perf_counter()
    with pytest.raises(ModelNotFoundError, match=r"http://127.0.0.1:9 cannot be reached"):
        download_model("acme/tiny-nli")
    assert time.perf_counter() - started < 5


def test_registry_lists_pinned_models_by_kind() -> None:
    nli = list_supported_models("nli")
    embedding = list_supported_models("embedding")
    assert nli and embedding
    assert all(info.kind == "nli" for info in nli)
    assert default_model("nli") in nli and default_model("embedding") in embedding
    assert repr(default_model("nli")).startswith("<ModelInfo ")
    with pytest.raises(UnknownModelError, match="no default model of kind 'audio'"):
        default_model("audio")  # type: ignore[arg-type]


def test_cached_snapshot_missing_a_needed_file_is_not_found(offline: Path) -> None:
    fake_hf_cache(offline, "acme/tiny-nli", {"config.json": "{}"})
    with pytest.raises(
        ModelNotFoundError, match=r"'acme/tiny-nli' \(revision main\) with onnx/int8.onnx is not"
    ):
        resolve_model("acme/tiny-nli", kind="nli", required_files=["config.json", "onnx/int8.onnx"])
    # allow_patterns are alternatives to fetch, not requirements
    assert resolve_model("acme/tiny-nli", kind="nli", allow_patterns=["config.json", "x.bin"])


def test_embedding_offline_error_names_the_embedding_variable(offline: Path) -> None:
    with pytest.raises(ModelNotFoundError, match="SEMANTIX_EMBEDDING_MODEL_DIR=/path/to/model"):
        resolve_model(None, kind="embedding")
