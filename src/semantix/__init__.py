"""semantix: test what an LLM means, not just what it typed.

```python
from semantix import Intent, assert_semantic

class Polite(Intent):
    \"\"\"The text must be polite and professional.\"\"\"

assert_semantic("Thank you for your patience.", Polite)
```

Importing semantix is cheap: judges import onnxruntime, torch, transformers or openai only
when they are first used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from semantix import context as _context
from semantix.cache import clear_cache
from semantix.errors import (
    ConfigurationError,
    CorruptVerdictError,
    IntentCalibrationError,
    JudgeError,
    JudgeTimeoutError,
    JudgeUnavailableError,
    ModelNotFoundError,
    SemanticAssertionError,
    SemantixError,
    UnknownModelError,
    VerdictNotRecordedError,
    VerdictStoreError,
)
from semantix.intent import DEFAULT_THRESHOLD, Intent, IntentDescription
from semantix.judges.base import FakeJudge, Judge, JudgeIdentity, TokenUsage, Verdict
from semantix.pipeline import (
    LeafResult,
    SemanticResult,
    assert_semantic,
    evaluate_many,
    evaluate_semantic,
)

if TYPE_CHECKING:
    from semantix.judges.embedding import EmbeddingJudge
    from semantix.judges.escalating import EscalatingJudge
    from semantix.judges.llm import LLMJudge
    from semantix.judges.quantized import QuantizedNLIJudge
    from semantix.judges.transformers import NLIJudge
    from semantix.runs import (
        PassRateError,
        RunResult,
        RunStats,
        assert_pass_rate,
        evaluate_pass_rate,
    )
    from semantix.snapshots import (
        DuplicateSnapshotError,
        SnapshotDriftError,
        SnapshotFileError,
        SnapshotMissingError,
        assert_semantic_snapshot,
    )
    from semantix.verdicts import CachingJudge, RecordReplayJudge, VerdictStore

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_THRESHOLD",
    "CachingJudge",
    "ConfigurationError",
    "CorruptVerdictError",
    "DuplicateSnapshotError",
    "EmbeddingJudge",
    "EscalatingJudge",
    "FakeJudge",
    "Intent",
    "IntentCalibrationError",
    "IntentDescription",
    "Judge",
    "JudgeError",
    "JudgeIdentity",
    "JudgeTimeoutError",
    "JudgeUnavailableError",
    "LLMJudge",
    "LeafResult",
    "ModelNotFoundError",
    "NLIJudge",
    "PassRateError",
    "QuantizedNLIJudge",
    "RecordReplayJudge",
    "RunResult",
    "RunStats",
    "SemanticAssertionError",
    "SemanticResult",
    "SemantixError",
    "SnapshotDriftError",
    "SnapshotFileError",
    "SnapshotMissingError",
    "TokenUsage",
    "UnknownModelError",
    "Verdict",
    "VerdictNotRecordedError",
    "VerdictStore",
    "VerdictStoreError",
    "__version__",
    "assert_pass_rate",
    "assert_semantic",
    "assert_semantic_snapshot",
    "clear_cache",
    "evaluate_many",
    "evaluate_pass_rate",
    "evaluate_semantic",
    "set_default_judge",
]

# Public names loaded on first attribute access: judges whose modules import heavy libraries,
# and the repeated-runs and snapshot APIs (kept out of `import semantix`'s start-up time).
_LAZY = {
    **dict.fromkeys(
        ("PassRateError", "RunResult", "RunStats", "assert_pass_rate", "evaluate_pass_rate"),
        "semantix.runs",
    ),
    **dict.fromkeys(
        (
            "DuplicateSnapshotError",
            "SnapshotDriftError",
            "SnapshotFileError",
            "SnapshotMissingError",
            "assert_semantic_snapshot",
        ),
        "semantix.snapshots",
    ),
    "QuantizedNLIJudge": "semantix.judges.quantized",
    "NLIJudge": "semantix.judges.transformers",
    "EmbeddingJudge": "semantix.judges.embedding",
    "LLMJudge": "semantix.judges.llm",
    "EscalatingJudge": "semantix.judges.escalating",
    "CachingJudge": "semantix.verdicts",
    "RecordReplayJudge": "semantix.verdicts",
    "VerdictStore": "semantix.verdicts",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'semantix' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def set_default_judge(judge: Judge | None) -> None:
    """Use ``judge`` wherever no judge is passed (``None`` restores the built-in default).

    The pytest plugin's ``--semantic-judge`` option sets the same default for the whole run.
    """
    if judge is not None and not callable(getattr(judge, "evaluate", None)):
        raise TypeError(
            f"set_default_judge() needs a judge with an evaluate(...) method, got "
            f"{type(judge).__name__}"
        )
    _context.set_defaults(judge=judge)
