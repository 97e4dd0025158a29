"""The facts of a text that meaning-level judges miss, compared structurally before any judge.

```python
from semantix.snapshots.facts import compare_facts

changes = compare_facts(
    "You can return any item within 30 days for a full refund.",
    "You can return any item within 14 days for a full refund.",
)
print(changes[0].describe())
#> number changed: 30 → 14 ("within 30 days")
```

A cheap rule, not understanding: each kind below is found by a pattern, and the two texts'
facts are compared as multisets, kind by kind, so a paraphrase that keeps every fact (other
words, other order) has no change.

- **numbers and quantities**, with the unit that follows them (``30 days``, ``30-day``,
  ``$20``, ``15 %``, ``2.5 kg``), digits or number words (``thirty``; not ``one``, mostly a
  pronoun); units are compared in the
  singular, ``$``/``€``/``£``/``%`` as ``dollar``/``euro``/``pound``/``percent``;
- **dates and times**: ISO dates, ``3/4/2026``, month names with a day or year (``March 3``,
  ``3 March 2026``), weekdays, ``9:30``, ``5 pm``;
- **negations**: ``not``, ``no``, ``never``, ``none``, ``nothing``, ``nobody``, ``nowhere``,
  ``neither``, ``nor``, ``cannot``, ``without``, and every ``n't`` (their count is compared:
  ``can't`` for ``cannot`` is no change);
- **named entities**: runs of capitalised words (``Acme Corp``; a sentence's first word only
  in a run of two or more, and not a common opener such as "The" or "Our"), acronyms (``UPS``),
  emails, URLs, and codes (a word mixing digits and capitals such as ``ORD-1234``).

Changes are listed kind by kind in the order above, each kind in text order.

Limits: ``two weeks`` for ``14 days`` is a change (no arithmetic on units); a one-word name at
the start of a sentence is not seen; a negation moved to another clause, or ``unavailable`` for
``not available``, is counted, not understood.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from semantix.text import SENTENCE_END, preview

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

# Ordered: a span taken by an earlier kind is not read again by a later one.
_PATTERNS: tuple[tuple[FactKind, re.Pattern[str]], ...] = (
    ("url", re.compile(r"\b(?:https?://|www\.)[^\s<>\"']+[^\s<>\"'.,;:!?)\]]")),
    ("email", re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")),
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
    # A code: letters with digits and a capital (ORD-1234, COVID-19).
    (
        "code",
        re.compile(r"\b(?=[A-Za-z0-9-]*\d)(?=[A-Za-z0-9-]*[A-Z])[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*\b"),
    ),
    ("name", re.compile(r"\b[A-Z]{2,}\b")),  # an acronym: UPS, EU
    (
        "number",
        re.compile(
            r"(?P<symbol>[$€£])?\s?(?P<value>(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)"
            rf"(?:\s?(?P<percent>%)|[-\s]{_NOT_A_UNIT}(?P<unit>[A-Za-z]+))?"
            rf"|\b(?P<word>{'|'.join(_NUMBER_WORDS)})\b(?:[-\s]{_NOT_A_UNIT}(?P<wordunit>[A-Za-z]+))?",
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
    #: The fact as written in the text.
    written: str
    #: A few words around it, as written ("within 30 days"), for messages.
    context: str
    start: int
    #: Other values that count as the same fact: a name run that opens a sentence also matches
    #: without its first word ("Ask Maria Lopez" is "Maria Lopez").
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
    #: The snapshot's fact (None when the new output adds one).
    old: Fact | None
    #: The new output's fact (None when the new output drops one).
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
    taken: list[tuple[int, int]] = []
    facts: list[Fact] = []
    starts = _sentence_starts(text)
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            begin, end = match.span()
            if any(begin < stop and start < end for start, stop in taken):
                continue
            value = _value(kind, match, text, begin, starts)
            if value is None:
                continue
            taken.append((begin, end))
            aliases = _aliases(kind, value, begin, starts)
            written = match.group(0).strip()
            context = _context(text, begin, end, kind)
            facts.append(Fact(kind, value, written, context, begin, aliases))
    return sorted(facts, key=lambda fact: fact.start)


def compare_facts(stored: str, new: str) -> tuple[FactChange, ...]:
    """What facts changed from ``stored`` to ``new``: empty when they keep every fact.

    Kind by kind, the facts only one text has are paired in order into changes (numbers only
    with numbers of the same unit); the rest are removals and additions. Negations are compared
    by count.
    """
    old_facts, new_facts = extract_facts(stored), extract_facts(new)
    changes: list[FactChange] = []
    for kind in ("number", "date", "negation", "name", "email", "url", "code"):
        lost = _only_in(
            [f for f in old_facts if f.kind == kind], [f for f in new_facts if f.kind == kind]
        )
        gained = _only_in(
            [f for f in new_facts if f.kind == kind], [f for f in old_facts if f.kind == kind]
        )
        if kind == "negation":
            # A count: "cannot" for "can't" is no change; only a surplus on one side is.
            surplus = len(lost) - len(gained)
            lost, gained = (lost[:surplus], []) if surplus > 0 else ([], gained[:-surplus])
        changes.extend(_pair(kind, lost, gained))
    return tuple(changes)


def _only_in(these: list[Fact], others: list[Fact]) -> list[Fact]:
    """The facts of ``these`` that no fact of ``others`` matches (each used once), in order."""
    unused = list(others)
    kept: list[Fact] = []
    for fact in these:
        keys = {fact.value, *fact.aliases}
        match = next((other for other in unused if keys & {other.value, *other.aliases}), None)
        if match is None:
            kept.append(fact)
        else:
            unused.remove(match)
    return kept


def _aliases(kind: FactKind, value: str, begin: int, starts: frozenset[int]) -> tuple[str, ...]:
    words = value.split()
    if kind == "name" and begin in starts and len(words) > 1:
        return (" ".join(words[1:]),)
    return ()


def _pair(kind: FactKind, lost: list[Fact], gained: list[Fact]) -> Iterator[FactChange]:
    gained = list(gained)
    for old in lost:
        match = next((new for new in gained if _pairs(kind, old, new)), None)
        if match is not None:
            gained.remove(match)
        yield FactChange(kind, old, match)
    for new in gained:
        yield FactChange(kind, None, new)


def _pairs(kind: FactKind, old: Fact, new: Fact) -> bool:
    if kind == "number":
        return old.value.partition(" ")[2] == new.value.partition(" ")[2]  # the same unit
    return kind != "negation"


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
    if match.group("word"):
        value = str(_NUMBER_WORDS[match.group("word").lower()])
        unit = match.group("wordunit")
    else:
        value = match.group("value").replace(",", "")
        if "." in value:
            value = value.rstrip("0").rstrip(".")
        unit = match.group("unit")
        symbol = match.group("symbol") or match.group("percent")
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
    starts = {0, *(match.end() for match in SENTENCE_END.finditer(text))}
    shifted = set()
    for start in starts:
        while start < len(text) and not text[start].isalnum():
            start += 1
        shifted.add(start)
    return frozenset(shifted)


def _context(text: str, begin: int, end: int, kind: FactKind) -> str:
    """The fact with the word before it (and, for a negation, the word after), on one line."""
    before = text[:begin].split()
    after = text[end:].split()
    words = [*before[-1:], text[begin:end].strip()]
    if kind == "negation" and after:
        words.append(after[0])
    return preview(" ".join(words).strip(".,;:!?"), 80, quote=False)
