"""Where model weights come from: a local directory, or a Hugging Face repo at a pinned revision.

Resolution, for ``resolve_model(model, ...)``:

1. ``model`` is an existing directory (a ``str`` or ``PathLike``): use it as is.
2. ``model`` is ``None``: the judge's default — the directory in the judge's environment
   variable if set (``SEMANTIX_MODEL_DIR`` for NLI, ``SEMANTIX_EMBEDDING_MODEL_DIR`` for
   embeddings), else the default model of the registry below.
3. ``model`` is a short name from :func:`list_supported_models` or a repo id ``owner/name``:
   look in the Hugging Face cache first (no network), then download the needed files once,
   with a progress bar, at the pinned revision. ``HF_HOME``, ``HF_HUB_CACHE``, ``HF_ENDPOINT``
   and ``HF_HUB_OFFLINE`` are honoured, read when the model is resolved.

With nothing on disk and no network (or ``HF_HUB_OFFLINE=1``) this fails within seconds with a
:class:`~semantix.ModelNotFoundError` that names the model, where it looked, and the ways out.
"""

from __future__ import annotations

import os
import re
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from semantix.deps import require
from semantix.errors import ModelNotFoundError, UnknownModelError

__all__ = [
    "ModelInfo",
    "ResolvedModel",
    "default_model",
    "download_model",
    "hf_cache_dir",
    "list_supported_models",
    "resolve_model",
]

ModelKind = Literal["nli", "embedding"]

#: Seconds to wait for the Hugging Face endpoint before declaring the network unreachable.
CONNECT_TIMEOUT = 3.0

_DEFAULT_DIR_VARIABLES: dict[str, str] = {
    "nli": "SEMANTIX_MODEL_DIR",
    "embedding": "SEMANTIX_EMBEDDING_MODEL_DIR",
}


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """A model semantix knows: where it lives, pinned, and which files the judges load."""

    name: str
    kind: ModelKind
    repo_id: str
    revision: str
    #: The ONNX file (int8 for NLI) inside the repo, as loaded by the onnxruntime judges.
    onnx_file: str
    description: str
    license: str
    size_mb: float
    default: bool = False

    def __repr__(self) -> str:
        return f"<ModelInfo {self.name} ({self.kind}) {self.repo_id}@{self.revision[:7]}>"


#: The registry. Revisions are commit hashes: a model never changes under a test suite.
SUPPORTED_MODELS: tuple[ModelInfo, ...] = (
    # NLI default: the most accurate small cross-encoder; its shipped int8 files are quantized
    # per-channel (sentence-transformers' optimum configs), which keeps DeBERTa-v3 from
    # collapsing under int8. onnx_file is the portable x86 file; QuantizedNLIJudge loads the
    # signed-weight variant on VNNI/ARM CPUs (judges/quantized.py CPU_VARIANTS). Why not
    # MiniLM2: docs/judges/nli.md.
    ModelInfo(
        name="nli-deberta-v3-xsmall",
        kind="nli",
        repo_id="cross-encoder/nli-deberta-v3-xsmall",
        revision="a150876415327c80daeff35ca6f68f5ed8cf5c24",
        onnx_file="onnx/model_quint8_avx2.onnx",
        description="DeBERTa-v3 xsmall NLI cross-encoder (SNLI + MultiNLI), int8 per-channel",
        license="apache-2.0",
        size_mb=87.4,
        default=True,
    ),
    ModelInfo(
        name="nli-MiniLM2-L6-H768",
        kind="nli",
        repo_id="cross-encoder/nli-MiniLM2-L6-H768",
        revision="b95119ce93d3e065de6214e38cd4a97b0f2f2c6d",
        onnx_file="onnx/model_quint8_avx2.onnx",
        description="MiniLMv2 L6 H768 NLI cross-encoder (RoBERTa tokenizer), 6 layers, MNLI-mm 86.89",
        license="apache-2.0",
        size_mb=82.0,
    ),
    ModelInfo(
        name="all-MiniLM-L6-v2",
        kind="embedding",
        repo_id="sentence-transformers/all-MiniLM-L6-v2",
        # A commit that ships onnx/model.onnx (the snapshot found in public HF cache paths).
        revision="c9745ed1d9f207416be6d2e6f8de32d1f16199bf",
        # fp32: scores equal the sentence-transformers reference (cosine 1 - 1e-7); the int8
        # files shift similarities by up to 0.08 and depend on the CPU's int8 kernels.
        onnx_file="onnx/model.onnx",
        description="all-MiniLM-L6-v2 sentence embeddings (384 dims, mean pooling)",
        license="apache-2.0",
        size_mb=91.0,
        default=True,
    ),
)


@dataclass(frozen=True, slots=True)
class ResolvedModel:
    """A model found on disk: its directory and, for hub models, what it was resolved from."""

    path: Path
    repo_id: str | None = None
    revision: str | None = None
    info: ModelInfo | None = None

    @property
    def name(self) -> str:
        return self.repo_id or str(self.path)


def list_supported_models(kind: ModelKind | None = None) -> list[ModelInfo]:
    """The models semantix knows by short name, optionally only those of one kind."""
    return [info for info in SUPPORTED_MODELS if kind is None or info.kind == kind]


def default_model(kind: ModelKind) -> ModelInfo:
    """The registry's default model for ``kind``."""
    for info in SUPPORTED_MODELS:
        if info.kind == kind and info.default:
            return info
    raise UnknownModelError(f"no default model of kind {kind!r}; use one of 'nli', 'embedding'")


def hf_cache_dir() -> Path:
    """The Hugging Face hub cache, read from the environment now (HF_HUB_CACHE, HF_HOME)."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    home = os.environ.get("HF_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "huggingface"
    )
    return Path(home).expanduser() / "hub"


def _offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().upper() in {"1", "ON", "YES", "TRUE"}


_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


def _lookup(name: str) -> ModelInfo | None:
    for info in SUPPORTED_MODELS:
        if name in (info.name, info.repo_id):
            return info
    return None


def resolve_model(
    model: str | os.PathLike[str] | None,
    *,
    kind: ModelKind,
    revision: str | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    allow_patterns: Sequence[str] | None = None,
    required_files: Sequence[str] = (),
    download: bool = True,
) -> ResolvedModel:
    """Find ``model`` on disk, downloading it when allowed; see the module docstring.

    Args:
        model: a directory, a short name, a repo id, or None for the default of ``kind``.
        kind: "nli" or "embedding" (chooses the default and its environment variable).
        revision: a commit hash, branch or tag; default: the registry's pin, else "main".
        cache_dir: the Hugging Face cache to use instead of the environment's.
        allow_patterns: which files of the repo to fetch (globs, alternatives allowed);
            default: all.
        required_files: files that must be in a cached snapshot for it to count (e.g. the
            ONNX file a judge will load); a snapshot without one is downloaded again.
        download: False to never touch the network (only the cache).
    """
    if model is None:
        variable = _DEFAULT_DIR_VARIABLES[kind]
        configured = os.environ.get(variable)
        if configured:
            directory = Path(configured).expanduser()
            if not directory.is_dir():
                raise ModelNotFoundError(
                    f"{variable}={configured!r} is not a directory; point it at a model "
                    "directory (see `semantix export`) or unset it to use the default model"
                )
            return ResolvedModel(directory)
        model = default_model(kind).repo_id
    if isinstance(model, os.PathLike) or Path(str(model)).expanduser().is_dir():
        directory = Path(model).expanduser()
        if not directory.is_dir():
            raise ModelNotFoundError(
                f"model directory {str(directory)!r} does not exist; pass an existing directory "
                "or a Hugging Face repo id such as 'cross-encoder/nli-deberta-v3-xsmall'"
            )
        return ResolvedModel(directory)
    name = str(model)
    info: ModelInfo | None = _lookup(name)
    if info is not None:
        repo_id, revision = info.repo_id, revision or info.revision
    elif _REPO_ID.match(name):
        repo_id, revision = name, revision or "main"
    else:
        looks_like_path = name.startswith((".", "/", "~")) or os.sep in name
        known = ", ".join(f"{m.name} ({m.repo_id})" for m in list_supported_models(kind))
        raise (ModelNotFoundError if looks_like_path else UnknownModelError)(
            f"model {name!r} is neither an existing directory nor a Hugging Face repo id "
            f"('owner/name'); known {kind} models: {known}"
        )
    return _from_hub(
        repo_id,
        revision=revision,
        cache_dir=Path(cache_dir) if cache_dir is not None else hf_cache_dir(),
        allow_patterns=allow_patterns,
        required_files=required_files,
        download=download,
        info=info,
        kind=kind,
    )


def download_model(
    model: str | None = None,
    *,
    kind: ModelKind = "nli",
    revision: str | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    allow_patterns: Sequence[str] | None = None,
) -> Path:
    """Fetch a model into the Hugging Face cache (for ``semantix download``) and return its path."""
    return resolve_model(
        model, kind=kind, revision=revision, cache_dir=cache_dir, allow_patterns=allow_patterns
    ).path


def _not_found(
    repo_id: str, revision: str, missing: str, cache_dir: Path, why: str, kind: ModelKind
) -> ModelNotFoundError:
    return ModelNotFoundError(
        f"model {repo_id!r} (revision {revision}){missing} is not in the Hugging Face cache at "
        f"{cache_dir} and {why}. Ways out: run `semantix download` on a connected machine "
        "and copy the cache (or set HF_HOME/HF_HUB_CACHE to it), or pass a local directory "
        f"as model=... (for the default {kind} model: "
        f"{_DEFAULT_DIR_VARIABLES[kind]}=/path/to/model)"
    )


def _from_hub(
    repo_id: str,
    *,
    revision: str,
    cache_dir: Path,
    allow_patterns: Sequence[str] | None,
    required_files: Sequence[str],
    download: bool,
    info: ModelInfo | None,
    kind: ModelKind,
) -> ResolvedModel:
    hub = require("huggingface_hub", extra="onnx", feature="downloading models")
    patterns = list(allow_patterns) if allow_patterns is not None else None
    endpoint = os.environ.get("HF_ENDPOINT") or "https://huggingface.co"
    try:
        path = hub.snapshot_download(
            repo_id,
            revision=revision,
            cache_dir=cache_dir,
            allow_patterns=patterns,
            local_files_only=True,
        )
        absent = [name for name in required_files if not (Path(path) / name).is_file()]
        if not absent:
            return ResolvedModel(Path(path), repo_id, revision, info)
        missing = f" with {', '.join(absent)}"  # the snapshot is there, a needed file is not
    except (FileNotFoundError, hub.errors.LocalEntryNotFoundError):
        missing = ""
    if _offline():
        raise _not_found(repo_id, revision, missing, cache_dir, "HF_HUB_OFFLINE is set", kind)
    if not download:
        raise _not_found(repo_id, revision, missing, cache_dir, "downloading is disabled", kind)
    if not _reachable(endpoint):
        raise _not_found(
            repo_id,
            revision,
            missing,
            cache_dir,
            f"{endpoint} cannot be reached (no network?)",
            kind,
        )
    try:
        path = hub.snapshot_download(
            repo_id,
            revision=revision,
            cache_dir=cache_dir,
            allow_patterns=patterns,
            endpoint=endpoint,
            etag_timeout=CONNECT_TIMEOUT,
        )
    except hub.errors.RepositoryNotFoundError as exc:
        raise ModelNotFoundError(
            f"Hugging Face has no repository {repo_id!r} (or it is private: log in with "
            "`huggingface-cli login`); check the name"
        ) from exc
    except hub.errors.RevisionNotFoundError as exc:
        raise ModelNotFoundError(
            f"repository {repo_id!r} has no revision {revision!r}; pass an existing commit, "
            "branch or tag"
        ) from exc
    except (OSError, hub.errors.LocalEntryNotFoundError) as exc:
        raise _not_found(
            repo_id, revision, "", cache_dir, f"the download failed ({exc})", kind
        ) from exc
    return ResolvedModel(Path(path), repo_id, revision, info)


def _reachable(endpoint: str) -> bool:
    """Whether a TCP connection to the endpoint opens within CONNECT_TIMEOUT seconds."""
    parts = urlsplit(endpoint)
    host = parts.hostname
    if host is None:
        return False
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT):
            return True
    except OSError:
        return False
