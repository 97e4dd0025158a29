"""``semantix download``, with the fetching faked (what would be fetched, and in which order)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from cli_helpers import keyword_score, run
from models.fixtures import *  # session fixtures: the tiny models
from semantix import FakeJudge, JudgeIdentity
from semantix.errors import ModelNotFoundError
from semantix.judges._quantized import required_files as quantized_files
from semantix.models._api import default_model


@dataclass
class Fetches:
    """What the faked download would fetch, in order; the names in ``broken`` fail as on an
    offline machine."""

    calls: list[dict[str, Any]] = field(default_factory=list)
    broken: set[str] = field(default_factory=set)


@pytest.fixture
def fetches(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Fetches:
    record = Fetches()

    def fake_download(model: str, **kwargs: Any) -> Path:
        record.calls.append({"model": model, **kwargs})
        if model in record.broken:
            raise ModelNotFoundError(
                f"model {model!r} is not in the Hugging Face cache\nand offline"
            )
        return tmp_path / model.replace("/", "--")

    def fake_judge_from_spec(spec: str, **kwargs: Any) -> FakeJudge:
        record.calls.append({"judge": spec, **kwargs})
        if spec in record.broken:
            raise ModelNotFoundError(f"the {spec} model is not cached and HF_HUB_OFFLINE is set")
        judge = FakeJudge(keyword_score)
        judge.identity = JudgeIdentity(f"{spec.title()}Judge", model="org/model", revision="abc")
        return judge

    monkeypatch.setattr("semantix.cli._download.download_model", fake_download)
    monkeypatch.setattr("semantix.cli._download.judge_from_spec", fake_judge_from_spec)
    return record


def test_download_defaults_to_the_default_judge(
    capsys: pytest.CaptureFixture[str], fetches: Fetches
) -> None:
    status, out, err = run(capsys, "download")
    assert status == 0
    assert fetches.calls == [{"judge": "quantized", "lazy_load": False}]
    assert out == "quantized: QuantizedJudge(org/model@abc)\n"
    assert "[1/1] fetching the quantized judge's model ..." in err
    assert "copy the cache (HF_HOME) to offline machines and set HF_HUB_OFFLINE=1" in err


def test_download_follows_semantix_judge(
    capsys: pytest.CaptureFixture[str],
    fetches: Fetches,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SEMANTIX_JUDGE", "embedding")
    status, _, _ = run(capsys, "download")
    assert status == 0
    assert fetches.calls == [{"judge": "embedding", "lazy_load": False}]


def test_download_judges_and_models(
    capsys: pytest.CaptureFixture[str], fetches: Fetches, tmp_path: Path
) -> None:
    status, out, err = run(
        capsys,
        "download",
        "--judge",
        "embedding",
        "--judge",
        "llm",
        "--judge",
        "nli",
        "--model",
        "cross-encoder/nli-deberta-v3-small",
        "--model",
        "all-MiniLM-L6-v2",
        "--revision",
        "abc123",
        "--cache-dir",
        str(tmp_path / "hf"),
    )
    assert status == 0
    cache = str(tmp_path / "hf")
    assert fetches.calls == [
        {"judge": "embedding", "lazy_load": False, "cache_dir": cache},
        {"judge": "nli", "lazy_load": False, "cache_dir": cache},
        {
            "model": "cross-encoder/nli-deberta-v3-small",
            "kind": "nli",
            "revision": "abc123",
            "cache_dir": cache,
            "allow_patterns": quantized_files("cross-encoder/nli-deberta-v3-small"),
        },
        {
            "model": "all-MiniLM-L6-v2",
            "kind": "embedding",
            "revision": "abc123",
            "cache_dir": cache,
            "allow_patterns": [default_model("embedding").onnx_file, "*.json", "vocab.txt"],
        },
    ]
    assert "llm: nothing to download (the judge calls a server)" in err
    assert "[4/4] fetching all-MiniLM-L6-v2 ..." in err
    assert out.splitlines() == [
        "embedding: EmbeddingJudge(org/model@abc)",
        "nli: NliJudge(org/model@abc)",
        f"cross-encoder/nli-deberta-v3-small: {tmp_path / 'cross-encoder--nli-deberta-v3-small'}",
        f"all-MiniLM-L6-v2: {tmp_path / 'all-MiniLM-L6-v2'}",
    ]


def test_each_failure_is_reported_and_the_rest_still_run(
    capsys: pytest.CaptureFixture[str], fetches: Fetches
) -> None:
    fetches.broken.update({"embedding", "org/broken"})
    status, out, err = run(
        capsys,
        "download",
        "--judge",
        "embedding",
        "--judge",
        "quantized",
        "--model",
        "org/broken",
        "--model",
        "org/fine",
    )
    assert status == 2
    assert [call.get("judge") or call.get("model") for call in fetches.calls] == [
        "embedding",
        "quantized",
        "org/broken",
        "org/fine",
    ]
    assert out.splitlines()[0] == "quantized: QuantizedJudge(org/model@abc)"
    assert out.splitlines()[1].startswith("org/fine: ")
    assert (
        "semantix download embedding: error: the embedding model is not cached and "
        "HF_HUB_OFFLINE is set\n"
    ) in err
    assert (
        "semantix download org/broken: error: model 'org/broken' is not in the Hugging Face "
        "cache and offline\n"
    ) in err
    assert err.endswith("2 of 4 downloads done; failed: embedding, org/broken (see above)\n")


def test_download_rejects_unknown_judge(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "download", "--judge", "gpt")
    assert status == 2
    assert "invalid choice: 'gpt'" in err


def test_a_judge_download_writes_the_optimized_copy_unless_told_not_to(
    capsys: pytest.CaptureFixture[str], wide_bert_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The optimized ONNX copy is written here, where the user asked for it, never in a test run.
    monkeypatch.setenv("SEMANTIX_MODEL_DIR", str(wide_bert_model))
    status, out, _ = run(capsys, "download", "--judge", "quantized")
    assert status == 0
    assert "(optimized copy: off)" in out  # SEMANTIX_ORT_CACHE=0 in the tests
    status, out, _ = run(capsys, "download", "--judge", "quantized", "--no-optimize")
    assert status == 0 and "optimized copy" not in out


def test_a_local_directory_is_not_downloaded_nor_counted(
    capsys: pytest.CaptureFixture[str], fetches: Fetches, tmp_path: Path
) -> None:
    """Issue 34, item 8: ``--model DIR`` printed "1 model cached" for a directory."""
    local = tmp_path / "models" / "minilm"
    local.mkdir(parents=True)
    status, out, err = run(capsys, "download", "--model", str(local))
    assert (status, out, fetches.calls) == (0, "", [])
    assert err == (
        f"{local}: a local directory, nothing to download; use it as it is (--model {local}, "
        f"model={str(local)!r})\n"
    )
    status, out, err = run(capsys, "download", "--model", str(local), "--model", "org/fine")
    assert status == 0 and [call["model"] for call in fetches.calls] == ["org/fine"]
    assert "done: 1 model cached" in err and out.startswith("org/fine: ")
