"""Relations on a pytest test parametrized with cases: ``@order_invariant(field="documents")``
runs the body on the original case (its checks are the test's own), then on each variant with
the case argument replaced (checks captured), and raises the original's own failure, then a
`RelationViolationError` over a ceiling (docs/relations.md, "In pytest").
"""

from __future__ import annotations

import contextvars
import functools
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from semantix import _context as context
from semantix.errors import ConfigurationError
from semantix.pipeline._results import SemanticResult
from semantix.relations._base import Relation, Variant, as_relation, check_case, check_fields
from semantix.relations._builtin import JITTERS, Distractor, FormatJitter, Order, Paraphrase
from semantix.relations._evaluate import (
    case_id_of,
    check_ceiling,
    judge_relation,
    raise_for_ceiling,
)
from semantix.runs import RunResult, RunStats
from semantix.runs._stats import check_runs

__all__ = [
    "distractor_robust",
    "format_invariant",
    "invariant",
    "order_invariant",
    "paraphrase_invariant",
]

F = TypeVar("F", bound=Callable[..., Any])

_IN_VARIANT: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "semantix_relation_variant", default=False
)
_SPEC = "__semantix_relations__"


@dataclass
class _Entry:
    relation: Relation
    runs: int
    ceiling: float | None


@dataclass
class _Spec:
    function: Callable[..., Any]
    param: str
    id_field: str
    entries: list[_Entry] = field(default_factory=list)
    checked: bool = False

    def call(
        self, wrapper: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        __tracebackhide__ = True
        if _IN_VARIANT.get():
            return self.function(*args, **kwargs)
        name = getattr(self.function, "__name__", "the test")
        if self.param not in kwargs:
            raise ConfigurationError(
                f"{self._labels()} on {name}: the test has no argument {self.param!r}; "
                f"parametrize it with cases (@pytest.mark.parametrize({self.param!r}, CASES)) "
                "or name the case argument with param=..."
            )
        case = check_case(kwargs[self.param])
        self._check_fields(wrapper)
        runs = max(entry.runs for entry in self.entries)
        value, first = self._run(args, kwargs, report=True)
        original = [first]
        if first.outcome == "error":
            if first.error is not None:
                raise first.error
            raise ConfigurationError(
                f"{self._labels()} on {name}: the test made no semantic assertion on the "
                "original case, so there is no verdict to hold its variants to; assert with "
                "the semantic fixture or assert_semantic"
            )
        original += [self._run(args, kwargs, report=False)[1] for _ in range(runs - 1)]
        error = next((run.error for run in original if run.outcome == "error"), None)
        if error is not None:
            raise error
        base = Path(inspect.getfile(self.function)).resolve().parent
        case_id = case_id_of(case, None, self.id_field)
        results = []
        for entry in self.entries:
            relation = entry.relation
            if isinstance(relation, Paraphrase):
                relation = relation.located(base)
            stats = RunStats(name, tuple(original[: entry.runs]), 0.0)

            def run_variant(variant: Variant, count: int = entry.runs) -> RunStats:
                changed = {**kwargs, self.param: variant.case}
                runs_made = [self._run(args, changed, report=False)[1] for _ in range(count)]
                return RunStats(name, tuple(runs_made), 0.0)

            results.append(
                judge_relation(relation, case, case_id, stats, run_variant, entry.ceiling)
            )
        for result in results:
            context.notify(result)
        if first.error is not None:
            raise first.error
        raise_for_ceiling(results)
        return value

    def _run(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], *, report: bool
    ) -> tuple[Any, RunResult]:
        """One run of the body: its value and its `RunResult` (``report``: its checks also reach
        the observers, as the test's own)."""
        collected: list[SemanticResult] = []

        def collect(event: object) -> None:
            if isinstance(event, SemanticResult):
                collected.append(event)

        token = _IN_VARIANT.set(not report)
        value: Any = None
        error: Exception | None = None
        try:
            with context.capture(collect, forward=report):
                value = self.function(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - the run's failure or error, judged below
            error = exc
        finally:
            _IN_VARIANT.reset(token)
        return value, RunResult(1, tuple(collected), error=error)

    def _check_fields(self, wrapper: Callable[..., Any]) -> None:
        if self.checked:
            return
        cases = _parametrized_cases(wrapper, self.param)
        check_fields([entry.relation for entry in self.entries], cases)
        self.checked = True

    def _labels(self) -> str:
        return ", ".join(f"@{entry.relation.label}" for entry in self.entries)


def _parametrized_cases(function: Callable[..., Any], param: str) -> list[object]:
    """The values ``@pytest.mark.parametrize`` gives ``param`` on ``function`` (its marks)."""
    cases: list[object] = []
    for mark in getattr(function, "pytestmark", []):
        if getattr(mark, "name", None) != "parametrize" or not mark.args:
            continue
        names = mark.args[0]
        names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
        if param not in names:
            continue
        index = names.index(param)
        values = mark.args[1] if len(mark.args) > 1 else mark.kwargs.get("argvalues", [])
        for value in values:
            if hasattr(value, "values") and hasattr(value, "marks"):  # pytest.param(...)
                value = value.values if len(names) > 1 else value.values[0]
            cases.append(value[index] if len(names) > 1 else value)
    return cases


def invariant(
    *relations: Relation | Callable[..., object],
    param: str = "case",
    runs: int = 1,
    max_violation_rate: float | None = None,
    id_field: str = "id",
) -> Callable[[F], F]:
    """The test's verdict must not move on these relations' variants of its ``param`` case."""
    if not relations:
        raise TypeError(
            "invariant() needs at least one relation, e.g. invariant(order('documents'))"
        )
    built = [as_relation(item) for item in relations]
    check_runs(runs)
    ceiling = check_ceiling(max_violation_rate)

    def decorate(function: F) -> F:
        if inspect.iscoroutinefunction(function):
            raise TypeError(
                f"relation decorators wrap sync tests; {function.__name__} is async: call "
                "evaluate_relations inside it instead"
            )
        entries = [_Entry(item, runs, ceiling) for item in built]
        spec: _Spec | None = getattr(function, _SPEC, None)
        if spec is not None:  # stacked: one wrapper, variants never nested
            spec.entries[:0] = entries
            return function
        spec = _Spec(function, param, id_field, entries)

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            __tracebackhide__ = True
            assert spec is not None
            return spec.call(wrapper, args, kwargs)

        setattr(wrapper, _SPEC, spec)
        return wrapper  # type: ignore[return-value]

    return decorate


def order_invariant(
    field: str, *, count: int = 3, seed: int = 0, **options: Any
) -> Callable[[F], F]:
    """``@order_invariant(field="documents")``: the list field in other orders."""
    return invariant(Order(field, count=count, seed=seed), **options)


def distractor_robust(
    field: str, pool: Sequence[Any], *, count: int = 1, seed: int = 0, **options: Any
) -> Callable[[F], F]:
    """``@distractor_robust(field="documents", pool=IRRELEVANT)``: one irrelevant document in."""
    return invariant(Distractor(field, pool, count=count, seed=seed), **options)


def format_invariant(
    field: str, *, kinds: Sequence[str] = JITTERS, count: int = 3, seed: int = 0, **options: Any
) -> Callable[[F], F]:
    """``@format_invariant(field="question")``: whitespace, casing and punctuation jitter."""
    return invariant(FormatJitter(field, kinds=kinds, count=count, seed=seed), **options)


def paraphrase_invariant(
    field: str, *, directory: str | Path = "variants", **options: Any
) -> Callable[[F], F]:
    """``@paraphrase_invariant(field="question")``: the reviewed paraphrases in
    ``<directory>/<case id>.yaml``, relative to the test file."""
    return invariant(Paraphrase(field, directory=directory), **options)
