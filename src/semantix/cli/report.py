"""``semantix report``: render a saved JSON report as the self-contained HTML page.

The page is the one ``pytest --semantic-report-html`` writes, byte for byte, when the JSON is the
one the same run wrote with ``--semantic-report-json`` and the page sits at the same place relative
to it (the test ids link to the JSON file by a relative path).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from semantix.cli.common import CommandError, Commands, Formatter
from semantix.report.html import ReportDocumentError, render, write_html_report

__all__ = ["NAME", "add_parser", "run"]

NAME = "report"


def add_parser(commands: Commands) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        NAME,
        help="render a JSON report (pytest --semantic-report-json) as one HTML page",
        description="Render the JSON report a pytest run wrote with --semantic-report-json as "
        "the self-contained HTML page --semantic-report-html writes (no network: inline CSS, "
        "script and plots). Each test id links to its assertion in the JSON file "
        "(REPORT.json#/assertions/N).",
        epilog="examples:\n"
        "  pytest --semantic-report-json=out/report.json\n"
        "  semantix report out/report.json -o out/report.html\n",
        formatter_class=Formatter,
    )
    parser.add_argument("json", metavar="JSON", type=Path, help="the JSON report to render")
    parser.add_argument(
        "-o",
        "--output",
        metavar="PATH",
        type=Path,
        default=None,
        help="where to write the page (default: JSON with the suffix .html)",
    )
    parser.add_argument(
        "--json-href",
        metavar="URL",
        default=None,
        help="where the test ids link to (default: the JSON file, relative to the page)",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    source: Path = args.json
    output: Path = args.output or source.with_suffix(".html")
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as exc:
        raise CommandError(
            f"cannot read the JSON report {str(source)!r} ({exc.strerror or exc}); pass the file "
            "pytest wrote with --semantic-report-json PATH"
        ) from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CommandError(
            f"{str(source)!r} is not JSON ({exc.msg} at line {exc.lineno}); pass the file pytest "
            "wrote with --semantic-report-json PATH"
        ) from None
    if output.resolve() == source.resolve():
        raise CommandError(
            f"-o {str(output)!r} would overwrite the JSON report; name an .html file"
        )
    try:
        if args.json_href is None:
            write_html_report(output, document, json_path=source)
        else:
            page = render(document, json_href=args.json_href)
            output.parent.mkdir(parents=True, exist_ok=True)
            output.write_bytes(page.encode("utf-8"))
    except ReportDocumentError as exc:
        raise CommandError(f"{str(source)!r}: {exc}") from None
    except OSError as exc:
        raise CommandError(
            f"cannot write {str(output)!r} ({exc.strerror or exc}); choose another -o PATH"
        ) from None
    count = len(document["assertions"])
    print(f"wrote {output} ({count:,} assertion{'s' if count != 1 else ''})")
    return 0
