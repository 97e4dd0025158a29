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

Rules:

- A run passes when every semantic assertion in it holds. A run that raises anything else (the
  system under test crashed, a judge error) is an **error**: counted and shown separately, and a
  non-passing run in the pass rate (``pass_rate = passes / runs``). A check where every run
  errored is an error itself (the first run's exception is raised), whatever the floor.
- The check passes when the observed pass rate is at least the floor (``min_pass_rate``, default
  1.0: every run must pass). The Wilson score interval at 95 % (z = 1.96) is reported; the
  observed rate decides.

- Each run's output is judged as it is (its view: text, tool calls, usage, and the time the call
  took), so budgets are leaves like any other: ``Polite & Tokens(max_output=400) &
  Latency(max_ms=3000)`` holds every run to them; a floor below 1.0 makes them percentiles
  (``min_pass_rate=0.95`` on ``Latency(max_ms=3000)`` is a p95 ceiling).

The figures live in `semantix.runs.stats`, the public functions (sync and async) in
`semantix.runs.runner`, how runs are made and their options in `semantix.runs.calls`.
"""

from __future__ import annotations

from semantix.runs.calls import RunOptions
from semantix.runs.runner import (
    PassRateError,
    aassert_pass_rate,
    aevaluate_pass_rate,
    assert_pass_rate,
    evaluate_pass_rate,
    publish,
    raise_for_stats,
)
from semantix.runs.stats import (
    Z_95,
    RunResult,
    RunStats,
    check_floor,
    check_runs,
    suite_stability,
    wilson_interval,
)

__all__ = [
    "Z_95",
    "PassRateError",
    "RunOptions",
    "RunResult",
    "RunStats",
    "aassert_pass_rate",
    "aevaluate_pass_rate",
    "assert_pass_rate",
    "check_floor",
    "check_runs",
    "evaluate_pass_rate",
    "publish",
    "raise_for_stats",
    "suite_stability",
    "wilson_interval",
]
