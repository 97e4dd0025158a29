"""pydantic-ai message parts (``part_kind``), read by duck typing without pydantic-ai: a
``ModelResponse``'s text, tool calls and the provider's built-in tool calls, a ``ModelRequest``'s
user prompt and tool returns (an ``outcome`` other than ``success``, or a ``retry-prompt`` for a
call, is an error result). Parts that hold neither text nor a call (thinking, files, system
prompts, instructions, capabilities) are read as what they are; any other part is a TypeError
naming it."""

from __future__ import annotations

from typing import Any

from semantix.outputs.blocks import Pending, Read, get, is_list, json_call, unknown

#: Parts that hold neither the reply's text nor a call.
_OTHER = frozenset(
    {"thinking", "file", "system-prompt", "instruction", "instruction-baseline", "compaction"}
    | {"instruction-delta", "capability", "capability-load-delta", "speech", "retry-feedback"}
    | {"model-settings-delta", "tool-availability-delta"}
)


def read_part(part: Any, kind: str, where: str, read: Read) -> None:
    """Read one pydantic-ai part of ``kind`` (its ``part_kind``) into ``read``."""
    if kind in ("text", "user-prompt"):
        content = get(part, "content")
        if isinstance(content, str):
            read.texts.append(content)
        elif is_list(content):  # a user prompt of several contents: its strings
            read.texts.extend(item for item in content if isinstance(item, str))
    elif kind in ("tool-call", "builtin-tool-call"):
        runner = "provider" if kind == "builtin-tool-call" else "function"
        arguments = get(part, "args")
        arguments = {} if arguments is None or arguments == "" else arguments  # no arguments
        read.calls.append(
            json_call(
                get(part, "tool_name"), arguments, get(part, "tool_call_id"), where, kind=runner
            )
        )
    elif kind in ("tool-return", "builtin-tool-return"):
        outcome = get(part, "outcome")
        failed = isinstance(outcome, str) and outcome != "success"
        read.pending.append(
            Pending(get(part, "tool_call_id"), None, get(part, "content"), failed, where)
        )
    elif kind == "retry-prompt":  # the tool's arguments or run failed: the model must retry
        if get(part, "tool_name") is not None:
            content = get(part, "content")
            shown = content if isinstance(content, str) else repr(content)
            read.pending.append(Pending(get(part, "tool_call_id"), None, shown, True, where))
    elif kind not in _OTHER:
        raise unknown(f"a pydantic-ai part of kind {kind!r}", where)
