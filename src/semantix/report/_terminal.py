"""The end-of-session table (docs/pytest-plugin.md, "The report"), as ``(text, markup)`` pairs
that the pytest plugin writes with pytest's own terminal writer, so colours follow ``--color``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from itertools import groupby

from semantix.pipeline._results import BORDERLINE_MARGIN
from semantix.report._model import NOT_JUDGED, CheckRecord, Leaf, Summary, outcome, summarize
from semantix.report._records import BAD, OUTCOME_WORDS

__all__ = [
    "Line",
    "header_line",
    "render_row",
    "report_lines",
    "short_judge",
    "summary_line",
    "test_id_lines",
]

#: A line of text and the markup to write it with (e.g. ``{"red": True}``).
Line = tuple[str, dict[str, bool]]
_Row = tuple[tuple[str, ...], dict[str, bool]]

_HEADER = ("test", "intent", "judge", "score", "threshold", "verdict", "time")
_RIGHT = {3, 4, 6}
_MIN_TEST, _MIN_INTENT, _MIN_JUDGE = 24, 12, 12
_JUDGE = re.compile(r"(?P<name>[^(]+)\((?P<where>.*)\)")


def short_judge(identity: str | None) -> str:
    """``QuantizedNLIJudge(nli-deberta-v3-xsmall@a150876)`` from a full identity string: a local
    directory becomes its last component, a revision its first 7 characters, the file goes."""
    if not identity:
        return "-"
    match = _JUDGE.fullmatch(identity)
    if match is None:
        return identity
    where = match["where"].split(", ")[0]
    model, _, revision = where.partition("@")
    model = model.rstrip("/").rsplit("/", 1)[-1] if "/" in model else model
    return f"{match['name']}({model}{'@' + revision[:7] if revision else ''})"


def header_line(judges: Sequence[str], verdicts_mode: str | None) -> str:
    """``judge: QuantizedNLIJudge(...) · verdicts: off`` for the report's first line."""
    names = ", ".join(dict.fromkeys(short_judge(judge) for judge in judges if judge)) or "-"
    return f"judge: {names} · verdicts: {verdicts_mode or 'off'}"


def report_lines(
    records: Sequence[CheckRecord], *, width: int = 120, judge_column: bool | None = None
) -> list[Line]:
    """The table for ``records`` (already sorted), fitted to ``width`` columns, and its summary.

    The judge column is shown when several judges decided (``judge_column=None``: the caller
    prints `header_line`, which names a single one), always (True) or never (False).
    """
    judges = {short_judge(record.judge) for record in records if record.judge}
    with_judge = len(judges) > 1 if judge_column is None else judge_column
    rows: list[_Row] = []
    # Consecutive records of one test and one intent (the runs of a repeated check) share a row.
    for _, grouped in groupby(records, key=lambda record: (record.nodeid, record.intent)):
        group = list(grouped)
        rows.extend(_rows(group[0]) if len(group) == 1 else _group_rows(group))
    header = _HEADER if with_judge else _HEADER[:2] + _HEADER[3:]
    if not with_judge:
        rows = [(cells[:2] + cells[3:] if len(cells) > 1 else cells, mark) for cells, mark in rows]
    right = _RIGHT if with_judge else {index - 1 for index in _RIGHT}
    table = [cells for cells, _ in rows if len(cells) > 1]
    widths = _fit([header, *table], width, with_judge=with_judge)
    lines: list[Line] = [(text, {"bold": True}) for text in render_row(header, widths, right)]
    lines.extend(
        (text, markup) for cells, markup in rows for text in render_row(cells, widths, right)
    )
    marks = {mark for cells in table for mark in cells[len(header) - 2].rpartition(" ")[2]}
    lines.extend((text, {}) for mark, text in _LEGENDS.items() if mark in marks)
    if any(outcome(record) == "caught" for record in records):
        lines.append((_CAUGHT, {}))
    summary = summarize(records)
    colour = "red" if summary.failed or summary.errors else "yellow" if summary.xpassed else "green"
    markup = {colour: True, "bold": True}
    text = summary_line(summary)
    head, separator, deciders = text.partition("; leaf verdicts")
    if len(text) > width and separator:  # who decided what on a line of its own
        lines += [(head, markup), ("leaf verdicts" + deciders, markup)]
    else:
        lines.append((text, markup))
    return lines


#: The marks after a verdict, and their legend lines.
_LEGENDS = {
    "~": (
        f"~ borderline: within {BORDERLINE_MARGIN:.2f} of the threshold; a reworded output may "
        "flip the verdict"
    ),
    "*": (
        "* topical: a similarity judge compared the output with the description alone (no "
        "examples): closeness of topic, not whether it does what the description says; give "
        "the intent examples, or use an entailment judge"
    ),
}


_CAUGHT = (
    "CAUGHT: the check failed or raised inside a test that passed (pytest.raises expected it, or "
    "its test's pass rate reached the floor): shown, not a failure of the run"
)


def _marks(borderline: object, topical: object) -> str:
    """`` ~``, `` *`` or `` ~*`` after a verdict: borderline, topical (empty for neither)."""
    marks = ("~" if borderline else "") + ("*" if topical else "")
    return " " + marks if marks else ""


def summary_line(summary: Summary) -> str:
    """``6 semantic assertions: 4 passed, 1 failed, 1 error (2 borderline)``; expected failures,
    unexpected passes, skips and topical verdicts are counted when there are any
    (``..., 0 errors, 18 xfailed, 1 xpassed``)."""
    noun = "assertion" if summary.total == 1 else "assertions"
    parts = [f"{summary.passed} passed", f"{summary.failed} failed"]
    parts.append(f"{summary.errors} error{'s' if summary.errors != 1 else ''}")
    expected = ("caught", "xfailed", "xpassed", "skipped")
    parts += [f"{count} {word}" for word in expected if (count := getattr(summary, word))]
    text = f"{summary.total} semantic {noun}: {', '.join(parts)}"
    marked = [f"{n} {word}" for word in ("borderline", "topical") if (n := getattr(summary, word))]
    if marked:
        text += f" ({', '.join(marked)})"
    if len(summary.decided_by) > 1:
        decided = ", ".join(
            f"{short_judge(judge)} {count}" for judge, count in sorted(summary.decided_by.items())
        )
        text += f"; leaf verdicts decided by: {decided}"
    return text


#: Each outcome's colour in the table (`OUTCOME_WORDS`); pytest's for xfail and skips.
_MARKUP = {"passed": {"green": True}, "failed": {"red": True}, "error": {"red": True}}
_MARKUP |= {word: {"yellow": True} for word in ("xfailed", "xpassed", "skipped")}
_MARKUP["caught"] = {}


def _rows(record: CheckRecord) -> list[_Row]:
    result = outcome(record)
    verdict = OUTCOME_WORDS[result] + _marks(record.borderline, record.topical)
    markup = _MARKUP[result]
    if record.borderline and result == "passed":
        markup = {"yellow": True}
    judge = short_judge(record.judge)
    head = [record.nodeid, record.intent, judge, "", "", verdict, _format_ms(record.duration_ms)]
    leaves = record.leaves
    if record.outcome == "error":
        # the error on a line of its own, under the row, as wide as the terminal
        return [(tuple(head), markup), (("    " + (record.error or ""),), markup)]
    if len(leaves) == 1 and leaves[0].intent.lstrip("~") == record.intent.lstrip("~"):
        head[3:5] = _score_range(leaves), _threshold_range(leaves)
        return [(tuple(head), markup)]
    rows: list[_Row] = [(tuple(head), markup)]
    for leaf in leaves:
        decided = leaf.decided
        own = short_judge(leaf.judge) if leaf.judge else judge
        leaf_verdict = _LEAF_WORDS[decided] + _marks(leaf.borderline, leaf.topical)
        cells = (
            "",
            "  " + leaf.intent,
            "" if own == judge else own,  # a leaf's judge when not the row's (``structural``)
            _score_range([leaf]),
            _threshold_range([leaf]),
            leaf_verdict,
            "",
        )
        rows.append((cells, {"red": True} if decided == "failed" else {}))
    return rows


_LEAF_WORDS = {"passed": "ok", "failed": "not ok", NOT_JUDGED: NOT_JUDGED}


def _group_rows(group: Sequence[CheckRecord]) -> list[_Row]:
    """One row for the runs of a repeated check: pass count, score range, total time; then one
    row per leaf of a composite, with its own count."""
    first = group[0]
    outcomes = [record.outcome for record in group]
    passes, errors = outcomes.count("passed"), outcomes.count("error")
    verdict = f"{passes}/{len(group)} passed" + (f", {errors} error" if errors else "")
    verdict += "s" * (errors > 1)
    # One test made the group: its pytest outcome, when that is not a plain pass or failure.
    expected = {outcome(record) for record in group} & {"xfailed", "xpassed", "skipped"}
    verdict += "".join(f", {OUTCOME_WORDS[word]}" for word in sorted(expected))
    bad = any(outcome(record) in BAD for record in group)
    borderline = any(record.borderline for record in group)
    verdict += _marks(borderline, any(record.topical for record in group))
    total = sum(record.duration_ms or 0 for record in group)
    judged = [record for record in group if record.leaves]
    intents = [leaf.intent for leaf in judged[0].leaves] if judged else []
    single = len(intents) == 1 and intents[0].lstrip("~") == first.intent.lstrip("~")
    leaves = [[record.leaves[i] for record in judged] for i in range(len(intents))]
    ranges = (_score_range(leaves[0]), _threshold_range(leaves[0])) if single else ("", "")
    colour = "red" if bad else "yellow" if borderline or expected else "green"
    judge = short_judge(first.judge)
    cells = (first.nodeid, first.intent, judge, *ranges, verdict, _format_ms(total))
    rows: list[_Row] = [(cells, {colour: True})]
    if single:
        return rows
    for name, runs in zip(intents, leaves, strict=True):
        results = [leaf.decided for leaf in runs]
        shown = f"{results.count('passed')}/{len(runs)} ok"
        if results.count(NOT_JUDGED):
            shown += f", {results.count(NOT_JUDGED)} {NOT_JUDGED}"
        cells = ("", "  " + name, "", _score_range(runs), _threshold_range(runs), shown, "")
        rows.append((cells, {"red": True} if "failed" in results else {}))
    return rows


def _score_range(leaves: Sequence[Leaf]) -> str:
    scores = [leaf.score for leaf in leaves if leaf.score is not None]
    if not scores:
        return "n/a"
    low, high = f"{min(scores):.2f}", f"{max(scores):.2f}"
    return low if low == high else f"{low}-{high}"


def _threshold_range(leaves: Sequence[Leaf]) -> str:
    values = (leaf.threshold for leaf in leaves)
    shown = sorted({"-" if v is None else f"{v:.2f}" for v in values})
    return shown[0] if len(shown) == 1 else f"{shown[0]}-{shown[-1]}"


def _fit(table: Sequence[tuple[str, ...]], width: int, *, with_judge: bool) -> list[int]:
    """Column widths that fit ``width`` (docs/pytest-plugin.md, "Width")."""
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    flexible = (0, 1, 2) if with_judge else (0, 1)
    fixed = sum(widths) - sum(widths[column] for column in flexible)
    room = width - fixed - 2 * (len(widths) - 1)
    ids = [row[0] for row in table[1:] if row[0]]
    file_and_name = max((len(_without_directories(nodeid)) for nodeid in ids), default=0)
    name = max((len(nodeid.partition("::")[2]) + 3 for nodeid in ids), default=0)
    steps = [(1, room // 4), (2, room // 5), (0, file_and_name), (1, 0), (2, 0), (0, name), (0, 0)]
    minimum = {0: _MIN_TEST, 1: _MIN_INTENT, 2: _MIN_JUDGE}
    for column, floor in steps:
        overflow = sum(widths[c] for c in flexible) - room
        if overflow <= 0:
            break
        if column in flexible:
            floor = max(floor, minimum[column])
            widths[column] = max(min(widths[column], floor), widths[column] - overflow)
    return widths


def render_row(cells: tuple[str, ...], widths: Sequence[int], right: set[int]) -> list[str]:
    """A table row as one or more lines: cells padded to ``widths`` (those in ``right`` aligned
    right); a cell wider than its column is wrapped onto the next lines, never cut."""
    if len(cells) == 1:  # a line of its own (an error), as wide as the table
        total = sum(widths) + 2 * (len(widths) - 1)
        return _wrap(cells[0], total)
    columns = [
        test_id_lines(cell, width) if index == 0 else _wrap(cell, width)
        for index, (cell, width) in enumerate(zip(cells, widths, strict=True))
    ]
    lines = []
    for row in range(max(len(column) for column in columns)):
        out = []
        for index, (column, width) in enumerate(zip(columns, widths, strict=True)):
            cell = column[row] if row < len(column) else ""
            out.append(cell.rjust(width) if index in right else cell.ljust(width))
        lines.append("  ".join(out).rstrip())
    return lines


def _without_directories(nodeid: str) -> str:
    """``…/test_bot.py::test_x`` for ``tests/unit/test_bot.py::test_x``."""
    path, separator, name = nodeid.partition("::")
    return "…/" + path.rsplit("/", 1)[1] + separator + name if "/" in path else nodeid


def test_id_lines(nodeid: str, width: int) -> list[str]:
    """A test id in a column ``width`` wide: whole when it fits; else its directories go
    (``…/test_bot.py::test_x``), then the start of its path (``…bot.py::test_x``) while the
    test's name stays whole; a name longer than the column is wrapped (the file on a line,
    then the name), never cut."""
    short = _without_directories(nodeid)
    if len(nodeid) <= width:
        return [nodeid]
    if len(short) <= width:
        return [short]
    path, separator, name = nodeid.rpartition("::")
    if separator and len(name) + 3 <= width:
        tail = nodeid[-(width - 1) :]
        return ["…" + (tail[1:] if tail.startswith(":") and not tail.startswith("::") else tail)]
    if not separator:
        return _wrap(short, width)
    return _wrap(path.rsplit("/", 1)[-1] + "::", width) + _wrap(name, width)


#: Where a long cell may be broken: after these characters (``::`` as a whole), and between a
#: lowercase letter and a capital (``AnswersThe|Refund``).
_BREAK_AFTER = frozenset(" _/-,.&|")


def _wrap(text: str, width: int) -> list[str]:
    """``text`` on lines of at most ``width`` characters, broken where a reader expects it
    (`_BREAK_AFTER`), mid-word only when there is no such place; continuation lines keep the
    first line's indent."""
    indent = text[: len(text) - len(text.lstrip(" "))]
    if len(indent) * 2 >= width:
        indent = ""
    lines: list[str] = []
    rest, prefix = text, ""  # the first line's indent is part of ``text``
    while len(prefix) + len(rest) > width:
        window = width - len(prefix)
        cut = max(
            (i for i in range(1, window + 1) if _breaks(rest, i) and rest[:i].strip()),
            default=window,
        )
        lines.append(prefix + rest[:cut].rstrip())
        rest, prefix = rest[cut:].lstrip(" "), indent
    lines.append(prefix + rest)
    return lines


def _breaks(text: str, index: int) -> bool:
    """Whether ``text`` may be broken before ``text[index]``."""
    before, after = text[index - 1], text[index] if index < len(text) else ""
    if before == ":":
        return after != ":"
    return before in _BREAK_AFTER or (before.islower() and after.isupper())


def _format_ms(value: float | None) -> str:
    if value is None or math.isnan(value):
        return "-"
    if value >= 1000:
        return f"{value / 1000:.2f} s"
    return f"{value:.0f} ms"
