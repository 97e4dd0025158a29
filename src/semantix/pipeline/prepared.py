"""What every check of one intent, with one judge and one set of defaults, shares: made once.

A check's judge (resolved behind its store, `semantix.pipeline.judging`) and each semantic
leaf's plan (the description sent, its threshold and where the threshold came from) depend only
on the intent, the options (with a recording judge's own mode and store), the run's defaults,
three variables (``SEMANTIX_JUDGE``, ``SEMANTIX_VERDICTS``, ``SEMANTIX_VERDICTS_PATH``) and what
the judge declares. They are kept in the ``checks`` region of `semantix.cache.model_cache`,
keyed by all but the last, and the plans are made again when the judge declares something else
(an attribute of the judge changed).
Changing an attribute of an intent class once it was planned (``Polite.threshold = 0.9``), or
of a class it inherits from, drops every kept entry, as does ``clear_cache()``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from semantix import config, context
from semantix.cache import model_cache
from semantix.errors import ConfigurationError
from semantix.intent import PLANNED, Intent, IntentDescription, IntentMeta
from semantix.judges.base import Capabilities, JudgeLike, WrappingJudge
from semantix.pipeline.judging import resolve_judge
from semantix.pipeline.options import Options
from semantix.pipeline.thresholds import resolve_threshold

__all__ = ["LeafPlan", "Prepared", "prepare"]

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


class Prepared:
    """One intent's checks with one judge: the judge, and the leaves' plans once made.

    It holds the judge object and the defaults its key names by ``id``, so neither id is
    reused while the entry lives."""

    __slots__ = ("_planned", "held", "judge")

    def __init__(self, judge: JudgeLike, held: tuple[object, ...]) -> None:
        self.judge = judge
        self.held = held
        self._planned: tuple[Capabilities, dict[type[Intent], LeafPlan]] | None = None

    def plans(
        self,
        leaves: Sequence[type[Intent]],
        declared: Capabilities,
        explicit: float | None,
        marker: float | None,
    ) -> dict[type[Intent], LeafPlan]:
        """Each leaf's plan for a judge that declares ``declared`` (made when it changes)."""
        planned = self._planned
        if planned is not None and planned[0] is declared:
            return planned[1]
        _check_abilities(leaves, declared)
        for klass in {klass for leaf in leaves for klass in leaf.__mro__}:
            if isinstance(klass, IntentMeta) and not klass.__dict__.get(PLANNED):
                type.__setattr__(klass, PLANNED, True)  # a change to it is seen from now on
        plans = {leaf: _plan(leaf, self.judge, declared, explicit, marker) for leaf in leaves}
        self._planned = (declared, plans)
        return plans


def prepare(intent: type[Intent], options: Options, defaults: context.Defaults) -> Prepared:
    """The kept `Prepared` of this check, made (the judge resolved) on first use."""
    target = options.judge if options.judge is not None else defaults.judge
    named: object = target
    # issubclass: type's own check, not the structural isinstance of Judge's metaclass
    if issubclass(type(target), WrappingJudge):  # a recording judge's own mode and store count
        named = (id(target), target.__dict__.get("mode"), target.__dict__.get("store"))
    elif target is not None and not isinstance(target, str):
        named = id(target)
    variables = config.resolution_key(defaults.verdicts_mode, default_judge=target is None)
    key = (intent, named, options.threshold, id(defaults), variables)
    return model_cache.get_or_create(
        key,
        lambda: Prepared(resolve_judge(options.judge, defaults=defaults), (target, defaults)),
        region="checks",
    )


def _plan(
    leaf: type[Intent],
    judge: JudgeLike,
    declared: Capabilities,
    explicit: float | None,
    marker: float | None,
) -> LeafPlan:
    description: IntentDescription = leaf.judge_description()
    judged_as = None
    if description.hypothesis is None and not declared.reads_negation:
        from semantix.judges.phrasing import negated_statement  # judges that read literally

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
        judge,
        explicit,
        judge_default=marker,
        description=description,
        swap_examples=judged_as is not None,
        declared=declared,
    )
    return LeafPlan(leaf, description, chosen.value, chosen.source, judged_as, declared.scale)


def _check_abilities(leaves: Sequence[type[Intent]], declared: Capabilities) -> None:
    """A leaf that requires a judge ability (`Intent.requires`) gets a judge that declares it."""
    for leaf in leaves:
        if leaf.requires is None:
            continue
        if getattr(declared, _ABILITIES[leaf.requires]) is None:
            from semantix.judges.support import SUPPORT_JUDGES as judges  # only for the message

            raise ConfigurationError(
                f"{leaf.__name__} needs a judge that declares {leaf.requires}, and the judge "
                f"{declared.identity} does not. Use one that does: {judges}"
            )
