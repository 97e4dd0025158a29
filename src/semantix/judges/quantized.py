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

from semantix.deps import ensure_installed
from semantix.errors import ConfigurationError, ModelNotFoundError
from semantix.judges.base import JudgeIdentity
from semantix.validation import check_positive_int
from semantix.judges.nli import EncodedBatch, LoadedNLI, NLICore, NLIJudgeBase
from semantix.judges.onnx import shared_session

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
SUPPORT_FILES = (
    "config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
)


class OrtBackend(NamedTuple):
    """The ONNX Runtime half of a loaded quantized judge."""

    session: Any
    input_names: tuple[str, ...]


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
        batch_size: pairs per onnxruntime call in :meth:`evaluate_batch`.
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
        from semantix.cache import model_cache
        from semantix.config import default_threads
        from semantix.models import resolve_model

        patterns = list(SUPPORT_FILES)
        registry_file = self.file
        uses_env_dir = self.model is None and bool(os.environ.get("SEMANTIX_MODEL_DIR"))
        if registry_file is None and not uses_env_dir and not _is_dir(self.model):
            registry_file = _registry_file(self.model)
        patterns.extend([registry_file] if registry_file else ONNX_CANDIDATES)
        resolved = resolve_model(
            self.model,
            kind="nli",
            revision=self.revision,
            cache_dir=self.cache_dir,
            allow_patterns=patterns,
            required_files=[registry_file] if registry_file else (),
        )
        file = self.file or registry_file or _find_onnx(resolved.path)
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
        input_names = tuple(node.name for node in session.get_inputs())
        known = {"input_ids", "attention_mask", "token_type_ids"}
        unknown = [name for name in input_names if name not in known]
        if unknown or "input_ids" not in input_names:
            raise ConfigurationError(
                f"{onnx_path} takes inputs {list(input_names)!r}; the quantized NLI judge feeds "
                "input_ids, attention_mask and token_type_ids. Re-export the model with "
                "`semantix export MODEL DIR`"
            )
        identity = JudgeIdentity(
            type(self).__name__,
            model=resolved.repo_id or directory,
            revision=resolved.revision,
            file=file,
        )
        return LoadedNLI(core, identity, OrtBackend(session, input_names))

    def _forward(self, batch: EncodedBatch, backend: OrtBackend) -> Sequence[Sequence[float]]:
        import numpy as np

        columns = {
            "input_ids": batch.input_ids,
            "attention_mask": batch.attention_mask,
            "token_type_ids": batch.token_type_ids,
        }
        feed = {name: np.asarray(columns[name], dtype=np.int64) for name in backend.input_names}
        logits = backend.session.run(None, feed)[0]
        return logits.tolist()  # type: ignore[no-any-return]


def required_files(model: str | None = None) -> list[str]:
    """The files of a Hub model the quantized judge needs (for ``semantix download``).

    For a registered model (or the default, ``None``): the support files and its ONNX file, not
    the whole repository (the cross-encoder repos hold ~2 GB of other formats). For another
    repo: the support files and the usual ONNX file names.
    """
    registry_file = _registry_file(model)
    return [*SUPPORT_FILES, *([registry_file] if registry_file else ONNX_CANDIDATES)]


#: int8 files with signed weights that the registered repos ship besides their portable
#: ``onnx/model_quint8_avx2.onnx`` (all per-channel: sentence-transformers' optimum configs).
#: Only files seen in the repos at the pinned revisions are listed.
CPU_VARIANTS: dict[str, dict[str, str]] = {
    "cross-encoder/nli-deberta-v3-xsmall": {
        "vnni": "onnx/model_qint8_avx512_vnni.onnx",
        "arm64": "onnx/model_qint8_arm64.onnx",
    },
    "cross-encoder/nli-MiniLM2-L6-H768": {
        "arm64": "onnx/model_qint8_arm64.onnx",
    },
}


def cpu_kind() -> str:
    """``"arm64"``, ``"vnni"`` (x86 with AVX512-VNNI/AVX-VNNI/AMX) or ``"x86"``.

    Signed int8 weights run on the fast u8 x s8 kernels of VNNI and ARM CPUs (1.6-3x faster
    than unsigned weights on the bench box); without VNNI those kernels can saturate, so plain
    x86 keeps the unsigned-weight file.
    """
    import platform

    machine = platform.machine().lower()
    if machine in {"arm64", "aarch64"}:
        return "arm64"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            flags = next((line for line in cpuinfo if line.startswith("flags")), "").split()
    except OSError:
        return "x86"
    if {"avx512_vnni", "avx_vnni", "amx_int8"} & set(flags):
        return "vnni"
    return "x86"


def _registry_file(model: str | os.PathLike[str] | None) -> str | None:
    """The ONNX file of a registered model for this CPU (None for unregistered models)."""
    from semantix.models import default_model, list_supported_models

    info = None
    if model is None:
        info = default_model("nli")
    else:
        for candidate in list_supported_models("nli"):
            if str(model) in (candidate.name, candidate.repo_id):
                info = candidate
    if info is None:
        return None
    return CPU_VARIANTS.get(info.repo_id, {}).get(cpu_kind(), info.onnx_file)


def _is_dir(model: str | os.PathLike[str] | None) -> bool:
    if model is None:
        return False
    return Path(os.fspath(model)).expanduser().is_dir()


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
