"""Metamorphic relations: the verdict must not move when the input's meaning does not.

```python
from semantix import FakeJudge
from semantix.relations import evaluate_relations, format_jitter, order

def answer(case):
    return "Refunds take 5 days." if "refund" in case["question"].lower() else "No idea."

judge = FakeJudge(lambda output, intent: 1.0 if "5 days" in output else 0.0)
case = {"id": "refund-1", "question": "How long does a refund take?", "documents": ["a", "b"]}
results = evaluate_relations(
    answer, case, "The answer says refunds take 5 days.",
    relations=[order("documents"), format_jitter("question")], judge=judge,
)
[result.rate for result in results]   # [0.0, 0.0]
```

A relation names a meaning-preserving transformation of the system's input (`order`,
`distractor`, `format_jitter`, `paraphrase`, or your own function via `relation`); a variant
whose verdict moves, either way, is a violation; a relation that does not apply is never a rate
of 0.00; a crash is an error, never a violation or a pass; paraphrases are frozen, reviewed
files; the rate decides nothing without ``max_violation_rate=`` (docs/relations.md, "The
rules"). Modules: `base`, `builtin`, `variants`, `freeze`, `results`, `evaluate`, `decorators`.
"""

from __future__ import annotations

from semantix.relations._base import NotApplicable, Relation, Variant, check_fields, relation
from semantix.relations._builtin import (
    JITTERS,
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
from semantix.relations._variants import VariantsFile, VariantsFileError, read_variants

__all__ = [
    "JITTERS",
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
    "VariantsFile",
    "VariantsFileError",
    "check_fields",
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
    "read_variants",
    "relation",
    "summarize",
    "violation",
]

for _public in (Relation, Variant, NotApplicable, Order, Distractor, FormatJitter, Paraphrase):
    _public.__module__ = "semantix.relations"
