"""The base of the onnxruntime judges (quantized NLI, embedding): `OnnxJudge` finds the ONNX file
(the one asked for, else the registry's variant for this CPU, else the first of `CANDIDATES`) by
one rule before and at loading; `OnnxModel.run` feeds it. onnxruntime and numpy load with it."""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from semantix._config import ModelKind, check_positive_int, default_threads
from semantix.errors import ConfigurationError
from semantix.judges._base import JudgeIdentity
from semantix.judges._lazy import ModelJudge, Named, SemantixAiArguments
from semantix.judges._model_dir import check_inputs, dynamic_int8, find_onnx
from semantix.judges._sessions import shared_session
from semantix.models import ResolvedModel, resolve_model
from semantix.models._api import choose_onnx_file

__all__ = ["CANDIDATES", "EncodedBatch", "OnnxJudge", "OnnxModel", "Opened", "pad"]

T = TypeVar("T")

#: ONNX files looked for, in order, in a model directory no registry entry describes: int8
#: first for NLI (the quantized judge), fp32 first for embeddings (int8 shifts similarities).
CANDIDATES: dict[ModelKind, tuple[str, ...]] = {
    "nli": (
        "model_quantized.onnx",
        "onnx/model_quantized.onnx",
        "onnx/model_quint8_avx2.onnx",
        "onnx/model_qint8_avx512.onnx",
        "model.onnx",
        "onnx/model.onnx",
    ),
    "embedding": ("onnx/model.onnx", "model.onnx"),
}

#: Rows of `EncodedBatch` by input name.
_COLUMNS = {"input_ids": 0, "attention_mask": 1, "token_type_ids": 2}


@dataclass(frozen=True, slots=True)
class EncodedBatch:
    """A padded batch of token rows, as plain lists (rows x tokens)."""

    input_ids: list[list[int]]
    attention_mask: list[list[int]]
    token_type_ids: list[list[int]]


def pad(
    ids: Sequence[Sequence[int]],
    pad_id: int,
    type_ids: Sequence[Sequence[int]] | None = None,
) -> EncodedBatch:
    """Right-pad ``ids`` (and ``type_ids``, zeros when None) to the longest row."""
    types = type_ids if type_ids is not None else [[0] * len(row) for row in ids]
    if len(ids) == 1:  # nothing to pad: the common single assertion
        return EncodedBatch([list(ids[0])], [[1] * len(ids[0])], [list(types[0])])
    width = max(len(row) for row in ids)
    batch = EncodedBatch([], [], [])
    for row, row_types in zip(ids, types, strict=True):
        missing = width - len(row)
        batch.input_ids.append([*row, *([pad_id] * missing)])
        batch.attention_mask.append([1] * len(row) + [0] * missing)
        batch.token_type_ids.append([*row_types, *([0] * missing)])
    return batch


@dataclass(frozen=True, slots=True)
class OnnxModel:
    """A loaded ONNX file: its shared session and how it is fed."""

    session: Any
    path: Path
    input_names: tuple[str, ...]
    #: Dynamic int8: each row runs alone (up to ``threads`` at once), so no score depends on its batch.
    one_at_a_time: bool = False
    threads: int = 1

    def run(self, batch: EncodedBatch, output: str | None = None) -> list[Any]:
        """The ``output`` (default: the first) of each session call on ``batch``: one array
        for the batch, or one per row for a dynamic-int8 file (each row unpadded)."""
        import numpy as np

        names = None if output is None else [output]
        rows = len(batch.input_ids)
        if not self.one_at_a_time or rows == 1:
            columns = (batch.input_ids, batch.attention_mask, batch.token_type_ids)
            feed = {name: np.array(columns[_COLUMNS[name]], np.int64) for name in self.input_names}
            return [self.session.run(names, feed)[0]]
        singles = []
        for ids, mask, types in zip(
            batch.input_ids, batch.attention_mask, batch.token_type_ids, strict=True
        ):
            length = sum(mask)
            singles.append(EncodedBatch([ids[:length]], [mask[:length]], [types[:length]]))
        if self.threads == 1:
            return [self.run(single, output)[0] for single in singles]
        from concurrent.futures import ThreadPoolExecutor

        # Small single rows leave the session's threads idle between operators: run several
        # at once (onnxruntime's run is thread-safe and releases the GIL).
        with ThreadPoolExecutor(min(self.threads, rows)) as pool:
            return list(pool.map(lambda single: self.run(single, output)[0], singles))


@dataclass(frozen=True, slots=True)
class Opened:
    """What `OnnxJudge._open` found and loaded: the model directory, the judge's identity on
    it, the ONNX file's session."""

    path: Path
    identity: JudgeIdentity
    onnx: OnnxModel


class OnnxJudge(SemantixAiArguments, ModelJudge[T]):
    """A judge on an ONNX file run by onnxruntime; a subclass sets the class attributes below and
    implements ``_load_now()`` with `_open`."""

    #: Files fetched from the Hub besides the ONNX file, and those a cached snapshot must hold.
    support_files: ClassVar[tuple[str, ...]]
    required_support: ClassVar[tuple[str, ...]] = ()
    #: How to make a directory this judge loads (said when there is no ONNX file).
    export_fix: ClassVar[str]
    #: The judge as messages name it ("quantized NLI judge").
    judge_label: ClassVar[str]

    file: str | None
    threads: int | None

    def __init__(
        self,
        model: str | os.PathLike[str] | None = None,
        *,
        revision: str | None = None,
        file: str | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        threads: int | None = None,
        batch_size: int = 16,
        lazy_load: bool = True,
        model_name: str | os.PathLike[str] | None = None,
    ) -> None:
        if file is not None and (not isinstance(file, str) or not file.strip()):
            raise ConfigurationError(
                f"file must be the path of an ONNX file inside the model directory, e.g. "
                f"{CANDIDATES[self.kind][0]!r}, got {file!r}"
            )
        check_positive_int(threads, what="threads", example=2, optional=True)
        self.file = file
        self.threads = threads
        #: The ONNX file this judge runs, once loaded (``semantix download`` optimizes it).
        self.onnx_path: Path | None = None
        super().__init__(
            model,
            revision=revision,
            cache_dir=cache_dir,
            batch_size=batch_size,
            lazy_load=lazy_load,
            model_name=model_name,
        )

    @classmethod
    def fetch_files(cls, named: Named, file: str | None = None) -> tuple[list[str], list[str]]:
        """(files to fetch, files a cached snapshot must hold) for ``named``'s Hub model."""
        if file is not None:
            return [file, *cls.support_files], [file]
        if named.info is not None:
            return (
                [*named.info.onnx_files(), *cls.support_files],
                [*cls.required_support, named.info.onnx_file],
            )
        return [*CANDIDATES[cls.kind], *cls.support_files], []

    def _weights(self, named: Named, directory: Path | None) -> tuple[str | None, str | None]:
        if self.file is not None:
            return self.file, None
        if named.info is not None:
            if directory is None:
                return named.info.onnx_files()[0], None
            return choose_onnx_file(named.info, directory, cache_dir=self._cache_path())
        if directory is None or not directory.is_dir():
            return None, None  # an unregistered Hub repo: known once it is fetched
        return next((c for c in CANDIDATES[self.kind] if (directory / c).is_file()), None), None

    def _cache_path(self) -> Path | None:
        return Path(self.cache_dir) if self.cache_dir is not None else None

    def _open(self) -> Opened:
        named = self._named()
        patterns, required = self.fetch_files(named, self.file)
        resolved = resolve_model(
            self.model,
            kind=self.kind,
            revision=self.revision,
            cache_dir=self.cache_dir,
            allow_patterns=patterns,
            required_files=required,
        )
        named = Named(resolved.path, named.info, resolved.repo_id, resolved.revision)
        where = resolved.name + (f"@{resolved.revision}" if resolved.revision else "")
        file = find_onnx(
            resolved.path,
            self._weights(named, resolved.path)[0],
            CANDIDATES[self.kind],
            where=f"{self.judge_label} model {where}",
            fix=self._missing_fix(resolved),
        )
        path = resolved.path / file
        self.onnx_path = path
        threads = self.threads or default_threads()
        session = shared_session(path, threads)
        names = check_inputs(session, path, judge=self.judge_label, fix=self.export_fix)
        onnx = OnnxModel(session, path, names, dynamic_int8(path), threads)
        return Opened(resolved.path, self.make_identity(named, resolved.path), onnx)

    def _missing_fix(self, resolved: ResolvedModel) -> str:
        if resolved.repo_id is not None:
            return (
                "Fetch it on a connected machine with `semantix download`, or pass file=... "
                "naming a file that is there"
            )
        command = f"semantix export {shlex.quote(str(resolved.path))}"
        writes = "onnx/model.onnx" if self.kind == "embedding" else "model.onnx and its int8 copy"
        fix = (
            f"`{command}` adds {writes} to the directory (once; it needs pip install "
            "'semantix-judge[export]')"
        )
        if any(resolved.path.rglob("*.onnx")):
            return f"Pass file=... naming one of them, or {fix}"
        return fix[0].upper() + fix[1:]
