"""``semantix report JSON``: the saved JSON report as its HTML page (byte for byte the page pytest
writes), and ``semantix report merge``: shards' reports merged (`semantix.report._merge`);
docs/cli.md says what each refuses."""

from __future__ import annotations

import argparse
from pathlib import Path

from semantix._files import write_atomic
from semantix.cli._common import CommandError, Commands
from semantix.report._html import json_href, render
from semantix.report._merge_files import merge_files
from semantix.report._schema import ReportDocumentError, load_report

__all__ = ["NAME", "add_parser", "run"]

NAME = "report"
MERGE = "merge"
MERGE_USAGE = "semantix report merge A.json B.json ... -o ALL.json"


def add_parser(commands: Commands) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        NAME,
        help="render a JSON report (pytest --semantic-report-json) as one HTML page",
        description="Render the JSON report a pytest run wrote with --semantic-report-json as "
        "the self-contained HTML page --semantic-report-html writes (no network: inline CSS, "
        "script and plots). The header links to the JSON file; row N of the page "
        "(PAGE.html#/assertions/N) is the assertion at /assertions/N in it.",
        epilog="examples:\n"
        "  pytest --semantic-report-json=out/report.json\n"
        "  semantix report out/report.json -o out/report.html\n"
        "\nmerge the JSON reports of a suite's shards (CI jobs) into one:\n"
        f"  {MERGE_USAGE}\n  semantix report ALL.json -o report.html\n",
    )
    parser.add_argument("json", metavar="JSON", type=Path, help="the JSON report to render")
    parser.add_argument(
        "-o",
        "--output",
        metavar="PATH",
        type=Path,
        help="where to write the page, in a directory that exists (default: JSON with the "
        "suffix .html)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace the page if the file exists (e.g. the one pytest --semantic-report-html "
        "wrote)",
    )
    parser.add_argument(
        "--json-href",
        metavar="URL",
        help="where the header's link to the JSON report points (default: the JSON file, "
        "relative to the page)",
    )
    # The shards after ``merge`` (the ``-o`` above names the merged file).
    parser.add_argument("shards", nargs="*", type=Path, help=argparse.SUPPRESS)
    return parser


def run(args: argparse.Namespace) -> int:
    if str(args.json) == MERGE:
        return _merge(args.shards, args.output)
    if args.shards:
        raise CommandError(
            f"semantix report renders one JSON report, got {1 + len(args.shards)}; to merge "
            f"shards write {MERGE_USAGE}"
        )
    source: Path = args.json
    output: Path = args.output or source.with_suffix(".html")
    document = load_report(source)  # its errors name the file: one line, exit status 2
    if output.resolve() == source.resolve():
        raise CommandError(
            f"-o {str(output)!r} would overwrite the JSON report; name an .html file"
        )
    folder = output.resolve().parent
    if not folder.is_dir():
        raise CommandError(
            f"the directory of {str(output)!r} does not exist ({folder}); create it first "
            "(mkdir -p) or choose another -o PATH"
        )
    if output.exists() and not args.force:
        raise CommandError(
            f"{str(output)!r} exists (the page pytest --semantic-report-html wrote, perhaps); "
            "pass --force to replace it, or choose another -o PATH"
        )
    href = json_href(source, output) if args.json_href is None else args.json_href
    try:
        write_atomic(output, render(document, json_href=href))
    except ReportDocumentError as exc:
        raise CommandError(f"{str(source)!r}: {exc}") from None
    except OSError as exc:
        raise CommandError(
            f"cannot write {str(output)!r} ({exc.strerror or exc}); choose another -o PATH"
        ) from None
    count = len(document.assertions)
    print(f"wrote {output} ({count:,} assertion{'s' if count != 1 else ''})")
    return 0


def _merge(shards: list[Path], output: Path | None) -> int:
    if not shards:
        raise CommandError(f"name the shards' JSON reports to merge: {MERGE_USAGE}")
    if output is None:
        raise CommandError(f"name the merged report with -o: {MERGE_USAGE}")
    if not output.resolve().parent.is_dir():
        raise CommandError(
            f"-o {str(output)!r}: the directory {str(output.parent)!r} does not exist; create it "
            "or choose another path"
        )
    if any(output.resolve() == shard.resolve() for shard in shards):
        raise CommandError(f"-o {str(output)!r} would overwrite a shard; name a new file")
    seen: dict[Path, Path] = {}
    for shard in shards:
        first = seen.setdefault(shard.resolve(), shard)
        if first is not shard:
            raise CommandError(
                f"{str(first)!r} and {str(shard)!r} are the same file: its counts would be added "
                "twice; name each shard's report once (check overlapping globs)"
            )
    count = merge_files(shards, output)
    print(
        f"merged {len(shards)} report{'s' if len(shards) != 1 else ''} into {output} "
        f"({count:,} assertion{'s' if count != 1 else ''})"
    )
    return 0
