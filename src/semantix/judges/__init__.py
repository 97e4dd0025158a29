"""Judges: they turn (output, intent description, threshold) into a `Verdict`; the heavy ones
are imported on first attribute access, never by ``import semantix``."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from semantix import compat
from semantix.judges.base import Judge, JudgeIdentity, TokenUsage, Verdict
from semantix.judges.fake import FakeJudge

if TYPE_CHECKING:
    from semantix.judges.embedding import EmbeddingJudge
    from semantix.judges.embedding_function import EmbeddingFunctionJudge
    from semantix.judges.escalating import EscalatingJudge
    from semantix.judges.llm import LLMJudge
    from semantix.judges.prompted import CallableJudge
    from semantix.judges.quantized import QuantizedNLIJudge
    from semantix.judges.similarity import ExampleRule
    from semantix.judges.transformers import NLIJudge

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
    "QuantizedNLIJudge": "semantix.judges.quantized",
    "NLIJudge": "semantix.judges.transformers",
    "EmbeddingJudge": "semantix.judges.embedding",
    "EmbeddingFunctionJudge": "semantix.judges.embedding_function",  # numpy, on first use
    "ExampleRule": "semantix.judges.similarity",
    "LLMJudge": "semantix.judges.llm",
    "CallableJudge": "semantix.judges.prompted",  # light, but lazy like its peers
    "EscalatingJudge": "semantix.judges.escalating",  # light, but lazy like its peers
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    return compat.resolve(__name__, name)
