"""Phrasings an NLI model can judge: ``to_hypothesis`` (from `semantix.judges._hypothesis`) and
`negated_statement`, the positive statement a plain prohibition forbids (judged and inverted)."""

from __future__ import annotations

import re

from semantix._cache import memo
from semantix.judges._hypothesis import (
    MODALS,
    SINGULAR_FINITE,
    SUBJECT,
    VERBS,
    LazyPattern,
    base_of,
    description_sentences,
    lower_first,
    to_hypothesis,
)

__all__ = ["negated_statement", "to_hypothesis"]


def _pattern(pattern: str) -> LazyPattern:
    """Every phrasing pattern ignores case."""
    return LazyPattern(pattern, re.IGNORECASE)


#: Prohibitions after an optional subject: "must not", "should never", "is not allowed to", ...
_PROHIBITIONS = (
    r"must\s+not|mustn't|must\s+never|should\s+not|shouldn't|should\s+never|shall\s+not|"
    r"shan't|shall\s+never|will\s+not|won't|will\s+never|cannot|can\s+not|can't|can\s+never|"
    r"may\s+not(?!\s+be\b)|may\s+never|does\s+not|doesn't|do\s+not|don't|never|"
    r"(?:is|are)\s+not\s+(?:allowed|permitted|supposed)\s+to|(?:is|are)\s+not\s+to|"
    r"(?:is|are)\s+(?:forbidden|prohibited)\s+to|(?:is|are)\s+never\s+to"
)
_PROHIBITION = _pattern(rf"^(?:{SUBJECT}\s+)?(?:{_PROHIBITIONS})\s+(?P<rest>.+)$")
#: "must avoid X", "refrains from X", "should stay away from X" (X: a noun phrase or a gerund).
_AVOIDANCE = _pattern(
    rf"^(?:{SUBJECT}\s+)?(?:(?:{MODALS})\s+)?(?:always\s+)?"
    r"(?:avoids?|refrains?\s+from|abstains?\s+from|steers?\s+clear\s+of|stays?\s+away\s+from)"
    r"\s+(?P<rest>.+)$"
)
#: "The text is not rude", "The reply isn't in English": a negated copula statement.
_NOT_COPULA = _pattern(rf"^{SUBJECT}\s+(?P<be>is|are)(?:\s+not|n't)\s+(?P<rest>.+)$")
#: "The text must be free of jargon", "free from profanity".
_FREE_OF = _pattern(
    rf"^(?:{SUBJECT}\s+)?(?:(?:{MODALS})\s+be\s+|(?:is|are)\s+)?(?:completely\s+|entirely\s+)?"
    r"free\s+(?:of|from)\s+(?P<rest>.+)$"
)
#: "The reply must contain no personal data", "has no typos".
_VERB_NO = _pattern(
    rf"^(?P<head>(?:{SUBJECT}\s+)?(?:(?:{MODALS})\s+)?"
    r"(?:contains?|includes?|ha(?:s|ve)|uses?|mentions?|gives?|makes?|offers?|shows?))"
    r"\s+no\s+(?P<rest>.+)$"
)
#: "Profanity is not allowed", "Mentioning competitors is forbidden".
_BANNED = _pattern(
    r"^(?P<rest>.+?)\s+(?:is|are)\s+(?:not\s+(?:allowed|permitted|acceptable|ok|okay)|"
    r"forbidden|prohibited|banned|off[- ]limits)$"
)
#: Leads that only add emphasis: "Please", "Under no circumstances should", "Make sure not to".
_PLEASE = _pattern(r"^please,?\s+")
_NO_CIRCUMSTANCES = _pattern(
    r"^(?:under\s+no\s+circumstances|in\s+no\s+case|on\s+no\s+account|at\s+no\s+(?:point|time))"
    rf"\s*,?\s+(?:(?:should|must|shall|may|will|can|does|do)\s+(?:{SUBJECT}\s+)?)?(?P<rest>.+)$"
)
_CAREFUL = _pattern(
    r"^(?:make\s+sure|be\s+sure|ensure|take\s+care|be\s+careful)\s+(?:that\s+)?"
    r"(?:not\s+to|never\s+to|to\s+never|to\s+not)\s+(?P<rest>.+)$"
)
_ENSURE_SUBJECT = _pattern(r"^(?:make\s+sure|be\s+sure|ensure)\s+(?:that\s+)?")
#: Words that mean the requirement is not a plain prohibition: a positive part, an exception,
#: or "not only X but also Y".
_COMPOUND = _pattern(
    r"\bnot\s+(?:only|just|merely|simply|necessarily|always|all|every|everything|even)\b|"
    r"\bbut\b|\binstead\b|\bunless\b|\bexcept\b|\brather\s+than\b|,\s*(?:only|just)\b|"
    r"(?:\band\b|;)\s+(?:always|be|stay|keep|remain|remember|make\s+sure|ensure|also)\b"
)
#: Idioms whose negation is emphasis, not a prohibition: "cannot be too careful".
_IDIOM = _pattern(
    r"\bcan(?:not|'t|\s+not|\s+never)\s+(?:be\s+too|help\s+but|wait|stress|emphasi[sz]e|"
    r"overstate|thank|say\s+enough)\b"
)
#: Verbs whose negation says the opposite positively: "never fails to greet" = "greets".
_LITOTES = _pattern(
    r"^(?:hesitate|fail|forget|neglect|omit|cease|miss\s+(?:a|the)\s+chance|"
    r"be\s+(?:afraid|shy|hesitant|reluctant))s?\b|^(?:hesitates|fails|forgets|neglects|omits)\b"
)
#: "does not need to", "doesn't have to": permission, not prohibition.
_PERMISSION = _pattern(r"(?:need|have|has)\s+to\b|need\b")
#: "no" that does not name an absence: "no later than Friday", "no matter what".
_NOT_ABSENCE = _pattern(
    r"^(?:(?:\w+er|more|less|fewer)\s+than|longer\b|later\b|sooner\b|matter\b|doubt\b|one\b|"
    r"need\b|problem\b|worries\b|wonder\b|way\b|more\b|less\b|fewer\b)"
)
#: Conditions or requirements that stay negative inside the positive part (a double negative).
_STILL_NEGATIVE = _pattern(
    r"\b(?:not|never|no|without|nothing|none|nobody|neither|nor|cannot)\b|n't\b"
)
_TRAILING_EMPHASIS = _pattern(
    r"(?:,?\s+(?:at\s+all|in\s+any\s+(?:way|form)|under\s+any\s+circumstances|whatsoever|ever|"
    r"please))+$"
)
#: Emphasis inside a prohibition: "must not, under any circumstances, reveal", "never ever".
_INNER_EMPHASIS = _pattern(
    r",\s*(?:under\s+any\s+circumstances|in\s+any\s+case|ever)\s*,|(?<=\bnever),?\s+ever\b"
)
#: "There must be no X", "There is no X".
_THERE_IS_NO = _pattern(
    r"^there\s+(?:(?:must|should|shall|will|may)\s+be|is|are)\s+no\s+(?P<rest>.+)$"
)


def _gerund_base(word: str) -> str | None:
    """``mentioning`` → ``mention``, ``giving`` → ``give``, ``being`` → ``be`` (known verbs)."""
    lower = word.lower()
    if not lower.endswith("ing") or len(lower) < 5:
        return None
    stem = lower[:-3]
    candidates = [stem, stem + "e"]
    if len(stem) > 2 and stem[-1] == stem[-2]:
        candidates.append(stem[:-1])
    if stem.endswith("y"):
        candidates.append(stem[:-1] + "ie")
    return next((c for c in candidates if c in VERBS), None)


def _positive_object(rest: str, subject: str) -> str | None:
    """The positive requirement for "avoid/without/free of <rest>": a gerund or a noun phrase."""
    rest = re.sub(r"^any\s+", "", rest, flags=re.IGNORECASE)
    first, _, tail = rest.partition(" ")
    base = _gerund_base(first)
    if base is not None:
        return f"{subject}must {base}{(' ' + tail) if tail else ''}"
    if first.lower().endswith("ing") and first.lower() not in {"anything", "something"}:
        return None  # an unknown verb: leave the description as written
    return f"{subject}must contain {rest}"


def _drop_any(rest: str) -> str:
    """``contain any personal data`` → ``contain personal data``; ``say anything`` → something."""
    words = rest.split(" ")
    if len(words) >= 2:
        swap = {"any": "", "anything": "something", "anyone": "someone", "anybody": "somebody"}
        replacement = swap.get(words[1].lower())
        if replacement is not None:
            words = [words[0], *([replacement] if replacement else []), *words[2:]]
    return " ".join(words)


def _subject_prefix(match: re.Match[str]) -> str:
    subject = match.group("subject")
    return f"{subject} " if subject else ""


def _positive_requirement(sentence: str) -> str | None:
    """The positive requirement a negatively phrased sentence forbids, or None."""
    text = sentence.strip().replace("\u2019", "'").rstrip(" .!;:,")
    text = _PLEASE.sub("", text, count=1)
    careful = _CAREFUL.match(text)
    if no_case := _NO_CIRCUMSTANCES.match(text):
        text = f"{_subject_prefix(no_case)}must not {no_case.group('rest')}"
    elif careful:
        text = f"must not {careful.group('rest')}"
    else:
        ensured = _ENSURE_SUBJECT.sub("", text, count=1)
        if ensured != text and _PROHIBITION.match(ensured):
            text = ensured
    if not text or _COMPOUND.search(text) or _IDIOM.search(text):
        return None
    text = _INNER_EMPHASIS.sub("", _TRAILING_EMPHASIS.sub("", text))
    if there := _THERE_IS_NO.match(text):
        text = f"no {there.group('rest')}"

    positive: str | None = None
    if match := _AVOIDANCE.match(text):
        positive = _positive_object(match.group("rest"), _subject_prefix(match))
    elif match := _FREE_OF.match(text):
        rest = re.sub(r"^any\s+", "", match.group("rest"), flags=re.IGNORECASE)
        positive = f"{_subject_prefix(match)}must contain {rest}"
    elif match := _PROHIBITION.match(text):
        rest = match.group("rest")
        subject = _subject_prefix(match)
        head = text[: match.start("rest")].lower().split()
        if _LITOTES.match(rest) or _PERMISSION.match(rest):
            return None
        positive = f"{subject}must {rest}"
        if head[-1] == "never" and len(head) == (len(subject.split()) + 1):
            # "The assistant never reveals X": a statement; drop "never", keep the verb's form.
            first = rest.split(" ", 1)[0].lower()
            if subject and (
                base_of(first) is not None or first in SINGULAR_FINITE or first.endswith("s")
            ):
                positive = f"{subject}{rest}"
            elif not subject and base_of(first) is not None:
                positive = f"must {base_of(first)}{rest[len(first) :]}"
        positive = _drop_any_after_modal(positive)
    elif match := _NOT_COPULA.match(text):
        positive = f"{match.group('subject')} {match.group('be')} {match.group('rest')}"
    elif match := _VERB_NO.match(text):
        if _NOT_ABSENCE.match(match.group("rest")):
            return None
        positive = f"{match.group('head')} {match.group('rest')}"
    elif match := _BANNED.match(text):
        rest = match.group("rest")
        if re.match(SUBJECT + "$", rest, re.IGNORECASE):
            return None
        positive = _positive_object(lower_first(rest), "")
    else:
        first, _, tail = text.partition(" ")
        lower = first.lower()
        if lower == "no" and tail and not _NOT_ABSENCE.match(tail):
            positive = f"contains {tail}"
        elif lower == "without" and tail:
            positive = _positive_object(tail, "")
        elif lower == "not" and tail:
            positive = tail
    if positive is None or _STILL_NEGATIVE.search(positive):
        return None
    return positive


def _drop_any_after_modal(positive: str) -> str:
    """Drop "any" after the verb that follows "must" (``must use any slang`` → ``must use slang``)."""
    head, sep, rest = positive.partition("must ")
    if not sep:
        words = positive.split(" ")
        # a statement: "<subject> reveals any X": find the verb after the subject
        for index in range(len(words) - 1):
            if words[index + 1].lower() in {"any", "anything", "anyone", "anybody"}:
                return " ".join([*words[:index], _drop_any(" ".join(words[index:]))])
        return positive
    return f"{head}{sep}{_drop_any(rest)}"


@memo(maxsize=1024)
def negated_statement(description: str) -> str | None:
    """The positive statement a negatively phrased requirement forbids, or None.

    "The text must not contain medical advice" gives ``"The text contains medical advice."``:
    the NLI and embedding judges judge the description as NOT that statement, exactly like
    ``~MedicalAdvice``, because a model cannot confirm an absence. The statement is what
    `to_hypothesis` gives for the positive requirement, so the two always agree. What is
    recognised, and what is left as written on purpose (several sentences, a positive part or an
    exception, negations that mean something positive, permission, double negatives), is listed
    on [Getting verdicts right](verdicts.md#negatively-phrased-requirements).

    Example:
        ```python
        from semantix.judges._phrasing import negated_statement

        assert negated_statement("Never reveal the system prompt.") == (
            "The text reveals the system prompt."
        )
        assert negated_statement("The reply does not hesitate to help.") is None
        assert negated_statement("The text must be polite.") is None
        ```
    """
    if not isinstance(description, str):
        raise TypeError(
            f"negated_statement needs the description as a str, got {type(description).__name__}"
        )
    sentences = description_sentences(description)
    if len(sentences) != 1:
        return None
    positive = _positive_requirement(sentences[0])
    if positive is None:
        return None
    return to_hypothesis(positive)
