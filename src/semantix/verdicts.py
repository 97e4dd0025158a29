"""Frozen verdicts: record a judge's verdicts once, replay them in CI bit for bit.

```python
import tempfile

from semantix import FakeJudge, assert_semantic
from semantix.verdicts import CachingJudge

store = tempfile.mkdtemp()  # default: .semantix/verdicts in the current directory
judge = CachingJudge(FakeJudge(lambda output, intent: 0.9), mode="update", store=store)
assert_semantic("Thank you!", "polite", judge=judge)   # judged, and stored in `store`
replay = CachingJudge(FakeJudge(lambda o, i: 0.0), mode="replay", store=store)
assert_semantic("Thank you!", "polite", judge=replay)  # read from `store`; judge not called
```

**Fingerprint.** A verdict is stored under ``sha256`` of: the judge's identity (every field of
its :class:`~semantix.JudgeIdentity`: class, model, revision, file), its ``prompt_version`` if it
has one, the output normalised by :func:`normalise_text` (Unicode NFC, ``\\r\\n`` → ``\\n``, no
trailing spaces on lines, stripped), and the intent description with its ``hypothesis``,
``examples`` and ``counterexamples``. The threshold is **not** part of it: the score is stored
and, when the current threshold differs from the recorded one, the verdict is decided again
from the score as far as the record tells (:meth:`StoredVerdict.decision_at`), so changing a
threshold rarely needs re-recording (``strict`` mode excepted).

**Files.** ``<store>/<fingerprint[:2]>/<fingerprint>.json``, sorted keys, indent 2, UTF-8:
small enough to review in a pull request. Written to a temporary file in the same directory and
moved into place with ``os.replace``, so concurrent writers (threads, xdist workers) never leave
a partial file; the last writer of the same verdict wins.

**Modes** (``mode=``, else ``SEMANTIX_VERDICTS``, else ``off``):

| mode | stored verdict | no stored verdict |
| --- | --- | --- |
| ``off`` | not read | the judge is called; nothing is written |
| ``replay`` | replayed (re-decided if the threshold changed) | :class:`~semantix.VerdictNotRecordedError` |
| ``update`` | replayed (re-decided if the threshold changed) | the judge is called and the verdict stored |
| ``strict`` | replayed only at the threshold it was recorded at, else an error | :class:`~semantix.VerdictNotRecordedError` |

In ``replay`` and ``strict`` mode the judge is never called. The store directory is ``store=``,
else ``SEMANTIX_VERDICTS_PATH``, else ``.semantix/verdicts`` under the current directory (resolved
when the :class:`VerdictStore` is created).

**Memo.** In every mode, a :class:`CachingJudge` also remembers each verdict in memory, so the same
(judge, output, intent) is judged — or read from disk — once per ``CachingJudge``, even from
several threads at once.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import tempfile
import threading
import time
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from semantix.errors import (
    ConfigurationError,
    CorruptVerdictError,
    JudgeError,
    VerdictNotRecordedError,
    VerdictStoreError,
)
from semantix.judges.base import Judge, JudgeIdentity, JudgeRequest, TokenUsage, Verdict

__all__ = [
    "DEFAULT_PATH",
    "MODES",
    "CachingJudge",
    "StoredVerdict",
    "VerdictStats",
    "VerdictStore",
    "fingerprint",
    "identity_of",
    "normalise_text",
    "resolve_mode",
    "wrap_judge",
]

#: The modes a :class:`CachingJudge` runs in.
MODES: tuple[str, ...] = ("off", "replay", "update", "strict")

#: Environment variable naming the mode when ``mode=`` is not given.
MODE_VARIABLE = "SEMANTIX_VERDICTS"
#: Environment variable naming the store directory when ``store=``/``path=`` is not given.
PATH_VARIABLE = "SEMANTIX_VERDICTS_PATH"
#: Store directory, relative to the current directory, when nothing else says where.
DEFAULT_PATH = Path(".semantix") / "verdicts"

#: Version of the fingerprint recipe and of the file layout.
FORMAT_VERSION = 1
#: How much of the output a stored file shows (the fingerprint covers all of it).
PREVIEW_CHARS = 500

_RECORD_HINT = (
    "record it by running once with the judge available and SEMANTIX_VERDICTS=update "
    "(pytest: --semantic-verdicts update), then commit the new file"
)


# --- configuration -----------------------------------------------------------------------------


def resolve_mode(mode: str | None = None) -> str:
    """The mode to use: ``mode`` if given, else ``SEMANTIX_VERDICTS``, else ``"off"``."""
    source = "mode="
    if mode is None:
        mode = os.environ.get(MODE_VARIABLE) or "off"
        source = MODE_VARIABLE
    if not isinstance(mode, str) or mode.strip().lower() not in MODES:
        raise ConfigurationError(
            f"{source} {mode!r} is not a frozen-verdict mode; use one of {', '.join(MODES)}"
        )
    return mode.strip().lower()


def default_store_path() -> Path:
    """``SEMANTIX_VERDICTS_PATH`` if set, else ``.semantix/verdicts`` in the current directory."""
    configured = os.environ.get(PATH_VARIABLE)
    path = Path(configured).expanduser() if configured else DEFAULT_PATH
    return path.absolute()


# --- fingerprint -------------------------------------------------------------------------------


def normalise_text(text: str) -> str:
    """Text as fingerprinted: NFC, ``\\n`` newlines, no trailing spaces on lines, stripped."""
    text = unicodedata.normalize("NFC", str(text))
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return "\n".join(line.rstrip() for line in text.split("\n")).strip()


def identity_of(judge: object) -> JudgeIdentity:
    """The judge's ``identity``, or one made of its class's import path."""
    identity = getattr(judge, "identity", None)
    if isinstance(identity, JudgeIdentity):
        return identity
    cls = type(judge)
    return JudgeIdentity(f"{cls.__module__}.{cls.__qualname__}")


def _prompt_version(judge: object) -> str | None:
    version = getattr(judge, "prompt_version", None)
    return version if isinstance(version, str) else None


def _intent_fields(intent_description: str) -> dict[str, Any]:
    hypothesis = getattr(intent_description, "hypothesis", None)
    return {
        "description": normalise_text(intent_description),
        "hypothesis": hypothesis if isinstance(hypothesis, str) else None,
        "examples": [str(e) for e in getattr(intent_description, "examples", ()) or ()],
        "counterexamples": [
            str(e) for e in getattr(intent_description, "counterexamples", ()) or ()
        ],
    }


def fingerprint(judge: object, output: str, intent_description: str) -> str:
    """The store key of (judge identity, prompt version, normalised output, intent): sha256 hex."""
    identity = identity_of(judge)
    payload = {
        "format": FORMAT_VERSION,
        "judge": [identity.name, identity.model, identity.revision, identity.file],
        "prompt_version": _prompt_version(judge),
        "output": normalise_text(output),
        "intent": _intent_fields(intent_description),
    }
    canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


# --- one stored verdict ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StoredVerdict:
    """A verdict as kept in the store: the decision, and what it was a decision about."""

    fingerprint: str
    passed: bool
    score: float | None
    threshold: float | None
    reason: str
    judge: JudgeIdentity
    prompt_version: str | None = None
    intent: Mapping[str, Any] = field(default_factory=dict)
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
    ) -> StoredVerdict:
        """Capture a fresh verdict of ``judge`` for storing.

        ``threshold`` is the one the judge was asked at, kept when the verdict does not say.
        """
        from semantix import __version__

        text = normalise_text(output)
        return cls(
            fingerprint=key,
            passed=verdict.passed,
            score=verdict.score,
            threshold=verdict.threshold if verdict.threshold is not None else threshold,
            reason=verdict.reason,
            judge=verdict.judge or identity_of(judge),
            prompt_version=_prompt_version(judge),
            intent=_intent_fields(intent_description),
            output_preview=text[:PREVIEW_CHARS],
            output_chars=len(text),
            probabilities=verdict.probabilities,
            evidence=verdict.evidence,
            usage=verdict.usage,
            latency_ms=verdict.latency_ms,
            recorded_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
            semantix_version=__version__,
        )

    def decision_at(self, threshold: float) -> bool | None:
        """Whether this verdict passes at ``threshold``, or None when that cannot be known.

        Judges may require more than ``score >= threshold`` (the embedding judge also needs the
        output closer to an example than to any counterexample), so a recorded verdict is
        re-decided only as far as it tells:

        - at the recorded threshold: as recorded;
        - it passed: the extra conditions held, so ``score >= threshold``;
        - it failed although ``score`` reached the recorded threshold: something other than the
          score failed, so it fails at every threshold;
        - it failed below the recorded threshold: it fails at any higher threshold; at a lower
          one nothing is known (None: the judge must be asked again).
        """
        if _same_threshold(self.threshold, threshold):
            return self.passed
        if self.score is None:
            return None
        if self.passed:
            return self.score >= threshold
        if self.threshold is not None and self.score >= self.threshold:
            return False
        return False if self.score < threshold else None

    def usable_at(self, threshold: float) -> bool:
        """Whether this verdict can be replayed at ``threshold`` (see :meth:`decision_at`)."""
        return self.decision_at(threshold) is not None

    def to_verdict(self, threshold: float, *, exact: bool = False) -> Verdict:
        """This verdict at ``threshold``: as recorded, or re-decided (see :meth:`decision_at`).

        With ``exact=True`` (strict mode) a different threshold is an error instead.
        """
        passed = self.decision_at(threshold)
        if passed is None or (exact and not _same_threshold(self.threshold, threshold)):
            raise VerdictNotRecordedError(self._threshold_message(threshold, exact=exact))
        return Verdict(
            passed=passed,
            score=self.score,
            reason=self.reason,
            threshold=threshold,
            probabilities=self.probabilities,
            evidence=self.evidence,
            judge=self.judge,
        )

    def _threshold_message(self, threshold: float, *, exact: bool) -> str:
        if exact:
            why = "strict mode replays a verdict only at the threshold it was recorded at"
        elif self.score is None:
            why = "it has no score to decide again against the new threshold"
        else:
            why = "its score alone cannot tell how the judge would decide at the new threshold"
        recorded = "none" if self.threshold is None else f"{self.threshold:.2f}"
        return (
            f"the frozen verdict {self.fingerprint[:12]} was recorded at threshold {recorded} "
            f"and is asked for at {threshold:.2f}, and {why}; delete its file and "
            f"{_RECORD_HINT}"
        )

    def to_json(self) -> str:
        """The reviewable file content: sorted keys, indent 2, trailing newline."""
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
            verdict["usage"] = {
                "prompt_tokens": self.usage.prompt_tokens,
                "completion_tokens": self.usage.completion_tokens,
            }
        if self.latency_ms is not None:
            verdict["latency_ms"] = round(self.latency_ms, 1)
        document = {
            "format": FORMAT_VERSION,
            "fingerprint": self.fingerprint,
            "judge": {
                "display": str(self.judge),
                "name": self.judge.name,
                "model": self.judge.model,
                "revision": self.judge.revision,
                "file": self.judge.file,
                "prompt_version": self.prompt_version,
            },
            "intent": dict(self.intent),
            "output": {"preview": self.output_preview, "chars": self.output_chars},
            "verdict": verdict,
            "recorded_at": self.recorded_at,
            "semantix_version": self.semantix_version,
        }
        text = json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
        # A lone surrogate cannot be UTF-8: write it as the JSON escape it reads back as.
        return text.encode("utf-8", "backslashreplace").decode("utf-8")

    @classmethod
    def from_json(cls, text: str, *, expected_key: str) -> StoredVerdict:
        """Parse a stored file; ``ValueError``/``TypeError``/``KeyError`` when it is not one."""
        document = json.loads(text)
        if not isinstance(document, dict):
            raise TypeError(f"expected a JSON object, found {type(document).__name__}")
        if document.get("fingerprint") != expected_key:
            raise ValueError(
                f"its fingerprint {document.get('fingerprint')!r} does not match its file name"
            )
        verdict = _require(document, "verdict", dict)
        judge = _require(document, "judge", dict)
        output = document.get("output") or {}
        stored = cls(
            fingerprint=expected_key,
            passed=_require(verdict, "passed", bool),
            score=_optional_number(verdict, "score"),
            threshold=_optional_number(verdict, "threshold"),
            reason=_require(verdict, "reason", str),
            judge=JudgeIdentity(
                _require(judge, "name", str),
                model=judge.get("model"),
                revision=judge.get("revision"),
                file=judge.get("file"),
            ),
            prompt_version=judge.get("prompt_version"),
            intent=document.get("intent") or {},
            output_preview=str(output.get("preview", "")),
            output_chars=int(output.get("chars", 0)),
            probabilities=verdict.get("probabilities"),
            evidence=verdict.get("evidence"),
            usage=_read_usage(verdict.get("usage")),
            latency_ms=_optional_number(verdict, "latency_ms"),
            recorded_at=str(document.get("recorded_at", "")),
            semantix_version=str(document.get("semantix_version", "")),
        )
        stored.to_verdict(stored.threshold or 0.0)  # Verdict's own checks: score, threshold
        return stored


def _same_threshold(recorded: float | None, current: float) -> bool:
    return recorded is not None and math.isclose(recorded, current, abs_tol=1e-12)


def _require(mapping: Mapping[str, Any], key: str, kind: type) -> Any:
    if key not in mapping:
        raise KeyError(f"the field {key!r} is missing")
    value = mapping[key]
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise TypeError(f"the field {key!r} is {value!r}, expected a {kind.__name__}")
    return value


def _optional_number(mapping: Mapping[str, Any], key: str) -> float | None:
    value = mapping.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"the field {key!r} is {value!r}, expected a number or null")
    return float(value)


def _read_usage(value: object) -> TokenUsage | None:
    if not isinstance(value, dict):
        return None
    return TokenUsage(int(value["prompt_tokens"]), int(value["completion_tokens"]))


# --- the store -----------------------------------------------------------------------------------


class VerdictStore:
    """A directory of frozen verdicts, one JSON file per verdict.

    Args:
        path: the directory; default ``SEMANTIX_VERDICTS_PATH``, else ``.semantix/verdicts`` in
            the current directory. Made absolute now; created on the first write.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = (
            Path(path).expanduser().absolute() if path is not None else (default_store_path())
        )

    def __repr__(self) -> str:
        return f"VerdictStore({str(self.path)!r})"

    def file_for(self, key: str) -> Path:
        """Where the verdict with fingerprint ``key`` lives."""
        if len(key) != 64 or any(c not in "0123456789abcdef" for c in key):
            raise ValueError(f"{key!r} is not a verdict fingerprint (64 lowercase hex digits)")
        return self.path / key[:2] / f"{key}.json"

    def get(self, key: str) -> StoredVerdict | None:
        """The stored verdict, None when there is none; a damaged file is an error."""
        file = self.file_for(key)
        try:
            text = file.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except UnicodeDecodeError as exc:
            raise _corrupt(file, exc) from exc
        except OSError as exc:
            raise VerdictStoreError(
                f"cannot read the frozen verdict {file}: {exc}; check its permissions"
            ) from exc
        try:
            return StoredVerdict.from_json(text, expected_key=key)
        except (ValueError, TypeError, KeyError) as exc:
            raise _corrupt(file, exc) from exc

    def put(self, record: StoredVerdict) -> Path:
        """Write ``record`` atomically (temporary file + ``os.replace``) and return its path."""
        file = self.file_for(record.fingerprint)
        try:
            _write_atomic(file, record.to_json())
        except OSError as exc:
            raise VerdictStoreError(
                f"cannot write the frozen verdict {file}: {exc}; check that {self.path} is "
                "writable, or set SEMANTIX_VERDICTS_PATH to a directory that is"
            ) from exc
        return file

    def fingerprints(self) -> Iterator[str]:
        """Fingerprints of every stored verdict (in no particular order)."""
        if not self.path.is_dir():
            return
        for file in self.path.glob("??/*.json"):
            yield file.stem


def _corrupt(file: Path, exc: BaseException) -> CorruptVerdictError:
    return CorruptVerdictError(
        f"the frozen verdict {file} is corrupt ({type(exc).__name__}: {exc}); delete it and "
        f"{_RECORD_HINT} (or restore it from version control, e.g. after a merge conflict)"
    )


def _write_atomic(file: Path, text: str) -> None:
    file.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=file.parent, prefix=f".{file.stem[:12]}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, 0o644)
        _replace(temporary, file)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _replace(source: str, target: Path, attempts: int = 20) -> None:
    """``os.replace``, retried briefly on Windows where a reader may hold the target open."""
    for attempt in range(attempts):
        try:
            os.replace(source, target)
            return
        except PermissionError:
            if attempt == attempts - 1:
                raise
            time.sleep(0.01)


# --- the caching judge -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class VerdictStats:
    """What a :class:`CachingJudge` did so far."""

    judged: int = 0  #: verdicts the wrapped judge produced
    replayed: int = 0  #: verdicts read from the store
    recorded: int = 0  #: verdicts written to the store
    memo_hits: int = 0  #: verdicts answered from memory


_FORWARD = object()


class CachingJudge:
    """Any judge, with frozen verdicts on disk and a per-instance memo.

    Args:
        judge: the judge to wrap (anything with ``evaluate``; ``evaluate_batch`` is used when
            present). Its ``recommended_threshold``, ``identity`` and ``prompt_version`` are
            forwarded, so thresholds and messages are the same as without the wrapper.
        store: a :class:`VerdictStore` or its directory; default: see :class:`VerdictStore`.
        mode: ``off``, ``replay``, ``update`` or ``strict``; default ``SEMANTIX_VERDICTS``, else
            ``off`` (see the module docstring).
        memo: remember verdicts in memory, so each (judge, output, intent) is judged once per
            instance. Thread-safe: concurrent requests for the same check wait for one answer.
    """

    def __init__(
        self,
        judge: Judge,
        *,
        store: VerdictStore | str | os.PathLike[str] | None = None,
        mode: str | None = None,
        memo: bool = True,
    ) -> None:
        if not callable(getattr(judge, "evaluate", None)):
            raise TypeError(
                f"CachingJudge needs a judge with evaluate(output, intent_description, "
                f"threshold), got {type(judge).__name__}"
            )
        self.judge = judge
        self.mode = resolve_mode(mode)
        self.store = store if isinstance(store, VerdictStore) else VerdictStore(store)
        self.memo = memo
        self._memo: dict[str, StoredVerdict] = {}
        self._key_locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()
        self._stats = VerdictStats()
        self._recommended_threshold: object = _FORWARD

    def __repr__(self) -> str:
        return f"CachingJudge({self.judge!r}, mode={self.mode!r}, store={self.store!r})"

    @property
    def recommended_threshold(self) -> float | None:
        """The wrapped judge's, unless set on this wrapper."""
        if self._recommended_threshold is not _FORWARD:
            return self._recommended_threshold  # type: ignore[return-value]
        value = getattr(self.judge, "recommended_threshold", None)
        return value if isinstance(value, (int, float)) else None

    @recommended_threshold.setter
    def recommended_threshold(self, value: float | None) -> None:
        self._recommended_threshold = value

    @property
    def identity(self) -> JudgeIdentity:
        return identity_of(self.judge)

    @property
    def prompt_version(self) -> str | None:
        return _prompt_version(self.judge)

    @property
    def stats(self) -> VerdictStats:
        """Counts of judged, replayed, recorded and memoised verdicts so far."""
        with self._lock:
            return self._stats

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        return self.evaluate_batch([(output, intent_description, threshold)])[0]

    def evaluate_batch(self, requests: Sequence[JudgeRequest]) -> list[Verdict]:
        """Answer each request from memory, the store or the judge (misses in one batch)."""
        keys = [fingerprint(self.judge, output, intent) for output, intent, _ in requests]
        with self._locked(keys):
            found = self._lookup(keys, requests)
            records, fresh = self._judge_missing(keys, requests, found)
        exact = self.mode == "strict"
        return [
            # the judge's own verdict as it returned it (latency, usage), else a replay
            fresh[index] if index in fresh else record.to_verdict(threshold, exact=exact)
            for index, (record, (_, _, threshold)) in enumerate(zip(records, requests, strict=True))
        ]

    # -- steps --

    def _lookup(
        self, keys: list[str], requests: Sequence[JudgeRequest]
    ) -> list[StoredVerdict | None]:
        """Known verdicts (memo, then store); None where the judge must be asked."""
        records: list[StoredVerdict | None] = []
        for key, request in zip(keys, requests, strict=True):
            record = self._memo.get(key) if self.memo else None
            if record is not None:
                self._count(memo_hits=1)
            elif self.mode != "off":
                record = self.store.get(key)
                if record is not None:
                    self._count(replayed=1)
                    self._remember(key, record)
                elif self.mode in ("replay", "strict"):
                    raise self._not_recorded(key, request)
            if record is not None and self.mode in ("off", "update"):
                # the record cannot tell the decision at this threshold: ask the judge again
                record = record if record.usable_at(request[2]) else None
            records.append(record)
        return records

    def _judge_missing(
        self,
        keys: list[str],
        requests: Sequence[JudgeRequest],
        found: list[StoredVerdict | None],
    ) -> tuple[list[StoredVerdict], dict[int, Verdict]]:
        """``found`` with the gaps filled by the judge (each distinct check asked once).

        Also returns the judge's verdicts by request index, for the request that asked.
        """
        missing: dict[str, int] = {}
        for index, (key, record) in enumerate(zip(keys, found, strict=True)):
            if record is None:
                missing.setdefault(key, index)
        if not missing:
            return [record for record in found if record is not None], {}
        asked = [requests[index] for index in missing.values()]
        verdicts = dict(zip(missing.values(), self._ask(asked), strict=True))
        judged: dict[str, StoredVerdict] = {}
        for key, index in missing.items():
            output, intent, threshold = requests[index]
            record = StoredVerdict.from_verdict(
                key, verdicts[index], self.judge, output, intent, threshold=threshold
            )
            if self.mode == "update":
                self.store.put(record)
                self._count(recorded=1)
            self._remember(key, record)
            judged[key] = record
        records = [
            record if record is not None else judged[key]
            for key, record in zip(keys, found, strict=True)
        ]
        return records, verdicts

    def _ask(self, requests: list[JudgeRequest]) -> list[Verdict]:
        batch = getattr(self.judge, "evaluate_batch", None)
        if callable(batch) and len(requests) > 1:
            verdicts = list(batch(requests))
        else:
            verdicts = [self.judge.evaluate(*request) for request in requests]
        name = identity_of(self.judge)
        if len(verdicts) != len(requests):
            raise JudgeError(
                f"judge {name} returned {len(verdicts)} verdicts for {len(requests)} requests; "
                "it must return one Verdict per request, in order"
            )
        for verdict in verdicts:
            if not isinstance(verdict, Verdict):
                raise JudgeError(
                    f"judge {name} returned {type(verdict).__name__} ({verdict!r:.80}); a judge "
                    "must return semantix.Verdict(passed=..., score=..., reason=...)"
                )
        self._count(judged=len(verdicts))
        return verdicts

    def _not_recorded(self, key: str, request: JudgeRequest) -> VerdictNotRecordedError:
        output, intent, _ = request
        flat = " ".join(str(output).split())
        preview = flat if len(flat) <= 80 else flat[:79] + "…"
        never = " (strict mode never calls the judge)" if self.mode == "strict" else ""
        return VerdictNotRecordedError(
            f"no frozen verdict of {identity_of(self.judge)} for intent "
            f"{' '.join(str(intent).split())[:120]!r} on output {preview!r} in mode "
            f"{self.mode!r}{never}: expected {self.store.file_for(key)}; {_RECORD_HINT}"
        )

    # -- state --

    def _remember(self, key: str, record: StoredVerdict) -> None:
        if self.memo:
            with self._lock:
                self._memo[key] = record

    def _count(self, **increments: int) -> None:
        with self._lock:
            current = self._stats
            self._stats = VerdictStats(
                judged=current.judged + increments.get("judged", 0),
                replayed=current.replayed + increments.get("replayed", 0),
                recorded=current.recorded + increments.get("recorded", 0),
                memo_hits=current.memo_hits + increments.get("memo_hits", 0),
            )

    @contextlib.contextmanager
    def _locked(self, keys: list[str]) -> Iterator[None]:
        """Hold one lock per distinct key (in sorted order, so batches cannot deadlock)."""
        if not self.memo:
            yield
            return
        with self._lock:
            locks = [self._key_locks.setdefault(key, threading.Lock()) for key in sorted(set(keys))]
        with contextlib.ExitStack() as stack:
            for lock in locks:
                stack.enter_context(lock)
            yield


def wrap_judge(
    judge: Judge,
    *,
    mode: str | None = None,
    path: str | os.PathLike[str] | None = None,
    memo: bool = True,
) -> Judge:
    """``judge`` behind the frozen-verdict store, as configured.

    ``mode`` (default ``SEMANTIX_VERDICTS``, else ``off``) and ``path`` (default
    ``SEMANTIX_VERDICTS_PATH``, else ``.semantix/verdicts`` in the current directory) are those
    of :class:`CachingJudge`. Returns:

    - ``judge`` itself, unchanged, when the mode resolves to ``off`` and ``memo`` is False, or
      when ``judge`` already is a :class:`CachingJudge` and neither ``mode``, ``path`` nor
      ``memo`` asks for something else (so wrapping twice is harmless);
    - the judge inside a :class:`CachingJudge`, wrapped afresh, when ``mode``, ``path`` or
      ``memo`` differ from its own (an explicit ``--semantic-verdicts`` wins over an earlier
      wrapping);
    - otherwise ``CachingJudge(judge, mode=..., store=path, memo=memo)`` — with mode ``off`` that
      is the memo alone: nothing is read or written on disk.

    Raises:
        ConfigurationError: the mode (argument or ``SEMANTIX_VERDICTS``) is not one of
            ``off``, ``replay``, ``update``, ``strict``.
    """
    if isinstance(judge, CachingJudge):
        if _same_settings(judge, mode, path, memo):
            return judge
        judge = judge.judge
    resolved = resolve_mode(mode)
    if resolved == "off" and not memo:
        return judge
    return CachingJudge(judge, store=path, mode=resolved, memo=memo)


def _same_settings(
    judge: CachingJudge, mode: str | None, path: str | os.PathLike[str] | None, memo: bool
) -> bool:
    same_mode = mode is None or resolve_mode(mode) == judge.mode
    same_path = path is None or VerdictStore(path).path == judge.store.path
    return same_mode and same_path and memo == judge.memo


for _public in (CachingJudge, VerdictStore):
    _public.__module__ = "semantix"
