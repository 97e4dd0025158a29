"""``semantix freeze-variants CASES --field question``: write paraphrases for review.

One ``variants/<case id>.yaml`` per case (``.json`` without PyYAML), through the LLM judge's
client (``--model``, ``--base-url`` / ``OPENAI_BASE_URL``, ``OPENAI_API_KEY``). An existing file
is kept (it may hold a reviewer's deletions) unless ``--force``; with ``CI`` set it refuses to
run. Exit status 0 when every case was written, kept or skipped; 2 when it could not run.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from semantix._files import read_text
from semantix.cli._common import CommandError, Commands
from semantix.judges._llm import LLMJudge
from semantix.pipeline._specs import import_object
from semantix.relations._freeze import freeze_variants
from semantix.relations._variants import load_data, yaml_available

__all__ = ["NAME", "add_parser", "load_cases", "run"]

NAME = "freeze-variants"


def add_parser(commands: Commands) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        NAME,
        help="write paraphrase variants of test cases for review (never in CI)",
        description="Ask an LLM (any OpenAI-compatible server) for paraphrases of FIELD of each "
        "case and write them to DIR/<case id>.yaml with their provenance, for a person to "
        "review (delete the bad ones) and commit. Tests only read these files.",
        epilog="examples:\n"
        "  semantix freeze-variants cases.json --field question\n"
        "  semantix freeze-variants tests.test_answers:CASES --field question --count 8\n"
        "  semantix freeze-variants cases.yaml --field question --base-url "
        "http://localhost:8000/v1 --model qwen2.5\n",
    )
    parser.add_argument(
        "cases",
        metavar="CASES",
        help="a .json / .jsonl / .yaml file holding a list of cases, or module:attr (a list "
        "of cases in Python, e.g. the CASES your test parametrizes)",
    )
    parser.add_argument(
        "--field",
        action="append",
        required=True,
        metavar="FIELD",
        help="the text field to paraphrase (dotted for nested fields; repeat for several)",
    )
    parser.add_argument("--count", type=int, default=5, metavar="N", help="paraphrases per field")
    parser.add_argument(
        "--dir", default="variants", metavar="DIR", help="where the files go (default: variants)"
    )
    parser.add_argument("--model", default="gpt-4o-mini", help="the model (default: gpt-4o-mini)")
    parser.add_argument("--base-url", help="an OpenAI-compatible server (default: OPENAI_BASE_URL)")
    parser.add_argument("--id-field", default="id", help="the field naming each case (default: id)")
    parser.add_argument(
        "--force", action="store_true", help="rewrite existing files (a review is lost)"
    )
    return parser


def load_cases(source: str) -> list[object]:
    """The cases of a file (JSON list, JSON lines, YAML list) or a ``module:attr`` list."""
    path = Path(source)
    if path.is_file():
        text = read_text(path, what="CASES file", error=CommandError)
        if path.suffix in (".yaml", ".yml") and not yaml_available():
            raise CommandError(f"{source} is YAML and PyYAML is not installed: pip install pyyaml")
        kind = {".jsonl": "JSON Lines", ".yaml": "YAML", ".yml": "YAML"}.get(path.suffix, "JSON")
        cases: object = load_data(text, path, error=CommandError, kind=kind)
    elif ":" in source and not path.suffix:
        cases = import_object(source, what="CASES")
    else:
        raise CommandError(
            f"CASES {source!r} is neither a file nor module:attr; pass e.g. cases.json or "
            "tests.test_answers:CASES"
        )
    if isinstance(cases, (str, bytes, dict)) or not isinstance(cases, (list, tuple)):
        raise CommandError(
            f"CASES {source!r} holds {type(cases).__name__}, not a list of cases (dicts with an "
            "id and the fields to paraphrase)"
        )
    return list(cases)


def run(args: argparse.Namespace) -> int:
    cases = load_cases(args.cases)
    with LLMJudge(model=args.model, base_url=args.base_url) as judge:
        outcomes = freeze_variants(
            cases,  # type: ignore[arg-type] # checked case by case
            args.field,
            Path(args.dir),
            judge=judge,
            count=args.count,
            force=args.force,
            id_field=args.id_field,
        )
    for outcome in outcomes:
        where = outcome.path if outcome.path is not None else outcome.detail
        detail = f" ({outcome.detail})" if outcome.detail and outcome.path is not None else ""
        print(f"{outcome.action:<8} {outcome.case_id}: {where}{detail}")
    written = sum(1 for outcome in outcomes if outcome.action == "written")
    if written:
        print(
            f"review the {written} file(s) written: delete paraphrases that change the meaning, then commit them"
        )
    return 0
