"""The exceptions semantix raises.

Every error names the value at fault, says what was expected and what to do next.

```
SemantixError                   base of everything below
├── SemanticAssertionError      the output does not mean what the intent asks (an AssertionError)
├── JudgeError                  a judge raised, timed out or returned garbage: never a pass
│   └── JudgeTimeoutError       the judge did not answer in time
├── UnenforceableCheckError     a ceiling cannot be checked (no usage, no price): never a pass
├── PatternTimeoutError         a pattern ran past its time bound on an output: never a pass
├── ConfigurationError          semantix cannot run as configured (also ValueError)
│   ├── JudgeUnavailableError   a judge's optional dependencies are missing (names the extra)
│   ├── UnknownModelError       a model name is no known model, repo id or directory
│   ├── ModelNotFoundError      the model is not on disk and cannot be downloaded (offline)
│   └── IntentCalibrationError  the judge cannot separate an intent's examples
└── VerdictStoreError           the frozen-verdict store cannot answer
    ├── VerdictNotRecordedError replay/strict mode and no verdict stored for this check
    └── CorruptVerdictError     a stored verdict file cannot be read
```

Their tree in full, and how each runner shows them: docs/errors.md. The check pipeline raises
an error that is not a `SemanticAssertionError` without semantix's own frames in the traceback
(`semantix.pipeline._api.without_our_frames`).
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ConfigurationError",
    "CorruptVerdictError",
    "IntentCalibrationError",
    "JudgeError",
    "JudgeTimeoutError",
    "JudgeUnavailableError",
    "ModelNotFoundError",
    "PatternTimeoutError",
    "SemanticAssertionError",
    "SemantixError",
    "UnenforceableCheckError",
    "UnknownModelError",
    "VerdictNotRecordedError",
    "VerdictStoreError",
]


class SemantixError(Exception):
    """Base class of every exception semantix raises on purpose."""


class SemanticAssertionError(SemantixError, AssertionError):
    """The output does not satisfy the intent: the `SemanticResult` is ``result`` (typed
    ``Any``: this bottom floor imports nothing of semantix), its leaves' verdicts ``verdicts``."""

    def __init__(self, message: str, result: Any) -> None:
        super().__init__(message)
        self.result = result

    @property
    def verdicts(self) -> tuple[Any, ...]:
        """The verdict of every leaf intent, in the order the intent names them."""
        return tuple(leaf.verdict for leaf in self.result.leaves)


class JudgeError(SemantixError):
    """A judge raised, timed out or returned something that is not a verdict (the original
    exception chained as ``__cause__``): never a pass."""


class JudgeTimeoutError(JudgeError):
    """The judge did not answer within its timeout."""


class UnenforceableCheckError(SemantixError):
    """A check cannot be decided from what the output carries (a token ceiling on a plain
    ``str``, a cost ceiling for a model without a price): never a pass."""


class PatternTimeoutError(SemantixError):
    """A regular expression ran past its time bound (`semantix.checks._patterns`) on an output:
    the check could not be decided (never a pass, nor a fail); the message names the pattern."""


class ConfigurationError(SemantixError, ValueError):
    """semantix cannot run as configured: a bad argument, option or environment variable."""


class JudgeUnavailableError(ConfigurationError, ImportError):
    """A judge's optional dependencies are not installed; the message names the extra."""


class UnknownModelError(ConfigurationError):
    """A model name that is neither a supported model, a Hugging Face repo id nor a directory."""


class ModelNotFoundError(ConfigurationError):
    """The model is not on disk and cannot be downloaded (offline, or no network). The
    low-level error behind it is kept as ``cause``, not chained: a traceback ends in one line."""

    def __init__(self, message: str, *, cause: BaseException | None = None) -> None:
        super().__init__(message)
        #: The network or hub error that made the download fail, or None.
        self.cause = cause


class VerdictStoreError(SemantixError):
    """The frozen-verdict store cannot answer."""


class VerdictNotRecordedError(VerdictStoreError):
    """Replay or strict mode, and no verdict is stored for this check."""


class CorruptVerdictError(VerdictStoreError):
    """A stored verdict file exists but cannot be read."""


class IntentCalibrationError(ConfigurationError):
    """The judge scores an intent's weakest example no higher than its strongest counterexample,
    so no threshold can be calibrated from them; the message shows both scores."""


# Shown as semantix.X in reprs and tracebacks, where users import them from.
for _error in [value for value in tuple(globals().values()) if isinstance(value, type)]:
    if issubclass(_error, SemantixError):
        _error.__module__ = "semantix"
