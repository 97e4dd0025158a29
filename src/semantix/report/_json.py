"""The report model's JSON, both ways: `to_json` (a model object as JSON data) and `build`
(a model object from its checked JSON object), each by a plan made once per model class."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import fields
from operator import attrgetter
from typing import Any

__all__ = ["build", "model_fields", "to_json"]

_SCALARS = frozenset((str, int, float, bool, type(None)))


@functools.cache  # one entry per model class
def model_fields(cls: type) -> tuple[frozenset[str], frozenset[str]]:
    """Every field of the model class ``cls``, and those that hold a tuple."""
    every = fields(cls)
    tuples = frozenset(f.name for f in every if str(f.type).startswith("tuple"))
    return frozenset(f.name for f in every), tuples


def to_json(value: Any) -> Any:
    """``value`` (a model object, or tuples and mappings of them) as JSON data: lists, dicts,
    strings and numbers; a field in a class's ``_OPTIONAL`` is left out when it is None."""
    kind: type = type(value)
    if kind in _SCALARS:
        return value
    plan = _PLANS.get(kind)  # a model class seen before: the common case, one look-up
    if plan is None:
        if kind is tuple or kind is list:
            return [to_json(item) for item in value]
        if isinstance(value, Mapping):
            return {key: to_json(item) for key, item in value.items()}
        if kind.__dict__.get("to_json") is not None:  # a whole report: its file
            return value.to_json()
        plan = _PLANS[kind] = _plan(kind)
    names, values, nested, optional = plan
    data = dict(zip(names, values(value), strict=True))
    for name in nested:
        item = data[name]
        if type(item) is tuple:  # a tuple of model objects (or of numbers)
            data[name] = [to_json(one) for one in item]
        elif type(item) not in _SCALARS:
            data[name] = to_json(item)
    for name in optional:
        if data[name] is None:
            del data[name]
    return data


_Plan = tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]], tuple[str, ...], tuple[str, ...]]
_SCALAR_TYPES: tuple[str, ...] = ("str", "int", "float", "bool", "CheckOutcome", "TestOutcome")
_SCALAR_TYPES += tuple(f"{name} | None" for name in _SCALAR_TYPES)


#: The plan of each model class `to_json` has met (`_plan`).
_PLANS: dict[type, _Plan] = {}


@functools.cache  # one entry per model class
def _plan(cls: type) -> _Plan:
    """The JSON fields of ``cls``, a getter of their values, those that may hold more than a
    scalar (by their annotation), and those left out when None (``_OPTIONAL``)."""
    every = [f for f in fields(cls) if f.metadata.get("json", True)]
    names = tuple(f.name for f in every)
    getter = attrgetter(*names)
    values = getter if len(names) > 1 else lambda value: (getter(value),)
    nested = tuple(f.name for f in every if str(f.type) not in _SCALAR_TYPES)
    optional = tuple(name for name in names if name in getattr(cls, "_OPTIONAL", ()))
    return names, values, nested, optional


def build(cls: type, data: Mapping[str, Any], **nested: Any) -> Any:
    """An instance of the model class ``cls`` from its JSON object (checked already): the fields
    it knows (lists as tuples), ``nested`` in place of theirs."""
    names, tuples = model_fields(cls)
    known: Mapping[str, Any] = {**data, **nested} if nested else data
    if not names.issuperset(known):  # a field a newer semantix added: left out
        known = {key: value for key, value in known.items() if key in names}
    if tuples:
        lists = {name: tuple(value) for name in tuples if type(value := known.get(name)) is list}
        known = {**known, **lists} if lists else known
    return cls(**known)
