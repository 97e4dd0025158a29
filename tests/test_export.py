"""semantix.judges._export: a transformers NLI model -> the ONNX (+ int8) layout the quantized judge loads."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from export_verdicts import NAMES, RECORDED, REQUESTS, build_source, scores
from models.fixtures import semantix_cache  # noqa: F401  (autouse: temporary cache)
from models.tiny import build_tiny_hf_model, build_tiny_sentence_transformer
from semantix import ConfigurationError, ModelNotFoundError, clear_cache
from semantix.judges._embedding import EmbeddingJudge
from semantix.judges._export import EMBEDDING_FILE, QUANTIZED_FILE, export_model
from semantix.judges._quantized import QuantizedNLIJudge
from semantix.judges._transformers import NLIJudge


def _scales(path: Path) -> list[list[int]]:
    import onnx

    model = onnx.load(str(path))
    return [
        list(init.dims)
        for init in model.graph.initializer
        if init.name.endswith("_scale") and "MatMul" in init.name
    ]


def _inputs(path: Path) -> list[str]:
    import onnx

    return [node.name for node in onnx.load(str(path)).graph.input]


@pytest.fixture(scope="module")
def hf_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_hf_model(
        tmp_path_factory.mktemp("hf") / "model",
        id2label={0: "ENTAILMENT", 1: "neutral", 2: "contradiction"},
        head="wide",
        seed=4,
    )


def test_export_writes_the_layout_the_judge_loads(hf_model: Path, tmp_path: Path) -> None:
    out = export_model(str(hf_model), tmp_path / "out")
    assert out == tmp_path / "out"
    names = {p.name for p in out.iterdir()}
    assert {"model.onnx", QUANTIZED_FILE, "config.json", "tokenizer.json"} <= names
    assert "tokenizer_config.json" in names
    assert json.loads((out / "config.json").read_text())["id2label"]["0"] == "ENTAILMENT"
    assert _inputs(out / "model.onnx") == ["input_ids", "attention_mask", "token_type_ids"]
    # Per-channel: every MatMul weight has one scale per output column.
    scales = _scales(out / QUANTIZED_FILE)
    assert scales and all(len(dims) == 1 and dims[0] > 1 for dims in scales)

    judge = QuantizedNLIJudge(out)
    assert judge.identity.file == QUANTIZED_FILE
    reference = NLIJudge(hf_model)
    requests = [
        ("The agent is polite.", "polite", 0.5),
        ("Go away, the customer is angry!", "The reply must mention the refund.", 0.5),
    ]
    int8 = [v.score for v in judge.evaluate_batch(requests)]
    fp32 = [v.score for v in reference.evaluate_batch(requests)]
    assert int8 == pytest.approx(fp32, abs=0.05)


def test_per_tensor_and_no_quantization(hf_model: Path, tmp_path: Path) -> None:
    per_tensor = export_model(str(hf_model), tmp_path / "per-tensor", per_channel=False)
    assert all(dims == [] for dims in _scales(per_tensor / QUANTIZED_FILE))
    plain = export_model(str(hf_model), tmp_path / "plain", quantize=False)
    assert not (plain / QUANTIZED_FILE).exists()
    assert QuantizedNLIJudge(plain).identity.file == "model.onnx"


def test_deberta_export_has_no_token_types(tmp_path: Path) -> None:
    source = build_tiny_hf_model(tmp_path / "deberta", arch="deberta")
    out = export_model(str(source), tmp_path / "out")
    assert _inputs(out / "model.onnx") == ["input_ids", "attention_mask"]


def test_export_refuses_a_model_without_nli_labels(tmp_path: Path) -> None:
    source = build_tiny_hf_model(tmp_path / "sentiment", id2label={0: "negative", 1: "positive"})
    with pytest.raises(ConfigurationError, match="no entailment label"):
        export_model(str(source), tmp_path / "out")


@pytest.mark.parametrize(("weight_type", "dtype"), [("qint8", 3), ("quint8", 2)])
def test_weight_type(hf_model: Path, tmp_path: Path, weight_type: str, dtype: int) -> None:
    """qint8 stores signed weights (onnx INT8 = 3), quint8 unsigned (UINT8 = 2)."""
    import onnx

    out = export_model(str(hf_model), tmp_path / weight_type, weight_type=weight_type)  # type: ignore[arg-type]
    model = onnx.load(str(out / QUANTIZED_FILE))
    weights = [
        i for i in model.graph.initializer if i.name.endswith("_quantized") and "MatMul" in i.name
    ]
    assert weights and {w.data_type for w in weights} == {dtype}
    assert QuantizedNLIJudge(out).evaluate("The agent is polite.", "polite", 0.5).score is not None


def test_bad_weight_type(hf_model: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="weight_type must be"):
        export_model(str(hf_model), tmp_path / "bad", weight_type="int4")  # type: ignore[arg-type]


@pytest.mark.parametrize(("bias_label", "status"), [("entailment", 0), ("contradiction", 1)])
def test_cli_export_then_check_end_to_end(
    bias_label: str,
    status: int,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from semantix.cli import main

    rigged = build_tiny_hf_model(
        tmp_path / "hf",
        id2label={0: "contradiction", 1: "neutral", 2: "entailment"},
        head="bias",
        bias_label=bias_label,
    )
    out = tmp_path / "exported"
    assert main(["export", str(rigged), str(out)]) == 0
    printed = capsys.readouterr()
    assert printed.out.strip() == str(out)
    assert f"SEMANTIX_MODEL_DIR={out}" in printed.err

    # The exported directory is what the judge loads through SEMANTIX_MODEL_DIR or --model
    # (judges named by spec are built once per process: forget the other case's).
    clear_cache()
    monkeypatch.setenv("SEMANTIX_MODEL_DIR", str(out))
    check = ["check", "The agent is polite.", "polite", "--judge", "quantized", "--json"]
    assert main(check) == status
    document = json.loads(capsys.readouterr().out)
    assert document["passed"] is (status == 0)
    assert document["judge"].startswith("QuantizedNLIJudge(exported@")
    monkeypatch.delenv("SEMANTIX_MODEL_DIR")
    assert main([*check, "--model", str(out)]) == status
    assert json.loads(capsys.readouterr().out)["judge"] == document["judge"]


def test_export_refuses_a_non_empty_directory(tmp_path: Path) -> None:
    out = tmp_path / "sources"
    out.mkdir()
    (out / "config.json").write_text('{"mine": true}', encoding="utf-8")
    (out / "train.py").write_text("print('hi')", encoding="utf-8")
    with pytest.raises(
        ConfigurationError, match=r"is not empty \(it holds config.json, train.py\)"
    ):
        export_model("any/model", out)
    assert sorted(path.name for path in out.iterdir()) == ["config.json", "train.py"]
    assert (out / "config.json").read_text(encoding="utf-8") == '{"mine": true}'


def test_export_refuses_a_file_as_output(tmp_path: Path) -> None:
    target = tmp_path / "model.onnx"
    target.write_bytes(b"")
    with pytest.raises(ConfigurationError, match="is a file; pass a new or empty directory"):
        export_model("any/model", target)


def test_cli_export_needs_force_for_a_non_empty_directory(
    hf_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from semantix.cli import main

    out = tmp_path / "sources"
    out.mkdir()
    (out / "config.json").write_text('{"mine": true}', encoding="utf-8")
    (out / "train.py").write_text("print('hi')", encoding="utf-8")
    assert main(["export", str(hf_model), str(out)]) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1].startswith(
        f"semantix export: error: output directory {str(out)!r} is not empty"
    )
    assert "semantix export --force" in err
    assert (out / "config.json").read_text(encoding="utf-8") == '{"mine": true}'

    assert main(["export", str(hf_model), str(out), "--force"]) == 0
    assert "ENTAILMENT" in (out / "config.json").read_text(encoding="utf-8")
    assert {"train.py", "model.onnx", QUANTIZED_FILE} <= {path.name for path in out.iterdir()}


# -- sentence-transformers models: the embedding judge's layout (issue 34, items 4 and 20) -------

TEXTS = ["The agent is polite.", "Thank you for your patience!", "The refund is on its way."]


def _reference(model: Path) -> object:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from sentence_transformers import SentenceTransformer

        return SentenceTransformer(str(model), device="cpu")


def test_a_sentence_transformers_directory_is_one_command_from_a_working_judge(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from semantix.cli import main

    model = build_tiny_sentence_transformer(tmp_path / "my model")
    with pytest.raises(ModelNotFoundError) as missing:
        EmbeddingJudge(model, lazy_load=False)
    command = f"semantix export '{model}'"
    assert f"`{command}` adds onnx/model.onnx to the directory" in str(missing.value)
    assert "pip install 'semantix-judge[export]'" in str(missing.value)
    weights = (model / "model.safetensors").read_bytes()

    assert main(["export", str(model)]) == 0  # the command the error names, as it names it
    printed = capsys.readouterr()
    assert printed.out.strip() == str(model)
    assert "EmbeddingJudge(model=" in printed.err and "SEMANTIX_EMBEDDING_MODEL_DIR=" in printed.err
    assert (model / EMBEDDING_FILE).is_file()
    assert (model / "model.safetensors").read_bytes() == weights  # beside it, untouched
    assert _inputs(model / EMBEDDING_FILE) == ["input_ids", "attention_mask"]
    ours = EmbeddingJudge(model).embed(TEXTS)
    reference = _reference(model).encode(TEXTS, normalize_embeddings=True)  # type: ignore[attr-defined]
    assert np.min(np.sum(ours * reference, axis=1)) > 1 - 1e-5

    assert main(["export", str(model)]) == 2  # a second run would replace the export
    assert "has onnx/model.onnx already; pass --force" in capsys.readouterr().err
    assert main(["export", str(model), "--force"]) == 0


@pytest.mark.parametrize("pooling", ["cls", "max"])
def test_the_model_s_own_pooling_is_exported(pooling: str, tmp_path: Path) -> None:
    """optimum exports the sentence-transformers model whole: any pooling (max included, which
    the torch.onnx exporter refused), read from its pooled ``sentence_embedding`` output."""
    import onnx

    model = build_tiny_sentence_transformer(tmp_path / pooling, pooling=pooling)
    out = export_model(str(model), tmp_path / "out")
    outputs = [o.name for o in onnx.load(str(out / EMBEDDING_FILE)).graph.output]
    assert "sentence_embedding" in outputs
    assert {"modules.json", "sentence_bert_config.json", "tokenizer.json"} <= {
        p.name for p in out.iterdir()
    }
    assert (out / "1_Pooling" / "config.json").is_file()
    ours = EmbeddingJudge(out).embed(TEXTS)
    reference = _reference(model).encode(TEXTS, normalize_embeddings=True)  # type: ignore[attr-defined]
    assert np.min(np.sum(ours * reference, axis=1)) > 1 - 1e-5


@pytest.mark.parametrize("name", NAMES)
def test_optimum_export_gives_the_verdicts_of_the_torch_onnx_export(
    name: str, tmp_path: Path
) -> None:
    """The scores recorded from the files of semantix's own torch.onnx exporter (deleted for
    optimum's, issue 45 item 14), on the same tiny models: fp32 within 1e-4, int8 within 0.02."""
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))[name]
    out = export_model(str(build_source(name, tmp_path / name)), tmp_path / "out")
    found = scores(out, name)
    assert set(found) == set(recorded)
    for file, expected in recorded.items():
        tolerance = 0.02 if file == QUANTIZED_FILE else 1e-4
        assert found[file] == pytest.approx(expected, abs=tolerance), file
        thresholds = [threshold for *_, threshold in REQUESTS]
        verdicts = [s >= t for s, t in zip(found[file], thresholds, strict=True)]
        assert verdicts == [s >= t for s, t in zip(expected, thresholds, strict=True)]


def test_an_architecture_optimum_cannot_export_is_named(tmp_path: Path) -> None:
    source = tmp_path / "canine"
    source.mkdir()
    config = {
        "model_type": "canine",
        "architectures": ["CanineForSequenceClassification"],
        "id2label": {"0": "entailment", "1": "neutral", "2": "contradiction"},
    }
    (source / "config.json").write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(ConfigurationError) as refused:
        export_model(str(source), tmp_path / "out")
    message = str(refused.value)
    assert "is a 'canine' model, which optimum-onnx 0." in message
    assert "cannot export for text-classification" in message
    assert "exports through optimum-onnx only" in message
    assert not (tmp_path / "out").exists()


def test_export_without_out_dir_needs_a_local_directory(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from semantix.cli import main

    assert main(["export", "cross-encoder/nli-deberta-v3-xsmall"]) == 2
    assert capsys.readouterr().err == (
        "semantix export: error: MODEL 'cross-encoder/nli-deberta-v3-xsmall' is not a local "
        "directory, so there is nowhere to add the ONNX files; name one: semantix export "
        "cross-encoder/nli-deberta-v3-xsmall OUT_DIR\n"
    )


@pytest.fixture
def sentence_transformer_dir(tmp_path: Path) -> Path:
    """A sentence-transformers directory without ONNX files, built (and a copy exported) before
    ``pytester`` snapshots ``sys.modules``: pytester drops every module a test imports, and torch
    cannot run its distributed kernels' registration twice in one process (a later test that
    imports transformers then fails)."""
    model = build_tiny_sentence_transformer(tmp_path / "st")
    export_model(str(model), tmp_path / "warm")  # the exporter's imports, before the snapshot
    return model


def test_semantic_matcher_on_a_sentence_transformers_directory(
    sentence_transformer_dir: Path, pytester: pytest.Pytester
) -> None:
    """pytest-semantic's ``semantic_matcher(model_name=DIR)``: the error names the one command;
    after it, the same directory works."""
    model = sentence_transformer_dir
    pytester.makepyfile(
        test_match=f"""
        def test_greeting(semantic_matcher):
            matcher = semantic_matcher(valid=["The agent is polite."], model_name={str(model)!r},
                                       threshold=0.0, min_similarity=0.0)
            assert "The agent is polite." == matcher
        """
    )
    failed = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-vv")  # the whole error
    failed.assert_outcomes(failed=1)
    failed.stdout.fnmatch_lines([f"*`semantix export {model}` adds onnx/model.onnx*"])
    export_model(str(model), model)
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_a_missing_exporter_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A dotted module whose package is missing (``optimum.exporters.onnx`` without optimum) is
    reported with the install command, not as a ModuleNotFoundError."""
    from semantix.cli import _export as export_command
    from semantix.cli import main

    monkeypatch.setattr(
        export_command, "EXPORT_MODULES", ("onnx", "semantix_no_such_package.exporters.onnx")
    )
    assert main(["export", "any/model", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err.splitlines()[0] == (
        "semantix export: error: semantix export needs semantix_no_such_package.exporters.onnx, "
        "which is not installed; run: pip install -e '.[export]' in a clone (or pip install "
        "'semantix-judge[export]')"
    )
