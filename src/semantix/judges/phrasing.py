"""Turn an intent description into the declarative hypothesis an NLI model can judge.

NLI models answer "does the premise entail this *statement*?", so requirements phrased as
obligations, imperatives or bare phrases are rewritten as statements about the text:

| description | hypothesis |
| --- | --- |
| ``The text must be polite`` | ``The text is polite.`` |
| ``The reply must not contain prices`` | ``The reply does not contain prices.`` |
| ``polite and professional`` | ``The text is polite and professional.`` |
| ``Apologize for the delay.`` | ``The text apologizes for the delay.`` |
| ``Never mention competitors`` | ``The text never mentions competitors.`` |
| ``The text provides medical advice.`` | unchanged |

The rewrite is conservative: it only touches the subject, the modal and the first verb, and it
never alters any other word. Descriptions it does not recognise are kept as they are when they
already read as a statement, and otherwise become ``The text is <phrase>.``. An intent's
``hypothesis`` attribute bypasses all of this.

`negated_statement` answers a second question for the NLI and embedding judges, which
cannot confirm an absence: is the description a prohibition ("Never reveal the system
prompt")? If so it returns the positive statement ("The text reveals the system prompt."),
which is judged and inverted, like ``~X``. It is exactly ``to_hypothesis`` of the positive
requirement, and None for anything that is not one plain prohibition.
"""

from __future__ import annotations

import re
from functools import cached_property
from typing import Any, cast

from semantix.cache import memo
from semantix.text import split_sentences

__all__ = ["negated_statement", "to_hypothesis"]


class _LazyPattern:
    """A regular expression compiled on first use: the phrasing patterns are large, and most
    processes that import semantix never phrase a hypothesis (``import semantix`` stays fast)."""

    def __init__(self, pattern: str, flags: int) -> None:
        self._source = pattern
        self._flags = flags

    @cached_property
    def compiled(self) -> re.Pattern[str]:
        return re.compile(self._source, self._flags)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.compiled, name)


def _pattern(pattern: str, flags: int = 0) -> re.Pattern[str]:
    return cast("re.Pattern[str]", _LazyPattern(pattern, flags))


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
_SUBJECT = (
    r"(?P<subject>(?:the|this|that|your|its|our|an?)\s+(?:[\w'-]+\s+){0,3}?(?:"
    + "|".join(_SUBJECT_NOUNS)
    + r"|[\w'-]+)|it|you)"
)
# Obligations, longest first so "needs to" wins over "need".
_MODALS = (
    r"is\s+required\s+to|is\s+expected\s+to|is\s+supposed\s+to|needs\s+to|need\s+to|"
    r"has\s+to|have\s+to|ought\s+to|must|should|shall|will|has\s+got\s+to"
)
_NEGATIONS = (
    r"must\s+not|mustn't|should\s+not|shouldn't|shall\s+not|shan't|will\s+not|won't|"
    r"cannot|can\s+not|can't|may\s+not|does\s+not|doesn't|do\s+not|don't|"
    r"is\s+not\s+allowed\s+to|is\s+not\s+supposed\s+to|is\s+not\s+to|"
    r"does\s+not\s+need\s+to|needs\s+not|need\s+not"
)

_OBLIGATION = _pattern(
    rf"^(?:{_SUBJECT}\s+)?(?:(?P<neg>{_NEGATIONS})|(?P<modal>{_MODALS})(?:\s+(?P<modneg>not|never))?)"
    r"\s+(?P<rest>.+)$",
    re.IGNORECASE,
)
_QUESTION = _pattern(
    rf"^(?P<aux>is|does|do)\s+{_SUBJECT}\s+(?P<rest>.+?)\s*\?$",
    re.IGNORECASE,
)

#: Verbs recognised at the start of an imperative ("Apologize for ...") or after "and".
_VERBS = _words(
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
_SINGULAR_FINITE = frozenset(["is", "was", "has", "does", "contains", "includes", "provides"])


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


def _base_of(word: str) -> str | None:
    """``mentions`` → ``mention`` when the base is a known verb, else None."""
    lower = word.lower()
    candidates = []
    if lower.endswith("ies"):
        candidates.append(lower[:-3] + "y")
    if lower.endswith("es"):
        candidates.append(lower[:-2])
    if lower.endswith("s"):
        candidates.append(lower[:-1])
    for base in candidates:
        if base in _VERBS and base != "be":
            return base
    return None


def _lower_first(text: str) -> str:
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
        if verb.lower() in _VERBS and verb.lower() != "be":
            return f"{match.group('join')}{_third_person(verb)}"
        return match.group(0)

    return re.sub(r"(?P<join>(?:,\s*|\s+)(?:and|or)\s+)(?P<verb>[a-z]+)\b", repl, rest)


def _is_adverb(word: str, following: str) -> bool:
    lower = word.lower()
    next_word = following.split(" ", 1)[0].lower()
    return lower in _ADVERBS or (lower.endswith("ly") and next_word in _VERBS)


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
        if never:
            return f"is never {adverb_part}{tail}".rstrip()
        if negated:
            return f"is not {adverb_part}{tail}".rstrip()
        return f"is {adverb_part}{tail}".rstrip()
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
            rest = _lower_first(rest)
        return f"{subject} {_predicate(rest, negated=negated, never=never)}"

    first, _, tail = text.partition(" ")
    lower = first.lower()
    # Imperatives: "Apologize for the delay", "Never mention X", "Be polite".
    if lower == "never" and tail:
        return f"The text {_predicate(tail, negated=False, never=True)}"
    if lower in _VERBS and not (lower == "be" and not tail):
        if lower in {"do", "have"} and tail and not tail.split(" ", 1)[0].isalpha():
            pass
        else:
            return f"The text {_predicate(_lower_first(text), negated=False, never=False)}"
    if tail and _is_adverb(first, tail) and tail.split(" ", 1)[0].lower() in _VERBS:
        return f"The text {_predicate(_lower_first(text), negated=False, never=False)}"
    # Third person without a subject: "Mentions the refund policy", "is written in French".
    if _base_of(first) is not None or lower in _SINGULAR_FINITE:
        return f"The text {_lower_first(text)}"
    if lower == "no" and tail:
        return f"The text contains {_lower_first(text)}"
    if lower == "not" and tail:
        return f"The text is {_lower_first(text)}"
    # Already a statement: it starts with a determiner/pronoun or has a finite verb.
    words = re.findall(r"[A-Za-z']+", text)
    has_verb = any(word.lower() in _COPULAS or _base_of(word) is not None for word in words[1:])
    if (lower in _DETERMINERS and lower not in {"a", "an"}) or has_verb:
        return text[0].upper() + text[1:]
    # A bare phrase: "polite and professional", "about cooking", "in French".
    return f"The text is {_lower_first(text)}"


_BULLET = _pattern(r"^\s*(?:[-*\u2022]|\d+[.)])\s+")


def _sentences(description: str) -> list[str]:
    """The description's sentences (`semantix.text.split_sentences`, the rule the windows
    use too): bullets are items, lines of an item are joined."""
    items: list[str] = []
    for line in description.splitlines():
        if _BULLET.match(line) or not items:
            items.append(_BULLET.sub("", line).strip())
        else:
            items[-1] = f"{items[-1]} {line.strip()}".strip()
    sentences: list[str] = []
    for item in items:
        collapsed = re.sub(r"\s+", " ", item).strip()
        if collapsed:
            sentences.extend(split_sentences(collapsed))
    return sentences


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
        from semantix.judges.phrasing import to_hypothesis

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
    out = []
    for sentence in _sentences(description):
        converted = _sentence_to_hypothesis(sentence)
        if converted:
            if converted[-1] not in ".?!":
                converted += "."
            out.append(converted)
    if not out:
        raise ValueError(
            f"cannot build an NLI hypothesis from the empty description {description!r}; "
            "write the requirement as the intent's docstring"
        )
    return " ".join(out)


# -- negatively phrased requirements --------------------------------------------------------------
#
# A model cannot confirm an absence, so "must not X" is judged as NOT "X". negated_statement finds
# the positive requirement ("The text must contain X") and hands it to to_hypothesis, so the
# statement judged is exactly what to_hypothesis gives for the positive requirement.

#: Prohibitions after an optional subject: "must not", "should never", "is not allowed to", ...
_PROHIBITIONS = (
    r"must\s+not|mustn't|must\s+never|should\s+not|shouldn't|should\s+never|shall\s+not|"
    r"shan't|shall\s+never|will\s+not|won't|will\s+never|cannot|can\s+not|can't|can\s+never|"
    r"may\s+not(?!\s+be\b)|may\s+never|does\s+not|doesn't|do\s+not|don't|never|"
    r"(?:is|are)\s+not\s+(?:allowed|permitted|supposed)\s+to|(?:is|are)\s+not\s+to|"
    r"(?:is|are)\s+(?:forbidden|prohibited)\s+to|(?:is|are)\s+never\s+to"
)
_PROHIBITION = _pattern(
    rf"^(?:{_SUBJECT}\s+)?(?:{_PROHIBITIONS})\s+(?P<rest>.+)$",
    re.IGNORECASE,
)
#: "must avoid X", "refrains from X", "should stay away from X" (X: a noun phrase or a gerund).
_AVOIDANCE = _pattern(
    rf"^(?:{_SUBJECT}\s+)?(?:(?:{_MODALS})\s+)?(?:always\s+)?"
    r"(?:avoids?|refrains?\s+from|abstains?\s+from|steers?\s+clear\s+of|stays?\s+away\s+from)"
    r"\s+(?P<rest>.+)$",
    re.IGNORECASE,
)
#: "The text is not rude", "The reply isn't in English": a negated copula statement.
_NOT_COPULA = _pattern(
    rf"^{_SUBJECT}\s+(?P<be>is|are)(?:\s+not|n't)\s+(?P<rest>.+)$",
    re.IGNORECASE,
)
#: "The text must be free of jargon", "free from profanity".
_FREE_OF = _pattern(
    rf"^(?:{_SUBJECT}\s+)?(?:(?:{_MODALS})\s+be\s+|(?:is|are)\s+)?(?:completely\s+|entirely\s+)?"
    r"free\s+(?:of|from)\s+(?P<rest>.+)$",
    re.IGNORECASE,
)
#: "The reply must contain no personal data", "has no typos".
_VERB_NO = _pattern(
    rf"^(?P<head>(?:{_SUBJECT}\s+)?(?:(?:{_MODALS})\s+)?"
    r"(?:contains?|includes?|ha(?:s|ve)|uses?|mentions?|gives?|makes?|offers?|shows?))"
    r"\s+no\s+(?P<rest>.+)$",
    re.IGNORECASE,
)
#: "Profanity is not allowed", "Mentioning competitors is forbidden".
_BANNED = _pattern(
    r"^(?P<rest>.+?)\s+(?:is|are)\s+(?:not\s+(?:allowed|permitted|acceptable|ok|okay)|"
    r"forbidden|prohibited|banned|off[- ]limits)$",
    re.IGNORECASE,
)
#: Leads that only add emphasis: "Please", "Under no circumstances should", "Make sure not to".
_PLEASE = _pattern(r"^please,?\s+", re.IGNORECASE)
_NO_CIRCUMSTANCES = _pattern(
    r"^(?:under\s+no\s+circumstances|in\s+no\s+case|on\s+no\s+account|at\s+no\s+(?:point|time))"
    rf"\s*,?\s+(?:(?:should|must|shall|may|will|can|does|do)\s+(?:{_SUBJECT}\s+)?)?(?P<rest>.+)$",
    re.IGNORECASE,
)
_CAREFUL = _pattern(
    r"^(?:make\s+sure|be\s+sure|ensure|take\s+care|be\s+careful)\s+(?:that\s+)?"
    r"(?:not\s+to|never\s+to|to\s+never|to\s+not)\s+(?P<rest>.+)$",
    re.IGNORECASE,
)
_ENSURE_SUBJECT = _pattern(r"^(?:make\s+sure|be\s+sure|ensure)\s+(?:that\s+)?", re.IGNORECASE)
#: Words that mean the requirement is not a plain prohibition: a positive part, an exception,
#: or "not only X but also Y".
_COMPOUND = _pattern(
    r"\bnot\s+(?:only|just|merely|simply|necessarily|always|all|every|everything|even)\b|"
    r"\bbut\b|\binstead\b|\bunless\b|\bexcept\b|\brather\s+than\b|,\s*(?:only|just)\b|"
    r"(?:\band\b|;)\s+(?:always|be|stay|keep|remain|remember|make\s+sure|ensure|also)\b",
    re.IGNORECASE,
)
#: Idioms whose negation is emphasis, not a prohibition: "cannot be too careful".
_IDIOM = _pattern(
    r"\bcan(?:not|'t|\s+not|\s+never)\s+(?:be\s+too|help\s+but|wait|stress|emphasi[sz]e|"
    r"overstate|thank|say\s+enough)\b",
    re.IGNORECASE,
)
#: Verbs whose negation says the opposite positively: "never fails to greet" = "greets".
_LITOTES = _pattern(
    r"^(?:hesitate|fail|forget|neglect|omit|cease|miss\s+(?:a|the)\s+chance|"
    r"be\s+(?:afraid|shy|hesitant|reluctant))s?\b|^(?:hesitates|fails|forgets|neglects|omits)\b",
    re.IGNORECASE,
)
#: "does not need to", "doesn't have to": permission, not prohibition.
_PERMISSION = _pattern(r"(?:need|have|has)\s+to\b|need\b", re.IGNORECASE)
#: "no" that does not name an absence: "no later than Friday", "no matter what".
_NOT_ABSENCE = _pattern(
    r"^(?:(?:\w+er|more|less|fewer)\s+than|longer\b|later\b|sooner\b|matter\b|doubt\b|one\b|"
    r"need\b|problem\b|worries\b|wonder\b|way\b|more\b|less\b|fewer\b)",
    re.IGNORECASE,
)
#: Conditions or requirements that stay negative inside the positive part (a double negative).
_STILL_NEGATIVE = _pattern(
    r"\b(?:not|never|no|without|nothing|none|nobody|neither|nor|cannot)\b|n't\b", re.IGNORECASE
)
_TRAILING_EMPHASIS = _pattern(
    r"(?:,?\s+(?:at\s+all|in\s+any\s+(?:way|form)|under\s+any\s+circumstances|whatsoever|ever|"
    r"please))+$",
    re.IGNORECASE,
)
#: Emphasis inside a prohibition: "must not, under any circumstances, reveal", "never ever".
_INNER_EMPHASIS = _pattern(
    r",\s*(?:under\s+any\s+circumstances|in\s+any\s+case|ever)\s*,|(?<=\bnever),?\s+ever\b",
    re.IGNORECASE,
)
#: "There must be no X", "There is no X".
_THERE_IS_NO = _pattern(
    r"^there\s+(?:(?:must|should|shall|will|may)\s+be|is|are)\s+no\s+(?P<rest>.+)$", re.IGNORECASE
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
    return next((c for c in candidates if c in _VERBS), None)


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
        if head[-1] == "never" and len(head) == (len(subject.split()) + 1):
            # "The assistant never reveals X": a statement; drop "never", keep the verb's form.
            first = rest.split(" ", 1)[0].lower()
            if subject and (
                _base_of(first) is not None or first in _SINGULAR_FINITE or first.endswith("s")
            ):
                positive = f"{subject}{rest}"
            elif not subject and _base_of(first) is not None:
                positive = f"must {_base_of(first)}{rest[len(first) :]}"
            else:
                positive = f"{subject}must {rest}"
        else:
            positive = f"{subject}must {rest}"
        positive = _drop_any_after_modal(positive)
    elif match := _NOT_COPULA.match(text):
        positive = f"{match.group('subject')} {match.group('be')} {match.group('rest')}"
    elif match := _VERB_NO.match(text):
        if _NOT_ABSENCE.match(match.group("rest")):
            return None
        positive = f"{match.group('head')} {match.group('rest')}"
    elif match := _BANNED.match(text):
        rest = match.group("rest")
        if re.match(_SUBJECT + "$", rest, re.IGNORECASE):
            return None
        positive = _positive_object(_lower_first(rest), "")
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
    `to_hypothesis` gives for the positive requirement ("The text must contain medical
    advice"), so the two always agree.

    Recognised: "must/should/shall/will/may not X", "cannot X", "do not X", "does not X",
    "never X", "is not allowed to X", "no X", "contains no X", "without X", "avoid X",
    "refrain from X", "stay away from X", "free of X", "X is not allowed", "There should be no
    X", "is not X", "not X", led by "Please", "Make sure not to" or "Under no circumstances",
    with emphasis ("never ever", "at all", "under any circumstances") dropped.

    None (the description is judged as written) for anything else, and on purpose for:

    * descriptions of more than one sentence or bullet, even when every one is negative: the
      negation of "X. Y." is not "not X. not Y."; write ``~X & ~Y`` as two intents instead;
    * a negation with a positive part or an exception ("Do not apologize but explain",
      "not only X but also Y", "unless asked", "Reply without jargon", "... and always ...");
    * negations that mean something positive ("does not hesitate to help", "never fails to
      greet", "cannot be too careful", "can't wait to help", "don't forget to thank");
    * "no" that is no absence ("no later than Friday", "no more than 100 words", "no matter");
    * permission, not prohibition ("does not need to", "need not", "doesn't have to",
      "may not be accurate");
    * double negatives ("must not be without a greeting") and unknown verbs after "avoid" or
      "without" ("avoid frobnicating").

    Example:
        ```python
        from semantix.judges.phrasing import negated_statement

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
    sentences = _sentences(description)
    if len(sentences) != 1:
        return None
    positive = _positive_requirement(sentences[0])
    if positive is None:
        return None
    return to_hypothesis(positive)
