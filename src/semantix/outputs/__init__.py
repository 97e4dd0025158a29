"""Turn whatever the user passes as "the output" into one typed view, without importing any SDK.

Accepted: see `ACCEPTED_OUTPUTS`; objects are recognised by shape (duck typing), never by import,
transcripts are read by `semantix.outputs.transcripts` and recorded streams assembled by
`semantix.outputs.streams`. `output_view` gives the text, the tool calls (arguments parsed from
JSON), the token usage and the model name; for a transcript also its steps, where the text is
the final assistant reply. `output_text` gives the text alone; a message with no text at all
(only tool calls, a refusal, ``content=None``) is a ``TypeError`` there that says what the
message holds: judging the empty string would let ``~X`` pass unjudged. Characters that cannot
be encoded (lone surrogates such as ``"\\ud800"``) are replaced once, here, with U+FFFD.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from semantix.files import encodable
from semantix.outputs.messages import get, is_list, model_of, read_response, read_usage
from semantix.outputs.spans import spans_of
from semantix.outputs.view import (
    OutputView,
    Step,
    Timed,
    Timing,
    ToolCall,
    ToolResult,
    Usage,
    describe_calls,
)

__all__ = [
    "ACCEPTED_OUTPUTS",
    "OutputView",
    "Step",
    "Timed",
    "Timing",
    "ToolCall",
    "ToolResult",
    "Usage",
    "describe_calls",
    "encodable",
    "output_text",
    "output_view",
]

ACCEPTED_OUTPUTS = (
    "a str, an OpenAI ChatCompletion or Responses object, an Anthropic Message, "
    "a chat message with 'content', the dict form of any of these, a transcript (a list of "
    "messages, or an object with 'messages'), a recorded stream (a list of "
    "ChatCompletionChunks or Anthropic stream events), or a trace (OpenTelemetry spans, an "
    "InMemorySpanExporter, or OTLP JSON)"
)


def output_view(output: object) -> OutputView:
    """Return the view of ``output`` or raise ``TypeError`` saying what is accepted."""
    return _read(output)[0]


def output_text(output: object) -> str:
    """Return the text of ``output`` or raise ``TypeError`` saying what it holds instead."""
    view, held = _read(output)
    if view.text is not None:
        return view.text
    if view.tool_calls:
        raise TypeError(
            f"{held} has no text content, only tool calls: {describe_calls(view.tool_calls)}; "
            "check them with semantix.checks.CalledTool, or assert on the text you expect "
            "(e.g. run the tool and pass the final answer)"
        )
    raise TypeError(
        f"{held} has no text content; the model probably answered with a refusal or "
        "another kind of block. Assert on the text you expect, or pass it explicitly"
    )


def _read(output: object) -> tuple[OutputView, str]:
    """The view and, for a view without text, a phrase saying what the output holds."""
    if isinstance(output, OutputView):  # a runner's view, read once: every leaf reads the same
        return output, "the output"
    if isinstance(output, str):
        return OutputView(encodable(output)), "the output"
    if isinstance(output, Timed):
        view, held = _read(output.output)
        return replace(view, timing=output.timing), held
    if isinstance(output, (bytes, bytearray, memoryview)):
        raise TypeError(
            f"output is {type(output).__name__}, not text; decode it first, "
            f"e.g. output.decode('utf-8'). Accepted: {ACCEPTED_OUTPUTS}"
        )
    if output is None or isinstance(output, (int, float, complex, bool)):
        raise TypeError(
            f"output must be text, got {output!r} ({type(output).__name__}); did the model call "
            f"return nothing? Accepted: {ACCEPTED_OUTPUTS}"
        )
    if isinstance(output, Iterator):  # a live or recorded stream, or a generator of messages
        output = list(output)
    if type(output) in (list, tuple, dict) and (spans := spans_of(output)) is not None:
        return _read_trace(spans)  # OpenTelemetry spans, OTLP JSON
    if is_list(output) or is_list(get(output, "messages")):
        # A whole run or a stream: read by modules imported only for them.
        from semantix.outputs.streams import assemble, kind_of
        from semantix.outputs.transcripts import read_transcript
    if is_list(output):
        kind = kind_of(output[0]) if output else None
        if kind is None:
            return read_transcript(output, "messages")
        output = assemble(output, kind)
    elif is_list(get(output, "messages")) and get(output, "choices") is None:
        return read_transcript(get(output, "messages"), f"{type(output).__name__}.messages")
    read = read_response(output)
    if read is None and (spans := spans_of(output)) is not None:
        return _read_trace(spans)  # an InMemorySpanExporter, a capture
    if read is None:
        raise TypeError(
            f"cannot read text from output of type {type(output).__name__} ({output!r:.120}); "
            f"accepted: {ACCEPTED_OUTPUTS}. Pass the text itself if it is something else"
        )
    text, calls, held = read
    view = OutputView(
        text=None if text is None else encodable(text),
        tool_calls=tuple(calls),
        usage=read_usage(get(output, "usage")),
        model=model_of(output),
    )
    return view, held


def _read_trace(spans: Sequence[Any]) -> tuple[OutputView, str]:
    from semantix.outputs.traces import read_trace  # imported only for a trace

    return read_trace(spans)
