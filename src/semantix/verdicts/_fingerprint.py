"""The store key of one check: what a frozen verdict is a verdict *about*.

sha256 of the judge's identity (a local model directory by the digest of its files), its
``prompt_version`` and the request's one key (`semantix.judges._request.RequestKey`: the output
normalised by `normalise_text` and the intent's fields, the key the in-run memo uses too); the
recipe is docs/frozen-verdicts.md's ("The fingerprint"). The threshold is **not** part of it
(see `semantix.verdicts._record.decision_at`).
"""

from __future__ import annotations

from semantix.judges._base import judge_identity
from semantix.judges._request import Request, RequestKey, intent_fields, normalise_text, sha256_json

__all__ = [
    "FORMAT_VERSION",
    "fingerprint",
    "fingerprint_of",
    "intent_fields",
    "normalise_text",
    "prompt_version",
]

#: Version of the fingerprint recipe and of the file layout.
FORMAT_VERSION = 1


def prompt_version(judge: object) -> str | None:
    """The judge's ``prompt_version`` when it is a string (LLM judges), else None."""
    version = getattr(judge, "prompt_version", None)
    return version if isinstance(version, str) else None


def fingerprint(judge: object, output: str, intent_description: str) -> str:
    """The store key of (judge identity, prompt version, normalised output, intent): sha256 hex."""
    return fingerprint_of(judge, Request(output, intent_description, 0.0).key())


def fingerprint_of(judge: object, key: RequestKey) -> str:
    """`fingerprint` of a request's `RequestKey`."""
    identity = judge_identity(judge)
    # A local model directory is keyed by its digest: its name is for people, as its place.
    model = identity.model if identity.location is None else None
    payload = {
        "format": FORMAT_VERSION,
        "judge": [identity.name, model, identity.revision, identity.file],
        "prompt_version": prompt_version(judge),
        "output": key.output,
        "intent": key.intent_fields(),
    }
    return sha256_json(payload, sort_keys=True, separators=(",", ":"))
