"""One frozen verdict: the decision, what it was a decision about, and its file format (UTF-8
JSON, sorted keys, indent 2). Reading checks every field's type (``StoredVerdict.from_json()``);
the store writes only what this reader accepts, so a file it wrote can always be replayed.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from typing import Any

from semantix._cache import memo
from semantix._config import is_number
from semantix._text import mask_secrets, usable_secrets
from semantix.judges._base import JudgeIdentity, TokenUsage, Verdict
from semantix.judges._calls import judge_identity
from semantix.verdicts._fingerprint import (
    FORMAT_VERSION,
    intent_fields,
    normalise_text,
    prompt_version,
)
from semantix.verdicts._modes import RECORD_HINT

__all__ = ["PREVIEW_CHARS", "StoredVerdict", "decision_at", "replayable"]

#: How much of the output a stored file shows (the fingerprint covers all of it).
PREVIEW_CHARS = 500
#: The optional fields of a judge's identity that a stored file names (its note only when set).
_JUDGE_FIELDS = ("model", "revision", "file")


def decision_at(
    passed: bool, score: float | None, recorded: float | None, threshold: float
) -> bool | None:
    """Whether a verdict recorded at ``recorded`` passes at ``threshold``; None when unknown
    (the rule, for judges that need more than the score: docs/frozen-verdicts.md)."""
    if same_threshold(recorded, threshold):
        return passed
    if score is None:
        return None
    if passed:
        return score >= threshold
    if recorded is not None and score >= recorded:
        return False
    return False if score < threshold else None


def same_threshold(recorded: float | None, current: float) -> bool:
    """Whether ``current`` is the threshold a verdict was recorded at."""
    return recorded is not None and math.isclose(recorded, current, abs_tol=1e-12)


def replayable(verdict: Verdict, judge: object, threshold: float, *, cost: bool = False) -> Verdict:
    """``verdict`` as a replay keeps it: decided at its threshold (else ``threshold``, the one it
    was asked at), named, without the latency and token usage that only the first answer cost
    (``cost=True`` keeps them: the first answer, so a later memo hit is ``==`` to it, as
    semantix-ai's ``CachingJudge`` promised). A plain verdict that already is that form is
    returned as it is."""
    if (
        type(verdict) is Verdict
        and verdict.threshold is not None
        and verdict.judge is not None
        and (cost or (verdict.latency_ms is None and verdict.usage is None))
    ):
        return verdict
    return Verdict(
        passed=verdict.passed,
        score=verdict.score,
        reason=verdict.reason,
        threshold=verdict.threshold if verdict.threshold is not None else threshold,
        probabilities=verdict.probabilities,
        evidence=verdict.evidence,
        judge=verdict.judge or judge_identity(judge),
        latency_ms=verdict.latency_ms if cost else None,
        usage=verdict.usage if cost else None,
    )


def replay_at(verdict: Verdict, threshold: float, *, exact: bool = False) -> Verdict | None:
    """A remembered verdict (`replayable`) at ``threshold``; None when unknown there (with
    ``exact``, strict mode, at any other threshold than its own)."""
    if same_threshold(verdict.threshold, threshold):
        return verdict
    if exact:
        return None
    passed = decision_at(verdict.passed, verdict.score, verdict.threshold, threshold)
    if passed is None:
        return None
    return replace(verdict, passed=passed, threshold=threshold)


@memo(maxsize=1)
def _semantix_version() -> str:
    # importlib.metadata costs a fifth of `import semantix` (email, zipfile): only when recording.
    from importlib import metadata

    try:
        return metadata.version("semantix-judge")
    except metadata.PackageNotFoundError:  # a source tree on sys.path, not installed
        return "unknown"


@dataclass(frozen=True, slots=True)
class StoredVerdict:
    """A verdict as kept in the store: the decision, and what it was a decision about."""

    fingerprint: str
    passed: bool
    score: float | None
    threshold: float | None
    reason: str | None
    judge: JudgeIdentity
    prompt_version: str | None = None
    intent: Mapping[str, Any] = field(default_factory=lambda: intent_fields(""))
    output_preview: str = ""
    output_chars: int = 0
    probabilities: Mapping[str, float] | None = None
    evidence: str | None = None
    usage: TokenUsage | None = None
    latency_ms: float | None = None
    recorded_at: str = ""
    semantix_version: str = ""

    def __repr__(self) -> str:
        score = "n/a" if self.score is None else f"{self.score:.3f}"
        return (
            f"<StoredVerdict {self.fingerprint[:12]} {'PASS' if self.passed else 'FAIL'} "
            f"score={score} judge={self.judge}>"
        )

    @classmethod
    def from_verdict(
        cls,
        key: str,
        verdict: Verdict,
        judge: object,
        output: str,
        intent_description: str,
        *,
        threshold: float | None = None,
        secrets: Iterable[object] = (),
    ) -> StoredVerdict:
        """Capture a fresh verdict of ``judge`` for storing, stamped with the time and version
        (``threshold``: the one asked at, kept when the verdict does not say); each of
        ``secrets`` (an API key) is masked in the reason, the evidence and the output preview."""
        hidden = usable_secrets(secrets)
        text = mask_secrets(normalise_text(output), hidden)
        return cls(
            fingerprint=key,
            passed=verdict.passed,
            score=verdict.score,
            threshold=verdict.threshold if verdict.threshold is not None else threshold,
            reason=None if verdict.reason is None else mask_secrets(verdict.reason, hidden),
            judge=verdict.judge or judge_identity(judge),
            prompt_version=prompt_version(judge),
            intent=intent_fields(intent_description),
            output_preview=text[:PREVIEW_CHARS],
            output_chars=len(text),
            probabilities=verdict.probabilities,
            evidence=None if verdict.evidence is None else mask_secrets(verdict.evidence, hidden),
            usage=verdict.usage,
            latency_ms=verdict.latency_ms,
            recorded_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
            semantix_version=_semantix_version(),
        )

    def replayable(self) -> Verdict:
        """This verdict as recorded (its own threshold), as a ``Verdict`` to replay."""
        return Verdict(
            passed=self.passed,
            score=self.score,
            reason=self.reason,
            threshold=self.threshold,
            probabilities=self.probabilities,
            evidence=self.evidence,
            judge=self.judge,
        )

    def threshold_message(self, threshold: float, *, exact: bool) -> str:
        """Why this verdict cannot be replayed at ``threshold``, and what to do."""
        if exact:
            why = "strict mode replays a verdict only at the threshold it was recorded at"
        elif self.score is None:
            why = "it has no score to decide again against the new threshold"
        else:
            why = "its score alone cannot tell how the judge would decide at the new threshold"
        recorded = "none" if self.threshold is None else f"{self.threshold:.2f}"
        return (
            f"the frozen verdict {self.fingerprint[:12]} was recorded at threshold {recorded} "
            f"and is asked for at {threshold:.2f}, and {why}; delete its file and {RECORD_HINT}"
        )

    def to_json(self) -> str:
        """The reviewable file content, or a ValueError for a NaN or infinite number."""
        verdict: dict[str, Any] = {
            "passed": self.passed,
            "score": self.score,
            "threshold": self.threshold,
            "reason": self.reason,
        }
        if self.probabilities is not None:
            verdict["probabilities"] = dict(self.probabilities)
        if self.evidence is not None:
            verdict["evidence"] = self.evidence
        if self.usage is not None:
            verdict["usage"] = asdict(self.usage)
        if self.latency_ms is not None:
            verdict["latency_ms"] = round(self.latency_ms, 1)
        document = {
            "format": FORMAT_VERSION,
            "fingerprint": self.fingerprint,
            "judge": {
                "display": str(self.judge),
                **{name: getattr(self.judge, name) for name in ("name", *_JUDGE_FIELDS)},
                "prompt_version": self.prompt_version,
                **({"note": self.judge.note} if self.judge.note is not None else {}),
            },
            "intent": dict(self.intent),
            "output": {"preview": self.output_preview, "chars": self.output_chars},
            "verdict": verdict,
            "recorded_at": self.recorded_at,
            "semantix_version": self.semantix_version,
        }
        text = json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False)
        # A lone surrogate cannot be UTF-8: write it as the JSON escape it reads back as.
        return text.encode("utf-8", "backslashreplace").decode("utf-8") + "\n"

    @classmethod
    def from_json(cls, text: str, *, expected_key: str) -> StoredVerdict:
        """Parse a stored file, or raise a ValueError naming the field at fault (or the
        fingerprint, when it is not ``expected_key``)."""
        document = _Fields(json.loads(text), "")
        if document.get("fingerprint", str) != expected_key:
            raise ValueError(
                f"its fingerprint {document.raw.get('fingerprint')!r} does not match its file name"
            )
        version = document.get("format", int)
        if version != FORMAT_VERSION:
            raise ValueError(
                f"the field 'format' is {version!r}; this semantix reads format {FORMAT_VERSION}"
            )
        judge = document.section("judge")
        intent = document.section("intent")
        output = document.section("output")
        verdict = document.section("verdict")
        usage = verdict.optional_section("usage")
        return cls(
            fingerprint=expected_key,
            passed=verdict.get("passed", bool),
            score=verdict.number("score", high=1.0),
            threshold=verdict.number("threshold", high=1.0),
            reason=verdict.get("reason", str, optional=True),
            judge=JudgeIdentity(
                judge.get("name", str),
                **{name: judge.get(name, str, optional=True) for name in (*_JUDGE_FIELDS, "note")},
            ),
            prompt_version=judge.get("prompt_version", str, optional=True),
            intent={
                "description": intent.get("description", str),
                "hypothesis": intent.get("hypothesis", str, optional=True),
                "examples": intent.strings("examples"),
                "counterexamples": intent.strings("counterexamples"),
            },
            output_preview=output.get("preview", str),
            output_chars=output.count("chars"),
            probabilities=verdict.probabilities("probabilities"),
            evidence=verdict.get("evidence", str, optional=True),
            usage=None
            if usage is None
            else TokenUsage(usage.count("prompt_tokens"), usage.count("completion_tokens")),
            latency_ms=verdict.number("latency_ms"),
            recorded_at=document.get("recorded_at", str),
            semantix_version=document.get("semantix_version", str),
        )


class _Fields:
    """One JSON object of a stored file, read field by field with its type checked."""

    def __init__(self, raw: object, path: str) -> None:
        if not isinstance(raw, dict):
            where = f"the field {path!r}" if path else "the file"
            raise ValueError(f"{where} is {_kind(raw)}, expected a JSON object")  # noqa: TRY004
        self.raw: dict[str, Any] = raw
        self.path = path

    def _name(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def get(self, key: str, kind: type, *, optional: bool = False) -> Any:
        value = self.raw.get(key)
        if value is None and optional:
            return None
        if key not in self.raw:
            raise ValueError(f"the field {self._name(key)!r} is missing")
        if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
            expected = f"a {kind.__name__}" + (" or null" if optional else "")
            raise ValueError(f"the field {self._name(key)!r} is {value!r:.80}, expected {expected}")
        return value

    def section(self, key: str) -> _Fields:
        if key not in self.raw:
            raise ValueError(f"the field {self._name(key)!r} is missing")
        return _Fields(self.raw[key], self._name(key))

    def optional_section(self, key: str) -> _Fields | None:
        return None if self.raw.get(key) is None else self.section(key)

    def number(self, key: str, *, high: float = math.inf, null: bool = True) -> float | None:
        """A finite number in [0, high] (None for null, when ``null`` allows it)."""
        value = self.raw.get(key)
        if value is None and null:
            return None
        if not is_number(value, low=0.0, high=high):
            bounds = f"between 0 and {high:g}" if math.isfinite(high) else ">= 0"
            shown = "null" if value is None else f"{value!r:.80}"
            raise ValueError(
                f"the field {self._name(key)!r} is {shown}, expected a number {bounds}"
                + (" or null" if null else "")
            )
        return float(value)

    def count(self, key: str) -> int:
        value = self.get(key, int)
        if value < 0:
            raise ValueError(f"the field {self._name(key)!r} is {value}, expected a count >= 0")
        return int(value)

    def strings(self, key: str) -> list[str]:
        value = self.get(key, list)
        if not all(isinstance(item, str) for item in value):
            raise ValueError(f"the field {self._name(key)!r} must be a list of strings")
        return list(value)

    def probabilities(self, key: str) -> dict[str, float] | None:
        section = self.optional_section(key)
        if section is None:
            return None
        return {
            label: float(section.number(label, high=1.0, null=False) or 0) for label in section.raw
        }


def _kind(value: object) -> str:
    return "null" if value is None else f"a {type(value).__name__} ({value!r:.40})"
