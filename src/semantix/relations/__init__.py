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

probatio's rules, which semantix keeps:

- a **relation** names a transformation of the system's *input* that preserves its meaning:
  `order` (permute a list field), `distractor` (insert an irrelevant document from a pool),
  `format_jitter` (whitespace, casing, punctuation), `paraphrase` (reviewed variants from
  ``variants/<case id>.yaml``), or your own function ``case -> variants`` (`relation`);
- a **violation** counts in both directions: a variant that passes where the original failed
  breaks the invariant as much as one that fails where it passed (the rule, with repeated
  runs too: `semantix.relations.results`);
- a relation that does not apply (a one-element list, a field the case lacks, no variants
  file) is **not applicable**, never a rate of 0.00; a field that no case has is an error;
- a crash of the system under test on a variant is an **error** for that variant, shown, never
  a violation or a pass; a relation whose every variant raised, or whose ceiling errored
  variants leave unproven, is a `RelationError`;
- paraphrases are generated once (``semantix freeze-variants``), reviewed by a person and
  committed; never sampled during a test run, never written in CI;
- a relation's violation rate is reported beside the case and decides nothing, unless a
  ceiling is set (``max_violation_rate=``).

The package: `semantix.relations.base` (Relation, Variant, NotApplicable, field paths),
`semantix.relations.builtin` (the four relations), `semantix.relations.variants` (frozen
files), `semantix.relations.freeze` (writing them through an LLM), `semantix.relations.results`
(results, the violation rule, summaries), `semantix.relations.evaluate` (evaluate_relations)
and `semantix.relations.decorators` (the pytest decorators).
"""

from __future__ import annotations

from semantix.relations.base import NotApplicable, Relation, Variant, check_fields, relation
from semantix.relations.builtin import (
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
from semantix.relations.decorators import (
    distractor_robust,
    format_invariant,
    invariant,
    order_invariant,
    paraphrase_invariant,
)
from semantix.relations.evaluate import RelationViolationError, evaluate_relations
from semantix.relations.results import (
    RelationError,
    RelationResult,
    RelationSummary,
    VariantResult,
    summarize,
    violation,
)
from semantix.relations.variants import VariantsFile, VariantsFileError, read_variants

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
