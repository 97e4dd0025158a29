"""``semantix compare BASE.json CAND.json``: what got worse between two runs' JSON reports
(`semantix.report._compare`); exit status, job summary and ``--comment``: docs/cli.md."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from semantix import _config as config
from semantix._files import write_atomic
from semantix.cli._common import CommandError, Commands
from semantix.report._compare import FAIL_ON, compare, load_report
from semantix.report._compare_views import html_page, markdown, text_lines

__all__ = ["COMMENT_MARKER", "NAME", "add_parser", "run"]

NAME = "compare"
FORMATS = ("text", "markdown", "json")
#: The first line of ``--comment``'s body: how a workflow finds the comment to update.
COMMENT_MARKER = "<!-- semantix-compare -->"


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
    parser.add_argument(
        "--comment",
        metavar="PATH",
        type=Path,
        help=f"also write a pull-request comment body (Markdown, first line {COMMENT_MARKER})",
    )
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
    failed = comparison.failed(args.fail_on)
    summary = config.github_step_summary()
    if summary is not None or args.comment is not None:
        result = "failed" if failed else "passed"
        body = f"**Result: {result}** (`--fail-on {args.fail_on}`)\n\n{markdown(comparison)}"
        if summary is not None:
            with summary.open("a", encoding="utf-8") as file:
                file.write(body + "\n")
        if args.comment is not None:
            write_atomic(args.comment, f"{COMMENT_MARKER}\n{body}")
    return 1 if failed else 0
