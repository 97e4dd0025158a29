"""Where model weights come from: a local directory, or a Hugging Face repo at a pinned revision.

`resolve_model` takes an existing directory as is; None means the judge's default (its
environment variable, else the registry's); a short name or repo id is looked up in the Hugging
Face cache, then downloaded once at the pinned revision (docs/offline.md gives the order).

The int8 NLI files come in variants: a portable file (unsigned weights, loads on every CPU) and,
in some repositories, files with signed weights for CPUs with fast u8 x s8 kernels (VNNI, ARM).
`ModelInfo.onnx_files` lists them in order of preference for this CPU, and the judge picks the
first one present, saying why when it falls back.
"""

from __future__ import annotations

from semantix.models._api import (
    ModelInfo,
    ResolvedModel,
    download_model,
    list_supported_models,
    resolve_model,
)

__all__ = [
    "ModelInfo",
    "ResolvedModel",
    "download_model",
    "list_supported_models",
    "resolve_model",
]
