"""No negative check passes on a peer's run whose calls semantix could not read.

Every subject the peer modules build (agentevals' outputs, promptfoo's outputs and the SDK
messages they stand for, deepeval's and pydantic-evals' runs) is read; where semantix cannot
read it (a shape it does not know, a call without a name, no run at all), ``~CalledTool``,
``NoToolCalls`` and ``ToolCalls()`` must be errors too, never a pass: the run may have made the
call they forbid. Where it can, they must agree with the calls it read.
"""

from __future__ import annotations

from typing import Any

import pytest
import test_agentevals as agentevals
import test_deepeval as deepeval
import test_promptfoo_tool_call_f1 as tool_call_f1
import test_promptfoo_trajectory as trajectory
import test_pydantic_evals as pydantic_evals

from semantix import evaluate_semantic
from semantix.agents import ToolCalls
from semantix.checks import CalledTool, NoToolCalls
from semantix.outputs import output_view


def _subjects() -> list[tuple[str, Any]]:
    runs: list[tuple[str, Any]] = []
    for case in agentevals.CASES:
        runs.append((f"agentevals {case['id']}", case["outputs"]))
    for case in tool_call_f1.CASES:
        runs.append((f"promptfoo f1 {case['id']}", tool_call_f1.subject(case)))
        if "subject" in case:  # and promptfoo's own output beside the message it stands for
            runs.append((f"promptfoo f1 output {case['id']}", case["output"]))
    for case in trajectory.CASES:
        runs.append((f"promptfoo trajectory {case['id']}", trajectory.run(case["calls"])))
    for case in deepeval.CASES:
        runs.append((f"deepeval {case['id']}", deepeval.run(case["tools_called"])))
    for case in pydantic_evals.CASES:
        runs.append((f"pydantic-evals {case['id']}", pydantic_evals.run(case["spans"])))
    return runs


SUBJECTS = _subjects()
NEGATIVE = {
    "~CalledTool('delete_database')": ~CalledTool("delete_database"),
    "~CalledTool('*')": ~CalledTool("*"),
    "NoToolCalls": NoToolCalls,
    "ToolCalls()": ToolCalls(),
}


def _read(subject: Any) -> Any:
    try:
        return output_view(subject)
    except (TypeError, ValueError):
        return None


def test_some_peer_runs_are_unreadable_and_most_are_read() -> None:
    unread = [name for name, subject in SUBJECTS if _read(subject) is None]
    assert len(SUBJECTS) == 339
    assert len(unread) == 46, unread


@pytest.mark.parametrize(("name", "subject"), SUBJECTS, ids=[name for name, _ in SUBJECTS])
def test_no_negative_check_passes_on_a_run_semantix_could_not_read(name: str, subject: Any) -> None:
    view = _read(subject)
    for described, check in NEGATIVE.items():
        if view is None:
            with pytest.raises((TypeError, ValueError)):
                evaluate_semantic(subject, check)
            continue
        passed = evaluate_semantic(subject, check).passed
        names = [call.name for call in view.tool_calls]
        expected = "delete_database" not in names if "delete" in described else not names
        assert passed is expected, described
