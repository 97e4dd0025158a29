"""``semantix eval --engine ray``: the same rows and the same judging on Ray Data
(docs/evaluating-datasets.md, "On Ray").

Ray reads the files (``read_binary_files``); each file's rows are parsed on a worker by the
embedded engine's reader (`semantix.datasets._rows.file_rows`, so bad rows are the same errors
with the same lines); ``map_batches`` runs a callable class that holds one `Judging` (so one
judge, loaded once) per worker and judges whole batches with the embedded engine's code path;
the workers write the records (``write_json``) and the driver streams them into the report in
row order. Ray is imported here only, when this engine runs.
"""

from __future__ import annotations

import importlib
import json
import os
import pickle
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from semantix._shards import Shard
from semantix.datasets._judging import Judging
from semantix.datasets._rows import Fields, count_rows, data_files, file_rows, to_row
from semantix.errors import ConfigurationError

__all__ = ["RayRun", "run_on_ray"]

#: The CPU share of Ray's reading, parsing and writing tasks, and of each judge: a judge per
#: CPU, with room left for the light tasks (a pipeline whose readers wait for a CPU never starts).
_LIGHT_CPUS = 0.1
_JUDGE_CPUS = 0.8


class RayRun:
    """The records the workers wrote (in ``folder``), read back in row order."""

    def __init__(self, folder: Path, rows: int, seen: int) -> None:
        self.folder, self.rows, self.seen = folder, rows, seen

    def records(self) -> Iterator[dict[str, Any]]:
        """Every record, in row order: the parts in the order of their first row (Ray keeps
        each block's rows together, in order), each part's rows sorted."""
        firsts = []
        for part in self.folder.glob("*.json"):
            with part.open(encoding="utf-8") as file:
                first = file.readline()
            if first:
                head = json.loads(first)
                firsts.append(((head["file"], head["number"]), part))
        for _, part in sorted(firsts):
            with part.open(encoding="utf-8") as file:
                items = sorted(
                    (item["file"], item["number"], item["records"])
                    for item in map(json.loads, file)
                )
            for _, _, records in items:
                yield from json.loads(records)

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


class _Parse:
    """Ray's ``flat_map``: one file's bytes -> its rows of this shard (pickled `Row`s)."""

    def __init__(self, files: dict[str, int], fields: Fields, shard: Shard | None) -> None:
        self.files, self.fields, self.shard = files, fields, shard

    def __call__(self, item: dict[str, Any]) -> Iterator[dict[str, Any]]:
        path = str(item["path"])
        index = self.files.get(path, self.files.get(os.path.abspath(path), -1))
        if index < 0:
            raise ConfigurationError(f"Ray read {path!r}, which is not one of the dataset's files")
        for number, (where, value) in enumerate(file_rows(Path(path), item["bytes"])):
            row = to_row(number, where, value, self.fields)
            if self.shard is None or self.shard.selects(row.id):
                yield {"file": index, "number": number, "row": pickle.dumps(row)}


class _Judge:
    """Ray's ``map_batches`` callable class: one `Judging` (one judge) per worker."""

    def __init__(self, judging: Judging) -> None:
        # The judge's threads are the embedded default on the worker's node (its cores, or
        # SEMANTIX_THREADS in the workers' runtime_env), not one per Ray CPU: onnxruntime's
        # threads do not spin, and a worker also waits on Ray's reading and writing (2 workers
        # on 2 CPUs: 56 rows/s with 2 threads each, 38 with 1; scripts/bench-eval).
        self.judging = judging

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        rows = [pickle.loads(data) for data in batch["row"]]
        decided = self.judging.judge(rows)
        return {
            "file": list(batch["file"]),
            "number": list(batch["number"]),
            "records": [json.dumps(records, ensure_ascii=False) for records in decided],
        }


def run_on_ray(
    data: str | Path,
    judging: Judging,
    fields: Fields,
    shard: Shard | None,
    *,
    batch_size: int,
    address: str | None,
    workers: int | None = None,
) -> RayRun:
    """Judge ``data`` on Ray (connecting to ``address``, else ``RAY_ADDRESS``, else starting a
    local Ray) and return where the workers wrote the records."""
    files = data_files(data)
    if files is None:
        raise ConfigurationError(
            "--engine ray reads files, not stdin: write the rows to a file (or a directory of "
            "files Ray's workers can reach) and pass its path"
        )
    try:
        ray: Any = importlib.import_module("ray")  # untyped use: Ray's own types are partial
        importlib.import_module("ray.data")
    except ImportError:
        raise ConfigurationError(
            "--engine ray needs Ray Data: pip install 'semantix-judge[ray]'"
        ) from None
    try:
        ray.cloudpickle.dumps(judging)
    except Exception as exc:  # noqa: BLE001 - named in the error
        raise ConfigurationError(
            f"the judge {judging.options.judge!r} cannot be sent to Ray's workers "
            f"({type(exc).__name__}: {exc}); name it by a spec (--judge quantized:DIR, "
            "judge='module:factory') so each worker builds its own"
        ) from None
    if not ray.is_initialized():
        ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True
    context.enable_progress_bars = False
    paths = [str(file.resolve()) for file in files]
    folder = Path(tempfile.mkdtemp(prefix="semantix-ray-"))
    seen = count_rows(data) or 0
    light = {"num_cpus": _LIGHT_CPUS}
    rows = (
        ray.data.read_binary_files(paths, include_paths=True, **light)
        .flat_map(_Parse({p: i for i, p in enumerate(paths)}, fields, shard), **light)
        .map_batches(
            _Judge,
            fn_constructor_args=(judging,),
            batch_size=batch_size,
            batch_format="numpy",
            num_cpus=_JUDGE_CPUS,
            compute=ray.data.ActorPoolStrategy(
                size=workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
            ),
        )
    )
    rows.write_json(str(folder), ray_remote_args=light)
    return RayRun(folder, sum(_lines(part) for part in folder.glob("*.json")), seen)


def _lines(path: Path) -> int:
    with path.open("rb") as file:
        return sum(1 for _ in file)
