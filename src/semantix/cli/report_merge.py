"""``semantix report merge A.json B.json ... -o ALL.json``: the shards of one suite's run (CI jobs
of a matrix, pytest-split groups, ``-k`` selections) merged into the JSON report an unsharded run
would have written (`semantix.report.merge`); ``semantix report ALL.json`` then renders its page.

A sub-command of ``semantix report``: `add_arguments` adds what it reads to that parser and
``semantix report`` hands over to `dispatch`, which runs the merge when its first argument is
``merge``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from semantix.cli.common import CommandError
from semantix.report.compare import load_report
from semantix.report.merge import merge_reports
from semantix.report.records import write_json_report
from semantix.report.schema import ReportDocumentError

__all__ = ["NAME", "add_arguments", "dispatch", "run"]

NAME = "merge"
USAGE = "semantix report merge A.json B.json ... -o ALL.json"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The shards after ``merge`` (the report parser's ``-o`` names the merged file)."""
    parser.add_argument("shards", nargs="*", type=Path, help=argparse.SUPPRESS)
    parser.epilog = (parser.epilog or "") + (
        "\nmerge the JSON reports of a suite's shards (CI jobs) into one:\n"
        f"  {USAGE}\n  semantix report ALL.json -o report.html\n"
    )


def dispatch(args: argparse.Namespace) -> int | None:
    """The merge's exit status when ``semantix report`` was asked to merge, else None (render
    the one report given; a second file is a usage error)."""
    if str(args.json) == NAME:
        return run(args)
    if args.shards:
        raise CommandError(
            f"semantix report renders one JSON report, got {1 + len(args.shards)}; to merge "
            f"shards write {USAGE}"
        )
    return None


def run(args: argparse.Namespace) -> int:
    shards: list[Path] = args.shards
    output: Path | None = args.output
    if not shards:
        raise CommandError(f"name the shards' JSON reports to merge: {USAGE}")
    if output is None:
        raise CommandError(f"name the merged report with -o: {USAGE}")
    if not output.resolve().parent.is_dir():
        raise CommandError(
            f"-o {str(output)!r}: the directory {str(output.parent)!r} does not exist; create it "
            "or choose another path"
        )
    if any(output.resolve() == shard.resolve() for shard in shards):
        raise CommandError(f"-o {str(output)!r} would overwrite a shard; name a new file")
    try:
        documents = [(str(path), load_report(path)) for path in shards]
        merged = merge_reports(documents)
    except ReportDocumentError as exc:
        raise CommandError(str(exc)) from None
    write_json_report(output, merged)
    count = len(merged["assertions"])
    print(
        f"merged {len(shards)} report{'s' if len(shards) != 1 else ''} into {output} "
        f"({count:,} assertion{'s' if count != 1 else ''})"
    )
    return 0
