"""The default judge: an NLI cross-encoder, int8 ONNX, run by onnxruntime.

Runtime: onnxruntime + tokenizers + numpy, nothing else (no torch, no transformers).

```python
from semantix import Intent, QuantizedNLIJudge, assert_semantic

class Polite(Intent):
    \"\"\"The text must be polite.\"\"\"

judge = QuantizedNLIJudge()                      # the default model, from the HF cache
assert_semantic("Thank you so much for your patience!", Polite, judge=judge)
```
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from semantix.cache import model_cache
from semantix.config import check_positive_int, default_threads
from semantix.errors import ModelNotFoundError
from semantix.judges.base import JudgeIdentity
from semantix.judges.model_dir import check_inputs, dynamic_int8
from semantix.judges.nli import EncodedBatch, LoadedNLI, NLICore, NLIJudgeBase
from semantix.judges.onnx import shared_session
from semantix.models import (
    NLI_SUPPORT_FILES,
    choose_onnx_file,
    lookup_model,
    resolve_model,
)
from semantix.models.deps import ensure_installed

ensure_installed(("onnxruntime", "tokenizers", "numpy"), extra="onnx", feature="QuantizedNLIJudge")


__all__ = ["QuantizedNLIJudge", "required_files"]

#: ONNX files looked for, in order, in a model directory that no registry entry describes.
ONNX_CANDIDATES = (
    "model_quantized.onnx",
    "onnx/model_quantized.onnx",
    "onnx/model_quint8_avx2.onnx",
    "onnx/model_qint8_avx512.onnx",
    "model.onnx",
    "onnx/model.onnx",
)
#: Files the judge needs besides the ONNX file (fetched from the Hub).
SUPPORT_FILES = NLI_SUPPORT_FILES


class OrtBackend(NamedTuple):
    """The ONNX Runtime half of a loaded quantized judge."""

    session: Any
    input_names: tuple[str, ...]
    #: The file quantizes activations per call (dynamic int8): each pair runs on its own, so a
    #: score never depends on the pairs batched with it (DESIGN: determinism).
    one_at_a_time: bool = False


class QuantizedNLIJudge(NLIJudgeBase):
    """NLI judge on onnxruntime: scores P(entailment) of the intent's hypothesis.

    Args:
        model: a model directory, a short name from ``semantix.models.list_supported_models()``,
            a Hugging Face repo id, or None for the default (``SEMANTIX_MODEL_DIR`` if set).
        revision: the Hub revision (default: the registry's pinned commit, else "main").
        file: the ONNX file inside the model (default: the registry's int8 file, else the first
            of ``model_quantized.onnx``, ``onnx/model_quantized.onnx``, ``model.onnx``, ...).
        cache_dir: a Hugging Face cache directory instead of ``HF_HUB_CACHE``/``HF_HOME``.
        threads: onnxruntime intra-op threads (default: ``semantix.config.default_threads()``).
        batch_size: pairs per onnxruntime call in `evaluate_batch`.
        lazy_load: load on first use (True) or now (False).

    The session is shared by every judge on the same (model file, threads) in the process.
    """

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
    ) -> None:
        check_positive_int(threads, what="threads", example=2, optional=True)
        self.model = model
        self.revision = revision
        self.file = file
        self.cache_dir = cache_dir
        self.threads = threads
        super().__init__(batch_size=batch_size, lazy_load=lazy_load)

    # -- loading -----------------------------------------------------------------------------

    def _load_now(self) -> LoadedNLI:
        # A registered model: its files for this CPU (variant + portable), the file chosen below.
        info = None if self.file else lookup_model(self.model, "nli")
        if info is not None:
            patterns, required = list(info.files()), list(info.required_files())
        else:
            patterns = [*SUPPORT_FILES, *([self.file] if self.file else ONNX_CANDIDATES)]
            required = [self.file] if self.file else []
        resolved = resolve_model(
            self.model,
            kind="nli",
            revision=self.revision,
            cache_dir=self.cache_dir,
            allow_patterns=patterns,
            required_files=required,
        )
        note = None
        if info is not None:
            cache_dir = Path(self.cache_dir) if self.cache_dir is not None else None
            file, note = choose_onnx_file(info, resolved.path, cache_dir=cache_dir)
        else:
            file = self.file or _find_onnx(resolved.path)
        onnx_path = resolved.path / file
        if not onnx_path.is_file():
            found = sorted(str(p.relative_to(resolved.path)) for p in resolved.path.rglob("*.onnx"))
            raise ModelNotFoundError(
                f"ONNX file {file!r} is not in {resolved.path}; ONNX files there: "
                f"{', '.join(found) or 'none'}. Pass file=... or export the model with "
                "`semantix export MODEL DIR`"
            )
        threads = self.threads or default_threads()
        directory = str(resolved.path.resolve())
        core = model_cache.get_or_create(
            ("nli-core", directory), lambda: NLICore.from_dir(resolved.path)
        )
        session = shared_session(resolved.path, file, threads)
        input_names = check_inputs(
            session,
            onnx_path,
            judge="quantized NLI judge",
            fix="Re-export the model with `semantix export MODEL DIR`",
        )
        identity = JudgeIdentity(
            type(self).__name__,
            model=resolved.repo_id or directory,
            revision=resolved.revision,
            file=file,
            note=note,
        )
        backend = OrtBackend(session, input_names, one_at_a_time=dynamic_int8(onnx_path))
        return LoadedNLI(core, identity, backend)

    def _forward(self, batch: EncodedBatch, backend: OrtBackend) -> Sequence[Sequence[float]]:
        if backend.one_at_a_time and len(batch.input_ids) > 1:
            # Each pair alone and unpadded: dynamic int8 scales activations over the whole call.
            rows: list[Sequence[float]] = []
            for ids, mask, types in zip(
                batch.input_ids, batch.attention_mask, batch.token_type_ids, strict=True
            ):
                length = sum(mask)
                single = EncodedBatch([ids[:length]], [mask[:length]], [types[:length]])
                rows.extend(self._forward(single, backend))
            return rows
        import numpy as np

        # one conversion for the three inputs (rows x tokens each), then a view per input
        stacked = np.asarray(
            (batch.input_ids, batch.attention_mask, batch.token_type_ids), dtype=np.int64
        )
        columns = {"input_ids": 0, "attention_mask": 1, "token_type_ids": 2}
        feed = {name: stacked[columns[name]] for name in backend.input_names}
        logits = backend.session.run(None, feed)[0]
        return logits.tolist()  # type: ignore[no-any-return]


def required_files(model: str | None = None) -> list[str]:
    """The files of a Hub model the quantized judge needs (for ``semantix download``).

    For a registered model (or the default, ``None``): the support files and its ONNX files for
    this CPU (the portable one always), not the whole repository (the cross-encoder repos hold
    ~2 GB of other formats). For another repo: the support files and the usual ONNX file names.
    """
    info = lookup_model(model, "nli")
    return list(info.files()) if info is not None else [*SUPPORT_FILES, *ONNX_CANDIDATES]


def _find_onnx(path: Path) -> str:
    for candidate in ONNX_CANDIDATES:
        if (path / candidate).is_file():
            return candidate
    found = sorted(str(p.relative_to(path)) for p in path.rglob("*.onnx"))
    raise ModelNotFoundError(
        f"no ONNX model in {path} (looked for {', '.join(ONNX_CANDIDATES)}; found "
        f"{', '.join(found) or 'none'}). Pass file=... or create the layout with "
        "`semantix export MODEL DIR`"
    )
