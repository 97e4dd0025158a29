"""The facts of a text that meaning-level judges miss, compared structurally before any judge.

```python
from semantix.snapshots._facts import compare_facts

changes = compare_facts(
    "You can return any item within 30 days for a full refund.",
    "You can return any item within 14 days for a full refund.",
)
print(changes[0].describe())
#> number changed: 30 → 14 ("within 30 days")
```

A cheap rule, not understanding (docs/semantic-snapshots.md, "Facts before meaning"): each kind
is found by a pattern of `_PATTERNS`, and the two texts' facts are compared as multisets, kind by
kind, so a paraphrase that keeps every fact has no change.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from semantix._text import SENTENCE_END, preview

__all__ = ["Fact", "FactChange", "FactKind", "compare_facts", "extract_facts"]

FactKind = Literal["number", "date", "negation", "name", "email", "url", "code"]


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december"
    "|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
_WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_NUMBER_WORDS = {
    word: index
    for index, word in enumerate(
        _words(
            "zero - two three four five six seven eight nine ten eleven twelve thirteen fourteen"
        )
        + _words("fifteen sixteen seventeen eighteen nineteen twenty")
    )
    if word != "-"  # "one" is left out: mostly a pronoun ("the one", "one of them")
} | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80}
_NUMBER_WORDS |= {"ninety": 90, "hundred": 100, "thousand": 1000, "million": 1_000_000}
_SYMBOLS = {"$": "dollar", "€": "euro", "£": "pound", "%": "percent"}
#: Words after a number that are not its unit ("30 or more", "3 of them").
_NOT_UNITS = frozenset(
    _words(
        "a an and as at by for from in into is are was were of on or per than that the then to "
        "with within"
    )
)
_NEGATIONS = frozenset(
    _words("not no never none nothing nobody nowhere neither nor cannot without")
)
#: Capitalised words that are never a name on their own.
_NOT_NAMES = frozenset(_words("I I'm I've I'll I'd OK"))
#: Words that open a sentence without being a name ("Our Premium plan" keeps "Premium").
_OPENERS = frozenset(
    _words(
        "a an and at but dear for hello hi if in it its my on or our please so thank thanks that "
        "the their these this those to we when yes you your"
    )
)
_NOT_A_UNIT = r"(?!(?:" + "|".join(sorted(_NOT_UNITS | _NEGATIONS)) + r")\b)"
#: A minus: "-5" (a hyphen or U+2212), "minus 5", "negative 5"; a hyphen after a word, a digit or
#: a dot is no minus ("10-20", "COVID-19").
_SIGN = r"(?:(?<![\w.,/-])[-\u2212](?=[$€£]?\d)|\b(?:minus|negative)\s+(?=[$€£]?\d))"

# Ordered: a span taken by an earlier kind is not read again by a later one.
_PATTERNS: tuple[tuple[FactKind, re.Pattern[str]], ...] = (
    ("url", re.compile(r"\b(?:https?://|www\.)[^\s<>\"']+[^\s<>\"'.,;:!?)\]]")),
    # (a local part is at most 64 characters, RFC 5321: unbounded, each word of a long dotted
    # or hyphenated run would rescan the rest of it)
    ("email", re.compile(r"\b[\w.+-]{1,64}@[\w-]+(?:\.[\w-]+)+\b")),
    (
        "date",
        re.compile(
            r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b"
            rf"|\b(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?\b"
            rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTHS})\b(?:,?\s+\d{{4}}\b)?"
            rf"|\b(?:{_MONTHS})\s+\d{{4}}\b|\b(?:{_WEEKDAYS})s?\b"
            r"|\b\d{1,2}(?::\d{2})?\s*[ap]\.?m\b|\b\d{1,2}:\d{2}\b",
            re.IGNORECASE,
        ),
    ),
    # A code: letters with digits and a capital within its first 40 characters (ORD-1234,
    # COVID-19; unbounded, each word of a long hyphenated run would rescan the rest of it).
    (
        "code",
        re.compile(
            r"\b(?=[A-Za-z0-9-]{0,40}\d)(?=[A-Za-z0-9-]{0,40}[A-Z])[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*\b"
        ),
    ),
    ("name", re.compile(r"\b[A-Z]{2,}\b")),  # an acronym: UPS, EU
    (
        "number",
        re.compile(
            rf"(?P<open>\((?=[$€£]\s?\d))?(?P<sign>{_SIGN})?(?P<symbol>[$€£])?\s?(?P<sign2>{_SIGN})?"
            r"(?P<value>(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)(?(open)\))"
            rf"(?:\s?(?P<percent>%)|[-\s]{_NOT_A_UNIT}(?P<unit>[A-Za-z]+))?"
            rf"|\b(?:(?:minus|negative)\s+(?P<wordsign>))?(?P<word>{'|'.join(_NUMBER_WORDS)})\b"
            rf"(?:[-\s]{_NOT_A_UNIT}(?P<wordunit>[A-Za-z]+))?",
            re.IGNORECASE,
        ),
    ),
    (
        "negation",
        re.compile(r"\b(?:\w+n['\u2019]t|" + "|".join(_NEGATIONS) + r")\b", re.IGNORECASE),
    ),
    (
        "name",
        re.compile(r"\b[A-Z][\w'\u2019&-]*(?:[ \t]+(?:of[ \t]+|the[ \t]+)?[A-Z][\w'\u2019&-]*)*"),
    ),
)


@dataclass(frozen=True, slots=True)
class Fact:
    """One fact found in a text: its kind, its compared value, and where it is."""

    kind: FactKind
    #: What is compared: ``30 day`` for "30 days", ``not`` for "isn't", the name as written.
    value: str
    written: str
    #: A few words around it, as written ("within 30 days"), for messages.
    context: str
    start: int
    #: Other values that count as the same fact ("Ask Maria Lopez" is "Maria Lopez").
    aliases: tuple[str, ...] = ()

    @property
    def shown(self) -> str:
        """The value as a message shows it: a number without its unit, else as written."""
        if self.kind == "number":
            return self.value.split(" ", 1)[0]
        return self.written


@dataclass(frozen=True, slots=True)
class FactChange:
    """A fact of the snapshot the new output lacks, a fact it adds, or one changed into another."""

    kind: FactKind
    #: The snapshot's fact and the new output's (None when there is none on that side).
    old: Fact | None
    new: Fact | None

    @property
    def change(self) -> Literal["changed", "removed", "added"]:
        if self.old is not None and self.new is not None:
            return "changed"
        return "removed" if self.new is None else "added"

    def describe(self) -> str:
        """``number changed: 30 → 14 ("within 30 days")``, ``negation added: 'not' (...)``."""
        if self.old is not None and self.new is not None:
            return (
                f'{self.kind} changed: {self.old.shown} → {self.new.shown} ("{self.old.context}")'
            )
        fact = self.old if self.old is not None else self.new
        assert fact is not None
        where = "the snapshot" if self.new is None else "the new output"
        return f'{self.kind} {self.change}: {fact.written!r} (in {where}: "{fact.context}")'

    def __repr__(self) -> str:
        return f"<FactChange {self.describe()}>"


def extract_facts(text: str) -> list[Fact]:
    """Every fact of ``text`` the rule finds, in the order they appear."""
    taken = bytearray(len(text))  # 1 where an earlier fact lies
    facts: list[Fact] = []
    starts = _sentence_starts(text)
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            begin, end = match.span()
            if taken.find(1, begin, end) != -1:
                continue
            value = _value(kind, match, text, begin, starts)
            if value is None:
                continue
            taken[begin:end] = b"\x01" * (end - begin)
            words = value.split()  # a name run that opens a sentence: also without its first word
            alias = kind == "name" and begin in starts and len(words) > 1
            aliases = (" ".join(words[1:]),) if alias else ()
            written, context = match.group(0).strip(), _context(text, begin, end, kind)
            facts.append(Fact(kind, value, written, context, begin, aliases))
    return sorted(facts, key=lambda fact: fact.start)


def compare_facts(stored: str, new: str) -> tuple[FactChange, ...]:
    """What facts changed from ``stored`` to ``new``, kind by kind: the facts only one text has,
    paired in order into changes (numbers only of the same unit), the rest removals and additions;
    negations compared by count."""
    kinds: tuple[FactKind, ...] = ("number", "date", "negation", "name", "email", "url", "code")
    old_facts: dict[FactKind, list[Fact]] = {kind: [] for kind in kinds}
    new_facts: dict[FactKind, list[Fact]] = {kind: [] for kind in kinds}
    for facts, text in ((old_facts, stored), (new_facts, new)):
        for fact in extract_facts(text):
            facts[fact.kind].append(fact)
    changes: list[FactChange] = []
    for kind in kinds:
        lost = _only_in(old_facts[kind], new_facts[kind])
        gained = _only_in(new_facts[kind], old_facts[kind])
        if kind == "negation":
            # A count: "cannot" for "can't" is no change; only a surplus on one side is.
            surplus = len(lost) - len(gained)
            lost, gained = (lost[:surplus], []) if surplus > 0 else ([], gained[:-surplus])
        changes.extend(_pair(kind, lost, gained))
    return tuple(changes)


def _only_in(these: list[Fact], others: list[Fact]) -> list[Fact]:
    """The facts of ``these`` that no fact of ``others`` matches (each used once, in order)."""
    waiting: dict[str, deque[int]] = {}
    for index, other in enumerate(others):
        for key in {other.value, *other.aliases}:
            waiting.setdefault(key, deque()).append(index)
    used: set[int] = set()
    kept: list[Fact] = []
    for fact in these:
        first = None
        for key in {fact.value, *fact.aliases}:
            queue = waiting.get(key)
            while queue and queue[0] in used:
                queue.popleft()
            if queue and (first is None or queue[0] < first):
                first = queue[0]
        if first is None:
            kept.append(fact)
        else:
            used.add(first)
    return kept


def _pair(kind: FactKind, lost: list[Fact], gained: list[Fact]) -> Iterator[FactChange]:
    """Each lost fact with the first unpaired gained one of its key, then the gained left."""
    waiting: dict[str, deque[int]] = {}
    if kind != "negation":
        for index, new in enumerate(gained):
            waiting.setdefault(_pair_key(kind, new), deque()).append(index)
    paired: set[int] = set()
    for old in lost:
        queue = waiting.get(_pair_key(kind, old))
        match = queue.popleft() if queue else None
        if match is not None:
            paired.add(match)
        yield FactChange(kind, old, None if match is None else gained[match])
    for index, new in enumerate(gained):
        if index not in paired:
            yield FactChange(kind, None, new)


def _pair_key(kind: FactKind, fact: Fact) -> str:
    return fact.value.partition(" ")[2] if kind == "number" else ""  # a number: its unit


def _value(
    kind: FactKind, match: re.Match[str], text: str, begin: int, starts: frozenset[int]
) -> str | None:
    written = match.group(0).strip()
    if kind == "number":
        return _quantity(match)
    if kind == "negation":
        return "not"
    if kind == "name":
        words = [word for word in written.split() if word not in _NOT_NAMES]
        # A sentence's first word is capitalised anyway: alone, or a common opener, it is no name.
        if begin in starts and words and (len(words) == 1 or words[0].lower() in _OPENERS):
            words = words[1:]
        return " ".join(words) if words and words[0][:1].isupper() else None
    if written.lower() in _NEGATIONS:
        return None  # "NOT" shouted is a negation, not an acronym
    if kind == "date":
        return " ".join(written.lower().replace(",", " ").replace(".", " ").split())
    if kind in ("email", "url"):
        return written.lower()
    return written


def _quantity(match: re.Match[str]) -> str:
    """``30 day``, ``20 dollar``, ``15 percent``: the number and its unit, in the singular."""
    groups = match.groupdict()
    negative = any(groups[name] is not None for name in ("open", "sign", "sign2", "wordsign"))
    if groups["word"]:
        value = str(_NUMBER_WORDS[groups["word"].lower()])
        unit = groups["wordunit"]
    else:
        value = groups["value"].replace(",", "")
        if "." in value:
            value = value.rstrip("0").rstrip(".")
        unit = groups["unit"]
    if negative and value.strip("0.") != "":  # -0 is 0
        value = f"-{value}"
    symbol = groups["symbol"] or groups["percent"]
    if symbol:
        return f"{value} {_SYMBOLS[symbol]}"
    if not unit or unit.lower() in _NOT_UNITS:
        return value
    return f"{value} {_singular(unit.lower())}"


def _singular(unit: str) -> str:
    if unit.endswith("ies") and len(unit) > 4:
        return unit[:-3] + "y"
    if unit.endswith("s") and not unit.endswith("ss") and len(unit) > 2:
        return unit[:-1]
    return {"percent": "percent", "euros": "euro"}.get(unit, unit)


def _sentence_starts(text: str) -> frozenset[int]:
    """Where each sentence's first word begins (after quotes or brackets that open it)."""
    shifted = set()
    scanned, reached = -1, -1  # text[scanned:reached] holds no letter nor digit
    for start in sorted({0, *(match.end() for match in SENTENCE_END.finditer(text))}):
        if not scanned <= start <= reached:
            scanned = reached = start
            while reached < len(text) and not text[reached].isalnum():
                reached += 1
        shifted.add(reached)
    return frozenset(shifted)


#: How far around a fact its context's words are looked for (a word is cut at this length).
_AROUND = 200


def _context(text: str, begin: int, end: int, kind: FactKind) -> str:
    """The fact with the word before it (and, for a negation, the word after), on one line."""
    before = text[max(0, begin - _AROUND) : begin].split()
    after = text[end : end + _AROUND].split()
    words = [*before[-1:], text[begin:end].strip()]
    if kind == "negation" and after:
        words.append(after[0])
    return preview(" ".join(words).strip(".,;:!?"), 80, quote=False)
