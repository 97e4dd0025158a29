"""One model directory, read one way, for every judge that runs a local model."""

from __future__ import annotations

import contextlib
import hashlib
import json
import mmap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from semantix._cache import memo, model_cache
from semantix.errors import ConfigurationError, ModelNotFoundError

if TYPE_CHECKING:
    from tokenizers import Tokenizer

__all__ = [
    "DESCRIBING_FILES",
    "FEEDS",
    "ModelFiles",
    "check_inputs",
    "dynamic_int8",
    "embedding_marks",
    "embedding_output",
    "external_data",
    "find_onnx",
    "load_json",
    "local_identity",
    "model_max_length",
    "read_model_dir",
]

#: The inputs the judges know how to feed an ONNX model.
FEEDS = ("input_ids", "attention_mask", "token_type_ids")

#: Model types whose position ids start after the padding index (RoBERTa family).
_OFFSET_POSITIONS = {"roberta", "xlm-roberta", "camembert", "longformer", "bart", "mpnet"}


def load_json(path: Path) -> dict[str, Any]:
    """A JSON object from ``path``, or ``{}`` when the file does not exist."""
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigurationError(f"cannot read {path}: {exc}; re-download or re-export") from None
    if not isinstance(data, dict):
        raise ConfigurationError(f"{path} must hold a JSON object, got {type(data).__name__}")
    return data


def model_max_length(
    config: Mapping[str, Any],
    tokenizer_config: Mapping[str, Any],
    tokenizer_truncation: int | None = None,
    *,
    sentence_bert: Mapping[str, Any] | None = None,
) -> int:
    """The longest sequence (special tokens included) the model accepts: the sentence-bert
    ``max_seq_length`` (what it was trained for), else the smallest of the tokenizer's limits;
    never more than ``max_position_embeddings`` (minus RoBERTa's offset); 512 when nothing says."""
    candidates: list[int] = []
    positions = config.get("max_position_embeddings")
    if isinstance(positions, int) and positions > 0:
        if config.get("model_type") in _OFFSET_POSITIONS:
            pad = config.get("pad_token_id")
            positions -= (pad if isinstance(pad, int) else 1) + 1
        candidates.append(positions)
    trained = (sentence_bert or {}).get("max_seq_length")
    if isinstance(trained, int) and not isinstance(trained, bool) and trained > 0:
        candidates.append(trained)
    else:
        declared = tokenizer_config.get("model_max_length")
        if isinstance(declared, (int, float)) and 0 < declared < 1_000_000:
            candidates.append(int(declared))
        if tokenizer_truncation:
            candidates.append(tokenizer_truncation)
    return min(candidates) if candidates else 512


def _unpadded(tokenizer: Tokenizer) -> tuple[Tokenizer, int | None, int | None]:
    """``tokenizer`` with padding and truncation off (batches pad, windows fit), its shipped
    truncation and padding id."""
    truncation, padding = tokenizer.truncation, tokenizer.padding
    pad_id = padding.get("pad_id") if padding else None
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return (
        tokenizer,
        int(truncation["max_length"]) if truncation else None,
        pad_id if isinstance(pad_id, int) else None,
    )


def _load_tokenizer(path: Path) -> tuple[Tokenizer, int | None, int | None]:
    """``path`` (a tokenizer.json) loaded once per process and shared by every judge on it."""

    def build() -> tuple[Tokenizer, int | None, int | None]:
        from tokenizers import Tokenizer

        return _unpadded(Tokenizer.from_file(str(path)))

    return model_cache.get_or_create(("tokenizer", str(path.resolve())), build)


def _pad_id(
    tokenizer: Tokenizer, config: Mapping[str, Any], tokenizer_config: Mapping[str, Any]
) -> int:
    token = tokenizer_config.get("pad_token")
    if isinstance(token, Mapping):
        token = token.get("content")
    found = tokenizer.token_to_id(token) if isinstance(token, str) else None
    if found is not None:
        return int(found)
    pad = config.get("pad_token_id")
    return pad if isinstance(pad, int) else 0


@dataclass(frozen=True, slots=True)
class ModelFiles:
    """What a judge reads from a model directory besides the weights."""

    path: Path
    config: dict[str, Any]
    tokenizer: Tokenizer
    max_length: int
    pad_id: int


def read_model_dir(
    path: Path,
    *,
    judge: str,
    fix: str,
    require_config: bool = False,
    tokenizer: Tokenizer | None = None,
) -> ModelFiles:
    """Read ``path``'s configs and tokenizer (``tokenizer``, built by transformers, for a
    directory without tokenizer.json); ``judge`` and ``fix`` go into the errors."""
    config_path = path / "config.json"
    if require_config and not config_path.is_file():
        raise ModelNotFoundError(
            f"{path} has no config.json; the {judge} needs config.json, tokenizer.json and the "
            f"model weights in its directory ({fix})"
        )
    config = load_json(config_path)
    tokenizer_config = load_json(path / "tokenizer_config.json")
    if tokenizer is None:
        tokenizer_file = path / "tokenizer.json"
        if not tokenizer_file.is_file():
            raise ModelNotFoundError(
                f"no tokenizer.json in the {judge} model directory {str(path)!r}; the directory "
                f"needs tokenizer.json next to the model weights ({fix})"
            )
        tokenizer, truncation, pad_id = _load_tokenizer(tokenizer_file)
    else:
        tokenizer, truncation, pad_id = _unpadded(tokenizer)
    sentence_bert = load_json(path / "sentence_bert_config.json") or None
    return ModelFiles(
        path=path,
        config=config,
        tokenizer=tokenizer,
        max_length=model_max_length(
            config, tokenizer_config, truncation, sentence_bert=sentence_bert
        ),
        pad_id=pad_id if pad_id is not None else _pad_id(tokenizer, config, tokenizer_config),
    )


def find_onnx(
    directory: Path, wanted: str | None, candidates: Sequence[str], *, where: str, fix: str
) -> str:
    """``wanted`` (or, nothing wanted, the first of ``candidates``) in ``directory``, else a
    `ModelNotFoundError` naming what was looked for, the ONNX files there, and ``fix``."""
    for candidate in candidates if wanted is None else [wanted]:
        if (directory / candidate).is_file():
            return candidate
    found = sorted(str(p.relative_to(directory)) for p in directory.rglob("*.onnx"))
    asked = (
        f"ONNX file {wanted!r}" if wanted else f"ONNX model (looked for {', '.join(candidates)})"
    )
    place = where if str(directory) in where else f"{where} at {str(directory)!r}"
    raise ModelNotFoundError(
        f"{place} has no {asked}; ONNX files there: {', '.join(found) or 'none'}. {fix}"
    )


def check_inputs(session: Any, onnx_path: Path, *, judge: str, fix: str) -> tuple[str, ...]:
    """The session's input names, checked against `FEEDS` (``input_ids`` required)."""
    names = tuple(node.name for node in session.get_inputs())
    unknown = [name for name in names if name not in FEEDS]
    if unknown or "input_ids" not in names:
        raise ConfigurationError(
            f"{onnx_path} takes inputs {list(names)!r}; the {judge} feeds "
            f"{', '.join(FEEDS)} only. {fix}"
        )
    return names


#: Outputs that hold per-token embeddings, by name, in order of preference.
_TOKEN_OUTPUTS = ("last_hidden_state", "token_embeddings")


#: The pooled output of a sentence-transformers model exported whole (optimum-onnx's
#: ``library_name="sentence_transformers"``): its own pooling and modules, preferred.
_SENTENCE_OUTPUT = "sentence_embedding"


def embedding_output(session: Any, onnx_path: Path) -> tuple[str, bool]:
    """The output an embedding model is read from, and whether it is already pooled: the
    model's own ``sentence_embedding`` first; else per-token embeddings (by name, else any 3-d
    output), to be mean pooled; else a 2-d output."""
    dims = {item.name: len(item.shape) for item in session.get_outputs()}
    if dims.get(_SENTENCE_OUTPUT) == 2:
        return _SENTENCE_OUTPUT, True
    named = [name for name in _TOKEN_OUTPUTS if name in dims]
    ranked = named + [n for n, d in dims.items() if d == 3] + [n for n, d in dims.items() if d == 2]
    if ranked:
        return ranked[0], ranked[0] not in named and dims[ranked[0]] == 2
    raise ConfigurationError(
        f"{onnx_path} has outputs {list(dims)} but none is a (batch, tokens, dim) or "
        "(batch, dim) embedding; export the model with `semantix export MODEL DIR`"
    )


#: Files only sentence-transformers model directories have.
_SENTENCE_TRANSFORMERS = ("sentence_bert_config.json", "modules.json")


def embedding_marks(directory: Path) -> str | None:
    """Why ``directory`` holds a sentence-embedding model (its sentence-transformers files, or a
    config.json naming architectures without a classification head), or None."""
    marks = [name for name in _SENTENCE_TRANSFORMERS if (directory / name).is_file()]
    if marks:
        return ", ".join(marks)
    try:
        architectures = load_json(directory / "config.json").get("architectures")
    except ConfigurationError:
        return None
    if (
        isinstance(architectures, list)
        and architectures
        and all(
            isinstance(n, str) and not n.endswith("ForSequenceClassification")
            for n in architectures
        )
    ):
        return f"its config.json names {architectures}, no NLI head"
    return None


def dynamic_int8(onnx_path: Path) -> bool:
    """Whether the graph quantizes activations at run time (``DynamicQuantizeLinear``): its scale
    spans the whole batch, so the judges run such a model one text at a time."""
    return _read_graph(onnx_path)[0]


#: The files besides the weights that decide what a local model computes (configs, tokenizer,
#: vocabulary): with the weights, what `local_identity` digests.
DESCRIBING_FILES = (
    "config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "added_tokens.json",
    "sentence_bert_config.json",
    "vocab.txt",
    "vocab.json",
    "merges.txt",
    "spm.model",
    "sentencepiece.bpe.model",
)
#: The weights transformers loads from a directory, digested when no ONNX file is named.
_TORCH_WEIGHTS = ("*.safetensors", "pytorch_model*.bin")


def local_identity(directory: Path, weights: str | None) -> tuple[str, str]:
    """(name, digest) of the local model in ``directory``: what it is, not where it is
    (docs/frozen-verdicts.md): a sha256 over `DESCRIBING_FILES` and the weights (the ONNX file
    ``weights`` with its external data files, `external_data`, else the torch weights), by
    relative path and content."""
    root = directory.resolve()
    names = [*DESCRIBING_FILES]
    if weights is not None:
        names += [weights, f"{weights}_data", f"{weights}.data", *external_data(root, weights)]
    found = {name for name in names if (root / name).is_file()}
    if weights is None:
        found.update(
            path.relative_to(root).as_posix()
            for pattern in _TORCH_WEIGHTS
            for path in root.glob(pattern)
        )
    stats = {name: (root / name).stat() for name in sorted(found)}
    stamp = tuple((name, stat.st_size, stat.st_mtime_ns) for name, stat in stats.items())
    shown = directory.name if directory.name.strip(".") else root.name
    return shown or str(root), _digest(str(root), stamp)


@memo(maxsize=32)
def _digest(root: str, stamp: tuple[tuple[str, int, int], ...]) -> str:
    total = hashlib.sha256()
    for name, _, _ in stamp:  # sizes and times key the memo only
        path = Path(root) / name
        if name.endswith((".json", ".txt")):  # small text files: \n line ends
            file = hashlib.sha256(path.read_bytes().replace(b"\r\n", b"\n"))
        else:
            file = hashlib.sha256()
            with open(path, "rb") as handle:
                while chunk := handle.read(1 << 20):
                    file.update(chunk)
        total.update(f"{name}\0{file.hexdigest()}\n".encode())
    return total.hexdigest()


#: How an ONNX tensor names the file it keeps its data in: the protobuf entry whose key is
#: ``location`` (field 1, 8 bytes), followed by its value (field 2, a length-prefixed string).
_LOCATION = b"\n\x08location\x12"


def external_data(root: Path, weights: str) -> tuple[str, ...]:
    """The files (relative to ``root``) the ONNX file ``root/weights`` keeps tensor data in,
    whatever their names (``onnx.save(..., location=...)``, ``torch.onnx``), read from the graph
    without onnx. A location outside ``root`` is a `ConfigurationError`."""
    onnx_path = root / weights
    found = []
    for location in _read_graph(onnx_path)[1]:
        path = (onnx_path.parent / location).resolve()
        if not path.is_relative_to(root):
            raise ConfigurationError(
                f"{onnx_path} keeps tensor data in {location!r}, outside the model directory "
                f"{root}; keep the external data files beside the ONNX file (re-export the model)"
            )
        found.append(path.relative_to(root).as_posix())
    return tuple(found)


def _read_graph(onnx_path: Path) -> tuple[bool, tuple[str, ...]]:
    """(`dynamic_int8`, the `external_data` locations) of an ONNX file, read once per version of
    it; nothing for a file that is not there or cannot be read (onnxruntime says why)."""
    try:
        stat = onnx_path.stat()
    except OSError:
        return False, ()
    return _scan(str(onnx_path.resolve()), stat.st_size, stat.st_mtime_ns)


@memo(maxsize=32)
def _scan(path: str, size: int, mtime_ns: int) -> tuple[bool, tuple[str, ...]]:
    del size, mtime_ns  # part of the cache key only
    found: set[str] = set()
    try:
        with (
            open(path, "rb") as handle,
            mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data,
        ):
            dynamic = data.find(b"DynamicQuantizeLinear") != -1
            start = data.find(_LOCATION)
            while start != -1:
                at, length, shift = start + len(_LOCATION), 0, 0
                while at < len(data) and shift < 35:  # the value's length, a varint
                    byte = data[at]
                    at, length, shift = at + 1, length | (byte & 0x7F) << shift, shift + 7
                    if not byte & 0x80:
                        break
                with contextlib.suppress(UnicodeDecodeError):
                    found.add(data[at : at + length].decode("utf-8"))
                start = data.find(_LOCATION, at)
    except (OSError, ValueError):  # an empty or unreadable file
        return False, ()
    return dynamic, tuple(sorted(found))
