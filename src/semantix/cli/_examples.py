"""``semantix examples module:Intent --judge llm``: examples for an intent, written once by an
LLM through `semantix.judges._llm.LLMJudge`'s client, for a person to review (docs/cli.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from semantix._config import check_positive_int
from semantix._files import write_atomic
from semantix._intent import Intent, examples_path
from semantix.cli._common import CommandError, Commands, load_intent
from semantix.judges._llm import LLMJudge
from semantix.pipeline._specs import parse_spec
from semantix.relations._freeze import ask_texts, provenance, refuse_in_ci

__all__ = ["NAME", "PROMPT", "add_parser", "ask_examples", "default_path", "run", "write_file"]

NAME = "examples"

#: The instruction sent with the intent's description; stored in each file's provenance.
PROMPT = (
    "You write test data for a check of chatbot replies. The user gives a requirement. Write "
    "{count} replies a chatbot might give that satisfy it (examples) and {count} that do not "
    "(counterexamples). Vary length, tone and register. At least a third of each list must be "
    "near misses: examples that barely satisfy it, and counterexamples on the same topic, with "
    "the same words or the same tone, that still do not (a status update, a brush-off, talking "
    "about the thing instead of doing it, the opposite meaning). Reply with JSON only: "
    '{{"examples": ["..."], "counterexamples": ["..."]}}.'
)


def add_parser(commands: Commands) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        NAME,
        help="write examples and counterexamples of an intent for review (never in CI)",
        description="Ask an LLM (any OpenAI-compatible server) for examples and "
        "counterexamples of INTENT, near misses included, and write them with their provenance "
        "(model, prompt, date) to the intent's examples_file, for a person to review and "
        "commit. Tests only read the file.",
        epilog="examples:\n"
        "  semantix examples myapp.intents:Polite --judge llm\n"
        "  semantix examples myapp.intents:Polite --judge llm:qwen2.5 --base-url "
        "http://localhost:8000/v1 --count 16\n"
        "then: semantix calibrate labels.csv --judge embedding  (do the examples separate?)\n",
    )
    parser.add_argument("intent", metavar="INTENT", help="module:Name of an Intent class")
    parser.add_argument(
        "--judge",
        default="llm",
        metavar="llm[:MODEL]",
        help="the LLM judge whose client is used (default: llm, model gpt-4o-mini)",
    )
    parser.add_argument("--base-url", help="an OpenAI-compatible server (default: OPENAI_BASE_URL)")
    parser.add_argument("--count", type=int, default=12, metavar="N", help="of each (default 12)")
    parser.add_argument("--out", type=Path, metavar="PATH", help="the file (default: see above)")
    parser.add_argument(
        "--force", action="store_true", help="rewrite an existing file (a review is lost)"
    )
    return parser


def default_path(intent: type[Intent]) -> Path:
    """``intent.examples_file`` resolved, else ``<module dir>/examples/<Name>.json``."""
    return examples_path(intent) or _module_dir(intent) / "examples" / f"{intent.__name__}.json"


def _module_dir(intent: type[Intent]) -> Path:
    where = getattr(sys.modules.get(intent.__module__), "__file__", None)
    return Path(where).parent if where else Path.cwd()


def ask_examples(judge: LLMJudge, description: str, count: int) -> tuple[list[str], list[str]]:
    """Up to ``count`` distinct examples and counterexamples of ``description`` (a text on
    both sides, and blanks, dropped)."""
    examples, counterexamples = ask_texts(
        judge,
        PROMPT.format(count=count),
        description,
        "intent_examples",
        ["examples", "counterexamples"],
        what="example lists",
        shape='{"examples": [...], "counterexamples": [...]}',
    )
    both = set(examples) & set(counterexamples)
    return (
        [text for text in examples if text not in both][:count],
        [text for text in counterexamples if text not in both][:count],
    )


def write_file(path: Path, data: dict[str, Any], *, force: bool = False) -> None:
    """Write ``data`` as diff-friendly JSON (one example a line), whole or not at all
    (`semantix._files.write_atomic`); refuses to overwrite unless ``force``."""
    _refuse_to_overwrite(path, force)
    write_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _refuse_to_overwrite(path: Path, force: bool) -> None:
    if path.exists() and not force:
        raise CommandError(
            f"{path} exists (it may hold a reviewer's edits); pass --force to rewrite it"
        )


def run(args: argparse.Namespace) -> int:
    refuse_in_ci(NAME, "examples")
    check_positive_int(args.count, what="--count", example=12)
    spec = parse_spec(args.judge, source="--judge")
    if spec.name != "llm":
        raise CommandError(
            f"--judge {args.judge!r}: examples are written by an LLM; pass --judge llm or "
            "--judge llm:MODEL"
        )
    intent = load_intent(args.intent)
    if isinstance(intent, str):
        raise CommandError(
            f"INTENT {args.intent!r} is not module:Name; point it at your Intent class, e.g. "
            "myapp.intents:Polite"
        )
    path = args.out or default_path(intent)
    _refuse_to_overwrite(path, args.force)  # before the LLM is asked
    with LLMJudge(model=spec.model or "gpt-4o-mini", base_url=args.base_url) as judge:
        examples, counterexamples = ask_examples(judge, intent.description, args.count)
        written = provenance(judge, PROMPT.format(count=args.count), NAME)
    data = {
        "intent": f"{intent.__module__}:{intent.__qualname__}",
        "description": intent.description,
        "provenance": written,
        "examples": examples,
        "counterexamples": counterexamples,
    }
    write_file(path, data, force=args.force)
    print(f"wrote {len(examples)} examples and {len(counterexamples)} counterexamples: {path}")
    if examples_path(intent) != path:
        try:
            shown = path.resolve().relative_to(_module_dir(intent).resolve()).as_posix()
        except ValueError:
            shown = str(path)
        print(f'the intent reads it once {intent.__name__} sets examples_file = "{shown}"')
    print("review it (move or delete what is on the wrong side), commit it, then check that the")
    print("examples separate: semantix calibrate LABELS --judge embedding")
    return 0
