"""``semantix export MODEL OUT_DIR``: a Hugging Face NLI model in the quantized judge's layout."""

from __future__ import annotations

import argparse
import sys

from semantix.cli.common import Commands, Formatter
from semantix.judges.export import export_model
from semantix.models.deps import ensure_installed

__all__ = ["NAME", "add_parser", "run"]

NAME = "export"


def add_parser(commands: Commands) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        NAME,
        help="convert a Hugging Face NLI model to the ONNX int8 layout of QuantizedNLIJudge",
        description="Export MODEL (a Hugging Face repo id or a local directory) to ONNX, "
        "quantize it to int8 and write it with its tokenizer to OUT_DIR, ready for "
        "QuantizedNLIJudge(model=OUT_DIR), SEMANTIX_MODEL_DIR=OUT_DIR or "
        "'semantix check --model OUT_DIR'. OUT_DIR must be new or empty unless --force is "
        "given. Needs the [export] extra (from a clone: pip install -e '.[export]').",
        epilog="example:\n  semantix export cross-encoder/nli-deberta-v3-small ./models/nli-small\n",
        formatter_class=Formatter,
    )
    parser.add_argument("model", metavar="MODEL", help="Hugging Face repo id or local directory")
    parser.add_argument("out_dir", metavar="OUT_DIR", help="directory to write the model to")
    parser.add_argument("--revision", help="commit, branch or tag of MODEL (default: main)")
    parser.add_argument(
        "--force",
        action="store_true",
        help="write into OUT_DIR even if it is not empty, replacing files of the same names",
    )
    return parser


#: What the export imports (`semantix.judges.export.export_model`), checked before it starts.
EXPORT_MODULES = ("transformers", "torch", "onnx")


def run(args: argparse.Namespace) -> int:
    ensure_installed(EXPORT_MODULES, extra="export", feature="semantix export")
    print(f"exporting {args.model} to {args.out_dir} ...", file=sys.stderr, flush=True)
    path = export_model(args.model, args.out_dir, revision=args.revision, overwrite=args.force)
    print(path)
    print(
        f"use it with QuantizedNLIJudge(model={str(path)!r}), SEMANTIX_MODEL_DIR={path} or "
        f"semantix check --model {path}",
        file=sys.stderr,
    )
    return 0
