"""The lazy, thread-safe load (`LazyLoaded`) and the constructor and identity (`ModelJudge`)
every model-backed judge shares."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

from semantix._config import ModelKind, check_positive_int
from semantix._config import model_dir as configured_model_dir
from semantix.errors import ConfigurationError
from semantix.judges._base import Judge, JudgeIdentity, Verdict, model_argument
from semantix.judges._model_dir import local_identity
from semantix.models import ModelInfo
from semantix.models._api import local_directory, lookup_model

__all__ = ["LazyLoaded", "ModelJudge", "Named", "SemantixAiArguments"]

T = TypeVar("T")


class LazyLoaded(Generic[T]):
    """Holds what ``_load_now()`` builds, built at most once per instance."""

    def __init__(self, *, lazy_load: bool) -> None:
        self._lock = threading.Lock()
        self._loaded: T | None = None
        if not lazy_load:
            self._load()

    def _load_now(self) -> T:
        raise NotImplementedError

    def _load(self) -> T:
        loaded = self._loaded
        if loaded is not None:
            return loaded
        with self._lock:
            if self._loaded is None:
                self._loaded = self._load_now()
            return self._loaded

    @property
    def loaded(self) -> bool:
        """Whether the model is loaded (on first use, or in the constructor if not lazy)."""
        return self._loaded is not None


@dataclass(frozen=True, slots=True)
class Named:
    """Where a model judge's model is, known without loading anything: the local directory, the
    registry entry, or the repo id and revision the Hub would be asked for."""

    directory: Path | None
    info: ModelInfo | None
    repo_id: str | None
    revision: str | None


def _check_optional_text(value: object, *, what: str, example: str) -> None:
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise ConfigurationError(
            f"{what} must be a non-empty str or None, got {value!r}; {example}"
        )


class SemantixAiArguments(Judge):
    """Mixed in first by the model judges: ``evaluate`` also takes semantix-ai's names of its
    arguments, ``premise=`` (the output) and ``hypothesis=`` (the intent description)."""

    def evaluate(
        self,
        output: str | None = None,
        intent_description: str | None = None,
        threshold: float | None = None,
        *,
        premise: str | None = None,
        hypothesis: str | None = None,
    ) -> Verdict:
        """``evaluate``, also with semantix-ai's ``premise=`` and ``hypothesis=`` (one of each)."""
        if (
            output is None
            or intent_description is None
            or premise is not None
            or hypothesis is not None
        ):
            output = _one_of(self, output, premise, "output", "premise")
            intent_description = _one_of(
                self, intent_description, hypothesis, "intent_description", "hypothesis"
            )
        if threshold is None:
            raise TypeError(
                f"{type(self).__name__}.evaluate() needs a threshold, e.g. threshold=0.5"
            )
        # As given: an intent description is an IntentDescription that carries its examples.
        return super().evaluate(output, intent_description, threshold)


def _one_of(judge: object, ours: str | None, theirs: str | None, what: str, alias: str) -> str:
    """The one of ``ours`` and its semantix-ai spelling ``theirs`` that was given."""
    if (ours is None) == (theirs is None):
        given = f"both {what}= and" if ours is not None else f"neither {what}= nor"
        raise TypeError(
            f"{type(judge).__name__}.evaluate() got {given} its semantix-ai spelling {alias}=; "
            "pass one: evaluate(output, intent_description, threshold)"
        )
    return ours if ours is not None else theirs  # type: ignore[return-value]


class ModelJudge(Judge, LazyLoaded[T]):
    """The base of the model judges: a subclass sets ``kind`` and implements ``_load_now()``
    (whose result has an ``identity``)."""

    kind: ClassVar[ModelKind]
    model: str | os.PathLike[str] | None

    def __init__(
        self,
        model: str | os.PathLike[str] | None,
        *,
        revision: str | None,
        cache_dir: str | os.PathLike[str] | None,
        batch_size: int,
        lazy_load: bool,
        model_name: str | os.PathLike[str] | None = None,
    ) -> None:
        name = type(self).__name__
        model = model_argument(model, model_name, judge=name)
        if model is not None and not isinstance(model, (str, os.PathLike)):
            raise ConfigurationError(
                f"{name}(model=...) must be a model directory, a short name or a Hugging Face "
                f"repo id (a str or a path), got {type(model).__name__} {model!r}"
            )
        if isinstance(model, str):
            _check_optional_text(model, what="model", example="pass e.g. a model directory")
        _check_optional_text(revision, what="revision", example="pass a commit hash or a branch")
        if cache_dir is not None and not isinstance(cache_dir, (str, os.PathLike)):
            raise ConfigurationError(
                f"cache_dir must be a directory (a str or a path) or None, got {cache_dir!r}"
            )
        check_positive_int(batch_size, what="batch_size", example=16)
        if not isinstance(lazy_load, bool):
            raise ConfigurationError(f"lazy_load must be True or False, got {lazy_load!r}")
        self.model = model
        self.revision = revision
        self.cache_dir = cache_dir
        self.batch_size = batch_size
        self._named_identity: JudgeIdentity | None = None
        super().__init__(lazy_load=lazy_load)

    def _named(self) -> Named:
        """The model as the arguments, the registry and the environment name it (no I/O)."""
        info = lookup_model(self.model, self.kind)
        if info is not None:
            return Named(None, info, info.repo_id, self.revision or info.revision)
        if self.model is None:
            return Named(configured_model_dir(self.kind), None, None, None)
        directory = local_directory(self.model, self.kind)  # a missing one: its error, first
        if directory is not None:
            return Named(directory, None, None, None)
        return Named(None, None, str(self.model), self.revision or "main")

    def _weights(self, named: Named, directory: Path | None) -> tuple[str | None, str | None]:
        """(the file the judge loads from ``directory``, why it is not the preferred one); each
        None when not known yet or nothing to say."""
        return None, None

    def make_identity(
        self, named: Named, directory: Path | None, *, model: str | None = None
    ) -> JudgeIdentity:
        """The identity of this judge on ``directory`` (its listing decides the file; a local one
        is named by what it is, `semantix.judges._model_dir.local_identity`)."""
        file, note = self._weights(named, directory)
        revision, location = named.revision, None
        if model is None:
            if named.repo_id is not None:
                model = named.repo_id
            elif directory is not None and directory.is_dir():
                model, revision = local_identity(directory, file)
                location = str(directory.resolve())
            elif directory is not None:
                model = str(directory)  # not there: loading it says so
        return JudgeIdentity(
            type(self).__name__,
            model=model,
            revision=revision,
            file=file,
            note=note,
            location=location,
        )

    def own_identity(self) -> JudgeIdentity:
        """Class, model, revision and file. Never loads the model: before loading, the file is
        the one the directory's listing (or the registry, for a Hub model) says will load."""
        loaded: Any = self._loaded
        if loaded is not None:
            return loaded.identity  # type: ignore[no-any-return]
        if self._named_identity is None:
            named = self._named()
            self._named_identity = self.make_identity(named, named.directory)
        return self._named_identity

    def __repr__(self) -> str:
        return str(self.identity)
