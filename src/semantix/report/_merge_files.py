"""`semantix report merge` on files: the shards' reports merged into one written file without
making a typed record of each of their (often millions of) assertions.

Each shard is read and checked on its own, in a pool of processes when the shards are large (one
per CPU): its top-level fields as `semantix.report._schema.check_document` checks them, then each
record. A record already in the form the report writer gives it (the model's fields in order,
each of its type, none of the left-out ones null: every record semantix wrote) is checked by its
keys' and values' types, looked up once per shape (`_plain`), and its JSON text goes to the
merged file as it is; any other record (an older version's, a newer semantix's field, a bad one)
is read by the one reader (`_record`: upgraded, or the error naming the file and the field) and
written again from its typed record. The merged file then equals `merge_reports`' (its records,
its summary counted from them, every section), which the tests check.

Records are parsed by the json module's C scanner, or, each on a line of its own, by orjson where
the ``fast`` extra installed it (three times quicker; what orjson refuses, the scanner reads).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import re
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, fields, replace
from json.decoder import scanstring  # type: ignore[attr-defined]
from json.scanner import make_scanner
from pathlib import Path
from typing import Any

from semantix._files import replace as replace_file
from semantix._files import write_atomic
from semantix.judges._verdict import TokenUsage
from semantix.report._counts import Counts
from semantix.report._json import _plan
from semantix.report._merge import _check_paths, merged_parts
from semantix.report._model import CheckRecord, Leaf, Summary, to_json
from semantix.report._records import _EMPTY
from semantix.report._schema import (
    _BY_TYPE,
    ReportDocumentError,
    _finite,
    _record,
    check_document,
    load_report,
    paused_gc,
)

__all__ = ["merge_files"]

#: Shards larger than this (all together) are read in a pool of processes.
POOL_BYTES = 32 * 2**20


def merge_files(paths: Sequence[Path], output: Path, *, workers: int | None = None) -> int:
    """Merge the JSON reports of one run's shards at ``paths`` into ``output`` (as
    `merge_reports` and `semantix.report._records.write_json_report` would); return how many
    records it holds. ``workers``: processes that read the shards (default: one per CPU when the
    shards are large, else none)."""
    names = [str(path) for path in paths]
    if not names:
        raise ReportDocumentError("no reports to merge; pass the shards' JSON reports")
    _check_paths(names)
    if workers is None:
        large = sum(Path(path).stat().st_size for path in names if Path(path).is_file())
        workers = min(len(names), os.cpu_count() or 1) if large > POOL_BYTES else 0
    shards: list[_Shard] = []
    texts: list[bytes | memoryview] = []
    with paused_gc():
        for shard in _read_shards(names, workers):  # each one's texts taken as it comes
            data = memoryview(_file(shard))
            texts += [p if type(p) is bytes else data[p[0] : p[1]] for p in shard.pieces]
            shard.pieces = []
            shards.append(shard)
        return _write(output, shards, texts)


def _read_shards(names: list[str], workers: int) -> Iterator[_Shard]:
    """Each shard read (`_read_shard`), in a pool of ``workers`` processes where there are more
    than one and this system can start them (some sandboxes cannot)."""
    pool = None
    if workers > 1:
        with contextlib.suppress(OSError, NotImplementedError):  # no process semaphores
            pool = ProcessPoolExecutor(workers)
    if pool is None:
        yield from map(_read_shard, names)
        return
    try:
        yield from pool.map(_read_shard, names)
    finally:  # a shard refused: the others are not read
        pool.shutdown(cancel_futures=True)


@dataclass
class _Shard:
    """A shard's report less its records, and what the merge needs of each record: its test id,
    its JSON text (a ``(start, end)`` of the file's bytes, or the bytes written again), and the
    summary's counts."""

    path: str
    report: Any
    #: The file's size when it was read, when its records' texts are taken from it (else 0).
    size: int = 0
    nodeids: list[str] = field(default_factory=list)
    pieces: list[tuple[int, int] | bytes] = field(default_factory=list)
    counts: Counts = field(default_factory=Counts)

    def add(self, record: dict[str, Any], piece: tuple[int, int] | bytes, at: int = -1) -> None:
        """Count ``record`` (its JSON as the writer gives it); ``at``: the place kept for it
        (default: after those added)."""
        if at < 0:
            self.nodeids.append(record["nodeid"])
            self.pieces.append(piece)
        else:
            self.nodeids[at], self.pieces[at] = record["nodeid"], piece
        self.counts.add(record)


class _Unusual(ValueError):
    """A shard this reader does not take apart (the one reader of reports reads it whole)."""


def _constant(name: str) -> float:
    raise _Unusual(name)  # NaN or Infinity: the whole reader names the field


_SCAN: Any = make_scanner(json.JSONDecoder(parse_constant=_constant))  # type: ignore[arg-type]
_SPACE: Any = re.compile(r"[ \t\n\r]*").match  # always matches
_ENCODE = json.JSONEncoder(ensure_ascii=False).encode


def _read_shard(path: str) -> _Shard:
    try:
        data = Path(path).read_bytes()
        size, text = len(data), data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return _whole(path)  # the reader's error
    del data  # the text is what is read from here
    try:
        with paused_gc():
            return _taken_apart(path, text, size)
    except ReportDocumentError as exc:
        raise ReportDocumentError(f"{path!r}: {exc}") from None
    except (ValueError, IndexError, RecursionError, StopIteration):
        return _whole(path)  # not JSON (the reader's error), or a layout the reader reads


def _taken_apart(path: str, text: str, size: int) -> _Shard:
    """The shard of ``text``: each record counted as it is scanned (and dropped: bounded
    memory), those not in the writer's form kept to be read by the one reader."""
    ascii_ = text.isascii()  # then the text's places are the file's
    shard = _Shard(path, None, size if ascii_ else 0)
    others: list[tuple[int, Any]] = []
    form = _record_form()

    def take(index: int, record: Any, start: int, end: int) -> None:
        if not _plain(record, form):
            others.append((index, record))
            shard.nodeids.append("")  # its place, filled once it is read
            shard.pieces.append(b"")
        elif text.find("\n", start, end) >= 0:  # over many lines: written again on one
            shard.add(record, _ENCODE(record).encode("utf-8"))
        elif ascii_:
            shard.add(record, (start, end))  # its text as it is, taken from the file
        else:
            shard.add(record, text[start:end].encode("utf-8"))  # its text as it is

    rest = _split(text, take)
    shard.report = check_document(rest)
    current = shard.report.upgraded_from is None
    if others:  # read by the one reader, written again, in their places
        for index, value in others:
            record = to_json(_record(value, f"assertions[{index}]", current))
            shard.add(record, _ENCODE(record).encode("utf-8"), index)
    return shard


def _whole(path: str) -> _Shard:
    """A shard read whole by `load_report` (its errors are the reader's), its records encoded
    again."""
    with paused_gc():
        report = load_report(Path(path))
        shard = _Shard(path, replace(report, assertions=()))
        for record in report.assertions:
            data = to_json(record)
            shard.add(data, _ENCODE(data).encode("utf-8"))
    return shard


def _split(text: str, take: Callable[[int, Any, int, int], None]) -> dict[str, Any]:
    """The top-level object of ``text`` less its ``assertions`` (an empty list in their place),
    each of those given to ``take`` as it is scanned (its index, value, and where its text starts
    and ends); `_Unusual` (or the scanner's error) for anything but one JSON object with one
    ``assertions`` list."""
    rest: dict[str, Any] = {}
    at = _SPACE(text, 0).end()
    if text[at] != "{":
        raise _Unusual(at)
    at = _SPACE(text, at + 1).end()
    while text[at] != "}":
        if text[at] != '"':
            raise _Unusual(at)
        key, at = scanstring(text, at + 1)
        at = _SPACE(text, at).end()
        if text[at] != ":" or key in rest:
            raise _Unusual(at)
        at = _SPACE(text, at + 1).end()
        if key == "assertions" and text[at] == "[":
            rest[key], at = [], _items(text, at, take)
        else:
            rest[key], at = _SCAN(text, at)
        at = _SPACE(text, at).end()
        if text[at] == ",":
            at = _SPACE(text, at + 1).end()
        elif text[at] != "}":
            raise _Unusual(at)
    if _SPACE(text, at + 1).end() != len(text):
        raise _Unusual(at)
    return rest


def _items(text: str, at: int, take: Callable[[int, Any, int, int], None]) -> int:
    """Each item of the list at ``text[at]`` (``[``) given to ``take``; where the list ends."""
    at = _SPACE(text, at + 1).end()
    space = _SPACE
    if text[at] == "]":
        return at + 1
    index = 0
    while True:
        value, end = _line(text, at)
        take(index, value, at, end)
        index += 1
        at = space(text, end).end()
        if text[at] == "]":
            return at + 1
        if text[at] != ",":
            raise _Unusual(at)
        at = space(text, at + 1).end()


def _line(text: str, at: int) -> tuple[Any, int]:
    """The item at ``text[at]`` and where it ends: by orjson when it is the rest of its line
    (less a comma: a report's layout, one record a line), else by the scanner. orjson reads
    only strict JSON (no NaN, no integer over 64 bits, no lone surrogate, ...): what it refuses
    the scanner reads, so the value is the one `json` gives."""
    loads = _LOADS
    if loads is None:
        return _SCAN(text, at)  # type: ignore[no-any-return]
    end = text.find("\n", at)
    end = len(text) if end < 0 else end
    while end > at and text[end - 1] in _TRAILING:
        end -= 1
    try:
        return loads(text[at:end]), end
    except ValueError:  # orjson.JSONDecodeError
        return _SCAN(text, at)  # type: ignore[no-any-return]


def _orjson_loads() -> Callable[[str], Any] | None:
    """orjson's reader where the 'fast' extra installed it (about 3 times quicker)."""
    try:
        return importlib.import_module("orjson").loads  # type: ignore[no-any-return]
    except ImportError:
        return None


_LOADS = _orjson_loads()
_TRAILING = frozenset(" \t\r,")


# --- a record's shape -------------------------------------------------------------------------

#: What to check of a value of a shape: a word from a set, a list of nested objects, or one.
_WORD, _MANY, _ONE = range(3)
_Checks = tuple[tuple[int, str, Any], ...]
_Shapes = dict[tuple[tuple[str, ...], tuple[type, ...]], "_Checks | None"]


@dataclass
class _Form:
    """The writer's form of a model class's objects, by shape (`_shape`, decided once each per
    shard), and the forms of the objects they nest, by their fields' annotations."""

    cls: type
    nested: dict[str, _Form]
    shapes: _Shapes = field(default_factory=dict)


def _record_form() -> _Form:
    """A record's form, new for each shard: nothing a merge learns outlives it."""
    nested: dict[str, _Form] = {}
    nested["tuple[Leaf, ...]"] = _Form(Leaf, nested)
    nested["TokenUsage | None"] = _Form(TokenUsage, nested)
    return _Form(CheckRecord, nested)


_UNSEEN: Any = object()


def _plain(value: Any, form: _Form) -> bool:
    """Whether ``value`` is an object of ``form``'s model class as the writer gives it: its keys
    and their values' types (a shape decided once, `_shape`), then what the types leave open (a
    word, nested objects)."""
    if type(value) is not dict:
        return False
    key = (tuple(value), tuple(map(type, value.values())))
    checks = form.shapes.get(key, _UNSEEN)
    if checks is _UNSEEN:
        if len(form.shapes) > 4096:  # shapes of unusual records: bounded
            form.shapes.clear()
        checks = form.shapes[key] = _shape(form, *key)
    if checks is None:
        return False
    for kind, name, test in checks:
        item = value[name]
        if kind == _WORD:
            if not test(item):
                return False
        elif kind == _MANY:
            for one in item:
                if not _plain(one, test):
                    return False
        elif not _plain(item, test):
            return False
    return True


def _shape(form: _Form, keys: tuple[str, ...], kinds: tuple[type, ...]) -> _Checks | None:
    """The checks of each value of an object of ``form`` with these keys holding values of these
    types, or None when it is not the writer's form (then the one reader reads it)."""
    cls = form.cls
    names, _, _, optional = _plan(cls)
    if keys != tuple(name for name in names if name in keys) or not set(names) - set(
        optional
    ) <= set(keys):
        return None
    types = {f: str(t) for f, t in _annotations(cls).items()}
    checks: list[tuple[int, str, Any]] = []
    for name, kind in zip(keys, kinds, strict=True):
        annotation = types[name]
        if annotation in form.nested:
            many = annotation.startswith("tuple")
            if kind is not (list if many else dict) and not (kind is type(None) and not many):
                return None
            if kind is not type(None):  # null: nothing more to check
                checks.append((_MANY if many else _ONE, name, form.nested[annotation]))
            continue
        expected = _BY_TYPE.get(annotation)
        if expected is None or kind not in expected[1]:
            return None
        test = expected[2]
        if name in optional and kind is type(None):
            return None  # the writer leaves it out
        if test is not None and test is not _finite and kind is not type(None):
            if not isinstance(getattr(test, "__self__", None), frozenset):
                return None  # a list of strings: the reader checks it
            checks.append((_WORD, name, test))
    return tuple(checks)


def _annotations(cls: type) -> dict[str, Any]:
    return {f.name: f.type for f in fields(cls)}


# --- the merged file --------------------------------------------------------------------------


def _write(output: Path, shards: Sequence[_Shard], texts: list[bytes | memoryview]) -> int:
    """The merged report: its parts (`merged_parts`: the shards checked to be one run's) with
    every record's text (``texts``, in the shards' order), sorted by test id (each shard's in
    its order, in the shards' order)."""
    merged = merged_parts([(shard.path, shard.report) for shard in shards], _ids(shards))
    plain = merged.to_json()
    plain["summary"] = to_json(_summary(shards))
    nodeids = [nodeid for shard in shards for nodeid in shard.nodeids]
    if not nodeids:
        write_atomic(output, json.dumps(plain, indent=2, ensure_ascii=False) + "\n")
        return 0
    head, marker, tail = json.dumps(plain, indent=2, ensure_ascii=False).partition(_EMPTY)
    assert marker, "Report.to_json puts the assertions after the summary"
    order = sorted(range(len(texts)), key=nodeids.__getitem__)
    ends = (f"{head}{marker[:-1]}\n    ".encode(), f"\n  ]{tail}\n".encode())
    _write_whole(output, ends, texts, order)
    return len(nodeids)


def _ids(shards: Sequence[_Shard]) -> list[set[str]]:
    return [set(shard.nodeids) for shard in shards]


def _file(shard: _Shard) -> bytes:
    """The shard's file, as it was read (`ReportDocumentError` when it changed since)."""
    if not shard.size:
        return b""
    data = Path(shard.path).read_bytes()
    if len(data) != shard.size:
        raise ReportDocumentError(
            f"{shard.path!r} changed while it was merged ({shard.size:,} bytes when read, "
            f"{len(data):,} now); merge the shards again once their runs are done"
        )
    return data


def _write_whole(
    path: Path, ends: tuple[bytes, bytes], pieces: Sequence[bytes | memoryview], order: list[int]
) -> None:
    """``ends[0]``, the ``pieces`` in ``order`` (one a line), ``ends[1]`` to ``path``, whole or
    not at all (as `semantix._files.write_atomic` writes, without joining them first)."""
    temporary = path.with_name(f".{path.name[:40]}.{os.urandom(6).hex()}.tmp")
    try:
        with temporary.open("xb") as file:
            file.write(ends[0])
            for first in range(0, len(order), _BLOCK):  # joined a block at a time
                block = order[first : first + _BLOCK]
                file.write((b"" if first == 0 else _SEPARATOR) + _SEPARATOR.join(
                    [pieces[index] for index in block]
                ))  # fmt: skip
            file.write(ends[1])
            file.flush()
            os.fsync(file.fileno())
        replace_file(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


_BLOCK = 4096
_SEPARATOR = b",\n    "


def _summary(shards: Sequence[_Shard]) -> Summary:
    counts = Counts()
    for shard in shards:
        counts.update(shard.counts)
    return counts.summary()
