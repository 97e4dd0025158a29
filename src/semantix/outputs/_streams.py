"""Recorded streams assembled into the response they stream: OpenAI ``ChatCompletionChunk``s
(text and tool-call argument deltas joined by index; a new id on an index already used is a new
call) and Anthropic stream events (content blocks and their deltas). A stream cut before its end
(no ``finish_reason``, no ``message_stop``) or failed mid-way (an ``error`` chunk or event,
``finish_reason="error"``) is a ``ValueError``: its text or arguments would be judged
half-written. Several responses recorded in one list (a new chunk id, a second
``message_start``) are assembled one by one, into a run."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from semantix._text import preview, read_model_json
from semantix.outputs._blocks import get, is_list

#: Anthropic stream event types.
_EVENTS = frozenset(
    {"message_start", "message_delta", "message_stop", "ping", "error"}
    | {f"content_block_{part}" for part in ("start", "delta", "stop")}
)
_USAGE = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")


def kind_of(item: object) -> str | None:
    """``"openai"`` for a ChatCompletionChunk, ``"anthropic"`` for a stream event, else None."""
    if get(item, "object") == "chat.completion.chunk":
        return "openai"
    choices = get(item, "choices")
    if is_list(choices) and choices and get(choices[0], "delta") is not None:
        return "openai"
    return "anthropic" if get(item, "type") in _EVENTS else None


def assemble(items: Sequence[Any], kind: str) -> dict[str, Any] | list[dict[str, Any]]:
    """The response the stream ``items`` of ``kind`` add up to, as a dict `read_response` reads;
    a stream of several responses (two model calls recorded in one list) is the list of them."""
    if kind == "openai":
        runs = _split(items)
        responses = [_openai(run, start) for start, run in runs]
    else:
        responses = [_anthropic(run, start) for start, run in _starts(items)]
    return responses[0] if len(responses) == 1 else responses


def _split(items: Sequence[Any]) -> list[tuple[int, Sequence[Any]]]:
    """The runs of consecutive chunks with one id (a chunk without one joins the run before)."""
    runs: list[tuple[int, Sequence[Any]]] = []
    start, current = 0, None
    for index, item in enumerate(items):
        value = get(item, "id")
        if value is None:
            continue
        if current is not None and value != current:
            runs.append((start, items[start:index]))
            start = index
        current = value
    runs.append((start, items[start:]))
    return runs


def _starts(items: Sequence[Any]) -> list[tuple[int, Sequence[Any]]]:
    """The runs of events each beginning at a ``message_start`` (the first run: at 0)."""
    bounds = [i for i, item in enumerate(items) if i and get(item, "type") == "message_start"]
    edges = [0, *bounds, len(items)]
    return [(edges[i], items[edges[i] : edges[i + 1]]) for i in range(len(edges) - 1)]


def _openai(chunks: Sequence[Any], offset: int) -> dict[str, Any]:
    text: list[str] = []
    has_text = False
    calls: list[dict[str, Any]] = []
    current: dict[int, dict[str, Any]] = {}  # the call each index is building now
    model = usage = finish = None
    for position, chunk in enumerate(chunks, offset):
        error = get(chunk, "error")
        if error is not None:
            raise ValueError(
                f"the stream's chunk {position} is an error ({preview(repr(error), 200)}): the "
                "server failed mid-stream, so the text before it is half-written; fix or retry "
                "the call, and record the stream again"
            )
        model = model or get(chunk, "model")
        usage = get(chunk, "usage") or usage
        choices = get(chunk, "choices")
        if not is_list(choices):
            raise TypeError(
                f"the stream's item {position} ({type(chunk).__name__}: {chunk!r:.80}) is no "
                "ChatCompletionChunk (no 'choices'); record the stream's chunks as the SDK "
                "gives them"
            )
        for choice in choices:
            if (get(choice, "index") or 0) != 0:
                continue  # choices[0], as for a ChatCompletion
            finish = get(choice, "finish_reason") or finish
            if finish == "error":
                raise ValueError(
                    f"the stream's chunk {position} has finish_reason 'error': the server failed "
                    "mid-stream, so its text is half-written; record a stream that finished"
                )
            delta = get(choice, "delta")
            if isinstance(get(delta, "content"), str):
                text.append(get(delta, "content"))
                has_text = has_text or bool(get(delta, "content"))
            for part in get(delta, "tool_calls") or ():
                index = get(part, "index") or 0
                slot = current.get(index)
                part_id = get(part, "id")
                function = get(part, "function")
                if slot is None or _another(slot, part_id, get(function, "name")):
                    # a new call: a new index, or another call on an index already used (some
                    # OpenAI-compatible servers send every call at index 0)
                    slot = current[index] = {"id": None, "name": None, "arguments": []}
                    calls.append(slot)
                slot["id"] = slot["id"] or part_id
                slot["name"] = slot["name"] or get(function, "name")
                if isinstance(get(function, "arguments"), str):
                    slot["arguments"].append(get(function, "arguments"))
    tool_calls = [
        {
            "id": slot["id"],
            "type": "function",
            "function": {"name": slot["name"], "arguments": "".join(slot["arguments"])},
        }
        for slot in calls
    ]
    if finish is None:
        last = tool_calls[-1]["function"] if tool_calls else None
        _cut("no chunk has a finish_reason", _unfinished(last) if last else None)
    message: dict[str, Any] = {"role": "assistant", "content": "".join(text) if has_text else None}
    if tool_calls:
        message["tool_calls"] = tool_calls
    choice = {"message": message, "finish_reason": finish}
    return {"model": model, "usage": usage, "choices": [choice]}


def _another(slot: dict[str, Any], part_id: object, name: object) -> bool:
    """Whether a piece at an index already used starts another call: it carries another id, or
    (no ids) a name while the call there already has one and whole arguments."""
    if part_id:
        return bool(slot["id"]) and part_id != slot["id"]
    if not name or not slot["name"]:
        return False
    try:
        read_model_json("".join(slot["arguments"]))
    except ValueError:
        return False  # arguments still coming: the name repeated in a piece of this call
    return True


def _anthropic(events: Sequence[Any], offset: int) -> dict[str, Any]:
    message: Any = None
    blocks: dict[int, dict[str, Any]] = {}
    open_blocks: set[int] = set()
    usage: dict[str, Any] = {}
    stop_reason = None
    finished = False
    for position, event in enumerate(events, offset):
        kind = get(event, "type")
        index = get(event, "index")
        where = f"the stream's event {position} ({kind})"
        if kind in _BLOCK_EVENTS and (not isinstance(index, int) or isinstance(index, bool)):
            raise ValueError(
                f"{where} has no block index (got {index!r}): record the events as the SDK "
                "gives them"
            )
        if kind == "message_start":
            message = get(event, "message")
            usage.update(_fields(get(message, "usage")))
        elif kind == "content_block_start":
            if index in blocks:
                raise ValueError(
                    f"{where} starts block {index} a second time, which would hide the first "
                    "(a call, maybe); record each message's events whole, from its "
                    "message_start on"
                )
            blocks[index] = {"block": get(event, "content_block"), "text": [], "json": []}
            open_blocks.add(index)
        elif kind == "content_block_delta":
            if index not in blocks:
                raise ValueError(
                    f"the stream has a content_block_delta for block {index!r} before its "
                    "content_block_start: record the whole stream, from message_start on"
                )
            _delta(blocks[index], get(event, "delta"), where)
        elif kind == "content_block_stop":
            open_blocks.discard(index)
        elif kind == "message_delta":
            usage.update(_fields(get(event, "usage")))
            stop_reason = get(get(event, "delta"), "stop_reason") or stop_reason
        elif kind == "message_stop":
            finished = True
        elif kind == "error":
            raise ValueError(f"the stream ended with an error event: {get(event, 'error')!r:.200}")
        elif kind != "ping":
            raise TypeError(
                f"the stream's item {position} ({type(event).__name__}: {event!r:.80}) is no "
                "Anthropic stream event; record the events as the SDK gives them"
            )
    if message is None:
        raise ValueError("the Anthropic stream has no message_start event: record the whole stream")
    content = [_block(blocks[index]) for index in sorted(blocks)]
    if not finished or open_blocks:
        cut = [blocks[i] for i in sorted(open_blocks) if _is_call(blocks[i])]
        why = "a content block has no content_block_stop" if finished else "no message_stop event"
        last = cut[-1] if cut else None
        _cut(why, (get(last["block"], "name"), "".join(last["json"])) if last else None)
    return {
        "role": "assistant",
        "content": content,
        "model": get(message, "model"),
        "usage": usage or None,
        "stop_reason": stop_reason,
    }


_BLOCK_EVENTS = frozenset({"content_block_start", "content_block_delta", "content_block_stop"})
#: Delta types and the field of the block each one extends.
_DELTAS = {
    "text_delta": ("text", "text"),
    "thinking_delta": ("thinking", "thinking"),
    "input_json_delta": ("partial_json", "json"),
}


def _delta(block: dict[str, Any], delta: object, where: str) -> None:
    kind = get(delta, "type")
    if kind in _DELTAS:
        field, into = _DELTAS[kind]
        block[into].append(get(delta, field) or "")
    elif kind not in ("signature_delta", "citations_delta"):
        raise TypeError(
            f"{where} has a delta of type {kind!r}, which semantix does not read; it could "
            "extend a tool call, so it is not skipped"
        )


def _is_call(block: dict[str, Any]) -> bool:
    """Whether the block is a call (``tool_use``, ``server_tool_use``, ``mcp_tool_use``)."""
    kind = get(block["block"], "type")
    return isinstance(kind, str) and kind.endswith("tool_use")


def _block(block: dict[str, Any]) -> object:
    """The content block as the Message would hold it: its start, with the deltas joined."""
    start = block["block"]
    kind = get(start, "type")
    if kind == "text":
        return {"type": "text", "text": (get(start, "text") or "") + "".join(block["text"])}
    if kind == "thinking":
        return {"type": "thinking", "thinking": "".join(block["text"])}
    if not _is_call(block):
        return start  # read as it is: a result, a redacted thinking, or a type not read (error)
    joined = "".join(block["json"])
    arguments: Any = get(start, "input")
    if joined:
        try:
            arguments = read_model_json(joined)
        except ValueError:
            arguments = joined  # kept raw, as for a response whose arguments are not JSON
    shown = {name: get(start, name) for name in ("type", "id", "name", "server_name")}
    return {**shown, "input": arguments}


def _fields(usage: object) -> dict[str, Any]:
    """The usage counts that are set, from an SDK object or a dict."""
    return {name: get(usage, name) for name in _USAGE if get(usage, name) is not None}


def _unfinished(function: dict[str, Any]) -> tuple[object, str] | None:
    """``(name, arguments)`` when the arguments are not yet a whole JSON document."""
    try:
        read_model_json(function["arguments"])
    except ValueError:
        return function["name"], function["arguments"]
    return None


def _cut(why: str, call: tuple[object, str] | None) -> None:
    if call:
        name, arguments = call
        raise ValueError(
            f"the stream was cut in the middle of the arguments of tool call {name!r} ({why}; "
            f"arguments so far: {preview(arguments, 80)}): record the whole stream, up to its end"
        )
    raise ValueError(
        f"the stream was cut before its end ({why}), so its text may be half-written: record "
        "the whole stream, up to its end"
    )
