"""Turn whatever the user passes as "the output" into one typed view, without importing any SDK.

Accepted: see `semantix.outputs._api.ACCEPTED_OUTPUTS` (every error names them); objects are recognised by shape (duck typing), never by import,
transcripts are read by `semantix.outputs._transcripts` and recorded streams assembled by
`semantix.outputs._streams`. `output_view` gives the text, the tool calls (arguments parsed from
JSON), the token usage and the model name; for a transcript also its steps, where the text is
the final assistant reply. `output_text` gives the text alone; a message with no text at all
(only tool calls, a refusal, ``content=None``) is a ``TypeError`` there that says what the
message holds: judging the empty string would let ``~X`` pass unjudged. Characters that cannot
be encoded (lone surrogates such as ``"\ud800"``) are replaced once, here, with U+FFFD.
"""

from __future__ import annotations

from semantix.outputs._api import output_text, output_view
from semantix.outputs._tool_errors import (
    ToolErrorRule,
    default_tool_error_rule,
    set_tool_error_rule,
)
from semantix.outputs._view import OutputView, Step, Timed, Timing, ToolCall, ToolResult, Usage

__all__ = [
    "OutputView",
    "Step",
    "Timed",
    "Timing",
    "ToolCall",
    "ToolErrorRule",
    "ToolResult",
    "Usage",
    "default_tool_error_rule",
    "output_text",
    "output_view",
    "set_tool_error_rule",
]
