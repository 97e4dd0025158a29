"""The documented import path for test code: ``from semantix.testing import assert_semantic``.

``assert_semantic`` raises :class:`~semantix.SemanticAssertionError`, a plain ``AssertionError``
subclass, so it works under pytest, unittest, or a bare ``python script.py``.
"""

from __future__ import annotations

from semantix.assertions import SemanticResult, assert_semantic, evaluate_semantic
from semantix.errors import SemanticAssertionError
from semantix.judges.base import FakeJudge

__all__ = [
    "FakeJudge",
    "SemanticAssertionError",
    "SemanticResult",
    "assert_semantic",
    "evaluate_semantic",
]
