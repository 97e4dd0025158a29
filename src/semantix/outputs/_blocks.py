"""The blocks of a message's content and the items of a Responses output, in every shape semantix
reads (duck typing, no SDK imported). Each block is text, a tool call, a tool result, or a known
block that holds neither (thinking, images, files, ...); **any other block is a TypeError naming
its type and where it sits, never skipped**, so "no call was made" is only said of a run read
whole. The shapes are listed in docs/agents.md ("The subject: a whole run")."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from semantix._text import MAX_DEPTH, preview, read_model_json
from semantix.outputs._tool_errors import is_tool_error
from semantix.outputs._view import ToolCall, ToolResult


def get(obj: object, name: str) -> Any:
    """``obj[name]`` for a mapping, else ``obj.name``; None when missing."""
    if type(obj) is dict:  # the common case, without the (slow) abstract-class check
        return obj.get(name)
    if isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


def is_list(value: object) -> TypeGuard[Sequence[Any]]:
    if type(value) is list or type(value) is tuple:
        return True
    return (
        value is not None
        and isinstance(value, Sequence)
        and not isinstance(value, (str, bytes, bytearray))
    )


@dataclass(frozen=True, slots=True)
class Pending:
    """A tool result read from a block, to be matched to its call by id (or, where the provider
    sends no id, Gemini's, by name: the earliest call of that name still open)."""

    call_id: str | None
    name: str | None
    content: object
    flagged: bool  # the provider says it failed
    where: str


@dataclass(slots=True)
class Read:
    """What one message (or response) holds: its text (None: none), calls, the results given
    with their call (tools the provider ran), results to match to earlier calls, the kinds of
    block seen (for errors), the refusal it carries, and why it is no answer (``stopped``)."""

    texts: list[str] = field(default_factory=list)
    calls: list[ToolCall] = field(default_factory=list)
    results: list[ToolResult] = field(default_factory=list)
    pending: list[Pending] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    refusal: str | None = None
    text: str | None = None
    held: str = ""
    stopped: str | None = None


#: Blocks (``type``) that hold neither text to judge nor a call: reasoning, media and files,
#: search results, markers. Read, and named in what a message holds.
OTHER = frozenset(
    {
        *("thinking", "redacted_thinking", "reasoning", "reasoning_text", "summary_text"),
        *("image", "image_url", "input_image", "input_audio", "audio", "output_audio", "video"),
        *("file", "input_file", "document", "data", "search_result", "container_upload"),
        *("source", "source-url", "source-document", "step-start", "citation"),
    }
)
# --- calls ---------------------------------------------------------------------------------------


def name_of(name: object, where: str = "a tool call") -> str:
    """A tool's name as sent. A call without one (missing, empty, not a string) is a
    ``TypeError``: which tool it called is unknown, so ``~CalledTool("delete_database")`` would
    pass on a run that may have called it."""
    if isinstance(name, str) and name:
        return name
    raise TypeError(
        f"{where} is a tool call without a tool name (got {name!r}): which tool it called is "
        "unknown, so no check of the run's calls could be trusted (~CalledTool(...) would pass "
        "on it); pass the call as the provider sent it, with its name"
    )


def json_call(
    name: object,
    arguments: object,
    call_id: object,
    where: str,
    *,
    kind: str = "function",
    server: object = None,
) -> ToolCall:
    """A call whose arguments are a JSON string (read by `read_model_json`: a repeated name,
    NaN or nesting past `MAX_DEPTH` leaves them unread, in ``raw_arguments``) or structured."""
    identity = call_id if isinstance(call_id, str) and call_id else None
    label = server if isinstance(server, str) and server else None
    if isinstance(arguments, str):
        try:
            parsed = read_model_json(arguments)
        except ValueError:
            parsed = None
        mapping = dict(parsed) if isinstance(parsed, dict) else None
        return ToolCall(name_of(name, where), mapping, arguments, identity, kind, label)
    arguments = plain(arguments)
    if isinstance(arguments, Mapping):
        if too_deep(arguments):
            raise ValueError(
                f"{where}: the arguments of tool call {name!r} nest more than {MAX_DEPTH} levels "
                "deep, past what semantix reads"
            )
        return ToolCall(name_of(name, where), dict(arguments), None, identity, kind, label)
    raw = None if arguments is None else preview(repr(arguments), 200, quote=False)
    return ToolCall(name_of(name, where), None, raw, identity, kind, label)


def plain(value: object) -> object:
    """An SDK object as the dict it dumps to (pydantic's ``model_dump``), else ``value``."""
    if value is None or isinstance(value, (str, int, float, bool, Mapping, list)):
        return value
    dump = getattr(value, "model_dump", None)
    return dump(mode="json", exclude_none=True) if callable(dump) else value


def too_deep(value: object) -> bool:
    """Whether containers nest in ``value`` more than `MAX_DEPTH` levels (breadth first)."""
    level: list[Any] = [value]
    depth = 0
    while level:
        depth += 1
        if depth > MAX_DEPTH:
            return True
        level = [
            item
            for container in level
            for item in (container.values() if isinstance(container, Mapping) else container)
            if isinstance(item, (Mapping, list, tuple))
        ]
    return False


def result_text(content: object, where: str) -> str | None:
    """A tool result's text: a string, its text parts joined, else its JSON."""
    if content is None or isinstance(content, str):
        return content
    parts = text_parts(content)
    if parts:
        return "".join(parts)
    content = plain(content)
    if isinstance(content, (Mapping, list, tuple)) and too_deep(content):
        raise ValueError(
            f"{where}: the tool result nests more than {MAX_DEPTH} levels deep, past what "
            "semantix reads"
        )
    return json.dumps(content, ensure_ascii=False, default=str)


def text_parts(content: object) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not is_list(content):
        return []
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif get(block, "type") in ("text", "output_text", "input_text") and isinstance(
            get(block, "text"), str
        ):
            parts.append(get(block, "text"))
    return parts


def inline(read: Read, call: ToolCall, content: object, flagged: bool, where: str) -> None:
    """A result given with its call (a tool the provider ran, an MCP call)."""
    text = result_text(content, where)
    read.results.append(ToolResult(call, text, is_tool_error(text, call, flagged, where)))


# --- content blocks ------------------------------------------------------------------------------

Reader = Callable[[Any, str, Read], None]


def _text(block: Any, where: str, read: Read) -> None:
    text = get(block, "text")
    if isinstance(text, str):
        read.texts.append(text)


def _refusal(block: Any, where: str, read: Read) -> None:
    refusal = get(block, "refusal")
    read.refusal = refusal if isinstance(refusal, str) else ""


def _tool_use(block: Any, where: str, read: Read) -> None:
    tool_type = get(block, "tool_type")
    if isinstance(tool_type, str):  # inspect_ai's ContentToolUse: a tool the provider ran
        mcp = tool_type == "mcp_call"
        call = json_call(
            get(block, "name"), get(block, "arguments"), get(block, "id"), where,
            kind="mcp" if mcp else "provider", server=get(block, "context") if mcp else None,
        )  # fmt: skip
        read.calls.append(call)
        error = get(block, "error")
        inline(read, call, error if error else get(block, "result"), bool(error), where)
        return
    read.calls.append(json_call(get(block, "name"), get(block, "input"), get(block, "id"), where))


def _call(kind: str, arguments: str, call_id: str, name: str = "name") -> Reader:
    def reader(block: Any, where: str, read: Read) -> None:
        server = get(block, "server_name")
        runner = kind
        if get(block, "providerExecuted") is True:  # Vercel AI SDK: a tool the provider ran
            runner = "provider"
        read.calls.append(
            json_call(
                get(block, name), _first(block, arguments), get(block, call_id), where,
                kind=runner, server=server,
            )
        )  # fmt: skip

    return reader


def _first(block: Any, names: str) -> Any:
    """The first of the comma-separated ``names`` that ``block`` sets."""
    for name in names.split(","):
        value = get(block, name)
        if value is not None:
            return value
    return None


def _result(block: Any, where: str, read: Read) -> None:
    """Anthropic ``tool_result`` and ``mcp_tool_result``: ``is_error`` flags a failure."""
    read.pending.append(
        Pending(
            get(block, "tool_use_id"),
            None,
            get(block, "content"),
            bool(get(block, "is_error")),
            where,
        )
    )


def _server_result(block: Any, where: str, read: Read) -> None:
    """Anthropic ``web_search_tool_result``, ``code_execution_tool_result``, ...: the content is
    an error object (type ``..._error``) when the tool failed."""
    content = get(block, "content")
    failed = isinstance(get(content, "type"), str) and get(content, "type").endswith("_error")
    read.pending.append(Pending(get(block, "tool_use_id"), None, content, failed, where))


def _vercel_result(block: Any, where: str, read: Read) -> None:
    """Vercel AI SDK ``tool-result``: v5 ``output`` ({type: text|json|error-text|...,
    value}), v4 ``result`` with ``isError``."""
    output = get(block, "output")
    failed = get(block, "isError") is True
    if output is not None:
        kind = get(output, "type")
        failed = failed or (isinstance(kind, str) and kind.startswith("error"))
        content = get(output, "value") if kind is not None else output
    else:
        content = get(block, "result")
    read.pending.append(
        Pending(get(block, "toolCallId"), get(block, "toolName"), content, failed, where)
    )


def _langchain_result(block: Any, where: str, read: Read) -> None:
    """LangChain's standard ``server_tool_result`` block."""
    failed = get(block, "status") == "error"
    read.pending.append(
        Pending(get(block, "tool_call_id"), None, get(block, "output"), failed, where)
    )


def _ui_tool(block: Any, kind: str, where: str, read: Read) -> None:
    """A Vercel AI SDK UI message part, ``tool-{name}`` (``dynamic-tool``: ``toolName``), the
    call and, once its ``state`` is ``output-available`` or ``output-error``, its result."""
    if get(block, "toolCallId") is None:
        raise unknown(f"a block of type {kind!r} without a toolCallId", where)
    name = get(block, "toolName") if kind == "dynamic-tool" else kind.removeprefix("tool-")
    runner = "provider" if get(block, "providerExecuted") is True else "function"
    call = json_call(name, get(block, "input"), get(block, "toolCallId"), where, kind=runner)
    read.calls.append(call)
    state = get(block, "state")
    if state == "output-available":
        inline(read, call, get(block, "output"), False, where)
    elif state == "output-error":
        inline(read, call, get(block, "errorText"), True, where)


_TYPED: dict[str, Reader] = {
    "text": _text,
    "output_text": _text,
    "input_text": _text,
    "refusal": _refusal,
    "tool_use": _tool_use,
    "server_tool_use": _call("provider", "input", "id"),
    "mcp_tool_use": _call("mcp", "input", "id"),
    "tool-call": _call("function", "input,args", "toolCallId", "toolName"),  # Vercel AI SDK
    "tool_call": _call("function", "args", "id"),  # LangChain standard blocks
    "server_tool_call": _call("provider", "args", "id"),
    "invalid_tool_call": _call("function", "args", "id"),
    "tool_result": _result,
    "mcp_tool_result": _result,
    "tool-result": _vercel_result,
    "server_tool_result": _langchain_result,
}


# Blocks without a ``type``: Gemini / Vertex parts and Bedrock Converse blocks, by their key.


def _gemini_call(value: Any, block: Any, where: str, read: Read) -> None:
    read.calls.append(json_call(get(value, "name"), get(value, "args"), get(value, "id"), where))


def _gemini_result(value: Any, block: Any, where: str, read: Read) -> None:
    name = get(value, "name")  # a result without one answers the earliest open call
    named = name if isinstance(name, str) and name else None
    read.pending.append(Pending(get(value, "id"), named, get(value, "response"), False, where))


def _gemini_code(value: Any, block: Any, where: str, read: Read) -> None:
    arguments = {"language": str(get(value, "language")), "code": get(value, "code")}
    read.calls.append(ToolCall("code_execution", arguments, None, None, "provider"))


def _gemini_code_result(value: Any, block: Any, where: str, read: Read) -> None:
    outcome = str(get(value, "outcome") or "")
    failed = bool(outcome) and not outcome.endswith("OUTCOME_OK")
    read.pending.append(Pending(None, "code_execution", get(value, "output"), failed, where))


def _bedrock_call(value: Any, block: Any, where: str, read: Read) -> None:
    read.calls.append(
        json_call(get(value, "name"), get(value, "input"), get(value, "toolUseId"), where)
    )


def _bedrock_result(value: Any, block: Any, where: str, read: Read) -> None:
    content = get(value, "content")
    if is_list(content):  # [{"text": ...}, {"json": {...}}]
        texts = [get(part, "text") for part in content if isinstance(get(part, "text"), str)]
        data = [plain(get(part, "json")) for part in content if get(part, "json") is not None]
        content = "".join(texts) if texts and not data else (data[0] if len(data) == 1 else content)
    failed = get(value, "status") == "error"
    read.pending.append(Pending(get(value, "toolUseId"), None, content, failed, where))


def _keyed_text(value: Any, block: Any, where: str, read: Read) -> None:
    if get(block, "thought") is True:  # Gemini thinking: not the reply
        read.kinds[-1] = "thought"
    elif isinstance(value, str):
        read.texts.append(value)


def _other(value: Any, block: Any, where: str, read: Read) -> None:
    pass


_KEYED: tuple[tuple[str, Callable[[Any, Any, str, Read], None]], ...] = (
    ("functionCall", _gemini_call),
    ("function_call", _gemini_call),
    ("functionResponse", _gemini_result),
    ("function_response", _gemini_result),
    ("executableCode", _gemini_code),
    ("executable_code", _gemini_code),
    ("codeExecutionResult", _gemini_code_result),
    ("code_execution_result", _gemini_code_result),
    ("toolUse", _bedrock_call),
    ("toolResult", _bedrock_result),
    ("text", _keyed_text),
    *(
        (key, _other)
        for key in (
            "inlineData", "inline_data", "fileData", "file_data", "thoughtSignature",
            "thought_signature", "reasoningContent", "image", "document", "video",
            "guardContent", "cachePoint", "citationsContent",
        )
    ),
)  # fmt: skip


def read_blocks(content: Sequence[Any], where: str, read: Read) -> None:
    """Read each block of ``content`` (at ``where``) into ``read``."""
    for index, block in enumerate(content):
        place = f"{where}[{index}]"
        if isinstance(block, str):
            read.kinds.append("text")
            read.texts.append(block)
            continue
        kind = get(block, "type")
        if isinstance(kind, str):
            read.kinds.append(kind)
            reader = _TYPED.get(kind)
            if reader is not None:
                reader(block, place, read)
            elif kind.endswith("_tool_result"):
                _server_result(block, place, read)
            elif kind.startswith("tool-") or kind == "dynamic-tool":
                _ui_tool(block, kind, place, read)
            elif kind not in OTHER and not kind.startswith("data-"):
                raise unknown(f"a block of type {kind!r}", place)
            continue
        part_kind = get(block, "part_kind")
        if isinstance(part_kind, str):  # a pydantic-ai part
            read.kinds.append(part_kind)
            _read_part(block, part_kind, place, read)
            continue
        for key, keyed in _KEYED:
            value = get(block, key)
            if value is not None:
                read.kinds.append(key)
                keyed(value, block, place, read)
                break
        else:
            raise unknown(f"a {type(block).__name__} with no type ({block!r:.80})", place)


# pydantic-ai message parts (``part_kind``), read by duck typing without pydantic-ai: a
# ``ModelResponse``'s text, tool calls and the provider's built-in tool calls, a
# ``ModelRequest``'s user prompt and tool returns (an ``outcome`` other than ``success``, or a
# ``retry-prompt`` for a call, is an error result); parts that hold neither text nor a call are
# read as what they are, any other part is a TypeError naming it.

#: Parts that hold neither the reply's text nor a call.
_PYDANTIC_AI_OTHER = frozenset(
    {"thinking", "file", "system-prompt", "instruction", "instruction-baseline", "compaction"}
    | {"instruction-delta", "capability", "capability-load-delta", "speech", "retry-feedback"}
    | {"model-settings-delta", "tool-availability-delta"}
)


def _read_part(part: Any, kind: str, where: str, read: Read) -> None:
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
    elif kind not in _PYDANTIC_AI_OTHER:
        raise unknown(f"a pydantic-ai part of kind {kind!r}", where)


def unknown(what: str, where: str) -> TypeError:
    return TypeError(
        f"{where} is {what}, which semantix does not read; it could be a tool call, so it is "
        "not skipped. Pass the run as the provider gave it, or drop this block yourself if you "
        "know it holds no call (the shapes semantix reads: docs/agents.md)"
    )
