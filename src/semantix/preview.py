"""The one way semantix shortens a text for a message, a report or a repr."""

from __future__ import annotations

__all__ = ["preview"]


def preview(text: str, limit: int, *, quote: bool = True) -> str:
    """``text`` on one line (whitespace collapsed), cut to ``limit`` characters with ``…``.

    With ``quote`` (the default) the result is ``repr``-quoted and a cut text says how long the
    whole was: ``'Take two aspirin…' (truncated, 212 chars in all)``.
    """
    if limit < 2:
        raise ValueError(f"preview limit must be at least 2 characters, got {limit}")
    flat = " ".join(str(text).split())
    cut = len(flat) > limit
    shown = flat[: limit - 1] + "…" if cut else flat
    if not quote:
        return shown
    return repr(shown) + (f" (truncated, {len(text)} chars in all)" if cut else "")
