"""The base of structural checks: leaves semantix decides itself, without a judge or a model.

A structural intent is an `Intent` subclass with a classmethod ``decide(view)`` that reads the
`OutputView` (text, tool calls, usage, model) and returns a `Verdict` with score 1.0 or 0.0 and a
reason saying what matched or what is missing; its judge is `STRUCTURAL`. A threshold has no
meaning for such a leaf, so setting one on the class is a ``TypeError``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, ClassVar, cast

from semantix._files import encodable
from semantix._intent import Intent, IntentDescription, IntentMeta
from semantix.judges._base import Capabilities, JudgeIdentity, JudgeRequest, Verdict
from semantix.outputs import OutputView
from semantix.outputs._view import describe_calls

__all__ = [
    "STRUCTURAL",
    "Scoped",
    "Structural",
    "build",
    "check_flag",
    "check_text",
    "no_text",
    "verdict",
]

#: The judge named on every structural verdict.
STRUCTURAL = JudgeIdentity("structural")


class Structural(Intent, abstract=True):
    """Base of the leaves decided by the library itself: score 1.0 or 0.0, no judge, no model.

    Subclasses implement ``decide``; the constructors in `semantix.checks` (``Contains("x")``,
    ``CalledTool("name")``, ...) return such subclasses, and a class written on top of one keeps
    its check with a description of its own.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        if "threshold" in cls.__dict__:
            raise TypeError(
                f"{cls.__name__} is a structural check: it passes or fails outright (score 1.0 "
                f"or 0.0), so threshold = {cls.__dict__['threshold']!r} has no meaning there; "
                "remove it (a threshold applies to the semantic intents of the assertion)"
            )
        super().__init_subclass__(**kwargs)

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        """Decide this check on ``view``: a `Verdict` with score 1.0 or 0.0 and a reason."""
        raise NotImplementedError(f"{cls.__name__} does not implement decide(view)")


def verdict(passed: bool, reason: str) -> Verdict:
    """The verdict of a structural check (a reason quoting the output is made encodable: JSON
    escapes such as ``"\\ud800"`` decode to lone surrogates that no file can hold)."""
    return Verdict(
        passed=passed, score=1.0 if passed else 0.0, reason=encodable(reason), judge=STRUCTURAL
    )


def no_text(view: OutputView) -> Verdict:
    """The failing verdict of a check that needs text, on an output that holds none."""
    if view.tool_calls:
        return verdict(
            False, f"the output holds no text, only tool calls: {describe_calls(view.tool_calls)}"
        )
    return verdict(False, "the output holds no text (no text content and no tool calls)")


def build(base: type[Structural], name: str, description: str, **attributes: Any) -> type[Intent]:
    """A structural intent class named ``name`` (as in reports) on ``base``."""
    namespace: dict[str, Any] = {
        "__doc__": description,
        "__module__": "semantix.checks",
        "__qualname__": name,
        **attributes,
    }
    return cast("type[Intent]", IntentMeta(name, (base,), namespace))


def check_text(value: object, *, factory: str, what: str, example: str) -> str:
    """``value`` if it is a non-empty str, else an error naming it and showing ``example``."""
    if not isinstance(value, str):
        raise TypeError(
            f"{factory}() needs the {what} as a str, e.g. {factory}({example}); got "
            f"{type(value).__name__} {value!r:.80}"
        )
    if not value.strip():
        raise ValueError(
            f"{factory}() got an empty {what} ({value!r}), which every text would satisfy; "
            f"pass the {what} to look for, e.g. {factory}({example})"
        )
    return value


class Scoped(Intent, abstract=True):
    """Base of the semantic leaves that say themselves what the judge is asked: on other texts
    than the output's own (the turns of a transcript, both directions of a semantic snapshot),
    or on several. The pipeline plans, asks, times and records them like every leaf.

    `asks` returns labelled requests (or a verdict decided without a judge); `fold` makes the
    leaf's one verdict of the answers. The defaults judge the leaf's description on each text
    `subjects` returns and fold by ``combine``: ``"all"`` (the first failing subject decides,
    else the weakest) or ``"any"`` (the first passing, else the strongest); the verdict's reason
    starts with the deciding subject's label.
    """

    combine: ClassVar[str] = "all"

    @classmethod
    def subjects(cls, view: OutputView) -> Sequence[tuple[str, str]]:
        """(label, text) pairs the leaf is judged on (default: the output's text)."""
        return [("", view.text or "")]

    @classmethod
    def asks(
        cls,
        view: OutputView,
        description: IntentDescription,
        threshold: float,
        declared: Capabilities,
    ) -> Verdict | Sequence[tuple[str, JudgeRequest]]:
        """The labelled requests this leaf needs on ``view``, or its verdict without a judge."""
        return [(label, (text, description, threshold)) for label, text in cls.subjects(view)]

    @classmethod
    def fold(
        cls,
        view: OutputView,
        answers: Sequence[tuple[str, Verdict]],
        threshold: float,
        declared: Capabilities,
        *,
        inverted: bool = False,
    ) -> Verdict:
        """The leaf's verdict from the judge's answers to `asks`, in order. ``inverted``: the
        leaf is judged as NOT its statement (a negative requirement), so ``combine`` turns
        round (every turn avoids X = no turn does X)."""
        if not answers:
            return Verdict(passed=False, score=None, reason="nothing to judge", threshold=threshold)
        wanted = (cls.combine == "any") is not inverted
        deciding = [answer for answer in answers if answer[1].passed is wanted]
        pool = deciding or answers
        label, chosen = (
            pool[0]
            if deciding
            else (max if wanted else min)(pool, key=lambda answer: answer[1].score or 0.0)
        )
        if not label:
            return chosen
        return dataclasses.replace(chosen, reason=f"{label}: {chosen.reason or chosen.passed}")


def check_flag(value: object, factory: str, what: str) -> bool:
    """``value`` if it is a bool, else an error naming the option."""
    if not isinstance(value, bool):
        raise TypeError(f"{factory}({what}=...) must be True or False, got {value!r}")
    return value
