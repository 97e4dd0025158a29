"""The side file of a run: its records as JSON Lines, appended as rows are decided, so an
interrupted run keeps every finished row and ``--resume`` goes on after the last one
(docs/evaluating-datasets.md, "Large runs").

The first line says which run it is (data, intents, fields, shard, run id); each further line is
one row's ``{"row": index, "id": ..., "records": [...]}``, in row order. A last line cut short
by a kill is dropped when the run resumes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from json.encoder import encode_basestring
from pathlib import Path
from typing import IO, Any

from semantix.errors import ConfigurationError

__all__ = ["SideFile", "side_path"]

_string = encode_basestring  # a JSON string, as the C encoder writes it (no ASCII escapes)
#: What must be equal for a run to resume another.
_SAME_RUN = ("data", "intents", "fields", "shard")


def side_path(report: Path) -> Path:
    """Where the records of the run writing ``report`` go while it runs."""
    return report.with_name(report.name + ".records.jsonl")


class SideFile:
    """The side file at ``path`` of the run ``header`` describes: opened new, or (``resume``)
    reopened after the rows it already holds (`done`, `last_id`)."""

    def __init__(self, path: Path, header: Mapping[str, Any], *, resume: bool) -> None:
        self.path = path
        self.done = 0  #: rows it held when opened
        self.last_row = -1  #: the stream index of the last of them (-1: none)
        self.last_id: str | None = None
        if path.exists() and not resume:
            raise ConfigurationError(
                f"{str(path)!r} holds the records of an unfinished run of this report; pass "
                "--resume (resume=True) to go on after its last row, or delete it to start again"
            )
        if resume and path.exists():
            self.header = self._reopen(header)
        else:
            self.header = dict(header)
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("w", encoding="utf-8") as file:
                file.write(json.dumps({"semantix_eval": 1, **self.header}) + "\n")
        self._file: IO[str] = path.open("a", encoding="utf-8")

    def _reopen(self, header: Mapping[str, Any]) -> dict[str, Any]:
        good = 0  # bytes of whole lines
        stored: dict[str, Any] | None = None
        with self.path.open("rb") as file:
            for line in file:
                if not line.endswith(b"\n"):
                    break  # cut short by a kill: written again
                item = json.loads(line)
                if stored is None:
                    stored = item
                else:
                    self.done += 1
                    self.last_row, self.last_id = item["row"], item["id"]
                good += len(line)
        if stored is None or stored.get("semantix_eval") != 1:
            raise ConfigurationError(
                f"{str(self.path)!r} is not the side file of a semantix eval run; delete it"
            )
        changed = [key for key in _SAME_RUN if stored.get(key) != header.get(key)]
        if changed:
            raise ConfigurationError(
                f"cannot resume: {str(self.path)!r} holds a run with other {', '.join(changed)} "
                f"({', '.join(f'{key}={stored.get(key)!r}' for key in changed)}); run with the "
                "same ones, or delete it to start again"
            )
        with self.path.open("r+b") as file:
            file.truncate(good)
        stored.pop("semantix_eval")
        return stored

    def write(self, rows: Sequence[tuple[int, str, Sequence[str]]]) -> None:
        """Append ``(index, id, records)`` of finished rows, each record as its JSON text,
        flushed (kept if the run stops)."""
        self._file.write(
            "".join(
                f'{{"row": {index}, "id": {_string(row_id)}, "records": [{", ".join(records)}]}}\n'
                for index, row_id, records in rows
            )
        )
        self._file.flush()

    def close(self) -> None:
        self._file.close()

    def records(self) -> Iterator[dict[str, Any]]:
        """Every record it holds, in row order (read as a stream)."""
        with self.path.open(encoding="utf-8") as file:
            next(file)
            for line in file:
                yield from json.loads(line)["records"]
