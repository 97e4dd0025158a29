"""``semantix check TEXT INTENT``: judge one text against one intent (exit 0 pass, 1 fail)."""

from __future__ import annotations

import argparse
import json
import sys

from semantix._intent import as_intent, iter_leaves
from semantix.checks._base import Structural
from semantix.cli._common import Commands, add_judge_options, cli_judge, load_intent
from semantix.pipeline import evaluate_semantic
from semantix.pipeline._results import SemanticResult

__all__ = ["NAME", "add_parser", "run", "verdict_text"]

NAME = "check"


def add_parser(commands: Commands) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        NAME,
        help="judge one text against one intent (exit 0 pass, 1 fail, 2 error)",
        description="Judge TEXT against INTENT and print the verdict. Exit status: 0 the text "
        "satisfies the intent, 1 it does not, 2 the check could not run.",
        epilog="examples:\n"
        '  semantix check "Thank you for waiting." "The text is polite."   # the default judge\n'
        '  semantix check "$REPLY" "The text is polite." --judge llm:gpt-4o-mini  # OPENAI_API_KEY\n'
        "  llm-app | semantix check - myapp.intents:Polite --judge embedding --json\n"
        '  semantix check "$REPLY" "The text is polite." --judge judges:KeywordJudge  # ./judges.py\n',
    )
    parser.add_argument("text", metavar="TEXT", help="the output to judge; '-' reads stdin")
    parser.add_argument(
        "intent",
        metavar="INTENT",
        help="a description such as 'The text is polite.' or an Intent class as module:Name",
    )
    add_judge_options(parser)
    parser.add_argument(
        "--threshold",
        type=float,
        metavar="X",
        help="threshold in [0, 1] for every part of the intent (default: the threshold order)",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    return parser


def run(args: argparse.Namespace) -> int:
    intent = load_intent(args.intent)
    # A structural-only intent is decided without a judge: none is built (or looked for).
    structural = all(issubclass(leaf, Structural) for leaf in iter_leaves(as_intent(intent)))
    judge = None if structural else cli_judge(args)
    text = sys.stdin.read().rstrip("\r\n") if args.text == "-" else args.text
    result = evaluate_semantic(text, intent, judge=judge, threshold=args.threshold)
    if args.json:
        print(json.dumps({**result.to_dict(), "output": result.output}, indent=2))
    else:
        print(verdict_text(result))
    return 0 if result.passed else 1


def verdict_text(result: SemanticResult) -> str:
    """The check's verdict in one format for a pass and a fail: a headline, then the
    explanation the failure message gives (judge, the per-intent table, reasons, the output)."""
    explanation = result.explain()
    if not result.passed:
        return explanation
    _, _, body = explanation.partition("\n")  # the failure headline, replaced for a pass
    score = result.leaves[0].verdict.score if len(result.leaves) == 1 else None
    shown = f" (score={score:.2f})" if score is not None else ""
    return f"Semantic check passed{shown}: the output satisfies {result.intent.__name__}\n{body}"
