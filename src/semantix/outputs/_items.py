"""OpenAI Responses output items (and the input items of a Responses transcript): messages,
function, custom, MCP and built-in tool calls with their outputs, reasoning. An item of any other
type is a TypeError naming it and where it sits, never skipped."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from semantix.outputs._blocks import (
    Pending,
    Read,
    get,
    inline,
    is_list,
    json_call,
    name_of,
    plain,
    read_blocks,
    unknown,
)
from semantix.outputs._view import ToolCall

#: Responses items that are no call, no result and no message (an `mcp_approval_request` asks
#: to make a call: once approved, the call is the `mcp_call` item that follows).
OTHER_ITEMS = frozenset(
    {"reasoning", "mcp_list_tools", "mcp_approval_request", "mcp_approval_response"}
    | {"item_reference", "compaction"}
)
#: Responses built-in tools the application runs (the others the provider runs).
_APP_RUN = frozenset({"computer", "local_shell", "shell", "apply_patch"})


def read_item(item: Any, where: str, read: Read) -> bool:
    """Read one Responses item into ``read``; whether it is a message."""
    kind = get(item, "type")
    if not isinstance(kind, str):
        raise unknown(f"an item with no type ({item!r:.80})", where)
    read.kinds.append(kind)
    call_id = get(item, "call_id") or get(item, "id")
    if kind == "message":
        content = get(item, "content")
        if isinstance(content, str):
            read.texts.append(content)
        elif is_list(content):
            read_blocks(content, f"{where}.content", read)
        return True
    if kind == "function_call":
        read.calls.append(json_call(get(item, "name"), get(item, "arguments"), call_id, where))
    elif kind == "custom_tool_call":  # custom tools take free text, not JSON
        text = get(item, "input")
        raw = text if isinstance(text, str) else None
        read.calls.append(ToolCall(name_of(get(item, "name"), where), None, raw, call_id))
    elif kind == "mcp_call":
        call = json_call(
            get(item, "name"), get(item, "arguments"), get(item, "id"), where,
            kind="mcp", server=get(item, "server_label"),
        )  # fmt: skip
        read.calls.append(call)
        error, output = get(item, "error"), get(item, "output")
        if error is not None or output is not None:
            inline(read, call, error if error is not None else output, error is not None, where)
    elif kind.endswith("_call_output"):
        flagged = get(item, "status") == "failed"
        read.pending.append(
            Pending(get(item, "call_id"), None, get(item, "output"), flagged, where)
        )
    elif kind.endswith("_call"):
        _builtin(item, kind.removesuffix("_call"), call_id, where, read)
    elif kind not in OTHER_ITEMS:
        raise unknown(f"an item of type {kind!r}", where)
    return False


def _builtin(item: Any, tool: str, call_id: object, where: str, read: Read) -> None:
    """A built-in tool's ``*_call`` item: web search, file search, code interpreter and image
    generation run at the provider, their outcome in the item; computer and shell calls are
    the application's, answered by a ``*_call_output`` item."""
    arguments = plain(get(item, "action"))
    if not isinstance(arguments, Mapping):
        named = ("queries", "code", "operation", "input")
        arguments = {name: plain(get(item, name)) for name in named if get(item, name) is not None}
    if tool in _APP_RUN:
        read.calls.append(json_call(tool, arguments, call_id, where))
        return
    call = json_call(tool, arguments, call_id, where, kind="provider")
    read.calls.append(call)
    status = get(item, "status")
    if status in ("completed", "failed", "incomplete"):
        outcome = next(
            (get(item, name) for name in ("results", "outputs", "result") if get(item, name)),
            None,
        )
        inline(read, call, outcome, status != "completed", where)
