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

from semantix._files import read_text
from semantix._text import read_model_json
from semantix.errors import ConfigurationError

__all__ = ["MAX_ALIASED_VALUES", "CasesFileError", "cases"]

_FORMATS = "JSON Lines (.jsonl, .ndjson), JSON (.json), CSV (.csv) or YAML (.yaml, .yml)"

#: The most values YAML aliases (``*name``) may repeat in one cases file, all aliases together:
#: a few hundred bytes of nested aliases otherwise expand to billions of values.
MAX_ALIASED_VALUES = 100_000


class CasesFileError(ConfigurationError):
    """A case file cannot be read into cases: the message names the file and line."""


def cases(path: str | Path) -> list[Any]:
    """The rows of ``path`` as ``pytest.param(row, id=...)``, in file order (see the module).

    Raises:
        CasesFileError: the file cannot be read, a row is not an object or repeats a name or an
            id, or the file holds no cases at all (pytest would skip the test and the run would
            pass having checked nothing).
    """
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
    if not params:
        raise CasesFileError(
            f"cases file {str(file)!r} holds no cases: a test parametrized over none is skipped "
            "and the run passes having checked nothing; add a case, or remove the test"
        )
    return params


def _rows(file: Path) -> Iterator[tuple[int, object]]:
    suffix = file.suffix.lower()
    if suffix not in (".jsonl", ".ndjson", ".json", ".csv", ".yaml", ".yml"):
        raise CasesFileError(f"cases file {str(file)!r}: expected {_FORMATS}, by its suffix")
    try:
        text = read_text(file, what="cases file", error=CasesFileError)
    except OSError as exc:
        raise CasesFileError(
            f"cannot read the cases file {str(file)!r} ({exc.strerror or exc}); "
            f"pass a UTF-8 file of {_FORMATS}"
        ) from None
    if suffix == ".csv":
        yield from _csv_rows(file, text)
    elif suffix in (".yaml", ".yml"):
        yield from _yaml_rows(file, text)
    elif suffix == ".json":
        yield from _json_rows(file, text)
    else:
        # Lines end at "\n" only: str.splitlines would also cut at U+2028 or U+0085, which JSON
        # allows unescaped inside a string.
        for number, line in enumerate(text.split("\n"), start=1):
            if line.strip():
                yield number, _json(file, number, line)


def _json(file: Path, line: int, text: str) -> object:
    try:
        return read_model_json(text)  # RFC 8259: no NaN, no name given twice
    except ValueError as exc:
        raise CasesFileError(f"{file}:{line}: not JSON ({exc})") from None


def _json_rows(file: Path, text: str) -> Iterator[tuple[int, object]]:
    data = _json(file, 1, text)
    if not isinstance(data, list):
        raise CasesFileError(
            f"{file}: a JSON cases file is an array of cases ([{{...}}, {{...}}]), got "
            f"{type(data).__name__}; for one object a line, name the file .jsonl"
        )
    # The line of each case: where the decoder, resumed after the previous one, finds it.
    decoder, position = json.JSONDecoder(), text.index("[") + 1
    for row in data:
        while text[position] in " \t\r\n,":
            position += 1
        line = text.count("\n", 0, position) + 1
        position = decoder.raw_decode(text, position)[1]
        yield line, row


def _csv_rows(file: Path, text: str) -> Iterator[tuple[int, object]]:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    names = reader.fieldnames or ()
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise CasesFileError(
            f"{file}:1: the header names the column {repeated[0]!r} more than once, so one "
            "column's values would be lost; give each column its own name"
        )
    for row in reader:
        if None in row or None in row.values():
            raise CasesFileError(
                f"{file}:{reader.line_num}: this row's fields do not match the header's "
                f"{len(names)} columns; quote a value that holds a comma"
            )
        yield reader.line_num, dict(row)


def _yaml_rows(file: Path, text: str) -> Iterator[tuple[int, object]]:
    try:
        yaml: Any = importlib.import_module("yaml")  # optional, untyped
    except ImportError:
        raise CasesFileError(
            f"cases file {str(file)!r} is YAML, which needs PyYAML: pip install pyyaml (or write "
            "the cases as JSON Lines or CSV)"
        ) from None
    try:
        lines = _yaml_lines(yaml, file, text)
        data = yaml.load(text, Loader=_loader(yaml, file))  # a SafeLoader: no Python tags
    except yaml.YAMLError as exc:
        raise CasesFileError(f"{file}: not YAML ({exc})".replace("\n", " ")) from None
    if data is None:
        return
    if not isinstance(data, list) or len(lines) != len(data):
        raise CasesFileError(f"{file}: a YAML cases file is a list of cases (- field: value)")
    yield from zip(lines, data, strict=True)


def _yaml_lines(yaml: Any, file: Path, text: str) -> list[int]:
    """The line of each item of the top-level list, from the parser's events (an item that is
    an alias ``*name`` is on its own line, not its anchor's). Refuses, before anything is built,
    an alias inside its own anchor (a case that contains itself) and aliases repeating more
    than `MAX_ALIASED_VALUES` values in all (each alias counts every value its anchor holds,
    aliases within it expanded)."""
    lines: list[int] = []
    sizes: dict[str, int] = {}  # a closed anchor -> how many values it stands for
    open_: list[tuple[str | None, bool, list[int]]] = []  # open: (anchor, a list?, [values])
    repeated = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.CollectionEndEvent):
            anchor, _, (size,) = open_.pop()
            if anchor:
                sizes[anchor] = size
            if open_:
                open_[-1][2][0] += size
            continue
        if not isinstance(event, yaml.NodeEvent):
            continue  # the stream's and documents' start and end
        if len(open_) == 1 and open_[0][1]:  # an item of the top-level list
            lines.append(event.start_mark.line + 1)
        size = 1
        if isinstance(event, yaml.AliasEvent):
            where = f"{file}:{event.start_mark.line + 1}"
            if any(anchor == event.anchor for anchor, _, _ in open_):
                raise CasesFileError(
                    f"{where}: the alias *{event.anchor} is inside its own anchor "
                    f"&{event.anchor}, so the value would contain itself; write it out"
                )
            size = sizes.get(event.anchor, 1)  # an unknown anchor: the composer says so
            repeated += size
            if repeated > MAX_ALIASED_VALUES:
                raise CasesFileError(
                    f"{where}: YAML aliases (*name) here repeat more than "
                    f"{MAX_ALIASED_VALUES:,} values in all, past what a cases file may expand "
                    "to (an alias bomb?); write the values out, or use fewer aliases"
                )
        elif isinstance(event, yaml.CollectionStartEvent):
            open_.append((event.anchor, isinstance(event, yaml.SequenceStartEvent), [1]))
            continue  # counted when it ends, with what it holds
        elif event.anchor:
            sizes[event.anchor] = 1
        if open_:
            open_[-1][2][0] += size
    return lines


def _loader(yaml: Any, file: Path) -> Any:
    """PyYAML's SafeLoader, refusing a key given twice in one mapping (PyYAML keeps the last
    value); a key a merge (``<<: *base``) brings may be given again, as merges intend."""

    class Loader(yaml.SafeLoader):  # type: ignore[misc]
        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: set[Any] = set()
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                if isinstance(key, (str, int, float, bool)) or key is None:
                    if key in seen:
                        raise CasesFileError(
                            f"{file}:{key_node.start_mark.line + 1}: the key {key!r} appears "
                            "twice in one mapping, so its first value would be lost; give "
                            "each field its own name"
                        )
                    seen.add(key)
            return super().construct_mapping(node, deep=deep)

    return Loader


def _canonical(row: dict[str, Any]) -> str:
    return json.dumps(row, sort_keys=True, ensure_ascii=False, default=str)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"
