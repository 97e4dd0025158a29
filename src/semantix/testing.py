"""The documented import path for test code: ``from semantix.testing import assert_semantic``.

``assert_semantic`` raises `SemanticAssertionError`, a plain ``AssertionError``
subclass, so it works under pytest, unittest, or a bare ``python script.py``; so does
``assert_pass_rate`` (repeated runs held to a floor, see `semantix.runs`).
"""

from __future__ import annotations

from semantix.errors import SemanticAssertionError
from semantix.judges.base import FakeJudge
from semantix.pipeline import SemanticResult, assert_semantic, evaluate_semantic
from semantix.runs import PassRateError, RunStats, assert_pass_rate, evaluate_pass_rate

__all__ = [
    "FakeJudge",
    "PassRateError",
    "RunStats",
    "SemanticAssertionError",
    "SemanticResult",
    "assert_pass_rate",
    "assert_semantic",
    "evaluate_pass_rate",
    "evaluate_semantic",
]
