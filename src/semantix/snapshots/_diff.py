"""Word-level diff of two texts for snapshot failure messages, in the style of ``git diff
--word-diff``: ``Refunds within [-30-]{+14+} days.``
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

__all__ = ["WordDiff", "word_diff", "word_opcodes", "word_runs"]


@dataclass(frozen=True, slots=True)
class WordDiff:
    """What changed between two texts, word by word."""

    #: Runs of consecutive words the stored text has and the new one does not, in order.
    removed: tuple[str, ...]
    #: Runs of consecutive words the new text has and the stored one does not, in order.
    added: tuple[str, ...]
    #: Both texts in one: ``[-removed words-]`` and ``{+added words+}`` inline.
    rendered: str

    @property
    def identical_words(self) -> bool:
        """Whether the two texts have the same words (they may differ in whitespace)."""
        return not self.removed and not self.added


#: Above this many word pairs left after the common ends, difflib's junk heuristic is on (its
#: exact matching is quadratic: seconds on a rewritten 100 KB snapshot).
_EXACT_PAIRS = 4_000_000

Opcode = tuple[str, int, int, int, int]


def word_opcodes(old_words: list[str], new_words: list[str]) -> list[Opcode]:
    """``difflib.SequenceMatcher`` opcodes of two word lists, their common first and last words
    matched first (so a few edits in a long text cost time linear in its length)."""
    shortest = min(len(old_words), len(new_words))
    start = 0
    while start < shortest and old_words[start] == new_words[start]:
        start += 1
    end = 0
    while end < shortest - start and old_words[-1 - end] == new_words[-1 - end]:
        end += 1
    middle_old = old_words[start : len(old_words) - end]
    middle_new = new_words[start : len(new_words) - end]
    big = len(middle_old) * len(middle_new) > _EXACT_PAIRS
    matcher = difflib.SequenceMatcher(a=middle_old, b=middle_new, autojunk=big)
    opcodes: list[Opcode] = [("equal", 0, start, 0, start)] if start else []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if i1 < i2 or j1 < j2:
            opcodes.append((tag, i1 + start, i2 + start, j1 + start, j2 + start))
    if end:
        opcodes.append(
            ("equal", len(old_words) - end, len(old_words), len(new_words) - end, len(new_words))
        )
    return opcodes


def word_runs(stored: str, new: str) -> list[tuple[str, str]]:
    """Both texts as runs of words, in order: ``("equal" | "removed" | "added", words)``."""
    old_words, new_words = stored.split(), new.split()
    runs = []
    for tag, i1, i2, j1, j2 in word_opcodes(old_words, new_words):
        if tag == "equal":
            runs.append(("equal", " ".join(old_words[i1:i2])))
            continue
        if i2 > i1:
            runs.append(("removed", " ".join(old_words[i1:i2])))
        if j2 > j1:
            runs.append(("added", " ".join(new_words[j1:j2])))
    return runs


_MARKS = {"equal": "{}", "removed": "[-{}-]", "added": "{{+{}+}}"}


def word_diff(stored: str, new: str) -> WordDiff:
    """Compare ``stored`` with ``new`` word by word (`word_runs`)."""
    runs = word_runs(stored, new)
    return WordDiff(
        tuple(words for kind, words in runs if kind == "removed"),
        tuple(words for kind, words in runs if kind == "added"),
        " ".join(_MARKS[kind].format(words) for kind, words in runs),
    )
