"""The steps of the one check, shared by `check` and `acheck`: ``begin``, ``plan_requests``,
the judge's one batch, ``finish`` (docs/architecture.md says what each does). **Nothing to
judge** is decided here, once, for every leaf and runner (`_needed`, the ``blank`` case of
`plan_requests`).
"""

from __future__ import annotations

import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

from semantix import _context as context
from semantix._cache import memo
from semantix._intent import (
    Conjunction,
    Disjunction,
    Intent,
    IntentLike,
    Negation,
    as_intent,
    iter_leaves,
)
from semantix.checks._base import STRUCTURAL, Scoped, Structural
from semantix.errors import JudgeTimeoutError, SemantixError
from semantix.judges._base import Capabilities, Verdict
from semantix.judges._deadline import run_with_deadline
from semantix.judges._request import Request
from semantix.outputs import OutputView, output_view
from semantix.outputs._view import describe_calls
from semantix.pipeline._judging import JudgeHandle, resolve_handle
from semantix.pipeline._options import Options
from semantix.pipeline._plans import LeafPlan, plan_leaves
from semantix.pipeline._results import EMPTY_REASON, CheckError, LeafResult, SemanticResult

#: Per leaf: how it was asked (None: structural), its verdict, and whether it was judged.
_Verdicts = dict[type[Intent], tuple["LeafPlan | None", Verdict, bool]]
#: One output's outcome: its result, or the error that stopped its check.
Outcome = SemanticResult | BaseException

#: Errors a check records as a `CheckError` (and a repeated check counts as a run's error).
REPORTED = (SemantixError, TypeError, ValueError)
#: What a check without semantic leaves uses of the run's defaults: nothing.
_NO_DEFAULTS = context.Defaults()
#: The intents that combine others (``~``, ``&``, ``|``).
_OPERATORS = (Negation, Conjunction, Disjunction)
#: The verdict of a leaf that reads the text, on an output that holds none (not needed).
_NO_TEXT = Verdict(passed=False, score=None, reason="nothing to judge: the output has no text")


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
    resolved once into its handle (None with structural leaves only)."""

    intent: type[Intent]
    shape: Shape
    views: list[OutputView]
    decided: list[dict[type[Intent], Verdict]]
    failures: dict[int, BaseException]
    judge: JudgeHandle | None
    options: Options
    defaults: context.Defaults
    limit: float | None
    started: float

    @property
    def declared(self) -> Capabilities | None:
        return None if self.judge is None else self.judge.declared

    def expired(self) -> Exception:
        return expired(self.declared, self.limit or 0.0, self.intent)


@dataclass
class Asked:
    """The semantic verdicts known without asking, and the requests the judge must answer."""

    plans: dict[type[Intent], LeafPlan]
    verdicts: list[_Verdicts]
    #: Per asking leaf: (output index, leaf, labels of a `Scoped` leaf's requests or None).
    asked: list[tuple[int, type[Intent], tuple[str, ...] | None]]
    requests: list[Request]
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
    if not shape.semantic:  # decided without a judge: no judge, defaults or time limit
        return Setup(
            intent_class, shape, views, decided, failures, None, options, _NO_DEFAULTS, None,
            started,
        )  # fmt: skip
    defaults = context.current()
    timeout = options.timeout if options.timeout is not None else defaults.timeout
    judge = resolve_handle(options.judge, defaults=defaults)
    return Setup(
        intent_class, shape, views, decided, failures, judge, options, defaults, timeout, started
    )


def ask_within_limit(setup: Setup) -> tuple[Asked, list[Verdict]]:
    """Plan and ask, bounded by the check's time limit when it has one."""
    if setup.judge is None or setup.limit is None:
        return _ask(setup)
    return run_with_deadline(lambda: _ask(setup), setup.limit, setup.expired, name="semantix-check")


def _ask(setup: Setup) -> tuple[Asked, list[Verdict]]:
    asked = plan_requests(setup)
    if setup.judge is None:
        return asked, []
    return asked, setup.judge.ask(asked.requests, asked.what)


def plan_requests(setup: Setup) -> Asked:
    """Thresholds (calibration may ask the judge), then what to ask, output by output."""
    shape, failures = setup.shape, setup.failures
    if not shape.semantic and all(view.text is not None for view in setup.views):
        return Asked({}, [{} for _ in setup.views], [], [], shape.what)  # all decided
    declared = setup.declared
    plans: dict[type[Intent], LeafPlan] = {}
    if setup.judge is not None:
        explicit, marker = setup.options.threshold, setup.defaults.threshold
        plans = plan_leaves(shape.semantic, setup.judge, explicit, marker)
    asked: list[tuple[int, type[Intent], tuple[str, ...] | None]] = []
    requests: list[Request] = []
    verdicts: list[_Verdicts] = []
    for index, view in enumerate(setup.views):
        mine: _Verdicts = {}
        verdicts.append(mine)
        if failures and index in failures:
            continue
        known, text = setup.decided[index], view.text
        leaves: Sequence[type[Intent]] = shape.semantic
        needed: Collection[type[Intent]] = leaves
        if text is None or (known and declared is not None and declared.costly):
            try:
                needed = _needed(setup, view, known)
            except TypeError as exc:
                failures[index] = exc
                continue
            blind = [leaf for leaf, verdict in known.items() if verdict is _NO_TEXT]
            leaves = (*blind, *leaves)
        blank = text is not None and not text.strip()
        for leaf in leaves:
            plan = plans.get(leaf)
            if plan is None or leaf not in needed:
                deciders = ", ".join(k.__name__ for k, v in known.items() if v is not _NO_TEXT)
                reason = f"not judged: decided by {deciders}"
                mine[leaf] = (plan, Verdict(passed=False, score=None, reason=reason), False)
            elif blank and leaf.needs == "text":
                nothing = Verdict(False, None, EMPTY_REASON, threshold=plan.threshold)
                mine[leaf] = (plan, nothing, True)
            elif issubclass(leaf, Scoped):
                assert declared is not None
                try:
                    got = leaf.asks(view, plan.description, plan.threshold, declared)
                except REPORTED as exc:  # e.g. no turn to judge: this output's error
                    failures[index] = exc
                    break
                if isinstance(got, Verdict):
                    mine[leaf] = (plan, got, True)
                else:
                    asked.append((index, leaf, tuple(label for label, _ in got)))
                    requests.extend(Request(*request) for _, request in got)
            else:
                asked.append((index, leaf, None))
                requests.append(Request(text or "", plan.description, plan.threshold))
    return Asked(plans, verdicts, asked, requests, shape.what)


def _needed(
    setup: Setup, view: OutputView, known: dict[type[Intent], Verdict]
) -> frozenset[type[Intent]]:
    """The semantic leaves to ask on an output without text, or beside decided structural
    leaves with a costly judge: only those that can still change the outcome. A leaf that
    reads the text and is still needed on an output without text is a ``TypeError`` naming
    what the output holds."""
    exact = {leaf: verdict.passed for leaf, verdict in known.items() if verdict is not _NO_TEXT}
    needed = _partial(setup.intent, exact)[1]
    if view.text is None:
        blind = [leaf for leaf in needed if leaf.needs == "text"]
        if blind:
            raise TypeError(
                f"{blind[0].__name__} is judged on the output's text, but the output has none: "
                f"{_held(view)}. Check tool calls with semantix.checks (e.g. "
                "CalledTool(...)), or pass the text you expect"
            )
    return needed


def finish(setup: Setup, answers: tuple[Asked, list[Verdict]], report: bool) -> list[Outcome]:
    asked, verdicts = answers
    views, declared, failures = setup.views, setup.declared, setup.failures
    start = 0
    for index, leaf, labels in asked.asked:
        plan, view = asked.plans[leaf], views[index]
        if labels is None:
            verdict = verdicts[start]
            start += 1
            turn = view.judged_turn
            if turn is not None:  # a transcript: say which reply a plain intent judged
                of = f"the final reply (step {turn + 1} of {len(view.steps)})"
                verdict = replace(verdict, reason=f"{of}: {verdict.reason or verdict.passed}")
        else:
            answered = verdicts[start : start + len(labels)]
            start += len(labels)
            assert issubclass(leaf, Scoped) and declared is not None
            labelled = list(zip(labels, answered, strict=True))
            inverted = plan.judged_as is not None
            verdict = leaf.fold(view, labelled, plan.threshold, declared, inverted=inverted)
        if verdict.judge is None:  # a custom judge's bare Verdict: it is the check's judge's
            assert declared is not None
            verdict = replace(verdict, judge=declared.identity)
        asked.verdicts[index][leaf] = (plan, verdict, True)
    each_ms = (time.perf_counter() - setup.started) * 1000 / max(1, len(views))
    identity = declared.identity if declared is not None else STRUCTURAL
    semantic = bool(setup.shape.semantic)
    outcomes: list[Outcome] = []
    for index, view in enumerate(views):
        failure = failures.get(index) if failures else None
        if failure is not None:
            outcomes.append(failure)
            if report:
                context.notify(CheckError(setup.intent.__name__, view.text, failure))
            continue
        leaf_results: list[LeafResult] = []
        passed = _combine(
            setup.intent, setup.decided[index], asked.verdicts[index], True, leaf_results
        )
        text = view.text or ""
        result = SemanticResult(
            setup.intent, text, passed, tuple(leaf_results), identity,
            semantic and not text.strip(), each_ms,
        )  # fmt: skip
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


def _partial(
    node: type[Intent], known: dict[type[Intent], bool]
) -> tuple[bool | None, frozenset[type[Intent]]]:
    """``node`` evaluated with only ``known`` leaves: (its value or None, the leaves whose
    verdict can still change it)."""
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


def _held(view: OutputView) -> str:
    if view.tool_calls and not view.steps:
        return f"it holds only tool calls: {describe_calls(view.tool_calls)}"
    if view.unanswered is not None:  # why a run (or a cut, refused reply) has no answer
        return f"the run has no final answer: {view.unanswered}"
    return "it holds no text and no tool calls"


def _combine(
    node: type[Intent],
    decided: dict[type[Intent], Verdict],
    asked: _Verdicts,
    expected: bool,
    out: list[LeafResult],
) -> bool:
    """``node``'s outcome from its leaves' verdicts (``decided``: structural; ``asked``: with
    their plans), appending each leaf's result to ``out`` once per way it is wanted."""
    if issubclass(node, _OPERATORS):
        if issubclass(node, Negation):
            return not _combine(node.operand, decided, asked, not expected, out)
        results = [_combine(operand, decided, asked, expected, out) for operand in node.operands]
        return all(results) if issubclass(node, Conjunction) else any(results)
    plan, verdict, judged = asked[node] if node in asked else (None, decided[node], True)
    inverted = plan is not None and plan.judged_as is not None
    wanted = expected is not inverted
    if verdict.reason == EMPTY_REASON:  # nothing to judge fails whichever way it is wanted
        verdict = Verdict(
            passed=not wanted, score=None, reason=EMPTY_REASON, threshold=verdict.threshold
        )
    if not out or not any(had.intent is node and had.expected is wanted for had in out):
        if plan is None:  # structural: decided exactly, at 1.0 (a scored leaf: its own threshold)
            threshold = 1.0 if verdict.threshold is None else verdict.threshold
            out.append(LeafResult(node, verdict, threshold, wanted, "structural", None, judged))
        else:
            threshold, source, scale = plan.threshold, plan.threshold_source, plan.scale
            out.append(
                LeafResult(node, verdict, threshold, wanted, source, plan.judged_as, judged, scale)
            )
    return verdict.passed is not inverted
