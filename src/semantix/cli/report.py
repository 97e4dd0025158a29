"""``semantix report``: render a saved JSON report as the self-contained HTML page.

The page is the one ``pytest --semantic-report-html`` writes, byte for byte, when the JSON is the
one the same run wrote with ``--semantic-report-json`` and the page sits at the same place relative
to it (the header links to the JSON file by a relative path). A file that is not a report — not
UTF-8, not JSON, nested too deep, a field of the wrong type — is one line naming the file, the
field and what was expected (exit status 2), never a traceback.

The page goes into a directory that exists (a missing one is an error, as for other commands,
never created behind the user's back), and never replaces an existing file — such as the page
pytest wrote beside the JSON — unless ``--force`` is given.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from semantix.cli import report_merge
from semantix.cli.common import CommandError, Commands, Formatter
from semantix.report.files import read_json_report, write_text_atomic
from semantix.report.html import render, write_html_report
from semantix.report.schema import ReportDocumentError, check_document

__all__ = ["NAME", "add_parser", "run"]

NAME = "report"


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
        default=None,
        help="where the header's link to the JSON report points (default: the JSON file, "
        "relative to the page)",
    )
    report_merge.add_arguments(parser)
    return parser


def run(args: argparse.Namespace) -> int:
    if (merged := report_merge.dispatch(args)) is not None:
        return merged
    source: Path = args.json
    output: Path = args.output or source.with_suffix(".html")
    try:
        document = check_document(read_json_report(source))
    except ReportDocumentError as exc:
        message = str(exc)
        if not message.startswith(("cannot read", repr(str(source)))):
            message = f"{str(source)!r}: {message}"
        raise CommandError(message) from None
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
    try:
        if args.json_href is None:
            write_html_report(output, document, json_path=source)
        else:
            write_text_atomic(output, render(document, json_href=args.json_href))
    except ReportDocumentError as exc:
        raise CommandError(f"{str(source)!r}: {exc}") from None
    except OSError as exc:
        raise CommandError(
            f"cannot write {str(output)!r} ({exc.strerror or exc}); choose another -o PATH"
        ) from None
    count = len(document["assertions"])
    print(f"wrote {output} ({count:,} assertion{'s' if count != 1 else ''})")
    return 0
