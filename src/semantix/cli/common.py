"""What the commands share: the judge and intent options, and the one-line usage error."""

from __future__ import annotations

import argparse
import re
from typing import TYPE_CHECKING

from semantix import config
from semantix.errors import ConfigurationError
from semantix.intent import Intent, IntentMeta
from semantix.judges.base import Judge
from semantix.pipeline.judging import resolve_judge
from semantix.pipeline.specs import JUDGE_NAMES, import_object, judge_from_spec

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
    f"{', '.join(JUDGE_NAMES)} or module:attr (a judge, a judge class or a factory; the current "
    "directory is importable). Default: SEMANTIX_JUDGE, else quantized"
)
MODEL_HELP = (
    "a local model directory (or a model name) for the judge named by --judge; default: the "
    "judge's own model (SEMANTIX_MODEL_DIR / SEMANTIX_EMBEDDING_MODEL_DIR when set)"
)
_IMPORT_PATH = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


class CommandError(Exception):
    """A problem the user can fix: printed as one line, exit status 2."""


class Formatter(argparse.HelpFormatter):
    """Wraps descriptions like the default formatter, but keeps example epilogs as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith("example"):
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


def add_judge_options(parser: argparse.ArgumentParser) -> None:
    """``--judge SPEC`` and ``--model DIR``."""
    parser.add_argument("--judge", metavar="SPEC", help=JUDGE_HELP)
    parser.add_argument("--model", metavar="DIR", help=MODEL_HELP)


def cli_judge(args: argparse.Namespace) -> Judge:
    """The judge for ``--judge``/``--model``, resolved (verdict mode and all) by
    `semantix.pipeline.judging.resolve_judge`, like every other way of choosing a judge."""
    if args.model is None:
        return resolve_judge(args.judge)
    spec = args.judge or config.judge_spec() or "quantized"
    if spec not in _MODEL_JUDGES and not _IMPORT_PATH.match(spec):
        raise CommandError(
            f"--model {args.model!r} needs a judge that loads a model ({', '.join(_MODEL_JUDGES)} "
            f"or a judge class as module:Class), not {spec!r}"
        )
    if spec not in JUDGE_NAMES:
        target = import_object(spec, what="judge")
        if not isinstance(target, type):
            raise CommandError(
                f"--model {args.model!r} cannot be given to {spec!r}, a {type(target).__name__} "
                "and not a judge class; name a judge class that takes model=..., or drop --model"
            )
    return resolve_judge(judge_from_spec(spec, model=args.model))


_MODEL_JUDGES = tuple(name for name in JUDGE_NAMES if name != "llm")


def load_intent(value: str) -> type[Intent] | str:
    """An intent class for ``module:Name``, else the text itself (a description)."""
    if not _IMPORT_PATH.match(value.strip()):
        return value
    try:
        target = import_object(value.strip(), what="INTENT")
    except ConfigurationError as exc:
        raise CommandError(
            f"{exc}; or, if INTENT is meant as a description, write it as a sentence such as "
            "'The text is polite.'"
        ) from exc
    if not isinstance(target, IntentMeta):
        raise CommandError(
            f"INTENT {value!r} is {type(target).__name__}, not an Intent class; point it at a "
            "subclass of semantix.Intent"
        )
    intent: type[Intent] = target  # type: ignore[assignment]
    return intent
