"""docs/agents.md's "Compared with other tools" table states what the peer modules run: the
counts there are computed here from the cases and the listed differences."""

from __future__ import annotations

from pathlib import Path

import test_agentevals as agentevals
import test_deepeval as deepeval
import test_promptfoo_tool_call_f1 as tool_call_f1
import test_promptfoo_trajectory as trajectory
import test_pydantic_evals as pydantic_evals

DOCS = (Path(__file__).parents[2] / "docs" / "agents.md").read_text("utf-8")


def _row(cases: int, differ: int) -> str:
    return f"| {cases} | {cases - differ} | {differ} |"


def test_the_docs_table_states_the_counts_run() -> None:
    rows = {
        "agentevals": _row(len(agentevals.CASES), len(agentevals.DIFFERENCES)),
        "promptfoo, `trajectory:*`": _row(len(trajectory.CASES), len(trajectory.DIFFERENCES)),
        "promptfoo, `tool-call-f1`": _row(
            len(tool_call_f1.CASES),
            sum(tool_call_f1.difference(case) is not None for case in tool_call_f1.CASES),
        ),
        "deepeval": _row(len(deepeval.CASES), len(deepeval.DIFFERENCES)),
        "pydantic-evals": _row(len(pydantic_evals.CASES), len(pydantic_evals.DIFFERENCES)),
    }
    table = [line for line in DOCS.splitlines() if line.startswith("| ")]
    for peer, counts in rows.items():
        (line,) = [line for line in table if line.startswith(f"| {peer}") and "cases" not in line]
        assert line.endswith(counts), (peer, line, counts)
