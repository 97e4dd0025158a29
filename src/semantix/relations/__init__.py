"""Metamorphic relations: the verdict must not move when the input's meaning does not.

docs/relations.md is the manual: an example, the built-in relations (`order`, `distractor`,
`format_jitter`, `paraphrase`) and your own (`relation`), the rules, the pytest decorators.
"""

from __future__ import annotations

from semantix.relations._base import NotApplicable, Relation, Variant, relation
from semantix.relations._builtin import (
    Distractor,
    FormatJitter,
    MissingVariantsWarning,
    Order,
    Paraphrase,
    distractor,
    format_jitter,
    order,
    paraphrase,
)
from semantix.relations._decorators import (
    distractor_robust,
    format_invariant,
    invariant,
    order_invariant,
    paraphrase_invariant,
)
from semantix.relations._evaluate import RelationViolationError, evaluate_relations
from semantix.relations._results import (
    RelationError,
    RelationResult,
    RelationSummary,
    VariantResult,
    summarize,
    violation,
)
from semantix.relations._variants import VariantsFileError

__all__ = [
    "Distractor",
    "FormatJitter",
    "MissingVariantsWarning",
    "NotApplicable",
    "Order",
    "Paraphrase",
    "Relation",
    "RelationError",
    "RelationResult",
    "RelationSummary",
    "RelationViolationError",
    "Variant",
    "VariantResult",
    "VariantsFileError",
    "distractor",
    "distractor_robust",
    "evaluate_relations",
    "format_invariant",
    "format_jitter",
    "invariant",
    "order",
    "order_invariant",
    "paraphrase",
    "paraphrase_invariant",
    "relation",
    "summarize",
    "violation",
]

for _public in (Relation, Variant, NotApplicable, Order, Distractor, FormatJitter, Paraphrase):
    _public.__module__ = "semantix.relations"
