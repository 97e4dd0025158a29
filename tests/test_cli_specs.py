"""Judge specs as the command line, the environment and the plugin give them: short names with
a model (``llm:gpt-4o``), did-you-mean for misspelt names, and model directories handed to the
wrong judge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import fake_modules, run
from semantix import ConfigurationError
from semantix.pipeline._judging import resolve_judge
from semantix.pipeline._specs import JudgeSpec, check_spec, judge_from_spec, parse_spec

pytestmark = pytest.mark.usefixtures("fake_modules")
__all__ = ["fake_modules"]


@pytest.mark.parametrize(
    ("spec", "parsed"),
    [
        ("llm", JudgeSpec(name="llm")),
        (" llm:gpt-4o ", JudgeSpec(name="llm", model="gpt-4o")),
        ("embedding:./models/minilm", JudgeSpec(name="embedding", model="./models/minilm")),
        ("cli_fakes:judge", JudgeSpec(path="cli_fakes:judge")),
        ("myapp.llm:Judge", JudgeSpec(path="myapp.llm:Judge")),
    ],
)
def test_a_short_name_before_the_colon_carries_the_model(spec: str, parsed: JudgeSpec) -> None:
    assert parse_spec(spec) == parsed


@pytest.mark.parametrize(("typo", "meant"), [("embeding", "embedding"), ("quantised", "quantized")])
def test_a_misspelt_judge_name_gets_a_did_you_mean(typo: str, meant: str) -> None:
    with pytest.raises(ConfigurationError) as info:
        check_spec(typo, source="SEMANTIX_JUDGE")
    assert str(info.value).startswith(
        f"unknown judge {typo!r} (SEMANTIX_JUDGE); did you mean {meant!r}? use one of quantized,"
    )


def test_the_command_line_names_its_option_in_a_did_you_mean(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, _, err = run(capsys, "check", "hi", "polite", "--judge", "embeding")
    assert status == 2
    assert err.startswith(
        "semantix check: error: unknown judge 'embeding' (--judge); did you mean 'embedding'?"
    )


def test_a_short_name_with_an_empty_model_says_how_to_write_it() -> None:
    with pytest.raises(ConfigurationError, match=r"'llm:' .* names no model.*'llm:gpt-4o-mini'"):
        check_spec("llm:")


def test_the_llm_model_comes_from_the_spec_everywhere_a_spec_is_read(
    monkeypatch: pytest.MonkeyPatch, openai_sdk: None
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert judge_from_spec("llm:gpt-4o").model == "gpt-4o"  # type: ignore[attr-defined]
    assert judge_from_spec("llm").model == "gpt-4o-mini"  # type: ignore[attr-defined]
    monkeypatch.setenv("SEMANTIX_JUDGE", "llm:gpt-4.1-nano")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    judge = resolve_judge(None)
    assert "gpt-4.1-nano" in str(judge) and "127.0.0.1:9" in str(judge)
    with pytest.raises(ConfigurationError, match="names the model 'gpt-4o' and model='x'"):
        judge_from_spec("llm:gpt-4o", model="x")


def test_an_embedding_directory_without_judge_says_add_judge_embedding(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"architectures": ["BertModel"]}))
    (tmp_path / "sentence_bert_config.json").write_text("{}")
    status, out, err = run(
        capsys, "check", "Thank you!", "The text is polite.", "--model", str(tmp_path)
    )
    assert (status, out) == (2, "")
    assert err == (
        f"semantix check: error: --model {str(tmp_path)!r} looks like an embedding model "
        "(sentence_bert_config.json), and the default judge is an NLI judge; add --judge "
        "embedding\n"
    )
    status, _, err = run(
        capsys, "check", "hi", "polite", "--model", str(tmp_path), "--judge", "nli"
    )
    assert status == 2 and err.endswith("not an NLI model; use --judge embedding, not 'nli'\n")


def test_a_missing_embedding_model_dir_points_to_an_embedding_fix(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("onnxruntime")
    monkeypatch.setenv("SEMANTIX_EMBEDDING_MODEL_DIR", "/nonexistent")
    status, _, err = run(capsys, "check", "hi", "polite", "--judge", "embedding")
    assert status == 2
    assert "SEMANTIX_EMBEDDING_MODEL_DIR='/nonexistent' is not a directory" in err
    assert "`semantix export MODEL DIR` makes one from a sentence-transformers model" in err


def test_an_embedding_directory_without_onnx_names_the_export_command_and_the_file_option(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pytest.importorskip("onnxruntime")
    status, _, err = run(
        capsys, "check", "hi", "polite", "--judge", "embedding", "--model", str(tmp_path)
    )
    assert status == 2
    assert f"ONNX files there: none. `semantix export {tmp_path}` adds onnx/model.onnx" in err
    assert "--file" not in err  # there is no ONNX file to name
    (tmp_path / "other.onnx").write_bytes(b"")
    status, _, err = run(
        capsys, "check", "hi", "polite", "--judge", "embedding", "--model", str(tmp_path)
    )
    assert "file=" not in err and "Pass --file FILE naming one of them, or `semantix" in err


def test_file_option_reaches_the_judge(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime")
    status, _, err = run(
        capsys,
        "check",
        "hi",
        "polite",
        "--judge",
        "embedding",
        "--model",
        str(tmp_path),
        "--file",
        "onnx/other.onnx",
    )
    assert status == 2 and "has no ONNX file 'onnx/other.onnx'" in err
    status, _, err = run(capsys, "check", "hi", "polite", "--judge", "nli", "--file", "x.onnx")
    assert status == 2
    assert "--file 'x.onnx' needs a judge that loads a model (quantized, embedding" in err
