"""Text the way every local-model judge cuts it: sentences, windows, batches. One rule each.

- **sentences** — a sentence ends at ``.``, ``!``, ``?`` (and their CJK forms), after any closing
  quotes or brackets, before white space; a line break ends one too (`SENTENCE_END`);
- **windows** — a text longer than the model's budget is cut into the fewest windows that fit,
  of near-equal length, at sentence starts; a sentence longer than a window is cut before a
  word, never inside one (`token_windows`). A 537-token output under a 477-token budget
  becomes two windows of ~270 tokens, not 477 + 60 padded to 2 x 477;
- **batches** — items are sorted by length and cut into batches of similar length, so padding
  never more than 1.5x the tokens of a batch (`length_batches`); callers restore the
  original order from the indices.

Everything works on token offsets from the model's own tokenizer (``(start, end)`` character
positions per token), so both judges cut the same text at the same places.
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Sequence
from typing import Any

__all__ = [
    "SENTENCE_END",
    "encoded_windows",
    "length_batches",
    "sentence_starts",
    "token_windows",
]

#: Where a sentence ends: terminal punctuation (then closing quotes/brackets) and space, or a newline.
SENTENCE_END = re.compile(r"[.!?\u3002\uff01\uff1f]+[\"'\u201d\u2019)\]]*\s+|\n\s*")

#: A batch is cut before padding would exceed this multiple of its real tokens.
_PADDING_LIMIT = 1.5

Offsets = Sequence[tuple[int, int]]


def sentence_starts(text: str, offsets: Offsets) -> list[int]:
    """Indices of the tokens that begin a sentence: always 0, and ``len(offsets)`` at the end."""
    token_starts = [start for start, _ in offsets]
    starts = [0]
    for match in SENTENCE_END.finditer(text):
        index = bisect.bisect_left(token_starts, match.end())
        if starts[-1] < index < len(offsets):
            starts.append(index)
    starts.append(len(offsets))
    return starts


def _starts_word(text: str, offsets: Offsets, index: int) -> bool:
    position = offsets[index][0]
    return position == 0 or not (text[position - 1].isalnum() and text[position].isalnum())


def _word_cut(text: str, offsets: Offsets, begin: int, target: int, limit: int) -> int:
    """A token index in (begin, limit] that starts a word, as near ``target`` as possible."""
    for index in range(target, begin, -1):
        if _starts_word(text, offsets, index):
            return index
    for index in range(target + 1, limit + 1):
        if index >= len(offsets) or _starts_word(text, offsets, index):
            return index
    return target  # one word longer than a window: cut between its tokens


def token_windows(text: str, offsets: Offsets, budget: int) -> list[tuple[int, int]]:
    """Cut the tokens of ``text`` into ``[start, end)`` ranges of at most ``budget`` tokens.

    The fewest windows that fit, each near ``count / windows`` tokens long, cut at the sentence
    start nearest that length; when no sentence start keeps that count, at the last sentence
    start that fits; inside an over-long sentence, before the word nearest that length. The
    ranges do not overlap and cover every token.
    """
    if budget < 1:
        raise ValueError(f"budget must be at least 1 token, got {budget}")
    count = len(offsets)
    if count <= budget:
        return [(0, count)]
    starts = sentence_starts(text, offsets)
    planned = math.ceil(count / budget)
    ranges: list[tuple[int, int]] = []
    begin = 0
    while count - begin > budget:
        remaining = count - begin
        left = max(planned - len(ranges), math.ceil(remaining / budget))
        ideal = begin + math.ceil(remaining / left)
        limit = begin + budget
        low = bisect.bisect_right(starts, begin)
        high = bisect.bisect_right(starts, limit)
        cuts = starts[low:high]
        keeping = [cut for cut in cuts if math.ceil((count - cut) / budget) <= left - 1]
        if keeping:
            end = min(keeping, key=lambda cut: (abs(cut - ideal), cut))
        elif cuts:
            end = cuts[-1]
        else:
            end = _word_cut(text, offsets, begin, min(ideal, limit), limit)
        ranges.append((begin, end))
        begin = end
    ranges.append((begin, count))
    return ranges


def encoded_windows(text: str, encoding: Any, max_length: int) -> list[tuple[list[int], str]]:
    """One encoded text as windows of at most ``max_length`` ids, special tokens included.

    The text's own tokens are cut by `token_windows`; each window keeps the encoding's
    leading and trailing special tokens (``[CLS]``/``[SEP]``). Returns (ids, window text) pairs.
    """
    ids: list[int] = list(encoding.ids)
    if len(ids) <= max_length:
        return [(ids, text)]
    special: list[int] = list(encoding.special_tokens_mask)
    lead = 0
    while lead < len(ids) and special[lead]:
        lead += 1
    trail = 0
    while trail < len(ids) - lead and special[len(ids) - 1 - trail]:
        trail += 1
    prefix, suffix = ids[:lead], ids[len(ids) - trail :]
    content = ids[lead : len(ids) - trail]
    offsets: list[tuple[int, int]] = list(encoding.offsets)[lead : len(ids) - trail]
    spans = token_windows(text, offsets, max(1, max_length - lead - trail))
    return [
        (prefix + content[start:stop] + suffix, text[offsets[start][0] : offsets[stop - 1][1]])
        for start, stop in spans
    ]


def length_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices into ``lengths``, shortest first, in batches of similar length.

    A batch holds at most ``batch_size`` items and is cut early when padding to its longest item
    would exceed 1.5x its real tokens (a 480-token window is not batched with 20-token pairs).
    """
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batches: list[list[int]] = []
    current: list[int] = []
    tokens = 0
    for index in order:
        length = lengths[index]
        padded = length * (len(current) + 1)
        if current and (len(current) >= batch_size or padded > _PADDING_LIMIT * (tokens + length)):
            batches.append(current)
            current, tokens = [], 0
        current.append(index)
        tokens += length
    if current:
        batches.append(current)
    return batches
