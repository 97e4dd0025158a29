"""`Satisfies` and `SemanticMatcher`, re-exported by `semantix.testing`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from semantix._cache import model_cache
from semantix._config import check_threshold
from semantix._intent import Intent, IntentLike, as_intent
from semantix.errors import ConfigurationError
from semantix.judges._base import Judge
from semantix.outputs import output_view
from semantix.pipeline import SemanticResult, assert_semantic, judged
from semantix.pipeline._options import read_options


class Satisfies:
    """Equal to any output that satisfies ``intent``, for ``==`` inside dicts and lists
    (``payload == {"message": Satisfies(Apologizes)}``; docs/structural-checks.md).

    Each comparison is one check of the pipeline, reported like any, with ``judge``,
    ``threshold`` and ``timeout`` as for `assert_semantic`; the repr is the matched value after a
    match, the verdict after a mismatch. ``==`` is True when the check passed and False when it
    failed; ``!=`` is its negation, so it too says the check *was judged* and failed. A value
    that is not an output is unequal (dirty-equals; not reported). A check that cannot be
    judged (the judge raised, timed out or answered garbage) decides nothing either way: ``==``
    and ``!=`` raise its error (kept in ``error``, and reported as the error it is).
    """

    __hash__ = None  # type: ignore[assignment]

    def __init__(
        self,
        intent: IntentLike,
        judge: Judge | str | None = None,
        threshold: float | None = None,
        *,
        timeout: float | None = None,
    ) -> None:
        self.intent = as_intent(intent)
        self.judge = judge
        self.options = read_options(
            {"judge": judge, "threshold": threshold, "timeout": timeout}, what=type(self).__name__
        )
        self.threshold = self.options.threshold
        #: The result of the last comparison, or None before any (and after an error).
        self.result: SemanticResult | None = None
        #: The error of the last comparison that could not be judged, or None.
        self.error: Exception | None = None
        self._shown: str | None = None

    def __eq__(self, other: object) -> bool:
        self.result, self.error = None, None
        try:
            output_view(other)  # not an output: unequal, as dirty-equals does, and not reported
        except TypeError as exc:
            self._shown = f"{self._call()} [not an output: {exc}]"
            return False
        try:
            result = judged(other, self.intent, self.options)
        except Exception as exc:
            # Reported by the pipeline; neither equal nor unequal: ``!=`` must not pass on it.
            self.error = exc
            self._shown = f"{self._call()} [{type(exc).__name__}: {exc}]"
            raise
        self.result = result
        if result.passed:
            self._shown = repr(other)
        else:
            reasons = "; ".join(
                f"{leaf.label}: {leaf.verdict.reason}"
                for leaf in result.leaves
                if not leaf.passed and leaf.verdict.reason
            )
            self._shown = f"{self._call()} [{result!r}" + (f" {reasons}]" if reasons else "]")
        return result.passed

    def __bool__(self) -> bool:
        raise TypeError(
            "Satisfies(...) is not a truth value; compare it with ==, or call "
            "assert_semantic(output, intent) to check one output"
        )

    def __repr__(self) -> str:
        return self._shown if self._shown is not None else self._call()

    def _call(self) -> str:
        options = "" if self.judge is None else f", judge={self.judge!r}"
        options += "" if self.threshold is None else f", threshold={self.threshold!r}"
        options += "" if self.options.timeout is None else f", timeout={self.options.timeout!r}"
        return f"Satisfies({self.intent!r}{options})"


class SemanticMatcher(Satisfies):
    """pytest-semantic's matcher: ``assert response == SemanticMatcher(valid=[...])``.

    A response matches when its **mean** similarity to ``valid`` (at least one response) is at
    least ``min_similarity`` and exceeds its mean similarity to ``invalid`` by more than
    ``margin`` (pytest-semantic's ``threshold``, a spelling only the ``semantic_matcher`` fixture
    takes; without ``invalid`` the examples must lead 0: semantix draws no random words). A
    `Satisfies` judged by `semantix.judges.EmbeddingJudge` (``model_name``: a directory, a
    registered name or a Hugging Face repo id; default all-MiniLM-L6-v2), or by your own
    ``custom_embed_fn``, one text -> one vector (`semantix.judges.EmbeddingFunctionJudge`).
    """

    def __init__(
        self,
        valid: Sequence[str],
        invalid: Sequence[str] | None = None,
        margin: float = 0.15,
        min_similarity: float = 0.5,
        model_name: str | None = None,
        custom_embed_fn: Callable[[str], Sequence[float]] | None = None,
    ) -> None:
        self.valid = _texts(valid, "valid")
        self.invalid = () if invalid is None else _texts(invalid, "invalid", required=False)
        intent = type(
            "SemanticMatch",
            (Intent,),
            {
                "__doc__": "The text means what the valid examples say.",
                "__module__": __name__,
                "examples": self.valid,
                "counterexamples": self.invalid,
            },
        )
        self.min_similarity = check_threshold(
            min_similarity, what="SemanticMatcher(min_similarity=...)", example="min_similarity=0.5"
        )
        self.margin = check_threshold(
            margin, what="SemanticMatcher(margin=...)", example="margin=0.15"
        )
        judge = _matcher_judge(model_name, custom_embed_fn, self.margin)
        super().__init__(intent, judge=judge, threshold=self.min_similarity)

    def check(self, response: object) -> SemanticResult:
        """Assert that ``response`` matches (raises `SemanticAssertionError` if not)."""
        __tracebackhide__ = True
        return assert_semantic(response, self.intent, judge=self.judge, threshold=self.threshold)

    def _call(self) -> str:
        return (
            f"SemanticMatcher(valid={len(self.valid)} examples, invalid={len(self.invalid)} "
            f"examples, margin={self.margin!r}, min_similarity={self.min_similarity!r})"
        )


def _texts(values: object, name: str, *, required: bool = True) -> tuple[str, ...]:
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise ConfigurationError(
            f"SemanticMatcher({name}=...) must be a list of example responses, got "
            f"{type(values).__name__} {values!r}; write e.g. {name}=['Hello!', 'Hi there!']"
        )
    texts = tuple(values)
    wrong = [value for value in texts if not isinstance(value, str) or not value.strip()]
    if wrong:
        raise ConfigurationError(
            f"SemanticMatcher({name}=...) must hold non-empty strings, got {wrong[0]!r}"
        )
    if required and not texts:
        raise ConfigurationError(
            f"SemanticMatcher({name}=[]) needs at least one example response to match against"
        )
    return texts


def _matcher_judge(
    model_name: str | None, custom_embed_fn: Callable[[str], Sequence[float]] | None, margin: float
) -> Judge:
    """The embedding judge of pytest-semantic's rule, built once per model (or function) and
    margin in the explicit cache."""
    from semantix.judges._similarity import ExampleRule

    rule = ExampleRule(closest=None, margin=margin)
    if custom_embed_fn is None:

        def build() -> Any:
            from semantix.judges._embedding import EmbeddingJudge

            return EmbeddingJudge(model_name, rule=rule)

        key: tuple[object, ...] = ("semantic-matcher", "model", model_name, rule)
    elif model_name is not None:
        raise ConfigurationError(
            "SemanticMatcher takes model_name or custom_embed_fn, not both: the function "
            "replaces the model"
        )
    elif not callable(custom_embed_fn):
        raise ConfigurationError(
            f"SemanticMatcher(custom_embed_fn=...) must be a function text -> vector, got "
            f"{type(custom_embed_fn).__name__} {custom_embed_fn!r}"
        )
    else:

        def build() -> Any:
            from semantix.judges._embedding_function import EmbeddingFunctionJudge, per_text

            return EmbeddingFunctionJudge(per_text(custom_embed_fn), rule=rule)

        key = ("semantic-matcher", "function", custom_embed_fn, rule)
    judge: Judge = model_cache.get_or_create(key, build, region="judges")
    return judge
