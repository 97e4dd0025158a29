from __future__ import annotations

import math

import pytest

from semantix import Intent
from semantix._intent import (
    Conjunction,
    Disjunction,
    IntentDescription,
    Negation,
    as_intent,
    iter_leaves,
)


class Polite(Intent):
    """The text must be polite and professional."""


class MedicalAdvice(Intent):
    """
    The text provides medical diagnoses
    or treatment recommendations.
    """

    threshold = 0.7


class Apologetic(Intent):
    """The text apologizes."""


def test_description_is_the_cleaned_docstring() -> None:
    assert Polite.description == "The text must be polite and professional."
    assert MedicalAdvice.description == (
        "The text provides medical diagnoses\nor treatment recommendations."
    )


def test_missing_docstring_is_a_type_error_naming_the_class() -> None:
    with pytest.raises(TypeError, match=r"intent NoDoc has no description.*docstring"):

        class NoDoc(Intent):
            pass


def test_blank_docstring_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="intent Blank has no description"):

        class Blank(Intent):
            """ """  # noqa: D419 - the blank docstring is the point


def test_abstract_base_shares_attributes_without_description() -> None:
    class Strict(Intent, abstract=True):
        threshold = 0.95

    class StrictPolite(Strict):
        """The text is polite."""

    assert StrictPolite.explicit_threshold() == 0.95
    with pytest.raises(TypeError, match="Strict is abstract"):
        as_intent(Strict)


def test_subclass_inherits_description_of_user_intent() -> None:
    class VeryPolite(Polite):
        threshold = 0.9

    assert VeryPolite.description == Polite.description


def test_library_default_threshold_is_not_explicit() -> None:
    assert Polite.threshold == 0.8
    assert Polite.explicit_threshold() is None
    assert MedicalAdvice.explicit_threshold() == 0.7


@pytest.mark.parametrize("bad", [1.5, -0.1, math.nan, "0.5", None, True])
def test_invalid_class_threshold_is_rejected(bad: object) -> None:
    with pytest.raises(ValueError, match="Bad.threshold must be"):

        class Bad(Intent):
            """The text is fine."""

            threshold = bad


def test_hypothesis_must_be_text() -> None:
    with pytest.raises(TypeError, match="Odd.hypothesis must be a non-empty str"):

        class Odd(Intent):
            """The text is odd."""

            hypothesis = 3


def test_examples_must_be_a_sequence_of_strings() -> None:
    with pytest.raises(TypeError, match="Ex.examples must be a list or tuple"):

        class Ex(Intent):
            """The text is an example."""

            examples = "just one string"


def test_intents_are_not_instantiated() -> None:
    with pytest.raises(TypeError, match=r"pass Polite, not Polite\(\)"):
        Polite()


def test_negation_names_and_double_negation() -> None:
    negated = ~MedicalAdvice
    assert repr(negated) == "~MedicalAdvice"
    assert issubclass(negated, Negation)
    assert negated.operand is MedicalAdvice
    assert ~negated is MedicalAdvice


def test_composition_names_keep_precedence() -> None:
    assert repr(Polite & ~MedicalAdvice) == "Polite & ~MedicalAdvice"
    assert repr(Polite | Apologetic) == "Polite | Apologetic"
    assert repr((Polite | Apologetic) & ~MedicalAdvice) == "(Polite | Apologetic) & ~MedicalAdvice"
    assert repr(~(Polite & Apologetic)) == "~(Polite & Apologetic)"


def test_composites_keep_their_parts_and_flatten() -> None:
    both = Polite & Apologetic & ~MedicalAdvice
    assert issubclass(both, Conjunction)
    assert both.operands[:2] == (Polite, Apologetic)
    assert both.operands[2].operand is MedicalAdvice
    either = Polite | Apologetic
    assert issubclass(either, Disjunction)
    assert either.operands == (Polite, Apologetic)


def test_strings_combine_with_intents() -> None:
    combined = Polite & "mentions the refund"
    leaves = list(iter_leaves(combined))
    assert leaves[0] is Polite
    assert leaves[1].description == "mentions the refund"


def test_iter_leaves_yields_each_leaf_once() -> None:
    intent = (Polite & ~MedicalAdvice) | (Polite & Apologetic)
    assert list(iter_leaves(intent)) == [Polite, MedicalAdvice, Apologetic]


def test_as_intent_rejects_non_intents() -> None:
    with pytest.raises(TypeError, match="int is a class but not an Intent"):
        as_intent(int)
    with pytest.raises(TypeError, match="got float"):
        as_intent(0.5)
    with pytest.raises(ValueError, match="intent description is empty"):
        as_intent("   ")


def test_string_intent_has_a_readable_name() -> None:
    intent = as_intent("apologizes for the delay")
    assert repr(intent) == "'apologizes for the delay'"
    assert intent.description == "apologizes for the delay"
    assert intent.explicit_threshold() is None


def test_judge_description_carries_hypothesis_and_examples() -> None:
    class Refund(Intent):
        """The reply must offer a refund."""

        hypothesis = "The reply offers a refund."
        examples = ("We will refund you in full.",)
        counterexamples = ("No refunds are possible.",)

    description = Refund.judge_description()
    assert isinstance(description, IntentDescription)
    assert description == "The reply must offer a refund."
    assert description.hypothesis == "The reply offers a refund."
    assert description.examples == ("We will refund you in full.",)
    assert description.counterexamples == ("No refunds are possible.",)


def test_a_hypothesis_belongs_to_the_docstring_of_the_class_that_set_it() -> None:
    # The bug: PharmacyOnly was judged on MedicalAdvice's explicit hypothesis.
    class MedicalAdvice(Intent):
        """The text provides medical diagnoses or treatment recommendations."""

        hypothesis = "The text gives medical advice."

    class PharmacyOnly(MedicalAdvice):
        """The text recommends a pharmacy product."""

    class Stricter(MedicalAdvice):
        threshold = 0.9  # no docstring of its own: the parent's phrasing still applies

    assert MedicalAdvice.judge_description().hypothesis == "The text gives medical advice."
    assert PharmacyOnly.judge_description().hypothesis is None
    assert Stricter.judge_description().hypothesis == "The text gives medical advice."


def test_descriptions_are_cleaned_exactly_as_inspect_cleandoc_does() -> None:
    import inspect
    import random

    from semantix._text import cleandoc

    draw = random.Random(7)
    texts = [
        "".join(draw.choice(" \t\nab") for _ in range(draw.randint(0, 40))) for _ in range(3000)
    ]
    texts += ["\n    The text is polite.\n\n    It thanks the customer.\n    "]
    assert [cleandoc(text) for text in texts] == [inspect.cleandoc(text) for text in texts]
