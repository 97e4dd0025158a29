"""Export any Hugging Face sequence-classification NLI model to the layout the quantized judge loads.

```
out_dir/
  model.onnx              fp32, dynamic batch and sequence axes
  model_quantized.onnx    int8 weights (dynamic quantization, per-channel by default)
  config.json             id2label tells the judge which output is entailment
  tokenizer.json          the fast tokenizer (written from the model's tokenizer if missing)
  tokenizer_config.json, special_tokens_map.json, ... (copied when present)
```

The exporter is ``torch.onnx.export(dynamo=False)`` (the TorchScript exporter): it works with
transformers 4.x and 5.x alike, needs nothing beyond transformers + torch, and handles BERT,
RoBERTa and DeBERTa-v2/v3. (optimum-onnx 0.1 also works with transformers 4.57, but not with
5.x.) Quantization is ``onnxruntime.quantization.quantize_dynamic`` with 8-bit weights
(signed on VNNI/ARM CPUs, unsigned elsewhere: ``weight_type``),
per-channel by default: per-tensor int8 is known to wreck DeBERTa-v3 accuracy.

Needs the ``export`` extra: ``pip install 'semantix-judge[export]'``.
"""

from __future__ import annotations

import logging
import os
import warnings
from pathlib import Path
from typing import Any, Literal

from semantix.errors import ConfigurationError
from semantix.files import write_atomic
from semantix.judges.labels import label_map_from_config
from semantix.models import cpu_kind, resolve_model
from semantix.models.deps import require

__all__ = ["QUANTIZED_FILE", "check_out_dir", "export_model", "quantize_model"]

#: The int8 file written next to ``model.onnx``; the quantized judge picks it first.
QUANTIZED_FILE = "model_quantized.onnx"
#: Tokenizer and config files copied from the source model when present.
COPIED_FILES = (
    "config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "vocab.txt",
    "vocab.json",
    "merges.txt",
    "spm.model",
    "added_tokens.json",
    "sentencepiece.bpe.model",
)
OPSET = 17


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
    """Export ``model`` (a repo id or a local directory) to ONNX (+ int8) in ``out_dir``.

    Args:
        model: a Hugging Face repo id or a directory holding a transformers
            sequence-classification model and its tokenizer.
        out_dir: where to write the layout above (created if needed).
        revision: the Hub revision to export (repo ids only).
        quantize: also write ``model_quantized.onnx`` (int8 weights).
        per_channel: quantize weights per output channel (recommended; per-tensor int8
            collapses DeBERTa-v3).
        weight_type: "qint8" (signed weights: the fast u8 x s8 kernels of VNNI and ARM CPUs),
            "quint8" (unsigned: no saturation on x86 CPUs without VNNI) or "auto", the right
            one for the CPU exporting (see ``semantix.models.cpu_kind``).
        overwrite: write into ``out_dir`` even when it is not empty, replacing files of the
            same names (``semantix export --force``); other files are left as they are.

    Returns:
        ``out_dir`` as a `pathlib.Path`.

    Raises:
        ConfigurationError: ``out_dir`` is a file, or a directory that is not empty and
            ``overwrite`` is False (nothing is written), or the model is not an NLI classifier.
    """
    out = Path(out_dir).expanduser()
    check_out_dir(out, overwrite=overwrite)
    transformers = require("transformers", extra="export", feature="semantix export")
    torch = require("torch", extra="export", feature="semantix export")
    require("onnx", extra="export", feature="semantix export")
    out.mkdir(parents=True, exist_ok=True)
    source = _source_dir(model, revision)

    with warnings.catch_warnings():
        # Tracing transformers models emits TracerWarnings and deprecation notices that say
        # nothing about the exported graph; keep them out of the user's -W error runs.
        warnings.simplefilter("ignore")
        config = transformers.AutoConfig.from_pretrained(source)
        _check_labels(config, model)
        network = transformers.AutoModelForSequenceClassification.from_pretrained(
            source, dtype=torch.float32
        )
        network.eval()
        tokenizer = transformers.AutoTokenizer.from_pretrained(source, use_fast=True)
        sample = tokenizer(
            ["A man is eating food.", "Someone eats."],
            ["A person eats.", "Nobody is eating anything at all."],
            padding=True,
            return_tensors="pt",
        )
        names = ["input_ids", "attention_mask"]
        if "token_type_ids" in sample and (getattr(config, "type_vocab_size", 0) or 0) > 0:
            names.append("token_type_ids")
        args = tuple(sample[name] for name in names)
        axes: dict[str, dict[int, str]] = {name: {0: "batch", 1: "sequence"} for name in names}
        axes["logits"] = {0: "batch"}
        fp32 = out / "model.onnx"
        torch.onnx.export(
            _Wrapper(network, names),
            args,
            str(fp32),
            input_names=names,
            output_names=["logits"],
            dynamic_axes=axes,
            opset_version=OPSET,
            do_constant_folding=True,
            dynamo=False,
        )
        _copy_support_files(source, out, tokenizer)
    if quantize:
        quantize_model(fp32, out / QUANTIZED_FILE, per_channel=per_channel, weight_type=weight_type)
    return out


def quantize_model(
    source: Path,
    target: Path,
    *,
    per_channel: bool = True,
    weight_type: Literal["auto", "qint8", "quint8"] = "auto",
) -> Path:
    """Dynamic int8 quantization of ``source`` into ``target``.

    Activations are quantized to u8 at run time. Signed weights (u8 x s8) use the fast VNNI /
    ARM dot-product kernels; on x86 CPUs without VNNI those kernels can saturate, so "auto"
    picks unsigned weights (u8 x u8) there, as sentence-transformers' ``avx2`` exports do.
    """
    if weight_type not in {"auto", "qint8", "quint8"}:
        raise ValueError(f"weight_type must be 'auto', 'qint8' or 'quint8', got {weight_type!r}")
    if weight_type == "auto":
        weight_type = "qint8" if cpu_kind() in {"vnni", "arm64"} else "quint8"
    quantization = require("onnxruntime.quantization", extra="export", feature="int8 quantization")
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
                weight_type=(
                    quantization.QuantType.QInt8
                    if weight_type == "qint8"
                    else quantization.QuantType.QUInt8
                ),
            )
    finally:
        root.setLevel(level)
    return target


def check_out_dir(out: Path, *, overwrite: bool) -> None:
    """Refuse a file, or a non-empty directory unless ``overwrite``: an export must not replace
    someone's ``config.json`` or drop a ``model.onnx`` among their sources unasked."""
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


class _Wrapper:
    """Call the model with named inputs and return only the logits (a clean ONNX output)."""

    def __new__(cls, network: Any, names: list[str]) -> Any:
        import torch

        class Wrapped(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.network = network

            def forward(self, *inputs: Any) -> Any:
                return self.network(
                    **dict(zip(names, inputs, strict=True)), return_dict=True
                ).logits

        return Wrapped()


def _source_dir(model: str, revision: str | None) -> str:
    path = Path(str(model)).expanduser()
    if path.is_dir():
        return str(path)
    return str(resolve_model(model, kind="nli", revision=revision).path)


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
        )


def _copy_support_files(source: str, out: Path, tokenizer: Any) -> None:
    src = Path(source)
    for name in COPIED_FILES:
        if (src / name).is_file() and src.resolve() != out.resolve():
            write_atomic(out / name, (src / name).read_bytes())
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
