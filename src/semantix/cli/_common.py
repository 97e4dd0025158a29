"""What the commands share: the judge and intent options, and the one-line usage error."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from semantix import _config as config
from semantix._intent import Intent
from semantix.errors import ConfigurationError
from semantix.judges._base import Judge
from semantix.judges._model_dir import embedding_marks
from semantix.pipeline import _intent_specs as intent_specs
from semantix.pipeline._judging import resolve_judge
from semantix.pipeline._specs import JUDGE_NAMES, import_object, judge_from_spec, parse_spec

if TYPE_CHECKING:
    Commands = argparse._SubParsersAction[argparse.ArgumentParser]
else:
    Commands = argparse._SubParsersAction

__all__ = [
    "PROG",
    "CommandError",
    "Commands",
    "Formatter",
    "add_judge_options",
    "cli_judge",
    "load_intent",
]

PROG = "semantix"
JUDGE_HELP = (
    f"{', '.join(JUDGE_NAMES)}, optionally with a model (llm:gpt-4o, embedding:DIR), or "
    "module:attr (a judge, a judge class or a factory; the current directory is importable). "
    "Default: SEMANTIX_JUDGE, else quantized"
)
MODEL_HELP = (
    "a local model directory (or a model name) for the judge named by --judge; default: the "
    "judge's own model (SEMANTIX_MODEL_DIR / SEMANTIX_EMBEDDING_MODEL_DIR when set)"
)
FILE_HELP = (
    "the ONNX file inside the model directory to load (quantized and embedding judges; "
    "default: the first of the usual names that is there)"
)


class CommandError(Exception):
    """A problem the user can fix: printed as one line, exit status 2."""


class Formatter(argparse.HelpFormatter):
    """Wraps descriptions like the default formatter, but keeps example epilogs as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith("example"):
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


def add_judge_options(parser: argparse.ArgumentParser) -> None:
    """``--judge SPEC``, ``--model DIR`` and ``--file FILE``."""
    parser.add_argument("--judge", metavar="SPEC", help=JUDGE_HELP)
    parser.add_argument("--model", metavar="DIR", help=MODEL_HELP)
    parser.add_argument("--file", metavar="FILE", help=FILE_HELP)


def cli_judge(args: argparse.Namespace) -> Judge:
    """The judge for ``--judge``/``--model``/``--file``, resolved (verdict mode and all) by
    `semantix.pipeline._judging.resolve_judge`, like every other way of choosing a judge."""
    file = getattr(args, "file", None)
    if args.judge is not None:
        parse_spec(args.judge, source="--judge")  # a bad spec names the option
    if args.model is None and file is None:
        return resolve_judge(args.judge)
    given = args.judge or config.judge_spec()
    spec = given or "quantized"
    parsed = parse_spec(spec, source="--judge")
    option = f"--model {args.model!r}" if args.model is not None else f"--file {file!r}"
    if parsed.name == "llm" or (file is not None and parsed.name == "nli"):
        takes = _MODEL_JUDGES if file is None else ("quantized", "embedding")
        raise CommandError(
            f"{option} needs a judge that loads a model ({', '.join(takes)} or a judge class as "
            f"module:Class), not {spec!r}"
        )
    if parsed.path is not None:
        target = import_object(parsed.path, what="judge")
        if not isinstance(target, type):
            raise CommandError(
                f"{option} cannot be given to {spec!r}, a {type(target).__name__} and not a "
                "judge class; name a judge class that takes model=..., or drop the option"
            )
    elif parsed.name in ("quantized", "nli") and args.model is not None:
        _refuse_embedding_dir(args.model, given)
    options = {k: v for k, v in (("model", args.model), ("file", file)) if v is not None}
    return resolve_judge(judge_from_spec(spec, **options))


_MODEL_JUDGES = tuple(name for name in JUDGE_NAMES if name != "llm")


def _refuse_embedding_dir(model: str, given: str | None) -> None:
    """An NLI judge given a sentence-embedding model directory: say which judge it is for,
    before the NLI judge fails on the missing labels."""
    directory = Path(model).expanduser()
    why = embedding_marks(directory) if directory.is_dir() else None
    if why is None:
        return
    fix = "add --judge embedding" if given is None else f"use --judge embedding, not {given!r}"
    judge = "and the default judge is an NLI judge" if given is None else "not an NLI model"
    raise CommandError(f"--model {model!r} looks like an embedding model ({why}), {judge}; {fix}")


def load_intent(value: str) -> type[Intent] | str:
    """`semantix.pipeline._intent_specs.load_intent`, its errors as the command's one line."""
    try:
        return intent_specs.load_intent(value)
    except ConfigurationError as exc:
        raise CommandError(str(exc)) from None
