"""Run a system under test on a case and on every relation's variants; judge; compare
(`evaluate_relations`; the pytest decorators share `judge_relation` and `raise_for_ceiling`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from semantix import _context as context
from semantix._config import check_threshold
from semantix._intent import IntentLike, as_intent
from semantix.errors import SemanticAssertionError
from semantix.judges._base import Judge
from semantix.relations._base import (
    Case,
    NotApplicable,
    Relation,
    Variant,
    as_relation,
    check_case,
    get_field,
)
from semantix.relations._results import RelationResult, VariantResult, raise_for_errors, violation
from semantix.runs import RunStats, evaluate_pass_rate
from semantix.runs._stats import check_runs

__all__ = [
    "RelationViolationError",
    "case_id_of",
    "check_ceiling",
    "evaluate_relations",
    "judge_relation",
    "raise_for_ceiling",
]


class RelationViolationError(SemanticAssertionError):
    """A relation's violation rate is above its ``max_violation_rate`` (an ``AssertionError``):
    ``results`` are those `RelationResult` s, ``result`` the original case's first result."""

    __module__ = "semantix.relations"

    def __init__(self, message: str, results: Sequence[RelationResult], result: Any) -> None:
        super().__init__(message, result)
        self.results = tuple(results)

    @property
    def verdicts(self) -> tuple[Any, ...]:
        return () if self.result is None else tuple(leaf.verdict for leaf in self.result.leaves)


def raise_for_ceiling(results: Sequence[RelationResult]) -> None:
    """Raise `RelationViolationError` when a result is above its ceiling (showing the
    violating variants), else `RelationError` when one could not be judged; return otherwise."""
    __tracebackhide__ = True
    over = [result for result in results if result.over_ceiling]
    if not over:
        raise_for_errors(results)  # nothing judged is never held
        return
    message = "\n".join(
        ["metamorphic relation violated more often than its ceiling allows"]
        + [result.explain() for result in over]
    )
    original = over[0].original
    first = next((r for run in original.results for r in run.results), None) if original else None
    raise RelationViolationError(message, over, first)


def check_ceiling(value: object) -> float | None:
    """``max_violation_rate`` checked: None, or a float in [0, 1]."""
    if value is None:
        return None
    return check_threshold(value, what="max_violation_rate", example="max_violation_rate=0.1")


def case_id_of(case: Case, case_id: object, id_field: str = "id") -> str | None:
    """The case's id: ``case_id`` if given, else the case's ``id`` field (as text), else None."""
    if case_id is not None:
        if not isinstance(case_id, str) or not case_id:
            raise TypeError(
                f"case_id must be a non-empty string such as 'refund-1', got {case_id!r}"
            )
        return case_id
    value = case.get(id_field)
    return None if value is None else str(value)


def judge_relation(
    relation: Relation,
    case: Case,
    case_id: str | None,
    original: RunStats,
    run_variant: Callable[[Variant], RunStats],
    max_violation_rate: float | None = None,
) -> RelationResult:
    """One relation on one case: make its variants, run each (``run_variant``), compare with
    the original by `semantix.relations._results.violation`."""
    made = relation.variants(case, case_id=case_id)
    reason = made.reason if isinstance(made, NotApplicable) else None
    results = []
    for variant in () if isinstance(made, NotApplicable) else made:
        value = get_field(variant.case, relation.field) if relation.field else variant.case
        try:
            stats = run_variant(variant)
        except Exception as exc:  # noqa: BLE001 - this variant's error, shown, never a pass
            results.append(VariantResult(variant.label, value, error=exc))
            continue
        error = next((run.error for run in stats.results if run.outcome == "error"), None)
        direction = None if stats.errors else violation(original, stats)
        results.append(VariantResult(variant.label, value, stats, error, direction))
    return RelationResult(
        relation.label, case_id, original, tuple(results), reason, max_violation_rate
    )


def evaluate_relations(
    system: Callable[[Any], object],
    case: Mapping[str, Any],
    intent: IntentLike,
    *,
    relations: Sequence[Relation | Callable[[Any], object]],
    judge: Judge | str | None = None,
    runs: int = 1,
    max_violation_rate: float | None = None,
    threshold: float | None = None,
    timeout: float | None = None,
    case_id: str | None = None,
) -> list[RelationResult]:
    """Judge ``system(case)`` and ``system(variant)`` for every variant of every relation.

    ``system`` is called with the case, then each variant; ``case``'s ``id`` (or ``case_id``)
    names its variants file; ``relations`` are `order`, `distractor`, `format_jitter`,
    `paraphrase`, `relation(f)` or plain functions ``case -> variant cases``; ``runs`` runs of
    the original and each variant are judged as one check (``runs >= 2``: a violation is judged
    on pass rates); ``judge``, ``threshold`` and ``timeout`` are ``assert_semantic``'s. Returns
    one `RelationResult` per relation, in order, each also handed to the run's observers.

    Raises:
        Exception: a run of the original case raised: nothing to compare the variants with.
        RelationViolationError: a rate above ``max_violation_rate`` (without a ceiling,
            violations decide nothing).
    """
    __tracebackhide__ = True
    if not callable(system):
        raise TypeError(
            f"system must be a callable case -> output, got {type(system).__name__}; pass e.g. "
            "lambda case: answer(case['question'], case['documents'])"
        )
    check_case(case)
    if isinstance(relations, (str, bytes)) or not isinstance(relations, Sequence) or not relations:
        raise TypeError(
            f"relations must be a non-empty list, e.g. [order('documents')], got {relations!r}"
        )
    built = [as_relation(item) for item in relations]
    check_runs(runs)
    ceiling = check_ceiling(max_violation_rate)
    name = case_id_of(case, case_id)
    as_intent(intent)

    def run(subject: Case) -> RunStats:
        return evaluate_pass_rate(
            lambda: system(subject),
            intent,
            runs=runs,
            min_pass_rate=0.0,
            judge=judge,
            threshold=threshold,
            timeout=timeout,
        )

    original = run(case)
    failed = next((result.error for result in original.results if result.error is not None), None)
    if failed is not None:
        raise failed  # the case itself could not be judged: nothing to compare variants with
    results = [
        judge_relation(item, case, name, original, lambda variant: run(variant.case), ceiling)
        for item in built
    ]
    for result in results:
        context.notify(result)
    raise_for_ceiling(results)
    return results
