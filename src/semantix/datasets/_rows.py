"""The rows of a dataset, read as a stream: JSON Lines, CSV, Parquet, a directory of them, or
JSON Lines on stdin (docs/evaluating-datasets.md, "Rows").

A row that cannot be judged (not JSON, not an object, no output field, a bad id, intent or
label) is still a `Row`, with ``error`` saying why and where: the runner records it as that
row's error, never skips it and never counts it as a pass.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from semantix.errors import ConfigurationError

__all__ = [
    "SUFFIXES", "Fields", "Row", "count_rows", "data_files", "file_rows", "read_rows", "to_row",
]  # fmt: skip

#: The file suffixes a dataset may have (a directory's other files are left alone).
SUFFIXES = (".jsonl", ".ndjson", ".csv", ".parquet")
_FORMATS = "JSON Lines (.jsonl, .ndjson), CSV (.csv) or Parquet (.parquet)"
_LABELS = {"true": True, "yes": True, "1": True, "pass": True}
_LABELS |= {"false": False, "no": False, "0": False, "fail": False}


@dataclass(frozen=True, slots=True)
class Fields:
    """Which field of a row holds what: the output (required), the id, the row's own intents
    (``intent``: one spec; ``intents``: a list) and the expected label."""

    output: str = "output"
    id: str = "id"
    intent: str = "intent"
    intents: str = "intents"
    expected: str = "expected"


@dataclass(frozen=True, slots=True)
class Row:
    """One row: its place in the stream (``index``, from 0) and in its file (``where``:
    ``file:line``), its id, output, own intent specs and label; or ``error``."""

    index: int
    where: str
    id: str
    output: object = None
    intents: tuple[str, ...] = ()
    expected: bool | None = None
    error: str | None = None

    def __repr__(self) -> str:
        state = f"error={self.error!r:.60}" if self.error else f"intents={len(self.intents)}"
        return f"<Row {self.id} at {self.where} {state}>"


def data_files(data: str | Path) -> list[Path] | None:
    """The files of ``data`` in the order they are read (a directory's, sorted by path), or
    None for ``-`` (stdin); a ConfigurationError when there is nothing to read."""
    if str(data) == "-":
        return None
    path = Path(data)
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.suffix.lower() in SUFFIXES and p.is_file())
        if not files:
            raise ConfigurationError(
                f"the directory {str(path)!r} holds no dataset files; put {_FORMATS} files in it"
            )
        return files
    if not path.exists():
        raise ConfigurationError(f"the dataset {str(path)!r} does not exist; pass {_FORMATS}")
    if path.suffix.lower() not in SUFFIXES:
        raise ConfigurationError(
            f"the dataset {str(path)!r}: expected {_FORMATS} by its suffix, or '-' for JSON "
            "Lines on stdin"
        )
    return [path]


def read_rows(data: str | Path, fields: Fields = Fields()) -> Iterator[Row]:
    """Every row of ``data`` (`data_files`), in order, as `Row`s."""
    files = data_files(data)
    raw: Iterable[tuple[str, object]]
    if files is None:
        raw = _json_lines(sys.stdin.buffer, "<stdin>")
    else:
        raw = (item for file in files for item in file_rows(file))
    for index, (where, value) in enumerate(raw):
        yield to_row(index, where, value, fields)


def count_rows(data: str | Path) -> int | None:
    """How many rows ``data`` holds, counted cheaply (for a progress bar's ETA; None: stdin)."""
    files = data_files(data)
    if files is None:
        return None
    total = 0
    for file in files:
        suffix = file.suffix.lower()
        if suffix == ".parquet":
            total += _parquet(file).ParquetFile(file).metadata.num_rows
            continue
        with file.open("rb") as handle:
            lines = sum(1 for line in handle if line.strip())
        total += lines - 1 if suffix == ".csv" and lines else lines
    return total


def file_rows(file: Path, data: bytes | None = None) -> Iterator[tuple[str, object]]:
    """``(where, raw row)`` of one file, read from disk or from ``data`` (its bytes, as Ray Data
    hands them to a worker); a raw row that cannot be read is a `_Bad` saying why."""
    suffix = file.suffix.lower()
    try:
        with file.open("rb") if data is None else io.BytesIO(data) as handle:
            if suffix == ".csv":
                yield from _csv_rows(handle, str(file))
            elif suffix == ".parquet":
                yield from _parquet_rows(handle, file)
            else:
                yield from _json_lines(handle, str(file))
    except OSError as exc:
        raise ConfigurationError(
            f"cannot read the dataset file {str(file)!r} ({exc.strerror or exc})"
        ) from None


def _json_lines(handle: BinaryIO, name: str) -> Iterator[tuple[str, object]]:
    for number, line in enumerate(handle, start=1):
        if line.isspace():
            continue
        where = f"{name}:{number}"
        try:
            yield where, _decode(line.decode("utf-8-sig" if number == 1 else "utf-8"))
        except UnicodeDecodeError as exc:
            yield where, _Bad(f"not UTF-8 text (byte 0x{line[exc.start]:02x})")
        except ValueError as exc:
            yield where, _Bad(f"not JSON ({exc})")
        except RecursionError:
            yield where, _Bad("JSON nested deeper than Python reads")


_decode = json.JSONDecoder().decode  # `json.loads` less its checks of what it is given


def _csv_rows(handle: BinaryIO, name: str) -> Iterator[tuple[str, object]]:
    text = io.TextIOWrapper(handle, encoding="utf-8-sig", newline="")
    reader = csv.DictReader(text)
    try:
        for row in reader:
            where = f"{name}:{reader.line_num}"
            if None in row or None in row.values():
                columns = len(reader.fieldnames or ())
                yield (
                    where,
                    _Bad(
                        f"this row's fields do not match the header's {columns} columns; quote "
                        "a value that holds a comma"
                    ),
                )
            else:
                yield where, dict(row)
    except UnicodeDecodeError as exc:
        yield (
            f"{name}:{reader.line_num + 1}",
            _Bad(
                f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x}); the rest of the file "
                "cannot be read: save it as UTF-8"
            ),
        )
    except csv.Error as exc:
        yield f"{name}:{reader.line_num}", _Bad(f"not CSV ({exc}); the rest is not read")
    finally:
        text.detach()


def _parquet(file: Path) -> Any:
    try:
        from pyarrow import parquet
    except ImportError:
        raise ConfigurationError(
            f"the dataset {str(file)!r} is Parquet, which needs pyarrow: pip install "
            "'semantix-judge[eval]' (or write the rows as JSON Lines or CSV)"
        ) from None
    return parquet


def _parquet_rows(handle: BinaryIO, file: Path) -> Iterator[tuple[str, object]]:
    number = 0
    for batch in _parquet(file).ParquetFile(handle).iter_batches(batch_size=1024):
        for row in batch.to_pylist():
            number += 1
            yield f"{file}:row {number}", row


class _Bad(str):
    """Why a raw row could not be read (a str, so it is never mistaken for a row)."""


def to_row(index: int, where: str, value: object, fields: Fields) -> Row:
    """The `Row` of a raw row read at ``where`` (its error, if it cannot be judged)."""
    if type(value) is dict:  # the common row: a text id, its output, no intents, no label
        row_id = value.get(fields.id)
        if (
            type(row_id) is str
            and row_id
            and fields.output in value
            and fields.intent not in value
            and fields.intents not in value
            and value.get(fields.expected) is None
        ):
            return Row(index, where, row_id, value[fields.output])
    elif isinstance(value, _Bad):
        return Row(index, where, f"{where}", error=f"{where}: {value}")
    if type(value) is not dict and not isinstance(value, Mapping):
        return Row(
            index, where, where,
            error=f"{where}: a row is an object of named fields, got {type(value).__name__}",
        )  # fmt: skip
    row_id = value.get(fields.id)
    if row_id is None:
        row_id = hashlib.sha256(_canonical(value).encode()).hexdigest()[:10]  # semantix.cases'
    elif not isinstance(row_id, (str, int)) or isinstance(row_id, bool) or not str(row_id):
        return Row(index, where, where, error=f"{where}: id {row_id!r} is not a usable id")
    row_id = str(row_id)
    if fields.output not in value:
        named = ", ".join(map(str, value)) or "none"
        return Row(
            index, where, row_id,
            error=f"{where}: no field {fields.output!r} holds the output (fields: {named}); "
            "name it with --output-field",
        )  # fmt: skip
    try:
        intents = _intents(value, fields)
        expected = _label(value.get(fields.expected), fields.expected)
    except ValueError as exc:
        return Row(index, where, row_id, error=f"{where}: {exc}")
    return Row(index, where, row_id, value[fields.output], intents, expected)


def _intents(value: Mapping[str, Any], fields: Fields) -> tuple[str, ...]:
    specs: list[object] = []
    for name in (fields.intent, fields.intents):
        given = value.get(name)
        if given is None or given == "":
            continue
        if name == fields.intents and isinstance(given, str) and given.lstrip().startswith("["):
            try:  # a CSV cell holding a JSON list
                given = json.loads(given)
            except ValueError:
                raise ValueError(f"{name} {given!r} is not a JSON list of specs") from None
        specs.extend(given if isinstance(given, list) else [given])
    wrong = [spec for spec in specs if not isinstance(spec, str) or not spec.strip()]
    if wrong:
        raise ValueError(f"intent {wrong[0]!r} is not an intent spec; write a text spec")
    return tuple(str(spec) for spec in specs)


def _label(value: object, name: str) -> bool | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return value
    found = _LABELS.get(str(value).strip().lower())
    if found is None:
        raise ValueError(
            f"{name} = {value!r} is not a label; write true or false (also yes/no, 1/0, pass/fail)"
        )
    return found


def _canonical(row: Mapping[str, Any]) -> str:
    return json.dumps(row, sort_keys=True, ensure_ascii=False, default=str)
