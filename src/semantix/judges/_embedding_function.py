"""EmbeddingFunctionJudge: the similarity judge over your own ``texts -> vectors`` function,
deciding as `EmbeddingJudge` does (docs/judges/embedding.md); only numpy is needed."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from semantix._config import check_positive_int, check_threshold
from semantix.errors import ConfigurationError
from semantix.judges._base import JudgeIdentity
from semantix.judges._similarity import Embedded, ExampleRule, SimilarityJudge, check_vectors

__all__ = ["EmbeddingFunction", "EmbeddingFunctionJudge"]

#: ``texts -> vectors``: one vector (a sequence of floats) per text, in order.
EmbeddingFunction = Callable[[list[str]], Any]


class EmbeddingFunctionJudge(SimilarityJudge):
    """Judge by cosine similarity of the vectors your function gives (``texts -> vectors``).

    Args:
        embed: called with a list of texts; returns one vector per text, in order.
        name: the model's name, for reports and frozen verdicts (default: the function's
            qualified name; give one for a lambda or a closure).
        threshold: the similarity a matching text reaches with your model (its
            ``recommended_threshold``; measure it with ``semantix calibrate``).
        rule: how examples and counterexamples decide (`ExampleRule`; default: the mean of the
            3 closest of each).
        batch_size: the most texts handed to ``embed`` at once.
    """

    __module__ = "semantix.judges"
    judge_label = "embedding function"

    def __init__(
        self,
        embed: EmbeddingFunction,
        *,
        name: str | None = None,
        threshold: float | None = None,
        rule: ExampleRule | None = None,
        batch_size: int = 64,
    ) -> None:
        if not callable(embed):
            raise ConfigurationError(
                f"EmbeddingFunctionJudge(embed=...) must be a function texts -> vectors, got "
                f"{type(embed).__name__} {embed!r}"
            )
        if name is not None and (not isinstance(name, str) or not name.strip()):
            raise ConfigurationError(
                f"EmbeddingFunctionJudge(name={name!r}) must be a non-empty str naming the model"
            )
        self._start_similarity(rule)
        self.embed_function = embed
        module = getattr(embed, "__module__", None)
        qualname = getattr(embed, "__qualname__", None) or type(embed).__qualname__
        self.name = name or (f"{module}.{qualname}" if module else str(qualname))
        self.identity = JudgeIdentity(type(self).__name__, model=self.name)
        check_positive_int(batch_size, what="batch_size", example=64)
        self.batch_size = batch_size
        if threshold is not None:
            self.recommended_threshold = check_threshold(threshold)

    def _embed_many(self, texts: list[str]) -> dict[str, Embedded]:
        found: dict[str, Embedded] = {}
        for start in range(0, len(texts), self.batch_size):
            chunk = texts[start : start + self.batch_size]
            vectors = check_vectors(self.embed_function(list(chunk)), chunk, source=self.name)
            for text, row in zip(chunk, vectors, strict=True):
                found[text] = Embedded(row[None, :], (text,))
        return found

    def __repr__(self) -> str:
        return f"EmbeddingFunctionJudge({self.name!r})"


def per_text(function: Callable[[str], Sequence[float]]) -> EmbeddingFunction:
    """A one-text function (pytest-semantic's ``custom_embed_fn``) as ``texts -> vectors``."""

    @functools.wraps(function)  # its name is the judge's default name
    def embed(texts: list[str]) -> list[Sequence[float]]:
        return [function(text) for text in texts]

    return embed
