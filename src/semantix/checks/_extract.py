"""Find the JSON a model wrote inside prose: the first ```json block, else a balanced block.

The order is docs/structural-checks.md's; brackets inside JSON strings do not count. One pass
over the text, linear in its length, whatever the model wrote.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["candidates"]

#: The characters that open, close or quote a block (a backslash matters only inside strings).
_STRUCTURE = re.compile(r'[{}\[\]"]')
#: The rest of a JSON string after its opening quote (linear: the alternatives never overlap).
_STRING_REST = re.compile(r'(?:[^"\\]|\\.)*"', re.DOTALL)
#: What follows the backticks of a ```json fence, up to the end of its line.
_FENCE_INFO = re.compile(r"[ \t]*json[ \t]*\r?\n", re.IGNORECASE)
_FENCE_CLOSE = re.compile(r"\n[ \t]*```")
_CLOSERS = {"{": "}", "[": "]"}


def candidates(text: str) -> Iterator[tuple[str, str]]:
    """The texts that may hold the JSON, each with where it was found, best first: a ```json
    block alone when there is one, else every maximal balanced block, left to right."""
    at = text.find("```")
    while at >= 0:
        opening = _FENCE_INFO.match(text, at + 3)
        if opening is not None:
            close = _FENCE_CLOSE.search(text, opening.end() - 1)
            end = len(text) if close is None else close.start()
            yield text[opening.end() : end], f"the ```json block at character {at}"
            return
        at = text.find("```", at + 3)
    for start, end in _balanced(text):
        shape = "{…}" if text[start] == "{" else "[…]"
        yield text[start:end], f"the {shape} block at character {start}"


def _balanced(text: str) -> list[tuple[int, int]]:
    """(start, end) of every maximal balanced block, in order. A closer that does not match
    abandons the blocks open around it; blocks that never close yield their closed insides."""
    expected: list[tuple[str, int]] = []  # (closer, start) of the blocks open here
    closed: list[tuple[int, int]] = []
    match = _STRUCTURE.search(text)
    while match is not None:
        char, at = match.group(), match.start()
        following = at + 1
        if char in _CLOSERS:
            expected.append((_CLOSERS[char], at))
        elif char == '"':
            if expected:  # a string inside a block: skip it whole
                rest = _STRING_REST.match(text, following)
                if rest is None:
                    break  # never closed: nothing after it can be JSON of this block
                following = rest.end()
        elif expected and expected[-1][0] == char:
            start = expected.pop()[1]
            while closed and closed[-1][0] > start:
                closed.pop()  # inside this block: superseded by it
            closed.append((start, following))
        else:
            expected.clear()
        match = _STRUCTURE.search(text, following)
    return closed
