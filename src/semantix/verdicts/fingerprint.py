"""The store key of one check: what a frozen verdict is a verdict *about*.

sha256 of the judge's identity (a local model directory by the digest of its files), its
``prompt_version``, the output normalised by `normalise_text` and the intent's fields
(`intent_fields`); the recipe is docs/frozen-verdicts.md's ("The fingerprint"). The threshold
is **not** part of it (see `semantix.verdicts.record.decision_at`).
"""

from __future__ import annotations

import unicodedata
from typing import Any

from semantix.intent import EquivalenceDescription
from semantix.judges.calls import judge_identity

__all__ = [
    "FORMAT_VERSION",
    "fingerprint",
    "intent_fields",
    "normalise_text",
    "prompt_version",
    "sources_digest",
]

#: Version of the fingerprint recipe and of the file layout.
FORMAT_VERSION = 1


def normalise_text(text: str) -> str:
    """Text as fingerprinted: NFC, ``\\n`` newlines, no trailing spaces on lines, stripped."""
    text = unicodedata.normalize("NFC", str(text))
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return "\n".join(line.rstrip() for line in text.split("\n")).strip()


def prompt_version(judge: object) -> str | None:
    """The judge's ``prompt_version`` when it is a string (LLM judges), else None."""
    version = getattr(judge, "prompt_version", None)
    return version if isinstance(version, str) else None


def intent_fields(intent_description: str) -> dict[str, Any]:
    """The parts of an intent that a verdict depends on, as stored and fingerprinted."""
    hypothesis = getattr(intent_description, "hypothesis", None)
    fields: dict[str, Any] = {
        "description": normalise_text(intent_description),
        "hypothesis": hypothesis if isinstance(hypothesis, str) else None,
        "examples": [str(e) for e in getattr(intent_description, "examples", ()) or ()],
        "counterexamples": [
            str(e) for e in getattr(intent_description, "counterexamples", ()) or ()
        ],
    }
    if isinstance(intent_description, EquivalenceDescription):  # a snapshot's one question
        fields["kind"] = "equivalence"
    sources = getattr(intent_description, "sources", None)  # a support leaf's SupportDescription
    if isinstance(sources, tuple):  # other intents' keys are unchanged
        fields["relation"] = str(getattr(intent_description, "relation", ""))
        fields["sources"] = sources_digest(sources)
    return fields


def sources_digest(sources: tuple[str, ...]) -> str:
    """sha256 hex of the sources, each normalised (`normalise_text`), in order."""
    return _sha256([normalise_text(source) for source in sources])


def fingerprint(judge: object, output: str, intent_description: str) -> str:
    """The store key of (judge identity, prompt version, normalised output, intent): sha256 hex."""
    identity = judge_identity(judge)
    # A local model directory is keyed by its digest: its name is for people, as its place.
    model = identity.model if identity.location is None else None
    return _key(
        [identity.name, model, identity.revision, identity.file], judge, output, intent_description
    )


def _key(named: list[str | None], judge: object, output: str, intent_description: str) -> str:
    payload = {
        "format": FORMAT_VERSION,
        "judge": named,
        "prompt_version": prompt_version(judge),
        "output": normalise_text(output),
        "intent": intent_fields(intent_description),
    }
    return _sha256(payload, sort_keys=True, separators=(",", ":"))


def _sha256(value: object, **options: Any) -> str:
    """sha256 hex of ``value`` as JSON (json and hashlib imported when a store is first used)."""
    import hashlib
    import json

    canonical = json.dumps(value, ensure_ascii=False, **options)
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()
