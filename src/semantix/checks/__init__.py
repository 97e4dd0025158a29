"""Structural checks: intents decided by semantix itself, without a judge or a model.

Each is an intent (``~``, ``&``, ``|`` combine them with semantic intents, leaf by leaf) whose
verdict has score 1.0 or 0.0 and a reason that says what matched or what is missing; the list,
with examples: docs/structural-checks.md. Trajectory, tool-result and turn leaves for whole agent
runs are in `semantix.agents`.
"""

from __future__ import annotations

import importlib as _importlib
from typing import TYPE_CHECKING

from semantix.checks._base import Structural

if TYPE_CHECKING:
    from semantix.checks._budget import Cost, Tokens
    from semantix.checks._json import IsJSON, JSONPath
    from semantix.checks._model import MatchesModel
    from semantix.checks._schema import JSONSchema
    from semantix.checks._text import (
        Contains,
        ContainsAll,
        ContainsAny,
        EndsWith,
        Equals,
        Length,
        Matches,
        StartsWith,
    )
    from semantix.checks._timing import Latency
    from semantix.checks._tools import CalledTool, NoToolCalls


__all__ = [
    "CalledTool",
    "Contains",
    "ContainsAll",
    "ContainsAny",
    "Cost",
    "EndsWith",
    "Equals",
    "IsJSON",
    "JSONPath",
    "JSONSchema",
    "Latency",
    "Length",
    "Matches",
    "MatchesModel",
    "NoToolCalls",
    "StartsWith",
    "Structural",
    "Tokens",
]

#: Where each check lives: imported on first use, so that the pipeline (which needs only the
#: base) and ``import semantix`` load none of them.
_LAZY = {
    name: module
    for module, names in {
        "budget": "Cost Tokens",
        "json": "IsJSON JSONPath",
        "model": "MatchesModel",
        "schema": "JSONSchema",
        "text": "Contains ContainsAll ContainsAny EndsWith Equals Length Matches StartsWith",
        "timing": "Latency",
        "tools": "CalledTool NoToolCalls",
    }.items()
    for name in names.split()
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        return getattr(_importlib.import_module(f"semantix.checks._{_LAZY[name]}"), name)
    raise AttributeError(f"module 'semantix.checks' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
