"""The steps of the one check, shared by `check` and `acheck` (see `semantix.pipeline`):
``begin`` (view, structural leaves, the judge), ``plan_requests`` (thresholds, which semantic
leaves to send), ``ask`` (the judge), ``finish`` (combine, results, the report record)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from semantix import context
from semantix.checks.base import STRUCTURAL, Structural
from semantix.config import check_seconds, check_threshold
from semantix.errors import ConfigurationError, JudgeTimeoutError, SemantixError
from semantix.intent import (
    Conjunction,
    Disjunction,
    Intent,
    IntentDescription,
    IntentLike,
    Negation,
    as_intent,
    iter_leaves,
)
from semantix.judges.base import Capabilities, JudgeLike, JudgeRequest, Verdict, capabilities
from semantix.judges.calls import ask_judge
from semantix.judges.deadline import run_with_deadline
from semantix.judges.phrasing import negated_statement
from semantix.outputs import OutputView, describe_calls, output_view
from semantix.pipeline.judging import resolve_judge
from semantix.pipeline.results import CheckError, LeafResult, SemanticResult
from semantix.pipeline.thresholds import resolve_threshold

#: Per leaf: how it was asked (None: structural), its verdict, and whether it was judged.
_Verdicts = dict[type[Intent], tuple["_LeafPlan | None", Verdict, bool]]

EMPTY_REASON = "the output is empty, so it cannot satisfy the intent (judge not called)"


@dataclass(frozen=True, slots=True)
class _LeafPlan:
    """How one semantic leaf is asked: the description sent, its threshold, whether inverted."""

    intent: type[Intent]
    description: str
    threshold: float
    threshold_source: str
    judged_as: str | None
    scale: str = "score"


#: Errors a reporting check records as a `CheckError` before raising them.
REPORTED = (SemantixError, TypeError, ValueError)


@dataclass
class Setup:
    """One check before its judge answers: outputs read, structural leaves decided, the judge
    resolved, and the semantic requests still to ask (filled by `plan_requests`)."""

    intent: type[Intent]
    semantic: list[type[Intent]]
    views: list[OutputView]
    decided: list[dict[type[Intent], Verdict]]
    judge: JudgeLike | None
    declared: Capabilities | None
    threshold: float | None
    defaults: context.Defaults
    limit: float | None
    started: float

    def expired(self) -> Exception:
        return expired(self.declared, self.limit or 0.0, self.intent)


@dataclass
class Asked:
    """The semantic verdicts known without asking, and the requests the judge must answer."""

    plans: dict[type[Intent], _LeafPlan]
    verdicts: list[_Verdicts]
    asked: list[tuple[int, type[Intent], str | None]]
    requests: list[JudgeRequest]
    what: str


def begin(
    outputs: Sequence[object],
    intent: IntentLike,
    judge: JudgeLike | str | None,
    threshold: float | None,
    timeout: float | None,
) -> Setup:
    started = time.perf_counter()
    intent_class = as_intent(intent)
    leaves = list(iter_leaves(intent_class))
    structural: list[type[Structural]] = [leaf for leaf in leaves if issubclass(leaf, Structural)]
    semantic = [leaf for leaf in leaves if not issubclass(leaf, Structural)]
    if threshold is not None:
        check_threshold(threshold)
        if not semantic:
            raise TypeError(
                f"threshold={threshold!r} was given, but {intent_class.__name__} has only "
                "structural leaves, which are decided exactly (1.0 or 0.0) without a judge; "
                "drop threshold="
            )
    views = [output_view(output) for output in outputs]
    decided: list[dict[type[Intent], Verdict]] = [
        {leaf: leaf.decide(view) for leaf in structural} for view in views
    ]
    defaults = context.current()
    limit = check_seconds(timeout if timeout is not None else defaults.timeout)
    resolved = resolve_judge(judge, defaults=defaults) if semantic else None
    declared = capabilities(resolved) if resolved is not None else None
    return Setup(
        intent_class,
        semantic,
        views,
        decided,
        resolved,
        declared,
        threshold,
        defaults,
        limit,
        started,
    )


def ask_within_limit(setup: Setup) -> tuple[Asked, list[Verdict]]:
    """`_ask`, bounded by the check's time limit when it has one."""
    if setup.judge is None or setup.limit is None:
        return _ask(setup)
    return run_with_deadline(lambda: _ask(setup), setup.limit, setup.expired, name="semantix-check")


def _ask(setup: Setup) -> tuple[Asked, list[Verdict]]:
    asked = plan_requests(setup)
    if setup.judge is None:
        return asked, []
    return asked, ask_judge(setup.judge, asked.requests, what=asked.what)


def plan_requests(setup: Setup) -> Asked:
    """Thresholds (calibration may ask the judge), then which leaves to send, per output."""
    judge, declared = setup.judge, setup.declared
    if judge is None or declared is None:
        return Asked({}, [{} for _ in setup.views], [], [], "")
    _check_support(setup.semantic, declared)
    plans = {
        leaf: _plan(leaf, judge, declared, setup.threshold, setup.defaults.threshold)
        for leaf in setup.semantic
    }
    asked: list[tuple[int, type[Intent], str | None]] = []
    requests: list[JudgeRequest] = []
    verdicts: list[_Verdicts] = []
    for index, (view, known) in enumerate(zip(setup.views, setup.decided, strict=True)):
        needed = set(setup.semantic)
        if known and declared.costly:
            needed = set(_undecided(setup.intent, {k: v.passed for k, v in known.items()}))
        mine: _Verdicts = {}
        deciders = ", ".join(leaf.__name__ for leaf in known)
        for leaf in setup.semantic:
            plan = plans[leaf]
            subjects = getattr(leaf, "subjects", None)  # judged on other texts (semantix.agents)
            if leaf not in needed:
                mine[leaf] = (plan, _not_judged(deciders), False)
            elif callable(subjects):
                for label, text in subjects(view):
                    asked.append((index, leaf, label))
                    requests.append((text, plan.description, plan.threshold))
            elif view.text is None:
                raise TypeError(
                    f"{leaf.__name__} is judged on the output's text, but the output has none: "
                    f"it holds {_held(view)}. Check tool calls with semantix.checks "
                    "(e.g. CalledTool(...)), or pass the text you expect"
                )
            elif not view.text.strip():
                mine[leaf] = (plan, _empty_verdict(plan), True)
            else:
                asked.append((index, leaf, None))
                requests.append((view.text, plan.description, plan.threshold))
        verdicts.append(mine)
    what = ", ".join(leaf.__name__ for leaf in setup.semantic)
    return Asked(plans, verdicts, asked, requests, what)


def finish(
    setup: Setup, answers: tuple[Asked, list[Verdict]], report: bool
) -> list[SemanticResult]:
    asked, verdicts = answers
    labelled: dict[tuple[int, type[Intent]], list[tuple[str | None, Verdict]]] = {}
    for (index, leaf, label), verdict in zip(asked.asked, verdicts, strict=True):
        labelled.setdefault((index, leaf), []).append((label, verdict))
    for (index, leaf), answered in labelled.items():
        asked.verdicts[index][leaf] = (
            asked.plans[leaf],
            _fold(leaf, asked.plans[leaf], answered),
            True,
        )
    each_ms = (time.perf_counter() - setup.started) * 1000 / max(1, len(setup.views))
    identity = setup.declared.identity if setup.declared is not None else STRUCTURAL
    results = []
    for view, structural, semantic in zip(setup.views, setup.decided, asked.verdicts, strict=True):
        by_leaf: _Verdicts = {leaf: (None, verdict, True) for leaf, verdict in structural.items()}
        by_leaf.update(semantic)
        leaf_results: list[LeafResult] = []
        passed = _combine(setup.intent, by_leaf, expected=True, out=leaf_results)
        text = view.text or ""
        results.append(
            SemanticResult(
                intent=setup.intent,
                output=text,
                passed=passed,
                leaves=tuple(leaf_results),
                judge=identity,
                empty=bool(setup.semantic) and not text.strip(),
                duration_ms=each_ms,
            )
        )
    if report:
        for result in results:
            context.notify(result)
    return results


def report_error(outputs: Sequence[object], intent: object, exc: BaseException) -> None:
    for output in outputs:
        context.notify(CheckError(_name_of(intent), _text_or_none(output), exc))


def _name_of(intent: object) -> str:
    try:
        return as_intent(intent).__name__
    except (TypeError, ValueError):
        return repr(intent)


def _text_or_none(output: object) -> str | None:
    try:
        return output_view(output).text
    except TypeError:
        return None


def expired(declared: Capabilities | None, limit: float, intent: type[Intent]) -> Exception:
    name = declared.identity if declared is not None else "the judge"
    return JudgeTimeoutError(
        f"judge {name} did not answer within {limit:g} s on {intent.__name__}; a judge that "
        "times out is never a pass (the timeout bounds the whole check, calibration included). "
        "Raise the timeout "
        "(timeout=..., --semantic-timeout) or find out why the judge hangs"
    )


def _plan(
    leaf: type[Intent],
    judge: JudgeLike,
    declared: Capabilities,
    explicit: float | None,
    judge_default: float | None,
) -> _LeafPlan:
    description: IntentDescription = leaf.judge_description()
    judged_as = None
    if description.hypothesis is None and not declared.reads_negation:
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
        judge_default=judge_default,
        description=description,
        swap_examples=judged_as is not None,
        declared=declared,
    )
    return _LeafPlan(leaf, description, chosen.value, chosen.source, judged_as, declared.scale)


def _check_support(leaves: Sequence[type[Intent]], declared: Capabilities) -> None:
    """Support leaves (``Grounded``, ``Contradicts``) need a judge declaring ``evaluate_support``;
    their requests then go, like any other, through the judge's ``evaluate_batch``."""
    if declared.support is not None:
        return
    # Imported here: ``import semantix`` does not import the intents library.
    from semantix.intents._grounded import SupportIntent
    from semantix.judges.support import SUPPORT_JUDGES

    grounded = [leaf.__name__ for leaf in leaves if issubclass(leaf, SupportIntent)]
    if grounded:
        raise ConfigurationError(
            f"{', '.join(grounded)} checks support against sources, but the judge "
            f"{declared.identity} cannot (it declares no evaluate_support). Use a judge that "
            f"can: {SUPPORT_JUDGES}"
        )


def _undecided(node: type[Intent], known: dict[type[Intent], bool]) -> frozenset[type[Intent]]:
    """The leaves whose verdict can still change ``node``'s outcome, given the ``known`` ones."""
    return _partial(node, known)[1]


def _partial(
    node: type[Intent], known: dict[type[Intent], bool]
) -> tuple[bool | None, frozenset[type[Intent]]]:
    """``node`` evaluated with only ``known`` leaves: (its value or None, the leaves it needs)."""
    if issubclass(node, Negation):
        value, needed = _partial(node.operand, known)
        return (None if value is None else not value), needed
    if issubclass(node, (Conjunction, Disjunction)):
        absorbing = issubclass(node, Disjunction)  # True decides an |, False decides an &
        still_needed: set[type[Intent]] = set()
        open_operand = False
        for operand in node.operands:
            value, operand_needs = _partial(operand, known)
            if value is absorbing:
                return absorbing, frozenset()
            if value is None:
                open_operand = True
                still_needed |= operand_needs
        return (None if open_operand else not absorbing), frozenset(still_needed)
    if node in known:
        return known[node], frozenset()
    return None, frozenset({node})


def _fold(
    leaf: type[Intent], plan: _LeafPlan, answered: list[tuple[str | None, Verdict]]
) -> Verdict:
    """One verdict from a leaf's subjects: ``combine = "all"``: the first failing subject decides,
    else the weakest; ``"any"``: the first passing, else the strongest. A leaf judged as NOT its
    statement folds the other way (every turn avoids X = no turn does X). The reason names the
    deciding subject."""
    label, verdict = answered[0]
    if label is None:
        return verdict
    wanted = (getattr(leaf, "combine", "all") == "any") is (plan.judged_as is None)
    found = [item for item in answered if item[1].passed is wanted]
    pick = min if wanted is False else max
    label, verdict = found[0] if found else pick(answered, key=lambda item: item[1].score or 0.0)
    return replace(verdict, reason=f"{label}: {verdict.reason}" if verdict.reason else label)


def _empty_verdict(plan: _LeafPlan) -> Verdict:
    return Verdict(passed=False, score=0.0, reason=EMPTY_REASON, threshold=plan.threshold)


def _not_judged(deciders: str) -> Verdict:
    return Verdict(passed=False, score=None, reason=f"not judged: decided by {deciders}")


def _held(view: OutputView) -> str:
    if not view.tool_calls:
        return "no text and no tool calls"
    return f"only tool calls: {describe_calls(view.tool_calls)}"


def _combine(
    node: type[Intent],
    by_leaf: _Verdicts,
    *,
    expected: bool,
    out: list[LeafResult],
) -> bool:
    if issubclass(node, Negation):
        return not _combine(node.operand, by_leaf, expected=not expected, out=out)
    if issubclass(node, (Conjunction, Disjunction)):
        results = [
            _combine(operand, by_leaf, expected=expected, out=out) for operand in node.operands
        ]
        return all(results) if issubclass(node, Conjunction) else any(results)
    plan, verdict, judged = by_leaf[node]
    inverted = plan is not None and plan.judged_as is not None
    wanted = expected is not inverted
    if not any(existing.intent is node and existing.expected is wanted for existing in out):
        if plan is None:  # structural: decided exactly, at 1.0
            out.append(LeafResult(node, verdict, 1.0, wanted, "structural"))
        else:
            out.append(
                LeafResult(
                    node,
                    verdict,
                    plan.threshold,
                    wanted,
                    plan.threshold_source,
                    plan.judged_as,
                    judged=judged,
                    scale=plan.scale,
                )
            )
    return verdict.passed is not inverted
