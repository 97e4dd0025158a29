"""Repeated runs: call a system under test N times, judge every output, hold it to a floor.

```python
from semantix import FakeJudge, Intent
from semantix.runs import assert_pass_rate

class Polite(Intent):
    \"\"\"The text must be polite and professional.\"\"\"

replies = iter(["Thank you for waiting.", "Sorry for the delay.", "Whatever."] * 4)
judge = FakeJudge(lambda output, intent: 0.0 if output == "Whatever." else 1.0)
stats = assert_pass_rate(lambda: next(replies), Polite, runs=9, min_pass_rate=0.6, judge=judge)
stats.pass_rate, stats.interval   # (0.666..., (0.354..., 0.879...))
```

A run passes when every semantic assertion in it holds; a run that raises anything else is an
**error** (a non-passing run in ``pass_rate = passes / runs``); a check where every run errored
raises the first run's exception. The observed rate decides against ``min_pass_rate`` (default
1.0); the Wilson 95 % interval is reported. Each output is judged as it is (text, tool calls,
usage, timing), so budgets are leaves: ``Polite & Latency(max_ms=3000)`` with
``min_pass_rate=0.95`` is a p95 ceiling (docs/flaky-outputs.md).
"""

from __future__ import annotations

from semantix.runs._runner import (
    PassRateError,
    RunOptions,
    aassert_pass_rate,
    aevaluate_pass_rate,
    assert_pass_rate,
    evaluate_pass_rate,
)
from semantix.runs._stats import RunResult, RunStats, wilson_interval

__all__ = [
    "PassRateError",
    "RunOptions",
    "RunResult",
    "RunStats",
    "aassert_pass_rate",
    "aevaluate_pass_rate",
    "assert_pass_rate",
    "evaluate_pass_rate",
    "wilson_interval",
]
