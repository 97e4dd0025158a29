"""Text rules every layer shares, each written once: previews, secret masking (before any
shortening), sentences (`SENTENCE_END`), windows of a text longer than a model's budget
(`token_windows`) and batches of similar length. The bottom floor: it imports nothing heavy.

```python
from semantix._text import mask_secrets, mask_url

print(mask_secrets("echo: Bearer sk-test-0123456789", ["sk-test-0123456789"]))
print(mask_url("https://me:pw@proxy.example/v1"))
#> echo: Bearer ********
#> https://me:********@proxy.example/v1
```
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

__all__ = [
    "ABBREVIATIONS",
    "MASK",
    "MAX_DEPTH",
    "MIN_SECRET_LENGTH",
    "SENTENCE_END",
    "cleandoc",
    "encoded_windows",
    "length_batches",
    "mask_exception",
    "mask_secrets",
    "mask_url",
    "mask_value",
    "preview",
    "read_model_json",
    "sentence_starts",
    "split_sentences",
    "token_windows",
    "usable_secrets",
]


def preview(text: str, limit: int, *, quote: bool = True) -> str:
    """``text`` on one line, cut to ``limit`` characters with ``…``; with ``quote``, ``repr``-quoted
    and saying how long a cut text was: ``'Take two aspirin…' (truncated, 212 chars in all)``."""
    if limit < 2:
        raise ValueError(f"preview limit must be at least 2 characters, got {limit}")
    flat = " ".join(str(text).split())
    cut = len(flat) > limit
    shown = flat[: limit - 1] + "…" if cut else flat
    if not quote:
        return shown
    return repr(shown) + (f" (truncated, {len(text)} chars in all)" if cut else "")


#: What a secret is replaced with.
MASK = "********"

#: Shorter values are not masked: they are not real keys and would hide ordinary words.
MIN_SECRET_LENGTH = 4


def usable_secrets(secrets: Iterable[object]) -> tuple[str, ...]:
    """The distinct strings of ``secrets`` worth masking, longest first (None, short ignored)."""
    found = {s for s in secrets if isinstance(s, str) and len(s) >= MIN_SECRET_LENGTH}
    # Longest first, so a key that contains another secret is masked whole.
    return tuple(sorted(found, key=lambda s: (-len(s), s)))


def mask_secrets(text: str, secrets: Iterable[object]) -> str:
    """``text`` with every occurrence of each secret replaced by `MASK`."""
    if secrets == ():  # nothing to mask: the common case, once per string of every record
        return text
    for secret in usable_secrets(secrets):
        text = text.replace(secret, MASK)
    return text


def mask_value(value: object, secrets: Iterable[object]) -> object:
    """``value`` (JSON-like data) with secrets masked in every string in its dicts, lists, tuples."""
    usable = usable_secrets(secrets)
    return _mask_value(value, usable) if usable else value


def _mask_value(value: object, secrets: tuple[str, ...]) -> object:
    if isinstance(value, str):
        return mask_secrets(value, secrets)
    if isinstance(value, Mapping):
        return {_mask_value(k, secrets): _mask_value(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [_mask_value(item, secrets) for item in value]
    if isinstance(value, tuple):
        return tuple(_mask_value(item, secrets) for item in value)
    return value


def mask_exception(exc: BaseException, secrets: Iterable[object]) -> BaseException:
    """``exc`` with secrets masked in place in its ``args`` and the ``message`` and ``body`` that
    HTTP SDKs set, through the whole ``__cause__``/``__context__`` chain."""
    usable = usable_secrets(secrets)
    seen: set[int] = set()
    current: BaseException | None = exc
    while usable and current is not None and id(current) not in seen:
        seen.add(id(current))
        current.args = tuple(_mask_value(arg, usable) for arg in current.args)
        for name in ("message", "body"):
            attribute = getattr(current, name, None)
            if isinstance(attribute, (str, Mapping, list)):
                try:
                    setattr(current, name, _mask_value(attribute, usable))
                except AttributeError:  # a read-only property: nothing stored to mask
                    continue
        current = current.__cause__ or current.__context__
    return exc


def cleandoc(doc: str) -> str:
    """``inspect.cleandoc``, without importing `inspect` (an intent's docstring becomes its
    description when its class is created): tabs expanded, the indentation of the lines after
    the first removed, the first line and the blank lines around stripped."""
    lines = doc.expandtabs().split("\n")
    indents = [len(line) - len(line.lstrip()) for line in lines[1:] if line.strip()]
    margin = min(indents, default=0)
    lines = [lines[0].lstrip(), *(line[margin:] for line in lines[1:])]
    return "\n".join(lines).strip("\n")


def mask_url(url: str | None) -> str | None:
    """``url`` with any password replaced by `MASK` (for reprs and messages)."""
    from urllib.parse import urlsplit, urlunsplit

    if not url:
        return url
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = f"{parts.username}:{MASK}@{parts.hostname}"
    if parts.port is not None:
        netloc += f":{parts.port}"
    return urlunsplit(parts._replace(netloc=netloc))


#: Abbreviations whose period ends no sentence ("e.g. a refund", "Dr. Smith").
ABBREVIATIONS = ("e.g", "i.e", "E.g", "I.e", "cf", "vs", "Mr", "Mrs", "Ms", "Dr", "Prof")


class _Compiled:
    """A pattern compiled when first used: this one costs a tenth of ``import semantix``."""

    def __init__(self, source: str) -> None:
        self.source = source

    @functools.cached_property
    def compiled(self) -> re.Pattern[str]:
        return re.compile(self.source)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.compiled, name)


#: Where a sentence ends: terminal punctuation (then closing quotes/brackets) and space, or a
#: newline; never at the period of one of the `ABBREVIATIONS`.
SENTENCE_END = cast(
    "re.Pattern[str]",
    _Compiled(
        # A match starts only at the first mark of a run ("....." is tried once, not at every
        # dot): linear on what a model stuck in a loop writes.
        r"(?<![.!?\u3002\uff01\uff1f])"
        + "".join(rf"(?<!\b{re.escape(word)})" for word in ABBREVIATIONS)
        + r"[.!?\u3002\uff01\uff1f]+[\"'\u201d\u2019)\]]*\s+|\n\s*"
    ),
)

#: A batch is cut before padding would exceed this multiple of its real tokens.
_PADDING_LIMIT = 1.5

Offsets = Sequence[tuple[int, int]]


def split_sentences(text: str) -> list[str]:
    """``text``'s sentences (`SENTENCE_END`), stripped; empty pieces dropped: ``"Use e.g. a
    refund. Be polite!\\nThanks"`` gives ``['Use e.g. a refund.', 'Be polite!', 'Thanks']``."""
    ends = [0, *(match.end() for match in SENTENCE_END.finditer(text)), len(text)]
    pieces = (text[start:end].strip() for start, end in itertools.pairwise(ends))
    return [piece for piece in pieces if piece]


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
    """Cut the tokens of ``text`` into the fewest ``[start, end)`` ranges of at most ``budget``
    tokens, each near ``count / windows`` long, cut at the nearest sentence start that keeps the
    count (else the last that fits; inside an over-long sentence, before the nearest word)."""
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
    """One encoded text as (ids, window text) windows of at most ``max_length`` ids, cut by
    `token_windows`, each keeping the leading and trailing special tokens (``[CLS]``/``[SEP]``)."""
    ids: list[int] = list(encoding.ids)
    if len(ids) <= max_length:
        return [(ids, text)]
    special: list[int] = list(encoding.special_tokens_mask)
    lead = next((i for i, flag in enumerate(special) if not flag), len(ids))
    trail = next(
        (i for i, flag in enumerate(reversed(special[lead:])) if not flag), len(ids) - lead
    )
    prefix, suffix = ids[:lead], ids[len(ids) - trail :]
    content = ids[lead : len(ids) - trail]
    offsets: list[tuple[int, int]] = list(encoding.offsets)[lead : len(ids) - trail]
    spans = token_windows(text, offsets, max(1, max_length - lead - trail))
    return [
        (prefix + content[start:stop] + suffix, text[offsets[start][0] : offsets[stop - 1][1]])
        for start, stop in spans
    ]


def length_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices into ``lengths``, shortest first, in batches of at most ``batch_size``, cut early
    when padding to the longest would exceed 1.5x the real tokens."""
    if len(lengths) == 1:  # the single assertion: nothing to sort or cut
        return [[0]]
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


#: The deepest nesting of arrays and objects semantix reads (an LLM stuck repeating ``[``
#: writes deeper); every library the checks hand a document to handles this depth.
MAX_DEPTH = 100


def read_model_json(text: str, *, strict: bool = True) -> Any:
    """The one reader of JSON a model wrote (tool arguments, a judge's reply, a JSON check's
    document): RFC 8259 exactly, at most `MAX_DEPTH` levels deep. ``strict=False`` (a judge's
    reply only) also reads raw control characters, such as a newline, inside strings.

    Raises:
        ValueError: not JSON, NaN or Infinity, a name repeated in one object (RFC 8259 leaves
            its value unpredictable: a model writing ``{"id": "B99", "id": "A17"}`` must not
            be read as either), or nested deeper than `MAX_DEPTH`; the message says which.
    """
    import json  # only where model-written JSON is read

    try:
        document = json.loads(
            text, parse_constant=_no_constant, object_pairs_hook=_unique_names, strict=strict
        )
    except RecursionError:
        document = None  # deeper than the parser goes: certainly deeper than MAX_DEPTH
        depth = MAX_DEPTH + 1
    else:
        depth, level = 0, [document] if isinstance(document, (dict, list)) else []
        while level and depth <= MAX_DEPTH:  # breadth first: one level of containers at a time
            depth += 1
            level = [
                item
                for value in level
                for item in (value.values() if isinstance(value, dict) else value)
                if isinstance(item, (dict, list))
            ]
    if depth > MAX_DEPTH:
        raise ValueError(f"nested more than {MAX_DEPTH} levels deep, past what semantix reads")
    return document


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number: RFC 8259 has no NaN or Infinity")


def _unique_names(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    document = dict(pairs)
    if len(document) < len(pairs):  # a name repeated: find the first, for the message
        names = [name for name, _ in pairs]
        repeated = next(name for at, name in enumerate(names) if name in names[:at])
        raise ValueError(
            f"the name {repeated!r} appears twice in one object, which RFC 8259 leaves "
            "unpredictable"
        )
    return document
