"""The implementation behind `semantix.models` (its face re-exports `__all__`)."""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from semantix import _config as config
from semantix._config import ModelKind
from semantix.errors import ModelNotFoundError, UnknownModelError
from semantix.models._downloads import Hub

#: Files an NLI judge on onnxruntime needs besides its ONNX file; the first two are required,
#: the others are fetched when the repository has them.
NLI_SUPPORT_FILES: tuple[str, ...] = (
    "config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
)
_REQUIRED_SUPPORT: tuple[str, ...] = ("config.json", "tokenizer.json")


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """A model semantix knows: where it lives, pinned, and which files the judges load.

    Attributes:
        name: the short name (``QuantizedNLIJudge("nli-deberta-v3-xsmall")``).
        kind: ``"nli"`` or ``"embedding"``.
        repo_id: the Hugging Face repository.
        revision: the pinned commit: a model never changes under a test suite.
        onnx_file: the portable ONNX file, loaded on every CPU (int8 for NLI), of ``size_mb``.
        default: whether it is the default model of its kind.
        cpu_files: ``(cpu kind, file)`` pairs: faster int8 variants for some CPUs (`cpu_kind`).
        labels: the model's output labels as its ``config.json`` names them.
    """

    name: str
    kind: ModelKind
    repo_id: str
    revision: str
    onnx_file: str
    description: str
    license: str
    size_mb: float
    default: bool = False
    cpu_files: tuple[tuple[str, str], ...] = ()
    labels: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return f"<ModelInfo {self.name} ({self.kind}) {self.repo_id}@{self.revision[:7]}>"

    def onnx_files(self, cpu: str | None = None) -> tuple[str, ...]:
        """The ONNX files to fetch, best first for ``cpu`` (default: this machine's kind):
        the CPU's variant when the repository ships one, then the portable file."""
        variant = dict(self.cpu_files).get(cpu or cpu_kind())
        return (variant, self.onnx_file) if variant else (self.onnx_file,)

    def files(self, cpu: str | None = None) -> tuple[str, ...]:
        """Every file an onnxruntime judge of this model fetches on ``cpu``."""
        support = NLI_SUPPORT_FILES if self.kind == "nli" else ()
        return (*support, *self.onnx_files(cpu))

    def required_files(self) -> tuple[str, ...]:
        """The files a cached snapshot must hold to be used without downloading."""
        support = _REQUIRED_SUPPORT if self.kind == "nli" else ()
        return (*support, self.onnx_file)


#: The registry. Revisions are commit hashes; docs/judges/nli.md gives the sources for every
#: file name and revision, and why the default is the default.
SUPPORTED_MODELS: tuple[ModelInfo, ...] = (
    # NLI default: a zero-shot classifier (arXiv 2312.17543); one int8 file, no CPU variants.
    ModelInfo(
        name="deberta-v3-xsmall-zeroshot",
        kind="nli",
        repo_id="MoritzLaurer/deberta-v3-xsmall-zeroshot-v1.1-all-33",
        revision="262ae02f29173eec1c250f90804dc7edc677dcff",
        onnx_file="onnx/model_quantized.onnx",
        description=(
            "DeBERTa-v3 xsmall universal zero-shot classifier (5 NLI + 28 classification "
            "datasets), entailment / not_entailment, int8"
        ),
        license="mit",
        size_mb=87.0,
        default=True,
        labels=("entailment", "not_entailment"),
    ),
    # Fact-style NLI; per-channel int8 (keeps DeBERTa-v3 from collapsing), VNNI/ARM variants.
    ModelInfo(
        name="nli-deberta-v3-xsmall",
        kind="nli",
        repo_id="cross-encoder/nli-deberta-v3-xsmall",
        revision="a150876415327c80daeff35ca6f68f5ed8cf5c24",
        onnx_file="onnx/model_quint8_avx2.onnx",
        description="DeBERTa-v3 xsmall NLI cross-encoder (SNLI + MultiNLI), int8 per-channel",
        license="apache-2.0",
        size_mb=87.4,
        cpu_files=(
            ("vnni", "onnx/model_qint8_avx512_vnni.onnx"),
            ("arm64", "onnx/model_qint8_arm64.onnx"),
        ),
        labels=("contradiction", "entailment", "neutral"),
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
        cpu_files=(("arm64", "onnx/model_qint8_arm64.onnx"),),
        labels=("contradiction", "entailment", "neutral"),
    ),
    ModelInfo(
        name="all-MiniLM-L6-v2",
        kind="embedding",
        repo_id="sentence-transformers/all-MiniLM-L6-v2",
        revision="c9745ed1d9f207416be6d2e6f8de32d1f16199bf",  # one that ships onnx/model.onnx
        # fp32: int8 files shift similarities by up to 0.08 (docs/judges/embedding.md).
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


def lookup_model(
    model: str | os.PathLike[str] | None, kind: ModelKind | None = None
) -> ModelInfo | None:
    """The registry entry ``model`` names (short name or repo id; None: the default of
    ``kind``), or None for a directory, an unregistered repo, or a configured model directory."""
    if model is None:
        return None if kind is None or config.model_dir(kind) is not None else default_model(kind)
    if isinstance(model, os.PathLike):
        return None
    return next((i for i in list_supported_models(kind) if model in (i.name, i.repo_id)), None)


hf_cache_dir = config.hf_cache_dir


def cpu_flags(cpuinfo_path: str | os.PathLike[str] = "/proc/cpuinfo") -> frozenset[str]:
    """The CPU's feature flags (``/proc/cpuinfo``); empty where the system does not say."""
    with contextlib.suppress(OSError), open(cpuinfo_path, encoding="utf-8") as cpuinfo:
        for line in cpuinfo:
            if line.startswith(("flags", "Features")):
                return frozenset(line.partition(":")[2].split())
    return frozenset()  # no /proc: the machine name decides alone


def cpu_kind() -> str:
    """``"arm64"``, ``"vnni"`` (x86 with AVX512-VNNI, AVX-VNNI or AMX: fast u8 x s8 kernels for
    signed int8 weights) or ``"x86"`` (where those kernels can saturate)."""
    import platform

    if platform.machine().lower() in {"arm64", "aarch64"}:
        return "arm64"
    if {"avx512_vnni", "avx_vnni", "amx_int8"} & cpu_flags():
        return "vnni"
    return "x86"


def choose_onnx_file(
    info: ModelInfo, directory: Path, *, cpu: str | None = None, cache_dir: Path | None = None
) -> tuple[str, str | None]:
    """The first of `ModelInfo.onnx_files` in ``directory`` (else the portable file, reported
    missing by the caller), and a note saying why when it is not the best."""
    cpu = cpu or cpu_kind()
    wanted = info.onnx_files(cpu)
    for file in wanted:
        if (directory / file).is_file():
            if file == wanted[0]:
                return file, None
            why = _why_absent(info, wanted[0], cache_dir)
            return file, f"{wanted[0]} (faster on {cpu} CPUs) {why}; loaded the portable {file}"
    return info.onnx_file, None


def _why_absent(info: ModelInfo, file: str, cache_dir: Path | None) -> str:
    known_missing = False
    with contextlib.suppress(ModuleNotFoundError):  # no huggingface_hub: a local directory
        import huggingface_hub

        found = huggingface_hub.try_to_load_from_cache(
            info.repo_id, file, cache_dir=cache_dir or config.hf_cache_dir(), revision=info.revision
        )
        # a path: cached; None: never asked; another value: the hub said it is not there
        known_missing = found is not None and not isinstance(found, str)
    if known_missing:
        return f"is not in the repository at revision {info.revision[:12]}"
    return "is not in the cache (`semantix download` on a connected machine fetches it)"


_REPO_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")


def path_reason(name: str, base: Path | None = None) -> str | None:
    """Why the model name ``name`` is a local path rather than a Hub repo id or a registered
    name (None: it is not one). The rule (docs/offline.md): it starts with ``.``, ``/`` or
    ``~``, holds a backslash or more than one ``/``, or its first part is a directory (under
    ``base``, default the current directory), as ``models/`` is for ``models/minilm``."""
    if name.startswith((".", "/", "~")):
        return f"it starts with {name[0]!r}"
    if "\\" in name or (os.sep != "/" and os.sep in name):
        return "it holds a backslash"
    if name.count("/") > 1:
        return "it has more than one '/' (a Hugging Face repo id is owner/name)"
    first = name.split("/", 1)[0]
    if "/" in name and Path(base or ".", first).is_dir():
        return f"its first part, {first!r}, is a directory here"
    return None


def local_directory(model: str | os.PathLike[str], kind: ModelKind) -> Path | None:
    """The local directory ``model`` names, or None for a registered name or a Hub repo id.

    Raises:
        ModelNotFoundError: ``model`` reads as a path (a ``PathLike``, or by `path_reason`)
            and there is no directory there: never taken for a Hub repo id instead.
    """
    directory = Path(model).expanduser()
    if directory.is_dir():
        return directory
    if isinstance(model, os.PathLike):
        reason: str | None = "it was given as a path"
    else:
        reason = path_reason(str(model))
    if reason is None:
        return None
    raise ModelNotFoundError(
        f"model directory {str(model)!r} does not exist (looked at {str(directory.absolute())!r});"
        f" it is read as a local path, not a Hugging Face repo id, because {reason}. Pass an "
        f"existing directory (`semantix download` or `semantix export` makes one), or a Hugging "
        f"Face repo id such as {default_model(kind).repo_id!r}"
    )


#: What a model directory variable should point at, and how to make one, per kind.
_MODEL_DIR_FIX: dict[str, str] = {
    "nli": "an NLI model directory (`semantix export MODEL DIR` makes one from a Hugging Face "
    "NLI model)",
    "embedding": "a sentence-embedding model directory with its ONNX file, e.g. onnx/model.onnx "
    "(`semantix export MODEL DIR` makes one from a sentence-transformers model)",
}


def resolve_model(
    model: str | os.PathLike[str] | None,
    *,
    kind: ModelKind,
    revision: str | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    allow_patterns: Sequence[str] | None = None,
    required_files: Sequence[str] = (),
) -> ResolvedModel:
    """Find ``model`` (a directory, a short name, a repo id, or None for the default of
    ``kind``) on disk, downloading what is missing; see the module docstring.

    ``revision`` defaults to the registry's pin, else "main". ``allow_patterns`` (default: all)
    that are plain file names are fetched each on its own, and those not in ``required_files``
    may be absent (a CPU variant); globs fetch the matching files. A cached snapshot without one
    of ``required_files`` is downloaded again.
    """
    if model is None:
        configured = config.model_dir(kind)
        if configured is not None:
            if not configured.is_dir():
                variable = config.MODEL_DIR_VARIABLES[kind]
                raise ModelNotFoundError(
                    f"{variable}={str(configured)!r} is not a directory; point it at "
                    f"{_MODEL_DIR_FIX[kind]}, or unset it to use the default model"
                )
            return ResolvedModel(configured)
        model = default_model(kind).repo_id
    directory = local_directory(model, kind)
    if directory is not None:
        return ResolvedModel(directory)
    name = str(model)
    info = lookup_model(name, kind)
    if info is not None:
        repo_id, revision = info.repo_id, revision or info.revision
    elif _REPO_ID.fullmatch(name):
        repo_id, revision = name, revision or "main"
    else:
        known = ", ".join(f"{m.name} ({m.repo_id})" for m in list_supported_models(kind))
        raise UnknownModelError(
            f"model {name!r} is neither an existing directory nor a Hugging Face repo id "
            f"('owner/name'); known {kind} models: {known}"
        )
    cache = Path(cache_dir) if cache_dir is not None else config.hf_cache_dir()
    size_mb = info.size_mb if info is not None else None
    hub = Hub(repo_id, revision=revision, cache_dir=cache, kind=kind, size_mb=size_mb)
    return ResolvedModel(hub.fetch(allow_patterns, required_files), repo_id, revision, info)


def download_model(
    model: str | None = None,
    *,
    kind: ModelKind = "nli",
    revision: str | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    allow_patterns: Sequence[str] | None = None,
) -> Path:
    """Fetch a model into the Hugging Face cache (for ``semantix download``) and return its path.

    For a registered model the files default to those its onnxruntime judge loads on this CPU
    (`ModelInfo.files`), the portable ONNX file included.
    """
    info = lookup_model(model, kind)
    if info is not None and allow_patterns is None and kind == "nli":
        allow_patterns = info.files()
    required = info.required_files() if info is not None and kind == "nli" else ()
    return resolve_model(
        model,
        kind=kind,
        revision=revision,
        cache_dir=cache_dir,
        allow_patterns=allow_patterns,
        required_files=required,
    ).path
