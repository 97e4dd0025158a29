"""Latency and cost ceilings of repeated runs: checked after the runs, never satisfied by an
unknown.

- **latency**: the runner times every call of the system under test (wall time around the call,
  not the judge); the ceiling holds for the nearest-rank percentile of those times (the
  maximum at ``latency_percentile=100``). A run that raised was still timed.
- **cost**: the sum, over every run, of the cost of its response from the response's usage and
  model at the prices you give (`semantix.checks.budget.cost_of`). One run whose response
  carries no usage, or names a model without a price, makes the ceiling **unenforceable**:
  reported as such, never a pass (a crashed run has no response: unenforceable too).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from semantix.checks.budget import Price, check_prices, cost_of
from semantix.config import is_number
from semantix.errors import UnenforceableCheckError
from semantix.outputs import OutputView

__all__ = ["Ceiling", "check_ceilings", "cost_ceiling", "latency_ceiling", "percentile"]


@dataclass(frozen=True, slots=True)
class Ceiling:
    """One ceiling of a repeated check: what it bounds, the limit, what was measured.

    ``unenforceable`` says why it could not be checked (then ``measured`` is None, and the
    ceiling never passes).
    """

    what: str
    limit: float
    unit: str
    measured: float | None = None
    unenforceable: str | None = None

    @property
    def passed(self) -> bool:
        return (
            self.unenforceable is None
            and self.measured is not None
            and self.measured <= self.limit + 1e-12
        )

    def describe(self) -> str:
        """One line: ``latency p95 2140 ms <= 3000 ms: ok``, or why it failed or is unknown."""
        if self.unenforceable is not None:
            return (
                f"{self.what} <= {self.limit:g} {self.unit}: UNENFORCEABLE ({self.unenforceable})"
            )
        assert self.measured is not None
        sign, word = ("<=", "ok") if self.passed else (">", "FAIL")
        return (
            f"{self.what} {self.measured:.6g} {self.unit} {sign} {self.limit:g} {self.unit}: {word}"
        )

    def __repr__(self) -> str:
        return f"<Ceiling {self.describe()}>"

    def to_dict(self) -> dict[str, Any]:
        return {
            "what": self.what,
            "limit": self.limit,
            "unit": self.unit,
            "measured": self.measured,
            "passed": self.passed,
            "unenforceable": self.unenforceable,
        }


def check_ceilings(
    max_latency_ms: object, latency_percentile: object, max_cost_usd: object, prices: object
) -> dict[str, Price] | None:
    """Check the ceilings' arguments (before any run); return the checked prices, if any.

    Raises:
        ValueError, TypeError: a negative or NaN ceiling, a percentile outside (0, 100], prices
            of the wrong shape, or a cost ceiling without prices.
    """
    for name, value in (("max_latency_ms", max_latency_ms), ("max_cost_usd", max_cost_usd)):
        if value is not None and not is_number(value, low=0):
            raise ValueError(f"{name} must be a number, 0 or more, got {value!r}")
    if (
        isinstance(latency_percentile, bool)
        or not is_number(latency_percentile, high=100)
        or (latency_percentile <= 0)
    ):
        raise ValueError(
            f"latency_percentile must be in (0, 100], e.g. 95 for p95 or 100 for the maximum; "
            f"got {latency_percentile!r}"
        )
    if max_cost_usd is None:
        if prices is not None:
            raise TypeError("prices= was given without max_cost_usd=; set the ceiling too")
        return None
    if prices is None:
        raise TypeError(
            "max_cost_usd= needs prices=, e.g. prices={'gpt-4o-mini': (0.15, 0.60)} "
            "(USD per million input and output tokens); semantix ships no price table"
        )
    return check_prices(prices, what="prices=")


def percentile(values: Sequence[float], rank: float) -> float:
    """The nearest-rank percentile: the smallest value with ``rank`` % of values at or below."""
    ordered = sorted(values)
    index = max(0, math.ceil(rank / 100 * len(ordered)) - 1)
    return ordered[index]


def latency_ceiling(latencies_ms: Sequence[float], limit: float, rank: float) -> Ceiling:
    what = "latency max" if rank == 100 else f"latency p{rank:g}"
    return Ceiling(what, float(limit), "ms", percentile(latencies_ms, rank))


def cost_ceiling(
    views: Sequence[OutputView | None], limit: float, prices: Mapping[str, Price]
) -> tuple[Ceiling, list[float | None]]:
    """The total cost ceiling, and each run's cost (None where unknown)."""
    costs: list[float | None] = []
    missing: list[str] = []
    for number, view in enumerate(views, 1):
        if view is None:
            costs.append(None)
            missing.append(f"run {number} raised, so its cost is unknown")
            continue
        try:
            costs.append(cost_of(view, prices, what=f"run {number}")[0])
        except UnenforceableCheckError as exc:
            costs.append(None)
            missing.append(str(exc))
    if missing:
        why = f"{len(missing)} of {len(views)} runs have no known cost; first: {missing[0]}"
        return Ceiling("cost total", float(limit), "USD", unenforceable=why), costs
    known = [cost for cost in costs if cost is not None]
    return Ceiling("cost total", float(limit), "USD", sum(known)), costs
