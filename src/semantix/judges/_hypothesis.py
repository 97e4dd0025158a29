"""Turn an intent description into the declarative hypothesis an NLI model can judge; the word
tables and patterns are shared with `semantix.judges._phrasing.negated_statement`."""

from __future__ import annotations

import re
from typing import Any

from semantix._cache import memo
from semantix._text import split_sentences

__all__ = ["to_hypothesis"]


class LazyPattern:
    """A regular expression compiled on first use, by `re` (whose cache keeps it): the phrasing
    patterns are large, and most processes that import semantix never phrase a hypothesis."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern, self.flags = pattern, flags

    def __getattr__(self, name: str) -> Any:
        return getattr(re.compile(self.pattern, self.flags), name)


def _words(text: str) -> frozenset[str]:
    """A word table written as text (one space-separated string reads better than 140 items)."""
    return frozenset(text.split())


#: Subjects that name the output being judged.
_SUBJECT_NOUNS = sorted(
    _words(
        "text response answer reply output message summary email completion assistant model bot "
        "chatbot agent result explanation translation story letter description content article "
        "review comment post tweet code title paragraph essay"
    )
)
SUBJECT = (
    r"(?P<subject>(?:the|this|that|your|its|our|an?)\s+(?:[\w'-]+\s+){0,3}?(?:"
    + "|".join(_SUBJECT_NOUNS)
    + r"|[\w'-]+)|it|you)"
)
# Obligations, longest first so "needs to" wins over "need".
MODALS = (
    r"is\s+required\s+to|is\s+expected\s+to|is\s+supposed\s+to|needs\s+to|need\s+to|"
    r"has\s+to|have\s+to|ought\s+to|must|should|shall|will|has\s+got\s+to"
)
_NEGATIONS = (
    r"must\s+not|mustn't|should\s+not|shouldn't|shall\s+not|shan't|will\s+not|won't|"
    r"cannot|can\s+not|can't|may\s+not|does\s+not|doesn't|do\s+not|don't|"
    r"is\s+not\s+allowed\s+to|is\s+not\s+supposed\s+to|is\s+not\s+to|"
    r"does\s+not\s+need\s+to|needs\s+not|need\s+not"
)

_OBLIGATION = LazyPattern(
    rf"^(?:{SUBJECT}\s+)?(?:(?P<neg>{_NEGATIONS})|(?P<modal>{MODALS})(?:\s+(?P<modneg>not|never))?)"
    r"\s+(?P<rest>.+)$",
    re.IGNORECASE,
)
_QUESTION = LazyPattern(rf"^(?P<aux>is|does|do)\s+{SUBJECT}\s+(?P<rest>.+?)\s*\?$", re.IGNORECASE)

#: Verbs recognised at the start of an imperative ("Apologize for ...") or after "and".
VERBS = _words(
    "accept acknowledge address admit advise agree answer apologize apologise argue advertise "
    "ask assist assure assume avoid be blame begin cite collect compare clarify close comfort "
    "comply confirm congratulate contain convey contradict correct criticize criticise curse "
    "decline deny describe diagnose direct discuss disclose display do emphasize "
    "emphasise encourage end escalate explain exaggerate expose express fabricate focus follow "
    "give greet guide have help hallucinate highlight ignore imply impersonate include inform "
    "insist instruct insult interrupt introduce invent keep leak lecture list maintain make "
    "match mention mock moralize moralise name note offer outline paraphrase point praise "
    "prescribe present pretend promise promote propose provide quote recommend redirect refer "
    "reference refuse reject remain remind repeat reply request respect respond restate return "
    "reveal say share show sign state stay stick suggest summarize summarise support swear tell "
    "thank threaten translate treat urge use warn welcome write",
)
_ADVERBS = _words(
    "always never also only still just clearly politely briefly explicitly directly accurately "
    "concisely correctly fully kindly firmly gently honestly immediately",
)
#: Capitalised words that must keep their capital (languages, proper terms).
_KEEP_CAPITAL = _words(
    "English French German Spanish Italian Portuguese Dutch Chinese Japanese Korean Russian "
    "Arabic Hindi Polish Swedish Turkish Greek Hebrew Latin I Python JavaScript SQL JSON",
)
_DETERMINERS = _words("the this that these those it its a an he she they we i my our their his her")
_COPULAS = _words("is are was were has have does do did contains includes provides mentions")
#: Finite verbs that open a subject-less statement about the text ("is written in French").
SINGULAR_FINITE = frozenset(["is", "was", "has", "does", "contains", "includes", "provides"])


def _third_person(verb: str) -> str:
    """``apologize`` → ``apologizes``; ``be`` → ``is``. Only the verb is touched."""
    lower = verb.lower()
    irregular = {"be": "is", "have": "has", "do": "does", "go": "goes"}
    if lower in irregular:
        return irregular[lower]
    if re.search(r"(?:s|sh|ch|x|z|o)$", lower):
        return verb + "es"
    if re.search(r"[^aeiou]y$", lower):
        return verb[:-1] + "ies"
    return verb + "s"


def base_of(word: str) -> str | None:
    """``mentions`` → ``mention`` when the base is a known verb, else None."""
    lower = word.lower()
    for suffix, ending in (("ies", "y"), ("es", ""), ("s", "")):
        base = lower[: -len(suffix)] + ending
        if lower.endswith(suffix) and base in VERBS and base != "be":
            return base
    return None


def lower_first(text: str) -> str:
    """Lower-case the first word only when it is an ordinary capitalised word."""
    match = re.match(r"[A-Za-z][\w'-]*", text)
    if not match:
        return text
    word = match.group(0)
    if word in _KEEP_CAPITAL or (not word[1:].islower() and len(word) > 1):
        return text
    if len(word) == 1 and word != "A":
        return text
    return word.lower() + text[len(word) :]


def _conjugate_coordinated(rest: str) -> str:
    """Conjugate verbs joined by "and"/"or" after the first ("apologize and offer" → "offers")."""

    def repl(match: re.Match[str]) -> str:
        verb = match.group("verb")
        if verb.lower() in VERBS and verb.lower() != "be":
            return f"{match.group('join')}{_third_person(verb)}"
        return match.group(0)

    return re.sub(r"(?P<join>(?:,\s*|\s+)(?:and|or)\s+)(?P<verb>[a-z]+)\b", repl, rest)


def _is_adverb(word: str, following: str) -> bool:
    lower = word.lower()
    next_word = following.split(" ", 1)[0].lower()
    return lower in _ADVERBS or (lower.endswith("ly") and next_word in VERBS)


def _predicate(rest: str, *, negated: bool, never: bool) -> str:
    """The predicate for ``<subject> <modal> [not|never] <rest>``."""
    words = rest.split(" ", 1)
    adverb = ""
    if len(words) == 2 and _is_adverb(words[0], words[1]) and words[0].lower() != "never":
        adverb, rest = words[0], words[1]
        words = rest.split(" ", 1)
    elif len(words) == 2 and words[0].lower() == "never":
        never, rest = True, words[1]
        words = rest.split(" ", 1)
    verb, tail = words[0], (words[1] if len(words) == 2 else "")
    space_tail = f" {tail}" if tail else ""
    lower = verb.lower()
    adverb_part = f"{adverb} " if adverb else ""
    if lower == "be":
        copula = "is never" if never else "is not" if negated else "is"
        return f"{copula} {adverb_part}{tail}".rstrip()
    if never:
        return f"never {adverb_part}{_third_person(verb)}{_conjugate_coordinated(space_tail)}"
    if negated:
        return f"does not {adverb_part}{verb}{space_tail}"
    return f"{adverb_part}{_third_person(verb)}{_conjugate_coordinated(space_tail)}"


def _subject_text(subject: str | None) -> str:
    if subject is None or subject.lower() == "you":
        return "The text"
    if subject.lower() == "it":
        return "It"
    return subject[0].upper() + subject[1:]


def _sentence_to_hypothesis(sentence: str) -> str:
    text = sentence.strip()
    question = _QUESTION.match(text)
    if question:
        subject = _subject_text(question.group("subject"))
        rest = question.group("rest")
        if question.group("aux").lower() == "is":
            return f"{subject} is {rest}"
        first, _, tail = rest.partition(" ")
        return f"{subject} {_third_person(first)}{(' ' + tail) if tail else ''}"
    text = text.rstrip(" .!;:,")
    if not text:
        return ""

    obligation = _OBLIGATION.match(text)
    if obligation:
        subject = _subject_text(obligation.group("subject"))
        rest = obligation.group("rest")
        if obligation.group("neg"):
            negated, never = True, False
        else:
            modneg = (obligation.group("modneg") or "").lower()
            negated, never = modneg == "not", modneg == "never"
        if obligation.group("subject") is None:
            rest = lower_first(rest)
        return f"{subject} {_predicate(rest, negated=negated, never=never)}"

    first, _, tail = text.partition(" ")
    lower = first.lower()
    # Imperatives: "Apologize for the delay", "Never mention X", "Be polite".
    if lower == "never" and tail:
        return f"The text {_predicate(tail, negated=False, never=True)}"
    auxiliary = lower in {"do", "have"} and tail and not tail.split(" ", 1)[0].isalpha()
    if lower in VERBS and not (lower == "be" and not tail) and not auxiliary:
        return f"The text {_predicate(lower_first(text), negated=False, never=False)}"
    if tail and _is_adverb(first, tail) and tail.split(" ", 1)[0].lower() in VERBS:
        return f"The text {_predicate(lower_first(text), negated=False, never=False)}"
    # Third person without a subject: "Mentions the refund policy", "is written in French".
    if base_of(first) is not None or lower in SINGULAR_FINITE:
        return f"The text {lower_first(text)}"
    if lower == "no" and tail:
        return f"The text contains {lower_first(text)}"
    if lower == "not" and tail:
        return f"The text is {lower_first(text)}"
    # Already a statement: it starts with a determiner/pronoun or has a finite verb.
    words = re.findall(r"[A-Za-z']+", text)
    has_verb = any(word.lower() in _COPULAS or base_of(word) is not None for word in words[1:])
    if (lower in _DETERMINERS and lower not in {"a", "an"}) or has_verb:
        return text[0].upper() + text[1:]
    # A bare phrase: "polite and professional", "about cooking", "in French".
    return f"The text is {lower_first(text)}"


_BULLET = LazyPattern(r"^\s*(?:[-*\u2022]|\d+[.)])\s+")


def description_sentences(description: str) -> list[str]:
    """The description's sentences (`semantix._text.split_sentences`, the rule the windows
    use too): bullets are items, lines of an item are joined."""
    items: list[str] = []
    for line in description.splitlines():
        if _BULLET.match(line) or not items:
            items.append(_BULLET.sub("", line).strip())
        else:
            items[-1] = f"{items[-1]} {line.strip()}".strip()
    collapsed = (re.sub(r"\s+", " ", item).strip() for item in items)
    return [sentence for text in collapsed if text for sentence in split_sentences(text)]


@memo(maxsize=1024)
def to_hypothesis(description: str) -> str:
    """Rewrite an intent description as the statement an NLI model judges.

    Args:
        description: the intent's description, e.g. ``"The text must be polite."``.

    Returns:
        One declarative sentence per sentence of the description, each ending with a period,
        e.g. ``"The text is polite."``.

    Example:
        ```python
        from semantix.judges._hypothesis import to_hypothesis

        assert to_hypothesis("The response must not contain profanity") == (
            "The response does not contain profanity."
        )
        assert to_hypothesis("polite and professional") == "The text is polite and professional."
        ```
    """
    if not isinstance(description, str):
        raise TypeError(
            f"to_hypothesis needs the description as a str, got {type(description).__name__}"
        )
    statements = map(_sentence_to_hypothesis, description_sentences(description))
    out = [text if text[-1] in ".?!" else f"{text}." for text in statements if text]
    if not out:
        raise ValueError(
            f"cannot build an NLI hypothesis from the empty description {description!r}; "
            "write the requirement as the intent's docstring"
        )
    return " ".join(out)
