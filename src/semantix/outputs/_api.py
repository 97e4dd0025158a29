"""`output_view` and `output_text`: what the user passes as the output, read into one view."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from semantix._files import encodable
from semantix.outputs._blocks import Read, result_text
from semantix.outputs._messages import get, is_list, model_of, read_response, usage_of
from semantix.outputs._spans import spans_of
from semantix.outputs._tool_errors import (
    is_tool_error,
)
from semantix.outputs._view import (
    NO_TEXT,
    ON_CALLS,
    OutputView,
    Step,
    Timed,
    ToolResult,
    describe_calls,
    ended_on_calls,
)

__all__ = ["ACCEPTED_OUTPUTS", "output_text", "output_view"]

ACCEPTED_OUTPUTS = (
    "a str, an OpenAI ChatCompletion or Responses object, an Anthropic Message, a Gemini "
    "response, a Bedrock Converse response, a chat message with 'content' (or Gemini 'parts'), "
    "the dict form of any of these, a transcript (a list of messages, or an object with "
    "'messages'), a recorded stream (a list of ChatCompletionChunks or Anthropic stream "
    "events), or a trace (OpenTelemetry spans, an InMemorySpanExporter, or OTLP JSON)"
)


def output_view(output: object) -> OutputView:
    """Return the view of ``output`` or raise ``TypeError`` saying what is accepted."""
    return _read(output)[0]


def output_text(output: object) -> str:
    """Return the text of ``output`` or raise ``TypeError`` saying what it holds instead."""
    view, held = _read(output)
    if view.text is not None:
        return view.text
    reason = view.unanswered
    if reason is not None and not reason.startswith((ON_CALLS, NO_TEXT)):
        raise TypeError(
            f"{held} has no final answer to judge: {reason}. Check the run's calls with "
            "semantix.agents (ToolCalls, CalledTool), or assert on the text you expect"
        )
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
    if output is None:
        raise TypeError(
            f"output must be text, got None (NoneType); did the model call (or your agent "
            f"function) return nothing? Accepted: {ACCEPTED_OUTPUTS}"
        )
    if isinstance(output, (int, float, complex, bool)):
        raise TypeError(
            f"output must be text, got {output!r:.60} ({type(output).__name__}), a number, not "
            "what a model wrote: pass the model's reply (its text, or the response object), "
            f"or str(...) of the value to check it as text. Accepted: {ACCEPTED_OUTPUTS}"
        )
    if isinstance(output, Iterator):  # a live or recorded stream, or a generator of messages
        output = list(output)
        if not output:
            raise TypeError(
                "the output is an iterator that yields nothing: it was most likely consumed "
                "already (a stream or generator can be read once). Record it in a list "
                "(chunks = list(stream)) and pass the list, as often as you like"
            )
    # Each reader of a kind of subject is recognised here, in this order (a new one goes here
    # too): traces, transcripts and streams, then single responses.
    if type(output) in (list, tuple, dict) and (spans := spans_of(output)) is not None:
        return _read_trace(spans)  # OpenTelemetry spans, OTLP JSON
    if is_list(output) or is_list(get(output, "messages")):
        # A whole run or a stream: read by modules imported only for them.
        from semantix.outputs._streams import assemble, kind_of
        from semantix.outputs._transcripts import read_transcript
    if is_list(output):
        kind = kind_of(output[0]) if output else None
        if kind is None:
            return read_transcript(output, "messages")
        output = assemble(output, kind)
        if is_list(output):  # the stream of several messages: a run
            return read_transcript(output, "the stream's messages")
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
    return single_view(output, read), read.held


def single_view(output: object, read: Read) -> OutputView:
    """The view of one response: its results matched to its own calls, and why it is no
    answer (cut, refused, no text, only calls)."""
    results = match_own(read)
    calls = tuple(read.calls)
    text = None if read.stopped is not None or read.text is None else encodable(read.text)
    unanswered = read.stopped
    if unanswered is None and text is None:
        unanswered = ended_on_calls(calls) if calls else f"{NO_TEXT}: {read.held}"
    usage, model = usage_of(output), model_of(output)
    steps: tuple[Step, ...] = ()
    if results:  # results given with their calls (tools the provider ran): one step holds them
        steps = (Step("assistant", text, calls, tuple(results), usage, model),)
    return OutputView(
        text, calls, usage, model, steps=steps,
        judged_turn=0 if steps and text is not None else None, unanswered=unanswered,
    )  # fmt: skip


def match_own(read: Read) -> list[ToolResult]:
    """The results of ``read`` with those that answer its own calls (by id, else by name)."""
    results = list(read.results)
    open_calls = list(read.calls)
    for pending in read.pending:
        call = next(
            (
                c
                for c in open_calls
                if (c.id == pending.call_id if pending.call_id else c.name == pending.name)
            ),
            None,
        )
        if call is None:
            raise ValueError(
                f"{pending.where} is the result of tool call {pending.call_id or pending.name!r}, "
                "but the message makes no such call; pass the whole run (a transcript), with the "
                "message that made the call"
            )
        open_calls.remove(call)
        text = result_text(pending.content, pending.where)
        results.append(
            ToolResult(call, text, is_tool_error(text, call, pending.flagged, pending.where))
        )
    return results


def _read_trace(spans: Sequence[Any]) -> tuple[OutputView, str]:
    from semantix.outputs._traces import read_trace  # imported only for a trace

    return read_trace(spans)
