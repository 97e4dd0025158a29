from __future__ import annotations

from pathlib import Path

import pytest

from semantix import ModelNotFoundError, UnknownModelError
from semantix.models import list_supported_models, resolve_model
from semantix.models._api import (
    choose_onnx_file,
    cpu_flags,
    cpu_kind,
    default_model,
    hf_cache_dir,
    lookup_model,
    path_reason,
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
    with pytest.raises(ModelNotFoundError, match="because it starts with '.'"):
        resolve_model("./does-not-exist", kind="nli")


@pytest.mark.parametrize(
    ("name", "because"),
    [
        ("./models/minilm", "it starts with '.'"),
        ("../minilm", "it starts with '.'"),
        ("~/no-such-semantix-model", "it starts with '~'"),
        ("/acme", "it starts with '/'"),
        ("acme/../nli/x", "it has more than one '/'"),
        ("models/minilm/onnx", "it has more than one '/'"),
        ("models\\minilm", "it holds a backslash"),
        ("models/minilm", "its first part, 'models', is a directory here"),
    ],
)
def test_a_missing_local_directory_is_never_taken_for_a_repo_id(
    name: str, because: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 45, item 5: ``EmbeddingJudge(model="models/minilm")`` beside a ``models/`` folder
    without ``minilm`` in it says the directory is not there (no Hub lookup, no download)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "models").mkdir()
    with pytest.raises(ModelNotFoundError) as missing:
        resolve_model(name, kind="embedding")
    message = str(missing.value)
    assert f"model directory {name!r} does not exist" in message
    assert f"not a Hugging Face repo id, because {because}" in message


def test_owner_slash_name_without_a_local_first_part_is_a_repo_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert path_reason("cross-encoder/nli-deberta-v3-xsmall") is None
    assert path_reason("nli-deberta-v3-xsmall") is None
    (tmp_path / "cross-encoder").mkdir()
    assert path_reason("cross-encoder/nli-deberta-v3-xsmall") is not None


@pytest.mark.parametrize("name", ["acme/nli\n", "acme/nli\n\n"])
def test_a_repo_id_is_owner_slash_name_and_nothing_more(name: str) -> None:
    # ($ matches before a trailing newline: a repo id is matched whole, never up to a "\n")
    with pytest.raises(UnknownModelError, match="neither an existing"):
        resolve_model(name, kind="nli")


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
    with pytest.raises(ModelNotFoundError) as info:
        resolve_model(None, kind="nli")
    message = str(info.value)
    assert default_model("nli").repo_id in message
    assert str(offline) in message
    assert "HF_HUB_OFFLINE is set" in message
    assert "semantix download" in message and "local model directory" in message
    assert "SEMANTIX_MODEL_DIR=/path/to/model" in message and "model=..." in message


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
    # allow_patterns are what to fetch, not requirements
    resolved = resolve_model("acme/tiny-nli", kind="nli", allow_patterns=["config.json", "x.bin"])
    assert (resolved.path / "config.json").is_file() and not (resolved.path / "x.bin").exists()


def test_embedding_offline_error_names_the_embedding_variable(offline: Path) -> None:
    with pytest.raises(ModelNotFoundError, match="SEMANTIX_EMBEDDING_MODEL_DIR=/path/to/model"):
        resolve_model(None, kind="embedding")


# --- the registry ------------------------------------------------------------------------------


def test_the_default_nli_model_is_the_universal_classifier() -> None:
    info = default_model("nli")
    assert info.repo_id == "MoritzLaurer/deberta-v3-xsmall-zeroshot-v1.1-all-33"
    assert info.revision == "262ae02f29173eec1c250f90804dc7edc677dcff"
    assert info.labels == ("entailment", "not_entailment")
    assert info.onnx_files("vnni") == info.onnx_files("x86") == ("onnx/model_quantized.onnx",)
    assert info.files("x86") == (
        "config.json",
        "tokenizer.json",
        "tokenizer_config.json",
        "special_tokens_map.json",
        "onnx/model_quantized.onnx",
    )
    assert info.required_files() == ("config.json", "tokenizer.json", "onnx/model_quantized.onnx")


def test_the_fact_style_cross_encoder_stays_registered() -> None:
    info = lookup_model("nli-deberta-v3-xsmall", "nli")
    assert info is not None and not info.default
    assert info is lookup_model("cross-encoder/nli-deberta-v3-xsmall")
    assert info.revision == "a150876415327c80daeff35ca6f68f5ed8cf5c24"


@pytest.mark.parametrize(
    ("cpu", "expected"),
    [
        ("x86", ("onnx/model_quint8_avx2.onnx",)),
        ("vnni", ("onnx/model_qint8_avx512_vnni.onnx", "onnx/model_quint8_avx2.onnx")),
        ("arm64", ("onnx/model_qint8_arm64.onnx", "onnx/model_quint8_avx2.onnx")),
    ],
)
def test_cpu_variant_first_then_the_portable_file(cpu: str, expected: tuple[str, ...]) -> None:
    info = lookup_model("nli-deberta-v3-xsmall", "nli")
    assert info is not None
    assert info.onnx_files(cpu) == expected
    assert info.required_files()[-1] == "onnx/model_quint8_avx2.onnx"  # the portable one


def test_every_registered_model_is_pinned_to_a_commit() -> None:
    names = [info.name for info in list_supported_models()]
    assert len(names) == len(set(names))
    for info in list_supported_models():
        assert len(info.revision) == 40 and int(info.revision, 16) >= 0, info
        assert info.onnx_file.endswith(".onnx") and info.license and info.size_mb > 0
        assert all(file.endswith(".onnx") for _, file in info.cpu_files)
    assert [info.name for info in list_supported_models() if info.default] == [
        default_model("nli").name,
        default_model("embedding").name,
    ]


def test_lookup_names_only_registered_models(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert lookup_model(None, "nli") is default_model("nli")
    assert lookup_model("acme/unknown", "nli") is None
    assert lookup_model(tmp_path, "nli") is None
    assert lookup_model("all-MiniLM-L6-v2", "nli") is None  # another kind
    monkeypatch.setenv("SEMANTIX_MODEL_DIR", str(tmp_path))
    assert lookup_model(None, "nli") is None  # the configured directory is no registry model


# --- the CPU -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("machine", "flags", "kind"),
    [
        ("x86_64", {"avx2", "avx512f"}, "x86"),
        ("x86_64", {"avx2", "avx512_vnni"}, "vnni"),
        ("AMD64", {"avx_vnni"}, "vnni"),
        ("x86_64", {"amx_int8"}, "vnni"),
        ("aarch64", {"asimd"}, "arm64"),
        ("arm64", set(), "arm64"),
    ],
)
def test_cpu_kind(
    monkeypatch: pytest.MonkeyPatch, machine: str, flags: set[str], kind: str
) -> None:
    monkeypatch.setattr("platform.machine", lambda: machine)
    monkeypatch.setattr("semantix.models._api.cpu_flags", lambda: frozenset(flags))
    assert cpu_kind() == kind


def test_cpu_flags_read_from_cpuinfo(tmp_path: Path) -> None:
    x86 = tmp_path / "x86"
    x86.write_text("processor\t: 0\nflags\t\t: fpu avx2 avx512_vnni\n\nflags\t: other\n")
    assert cpu_flags(x86) == {"fpu", "avx2", "avx512_vnni"}
    arm = tmp_path / "arm"
    arm.write_text("processor\t: 0\nFeatures\t: fp asimd sve\n")
    assert cpu_flags(arm) == {"fp", "asimd", "sve"}
    assert cpu_flags(tmp_path / "absent") == frozenset()


def test_choose_onnx_file_prefers_the_cpu_variant(tmp_path: Path) -> None:
    info = lookup_model("nli-deberta-v3-xsmall", "nli")
    assert info is not None
    portable, variant = info.onnx_file, dict(info.cpu_files)["arm64"]
    (tmp_path / "onnx").mkdir()
    assert choose_onnx_file(info, tmp_path, cpu="arm64") == (portable, None)  # neither: caller
    (tmp_path / portable).write_bytes(b"x")
    file, note = choose_onnx_file(info, tmp_path, cpu="arm64", cache_dir=tmp_path / "hub")
    assert file == portable
    assert note == (
        f"{variant} (faster on arm64 CPUs) is not in the cache (`semantix download` on a "
        f"connected machine fetches it); loaded the portable {portable}"
    )
    assert choose_onnx_file(info, tmp_path, cpu="x86") == (portable, None)
    (tmp_path / variant).write_bytes(b"x")
    assert choose_onnx_file(info, tmp_path, cpu="arm64") == (variant, None)


def test_in_replay_mode_a_missing_model_directory_is_the_error_not_an_unrecorded_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from semantix import EmbeddingJudge, assert_semantic

    monkeypatch.chdir(tmp_path)
    (tmp_path / "models").mkdir()
    monkeypatch.setenv("SEMANTIX_VERDICTS", "replay")
    monkeypatch.setenv("SEMANTIX_VERDICTS_PATH", str(tmp_path / "store"))
    judge = EmbeddingJudge(model="models/minilm")
    with pytest.raises(ModelNotFoundError, match="model directory 'models/minilm' does not exist"):
        assert_semantic("Hi there", "The text is polite.", judge=judge)
