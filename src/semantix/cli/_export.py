"""``semantix export MODEL [OUT_DIR]``: a Hugging Face NLI or sentence-transformers model in the
ONNX layout of the quantized or the embedding judge (`semantix.judges._export`)."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from semantix.cli._common import CommandError, Commands
from semantix.judges._export import export_model
from semantix.judges._model_dir import embedding_marks
from semantix.models._deps import ensure_installed

__all__ = ["NAME", "add_parser", "run"]

NAME = "export"


def add_parser(commands: Commands) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        NAME,
        help="convert a Hugging Face NLI or sentence-transformers model to the ONNX layout of "
        "QuantizedNLIJudge or EmbeddingJudge",
        description="Export MODEL (a Hugging Face repo id or a local directory) to ONNX with its "
        "tokenizer. An NLI (sequence-classification) model is also quantized to int8, for "
        "QuantizedNLIJudge(model=OUT_DIR) or SEMANTIX_MODEL_DIR; a sentence-transformers "
        "(feature-extraction) model is written as onnx/model.onnx, for "
        "EmbeddingJudge(model=OUT_DIR) or SEMANTIX_EMBEDDING_MODEL_DIR. OUT_DIR must be new or "
        "empty unless --force is given; without OUT_DIR a local MODEL directory gets the ONNX "
        "files beside its weights and loads as it is. Needs the [export] extra "
        "(pip install 'semantix-judge[export]').",
        epilog="examples:\n"
        "  semantix export cross-encoder/nli-deberta-v3-small ./models/nli-small\n"
        "  semantix export ./models/all-MiniLM-L6-v2     # adds onnx/model.onnx to it\n",
    )
    parser.add_argument("model", metavar="MODEL", help="Hugging Face repo id or local directory")
    parser.add_argument(
        "out_dir",
        metavar="OUT_DIR",
        nargs="?",
        help="directory to write the model to (default: MODEL itself, when it is a directory)",
    )
    parser.add_argument("--revision", help="commit, branch or tag of MODEL (default: main)")
    parser.add_argument(
        "--force",
        action="store_true",
        help="write into OUT_DIR even if it is not empty (or already has the ONNX files), "
        "replacing files of the same names",
    )
    return parser


#: What the export imports (`semantix.judges._export.export_model`), checked before it starts.
EXPORT_MODULES = ("transformers", "torch", "onnx", "optimum.exporters.onnx")


def run(args: argparse.Namespace) -> int:
    out_dir = args.out_dir
    if out_dir is None:
        if not Path(args.model).expanduser().is_dir():
            raise CommandError(
                f"MODEL {args.model!r} is not a local directory, so there is nowhere to add the "
                f"ONNX files; name one: semantix export {shlex.quote(args.model)} OUT_DIR"
            )
        out_dir = args.model
    ensure_installed(EXPORT_MODULES, extra="export", feature="semantix export")
    print(f"exporting {args.model} to {out_dir} ...", file=sys.stderr, flush=True)
    path = export_model(args.model, out_dir, revision=args.revision, overwrite=args.force)
    print(path)
    judge, variable, spec = ("QuantizedNLIJudge", "SEMANTIX_MODEL_DIR", "")
    if embedding_marks(path) is not None:
        judge, variable, spec = (
            "EmbeddingJudge",
            "SEMANTIX_EMBEDDING_MODEL_DIR",
            "--judge embedding ",
        )
    print(
        f"use it with {judge}(model={str(path)!r}), {variable}={shlex.quote(str(path))} or "
        f"semantix check {spec}--model {shlex.quote(str(path))}",
        file=sys.stderr,
    )
    return 0
