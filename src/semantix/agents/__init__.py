"""Agents as the subject: trajectory, tool-result, step and turn leaves over transcripts.

Trajectories: ``ToolCalls`` (and ``AnyOrder`` groups; agentevals' modes as ``mode=``),
``CallCount``, ``Call`` and ``StepCalls`` (counting and picking calls), ``ToolCallScore``
(partial credit with a threshold); results: ``ToolSucceeded``, ``ToolFailed``; steps:
``Steps``, ``Answered``; turns: ``FinalTurn``, ``EachTurn``, ``AnyTurn``, ``Turn``,
``WholeConversation``, ``WholeRun``; time: ``timed``, ``atimed``.

The subject is the view of a whole run (`semantix.outputs.output_view` reads a list of messages
in the OpenAI, Anthropic, Responses or LangChain shape, an object with ``messages``, or a
recorded stream); every leaf here is an intent, combined with ``~ & |`` and reported like any
other. See the "Testing agents" page of the docs.

```python
from semantix import evaluate_semantic
from semantix.agents import FinalTurn, Steps, ToolCalls, ToolSucceeded
from semantix.checks import CalledTool, Contains

messages = [
    {"role": "user", "content": "Refund order A17, please."},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
        "function": {"name": "issue_refund", "arguments": '{"order_id": "A17"}'}}]},
    {"role": "tool", "tool_call_id": "c1", "content": '{"status": "refunded"}'},
    {"role": "assistant", "content": "Done: order A17 is refunded."},
]
check = (
    ToolCalls(CalledTool("issue_refund", args={"order_id": "A17"}))
    & ToolSucceeded("issue_refund")
    & Steps(max=3)
    & FinalTurn(Contains("refunded"))
)
print(evaluate_semantic(messages, check).passed)
#> True
```
"""

from __future__ import annotations

from semantix.agents._calls import Call, CallCount, StepCalls
from semantix.agents._capture import CapturedSpans, capture_spans
from semantix.agents._handoffs import AnsweredBy, ByAgent, HandedOff
from semantix.agents._results import ToolFailed, ToolSucceeded
from semantix.agents._scores import ToolCallScore
from semantix.agents._timing import atimed, timed
from semantix.agents._trajectory import AnyOrder, ToolCalls
from semantix.agents._turns import (
    Answered,
    AnyTurn,
    EachTurn,
    FinalTurn,
    Steps,
    Turn,
    WholeConversation,
    WholeRun,
)

__all__ = [
    "Answered",
    "AnsweredBy",
    "AnyOrder",
    "AnyTurn",
    "ByAgent",
    "Call",
    "CallCount",
    "CapturedSpans",
    "EachTurn",
    "FinalTurn",
    "HandedOff",
    "StepCalls",
    "Steps",
    "ToolCallScore",
    "ToolCalls",
    "ToolFailed",
    "ToolSucceeded",
    "Turn",
    "WholeConversation",
    "WholeRun",
    "atimed",
    "capture_spans",
    "timed",
]
