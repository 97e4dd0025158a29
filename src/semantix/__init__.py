"""semantix: test what an LLM means, not just what it typed.

```python
from semantix import Intent, assert_semantic

class Polite(Intent):
    \"\"\"The text must be polite and professional.\"\"\"

assert_semantic("Thank you for your patience.", Polite)
```

The top level holds what a test author imports: intents, the assert and evaluate functions
(sync and async), the
judges, `Verdict`, `Judge` and the exceptions a test catches. Everything else lives in the
module that owns it (`semantix.checks`, `semantix.runs`, `semantix.snapshots`,
`semantix.verdicts`, `semantix.errors`, `semantix._context`, ...); the names that used to be here
still resolve (see `semantix._compat`).

Importing semantix is cheap: judges import onnxruntime, torch, transformers or openai only
when they are first used.
"""

from __future__ import annotations

import importlib as _importlib
import typing as _typing

from semantix import _compat as _compat

_compat.refuse_a_second_semantix()

if _typing.TYPE_CHECKING:
    from semantix._cache import clear_cache
    from semantix._intent import Intent
    from semantix.errors import JudgeError, SemanticAssertionError, SemantixError
    from semantix.judges._base import Judge, Verdict
    from semantix.judges._embedding import EmbeddingJudge
    from semantix.judges._escalating import EscalatingJudge
    from semantix.judges._fake import FakeJudge
    from semantix.judges._llm import LLMJudge
    from semantix.judges._quantized import QuantizedNLIJudge
    from semantix.judges._transformers import NLIJudge
    from semantix.pipeline import (
        aassert_semantic,
        aevaluate_many,
        aevaluate_semantic,
        assert_semantic,
        evaluate_many,
        evaluate_semantic,
    )
    from semantix.pipeline._results import SemanticResult

__version__ = "0.1.0"

__all__ = [
    "EmbeddingJudge",
    "EscalatingJudge",
    "FakeJudge",
    "Intent",
    "Judge",
    "JudgeError",
    "LLMJudge",
    "NLIJudge",
    "QuantizedNLIJudge",
    "SemanticAssertionError",
    "SemanticResult",
    "SemantixError",
    "Verdict",
    "__version__",
    "aassert_semantic",
    "aevaluate_many",
    "aevaluate_semantic",
    "assert_semantic",
    "cases",
    "clear_cache",
    "evaluate_many",
    "evaluate_semantic",
    "set_default_judge",
]

# Names loaded on first attribute access, so that ``import semantix`` (and so the pytest plugin,
# in every pytest run) loads nothing it does not use: intents and errors, the pipeline, the
# judges (their modules import heavy libraries on use) and the names that moved off the top
# level into the module that owns them.
_LAZY = {
    name: module
    for module, names in {
        "semantix.pipeline": "aassert_semantic aevaluate_many aevaluate_semantic assert_semantic "
        "evaluate_many evaluate_semantic",
        "semantix.pipeline._results": "LeafResult SemanticResult",
        "semantix._intent": "DEFAULT_THRESHOLD Intent IntentDescription",
        "semantix._cache": "clear_cache",
        "semantix.judges._base": "Judge JudgeIdentity TokenUsage Verdict",
        "semantix.judges._fake": "FakeJudge",
        "semantix.judges._quantized": "QuantizedNLIJudge",
        "semantix.judges._transformers": "NLIJudge",
        "semantix.judges._embedding": "EmbeddingJudge",
        "semantix.judges._llm": "LLMJudge",
        "semantix.judges._escalating": "EscalatingJudge",
        "semantix.testing._casefiles": "cases",
        "semantix.errors": "ConfigurationError CorruptVerdictError IntentCalibrationError "
        "JudgeError JudgeTimeoutError JudgeUnavailableError ModelNotFoundError "
        "PatternTimeoutError SemanticAssertionError SemantixError UnenforceableCheckError "
        "UnknownModelError VerdictNotRecordedError VerdictStoreError",
        "semantix.runs": "PassRateError RunResult RunStats assert_pass_rate evaluate_pass_rate",
        "semantix.snapshots": "DuplicateSnapshotError SnapshotDriftError SnapshotFileError "
        "SnapshotMissingError assert_semantic_snapshot",
        "semantix.verdicts": "RecordReplayJudge VerdictStore",
    }.items()
    for name in names.split()
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        return getattr(_importlib.import_module(_LAZY[name]), name)
    return _compat.resolve(__name__, name)


def __dir__() -> list[str]:
    return sorted(__all__)


def set_default_judge(judge: Judge | str | None) -> None:
    """Use ``judge`` wherever no judge is passed (``None`` restores the built-in default).

    ``judge`` is a judge instance or a spec (``"embedding"``, ``"llm:gpt-4o-mini"``,
    ``"module:attr"``). The pytest plugin's ``--semantic-judge`` option, when given, wins over
    this for its run.

    Raises:
        TypeError: a judge class instead of an instance, or an object without ``evaluate``.
        ConfigurationError: an unknown spec.
    """
    from semantix import _context as context
    from semantix.judges._base import check_judge
    from semantix.pipeline._specs import check_spec

    if isinstance(judge, str):
        judge = check_spec(judge, source="set_default_judge")
    elif judge is not None:
        judge = check_judge(judge)
    context.set_defaults(judge=judge)
