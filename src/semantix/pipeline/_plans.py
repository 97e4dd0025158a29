"""How each semantic leaf of a check is asked: the description sent (a negatively phrased
requirement as NOT its positive statement, for a judge that reads literally), its threshold in
the documented order (`semantix.pipeline._thresholds`) and where it came from. Made at each check
from the intent, the options, the run's defaults and what the check's judge declares, so a
change to any of them is seen by the next check.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from semantix._intent import Intent, IntentDescription
from semantix.errors import ConfigurationError
from semantix.judges._base import Capabilities
from semantix.pipeline._judging import JudgeHandle
from semantix.pipeline._thresholds import resolve_threshold

__all__ = ["LeafPlan", "plan_leaves"]

#: The abilities a leaf may require (`Intent.requires`), as `Capabilities` names them.
_ABILITIES = {"evaluate_support": "support"}


@dataclass(frozen=True, slots=True)
class LeafPlan:
    """How one semantic leaf is asked: the description sent, its threshold, whether inverted."""

    intent: type[Intent]
    description: IntentDescription
    threshold: float
    threshold_source: str
    judged_as: str | None
    scale: str = "score"


def plan_leaves(
    leaves: Sequence[type[Intent]], judge: JudgeHandle, explicit: float | None, marker: float | None
) -> dict[type[Intent], LeafPlan]:
    """Each semantic leaf's plan with this check's judge (``explicit``: the ``threshold=``
    argument; ``marker``: the run's threshold, the pytest marker's)."""
    _check_abilities(leaves, judge.declared)
    return {leaf: _plan(leaf, judge, explicit, marker) for leaf in leaves}


def _plan(
    leaf: type[Intent], judge: JudgeHandle, explicit: float | None, marker: float | None
) -> LeafPlan:
    declared = judge.declared
    description: IntentDescription = leaf.judge_description()
    judged_as = None
    if description.hypothesis is None and not declared.reads_negation:
        from semantix.judges._phrasing import negated_statement  # judges that read literally

        judged_as = negated_statement(str(description))
    if judged_as is not None:
        description = IntentDescription(
            judged_as,
            hypothesis=None,
            examples=description.counterexamples,
            counterexamples=description.examples,
        )
    chosen = resolve_threshold(
        leaf,
        judge.judge,
        explicit,
        judge_default=marker,
        description=description,
        swap_examples=judged_as is not None,
        declared=declared,
        ask=judge.ask,
    )
    return LeafPlan(leaf, description, chosen.value, chosen.source, judged_as, declared.scale)


def _check_abilities(leaves: Sequence[type[Intent]], declared: Capabilities) -> None:
    """A leaf that requires a judge ability (`Intent.requires`) gets a judge that declares it."""
    for leaf in leaves:
        if leaf.requires is None:
            continue
        if getattr(declared, _ABILITIES[leaf.requires]) is None:
            from semantix.judges._support import SUPPORT_JUDGES as judges  # only for the message

            raise ConfigurationError(
                f"{leaf.__name__} needs a judge that declares {leaf.requires}, and the judge "
                f"{declared.identity} does not. Use one that does: {judges}"
            )
