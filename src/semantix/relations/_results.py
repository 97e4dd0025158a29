"""What a relation's evaluation returns, and the rule that decides a violation: the variant's
pass rate moved from the original's by `semantix._proportions.rate_change`, the rule
``semantix compare`` uses (with one run each: the outcome differs; with more, Newcombe's 95 %
interval of the difference excludes 0), ``broke`` or ``fixed`` (docs/relations.md, "The
rules")."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from semantix._proportions import rate_change
from semantix._text import preview
from semantix.errors import SemantixError
from semantix.runs._stats import RunStats

__all__ = [
    "SHOWN_VARIANTS",
    "RelationError",
    "RelationResult",
    "RelationSummary",
    "VariantResult",
    "raise_for_errors",
    "summarize",
    "violation",
]

#: How many violating variants a message shows.
SHOWN_VARIANTS = 5

Direction = Literal["broke", "fixed"]


def violation(original: RunStats, variant: RunStats) -> Direction | None:
    """The documented rule (module docstring): the direction of a violation, or None."""
    moved = rate_change((original.passes, original.runs), (variant.passes, variant.runs))
    return None if moved is None else "broke" if moved == "worse" else "fixed"


def _rate(stats: RunStats) -> str:
    if stats.runs == 1:  # (the runs' floor is 0: RunStats.passed says nothing here)
        return "passed" if stats.passes else "failed"
    return f"{stats.passes}/{stats.runs} passed"


@dataclass(frozen=True, slots=True)
class VariantResult:
    """One variant: its label, what it changed, its runs' figures, or the error it raised."""

    label: str
    value: Any
    stats: RunStats | None = None
    error: BaseException | None = None
    direction: Direction | None = None

    @property
    def outcome(self) -> Literal["held", "violation", "error"]:
        if self.error is not None or self.stats is None:
            return "error"
        return "held" if self.direction is None else "violation"

    def describe(self, original: RunStats | None) -> str:
        """One line: the label, the outcome and, for a violation, both verdicts."""
        shown = preview(str(self.value), 80)
        if self.outcome == "error":
            error = self.error
            message = preview(str(error), 120, quote=False) if error is not None else "no result"
            return f"{self.label}: ERROR {type(error).__name__}: {message}  ({shown})"
        assert self.stats is not None
        if self.direction is None:
            return f"{self.label}: held ({_rate(self.stats)})  {shown}"
        before = _rate(original) if original is not None else "?"
        what = "passed where the original failed" if self.direction == "fixed" else "failed"
        return (
            f"{self.label}: VIOLATION, the variant {what} (original {before}, variant "
            f"{_rate(self.stats)})  {shown}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "outcome": self.outcome,
            "direction": self.direction,
            "value": preview(str(self.value), 200, quote=False),
            "passes": None if self.stats is None else self.stats.passes,
            "runs": None if self.stats is None else self.stats.runs,
            "error": None if self.error is None else f"{type(self.error).__name__}: {self.error}",
        }


@dataclass(frozen=True, slots=True)
class RelationResult:
    """One relation on one case: its variants' results, or why it does not apply
    (``<RelationResult order(documents) case c1: 1/3 violations = 0.33, 0 errors>``)."""

    relation: str
    case_id: str | None
    original: RunStats | None
    variants: tuple[VariantResult, ...] = ()
    not_applicable: str | None = None
    max_violation_rate: float | None = None

    @property
    def applicable(self) -> bool:
        return self.not_applicable is None

    @property
    def violations(self) -> int:
        return sum(1 for variant in self.variants if variant.outcome == "violation")

    @property
    def errors(self) -> int:
        return sum(1 for variant in self.variants if variant.outcome == "error")

    @property
    def judged(self) -> int:
        return len(self.variants) - self.errors

    @property
    def rate(self) -> float | None:
        """Violations over variants judged; None when not applicable or nothing was judged."""
        if not self.applicable or self.judged == 0:
            return None
        return self.violations / self.judged

    @property
    def violating(self) -> tuple[VariantResult, ...]:
        return tuple(variant for variant in self.variants if variant.outcome == "violation")

    @property
    def over_ceiling(self) -> bool:
        """Whether the violations alone, over every variant, are above ``max_violation_rate``."""
        ceiling = self.max_violation_rate
        if ceiling is None or not self.applicable or not self.judged:
            return False
        return self.violations / len(self.variants) > ceiling + 1e-12

    @property
    def unjudged(self) -> str | None:
        """Why this result is an error (docs/relations.md, "The rules"), or None."""
        if not self.applicable or self.over_ceiling:
            return None
        count = len(self.variants)
        if not self.judged:
            return f"all {count} variant{'' if count == 1 else 's'} raised, so nothing was judged"
        ceiling, worst = self.max_violation_rate, (self.violations + self.errors) / count
        if ceiling is None or worst <= ceiling + 1e-12:
            return None
        return (
            f"max_violation_rate={ceiling:.2f} is not proven: {self.errors} of {count} variants "
            f"raised, and had they violated the rate would be {worst:.2f}"
        )

    @property
    def outcome(self) -> Literal["not applicable", "error", "violation", "held"]:
        """``violation``: over its ceiling (without one: any violation, deciding nothing);
        ``error``: not judged (`unjudged`); else ``held``."""
        if not self.applicable:
            return "not applicable"
        if self.unjudged is not None:
            return "error"
        if self.over_ceiling or (self.max_violation_rate is None and self.violations):
            return "violation"
        return "held"

    def _where(self) -> str:
        return f"{self.relation} case {self.case_id}" if self.case_id else self.relation

    def headline(self) -> str:
        if not self.applicable:
            return f"{self._where()}: not applicable ({self.not_applicable})"
        rate = "n/a" if self.rate is None else f"{self.rate:.2f}"
        errors = f"{self.errors} error{'' if self.errors == 1 else 's'}"
        return f"{self._where()}: {self.violations}/{self.judged} violations = {rate}, {errors}"

    def __repr__(self) -> str:
        return f"<RelationResult {self.headline()}>"

    def explain(self) -> str:
        """The multi-line message: the headline, the ceiling, the violating and erroring variants."""
        lines = [self.headline()]
        if self.unjudged is not None:
            lines.append(f"  could not be judged: {self.unjudged}")
        if self.max_violation_rate is not None:
            lines.append(f"  ceiling: max_violation_rate={self.max_violation_rate:.2f}")
        if self.original is not None:
            lines.append(f"  original: {_rate(self.original)}")
        shown = [v for v in self.variants if v.outcome != "held"][:SHOWN_VARIANTS]
        if shown:
            lines.append(f"  variants that did not hold (first {len(shown)}):")
            lines.extend(f"    {variant.describe(self.original)}" for variant in shown)
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able record (the pytest plugin's JSON, JUnit property and xdist payload)."""
        return {
            "relation": self.relation,
            "case_id": self.case_id,
            "applicable": self.applicable,
            "outcome": self.outcome,
            "not_applicable": self.not_applicable,
            "variants": len(self.variants),
            "judged": self.judged,
            "violations": self.violations,
            "errors": self.errors,
            "rate": self.rate,
            "max_violation_rate": self.max_violation_rate,
            "original": None
            if self.original is None
            else {"passes": self.original.passes, "runs": self.original.runs},
            "results": [variant.to_dict() for variant in self.variants],
        }


class RelationError(SemantixError):
    """A relation could not be judged (every variant raised, or errored variants leave its
    ceiling unproven): never a pass. ``results`` are those `RelationResult` s."""

    __module__ = "semantix.relations"

    def __init__(self, message: str, results: Sequence[RelationResult]) -> None:
        super().__init__(message)
        self.results = tuple(results)


def raise_for_errors(results: Sequence[RelationResult]) -> None:
    """Raise `RelationError` when a result could not be judged; return otherwise."""
    __tracebackhide__ = True
    unjudged = [result for result in results if result.outcome == "error"]
    if unjudged:
        message = "\n".join(
            ["metamorphic relation could not be judged (an error, never a pass)"]
            + [result.explain() for result in unjudged]
        )
        cause = next((v.error for r in unjudged for v in r.variants if v.error is not None), None)
        raise RelationError(message, unjudged) from cause


@dataclass(frozen=True, slots=True)
class RelationSummary:
    """One relation over many cases: probatio's table row."""

    relation: str
    cases: int
    not_applicable: int
    violations: int
    judged: int
    errors: int
    mean_rate: float | None
    worst_rate: float | None

    def __repr__(self) -> str:
        mean = "n/a" if self.mean_rate is None else f"{self.mean_rate:.2f}"
        worst = "n/a" if self.worst_rate is None else f"{self.worst_rate:.2f}"
        return (
            f"<RelationSummary {self.relation}: {self.cases} cases, {self.not_applicable} not "
            f"applicable, {self.violations}/{self.judged} violations, mean {mean}, worst "
            f"{worst}, {self.errors} errors>"
        )


class _Case(Protocol):
    """A relation's result on one case (`RelationResult`, a report's `RelationRecord`)."""

    @property
    def relation(self) -> str: ...
    @property
    def applicable(self) -> bool: ...
    @property
    def violations(self) -> int: ...
    @property
    def judged(self) -> int: ...
    @property
    def errors(self) -> int: ...
    @property
    def rate(self) -> float | None: ...


def summarize(results: Iterable[_Case]) -> list[RelationSummary]:
    """One `RelationSummary` per relation, in order of first appearance, from results or a
    report's records of them (the rates: over the cases it applied to and judged)."""
    rows: dict[str, list[_Case]] = {}
    for item in results:
        rows.setdefault(item.relation, []).append(item)
    summaries = []
    for name, cases in rows.items():
        rates = [case.rate for case in cases if case.rate is not None]
        summaries.append(
            RelationSummary(
                relation=name,
                cases=len(cases),
                not_applicable=sum(1 for case in cases if not case.applicable),
                violations=sum(case.violations for case in cases),
                judged=sum(case.judged for case in cases),
                errors=sum(case.errors for case in cases),
                mean_rate=sum(rates) / len(rates) if rates else None,
                worst_rate=max(rates) if rates else None,
            )
        )
    return summaries


for _public in (RelationResult, RelationSummary, VariantResult):
    _public.__module__ = "semantix.relations"
