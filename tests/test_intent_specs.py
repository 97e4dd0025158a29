"""Intent specs with ``~ & |`` (`semantix.pipeline._intent_specs`)."""

from __future__ import annotations

import pytest

from semantix._intent import Conjunction, Disjunction, Negation, iter_leaves
from semantix.errors import ConfigurationError
from semantix.pipeline._intent_specs import intent_from_spec

CONTAINS = "semantix.checks:Contains('refund')"


def test_a_combination_of_import_paths_and_quoted_descriptions() -> None:
    intent = intent_from_spec(f"{CONTAINS} & ~'The text is rude.'")
    assert isinstance(intent, type) and issubclass(intent, Conjunction)
    assert intent.__name__ == "Contains('refund') & ~'The text is rude.'"
    _, right = intent.operands
    assert issubclass(right, Negation) and right.operand.description == "The text is rude."


def test_and_binds_tighter_than_or_and_parentheses_group() -> None:
    one = intent_from_spec(f"'a.' | 'b.' & {CONTAINS}")
    assert issubclass(one, Disjunction) and issubclass(one.operands[1], Conjunction)
    two = intent_from_spec(f"('a.' | 'b.') & {CONTAINS}")
    assert issubclass(two, Conjunction) and issubclass(two.operands[0], Disjunction)
    assert len(list(iter_leaves(two))) == 3


@pytest.mark.parametrize(
    "spec", ["The text is polite & kind.", "polite | rude", "~ not a path", "Tone: (kind)"]
)
def test_text_that_is_not_a_combination_is_one_description(spec: str) -> None:
    assert intent_from_spec(spec) == spec


def test_a_negated_factory_call() -> None:
    negated = intent_from_spec("~semantix.checks:Contains('x')")
    assert issubclass(negated, Negation) and negated.__name__ == "~Contains('x')"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (f"{CONTAINS} & ", "expected an intent at part 3, got 'the end'"),
        (f"({CONTAINS} & 'a.'", "a '\\(' is not closed"),
        ("nope_module:X & 'a.'", "cannot import 'nope_module'"),
        ("", "is not an intent spec"),
    ],
)
def test_broken_combinations_say_where(spec: str, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        intent_from_spec(spec)
