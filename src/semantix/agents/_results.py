"""``ToolSucceeded`` and ``ToolFailed``: what a tool returned to the model's call."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from semantix._intent import Intent
from semantix.checks._base import verdict
from semantix.checks._tools import (
    ArgsCheck,
    CalledToolCheck,
    ResultCheck,
    called_tool,
    fit,
    mismatch,
    not_called,
    results_of,
    selects,
)
from semantix.judges._base import Verdict
from semantix.outputs import OutputView

__all__ = ["ToolFailed", "ToolSucceeded"]


class ToolOutcomeCheck(CalledToolCheck, abstract=True):
    """Base of ``ToolSucceeded`` / ``ToolFailed``: a matching call whose result is (not) an
    error; ``failed`` says which."""

    failed: ClassVar[bool]

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        calls = [call for call in view.tool_calls if selects(cls, call)]
        if not calls:
            return verdict(False, not_called(cls.named(), view))
        results = results_of(view)
        fitting = [call for call in calls if fit(cls, call, results) is not None]
        if not fitting:
            reasons = (f"{call}: {mismatch(cls, call, results)}" for call in calls)
            return verdict(False, "; ".join(reasons))
        seen = []
        for call in fitting:
            result = results.get(id(call))
            if result is not None and result.is_error is cls.failed:
                return verdict(True, str(result))
            seen.append(str(result) if result is not None else f"{call} -> no result recorded")
        outcome = "failed" if cls.failed else "succeeded"
        return verdict(False, f"no call of {cls.tool} {outcome}: {'; '.join(seen)}")


def ToolSucceeded(
    name: str,
    args: ArgsCheck | None = None,
    *,
    exact: bool = False,
    ignore: Iterable[str] = (),
    kind: str | None = None,
    server: str | None = None,
    result: ResultCheck = None,
) -> type[Intent]:
    """The check "a call of the tool ``name`` got a result that is not an error".

    ``name`` (a glob works), ``args``, ``exact``, ``ignore``, ``kind``, ``server`` and
    ``result`` pick the calls, as for `semantix.checks.CalledTool`. A call without a result in
    the transcript (it ends before the tool answered) never succeeded. What counts as an error:
    see `semantix.outputs.ToolResult`.
    """
    return called_tool(
        ToolOutcomeCheck,
        "ToolSucceeded",
        name,
        args,
        exact,
        "got a successful result from",
        ignore=ignore,
        kind=kind,
        server=server,
        result=result,
        failed=False,
    )


def ToolFailed(
    name: str,
    args: ArgsCheck | None = None,
    *,
    exact: bool = False,
    ignore: Iterable[str] = (),
    kind: str | None = None,
    server: str | None = None,
    result: ResultCheck = None,
) -> type[Intent]:
    """The check "a call of the tool ``name`` got an error result" (``~ToolFailed(name)``: no
    call of it failed). The other arguments pick the calls, as for ``ToolSucceeded``."""
    return called_tool(
        ToolOutcomeCheck,
        "ToolFailed",
        name,
        args,
        exact,
        "got an error from",
        ignore=ignore,
        kind=kind,
        server=server,
        result=result,
        failed=True,
    )
