"""Test cases from a file: ``semantix.cases(path)`` for ``@pytest.mark.parametrize``
(docs/pytest-plugin.md, "Cases from files"; ``casefiles`` so ``semantix.cases`` stays the
function)."""

from __future__ import annotations

import csv
import hashlib
import importlib
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from semantix.errors import ConfigurationError

__all__ = ["CasesFileError", "cases"]

_FORMATS = "JSON Lines (.jsonl, .ndjson), CSV (.csv) or YAML (.yaml, .yml)"


class CasesFileError(ConfigurationError):
    """A case file cannot be read into cases: the message names the file and line."""


def cases(path: str | Path) -> list[Any]:
    """The rows of ``path`` as ``pytest.param(row, id=...)``, in file order (see the module)."""
    import pytest

    file = Path(path)
    params: list[Any] = []
    seen: dict[str, int] = {}
    for line, row in _rows(file):
        where = f"{file}:{line}"
        if not isinstance(row, dict):
            raise CasesFileError(
                f"{where}: a case is an object of named fields, got {type(row).__name__} "
                f"{_short(row)}; write one object per row"
            )
        case_id = row.get("id")
        if case_id is None:
            case_id = hashlib.sha256(_canonical(row).encode()).hexdigest()[:10]
        elif not isinstance(case_id, (str, int)) or isinstance(case_id, bool) or not str(case_id):
            raise CasesFileError(f"{where}: id {case_id!r} is not a usable id; write a short text")
        case_id = str(case_id)
        if case_id in seen:
            raise CasesFileError(
                f"{where}: id {case_id!r} is already the id of the case at line {seen[case_id]} "
                "(two rows with the same content, or the same id field); give each case its own id"
            )
        seen[case_id] = line
        params.append(pytest.param(row, id=case_id))
    return params


def _rows(file: Path) -> Iterator[tuple[int, object]]:
    suffix = file.suffix.lower()
    if suffix not in (".jsonl", ".ndjson", ".csv", ".yaml", ".yml"):
        raise CasesFileError(f"cases file {str(file)!r}: expected {_FORMATS}, by its suffix")
    try:
        text = file.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise CasesFileError(
            f"cannot read the cases file {str(file)!r} ({getattr(exc, 'strerror', None) or exc}); "
            f"pass a UTF-8 file of {_FORMATS}"
        ) from None
    if suffix == ".csv":
        reader = csv.DictReader(io.StringIO(text, newline=""))
        for row in reader:
            if None in row or None in row.values():
                raise CasesFileError(
                    f"{file}:{reader.line_num}: this row's fields do not match the header's "
                    f"{len(reader.fieldnames or ())} columns; quote a value that holds a comma"
                )
            yield reader.line_num, dict(row)
    elif suffix in (".yaml", ".yml"):
        yield from _yaml_rows(file, text)
    else:
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                try:
                    yield number, json.loads(line)
                except ValueError as exc:
                    raise CasesFileError(f"{file}:{number}: not JSON ({exc})") from None


def _yaml_rows(file: Path, text: str) -> Iterator[tuple[int, object]]:
    try:
        yaml: Any = importlib.import_module("yaml")  # optional, untyped
    except ImportError:
        raise CasesFileError(
            f"cases file {str(file)!r} is YAML, which needs PyYAML: pip install pyyaml (or write "
            "the cases as JSON Lines or CSV)"
        ) from None
    try:
        document = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise CasesFileError(f"{file}: not YAML ({exc})".replace("\n", " ")) from None
    if data is None:
        return
    if not isinstance(data, list) or document is None:
        raise CasesFileError(f"{file}: a YAML cases file is a list of cases (- field: value)")
    for node, row in zip(document.value, data, strict=True):
        yield node.start_mark.line + 1, row


def _canonical(row: dict[str, Any]) -> str:
    return json.dumps(row, sort_keys=True, ensure_ascii=False, default=str)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"
