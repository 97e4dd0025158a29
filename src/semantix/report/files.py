"""Report files: written whole or not at all, always valid UTF-8, and read back with clear errors.

Every report sink goes through here:

- `encodable` replaces what UTF-8 cannot encode (a lone surrogate such as ``"\\ud800"`` from a
  judge's reason or an output) with U+FFFD, and joins a split surrogate pair into its character;
- `write_text_atomic` writes a file whole or not at all, so a failure never leaves a truncated
  report behind (the old file, if any, is kept): `semantix.files.write_atomic`, the one rule
  for every file semantix writes;
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

import json
from pathlib import Path

from semantix.files import encodable
from semantix.files import write_atomic as write_text_atomic
from semantix.report.schema import ReportDocumentError

__all__ = ["encodable", "read_json_report", "write_text_atomic"]

#: Where the JSON report comes from, for errors that say which file to pass instead.
_WRITTEN_BY = "pass the file pytest wrote with --semantic-report-json PATH"


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
