"""Export a Hugging Face model to the ONNX layout a semantix judge loads (``semantix export``,
docs/cli.md), through optimum-onnx's exporter (which checks the exported outputs against the
PyTorch model) and onnxruntime's ``quantize_dynamic``."""

from __future__ import annotations

import logging
import os
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from semantix._files import write_atomic
from semantix.errors import ConfigurationError
from semantix.judges._labels import label_map_from_config
from semantix.judges._model_dir import DESCRIBING_FILES, embedding_marks, load_json
from semantix.models import resolve_model
from semantix.models._api import cpu_kind
from semantix.models._deps import require

__all__ = ["EMBEDDING_FILE", "QUANTIZED_FILE", "check_out_dir", "export_model", "quantize_model"]

#: The int8 file written next to ``model.onnx``; the quantized judge picks it first.
QUANTIZED_FILE = "model_quantized.onnx"
#: The file an embedding model is exported to (the first the embedding judge looks for).
EMBEDDING_FILE = "onnx/model.onnx"
#: Tokenizer and config files copied from the source model when present.
COPIED_FILES = (*DESCRIBING_FILES, "modules.json", "1_Pooling/config.json")
#: Tokenizer files optimum writes, taken from its output where the source has none.
_TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")
#: Where optimum's own architectures are listed, for the error on a model it cannot export.
OPTIMUM_MODELS = "https://huggingface.co/docs/optimum-onnx/onnx/overview"


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
    """Export ``model`` to ONNX in ``out_dir`` with optimum-onnx.

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
            is written), or the model is not an NLI classifier nor a sentence-embedding model,
            or optimum-onnx cannot export its architecture (the error names it).
    """
    out = Path(out_dir).expanduser()
    local = Path(str(model)).expanduser()
    in_place = local.is_dir() and out.is_dir() and out.resolve() == local.resolve()
    if not in_place:
        check_out_dir(out, overwrite=overwrite)
    # (the attribute loads optimum's exporters, which registers the architectures it supports)
    main_export = require(
        "optimum.exporters.onnx", extra="export", feature="semantix export"
    ).main_export
    source = local if local.is_dir() else resolve_model(model, kind="nli", revision=revision).path
    embedding = embedding_marks(source) is not None
    written = (EMBEDDING_FILE,) if embedding else ("model.onnx", QUANTIZED_FILE)
    if in_place and not overwrite and any((out / name).is_file() for name in written):
        raise ConfigurationError(
            f"{str(out)!r} has {' and '.join(written)} already; pass --force (overwrite=True) "
            "to export them again"
        )
    config = load_json(source / "config.json")
    if not embedding:
        _check_labels(config, model)
    task = "feature-extraction" if embedding else "text-classification"
    # A sentence-transformers model is exported whole (its pooling and modules), as the
    # ``sentence_embedding`` output the embedding judge reads.
    library = "sentence_transformers" if (source / "modules.json").is_file() else "transformers"
    _check_supported(config, task, library, model)
    out.mkdir(parents=True, exist_ok=True)
    target = out / written[0]
    with tempfile.TemporaryDirectory(dir=out, prefix=".export-") as scratch, _quiet():
        main_export(str(source), scratch, task=task, library_name=library, do_validation=True)
        exported = Path(scratch)
        target.parent.mkdir(parents=True, exist_ok=True)
        for onnx_file in exported.glob("model.onnx*"):  # with its external data, if any
            os.replace(onnx_file, target.parent / onnx_file.name)
        _copy_support_files(source, exported, out)
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
    "auto" weights are signed on VNNI/ARM CPUs, unsigned elsewhere (`semantix.models._api.cpu_kind`)."""
    if weight_type not in {"auto", "qint8", "quint8"}:
        raise ValueError(f"weight_type must be 'auto', 'qint8' or 'quint8', got {weight_type!r}")
    if weight_type == "auto":
        weight_type = "qint8" if cpu_kind() in {"vnni", "arm64"} else "quint8"
    quantization = require("onnxruntime.quantization", extra="export", feature="int8 quantization")
    types = quantization.QuantType
    with _quiet():  # quantize_dynamic logs a pre-processing hint at WARNING
        quantization.quantize_dynamic(
            str(source),
            str(target),
            per_channel=per_channel,
            weight_type=types.QInt8 if weight_type == "qint8" else types.QUInt8,
        )
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


@contextmanager
def _quiet() -> Iterator[None]:
    """Keep the exporter's and the quantizer's tracing warnings and progress logs (which say
    nothing about the exported graph) out of the user's ``-W error`` runs and terminal."""
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        root.setLevel(level)


def _check_labels(config: dict[str, Any], model: str) -> None:
    id2label = config.get("id2label") or {}
    label_map_from_config(
        {"id2label": {int(k): v for k, v in id2label.items()}}, source=f"{model} config"
    )
    architectures = config.get("architectures")
    if not architectures or not any("SequenceClassification" in name for name in architectures):
        raise ConfigurationError(
            f"{model} is a {architectures!r} model; `semantix export` needs a "
            "sequence-classification NLI model (e.g. cross-encoder/nli-deberta-v3-xsmall) or a "
            "sentence-transformers model (with its modules.json)"
        )


def _check_supported(config: dict[str, Any], task: str, library: str, model: str) -> None:
    """Refuse, before anything is loaded, an architecture optimum-onnx has no exporter for."""
    from optimum.exporters.tasks import TasksManager

    model_type = str(config.get("model_type", "")).replace("_", "-")
    try:
        tasks = TasksManager.get_supported_tasks_for_model_type(
            model_type, exporter="onnx", library_name="transformers"
        )
    except KeyError:
        tasks = {}
    if task not in tasks:
        from importlib.metadata import version

        raise ConfigurationError(
            f"{model} is a {model_type or 'model without a model_type'!r} model, which "
            f"optimum-onnx {version('optimum-onnx')} cannot export for {task} ({library}); `semantix export` "
            f"exports through optimum-onnx only (its architectures: {OPTIMUM_MODELS}). Export "
            "it to ONNX another way (inputs input_ids and attention_mask; output logits for "
            "an NLI model) and pass that directory to the judge, or use a model optimum exports"
        )


def _copy_support_files(source: Path, exported: Path, out: Path) -> None:
    """The source's config, tokenizer and sentence-transformers files into ``out``; optimum's
    tokenizer files where the source has none (a slow-tokenizer model gets tokenizer.json)."""
    for name in COPIED_FILES:
        if (source / name).is_file() and source.resolve() != out.resolve():
            write_atomic(out / name, (source / name).read_bytes())  # parents created
    for name in _TOKENIZER_FILES:
        if not (out / name).is_file() and (exported / name).is_file():
            write_atomic(out / name, (exported / name).read_bytes())
    if not (out / "tokenizer.json").is_file():
        raise ConfigurationError(
            f"{source} has no tokenizer.json and no fast tokenizer to write one; the "
            "quantized and embedding judges need tokenizer.json"
        )
