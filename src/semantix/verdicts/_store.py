"""The directory of frozen verdicts: ``<store>/<fingerprint[:2]>/<fingerprint>.json``, each file
written whole or not at all (`semantix._files.write_atomic`; the last writer of a verdict wins).
A record the reader would refuse (a NaN score, say) is refused before anything is written.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from semantix import _config as config
from semantix._files import read_text, write_atomic
from semantix.errors import CorruptVerdictError, VerdictStoreError
from semantix.verdicts._modes import RECORD_HINT
from semantix.verdicts._record import StoredVerdict

__all__ = ["VerdictStore"]

_HEX = frozenset("0123456789abcdef")


class VerdictStore:
    """A directory of frozen verdicts, one JSON file per verdict.

    Args:
        path: the directory; default ``SEMANTIX_VERDICTS_PATH``, else ``.semantix/verdicts`` in
            the current directory. Made absolute now; created on the first write.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = config.verdicts_path(path)

    def __repr__(self) -> str:
        return f"VerdictStore({str(self.path)!r})"

    def file_for(self, key: str) -> Path:
        """Where the verdict with fingerprint ``key`` lives."""
        if not _is_fingerprint(key):
            raise ValueError(f"{key!r} is not a verdict fingerprint (64 lowercase hex digits)")
        return self.path / key[:2] / f"{key}.json"

    def get(self, key: str) -> StoredVerdict | None:
        """The stored verdict, None when there is none; a `CorruptVerdictError` (naming the file
        and the field) when the file is no frozen verdict, a `VerdictStoreError` when unreadable."""
        file = self.file_for(key)
        try:
            text = read_text(file, what="the frozen verdict", error=_damaged)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise VerdictStoreError(
                f"cannot read the frozen verdict {file}: {exc}; check its permissions"
            ) from exc
        try:
            return StoredVerdict.from_json(text, expected_key=key)
        except (ValueError, RecursionError) as exc:
            problem = f"the frozen verdict {file} is corrupt ({type(exc).__name__}: {exc})"
            raise _damaged(problem) from exc

    def put(self, record: StoredVerdict) -> Path:
        """Write ``record`` whole or not at all and return its path; a ValueError (nothing
        written) when it could not be read back, a `VerdictStoreError` when unwritable."""
        file = self.file_for(record.fingerprint)
        try:
            text = record.to_json()
            StoredVerdict.from_json(text, expected_key=record.fingerprint)
        except ValueError as exc:
            raise ValueError(
                f"refusing to write the frozen verdict {file}: it could never be replayed "
                f"({exc}); a judge's verdict must have a finite score between 0 and 1 (or None)"
            ) from exc
        try:
            write_atomic(file, text)
        except OSError as exc:
            raise VerdictStoreError(
                f"cannot write the frozen verdict {file}: {exc}; check that {self.path} is "
                "writable, or set SEMANTIX_VERDICTS_PATH to a directory that is"
            ) from exc
        return file

    def fingerprints(self) -> Iterator[str]:
        """Fingerprints of every stored verdict (in no particular order)."""
        return (file.stem for file in self._files())

    def unused(self, used_fingerprints: Iterable[str]) -> list[Path]:
        """The stored files whose fingerprint is not in ``used_fingerprints`` (what the run's
        recording judges used, their ``usage().used``), sorted."""
        used = frozenset(used_fingerprints)
        return sorted(file for file in self._files() if file.stem not in used)

    def prune(self, used_fingerprints: Iterable[str]) -> list[Path]:
        """Delete the files ``unused()`` lists (and directories left empty) and return them; a
        `VerdictStoreError` when one cannot be deleted (those before it are gone)."""
        removed = self.unused(used_fingerprints)
        for file in removed:
            try:
                file.unlink(missing_ok=True)
            except OSError as exc:
                raise VerdictStoreError(
                    f"cannot delete the unused frozen verdict {file}: {exc}; check that "
                    f"{self.path} is writable"
                ) from exc
        for directory in sorted({file.parent for file in removed}):
            with contextlib.suppress(OSError):  # not empty (a new verdict, a stray file): keep it
                directory.rmdir()
        return removed

    def _files(self) -> Iterator[Path]:
        if not self.path.is_dir():
            return
        for file in self.path.glob("??/*.json"):
            if _is_fingerprint(file.stem) and file.parent.name == file.stem[:2]:
                yield file


def _is_fingerprint(key: object) -> bool:
    return isinstance(key, str) and len(key) == 64 and _HEX.issuperset(key)


def _damaged(problem: str) -> CorruptVerdictError:
    return CorruptVerdictError(
        f"{problem}; delete it and {RECORD_HINT} (or restore it from version control, e.g. "
        "after a merge conflict)"
    )


# Shown as importable from the top level: ``semantix.VerdictStore``.
VerdictStore.__module__ = "semantix"
