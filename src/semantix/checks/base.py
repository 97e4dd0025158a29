"""The base of structural checks: leaves semantix decides itself, without a judge or a model.

A structural intent is an `Intent` subclass with a classmethod ``decide(view)`` that reads the
`OutputView` (text, tool calls, usage, model) and returns a `Verdict` with score 1.0 or 0.0 and a
reason saying what matched or what is missing; its judge is `STRUCTURAL`. A threshold has no
meaning for such a leaf, so setting one on the class is a ``TypeError``.
"""

from __future__ import annotations

from typing import Any, ClassVar, cast

from semantix.intent import Intent, IntentMeta
from semantix.judges.base import JudgeIdentity, Verdict
from semantix.outputs import OutputView, describe_calls, encodable

__all__ = ["STRUCTURAL", "Structural", "build", "check_flag", "check_text", "no_text", "verdict"]

#: The judge named on every structural verdict.
STRUCTURAL = JudgeIdentity("structural")


class Structural(Intent, abstract=True):
    """Base of the leaves decided by the library itself: score 1.0 or 0.0, no judge, no model.

    Subclasses implement ``decide``; the constructors in `semantix.checks` (``Contains("x")``,
    ``CalledTool("name")``, ...) return such subclasses, and a class written on top of one keeps
    its check with a description of its own.
    """

    #: What the check needs from the output, for messages (e.g. "text", "token usage").
    needs: ClassVar[str] = "text"

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


def check_flag(value: object, factory: str, what: str) -> bool:
    """``value`` if it is a bool, else an error naming the option."""
    if not isinstance(value, bool):
        raise TypeError(f"{factory}({what}=...) must be True or False, got {value!r}")
    return value
