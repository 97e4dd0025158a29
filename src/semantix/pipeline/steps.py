"""The steps of the one check, shared by `check` and `acheck` (see `semantix.pipeline`):
``begin`` (views, structural leaves, the judge), ``plan_requests`` (thresholds, which semantic
leaves to send and what to ask), the judge's one batch, ``finish`` (combine, results, records).

**Nothing to judge** is decided here, once, for every leaf and runner:

- a leaf that reads the text (``needs == "text"``: every semantic leaf, the text checks), on an
  output that holds none (tool calls only, a refusal), is a ``TypeError`` naming what the output
  holds — unless the other leaves already decide the check (``CalledTool("x") | Polite`` on a
  tools-only reply passes without it, "not judged");
- a semantic leaf on an empty or blank text is not sent to the judge and FAILS whichever way it
  is wanted: neither ``X`` nor ``~X`` (nor ``~Grounded(docs)``) passes on nothing.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from semantix import context
from semantix.cache import memo
from semantix.checks.base import STRUCTURAL, Scoped, Structural
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
from semantix.outputs import OutputView, describe_calls, output_view
from semantix.pipeline.judging import resolve_judge
from semantix.pipeline.options import Options
from semantix.pipeline.results import EMPTY_REASON, CheckError, LeafResult, SemanticResult
from semantix.pipeline.thresholds import resolve_threshold

#: Per leaf: how it was asked (None: structural), its verdict, and whether it was judged.
_Verdicts = dict[type[Intent], tuple["_LeafPlan | None", Verdict, bool]]
#: One output's outcome: its result, or the error that stopped its check.
Outcome = SemanticResult | BaseException

#: Errors a check records as a `CheckError` (and a repeated check counts as a run's error).
REPORTED = (SemantixError, TypeError, ValueError)
#: The verdict of a leaf that reads the text, on an output that holds none (not needed).
_NO_TEXT = Verdict(passed=False, score=None, reason="nothing to judge: the output has no text")
#: The abilities a leaf may require (`Intent.requires`), as `Capabilities` names them.
_ABILITIES = {"evaluate_support": "support"}


@dataclass(frozen=True, slots=True)
class _LeafPlan:
    """How one semantic leaf is asked: the description sent, its threshold, whether inverted."""

    intent: type[Intent]
    description: IntentDescription
    threshold: float
    threshold_source: str
    judged_as: str | None
    scale: str = "score"


@dataclass(frozen=True, slots=True)
class Shape:
    """An intent's leaves, split once per intent class (every check of it reads them)."""

    structural: tuple[type[Structural], ...]
    semantic: tuple[type[Intent], ...]
    what: str


@memo(maxsize=1024)
def shape_of(intent: type[Intent]) -> Shape:
    leaves = list(iter_leaves(intent))
    structural = tuple(leaf for leaf in leaves if issubclass(leaf, Structural))
    semantic = tuple(leaf for leaf in leaves if not issubclass(leaf, Structural))
    return Shape(structural, semantic, ", ".join(leaf.__name__ for leaf in semantic))


@dataclass
class Setup:
    """One check before its judge answers: outputs read, structural leaves decided, the judge
    resolved and what it declares (read once per check)."""

    intent: type[Intent]
    shape: Shape
    views: list[OutputView]
    decided: list[dict[type[Intent], Verdict]]
    failures: dict[int, BaseException]
    judge: JudgeLike | None
    declared: Capabilities | None
    options: Options
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
    #: Per asking leaf: (output index, leaf, labels of a `Scoped` leaf's requests or None).
    asked: list[tuple[int, type[Intent], tuple[str, ...] | None]]
    requests: list[JudgeRequest]
    what: str


def begin(outputs: Sequence[object], intent: IntentLike, options: Options) -> Setup:
    started = time.perf_counter()
    intent_class = as_intent(intent)
    shape = shape_of(intent_class)
    if options.threshold is not None and not shape.semantic:
        raise TypeError(
            f"threshold={options.threshold!r} was given, but {intent_class.__name__} has only "
            "structural leaves, which are decided exactly (1.0 or 0.0) without a judge; "
            "drop threshold="
        )
    views = [output_view(output) for output in outputs]
    decided: list[dict[type[Intent], Verdict]] = []
    failures: dict[int, BaseException] = {}
    for index, view in enumerate(views):
        mine: dict[type[Intent], Verdict] = {}
        try:
            for leaf in shape.structural:
                mine[leaf] = (
                    _NO_TEXT if view.text is None and leaf.needs == "text" else leaf.decide(view)
                )
        except SemantixError as exc:  # e.g. an unenforceable budget: this output's error
            failures[index] = exc
        decided.append(mine)
    defaults = context.current()
    timeout = options.timeout if options.timeout is not None else defaults.timeout
    judge = resolve_judge(options.judge, defaults=defaults) if shape.semantic else None
    declared = capabilities(judge) if judge is not None else None
    return Setup(
        intent_class, shape, views, decided, failures, judge, declared, options, defaults,
        timeout, started,
    )  # fmt: skip


def ask_within_limit(setup: Setup) -> tuple[Asked, list[Verdict]]:
    """Plan and ask, bounded by the check's time limit when it has one."""
    if setup.judge is None or setup.limit is None:
        return _ask(setup)
    return run_with_deadline(lambda: _ask(setup), setup.limit, setup.expired, name="semantix-check")


def _ask(setup: Setup) -> tuple[Asked, list[Verdict]]:
    asked = plan_requests(setup)
    if setup.judge is None or setup.declared is None:
        return asked, []
    return asked, ask_judge(setup.judge, asked.requests, what=asked.what, declared=setup.declared)


def plan_requests(setup: Setup) -> Asked:
    """Thresholds (calibration may ask the judge), then what to ask, output by output."""
    judge, declared, shape = setup.judge, setup.declared, setup.shape
    plans: dict[type[Intent], _LeafPlan] = {}
    if judge is not None and declared is not None:
        _check_abilities(shape.semantic, declared)
        marker = setup.defaults.threshold
        plans = {
            leaf: _plan(leaf, judge, declared, setup.options.threshold, marker)
            for leaf in shape.semantic
        }
    asked: list[tuple[int, type[Intent], tuple[str, ...] | None]] = []
    requests: list[JudgeRequest] = []
    verdicts: list[_Verdicts] = []
    for index, (view, known) in enumerate(zip(setup.views, setup.decided, strict=True)):
        mine: _Verdicts = {}
        verdicts.append(mine)
        if index in setup.failures:
            continue
        try:
            needed = _needed(setup, view, known)
        except TypeError as exc:
            setup.failures[index] = exc
            continue
        blind = [leaf for leaf, verdict in known.items() if verdict is _NO_TEXT] if known else []
        for leaf in (*blind, *shape.semantic) if blind else shape.semantic:
            plan = plans.get(leaf)
            if plan is None or leaf not in needed:
                deciders = ", ".join(k.__name__ for k, v in known.items() if v is not _NO_TEXT)
                mine[leaf] = (plan, _not_judged(deciders), False)
            elif view.text is not None and not view.text.strip() and leaf.needs == "text":
                mine[leaf] = (plan, _nothing(plan.threshold), True)
            elif issubclass(leaf, Scoped):
                assert declared is not None
                try:
                    got = leaf.asks(view, plan.description, plan.threshold, declared)
                except REPORTED as exc:  # e.g. no turn to judge: this output's error
                    setup.failures[index] = exc
                    break
                if isinstance(got, Verdict):
                    mine[leaf] = (plan, got, True)
                else:
                    asked.append((index, leaf, tuple(label for label, _ in got)))
                    requests.extend(request for _, request in got)
            else:
                asked.append((index, leaf, None))
                requests.append((view.text or "", plan.description, plan.threshold))
    return Asked(plans, verdicts, asked, requests, shape.what)


def _needed(
    setup: Setup, view: OutputView, known: dict[type[Intent], Verdict]
) -> set[type[Intent]]:
    """The semantic leaves to ask on this output: all of them, unless the judge is costly or
    the output has no text, when only those that can still change the outcome are; a leaf that
    reads the text and is still needed on an output without text is the ``TypeError`` of the
    module docstring."""
    semantic = setup.shape.semantic
    costly = setup.declared is not None and setup.declared.costly
    if view.text is not None and not (costly and known):
        return set(semantic)
    exact = {leaf: verdict.passed for leaf, verdict in known.items() if verdict is not _NO_TEXT}
    needed = set(_undecided(setup.intent, exact))
    if view.text is None:
        blind = [leaf for leaf in needed if leaf.needs == "text"]
        if blind:
            raise TypeError(
                f"{blind[0].__name__} is judged on the output's text, but the output has none: "
                f"it holds {_held(view)}. Check tool calls with semantix.checks (e.g. "
                "CalledTool(...)), or pass the text you expect"
            )
    return needed


def finish(setup: Setup, answers: tuple[Asked, list[Verdict]], report: bool) -> list[Outcome]:
    asked, verdicts = answers
    start = 0
    for index, leaf, labels in asked.asked:
        plan = asked.plans[leaf]
        if labels is None:
            verdict = verdicts[start]
            start += 1
            turn = setup.views[index].judged_turn
            if turn is not None:  # a transcript: say which reply a plain intent judged
                of = f"the final reply (step {turn + 1} of {len(setup.views[index].steps)})"
                verdict = replace(verdict, reason=f"{of}: {verdict.reason or verdict.passed}")
        else:
            answered = verdicts[start : start + len(labels)]
            start += len(labels)
            assert issubclass(leaf, Scoped) and setup.declared is not None
            labelled = list(zip(labels, answered, strict=True))
            view = setup.views[index]
            inverted = plan.judged_as is not None
            verdict = leaf.fold(view, labelled, plan.threshold, setup.declared, inverted=inverted)
        if verdict.judge is None:  # a custom judge's bare Verdict: it is the check's judge's
            assert setup.declared is not None
            verdict = replace(verdict, judge=setup.declared.identity)
        asked.verdicts[index][leaf] = (plan, verdict, True)
    each_ms = (time.perf_counter() - setup.started) * 1000 / max(1, len(setup.views))
    identity = setup.declared.identity if setup.declared is not None else STRUCTURAL
    outcomes: list[Outcome] = []
    for index, view in enumerate(setup.views):
        failure = setup.failures.get(index)
        if failure is not None:
            outcomes.append(failure)
            if report:
                context.notify(CheckError(setup.intent.__name__, view.text, failure))
            continue
        by_leaf: _Verdicts = {
            leaf: (None, verdict, True) for leaf, verdict in setup.decided[index].items()
        }
        by_leaf.update(asked.verdicts[index])
        leaf_results: list[LeafResult] = []
        passed = _combine(setup.intent, by_leaf, expected=True, out=leaf_results)
        text = view.text or ""
        result = SemanticResult(
            intent=setup.intent,
            output=text,
            passed=passed,
            leaves=tuple(leaf_results),
            judge=identity,
            empty=bool(setup.shape.semantic) and not text.strip(),
            duration_ms=each_ms,
        )
        outcomes.append(result)
        if report:
            context.notify(result)
    return outcomes


def report_error(outputs: Sequence[object], intent: object, exc: BaseException) -> None:
    """One `CheckError` record per output, for a check stopped before it had results."""
    try:
        name = as_intent(intent).__name__
    except (TypeError, ValueError):
        name = repr(intent)
    for output in outputs:
        try:
            text = output_view(output).text
        except TypeError:
            text = None
        context.notify(CheckError(name, text, exc))


def expired(declared: Capabilities | None, limit: float, intent: type[Intent]) -> Exception:
    name = declared.identity if declared is not None else "the judge"
    return JudgeTimeoutError(
        f"judge {name} did not answer within {limit:g} s on {intent.__name__}; a judge that "
        "times out is never a pass (the timeout bounds the whole check, calibration included). "
        "Raise the timeout (timeout=..., --semantic-timeout) or find out why the judge hangs"
    )


def _plan(
    leaf: type[Intent],
    judge: JudgeLike,
    declared: Capabilities,
    explicit: float | None,
    marker: float | None,
) -> _LeafPlan:
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
    return _LeafPlan(leaf, description, chosen.value, chosen.source, judged_as, declared.scale)


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


def _nothing(threshold: float) -> Verdict:
    return Verdict(passed=False, score=None, reason=EMPTY_REASON, threshold=threshold)


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
    if verdict.reason == EMPTY_REASON:  # nothing to judge fails whichever way it is wanted
        verdict = Verdict(
            passed=not wanted, score=None, reason=EMPTY_REASON, threshold=verdict.threshold
        )
    if not any(existing.intent is node and existing.expected is wanted for existing in out):
        if plan is None:  # structural: decided exactly, at 1.0
            out.append(LeafResult(node, verdict, 1.0, wanted, "structural", judged=judged))
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
