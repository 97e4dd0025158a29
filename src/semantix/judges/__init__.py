"""Judges: they turn (output, intent description, threshold) into a `Verdict`.

Heavy judges are imported lazily: ``from semantix.judges import QuantizedNLIJudge`` imports
onnxruntime only when the class is first used, not when semantix is imported. Which judge a check
uses is decided in `semantix.pipeline.judging`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from semantix.judges.base import FakeJudge, Judge, JudgeIdentity, TokenUsage, Verdict

if TYPE_CHECKING:
    from semantix.judges.embedding import EmbeddingJudge
    from semantix.judges.escalating import EscalatingJudge
    from semantix.judges.llm import LLMJudge
    from semantix.judges.quantized import QuantizedNLIJudge
    from semantix.judges.transformers import NLIJudge

__all__ = [
    "EmbeddingJudge",
    "EscalatingJudge",
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
    "LLMJudge": "semantix.judges.llm",
    "EscalatingJudge": "semantix.judges.escalating",  # light, but lazy like its peers
}
# Names that moved to semantix.pipeline.judging; still importable from here for earlier code.
_MOVED = {
    "JUDGE_NAMES": "semantix.pipeline.specs",
    "judge_from_spec": "semantix.pipeline.specs",
    "default_judge": "semantix.pipeline.judging",
    "build_default_judge": "semantix.pipeline.judging",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    if name in _MOVED:
        return getattr(importlib.import_module(_MOVED[name]), name)
    raise AttributeError(f"module 'semantix.judges' has no attribute {name!r}")
