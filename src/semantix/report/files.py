"""Report files: written whole or not at all, always valid UTF-8, and read back with clear errors.

Every report sink goes through here:

- `encodable` replaces what UTF-8 cannot encode (a lone surrogate such as ``"\\ud800"`` from a
  judge's reason or an output) with U+FFFD, and joins a split surrogate pair into its character;
- `write_text_atomic` writes a file through a temporary file in the same directory and
  ``os.replace``, so a failure never leaves a truncated report behind (the old file, if any, is
  kept);
- `read_json_report` reads a saved JSON report and raises `ReportDocumentError` naming the file
  and what is wrong with it (not UTF-8, not JSON, nested too deep), never a raw codec or
  recursion error.

```python
from semantix.report.files import encodable

print(encodable("ok \\ud800 ok"))
#> ok \ufffd ok
```
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from pathlib import Path

from semantix.report.schema import ReportDocumentError

__all__ = ["encodable", "read_json_report", "write_text_atomic"]

_SURROGATE = re.compile("[\ud800-\udfff]")

#: Where the JSON report comes from, for errors that say which file to pass instead.
_WRITTEN_BY = "pass the file pytest wrote with --semantic-report-json PATH"


def encodable(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (a surrogate pair becomes its
    character), so that it encodes as UTF-8; unchanged (the same object) when already fine."""
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` as UTF-8 (parents created), whole or not at all.

    What UTF-8 cannot encode is replaced (`encodable`). The text goes to a temporary file in the
    same directory, which then replaces ``path``; if anything fails, ``path`` is as it was and the
    temporary file is removed. The new file gets the permissions a plain ``open`` would give it.
    """
    path = Path(path)
    data = encodable(text).encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.chmod(temporary, _file_mode(path))
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _file_mode(path: Path) -> int:
    """The mode of the file being replaced, else what ``open`` would create (0o666 - umask)."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def read_json_report(path: Path) -> object:
    """The JSON value held by the report file ``path``; `ReportDocumentError` naming the file
    when it cannot be read, is not UTF-8 text, is not JSON or nests deeper than Python reads.

    A string holding an escaped lone surrogate (``"\\ud800"``) reads as it is; the page written
    from it replaces it (`write_text_atomic`).
    """
    shown = repr(str(path))
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ReportDocumentError(
            f"cannot read the JSON report {shown} ({exc.strerror or exc}); {_WRITTEN_BY}"
        ) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ReportDocumentError(
            f"{shown} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}), so "
            f"it is not a JSON report; {_WRITTEN_BY}"
        ) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReportDocumentError(
            f"{shown} is not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}); "
            f"{_WRITTEN_BY}"
        ) from None
    except RecursionError:
        raise ReportDocumentError(
            f"{shown} nests arrays or objects deeper than can be read (a semantix report nests "
            f"5 levels); {_WRITTEN_BY}"
        ) from None
