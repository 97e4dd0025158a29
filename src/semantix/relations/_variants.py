"""Frozen paraphrase variants: one reviewed file per case, ``variants/<case id>.yaml`` (JSON
without PyYAML; docs/relations.md, "Frozen paraphrases"), written only by ``semantix
freeze-variants`` (`write_variants`), never over an existing file without ``force``.
"""

from __future__ import annotations

import importlib.util
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from semantix._files import read_text, write_atomic
from semantix.errors import ConfigurationError

__all__ = [
    "VariantsFile",
    "VariantsFileError",
    "load_data",
    "read_variants",
    "variants_path",
    "write_variants",
    "yaml_available",
]

#: A variants file's suffixes, in the order they are looked for.
_SUFFIXES = (".yaml", ".yml", ".json")
_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


class VariantsFileError(ConfigurationError):
    """A variants file cannot be read (damaged, or of the wrong shape), or a case id cannot
    name one."""


@dataclass(frozen=True, slots=True)
class VariantsFile:
    """The frozen variants of one case: per field, the original text and its paraphrases."""

    case: str
    fields: dict[str, tuple[str, list[str]]]
    provenance: dict[str, str] = field(default_factory=dict)

    def to_data(self) -> dict[str, Any]:
        return {
            "case": self.case,
            "provenance": dict(self.provenance),
            "fields": {
                name: {"original": original, "paraphrases": list(paraphrases)}
                for name, (original, paraphrases) in self.fields.items()
            },
        }


def yaml_available() -> bool:
    """Whether PyYAML is installed (files are then written as YAML)."""
    return importlib.util.find_spec("yaml") is not None


def check_case_id(case_id: object) -> str:
    """Return ``case_id`` if it can name a file, else raise naming it."""
    if not isinstance(case_id, str) or not _SAFE_ID.fullmatch(case_id):
        raise VariantsFileError(
            f"case id {case_id!r} cannot name a variants file: use letters, digits, '.', '_' "
            "and '-' (e.g. 'refund-1'), starting with a letter or digit"
        )
    return case_id


def variants_path(directory: Path, case_id: str) -> Path | None:
    """The case's variants file in ``directory`` (``.yaml``, else ``.json``), or None."""
    paths = (directory / f"{check_case_id(case_id)}{suffix}" for suffix in _SUFFIXES)
    return next((path for path in paths if path.is_file()), None)


def read_variants(path: Path) -> VariantsFile:
    """Read and check one variants file; a damaged one is a `VariantsFileError` naming it."""
    text = read_text(path, what="variants file", error=VariantsFileError)
    if path.suffix != ".json" and not yaml_available():
        raise VariantsFileError(
            f"{path} is YAML and PyYAML is not installed: pip install pyyaml (or "
            "convert the file to JSON with the same content and a .json extension)"
        )
    kind = "JSON" if path.suffix == ".json" else "YAML"
    return _checked(load_data(text, path, error=VariantsFileError, kind=kind), path)


def load_data(text: str, path: Path, *, error: type[Exception], kind: str = "JSON") -> object:
    """The data of a file's ``text``: ``kind`` ``JSON``, ``JSON Lines`` (a list, one value a
    line) or ``YAML``; ``error(message)`` naming the file (and line) when it is not that."""
    try:
        if kind == "JSON Lines":
            # "\n" only: splitlines would also cut at a U+2028 that JSON allows in a string
            lines = [(n, line) for n, line in enumerate(text.split("\n"), 1) if line.strip()]
            data: list[object] = []
            for number, line in lines:
                try:
                    data.append(json.loads(line))
                except ValueError as exc:
                    raise error(f"{path} line {number} is not valid JSON ({exc})") from None
            return data
        if kind == "YAML":  # PyYAML, imported only here and in write_variants
            return importlib.import_module("yaml").safe_load(text)
        return json.loads(text)
    except RecursionError:
        raise error(f"{path} nests deeper than can be read: it is no {kind} file of ours") from None
    except Exception as exc:  # json's ValueError, yaml.YAMLError (without importing yaml)
        if isinstance(exc, error):
            raise
        raise error(f"{path} is not valid {kind} ({exc})") from None


def _checked(data: object, path: Path) -> VariantsFile:
    def bad(what: str) -> VariantsFileError:
        return VariantsFileError(
            f"{path}: {what}; a variants file has 'case', 'provenance' and 'fields' (per field: "
            "'original' and a list 'paraphrases'). Fix it, or write it again with semantix "
            "freeze-variants --force"
        )

    if not isinstance(data, dict):
        raise bad(f"holds {type(data).__name__}, not a mapping")
    fields = data.get("fields")
    if not isinstance(fields, dict):
        raise bad("no 'fields' mapping")
    parsed: dict[str, tuple[str, list[str]]] = {}
    for name, entry in fields.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("original"), str):
            raise bad(f"field {name!r} has no 'original' text")
        paraphrases = entry.get("paraphrases") or []  # a reviewer may delete every one
        if not isinstance(paraphrases, list) or not all(isinstance(p, str) for p in paraphrases):
            raise bad(f"field {name!r}: 'paraphrases' must be a list of texts")
        parsed[str(name)] = (entry["original"], list(paraphrases))
    provenance = data.get("provenance") or {}
    if not isinstance(provenance, dict):
        raise bad("'provenance' must be a mapping")
    return VariantsFile(
        str(data.get("case", path.stem)), parsed, {str(k): str(v) for k, v in provenance.items()}
    )


def write_variants(directory: Path, variants: VariantsFile, *, force: bool = False) -> Path | None:
    """Write ``variants`` to ``directory/<case>.yaml`` (``.json`` without PyYAML), whole or not
    at all; None when a file for the case exists and ``force`` is False (it is kept)."""
    case_id = check_case_id(variants.case)
    if variants_path(directory, case_id) is not None and not force:
        return None
    data = variants.to_data()
    if yaml_available():
        path = directory / f"{case_id}.yaml"
        yaml: Any = importlib.import_module("yaml")
        text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
    else:
        path = directory / f"{case_id}.json"
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    write_atomic(path, text)
    for other in _SUFFIXES:  # --force: one file per case, the new one
        stale = directory / f"{case_id}{other}"
        if stale != path:
            stale.unlink(missing_ok=True)
    return path
