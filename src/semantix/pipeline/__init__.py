"""The one check pipeline: every runner judges outputs against an intent through `check`.

Its steps are `semantix.pipeline._steps`, its options (``judge``, ``threshold``, ``timeout``)
`semantix.pipeline._options`; docs/architecture.md draws the whole path, and docs/verdicts.md
says how a negatively phrased requirement ("must not ...") is judged.
"""

from __future__ import annotations

from semantix.pipeline._api import (
    aassert_semantic,
    acheck,
    aevaluate_many,
    aevaluate_semantic,
    assert_semantic,
    check,
    evaluate_many,
    evaluate_semantic,
    judged,
)
from semantix.pipeline._options import CheckOptions
from semantix.pipeline._results import LeafResult, SemanticResult
from semantix.pipeline._steps import Outcome

__all__ = [
    "CheckOptions",
    "LeafResult",
    "Outcome",
    "SemanticResult",
    "aassert_semantic",
    "acheck",
    "aevaluate_many",
    "aevaluate_semantic",
    "assert_semantic",
    "check",
    "evaluate_many",
    "evaluate_semantic",
    "judged",
]
