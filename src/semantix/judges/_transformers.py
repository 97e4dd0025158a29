"""NLI judge on transformers + torch (fp32, or bfloat16/float16 on request), on the same NLI
core as `QuantizedNLIJudge`: for GPUs and models without an ONNX export (docs/judges/nli.md)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from semantix._cache import model_cache
from semantix.errors import ConfigurationError
from semantix.judges._lazy import Named, SemantixAiArguments
from semantix.judges._nli import LoadedNLI, NLIJudgeBase
from semantix.judges._nli_core import shared_core
from semantix.judges._onnx import EncodedBatch
from semantix.models import resolve_model
from semantix.models._deps import ensure_installed

ensure_installed(("transformers", "torch", "tokenizers"), extra="hf", feature="NLIJudge")

__all__ = ["DTYPES", "NLIJudge"]

#: The precisions NLIJudge runs in (torch dtype names).
DTYPES = ("float32", "bfloat16", "float16")

#: Files the judge needs from the Hub (weights in either format, tokenizer, config).
HUB_FILES = (
    "config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "*.safetensors",
    "pytorch_model.bin",
    "spm.model",
    "vocab.*",
    "merges.txt",
    "added_tokens.json",
)


def check_device(device: str) -> None:
    """Raise a `ConfigurationError` naming ``device`` unless torch can use it."""
    import torch

    try:
        parsed = torch.device(device)
    except (RuntimeError, ValueError) as exc:
        raise ConfigurationError(
            f"device={device!r} is not a torch device ({exc}); use e.g. 'cpu', 'cuda', "
            "'cuda:1' or 'mps'"
        ) from None
    if parsed.type == "cuda":
        if not torch.cuda.is_available():
            raise ConfigurationError(
                f"device={device!r} but torch sees no CUDA GPU here (torch {torch.__version__}, "
                f"built for CUDA {torch.version.cuda or 'none'}); use device='cpu', or install "
                "a CUDA build of torch on a machine with a GPU"
            )
        count = torch.cuda.device_count()
        index = 0 if parsed.index is None else parsed.index
        if index >= count:
            raise ConfigurationError(
                f"device={device!r} does not exist: torch sees {count} CUDA device(s), "
                f"cuda:0 to cuda:{count - 1}; pick one of them"
            )
    elif parsed.type == "mps" and not torch.backends.mps.is_available():
        raise ConfigurationError(
            f"device={device!r} but the Apple MPS backend is not available here; use device='cpu'"
        )


def _load_network(path: Path, device: str, dtype: str) -> Any:
    import warnings

    import torch
    import transformers

    check_device(device)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        network = transformers.AutoModelForSequenceClassification.from_pretrained(
            str(path), dtype=getattr(torch, dtype)
        )
    network.to(device)
    network.eval()
    return network


def _fast_tokenizer(path: Path) -> Any:
    """The fast tokenizer transformers builds for a directory without tokenizer.json."""
    import transformers

    fast = transformers.AutoTokenizer.from_pretrained(str(path), use_fast=True)  # type: ignore[no-untyped-call]
    backend = getattr(fast, "backend_tokenizer", None)
    if backend is None:
        raise ConfigurationError(
            f"{path} has no tokenizer.json and transformers cannot build a fast tokenizer for "
            "it; NLIJudge needs a fast tokenizer (install sentencepiece/tiktoken as required)"
        )
    from tokenizers import Tokenizer

    return Tokenizer.from_str(backend.to_str())


class NLIJudge(SemantixAiArguments, NLIJudgeBase):
    """NLI judge on transformers + torch: scores P(entailment) of the hypothesis.

    Args:
        model: a model directory, a short name, a Hugging Face repo id, or None for the default
            NLI model (``SEMANTIX_MODEL_DIR`` if set).
        revision: the Hub revision (default: the registry's pinned commit, else "main").
        cache_dir: a Hugging Face cache directory instead of ``HF_HUB_CACHE``/``HF_HOME``.
        device: a torch device string ("cpu", "cuda", "cuda:1", "mps"); one that does not
            exist is a `ConfigurationError` naming it, when the model loads.
        dtype: "float32" (default), "bfloat16" or "float16": the precision of the weights and
            activations (half precision is for GPUs; scores stay within 0.01 of fp32).
        batch_size: pairs per forward pass in `evaluate_batch`.
        lazy_load: load on first use (True) or now (False).
        model_name: semantix-ai's name for ``model`` (pass one of the two).

    The arguments it shares with the onnxruntime judges have their names, checks and
    attributes; it takes no ``file`` (transformers picks the weights) nor ``threads`` (torch's
    thread count is per process: ``torch.set_num_threads``). Every bad argument is a
    `ConfigurationError` naming it; ``identity`` never loads the model.
    """

    def __init__(
        self,
        model: str | os.PathLike[str] | None = None,
        *,
        revision: str | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        device: str = "cpu",
        dtype: str = "float32",
        batch_size: int = 16,
        lazy_load: bool = True,
        model_name: str | os.PathLike[str] | None = None,
    ) -> None:
        if not isinstance(device, str) or not device.strip():
            raise ConfigurationError(
                f"device must be a torch device string such as 'cpu', 'cuda' or 'cuda:1', "
                f"got {device!r}"
            )
        if dtype not in DTYPES:
            raise ConfigurationError(
                f"dtype={dtype!r} is not supported; use one of {', '.join(map(repr, DTYPES))}"
            )
        self.device = device
        self.dtype = dtype
        super().__init__(
            model,
            revision=revision,
            cache_dir=cache_dir,
            batch_size=batch_size,
            lazy_load=lazy_load,
            model_name=model_name,
        )

    def _weights(self, named: Named, directory: Path | None) -> tuple[str | None, str | None]:
        return None, None if self.dtype == "float32" else f"{self.dtype} weights"

    def _load_now(self) -> LoadedNLI:
        named = self._named()
        resolved = resolve_model(
            self.model,
            kind="nli",
            revision=self.revision,
            cache_dir=self.cache_dir,
            allow_patterns=list(HUB_FILES),
        )
        directory = str(resolved.path.resolve())
        core = shared_core(resolved.path, lambda: _fast_tokenizer(resolved.path))
        network = model_cache.get_or_create(
            ("torch-model", directory, self.device, self.dtype),
            lambda: _load_network(resolved.path, self.device, self.dtype),
        )
        named = Named(resolved.path, named.info, resolved.repo_id, resolved.revision)
        identity = self.make_identity(named, resolved.path)
        return LoadedNLI(core, identity, network)

    def _forward(self, batch: EncodedBatch, network: Any) -> Sequence[Sequence[float]]:
        import torch

        def tensor(rows: Sequence[Sequence[int]]) -> Any:
            return torch.tensor(rows, dtype=torch.long, device=self.device)

        inputs = {
            "input_ids": tensor(batch.input_ids),
            "attention_mask": tensor(batch.attention_mask),
        }
        if getattr(network.config, "type_vocab_size", 0):
            inputs["token_type_ids"] = tensor(batch.token_type_ids)
        with torch.inference_mode():
            logits = network(**inputs).logits
        return logits.float().cpu().tolist()  # type: ignore[no-any-return]
