"""Turn whatever the user passes as "the output" into text, without importing any SDK.

Accepted: ``str``; an OpenAI ``ChatCompletion`` (first choice's message), an OpenAI Responses
object (``output_text`` or its ``output`` items), an Anthropic ``Message`` (its text blocks), a
chat message with a ``content`` field, and the plain-dict forms of all of these
(``model_dump()`` / JSON). Objects are recognised by shape (duck typing), never by import.

A message with no text at all (only tool calls, a refusal, ``content=None``) is a ``TypeError``
that says what the message holds: judging the empty string would let ``~X`` pass unjudged.
Characters that cannot be encoded (lone surrogates such as ``"\ud800"``, left by a bad decode) are
replaced once, here, with U+FFFD, so every judge and the verdict store get text they can encode.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeGuard

__all__ = ["ACCEPTED_OUTPUTS", "encodable", "output_text"]

ACCEPTED_OUTPUTS = (
    "a str, an OpenAI ChatCompletion or Responses object, an Anthropic Message, "
    "a chat message with 'content', or the dict form of any of these"
)


def output_text(output: object) -> str:
    """Return the text of ``output`` or raise ``TypeError`` saying what is accepted."""
    if isinstance(output, str):
        return encodable(output)
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
    text = _extract(output)
    if text is None:
        raise TypeError(
            f"cannot read text from output of type {type(output).__name__} ({output!r:.120}); "
            f"accepted: {ACCEPTED_OUTPUTS}. Pass the text itself if it is something else"
        )
    return encodable(text)


def encodable(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD (valid pairs are kept)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def _get(obj: object, name: str) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


def _extract(obj: object) -> str | None:
    # OpenAI Responses API: the SDK object has an `output_text` convenience property.
    output_text_attr = _get(obj, "output_text")
    if isinstance(output_text_attr, str) and _get(obj, "output") is not None:
        return output_text_attr
    # OpenAI Chat Completions: {"choices": [{"message": {"content": ...}}]}
    choices = _get(obj, "choices")
    if _is_list(choices):
        if not choices:
            raise TypeError("the ChatCompletion has no choices; the model returned nothing")
        message = _get(choices[0], "message")
        if message is None:
            return None
        return _message_content(message, where="choices[0].message")
    # OpenAI Responses API, plain form: {"output": [{"type": "message", "content": [...]}]}
    items = _get(obj, "output")
    if _is_list(items) and (not items or _get(items[0], "type") is not None):
        texts = [
            text
            for item in items
            if _get(item, "type") == "message"
            for text in _text_parts(_get(item, "content"))
        ]
        if items and not texts:
            raise _no_text("the Responses output", [_get(item, "type") for item in items])
        return "".join(texts)
    # Anthropic Message or any chat message: {"content": "..."} or {"content": [blocks]}
    if _get(obj, "content") is not None or _get(obj, "role") is not None:
        return _message_content(obj, where="content")
    return None


def _message_content(message: object, *, where: str) -> str:
    content = _get(message, "content")
    if isinstance(content, str):
        return content
    if _is_list(content):
        parts = _text_parts(content)
        if content and not parts:
            kinds = [block if isinstance(block, str) else _get(block, "type") for block in content]
            raise _no_text(where, kinds)
        return "".join(parts)
    if content is None:
        raise TypeError(
            f"{where} has no text content (None); the model probably answered with a tool "
            "call or a refusal. Assert on the text you expect, or pass it explicitly"
        )
    raise TypeError(f"{where} is {type(content).__name__}, expected text or a list of text parts")


def _no_text(where: str, kinds: Sequence[object]) -> TypeError:
    held = ", ".join(dict.fromkeys(str(kind) for kind in kinds))
    return TypeError(
        f"{where} has no text content, only blocks of type {held}; the model probably answered "
        "with a tool call. Assert on the text you expect (e.g. run the tool and pass the final "
        "answer), or pass the tool call's arguments as a str"
    )


def _text_parts(content: object) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not _is_list(content):
        return []
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif _get(block, "type") in ("text", "output_text") and isinstance(
            _get(block, "text"), str
        ):
            parts.append(_get(block, "text"))
    return parts


def _is_list(value: object) -> TypeGuard[Sequence[Any]]:
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes, bytearray))
