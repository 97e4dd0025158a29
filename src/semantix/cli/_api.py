"""The implementation behind `semantix.cli` (its face re-exports `__all__`)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from semantix import __version__
from semantix.cli import (
    _calibrate,
    _check,
    _compare,
    _download,
    _eval,
    _examples,
    _export,
    _freeze_variants,
    _report,
)
from semantix.cli._common import PROG, Formatter
from semantix.cli._errors import report_error

__all__ = ["COMMANDS", "build_parser", "main"]

#: The commands, in the order ``semantix --help`` lists them.
COMMANDS = (
    _check, _eval, _download, _export, _calibrate, _report, _compare, _freeze_variants, _examples,
)  # fmt: skip

_TRACEBACK_HELP = "on an error, print the whole chain of exceptions (for bug reports)"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``semantix`` command line with ``argv`` (default: ``sys.argv[1:]``); returns
    the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version (0) or a usage error (2, already printed)
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 2
    run: Callable[[argparse.Namespace], int] | None = getattr(args, "run", None)
    if run is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        status = run(args)
        sys.stdout.flush()  # a reader that went away is found here, not at exit
        return status
    except BrokenPipeError:
        # `semantix check ... | head -2`: quiet, as other CLIs are (the Python docs' SIGPIPE
        # recipe); exit 1, so a reader that stopped early never turns a check into a pass.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        print(f"{PROG} {args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - shown (type and place for foreign code), exit 2
        report_error(args.command, exc, show_traceback=args.traceback)
        return 2


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command in `COMMANDS`."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Assert what LLM output means, from the shell; manage semantix models.",
        epilog="Run 'semantix COMMAND --help' for the options of each command.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--traceback", action="store_true", help=_TRACEBACK_HELP)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        sub = command.add_parser(commands)
        sub.formatter_class = Formatter  # example epilogs as written
        # Also after the command (semantix check ... --traceback); SUPPRESS keeps a --traceback
        # given before the command.
        sub.add_argument(
            "--traceback", action="store_true", default=argparse.SUPPRESS, help=_TRACEBACK_HELP
        )
        sub.set_defaults(run=command.run)
    return parser
