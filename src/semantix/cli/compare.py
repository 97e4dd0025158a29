"""``semantix compare BASE.json CAND.json``: what got worse between two runs' JSON reports
(`semantix.report.compare`); exit status 1 when ``--fail-on`` says so, 2 when a file is not a
report.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from semantix.cli.common import CommandError, Commands, Formatter
from semantix.files import write_atomic
from semantix.report.compare import FAIL_ON, compare, load_report
from semantix.report.compare_views import html_page, markdown, text_lines

__all__ = ["NAME", "add_parser", "run"]

NAME = "compare"
FORMATS = ("text", "markdown", "json")


def add_parser(commands: Commands) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        NAME,
        help="compare two runs' JSON reports: regressions, fixes, paired statistics",
        description="Pair the assertions of two JSON reports (pytest --semantic-report-json) by "
        "test id and intent and list what got worse first: regressions (passed -> failed or "
        "error), the repeated tests' pass rates with the Newcombe interval of their difference, "
        "fixes, new and removed assertions, and McNemar's exact test on the paired flips. A "
        "row judged by another judge in the candidate says so.",
        epilog="examples:\n"
        "  semantix compare main.json branch.json\n"
        "  semantix compare main.json branch.json --format markdown > comment.md\n"
        "  semantix compare main.json branch.json --fail-on significant --html compare.html\n",
        formatter_class=Formatter,
    )
    parser.add_argument("base", metavar="BASE", type=Path, help="the baseline's JSON report")
    parser.add_argument("candidate", metavar="CAND", type=Path, help="the candidate's JSON report")
    parser.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        default="regressions",
        help="exit 1 on any regression (default), only when the candidate is significantly "
        "worse (McNemar p < 0.05 with more regressions than fixes, or a repeated test's "
        "difference wholly below 0), or never",
    )
    parser.add_argument(
        "--format", choices=FORMATS, default="text", help="what to print (default: text)"
    )
    parser.add_argument("--html", metavar="PATH", type=Path, help="also write a comparison page")
    return parser


def run(args: argparse.Namespace) -> int:
    if args.html is not None and args.html.resolve() in (
        args.base.resolve(),
        args.candidate.resolve(),
    ):
        raise CommandError(
            f"--html {str(args.html)!r} is one of the reports to compare: writing the page there "
            "would replace it; name a new file (e.g. compare.html)"
        )
    if args.html is not None and not args.html.parent.is_dir():
        raise CommandError(
            f"--html {str(args.html)!r}: the directory {str(args.html.parent)!r} does not "
            "exist; create it or choose another path"
        )
    documents = [load_report(args.base), load_report(args.candidate)]  # errors name the file
    comparison = compare(*documents, base_path=str(args.base), candidate_path=str(args.candidate))
    if args.format == "json":
        print(json.dumps(comparison.to_dict(), indent=2, ensure_ascii=False))
    elif args.format == "markdown":
        print(markdown(comparison), end="")
    else:
        print("\n".join(text for text, _ in text_lines(comparison)))
    if args.html is not None:
        write_atomic(args.html, html_page(comparison))
    return 1 if comparison.failed(args.fail_on) else 0
