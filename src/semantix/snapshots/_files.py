"""Snapshot files: where they live, what they are called, how they are read and written.

One small text file per snapshot, a ``# key: value`` header, a ``---`` line, then the reviewed
output verbatim, in ``__semantic_snapshots__/<test module>/`` (docs/semantic-snapshots.md, "The
files", shows one and the naming rule).
"""

from __future__ import annotations

import datetime
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from semantix._files import write_atomic
from semantix.snapshots._errors import SnapshotFileError

__all__ = [
    "MAGIC",
    "SNAPSHOT_DIR",
    "SUFFIX",
    "SnapshotFile",
    "module_directory",
    "node_basename",
    "read_snapshot",
    "safe_name",
    "snapshot_filename",
    "write_snapshot",
]

MAGIC = "# semantix semantic snapshot v1"
SEPARATOR = "---"
SNAPSHOT_DIR = "__semantic_snapshots__"
SUFFIX = ".txt"
_NOTE = "# Everything below the --- line is the reviewed output, verbatim."
_REQUIRED = ("name", "judge", "recorded")
_HEADER_FIELD = re.compile(r"#\s*([A-Za-z][\w-]*):[ \t]?(.*)")
_UNSAFE = re.compile(r"[^A-Za-z0-9_.,=+\-\[\]]")
_MAX_NAME = 80


@dataclass(frozen=True, slots=True)
class SnapshotFile:
    """One stored snapshot: its file, its header and the reviewed text."""

    path: Path
    name: str
    text: str
    judge: str
    recorded: datetime.date
    #: The pytest node id of the test that owns the snapshot (None outside the pytest fixture).
    test: str | None = None


def safe_name(name: str, *, what: str = "snapshot name") -> str:
    """``name`` as a file name safe on every system; unsafe or long names get a short hash."""
    if not isinstance(name, str):
        raise TypeError(
            f"{what} must be a str, got {type(name).__name__} ({name!r:.60}); "
            "pass e.g. name='refund-policy'"
        )
    if not name.strip():
        raise ValueError(f"{what} is empty; pass a name such as 'refund-policy'")
    safe = _UNSAFE.sub("_", name)
    if safe.startswith("."):
        safe = "_" + safe[1:]
    if safe != name or len(safe) > _MAX_NAME:
        digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]
        safe = f"{safe[: _MAX_NAME - 9]}-{digest}"
    return safe


def module_directory(module_path: Path) -> Path:
    """The snapshot directory of a test module: ``<its dir>/__semantic_snapshots__/<stem>``."""
    return module_path.parent / SNAPSHOT_DIR / module_path.stem


def node_basename(nodeid: str) -> str:
    """The file-name stem of a test's snapshots, from its node id (the part after the file)."""
    _, _, inside = nodeid.partition("::")
    return safe_name(".".join(inside.split("::")) or nodeid, what="test id")


def snapshot_filename(base: str, *, index: int | None = None, name: str | None = None) -> str:
    """The file name of a test's snapshot: the first unnamed one, the ``index``-th, or ``name``."""
    if name is not None:
        return f"{base}.{safe_name(name)}{SUFFIX}"
    if index is None or index == 1:
        return f"{base}{SUFFIX}"
    return f"{base}.{index}{SUFFIX}"


def read_snapshot(path: Path) -> SnapshotFile | None:
    """The snapshot stored at ``path``, None when there is none, or a SnapshotFileError."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise SnapshotFileError(
            f"semantic snapshot {path} is a directory, not a file; remove it and record the "
            "snapshot again with pytest --semantic-snapshot-update",
            path=path,
        ) from None
    try:
        # utf-8-sig: an editor that saves with a byte-order mark (Notepad) must not break it.
        content = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        _broken(path, f"it is not UTF-8 text ({exc.reason} at byte {exc.start})")
    return parse_snapshot(content, path)


def parse_snapshot(content: str, path: Path) -> SnapshotFile:
    """Parse a snapshot file's ``content`` (``path`` is named in errors)."""
    lines = content.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if not lines or lines[0].strip() != MAGIC:
        first = lines[0] if lines else ""
        _broken(path, f"its first line is {first!r:.60}, not {MAGIC!r}")
    fields: dict[str, str] = {}
    for number, line in enumerate(lines[1:], start=2):
        if line.strip() == SEPARATOR:
            body = "\n".join(lines[number:])
            break
        if not line and number == len(lines):
            continue  # the end of a file with no separator line
        if not line.startswith("#"):
            _broken(
                path,
                f"line {number} ({line!r:.60}) is neither a '# key: value' header line nor the "
                f"{SEPARATOR!r} line that ends the header",
            )
        match = _HEADER_FIELD.fullmatch(line)
        if match:
            fields.setdefault(match.group(1).lower(), match.group(2).strip())
    else:
        _broken(path, f"it has no {SEPARATOR!r} line between the header and the output")
    missing = [key for key in _REQUIRED if not fields.get(key)]
    if missing:
        _broken(path, f"its header lacks {', '.join(repr(key) for key in missing)}")
    try:
        recorded = datetime.date.fromisoformat(fields["recorded"])
    except ValueError:
        _broken(path, f"its 'recorded' date {fields['recorded']!r} is not YYYY-MM-DD")
    body = body.removesuffix("\n")
    return SnapshotFile(
        path=path,
        name=fields["name"],
        text=body,
        judge=fields["judge"],
        recorded=recorded,
        test=fields.get("test") or None,
    )


def format_snapshot(snapshot: SnapshotFile) -> str:
    """The file content of ``snapshot``."""
    header = [MAGIC, f"# name: {_one_line(snapshot.name)}"]
    if snapshot.test:
        header.append(f"# test: {_one_line(snapshot.test)}")
    header += [
        f"# judge: {_one_line(snapshot.judge)}",
        f"# recorded: {snapshot.recorded.isoformat()}",
        _NOTE,
        SEPARATOR,
    ]
    return "\n".join(header) + "\n" + snapshot.text + "\n"


def write_snapshot(
    path: Path,
    *,
    name: str,
    text: str,
    judge: str,
    test: str | None = None,
    recorded: datetime.date | None = None,
) -> SnapshotFile:
    """Write a snapshot whole or not at all (UTF-8 without a byte-order mark, ``\n`` line
    ends) and return it."""
    snapshot = SnapshotFile(
        path=path,
        name=name,
        text=text,
        judge=judge,
        recorded=recorded or datetime.datetime.now(datetime.timezone.utc).date(),
        test=test,
    )
    write_atomic(path, format_snapshot(snapshot))
    return snapshot


def _one_line(value: str) -> str:
    return " ".join(value.split())


def _broken(path: Path, problem: str) -> NoReturn:
    raise SnapshotFileError(
        f"semantic snapshot {path} cannot be read: {problem}. Restore it from version control, "
        "or delete it and record it again with pytest --semantic-snapshot-update",
        path=path,
    )
