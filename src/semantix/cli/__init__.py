"""The ``semantix`` command line (also ``python -m semantix``); docs/cli.md is its manual (exit
status, errors and ``--traceback``, every command).

Each command is a module in `COMMANDS` with ``NAME``, ``add_parser(commands)`` (adds and
returns its sub-parser) and ``run(args) -> int``; adding a command is adding its module there.
"""

from __future__ import annotations

from semantix.cli._api import COMMANDS, main

__all__ = [
    "COMMANDS",
    "main",
]
