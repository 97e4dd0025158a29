"""``semantix eval DATA --intent SPEC -o REPORT``: judge every row of a dataset and write the
JSON report (`semantix.datasets`); exit status and ``--resume``: docs/cli.md."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from semantix import _config as config
from semantix.cli._common import Commands, add_judge_options, cli_judge
from semantix.datasets import Fields, evaluate_dataset
from semantix.datasets._runner import ENGINES
from semantix.datasets._sidefile import side_path
from semantix.judges._base import Judge
from semantix.pipeline._specs import judge_from_spec

__all__ = ["NAME", "add_parser", "run"]

NAME = "eval"


def add_parser(commands: Commands) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        NAME,
        help="judge every row of a dataset (JSONL, CSV, Parquet) and write the JSON report",
        description="Judge the output of every row of DATA against each --intent (and the "
        "row's own intent/intents fields) through the same pipeline as assert_semantic, and "
        "write the pytest plugin's JSON report: one record per row and intent. Exit status: 0 "
        "every record passed, 1 some failed or errored, 2 the run could not start, 130 "
        "interrupted (finished rows kept; rerun with --resume).",
        epilog="examples:\n"
        "  semantix eval replies.jsonl --intent app.intents:Polite -o today.json\n"
        "  semantix eval golden.csv --intent 'app.intents:Polite & ~app.intents:Medical' "
        "-o golden.json\n"
        "  cat log.jsonl | semantix eval - --intent 'The text is polite.' --output-field "
        "reply -o out.json\n"
        "  semantix eval export/ --intent app.intents:Polite --shard 2/8 -o shard-2.json\n"
        "  semantix eval export/ --intent app.intents:Polite --engine ray -o today.json\n",
    )
    parser.add_argument(
        "data", metavar="DATA", help="a .jsonl/.ndjson, .csv or .parquet file, a directory of "
        "them, or '-' for JSON Lines on stdin",
    )  # fmt: skip
    parser.add_argument(
        "--intent", metavar="SPEC", action="append", default=[], dest="intents",
        help="an intent for every row: a description, module:Name, module:Factory(args), or "
        "these combined with ~ & | (quote descriptions inside a combination); repeatable",
    )  # fmt: skip
    parser.add_argument(
        "-o", "--output", metavar="REPORT", type=Path, required=True, help="the JSON report"
    )
    add_judge_options(parser)
    parser.add_argument("--threshold", type=float, metavar="X", help="threshold for every leaf")
    parser.add_argument(
        "--output-field", default="output", metavar="NAME", help="the field holding the output"
    )
    parser.add_argument("--id-field", default="id", metavar="NAME", help="the row id's field")
    parser.add_argument("--shard", metavar="I/N", help="judge only shard I of N (by row id)")
    parser.add_argument(
        "--resume", action="store_true", help="go on after the rows an interrupted run recorded"
    )
    parser.add_argument("--batch-size", type=int, default=256, metavar="N", help="rows a batch")
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no summary")
    parser.add_argument("--engine", choices=ENGINES, default="embedded", help="where to judge")
    parser.add_argument(
        "--address", metavar="ADDR", help="the Ray cluster (--engine ray; default RAY_ADDRESS, "
        "else a local one)",
    )  # fmt: skip
    return parser


def _judge(args: argparse.Namespace) -> Judge | str | None:
    """The judge of ``--judge``/``--model``/``--file``: resolved here for the embedded engine;
    for Ray, the spec (each worker resolves it) or the judge unloaded (each worker loads it)."""
    if args.judge is None and args.model is None and args.file is None:
        return None
    if args.engine != "ray":
        return cli_judge(args)
    if args.model is None and args.file is None:
        return str(args.judge)
    spec = args.judge or config.judge_spec() or "quantized"
    options = {k: v for k, v in (("model", args.model), ("file", args.file)) if v is not None}
    return judge_from_spec(spec, **options)


def run(args: argparse.Namespace) -> int:
    judge = _judge(args)
    try:
        result = evaluate_dataset(
            args.data,
            args.intents,
            report=args.output,
            judge=judge,
            threshold=args.threshold,
            fields=Fields(output=args.output_field, id=args.id_field),
            shard=args.shard,
            resume=args.resume,
            batch_size=args.batch_size,
            progress=not args.quiet,
            engine=args.engine,
            address=args.address or config.ray_address(),
        )
    except KeyboardInterrupt:
        kept = side_path(args.output)
        if kept.exists():
            print(
                f"semantix eval: interrupted; the finished rows' records are in {kept}: rerun "
                "with --resume to go on",
                file=sys.stderr,
            )
        raise
    if not args.quiet:
        resumed = f" ({result.resumed} resumed)" if result.resumed else ""
        print(
            f"{result.rows} rows{resumed}, {result.records} records: {result.passed} passed, "
            f"{result.failed} failed, {result.errors} errors; report: {result.report}"
        )
    return 0 if result.passed_all else 1
