"""Structural checks: intents decided by semantix itself, without a judge or a model.

Each is an intent (``~``, ``&``, ``|`` combine them with semantic intents, leaf by leaf) whose
verdict has score 1.0 or 0.0 and a reason that says what matched or what is missing.

```python
from semantix.checks import CalledTool, Contains, JSONPath, Length
from semantix.outputs import output_view

check = Contains("refund") & Length(max_words=80)
print(check)
#> Contains('refund') & Length(max_words=80)
print(JSONPath("$.status", equals="ok").decide(output_view('{"status": "ok"}')).reason)
#> $.status is "ok"
```

- text: `Contains`, `ContainsAll`, `ContainsAny`, `Equals`, `StartsWith`, `EndsWith`, `Matches`
  (time-bounded: `semantix.checks.patterns`), `Length`;
- JSON (the ``[json]`` extra for the last three; ``extract=True`` finds the JSON in prose):
  `IsJSON`, `JSONPath` (RFC 9535), `JSONSchema`, `MatchesModel` (pydantic);
- tool calls: `CalledTool`, `NoToolCalls`;
- budgets: `Tokens`, `Cost`, `Latency` (an output without usage, a model without a price or
  an output nobody timed raises `UnenforceableCheckError`, never passes).

Trajectory, tool-result and turn leaves for whole agent runs are in `semantix.agents`.
"""

from __future__ import annotations

from semantix.checks.base import STRUCTURAL, Structural
from semantix.checks.budget import Cost, Tokens
from semantix.checks.json import IsJSON, JSONPath
from semantix.checks.model import MatchesModel
from semantix.checks.schema import JSONSchema
from semantix.checks.text import (
    Contains,
    ContainsAll,
    ContainsAny,
    EndsWith,
    Equals,
    Length,
    Matches,
    StartsWith,
)
from semantix.checks.timing import Latency
from semantix.checks.tools import CalledTool, NoToolCalls

__all__ = [
    "STRUCTURAL",
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
