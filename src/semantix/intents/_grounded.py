"""Grounded answers: ``Grounded(sources)`` and ``Contradicts(sources)`` (docs/grounded.md).

Both build *support leaves*: intent classes that carry their sources, which the check sends to
the judge's declared support ability (``evaluate_support``), the source as the premise and each
claim sentence of the output as the hypothesis; a judge without it is an error at the call.
Sources are a str, a sequence of str, or documents read by duck typing (`source_texts`).
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Iterable, Mapping
from typing import ClassVar

from semantix._cache import memo
from semantix._files import encodable
from semantix._intent import Intent, IntentDescription, SupportDescription
from semantix.intents._factories import build_intent

__all__ = ["Contradicts", "Grounded", "SupportDescription", "SupportIntent", "source_texts"]

_CACHE_SIZE = 256  # distinct source sets remembered: the same sources give the same class
#: Most sources read from one argument (a retrieval step returns a handful, not thousands).
MAX_SOURCES = 1000


class SupportIntent(Intent, abstract=True):
    """Base of the intents `Grounded` and `Contradicts` build; ``sources`` are their texts."""

    sources: ClassVar[tuple[str, ...]]
    relation: ClassVar[str]
    requires: ClassVar[str | None] = "evaluate_support"

    @classmethod
    def judge_description(cls) -> IntentDescription:
        return SupportDescription(cls.description, sources=cls.sources, relation=cls.relation)


def Grounded(sources: object) -> type[Intent]:
    """The intent "every claim of the text is supported by ``sources``".

    The output is split into claim sentences; a claim's support is its best source window's
    entailment; the score is the weakest claim's support, so one unsupported claim fails the
    check, and the reason names every unsupported claim with its best window and score.

    Args:
        sources: a str, a sequence of str, or document objects with ``page_content``,
            ``text`` or ``get_content()``.

    Raises:
        TypeError: a source is not text and has no text field.
        ValueError: no source has any text.
    """
    return _support_intent("Grounded", source_texts(sources, factory="Grounded"))


def Contradicts(sources: object) -> type[Intent]:
    """The intent "some claim of the text is contradicted by ``sources``"; use it negated:
    ``~Contradicts(docs)`` passes when no claim is contradicted.

    The score is the strongest contradiction of any claim by any source window. It needs a judge
    that tells contradiction apart from "not supported" (a three-label NLI model, an LLM); a
    two-label NLI model is an error, never a guess. Arguments as `Grounded`.
    """
    return _support_intent("Contradicts", source_texts(sources, factory="Contradicts"))


#: What each factory's leaves ask, and the statement they make.
_RELATIONS = {
    "Grounded": ("support", "Every claim of the text is supported by the sources"),
    "Contradicts": ("contradiction", "Some claim of the text is contradicted by the sources"),
}


@memo(maxsize=_CACHE_SIZE)
def _support_intent(factory: str, sources: tuple[str, ...]) -> type[Intent]:
    relation, statement = _RELATIONS[factory]
    # The digest makes the description (hence the verdict memo's key) differ with the sources.
    digest = hashlib.sha256("\x00".join(sources).encode("utf-8")).hexdigest()[:12]
    count = f"{len(sources)} source" + ("s" if len(sources) != 1 else "")
    about = f"{count}, {sum(map(len, sources)):,} characters, sha256 {digest}"
    return build_intent(
        SupportIntent,
        f"{factory}({count})",
        f"{statement} ({about}).",
        sources=sources,
        relation=relation,
    )


def source_texts(sources: object, *, factory: str = "Grounded") -> tuple[str, ...]:
    """The texts of ``sources``, cleaned as outputs are (lone surrogates become U+FFFD:
    `semantix._files.encodable`), NFC-normalised and stripped, blank ones dropped.

    Raises:
        TypeError: ``sources`` or one of its items is neither text nor a document with a text
            field (``page_content``, ``text``, ``get_content()``).
        ValueError: no text is left, or more than `MAX_SOURCES` sources.
    """
    if isinstance(sources, (str, bytes)) or _text_of(sources) is not None:
        items: list[object] = [sources]
    elif isinstance(sources, Iterable) and not isinstance(sources, Mapping):
        items = list(sources)
    else:
        raise TypeError(
            f"{factory}() needs the sources as a str, a list of str or documents with "
            f"page_content / text / get_content(), got {type(sources).__name__} "
            f"{sources!r:.80}; e.g. {factory}(['Refunds take 14 days.'])"
        )
    if len(items) > MAX_SOURCES:
        raise ValueError(
            f"{factory}() got {len(items):,} sources, over the {MAX_SOURCES:,} it reads; pass "
            "the documents retrieved for this answer, not a corpus"
        )
    texts = []
    for position, item in enumerate(items, start=1):
        text = _text_of(item)
        if text is None:
            raise TypeError(
                f"{factory}() source {position} is {type(item).__name__} ({item!r:.80}), which is "
                "not a str and has no page_content, text or get_content(); pass its text"
            )
        text = unicodedata.normalize("NFC", encodable(text)).strip()
        if text:
            texts.append(text)
    if not texts:
        raise ValueError(
            f"{factory}() got no source text ({len(items)} sources, all empty): an answer "
            "cannot be checked against nothing, and an empty check is never a pass; pass the "
            "documents the answer was built on"
        )
    return tuple(texts)


def _text_of(item: object) -> str | None:
    if isinstance(item, (str, bytes)):
        return item if isinstance(item, str) else None
    for name in ("page_content", "text"):
        value = getattr(item, name, None)
        if isinstance(value, str):
            return value
    get_content = getattr(item, "get_content", None)
    value = get_content() if callable(get_content) else None
    return value if isinstance(value, str) else None


SupportIntent.__module__ = "semantix.intents"
