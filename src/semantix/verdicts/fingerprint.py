"""The store key of one check: what a frozen verdict is a verdict *about*.

A verdict is stored under ``sha256`` of: the judge's identity (every field of its
``JudgeIdentity``, as ``semantix.judges.calls.judge_identity()`` names it: class, model,
revision, file), its ``prompt_version`` if it has one, the output normalised by
``normalise_text()`` (Unicode NFC, ``\\r\\n`` → ``\\n``, no trailing spaces on lines,
stripped), and the intent description with its ``hypothesis``, ``examples`` and
``counterexamples`` — for a support leaf (``Grounded``, ``Contradicts``) also its relation and
the sha256 of its normalised sources, in order (the sources themselves are not stored). The
threshold is **not** part of it (see
``StoredVerdict.decision_at()``).
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
    import hashlib
    import json

    canonical = json.dumps([normalise_text(source) for source in sources], ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


def fingerprint(judge: object, output: str, intent_description: str) -> str:
    """The store key of (judge identity, prompt version, normalised output, intent): sha256 hex."""
    identity = judge_identity(judge)
    payload = {
        "format": FORMAT_VERSION,
        "judge": [identity.name, identity.model, identity.revision, identity.file],
        "prompt_version": prompt_version(judge),
        "output": normalise_text(output),
        "intent": intent_fields(intent_description),
    }
    import json  # stdlib, imported when a store is first used (import semantix stays fast)

    canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    import hashlib  # stdlib, imported when a store is first used (import semantix stays fast)

    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()
