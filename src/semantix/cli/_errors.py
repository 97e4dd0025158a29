"""How a command that could not run reports why (exit status 2; docs/cli.md, "Errors and
--traceback"): one line for a problem semantix recognises; an exception from someone else's code
also gets its type and `location`. A chained cause that the message already states and that no
frame of the user's code raised (a download's network error) is not repeated.
"""

from __future__ import annotations

import re
import sys
import sysconfig
import traceback
from collections.abc import Iterator
from pathlib import Path

from semantix.cli._common import PROG, CommandError
from semantix.errors import SemantixError

__all__ = ["location", "report_error"]

_PACKAGE = Path(__file__).resolve().parents[1]
_STDLIB = tuple(
    str(Path(sysconfig.get_paths()[name]).resolve()) for name in ("stdlib", "platstdlib")
)
_NOT_THEIRS = (str(_PACKAGE), *_STDLIB)
CLI_MODEL_OPTION = "--model DIR on semantix check and calibrate"
#: Messages written for Python name Python arguments; on the command line they are options.
_FOR_THE_COMMAND_LINE = (
    (re.compile(r"the judge's model=\.\.\."), CLI_MODEL_OPTION),
    (re.compile(r"\b([Pp])ass file=\.\.\."), r"\1ass --file FILE"),
    (
        re.compile(r"\(or pass judge=\.\.\. to assert_semantic\)"),
        "(or choose one with --judge SPEC)",
    ),
    (re.compile(r"\bpass e\.g\. threshold=(\d)"), r"pass e.g. --threshold \1"),
    (re.compile(r"\bpass threshold=\.\.\."), "pass --threshold X"),
)


def report_error(command: str, exc: BaseException, *, show_traceback: bool = False) -> None:
    """Print why ``command`` could not run to stderr."""
    if show_traceback:
        traceback.print_exception(exc, file=sys.stderr)
    for line in error_lines(command, exc, show_traceback=show_traceback):
        print(line, file=sys.stderr)


def error_lines(command: str, exc: BaseException, *, show_traceback: bool = False) -> list[str]:
    """The lines `report_error` prints (without the traceback)."""
    foreign = not _ours(exc)
    text = _one_line(exc)
    head = f"{type(exc).__name__}: {text}" if foreign else text
    lines = [f"{PROG} {command}: error: {head}"]
    if foreign and (where := location(exc)) is not None:
        lines.append(f"  at {where}")
    shown_foreign = foreign
    for cause in _causes(exc):
        if _ours(cause):
            continue
        cause_text = _one_line(cause)
        if _plain(cause_text) in _plain(text) and not _in_users_code(cause):
            continue  # already in the message (e.g. a download's error), and not the user's bug
        where = location(cause)
        lines.append(f"  caused by {type(cause).__name__}: {cause_text}")
        if where is not None:
            lines.append(f"    at {where}")
        shown_foreign = True
    if shown_foreign and not show_traceback:
        lines.append("  add --traceback for the whole chain")
    return lines


def _plain(text: str) -> str:
    """``text`` without quotes and backslashes: a message quoting an error (its repr escapes
    quotes) still counts as stating it."""
    return re.sub(r"[\\'\"]", "", text)


def location(exc: BaseException) -> str | None:
    """``file:line, in function`` where ``exc`` was raised, as the user can act on it: the
    innermost frame of the user's own code (outside semantix, the standard library and installed
    packages), else the innermost frame outside semantix and the standard library, else None."""
    if isinstance(exc, SyntaxError) and exc.filename and exc.lineno:
        return f"{_shown_path(exc.filename)}:{exc.lineno}"
    frames = _frames(exc)
    users = [frame for frame in frames if not _installed(frame.filename)]
    chosen = users[0] if users else frames[0] if frames else None
    if chosen is None:
        return None
    return f"{_shown_path(chosen.filename)}:{chosen.lineno}, in {chosen.name}"


def _frames(exc: BaseException) -> list[traceback.FrameSummary]:
    """The frames of ``exc``'s traceback outside semantix and the standard library, innermost
    first."""
    return [
        frame
        for frame in reversed(traceback.extract_tb(exc.__traceback__))
        if not frame.filename.startswith("<") and not _inside(frame.filename, _NOT_THEIRS)
    ]


def _in_users_code(exc: BaseException) -> bool:
    return isinstance(exc, SyntaxError) or any(not _installed(f.filename) for f in _frames(exc))


def _installed(filename: str) -> bool:
    """Whether ``filename`` belongs to an installed package (site-packages)."""
    return bool({"site-packages", "dist-packages"} & set(Path(filename).parts))


def _ours(exc: BaseException) -> bool:
    """Whether semantix raised ``exc`` on purpose: one of its errors, a usage error, or an
    exception whose innermost frame is in semantix (a checked argument: ValueError, TypeError)."""
    if isinstance(exc, (SemantixError, CommandError)):
        return True
    frames = traceback.extract_tb(exc.__traceback__)
    return bool(frames) and _inside(frames[-1].filename, (str(_PACKAGE),))


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """The chained exceptions below ``exc``, as Python prints them (cause, else context)."""
    seen = {id(exc)}
    current: BaseException | None = exc
    while current is not None:
        current = (
            current.__cause__
            if current.__cause__ is not None or current.__suppress_context__
            else current.__context__
        )
        if current is None or id(current) in seen:
            return
        seen.add(id(current))
        yield current


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    if _ours(exc):
        for python, option in _FOR_THE_COMMAND_LINE:
            text = python.sub(option, text)
    return text


def _inside(filename: str, roots: tuple[str, ...]) -> bool:
    try:
        resolved = str(Path(filename).resolve())
    except OSError:
        return False
    return any(resolved == root or resolved.startswith(root.rstrip("/") + "/") for root in roots)


def _shown_path(filename: str) -> str:
    path = Path(filename)
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(path)
