"""Records deepeval's ToolCorrectnessMetric cases as data (see tests/peers/README.md).

Run in a virtual environment with ``deepeval``: ``python deepeval_recorder.py OUT.json``. The
cases are those of deepeval's ``tests/test_metrics/test_tool_correctness_metric.py``, of
``test_tool_correctness_measures_mixed_mapping_keys`` and of ``tests/test_tool_correctness.py``
(their runs and options, written out here as data; the last asserts nothing, so deepeval's
own score is the expected one there); each is measured with deepeval's own metric (a model that must never be asked: tool
correctness is decided without one), and its score and success are recorded beside the score
the test expects.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from deepeval.metrics import ToolCorrectnessMetric
from deepeval.models import DeepEvalBaseLLM
from deepeval.test_case import LLMTestCase, ToolCall, ToolCallParams, ToolCallType


class NeverGenerate(DeepEvalBaseLLM):
    def load_model(self) -> None:
        return None

    def get_model_name(self) -> str:
        return "offline"

    def generate(self, *args: Any, **kwargs: Any) -> str:
        raise AssertionError("tool correctness must not ask a model")

    async def a_generate(self, *args: Any, **kwargs: Any) -> str:
        raise AssertionError("tool correctness must not ask a model")


REPO = {"repoName": "confident-ai/deepeval"}


def call(name: str, type: str = "FUNCTION", **fields: Any) -> dict[str, Any]:
    return {"name": name, "type": type, **fields}


CASES: list[dict[str, Any]] = []


def case(
    id: str,
    called: list[dict[str, Any]],
    expected: list[dict[str, Any]],
    score: float,
    **options: Any,
) -> None:
    CASES.append(
        {
            "id": id,
            "tools_called": called,
            "expected_tools": expected,
            "options": options,
            "expected_score": score,
        }
    )


T = "test_tool_correctness_metric.py > TestToolCorrectnessMetricType > "
MCP, FN = (
    call("ask_question", "MCP", input_parameters=REPO),
    call("ask_question", input_parameters=REPO),
)
case(T + "test_type_is_ignored_by_default", [MCP], [FN], 1.0)
case(T + "test_type_mismatch_fails_when_evaluated", [MCP], [FN], 0.0, evaluation_params=["TYPE"])
case(T + "test_matching_type_passes_when_evaluated", [MCP], [MCP], 1.0, evaluation_params=["TYPE"])
case(
    T + "test_type_mismatch_fails_exact_match",
    [MCP],
    [FN],
    0.0,
    evaluation_params=["TYPE"],
    should_exact_match=True,
)
case(
    T + "test_type_mismatch_fails_with_ordering",
    [MCP],
    [FN],
    0.0,
    evaluation_params=["TYPE"],
    should_consider_ordering=True,
)
case(
    T + "test_defaulted_expected_type_is_function",
    [call("get_weather")],
    [call("get_weather")],
    1.0,
    evaluation_params=["TYPE"],
)
case(
    T + "test_mixed_types_score_partially",
    [call("get_weather"), call("ask_question", "MCP")],
    [call("get_weather"), call("ask_question")],
    0.5,
    evaluation_params=["TYPE"],
)
M = "test_tool_correctness_measures_mixed_mapping_keys"
for field in ("input_parameters", "output"):
    for matches in (True, False):
        wrap = (lambda m: {"lookup": m}) if field == "input_parameters" else (lambda m: m)
        expected = call("lookup", **{field: wrap({"1": "one", "mode": "fast"})})
        called = call(
            "lookup",
            **{
                field: wrap(
                    {"mode": "fast", "1": "one"} if matches else {"mode": "slow", "1": "two"}
                )
            },
        )
        case(
            f"{M}[{'matching' if matches else 'mismatched'}-{field}]",
            [called],
            [expected],
            1.0 if matches else 0.0,
            evaluation_params=["INPUT_PARAMETERS", "OUTPUT"],
        )

# tests/test_tool_correctness.py: no assertion, deepeval's own score is the expected one
# (its ToolCallParams.TOOL is the default comparison of names in this release)
E = "test_tool_correctness.py > "
T1 = call("tool1", input_parameters={"a": 1, "b": 2}, output="x")
T2 = call("tool2", input_parameters={"c": 3}, output="y")
for name, called, expected in [
    (
        "exact_match",
        [call("tool1", input_parameters={"a": 1, "b": 2, "c": 2}, output="x")],
        [call("tool1", input_parameters={"a": 1, "b": 4, "c": 2}, output="x")],
    ),
    ("tool_name_mismatch", [call("tool2", input_parameters={"a": 1, "b": 2}, output="x")], [T1]),
    (
        "input_parameter_mismatch",
        [call("tool1", input_parameters={"a": 2, "b": 2}, output="x")],
        [T1],
    ),
    ("output_mismatch", [call("tool1", input_parameters={"a": 1, "b": 2}, output="y")], [T1]),
    ("extra_tools_called", [T1, T2], [T1]),
    ("missing_tools", [], [T1]),
    ("correct_ordering", [T1, T2], [T1, T2]),
    ("out_of_order_tools", [T2, T1], [T1, T2]),
    ("missing_and_out_of_order", [T2], [T1, T2]),
]:
    case(E + name, called, expected, None, evaluation_params=["INPUT_PARAMETERS", "OUTPUT"])


def tool(data: dict[str, Any]) -> ToolCall:
    return ToolCall(**{**data, "type": ToolCallType[data["type"]]})


for c in CASES:
    options = dict(c["options"])
    names = options.pop("evaluation_params", [])
    if not all(name in ToolCallParams.__members__ for name in names):
        c["deepeval"] = None  # this release predates the option (TYPE): the test's own score
        continue
    params = [ToolCallParams[p] for p in names]
    metric = ToolCorrectnessMetric(
        model=NeverGenerate(), async_mode=False, evaluation_params=params, **options
    )
    metric.measure(
        LLMTestCase(
            input="q",
            actual_output="done",
            tools_called=[tool(t) for t in c["tools_called"]],
            expected_tools=[tool(t) for t in c["expected_tools"]],
        ),
        _show_indicator=False,
    )
    c["deepeval"] = {"score": metric.score, "success": metric.success}
SOURCE = "https://github.com/confident-ai/deepeval/blob/main/tests/test_metrics/"
NOTE = (
    "expected_score: what the test asserts; deepeval: what this deepeval release measures (null: "
    "it lacks an option the test uses). The mixed-mapping cases run sync and async in deepeval "
    "(8 runs, 4 cases); their integer key 1 is the JSON key '1' here."
)
with open(sys.argv[1], "w") as out:
    json.dump({"source": SOURCE, "note": NOTE, "cases": CASES}, out, indent=1)
