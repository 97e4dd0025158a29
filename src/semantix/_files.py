"""Files: one rule for every file semantix writes, one for every file a person may have saved.

- `write_atomic` (every file semantix writes): the data goes to a flushed temporary file in the
  same directory, which then replaces the target (`replace`), so a reader or a concurrent writer
  sees the old file or one writer's whole new one; on failure the target is as it was. Text is
  UTF-8 (`encodable`), newlines as given; a replaced file keeps its permissions.
- `read_text` (JSON, JSON Lines, CSV, YAML): UTF-8 with or without a byte-order mark, or UTF-16
  with one; anything else is an error naming the file and the first byte that is not UTF-8.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from semantix.errors import ConfigurationError

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["encodable", "read_text", "replace", "write_atomic"]

_SURROGATE = re.compile("[\ud800-\udfff]")
#: How often, and how long apart, `replace` tries on Windows (a second in all).
_ATTEMPTS, _PAUSE_S = 40, 0.025


def encodable(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (a surrogate pair becomes its
    character), so that it encodes as UTF-8; unchanged (the same object) when already fine."""
    if text.isascii() or _SURROGATE.search(text) is None:  # isascii: constant time
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> Path:
    """Write ``data`` (text as UTF-8, or bytes) to ``path``, parents created, whole or not at
    all (module docstring); return the path."""
    from pathlib import Path  # on use, as in semantix._config

    target = Path(path)
    payload = encodable(data).encode("utf-8") if isinstance(data, str) else bytes(data)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode: int | None = target.stat().st_mode & 0o7777
    except OSError:
        mode = None  # a new file: 0o666 less the umask, as open() gives
    temporary = target.with_name(f".{target.name[:40]}.{os.urandom(6).hex()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    handle = os.open(temporary, flags, 0o666)
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(payload)
            file.flush()
            os.fsync(file.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
        replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    return target


def replace(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
    """``os.replace(source, target)``; on Windows, retried for up to a second while another
    process holds the target open (``PermissionError``)."""
    for attempt in range(_ATTEMPTS):
        try:
            os.replace(source, target)
            return
        except PermissionError:
            if os.name != "nt" or attempt == _ATTEMPTS - 1:
                raise
            time.sleep(_PAUSE_S)


def read_text(
    path: str | os.PathLike[str],
    *,
    what: str = "file",
    error: Callable[[str], Exception] = ConfigurationError,
) -> str:
    """The text of a file a person may have saved (module docstring). An OSError is left to the
    caller (who knows what a missing file means); a file that is not UTF-8 (nor UTF-16 with a
    byte-order mark) raises ``error(message)`` naming ``what``, the file and the first bad byte."""
    with open(path, "rb") as file:
        data = file.read()
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        with contextlib.suppress(UnicodeDecodeError):
            return data.decode("utf-16")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(
            f"{what} {str(path)!r} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
            f"{exc.start}); save it as UTF-8"
        ) from None
