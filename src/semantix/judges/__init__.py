"""Judges: they turn (output, intent description, threshold) into a `Verdict`; the heavy ones
are imported on first attribute access, never by ``import semantix``."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from semantix import _compat as compat
from semantix.judges._base import Judge, JudgeIdentity, TokenUsage, Verdict
from semantix.judges._fake import FakeJudge

if TYPE_CHECKING:
    from semantix.judges._embedding import EmbeddingJudge
    from semantix.judges._embedding_function import EmbeddingFunctionJudge
    from semantix.judges._escalating import EscalatingJudge
    from semantix.judges._llm import LLMJudge
    from semantix.judges._prompted import CallableJudge
    from semantix.judges._quantized import QuantizedNLIJudge
    from semantix.judges._similarity import ExampleRule
    from semantix.judges._transformers import NLIJudge

__all__ = [
    "CallableJudge",
    "EmbeddingFunctionJudge",
    "EmbeddingJudge",
    "EscalatingJudge",
    "ExampleRule",
    "FakeJudge",
    "Judge",
    "JudgeIdentity",
    "LLMJudge",
    "NLIJudge",
    "QuantizedNLIJudge",
    "TokenUsage",
    "Verdict",
]

# Judge classes whose modules import heavy libraries: loaded on first attribute access.
_LAZY = {
    "QuantizedNLIJudge": "semantix.judges._quantized",
    "NLIJudge": "semantix.judges._transformers",
    "EmbeddingJudge": "semantix.judges._embedding",
    "EmbeddingFunctionJudge": "semantix.judges._embedding_function",  # numpy, on first use
    "ExampleRule": "semantix.judges._similarity",
    "LLMJudge": "semantix.judges._llm",
    "CallableJudge": "semantix.judges._prompted",  # light, but lazy like its peers
    "EscalatingJudge": "semantix.judges._escalating",  # light, but lazy like its peers
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    return compat.resolve(__name__, name)
