"""Export a Hugging Face model to the ONNX layout a semantix judge loads (``semantix export``,
docs/cli.md), with ``torch.onnx.export(dynamo=False)`` and ``quantize_dynamic``."""

from __future__ import annotations

import json
import logging
import os
import warnings
from pathlib import Path
from typing import Any, Literal

from semantix.errors import ConfigurationError
from semantix.files import write_atomic
from semantix.judges.labels import label_map_from_config
from semantix.judges.model_dir import DESCRIBING_FILES, embedding_marks, load_json
from semantix.models import cpu_kind, resolve_model
from semantix.models.deps import require

__all__ = ["EMBEDDING_FILE", "QUANTIZED_FILE", "check_out_dir", "export_model", "quantize_model"]

#: The int8 file written next to ``model.onnx``; the quantized judge picks it first.
QUANTIZED_FILE = "model_quantized.onnx"
#: The file an embedding model is exported to (the first the embedding judge looks for).
EMBEDDING_FILE = "onnx/model.onnx"
#: Tokenizer and config files copied from the source model when present.
COPIED_FILES = (*DESCRIBING_FILES, "modules.json", "1_Pooling/config.json")
OPSET = 17
#: sentence-transformers modules the export reproduces (Normalize: the judge normalises).
_MODULES = ("Transformer", "Pooling", "Normalize")


def export_model(
    model: str,
    out_dir: str | os.PathLike[str],
    *,
    revision: str | None = None,
    quantize: bool = True,
    per_channel: bool = True,
    weight_type: Literal["auto", "qint8", "quint8"] = "auto",
    overwrite: bool = False,
) -> Path:
    """Export ``model`` to ONNX in ``out_dir``.

    Args:
        model: a Hugging Face repo id or a directory holding an NLI (sequence-classification) or
            a sentence-transformers model, and its tokenizer.
        out_dir: where to write (created if needed); ``model``'s own directory adds the ONNX
            files beside its weights.
        revision: the Hub revision to export (repo ids only).
        quantize: also write ``model_quantized.onnx`` (int8 weights; NLI models only).
        per_channel: quantize weights per output channel (per-tensor collapses DeBERTa-v3).
        weight_type: "qint8" (signed: fast on VNNI and ARM CPUs), "quint8" (unsigned: no
            saturation on x86 CPUs without VNNI) or "auto", the right one for this CPU.
        overwrite: write into a non-empty ``out_dir`` (or over the ONNX files of the model's
            own directory), replacing files of the same names (``semantix export --force``).

    Returns:
        ``out_dir`` as a `pathlib.Path`.

    Raises:
        ConfigurationError: ``out_dir`` is a file, or not empty without ``overwrite`` (nothing
            is written), or the model is neither an NLI classifier nor an embedding model the
            export reproduces.
    """
    out = Path(out_dir).expanduser()
    local = Path(str(model)).expanduser()
    in_place = local.is_dir() and out.is_dir() and out.resolve() == local.resolve()
    if not in_place:
        check_out_dir(out, overwrite=overwrite)
    transformers = require("transformers", extra="export", feature="semantix export")
    torch = require("torch", extra="export", feature="semantix export")
    require("onnx", extra="export", feature="semantix export")
    source = str(
        local if local.is_dir() else resolve_model(model, kind="nli", revision=revision).path
    )
    embedding = embedding_marks(Path(source)) is not None
    written = (EMBEDDING_FILE,) if embedding else ("model.onnx", QUANTIZED_FILE)
    if in_place and not overwrite and any((out / name).is_file() for name in written):
        raise ConfigurationError(
            f"{str(out)!r} has {' and '.join(written)} already; pass --force (overwrite=True) "
            "to export them again"
        )
    out.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        # Tracing transformers models emits TracerWarnings and deprecation notices that say
        # nothing about the exported graph; keep them out of the user's -W error runs.
        warnings.simplefilter("ignore")
        config = transformers.AutoConfig.from_pretrained(source)
        if embedding:
            cls = _pools_first_token(Path(source), model)
            network = transformers.AutoModel.from_pretrained(source, dtype=torch.float32)
            output = "sentence_embedding" if cls else "last_hidden_state"
        else:
            _check_labels(config, model)
            network = transformers.AutoModelForSequenceClassification.from_pretrained(
                source, dtype=torch.float32
            )
            cls, output = False, "logits"
        network.eval()
        tokenizer = transformers.AutoTokenizer.from_pretrained(source, use_fast=True)
        texts: list[Any] = [["A man is eating food.", "Someone eats."]]
        if not embedding:
            texts.append(["A person eats.", "Nobody is eating anything at all."])
        sample = tokenizer(*texts, padding=True, return_tensors="pt")
        names = ["input_ids", "attention_mask"]
        if "token_type_ids" in sample and (getattr(config, "type_vocab_size", 0) or 0) > 0:
            names.append("token_type_ids")
        axes: dict[str, dict[int, str]] = {name: {0: "batch", 1: "sequence"} for name in names}
        axes[output] = (
            {0: "batch", 1: "sequence"} if output == "last_hidden_state" else {0: "batch"}
        )
        target = out / written[0]
        target.parent.mkdir(parents=True, exist_ok=True)
        torch.onnx.export(
            _wrapped(network, names, output, cls),
            tuple(sample[name] for name in names),
            str(target),
            input_names=names,
            output_names=[output],
            dynamic_axes=axes,
            opset_version=OPSET,
            do_constant_folding=True,
            dynamo=False,
        )
        _copy_support_files(source, out, tokenizer)
    if quantize and not embedding:
        quantize_model(
            target, out / QUANTIZED_FILE, per_channel=per_channel, weight_type=weight_type
        )
    return out


def quantize_model(
    source: Path,
    target: Path,
    *,
    per_channel: bool = True,
    weight_type: Literal["auto", "qint8", "quint8"] = "auto",
) -> Path:
    """Dynamic int8 quantization of ``source`` into ``target`` (activations u8 at run time);
    "auto" weights are signed on VNNI/ARM CPUs, unsigned elsewhere (`semantix.models.cpu_kind`)."""
    if weight_type not in {"auto", "qint8", "quint8"}:
        raise ValueError(f"weight_type must be 'auto', 'qint8' or 'quint8', got {weight_type!r}")
    if weight_type == "auto":
        weight_type = "qint8" if cpu_kind() in {"vnni", "arm64"} else "quint8"
    quantization = require("onnxruntime.quantization", extra="export", feature="int8 quantization")
    types = quantization.QuantType
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # quantize_dynamic logs a pre-processing hint at WARNING
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            quantization.quantize_dynamic(
                str(source),
                str(target),
                per_channel=per_channel,
                weight_type=types.QInt8 if weight_type == "qint8" else types.QUInt8,
            )
    finally:
        root.setLevel(level)
    return target


def check_out_dir(out: Path, *, overwrite: bool) -> None:
    """Refuse a file, or a non-empty directory unless ``overwrite``: replace no files unasked."""
    if out.exists() and not out.is_dir():
        raise ConfigurationError(
            f"output directory {str(out)!r} is a file; pass a new or empty directory"
        )
    if overwrite or not out.is_dir():
        return
    present = sorted(path.name for path in out.iterdir())
    if present:
        shown = ", ".join(present[:5]) + (
            f" and {len(present) - 5} more" if len(present) > 5 else ""
        )
        raise ConfigurationError(
            f"output directory {str(out)!r} is not empty (it holds {shown}); the export writes "
            "model.onnx, model_quantized.onnx, config.json and tokenizer files and would "
            "replace any of the same name. Pass a new or empty directory, or overwrite=True "
            "(semantix export --force) to write into it anyway"
        )


def _wrapped(network: Any, names: list[str], output: str, first_token: bool) -> Any:
    """``network`` called with named inputs, returning one clean ONNX output: the logits, the
    per-token embeddings, or (``first_token``) the first token's embedding."""
    import torch

    class Wrapped(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.network = network

        def forward(self, *inputs: Any) -> Any:
            outputs = self.network(**dict(zip(names, inputs, strict=True)), return_dict=True)
            if output == "logits":
                return outputs.logits
            hidden = outputs.last_hidden_state
            return hidden[:, 0] if first_token else hidden

    return Wrapped()


def _check_labels(config: Any, model: str) -> None:
    id2label = getattr(config, "id2label", None) or {}
    label_map_from_config(
        {"id2label": {int(k): v for k, v in id2label.items()}}, source=f"{model} config"
    )
    if not getattr(config, "architectures", None) or not any(
        "SequenceClassification" in name for name in config.architectures
    ):
        raise ConfigurationError(
            f"{model} is a {getattr(config, 'architectures', None)!r} model; `semantix export` "
            "needs a sequence-classification NLI model (e.g. cross-encoder/nli-deberta-v3-xsmall)"
            " or a sentence-transformers model (with its modules.json)"
        )


def _pools_first_token(source: Path, model: str) -> bool:
    """Whether the sentence-transformers model at ``source`` pools by its CLS token (else by the
    mean), refusing modules and pooling modes the export does not reproduce."""
    file = source / "modules.json"
    modules = json.loads(file.read_text(encoding="utf-8")) if file.is_file() else []
    paths = {str(m.get("type", "")).rpartition(".")[2]: m.get("path", "") for m in modules}
    extra = sorted(set(paths) - set(_MODULES))
    if extra:
        raise ConfigurationError(
            f"{model} is a sentence-transformers model with {', '.join(extra)} modules; "
            f"`semantix export` reproduces {', '.join(_MODULES)} only, so EmbeddingJudge "
            "would not compute this model's embeddings; use a model without them"
        )
    pooling = load_json(source / paths["Pooling"] / "config.json") if "Pooling" in paths else {}
    modes = sorted(
        k.removeprefix("pooling_mode_")
        for k, on in pooling.items()
        if k.startswith("pooling_mode_") and on is True  # not e.g. include_prompt
    )
    if modes not in ([], ["mean_tokens"], ["cls_token"]):
        raise ConfigurationError(
            f"{model} pools with {', '.join(modes)}; `semantix export` reproduces mean and CLS "
            "pooling only (see its 1_Pooling/config.json)"
        )
    return modes == ["cls_token"]


def _copy_support_files(source: str, out: Path, tokenizer: Any) -> None:
    src = Path(source)
    for name in COPIED_FILES:
        if (src / name).is_file() and src.resolve() != out.resolve():
            write_atomic(out / name, (src / name).read_bytes())  # parents created
    if not (out / "tokenizer.json").is_file():
        backend = getattr(tokenizer, "backend_tokenizer", None)
        if backend is None:
            raise ConfigurationError(
                f"{source} has no tokenizer.json and no fast tokenizer to write one; the "
                "quantized judge needs tokenizer.json"
            )
        write_atomic(out / "tokenizer.json", backend.to_str(pretty=True))
    if not (out / "tokenizer_config.json").is_file():
        tokenizer.save_pretrained(str(out))
