"""The judge protocol and its declared abilities (the verdict a judge returns is in
`semantix.judges._verdict`, and importable from here too).

A judge is anything with ``evaluate(output, intent_description, threshold) -> Verdict``.
Everything else a judge may declare — ``recommended_threshold``, ``reads_negation``,
``uses_examples``, ``calibrates``, ``costly``, ``scale``, ``prompt_version``, ``secrets``, ``identity``,
``evaluate_batch`` — is declared once, with its default, on `Judge`, and read once per check by
`capabilities`. Wrappers subclass `WrappingJudge` and forward all of it without a line of code.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from semantix.errors import JudgeError, SemantixError
from semantix.judges._verdict import JudgeIdentity, TokenUsage, Verdict

__all__ = [
    "DECLARED",
    "SCALES",
    "Capabilities",
    "Judge",
    "JudgeIdentity",
    "JudgeLike",
    "JudgeRequest",
    "TokenUsage",
    "Verdict",
    "WrappingJudge",
    "capabilities",
    "check_judge",
    "judge_identity",
]


def model_argument(model: object, model_name: object, *, judge: str) -> Any:
    """``model``, or semantix-ai's ``model_name=`` spelling of it (never both)."""
    if model_name is None:
        return model
    if model is not None:
        raise TypeError(
            f"{judge} got both model={model!r} and model_name={model_name!r}; pass one "
            "(model_name is the semantix-ai spelling of model)"
        )
    return model_name


#: One item of a batch: (output, intent description, threshold).
JudgeRequest = tuple[str, str, float]

#: What a judge's score measures: ``entailment`` (NLI: the output implies the statement),
#: ``similarity`` (closeness of meaning or topic, e.g. embeddings) or ``score`` (anything else).
SCALES = ("entailment", "similarity", "score")


@runtime_checkable
class JudgeLike(Protocol):
    """The type of "any judge" in signatures: an object with ``evaluate``. `Judge` subclasses
    and plain objects alike satisfy it."""

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        """Decide whether ``output`` satisfies ``intent_description`` at ``threshold``."""
        ...


class _JudgeMeta(type):
    """Makes ``isinstance(x, Judge)`` structural, like a runtime-checkable protocol: any object
    with a callable ``evaluate`` is a judge, whether or not it subclasses `Judge`."""

    def __instancecheck__(cls, instance: object) -> bool:
        if super().__instancecheck__(instance):
            return True
        return cls is Judge and callable(getattr(instance, "evaluate", None))


class Judge(metaclass=_JudgeMeta):
    """What semantix needs from a judge, and every optional ability with its default.

    Subclassing is optional: any object with ``evaluate(output, intent_description,
    threshold) -> Verdict`` plugs in, and reads as these defaults for what it does not declare.
    A subclass gets them as plain attributes it may set on the class or on an instance
    (``self.recommended_threshold = 0.7`` works, as in semantix-ai). semantix reads them only
    through `capabilities`, never by probing.

    Attributes:
        recommended_threshold: the threshold this judge's scores are calibrated for, or None
            (step 4 of the threshold order).
        reads_negation: False when the judge reads a description literally (NLI, embedding):
            a "must not X" requirement is then judged as ``~`` of the statement X.
        uses_examples: True when the judge's score already uses the intent's examples (the
            embedding judge): the threshold is then not calibrated from them.
        calibrates: False to skip step 3 of the threshold order for this judge: no threshold
            is calibrated from an intent's examples (each calibration asks the judge once per
            example and counterexample: 24 requests for the ready-made ``Polite``).
        costly: True when each call costs money or time (an LLM): semantic leaves that cannot
            change an outcome already decided by structural leaves are not sent to it.
        scale: what the score measures, one of `SCALES`.
        prompt_version: what decides a verdict besides the identity — the version of an LLM
            judge's prompt, a similarity judge's non-default example rule — part of the frozen
            verdict's fingerprint.
        secrets: values (API keys) that must never reach a verdict file, a report or a message.
        answers_equivalence: False to have a judge that declares ``evaluate_equivalence`` judged
            on snapshots like any other (both directions as two ordinary requests).
        identity: who gives the verdicts (class, model, revision, file); known without loading
            a model. Default: the class name.

    ``intent_description`` is a ``str``; for built-in intents it is an `IntentDescription`, a
    ``str`` that also carries the intent's optional ``hypothesis``, ``examples`` and
    ``counterexamples``.
    """

    recommended_threshold: float | None = None
    reads_negation: bool = True
    uses_examples: bool = False
    calibrates: bool = True
    costly: bool = False
    scale: str = "score"
    prompt_version: str | None = None
    secrets: tuple[object, ...] = ()
    answers_equivalence: bool = True

    @property
    def identity(self) -> JudgeIdentity:
        declared = self.__dict__.get("_declared_identity")
        return declared if isinstance(declared, JudgeIdentity) else self.own_identity()

    @identity.setter
    def identity(self, value: JudgeIdentity) -> None:
        self.__dict__["_declared_identity"] = value

    def own_identity(self) -> JudgeIdentity:
        """The identity when none was set (``judge.identity = ...`` wins): the class name; a
        judge with a model or levels names them here."""
        return JudgeIdentity(type(self).__name__)

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        """Decide whether ``output`` satisfies ``intent_description`` at ``threshold``."""
        raise NotImplementedError(
            f"{type(self).__name__} must implement evaluate(output, intent_description, "
            "threshold) -> Verdict"
        )

    def evaluate_batch(self, requests: Sequence[JudgeRequest]) -> list[Verdict]:
        """One verdict per request, in order (default: `evaluate` each; override for speed)."""
        return [self.evaluate(*request) for request in requests]


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What one judge declares, read once (`capabilities`): the `Judge` attributes, plus the
    optional methods it has: ``evaluate_batch``, ``aevaluate_batch`` (an ``async def`` taking
    the same requests: async checks await it instead of using the worker pool),
    ``evaluate_equivalence`` (semantic snapshots) and ``evaluate_support`` (grounded checks:
    requests whose description is a ``semantix.intents.SupportDescription``, which
    carries the sources; the judge's own ``evaluate``/``evaluate_batch`` hand such requests to
    it, so frozen verdicts and the memo treat them like any other)."""

    identity: JudgeIdentity
    recommended_threshold: object
    reads_negation: bool
    uses_examples: bool
    costly: bool
    scale: str
    prompt_version: str | None
    secrets: tuple[object, ...]
    batch: Callable[[Sequence[JudgeRequest]], Sequence[Verdict]] | None
    abatch: Callable[[Sequence[JudgeRequest]], Awaitable[Sequence[Verdict]]] | None
    equivalence: Callable[[str, str, float], Verdict] | None
    support: Callable[[Sequence[JudgeRequest]], Sequence[Verdict]] | None = None
    calibrates: bool = True


#: The declared abilities a wrapper forwards (every `Judge` attribute above but ``identity``,
#: which wrappers forward too, as a property).
DECLARED = (
    "recommended_threshold",
    "reads_negation",
    "uses_examples",
    "costly",
    "scale",
    "prompt_version",
    "secrets",
    "answers_equivalence",
    "calibrates",
)

#: Each declared ability with `Judge`'s default, in the order `capabilities` unpacks them.
_DEFAULTS: tuple[tuple[str, object], ...] = tuple((name, getattr(Judge, name)) for name in DECLARED)


def judge_identity(judge: object) -> JudgeIdentity:
    """The judge's ``identity`` when it declares one, else its class name.

    Raises:
        JudgeError: naming the judge raised (a judge error is never a pass).
    """
    try:
        identity = getattr(judge, "identity", None)
    except SemantixError:
        raise
    except Exception as exc:
        raise _naming_error(judge, exc) from exc
    if isinstance(identity, JudgeIdentity):
        return identity
    return JudgeIdentity(type(judge).__name__)


def capabilities(judge: object) -> Capabilities:
    """Everything ``judge`` declares, with `Judge`'s defaults for what it does not: the one
    place semantix reads a judge's optional members (a check reads them once, into its
    `semantix.pipeline._judging.JudgeHandle`; nothing is kept on the judge).

    Raises:
        JudgeError: reading them raised (e.g. a property that loads a missing model).
    """
    try:
        values = [getattr(judge, name, default) for name, default in _DEFAULTS]
        batch, abatch, equivalence, support = [getattr(judge, method, None) for method in _METHODS]
    except SemantixError:
        raise
    except Exception as exc:
        raise _naming_error(judge, exc) from exc
    (
        threshold,
        reads_negation,
        uses_examples,
        costly,
        scale,
        version,
        secrets,
        answers,
        calibrates,
    ) = values
    return Capabilities(
        identity=judge_identity(judge),
        recommended_threshold=threshold,
        reads_negation=bool(reads_negation),
        uses_examples=bool(uses_examples),
        costly=bool(costly),
        scale=scale if scale in SCALES else "score",
        prompt_version=version if isinstance(version, str) else None,
        secrets=tuple(secrets) if isinstance(secrets, (tuple, list)) else (),
        batch=batch if callable(batch) else None,
        abatch=abatch if callable(abatch) else None,
        equivalence=equivalence if callable(equivalence) and answers is not False else None,
        support=support if callable(support) else None,
        calibrates=calibrates is not False,
    )


def check_judge(value: object, *, what: str = "judge") -> Judge:
    """``value`` if it is a judge instance (an object with ``evaluate``), else the one
    ``TypeError`` that says what to pass: every path that takes a judge object checks it here."""
    if isinstance(value, type):
        raise TypeError(
            f"{what} is the class {value.__name__}, not a judge; pass an instance: "
            f"{value.__name__}(...)"
        )
    if not callable(getattr(value, "evaluate", None)):
        raise TypeError(
            f"{what} must have an evaluate(output, intent_description, threshold) method, got "
            f"{type(value).__name__} ({value!r:.60}); pass a judge such as QuantizedNLIJudge() "
            "or FakeJudge(...)"
        )
    return value  # type: ignore[return-value]


#: The optional methods `capabilities` reads, in the order it reads them.
_METHODS = ("evaluate_batch", "aevaluate_batch", "evaluate_equivalence", "evaluate_support")


def _naming_error(judge: object, exc: Exception) -> JudgeError:
    from semantix import _config as config  # on this error path only
    from semantix._text import mask_exception

    mask_exception(exc, config.api_keys())  # the key the run knows: its own can't be read
    return JudgeError(
        f"judge {type(judge).__name__} raised {type(exc).__name__} while semantix read what it "
        f"declares (identity, thresholds, abilities): {exc}. A judge error is never a pass; fix "
        "the cause (see the chained exception)"
    )


class WrappingJudge(Judge):
    """Base of judges that wrap another (the frozen-verdict judge, your own): every declared
    ability — ``identity``, ``recommended_threshold``, ``reads_negation``, ``uses_examples``,
    ``costly``, ``scale``, ``prompt_version``, ``secrets``, ``evaluate_support`` — is the
    wrapped judge's, unless set on the wrapper itself. Nothing has to be forwarded by hand."""

    def __init__(self, judge: JudgeLike) -> None:
        self.judge: JudgeLike = check_judge(judge, what=f"the judge {type(self).__name__} wraps")

    @property
    def identity(self) -> JudgeIdentity:
        declared = self.__dict__.get("_declared_identity")
        return declared if isinstance(declared, JudgeIdentity) else judge_identity(self.judge)

    @identity.setter
    def identity(self, value: JudgeIdentity) -> None:
        self.__dict__["_declared_identity"] = value


def settable(name: str, compute: Callable[[Any], Any], doc: str) -> property:
    """A declared ability read from ``compute(judge)`` (live), unless set on the instance."""

    def get(self: Any) -> Any:
        return self.__dict__[name] if name in self.__dict__ else compute(self)

    def set_(self: Any, value: Any) -> None:
        self.__dict__[name] = value

    return property(get, set_, doc=doc)


def _forwarded(name: str) -> property:
    default = getattr(Judge, name, None)
    return settable(
        name,
        lambda wrapper: getattr(wrapper.judge, name, default),
        f"The wrapped judge's ``{name}``, unless set on the wrapper.",
    )


#: The support and equivalence abilities are methods (None when the wrapped judge has none);
#: their requests reach the wrapped judge through the wrapper's ``evaluate_batch`` (its memo, its
#: store), like any other request.
for _name in (*DECLARED, "evaluate_support", "evaluate_equivalence"):
    setattr(WrappingJudge, _name, _forwarded(_name))


for _public in (Judge, WrappingJudge):
    _public.__module__ = "semantix"
