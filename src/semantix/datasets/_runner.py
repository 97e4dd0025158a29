"""`evaluate_dataset`: every row of a dataset judged against intents, records out
(docs/evaluating-datasets.md). The embedded engine streams rows in batches through
`semantix.datasets._judging.Judging` and appends each batch's records to the side file; the Ray
engine (`semantix.datasets._ray_engine`) judges the same batches on Ray Data's workers. The
report is assembled from the records at the end, as a stream.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from itertools import islice
from pathlib import Path
from typing import Any

from semantix import _config as config
from semantix._shards import Shard, parse_shard
from semantix.datasets._judging import Judging
from semantix.datasets._progress import Progress
from semantix.datasets._records import Record, ReportFile, Tally, encode, paused_gc, write_report
from semantix.datasets._rows import Fields, Row, count_rows, data_files, read_rows
from semantix.datasets._sidefile import SideFile, side_path
from semantix.errors import ConfigurationError
from semantix.judges._base import Judge
from semantix.pipeline import check
from semantix.pipeline._options import read_options

__all__ = ["ENGINES", "DatasetResult", "evaluate_dataset"]

ENGINES = ("embedded", "ray")


@dataclass(frozen=True, slots=True)
class DatasetResult:
    """What a run of `evaluate_dataset` decided: rows judged (``resumed``: kept from an
    interrupted run), records by outcome, and where the report is."""

    report: Path
    rows: int
    records: int
    passed: int
    failed: int
    errors: int
    resumed: int = 0

    @property
    def passed_all(self) -> bool:
        """Every record passed (the exit status 0 rule of ``semantix eval``)."""
        return self.passed == self.records

    def __repr__(self) -> str:
        return (
            f"<DatasetResult {self.rows} rows: {self.passed} passed, {self.failed} failed, "
            f"{self.errors} errors -> {self.report}>"
        )


def evaluate_dataset(
    data: str | Path,
    intents: Sequence[str] = (),
    *,
    report: str | Path,
    judge: Judge | str | None = None,
    threshold: float | None = None,
    timeout: float | None = None,
    fields: Fields | None = None,
    shard: Shard | str | None = None,
    resume: bool = False,
    batch_size: int = 256,
    progress: bool = False,
    engine: str = "embedded",
    address: str | None = None,
    workers: int | None = None,
) -> DatasetResult:
    """Judge every row of ``data`` (a JSON Lines, CSV or Parquet file, a directory of them, or
    ``-`` for JSON Lines on stdin) against ``intents`` (specs, docs/evaluating-datasets.md) and
    each row's own, and write the JSON report to ``report``.

    ``judge``, ``threshold``, ``timeout`` are the check's options; ``shard`` (``"i/N"``) keeps
    the rows of that shard; ``resume`` goes on after the rows an interrupted run recorded;
    ``progress`` shows a bar on stderr; ``engine`` is ``embedded`` or ``ray`` (``address``: a
    Ray cluster, default ``RAY_ADDRESS`` or a local one; ``workers``: judges on Ray, default
    one per CPU of the cluster).
    """
    specs = tuple(intents)
    fields = fields or Fields()
    if engine not in ENGINES:
        raise ConfigurationError(f"engine {engine!r} is not one of {', '.join(ENGINES)}")
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ConfigurationError(f"batch_size={batch_size!r} must be a positive whole number")
    if isinstance(shard, str):
        shard = parse_shard(shard, source="shard")
    options = read_options(
        {"judge": judge, "threshold": threshold, "timeout": timeout}, what="evaluate_dataset"
    )
    judging = Judging(specs, options)
    if isinstance(intents, str):
        raise ConfigurationError(
            f"intents={intents!r} is one string; pass a list of intent specs, e.g. [{intents!r}]"
        )
    for spec in specs:  # a bad --intent, threshold or judge stops the run before any row
        found = judging.intent(spec, False)
        if isinstance(found, Exception):
            raise found
        check([], found, options)
    report_path = Path(report)
    files = data_files(data)
    header = {
        "data": [str(file) for file in files] if files is not None else "-",
        "intents": list(specs),
        "fields": [fields.output, fields.id, fields.intent, fields.intents, fields.expected],
        "shard": str(shard) if shard else None,
        "run_id": uuid.uuid4().hex,
        "engine": engine,
    }
    started = time.time()
    if engine == "ray":
        from semantix.datasets._ray_engine import run_on_ray

        ray_run = run_on_ray(
            data, judging, fields, shard, batch_size=batch_size, address=address, workers=workers
        )
        if ray_run.seen == 0:
            raise ConfigurationError(f"the dataset {str(data)!r} holds no rows; nothing was judged")
        tally = Tally()
        counts = write_report(
            report_path, tally.add_json(ray_run.records()), _meta(header, started), tally
        )
        ray_run.close()
        return _result(report_path, counts, rows=ray_run.rows, resumed=0)
    side = SideFile(side_path(report_path), header, resume=resume)
    total = count_rows(data) if progress else None
    bar = Progress(total, shown=progress, done=side.last_row + 1)
    rows, seen = 0, [0]
    tally = Tally()
    out = ReportFile(report_path)  # streamed as rows are decided; in place at the end
    try:
        if side.done:  # an interrupted run's records, counted as they are read back
            out.write([encode(record) for record in tally.add_json(side.records())])
        for batch in _batches(_selected(read_rows(data, fields), shard, side, seen), batch_size):
            with paused_gc():  # a batch's many objects, none in a cycle that outlives it
                decided = judging.judge(batch)
                tally.add([record for records in decided for record in records])
                texts = [[encode(record) for record in got] for got in decided]
            side.write([(row.index, row.id, got) for row, got in zip(batch, texts, strict=True)])
            out.write([text for got in texts for text in got])
            rows += len(batch)
            bar.update(batch[-1].index + 1, _failures(decided) if progress else 0)
    except BaseException:
        out.discard()
        raise
    finally:
        bar.close()
        side.close()
    if seen[0] == 0:
        out.discard()
        side.path.unlink()
        raise ConfigurationError(f"the dataset {str(data)!r} holds no rows; nothing was judged")
    counts = out.finish(_meta(side.header, started), tally)
    side.path.unlink()
    return _result(report_path, counts, rows=rows + side.done, resumed=side.done)


def _selected(
    rows: Iterator[Row], shard: Shard | None, side: SideFile, seen: list[int]
) -> Iterator[Row]:
    """The rows of this shard that the side file does not hold yet (``seen[0]``: rows read)."""
    for row in rows:
        seen[0] += 1
        if row.index <= side.last_row:
            if row.index == side.last_row and row.id != side.last_id:
                raise ConfigurationError(
                    f"cannot resume: the row at {row.where} has id {row.id!r}, but the side file "
                    f"{str(side.path)!r} recorded {side.last_id!r} there; the data changed "
                    "since. Delete the side file to start again"
                )
            continue
        if shard is None or shard.selects(row.id):
            yield row


def _batches(rows: Iterator[Row], size: int) -> Iterator[list[Row]]:
    while batch := list(islice(rows, size)):
        yield batch


def _failures(decided: list[list[Record]]) -> int:
    return sum(1 for records in decided for record in records if record["outcome"] != "passed")


def _meta(header: dict[str, Any], started: float) -> dict[str, Any]:
    return {
        "run_id": header["run_id"],
        "shard": header["shard"],
        "data": header["data"],
        "intents": header["intents"],
        "engine": header["engine"],
        "verdicts_mode": config.verdicts_mode() or "off",
        "started": datetime.fromtimestamp(started, timezone.utc).isoformat(timespec="seconds"),
        "duration_s": round(time.time() - started, 3),
    }


def _result(report: Path, counts: Any, *, rows: int, resumed: int) -> DatasetResult:
    return DatasetResult(
        report=report,
        rows=rows,
        records=counts["total"],
        passed=counts["passed"],
        failed=counts["failed"],
        errors=counts["errors"],
        resumed=resumed,
    )
