"""The exceptions semantix raises (their tree, and how each runner shows them: docs/errors.md).

Every error names the value at fault, says what was expected and what to do next. A
`SemanticAssertionError` means "the output is wrong"; everything else means "the check could
not be judged", and the check pipeline raises it without semantix's own frames in the traceback
(`without_our_frames`).
"""

from __future__ import annotations

import os
import types
from typing import Any, TypeVar

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
    """The output does not satisfy the intent.

    Carries the full `SemanticResult` (every leaf verdict) as ``result``, and
    the verdicts as ``verdicts``. (``result`` is typed ``Any`` because this module is the bottom
    floor: it imports nothing of semantix. ``evaluate_semantic`` returns the typed result.)
    """

    def __init__(self, message: str, result: Any) -> None:
        super().__init__(message)
        self.result = result

    @property
    def verdicts(self) -> tuple[Any, ...]:
        """The verdict of every leaf intent, in the order the intent names them."""
        return tuple(leaf.verdict for leaf in self.result.leaves)


class JudgeError(SemantixError):
    """A judge raised, timed out or returned something that is not a verdict.

    The original exception is chained as ``__cause__``. A judge error is never a pass.
    """


class JudgeTimeoutError(JudgeError):
    """The judge did not answer within its timeout."""


class UnenforceableCheckError(SemantixError):
    """A check cannot be decided from what the output carries: never a pass.

    A token ceiling on an output without usage (a plain ``str``), a cost ceiling for a model
    without a price. The message says what is missing and how to supply it.
    """


class PatternTimeoutError(SemantixError):
    """A regular expression ran past its time bound on an output (it backtracks catastrophically).

    Every pattern semantix runs on what a model wrote has a bound (`semantix.checks.patterns`);
    the message names the pattern and the limit. Never a pass, and never a fail either: the
    check could not be decided.
    """


class ConfigurationError(SemantixError, ValueError):
    """semantix cannot run as configured: a bad argument, option or environment variable."""


class JudgeUnavailableError(ConfigurationError, ImportError):
    """A judge's optional dependencies are not installed; the message names the extra."""


class UnknownModelError(ConfigurationError):
    """A model name that is neither a supported model, a Hugging Face repo id nor a directory."""


class ModelNotFoundError(ConfigurationError):
    """The model is not on disk and cannot be downloaded (offline, or no network).

    The message is short: what is missing, where semantix looked and the ways out. The
    low-level error behind it (a connection error, an HTTP status) is kept as ``cause``, not
    repeated in the text and not chained, so a script's traceback ends in one clean line.
    """

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
    """The judge scores an intent's weakest example no higher than its strongest counterexample.

    The threshold cannot be calibrated from the examples; the message shows both scores.
    """


_E = TypeVar("_E", bound=BaseException)
_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def without_our_frames(exc: _E) -> _E:
    """``exc`` without semantix's own frames in its traceback.

    The check pipeline raises its `SemantixError` through it (their messages already say what
    to do): a configuration error in a script or under ``python -m unittest`` shows the
    user's line and one message, not semantix's call stack (pytest hides our frames itself).
    Chained causes keep their tracebacks.
    """
    kept, entry = [], exc.__traceback__
    while entry is not None:
        if not entry.tb_frame.f_code.co_filename.startswith(_PACKAGE):
            kept.append(entry)
        entry = entry.tb_next
    shortened: types.TracebackType | None = None
    for entry in reversed(kept):
        shortened = types.TracebackType(shortened, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return exc.with_traceback(shortened)


# Shown as semantix.X in reprs and tracebacks, where users import them from.
for _error in [value for value in tuple(globals().values()) if isinstance(value, type)]:
    if issubclass(_error, SemantixError):
        _error.__module__ = "semantix"
