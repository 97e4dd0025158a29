"""Records agentevals' trajectory-match cases as data (see tests/peers/README.md).

Copy this file as ``conftest.py`` beside agentevals' ``python/tests/test_trajectory.py`` and run
that test file unchanged, in a virtual environment with ``agentevals`` and ``langchain-core``:
each evaluator the tests make is agentevals' own, wrapped to record the case (its messages as
written, before agentevals normalizes them in place), agentevals' score and the score the test
expects. The cases go to ``$AGENTEVALS_CASES`` (default ``agentevals_trajectory.json``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from agentevals.trajectory import match as real_match
from langchain_core.messages import BaseMessage

CASES: list[dict[str, Any]] = []


def _written(message: Any) -> dict[str, Any]:
    """A message as the test wrote it: a dict as is, a LangChain message as its fields."""
    if not isinstance(message, BaseMessage):
        return dict(message)
    written: dict[str, Any] = {"type": message.type, "content": message.content}
    calls = getattr(message, "tool_calls", None)
    if calls:
        written["tool_calls"] = [{k: v for k, v in c.items() if k != "type"} for c in calls]
    if getattr(message, "tool_call_id", None):
        written["tool_call_id"] = message.tool_call_id
    return written


def _overrides(overrides: dict[str, Any] | None, test: str) -> dict[str, Any] | None:
    """Overrides as data: a test's own matcher function is named by its test."""
    if overrides is None:
        return None
    return {k: {"callable": test} if callable(v) else v for k, v in overrides.items()}


class _Score:
    """``result["score"]``: records the score the test compares it with."""

    def __init__(self, case: dict[str, Any]) -> None:
        self.case = case

    def __eq__(self, other: object) -> bool:
        self.case["expected"] = bool(other)
        return bool(other) == self.case["agentevals"]

    def __bool__(self) -> bool:  # `assert score` / `assert not score`: agentevals' answer
        self.case["expected"] = self.case["agentevals"]
        return bool(self.case["agentevals"])


class _Result(dict[str, Any]):
    """The evaluator's result: records the ``EvaluatorResult`` the test compares it with."""

    def __init__(self, case: dict[str, Any], real: dict[str, Any]) -> None:
        super().__init__(real)
        self.case = case

    def __getitem__(self, key: str) -> Any:
        return _Score(self.case) if key == "score" else super().__getitem__(key)

    def __eq__(self, other: object) -> bool:
        assert isinstance(other, dict)
        self.case["expected"] = bool(other["score"])
        same_key = other["key"] == dict.__getitem__(self, "key")
        return bool(other["score"]) == self.case["agentevals"] and same_key


@pytest.fixture(autouse=True)
def _record(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Iterator[None]:
    import test_trajectory  # type: ignore[import-not-found]

    test = request.node.name

    def factory(**options: Any) -> Callable[..., _Result]:
        real = real_match.create_trajectory_match_evaluator(**options)

        def evaluator(*, outputs: Any, reference_outputs: Any, **rest: Any) -> _Result:
            written = json.loads(
                json.dumps(
                    ([_written(m) for m in outputs], [_written(m) for m in reference_outputs])
                )
            )
            score = real(outputs=outputs, reference_outputs=reference_outputs, **rest)
            seen = sum(1 for case in CASES if case["id"].split("#")[0] == test)
            case = {
                "id": test if not seen else f"{test}#{seen + 1}",
                "trajectory_match_mode": options.get("trajectory_match_mode", "strict"),
                "tool_args_match_mode": options.get("tool_args_match_mode", "exact"),
                "tool_args_match_overrides": _overrides(
                    options.get("tool_args_match_overrides"), request.node.originalname
                ),
                "outputs": written[0],
                "reference_outputs": written[1],
                "agentevals": bool(score["score"]),
            }
            CASES.append(case)
            return _Result(case, score)

        return evaluator

    monkeypatch.setattr(test_trajectory, "create_trajectory_match_evaluator", factory)
    yield


def pytest_sessionfinish(session: pytest.Session) -> None:
    target = Path(os.environ.get("AGENTEVALS_CASES", "agentevals_trajectory.json"))
    data = {
        "source": "https://github.com/langchain-ai/agentevals/blob/<commit>/python/tests/test_trajectory.py",
        "note": "recorded by refresh/agentevals_recorder.py running that file unchanged against "
        "agentevals <version>: each case's options, messages as written, agentevals' score and "
        "the score the test expects",
        "cases": CASES,
    }
    target.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", "utf-8")
