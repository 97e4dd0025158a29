"""NLI judge on transformers + torch, full precision.

Same NLI core as :class:`~semantix.QuantizedNLIJudge` (hypothesis, windows, labels, batching),
so both give the same scores up to int8 quantization error. Use it to check the quantized
judge, on GPUs, or with models that have no ONNX export.

```python
from semantix import Intent, NLIJudge, assert_semantic

class Polite(Intent):
    \"\"\"The text must be polite.\"\"\"

assert_semantic("Thank you so much for your patience!", Polite, judge=NLIJudge())
```
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from semantix.deps import ensure_installed
from semantix.judges.base import JudgeIdentity
from semantix.judges.nli import EncodedBatch, LoadedNLI, NLICore, NLIJudgeBase

ensure_installed(("transformers", "torch", "tokenizers"), extra="hf", feature="NLIJudge")

__all__ = ["NLIJudge"]

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


def _load_network(path: Path, device: str) -> Any:
    import warnings

    import torch
    import transformers

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        network = transformers.AutoModelForSequenceClassification.from_pretrained(
            str(path), dtype=torch.float32
        )
    network.to(device)
    network.eval()
    return network


def _load_tokenizer(path: Path) -> Any:
    """tokenizer.json when present, else the fast tokenizer transformers builds."""
    if (path / "tokenizer.json").is_file():
        from tokenizers import Tokenizer

        return Tokenizer.from_file(str(path / "tokenizer.json"))
    import transformers

    fast = transformers.AutoTokenizer.from_pretrained(str(path), use_fast=True)  # type: ignore[no-untyped-call]
    backend = getattr(fast, "backend_tokenizer", None)
    if backend is None:
        from semantix.errors import ConfigurationError

        raise ConfigurationError(
            f"{path} has no tokenizer.json and transformers cannot build a fast tokenizer for "
            "it; NLIJudge needs a fast tokenizer (install sentencepiece/tiktoken as required)"
        )
    from tokenizers import Tokenizer

    return Tokenizer.from_str(backend.to_str())


class TorchBackend(NamedTuple):
    """The torch half of a loaded transformers judge."""

    network: Any
    uses_token_types: bool


class NLIJudge(NLIJudgeBase):
    """NLI judge on transformers + torch (fp32): scores P(entailment) of the hypothesis.

    Args:
        model: a model directory, a short name, a Hugging Face repo id, or None for the default
            NLI model (``SEMANTIX_MODEL_DIR`` if set).
        revision: the Hub revision (default: the registry's pinned commit, else "main").
        cache_dir: a Hugging Face cache directory instead of ``HF_HUB_CACHE``/``HF_HOME``.
        device: a torch device string ("cpu", "cuda", "cuda:1", "mps").
        batch_size: pairs per forward pass in :meth:`evaluate_batch`.
        lazy_load: load on first use (True) or now (False).
    """

    def __init__(
        self,
        model: str | os.PathLike[str] | None = None,
        *,
        revision: str | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        device: str = "cpu",
        batch_size: int = 16,
        lazy_load: bool = True,
    ) -> None:
        if not isinstance(device, str) or not device:
            raise ValueError(f"device must be a torch device string such as 'cpu', got {device!r}")
        self.model = model
        self.revision = revision
        self.cache_dir = cache_dir
        self.device = device
        super().__init__(batch_size=batch_size, lazy_load=lazy_load)

    def _load_now(self) -> LoadedNLI:
        from semantix.cache import model_cache
        from semantix.models import resolve_model

        resolved = resolve_model(
            self.model,
            kind="nli",
            revision=self.revision,
            cache_dir=self.cache_dir,
            allow_patterns=list(HUB_FILES),
        )
        directory = str(resolved.path.resolve())
        core = model_cache.get_or_create(
            ("nli-core", directory),
            lambda: NLICore.from_dir(resolved.path, tokenizer=_load_tokenizer(resolved.path)),
        )
        network = model_cache.get_or_create(
            ("torch-model", directory, self.device),
            lambda: _load_network(resolved.path, self.device),
        )
        uses_types = bool(getattr(network.config, "type_vocab_size", 0))
        identity = JudgeIdentity(
            type(self).__name__,
            model=resolved.repo_id or directory,
            revision=resolved.revision,
            file=None,
        )
        return LoadedNLI(core, identity, TorchBackend(network, uses_types))

    def _forward(self, batch: EncodedBatch, backend: TorchBackend) -> Sequence[Sequence[float]]:
        import torch

        def tensor(rows: Sequence[Sequence[int]]) -> Any:
            return torch.tensor(rows, dtype=torch.long, device=self.device)

        inputs = {
            "input_ids": tensor(batch.input_ids),
            "attention_mask": tensor(batch.attention_mask),
        }
        if backend.uses_token_types:
            inputs["token_type_ids"] = tensor(batch.token_type_ids)
        with torch.inference_mode():
            logits = backend.network(**inputs).logits
        return logits.float().cpu().tolist()  # type: ignore[no-any-return]
