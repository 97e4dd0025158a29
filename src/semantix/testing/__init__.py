"""The documented import path for test code: ``from semantix.testing import assert_semantic``
(its `SemanticAssertionError` is an ``AssertionError``: pytest, unittest or a bare script).
`Satisfies` checks a text inside a data structure with ``==``; `SemanticMatcher` is
pytest-semantic's matcher on semantix's embedding judge."""

from __future__ import annotations

from semantix.errors import SemanticAssertionError
from semantix.judges._fake import FakeJudge
from semantix.pipeline import SemanticResult, assert_semantic, evaluate_semantic
from semantix.runs import PassRateError, RunStats, assert_pass_rate, evaluate_pass_rate
from semantix.testing._api import Satisfies, SemanticMatcher
from semantix.testing._casefiles import CasesFileError, cases

__all__ = [
    "CasesFileError",
    "FakeJudge",
    "PassRateError",
    "RunStats",
    "Satisfies",
    "SemanticAssertionError",
    "SemanticMatcher",
    "SemanticResult",
    "assert_pass_rate",
    "assert_semantic",
    "cases",
    "evaluate_pass_rate",
    "evaluate_semantic",
]
