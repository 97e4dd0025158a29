"""semantix.judges._model_dir: one way to read a model directory for every local-model judge."""

from __future__ import annotations

from pathlib import Path

import pytest

from semantix import ConfigurationError, ModelNotFoundError
from semantix.judges._model_dir import (
    check_inputs,
    dynamic_int8,
    find_onnx,
    load_json,
    local_identity,
    model_max_length,
)


@pytest.mark.parametrize(
    ("config", "tokenizer_config", "truncation", "sentence_bert", "expected"),
    [
        ({"max_position_embeddings": 512}, {"model_max_length": 512}, 128, None, 128),
        # RoBERTa's positions start after the padding index: 514 positions, 512 tokens
        (
            {"max_position_embeddings": 514, "model_type": "roberta", "pad_token_id": 1},
            {},
            None,
            None,
            512,
        ),
        # sentence-transformers' max_seq_length replaces the tokenizer's limits
        (
            {"max_position_embeddings": 512},
            {"model_max_length": 512},
            128,
            {"max_seq_length": 256},
            256,
        ),
        ({"max_position_embeddings": 128}, {}, None, {"max_seq_length": 256}, 128),
        ({}, {"model_max_length": 1e30}, None, None, 512),
    ],
)
def test_max_length(
    config: dict[str, object],
    tokenizer_config: dict[str, object],
    truncation: int | None,
    sentence_bert: dict[str, object] | None,
    expected: int,
) -> None:
    assert (
        model_max_length(config, tokenizer_config, truncation, sentence_bert=sentence_bert)
        == expected
    )


def test_load_json(tmp_path: Path) -> None:
    assert load_json(tmp_path / "missing.json") == {}
    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(ConfigurationError, match="must hold a JSON object"):
        load_json(tmp_path / "list.json")
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(ConfigurationError, match="cannot read"):
        load_json(tmp_path / "broken.json")


def test_find_onnx_takes_the_wanted_file_else_the_first_candidate(tmp_path: Path) -> None:
    (tmp_path / "onnx").mkdir()
    (tmp_path / "onnx" / "model.onnx").write_bytes(b"x")
    (tmp_path / "model_quantized.onnx").write_bytes(b"x")
    candidates = ("model_quantized.onnx", "onnx/model.onnx")
    assert find_onnx(tmp_path, None, candidates, where="m", fix="") == "model_quantized.onnx"
    assert (
        find_onnx(tmp_path, "onnx/model.onnx", candidates, where="m", fix="") == "onnx/model.onnx"
    )
    with pytest.raises(ModelNotFoundError) as caught:
        find_onnx(tmp_path, "nope.onnx", candidates, where="NLI model m", fix="Pass file=...")
    message = str(caught.value)
    assert "no ONNX file 'nope.onnx'" in message
    assert "ONNX files there: model_quantized.onnx, onnx/model.onnx. Pass file=..." in message


def test_check_inputs_names_what_the_judges_feed(tmp_path: Path) -> None:
    class Node:
        def __init__(self, name: str) -> None:
            self.name = name

    class Session:
        def __init__(self, *names: str) -> None:
            self.names = names

        def get_inputs(self) -> list[Node]:
            return [Node(name) for name in self.names]

    good = Session("input_ids", "attention_mask")
    assert check_inputs(good, tmp_path / "m.onnx", judge="j", fix="") == (
        "input_ids",
        "attention_mask",
    )
    with pytest.raises(ConfigurationError, match=r"takes inputs \['pixel_values'\].*Re-export"):
        check_inputs(Session("pixel_values"), tmp_path / "m.onnx", judge="j", fix="Re-export")


def test_dynamic_int8_is_read_from_the_graph(tmp_path: Path) -> None:
    dynamic = tmp_path / "dynamic.onnx"
    dynamic.write_bytes(b"\x08\x07graph...DynamicQuantizeLinear...MatMulInteger")
    static = tmp_path / "static.onnx"
    static.write_bytes(b"\x08\x07graph...MatMul...Gelu")
    assert dynamic_int8(dynamic)
    assert not dynamic_int8(static)
    assert not dynamic_int8(tmp_path / "missing.onnx")


def _external_model(directory: Path, location: str) -> Path:
    """A one-initializer ONNX graph whose weights live in ``location`` (as ``onnx.save`` with
    external data and ``torch.onnx`` write large models)."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    numpy = pytest.importorskip("numpy")
    weight = numpy_helper.from_array(numpy.arange(4096, dtype=numpy.float32), name="w")
    graph = helper.make_graph(
        [helper.make_node("Identity", ["w"], ["out"])],
        "g",
        [],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [4096])],
        [weight],
    )
    (directory / location).parent.mkdir(parents=True, exist_ok=True)
    onnx.save(
        helper.make_model(graph),
        str(directory / "model.onnx"),
        save_as_external_data=True,
        location=location,
        size_threshold=0,
    )
    assert (directory / location).is_file()
    return directory


@pytest.mark.parametrize("location", ["weights.bin", "model.onnx_data", "sub/w.data"])
def test_the_digest_covers_the_weights_an_onnx_file_keeps_outside_itself(
    tmp_path: Path, location: str
) -> None:
    """Issue 44: changed external weights must change the identity, whatever their name."""
    model = _external_model(tmp_path / "m", location)
    _, before = local_identity(model, "model.onnx")
    data = model / location
    changed = bytearray(data.read_bytes())
    changed[-1] ^= 1
    data.write_bytes(bytes(changed))
    _, after = local_identity(model, "model.onnx")
    assert after != before
    (model / "unrelated.bin").write_bytes(b"not the model's")
    assert local_identity(model, "model.onnx")[1] == after


def test_an_external_data_file_outside_the_directory_is_an_error(tmp_path: Path) -> None:
    model = _external_model(tmp_path / "m", "w.bin")
    onnx_file = model / "model.onnx"
    onnx_file.write_bytes(onnx_file.read_bytes().replace(b"w.bin", b"../xy"))  # same length
    (tmp_path / "xy").write_bytes(b"weights")
    with pytest.raises(ConfigurationError, match=r"\.\./xy"):
        local_identity(model, "model.onnx")
