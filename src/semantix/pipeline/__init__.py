"""The one check pipeline: every runner judges outputs against an intent through `check`.

Each output becomes one `semantix.outputs.OutputView`; structural leaves are decided by semantix,
semantic leaves get their thresholds and go to the judge in one batch; ``~ & |`` combine the
verdicts into one `SemanticResult` (or the error that stopped that output) and, for asserting
runners, one report record. The steps are `semantix.pipeline._steps`; docs/architecture.md
draws the whole path, and docs/verdicts.md says how a negatively phrased requirement ("must
not ...") is judged. The options (``judge``, ``threshold``, ``timeout``: the whole check) are
`semantix.pipeline._options`, the same for every entry point.
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
