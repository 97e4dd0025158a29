"""What a check asks a judge: one typed `Request` (the ``(output, intent_description,
threshold)`` triple judges take; what it asks — a statement, support against sources, equivalence
to a stored text — is declared by the description) and its one `RequestKey`, the key of the
in-run memo and of the frozen-verdict fingerprint (docs/frozen-verdicts.md, "The fingerprint").
"""

from __future__ import annotations

import unicodedata
from typing import Any, NamedTuple

__all__ = ["Request", "RequestKey", "intent_fields", "normalise_text", "sources_digest"]

#: What a request asks (`Request.asks`): a statement, support against sources, equivalence.
ASKS = ("statement", "support", "equivalence")


def normalise_text(text: str) -> str:
    """Text as fingerprinted: NFC, ``\\n`` newlines, no trailing spaces on lines, stripped."""
    text = unicodedata.normalize("NFC", str(text))
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return "\n".join(map(str.rstrip, text.split("\n"))).strip()


def sources_digest(sources: tuple[str, ...]) -> str:
    """sha256 hex of the sources, each normalised (`normalise_text`), in order."""
    return sha256_json([normalise_text(source) for source in sources])


def sha256_json(value: object, **options: Any) -> str:
    """sha256 hex of ``value`` as JSON (json and hashlib imported on first use)."""
    import hashlib
    import json

    canonical = json.dumps(value, ensure_ascii=False, **options)
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


class RequestKey(NamedTuple):
    """A request without its threshold, as a verdict is kept: the normalised output and what
    was asked (`intent_fields` gives the stored form). A tuple: hashed at C speed."""

    output: str
    description: str
    hypothesis: str | None
    examples: tuple[str, ...]
    counterexamples: tuple[str, ...]
    asks: str = "statement"
    relation: str | None = None
    sources: str | None = None  #: `sources_digest` of a support request's sources

    def intent_fields(self) -> dict[str, Any]:
        """The parts of the intent a verdict depends on, as stored and fingerprinted."""
        fields: dict[str, Any] = {
            "description": self.description,
            "hypothesis": self.hypothesis,
            "examples": list(self.examples),
            "counterexamples": list(self.counterexamples),
        }
        if self.asks == "equivalence":
            fields["kind"] = "equivalence"
        if self.sources is not None:
            fields["relation"] = self.relation
            fields["sources"] = self.sources
        return fields


class Request(NamedTuple):
    """One question to a judge: ``(output, description, threshold)``, typed."""

    output: str
    description: str
    threshold: float

    @property
    def asks(self) -> str:
        """``statement``, ``support`` or ``equivalence``, as the description declares."""
        asks = getattr(self.description, "asks", "statement")
        return asks if asks in ASKS else "statement"

    def key(self) -> RequestKey:
        """The one key of this request (module docstring)."""
        description, asks = self.description, self.asks
        hypothesis = getattr(description, "hypothesis", None)
        sources = getattr(description, "sources", None)
        if asks != "support" or not isinstance(sources, tuple):
            sources = None
        return RequestKey(
            output=normalise_text(self.output),
            description=normalise_text(description),
            hypothesis=hypothesis if isinstance(hypothesis, str) else None,
            examples=tuple(map(str, getattr(description, "examples", ()) or ())),
            counterexamples=tuple(map(str, getattr(description, "counterexamples", ()) or ())),
            asks=asks,
            relation=None if sources is None else str(getattr(description, "relation", "")),
            sources=None if sources is None else sources_digest(sources),
        )


def intent_fields(intent_description: str) -> dict[str, Any]:
    """The parts of an intent that a verdict depends on, as stored and fingerprinted."""
    return Request("", intent_description, 0.0).key().intent_fields()
