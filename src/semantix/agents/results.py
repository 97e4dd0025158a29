"""``ToolSucceeded`` and ``ToolFailed``: what a tool returned to the model's call."""

from __future__ import annotations

from typing import ClassVar

from semantix.checks.base import verdict
from semantix.checks.tools import (
    ArgsCheck,
    CalledToolCheck,
    called_tool,
    fit,
    mismatch,
    not_called,
)
from semantix.intent import Intent
from semantix.judges.base import Verdict
from semantix.outputs import OutputView

__all__ = ["ToolFailed", "ToolSucceeded"]


class ToolOutcomeCheck(CalledToolCheck, abstract=True):
    """Base of ``ToolSucceeded`` / ``ToolFailed``: a matching call whose result is (not) an
    error; ``failed`` says which."""

    failed: ClassVar[bool]

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        calls = [call for call in view.tool_calls if call.name == cls.tool]
        if not calls:
            return verdict(False, not_called(cls.tool, view))
        fitting = [call for call in calls if fit(cls, call) is not None]
        if not fitting:
            return verdict(False, "; ".join(f"{call}: {mismatch(cls, call)}" for call in calls))
        results = {id(result.call): result for step in view.steps for result in step.tool_results}
        seen = []
        for call in fitting:
            result = results.get(id(call))
            if result is not None and result.is_error is cls.failed:
                return verdict(True, str(result))
            seen.append(str(result) if result is not None else f"{call} -> no result recorded")
        outcome = "failed" if cls.failed else "succeeded"
        return verdict(False, f"no call of {cls.tool} {outcome}: {'; '.join(seen)}")


def ToolSucceeded(name: str, args: ArgsCheck | None = None, *, exact: bool = False) -> type[Intent]:
    """The check "a call of the tool ``name`` got a result that is not an error".

    ``args`` and ``exact`` pick the calls, as for `semantix.checks.CalledTool`. A call without a
    result in the transcript (it ends before the tool answered) never succeeded. What counts as
    an error: see `semantix.outputs.ToolResult`.
    """
    return called_tool(
        ToolOutcomeCheck,
        "ToolSucceeded",
        name,
        args,
        exact,
        "got a successful result from",
        failed=False,
    )


def ToolFailed(name: str, args: ArgsCheck | None = None, *, exact: bool = False) -> type[Intent]:
    """The check "a call of the tool ``name`` got an error result" (``~ToolFailed(name)``: no
    call of it failed). ``args`` and ``exact`` pick the calls, as for ``ToolSucceeded``."""
    return called_tool(
        ToolOutcomeCheck, "ToolFailed", name, args, exact, "got an error from", failed=True
    )
