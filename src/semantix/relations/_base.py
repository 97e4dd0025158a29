"""What a relation is: a function of a case that returns the variants the verdict must not move
on (`Relation`, `Variant`, `NotApplicable`, `relation`), and field paths such as
``"retrieval.documents"`` or ``"messages.0.content"`` (`get_field`, `with_field`, `check_fields`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from semantix.errors import ConfigurationError

__all__ = [
    "MISSING",
    "Case",
    "NotApplicable",
    "Relation",
    "Variant",
    "check_field_path",
    "check_fields",
    "get_field",
    "relation",
    "with_field",
]

#: A case is a mapping of field names to values (a dict, as ``pytest.mark.parametrize`` gives).
Case = Mapping[str, Any]


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


#: What `get_field` returns for a path the case does not have.
MISSING: Any = _Missing()


@dataclass(frozen=True, slots=True)
class Variant:
    """One transformed case: ``case`` is the whole case, ``label`` what was done to it."""

    case: Case
    label: str

    def __repr__(self) -> str:
        return f"<Variant {self.label}>"


@dataclass(frozen=True, slots=True)
class NotApplicable:
    """The relation does not apply to this case; ``reason`` says why (shown in the report)."""

    reason: str


Variants = tuple[Variant, ...] | NotApplicable


class Relation:
    """A meaning-preserving transformation of a case's input: subclasses set ``name`` and
    ``field`` and implement `variants`, which may return `NotApplicable` with the reason."""

    name: str = "relation"
    #: The field path the relation transforms (None: the relation reads the whole case).
    field: str | None = None

    def variants(self, case: Case, *, case_id: str | None = None) -> Variants:
        raise NotImplementedError

    @property
    def label(self) -> str:
        """``order(documents)``: the relation and its field, as reports name it."""
        return f"{self.name}({self.field})" if self.field else self.name

    def __repr__(self) -> str:
        return f"<Relation {self.label}>"


class _FunctionRelation(Relation):
    def __init__(self, function: Callable[[Any], object], name: str, field: str | None) -> None:
        self.function = function
        self.name = name
        self.field = check_field_path(field) if field is not None else None

    def variants(self, case: Case, *, case_id: str | None = None) -> Variants:
        if self.field is not None and get_field(case, self.field) is MISSING:
            return _missing(case, self.field)
        made = self.function(case)
        if isinstance(made, NotApplicable):
            return made
        if isinstance(made, (str, bytes, Mapping)) or not isinstance(made, Iterable):
            raise TypeError(
                f"relation {self.name!r} returned {type(made).__name__}; a relation function "
                "returns an iterable of variant cases (dicts, or Variant(case, label)), or "
                "NotApplicable(reason)"
            )
        variants: list[Variant] = []
        for index, item in enumerate(made, start=1):
            if isinstance(item, Variant):
                variants.append(item)
            elif isinstance(item, Mapping):
                variants.append(Variant(item, f"variant {index}"))
            else:
                raise TypeError(
                    f"relation {self.name!r} made a {type(item).__name__} as variant {index}; "
                    "each variant is a case (a dict like the original) or Variant(case, label)"
                )
        if not variants:
            return NotApplicable(f"{self.name} made no variant of this case")
        return tuple(variants)


def relation(
    function: Callable[[Any], object], *, name: str | None = None, field: str | None = None
) -> Relation:
    """A relation from ``function(case)``, which returns the variant cases (dicts, or
    `Variant` with a label) or `NotApplicable` (so does an empty result); a case without the
    optional ``field`` is not applicable, and `check_fields` rejects a path no case has."""
    if not callable(function):
        raise TypeError(
            f"relation() needs a function case -> variants, got {type(function).__name__}"
        )
    label = name or str(getattr(function, "__name__", "relation"))
    return _FunctionRelation(function, label, field)


def as_relation(value: object) -> Relation:
    """A `Relation` as given, or a plain function made into one."""
    if isinstance(value, Relation):
        return value
    if callable(value):
        return relation(value)
    raise TypeError(
        f"relations must be Relation objects (order, distractor, format_jitter, paraphrase, "
        f"relation(function)) or functions case -> variants, got {type(value).__name__}"
    )


# --- field paths ---------------------------------------------------------------------------------


def check_field_path(path: object) -> str:
    """Return ``path`` if it is a dotted field path, else raise naming it."""
    if not isinstance(path, str) or not path or any(not part for part in path.split(".")):
        raise ConfigurationError(
            f"field must be a field name or a dotted path such as 'documents' or "
            f"'retrieval.documents', got {path!r}"
        )
    return path


def _step(value: Any, part: str) -> Any:
    if isinstance(value, Mapping):
        return value.get(part, MISSING)
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)) and part.isdigit():
        index = int(part)
        return value[index] if index < len(value) else MISSING
    return MISSING


def get_field(case: Case, path: str) -> Any:
    """The value at ``path`` in ``case``, or `MISSING`."""
    value: Any = case
    for part in path.split("."):
        value = _step(value, part)
        if value is MISSING:
            return MISSING
    return value


def with_field(case: Case, path: str, value: Any) -> dict[str, Any]:
    """A copy of ``case`` with ``path`` set to ``value`` (the containers on the path copied)."""
    head, _, rest = path.partition(".")
    copied = dict(case)
    copied[head] = _replaced(case[head], rest, value) if rest else value
    return copied


def _replaced(container: Any, path: str, value: Any) -> Any:
    head, _, rest = path.partition(".")
    if isinstance(container, Mapping):
        return with_field(container, path, value)
    items = list(container)
    index = int(head)
    items[index] = _replaced(items[index], rest, value) if rest else value
    return type(container)(items) if isinstance(container, tuple) else items


def _missing(case: Case, path: str) -> NotApplicable:
    fields = ", ".join(sorted(map(str, case))) if isinstance(case, Mapping) else "none"
    return NotApplicable(f"the case has no field {path!r} (its fields: {fields})")


def check_case(case: object) -> Case:
    """Return ``case`` if it is a mapping, else raise a ``TypeError`` naming what it is."""
    if not isinstance(case, Mapping):
        raise TypeError(
            f"a case must be a mapping of fields (a dict such as {{'id': 'c1', 'question': ...}}), "
            f"got {type(case).__name__}"
        )
    return case


def check_fields(relations: Iterable[Relation], cases: Sequence[object]) -> None:
    """Raise when a relation's field path is in none of ``cases`` (a typo)."""
    mappings = [case for case in cases if isinstance(case, Mapping)]
    if not mappings:
        return
    for item in relations:
        if item.field is None:
            continue
        if all(get_field(case, item.field) is MISSING for case in mappings):
            fields = sorted({str(key) for case in mappings for key in case})
            raise ConfigurationError(
                f"{item.label}: no case has the field {item.field!r}; the cases' fields are "
                f"{', '.join(fields) or 'none'}. Fix the field= path (dots for nested fields, "
                "e.g. 'retrieval.documents')"
            )
