"""Word-level diff of two texts, for snapshot failure messages.

``word_diff(stored, new)`` compares the texts word by word (whitespace-insensitive) and returns
the runs of words only the stored text has, the runs only the new text has, and a one-block
rendering in the style of ``git diff --word-diff``: ``Refunds within [-30-]{+14+} days.``
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

__all__ = ["WordDiff", "word_diff"]


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


def word_diff(stored: str, new: str) -> WordDiff:
    """Compare ``stored`` with ``new`` word by word."""
    old_words = stored.split()
    new_words = new.split()
    matcher = difflib.SequenceMatcher(a=old_words, b=new_words, autojunk=False)
    removed: list[str] = []
    added: list[str] = []
    pieces: list[str] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            pieces.append(" ".join(old_words[i1:i2]))
            continue
        if i2 > i1:
            run = " ".join(old_words[i1:i2])
            removed.append(run)
            pieces.append(f"[-{run}-]")
        if j2 > j1:
            run = " ".join(new_words[j1:j2])
            added.append(run)
            pieces.append(f"{{+{run}+}}")
    return WordDiff(tuple(removed), tuple(added), " ".join(pieces))
