"""Pieces of the HTML report (`semantix.report._html` puts them into the page): value formatting,
every text HTML-escaped (`_e`), and the sections on scores per intent and repeated runs, each a
function of the typed report (`semantix.report._model.Report`).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from datetime import datetime, timezone

from semantix import __version__
from semantix._text import preview
from semantix.report._html_assets import CSS
from semantix.report._model import (
    NOT_JUDGED,
    CheckRecord,
    JudgeCost,
    Leaf,
    RepeatedTest,
    Report,
)
from semantix.report._records import format_usd
from semantix.report._runs import _counted, _verdict
from semantix.report._terminal import short_judge
from semantix.runs._stats import suite_stability

__all__ = ["PREVIEW_CHARS", "judge_cost", "page", "plots", "readable", "runs"]

#: Characters of an output (or evidence) shown in the table before it is folded into <details>.
PREVIEW_CHARS = 120

# Strip plot geometry (SVG user units).
_PLOT_W, _PLOT_H, _PAD_X, _PAD_TOP, _AXIS = 720, 64, 16, 6, 18
# Pass-rate bar geometry.
_BAR_W, _BAR_H = 200, 18


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def page(title: str, body: str, *, style: str = "") -> str:
    """A self-contained page (no network) with the report's style sheet, and ``style`` after it."""
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta name="generator" content="semantix {_e(__version__)}">\n'
        f"<title>{_e(title)}</title>\n<style>{CSS}{style}</style>\n</head>\n<body>\n{body}"
        "</body>\n</html>\n"
    )


#: Where a test id, an intent or a judge name may wrap: after a path's or a name's separators,
#: before an opening bracket, between the words of a CamelCase name. A long name then wraps
#: between its parts, never inside a word.
_BREAK_AFTER = re.compile(r"(::|[/.,@_\-\]])")
_BREAK_BEFORE = re.compile(r"(?=[\[(])|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def _breakable(value: object) -> str:
    """``value`` escaped (`readable`), with a line-break opportunity (``<wbr>``) between its
    parts."""
    parts = _BREAK_AFTER.sub("\\1\0", _BREAK_BEFORE.sub("\0", readable(str(value)))).split("\0")
    return "<wbr>".join(_e(part) for part in parts if part)


def _split_description(text: str) -> tuple[str, str]:
    """A description's first line, and the rest (empty for a one-line description)."""
    first, _, rest = text.strip().partition("\n")
    return first.strip(), rest.strip("\n")


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _ms(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.1f} ms" if value < 10 else f"{value:,.0f} ms"


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s"


def _date(value: str | None) -> str:
    if not value:
        return "—"
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return value
    if moment.tzinfo is not None:
        return moment.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def _folded(text: object, css: str) -> str:
    """A text shown whole when short, else folded: its first words, expanding to the rest.

    The text is in the page once (its start in the <summary>, the rest after it), so a large run
    stays small; CSS marks a folded text with an ellipsis and its length.
    """
    if text is None or text == "":
        return "—"
    value = str(text)
    if len(value) <= PREVIEW_CHARS:
        return f'<span class="{css}">{_e(value)}</span>'
    head = value[:PREVIEW_CHARS]
    cut = max(head.rfind(" "), head.rfind("\n"))
    cut = cut if cut > PREVIEW_CHARS // 2 else PREVIEW_CHARS
    return (
        f'<details class="{css}"><summary data-n="{len(value):,} chars">{_e(value[:cut])}'
        f"</summary>{_e(value[cut:])}</details>"
    )


def _judge(identity: object) -> str:
    """The short judge name; the full identity (model, revision, file) on hover."""
    if not identity:
        return "—"
    full = str(identity)
    title = "" if readable(short_judge(full)) == full else f' title="{_e(full)}"'
    return f'<span class="j"{title}>{_breakable(short_judge(full))}</span>'


def _lines(cells: Iterable[str]) -> str:
    """One line per leaf inside a cell (a single leaf's cell is just its text)."""
    shown = list(cells)
    return shown[0] if len(shown) == 1 else "".join(f"<div>{cell}</div>" for cell in shown)


def judge_cost(cost: JudgeCost | None) -> str:
    """The header's line on what the LLM judges' verdicts cost (``meta.judge_cost``), when they
    spent tokens (`semantix.report._records.format_usd`, as every report shows money)."""
    if cost is None or not cost.verdicts:
        return ""
    usd = cost.usd
    unpriced = ", ".join(cost.unpriced)
    return (
        f"<dt>Judge cost</dt><dd>{_e(format_usd(usd) if usd is not None else 'unknown')} <small>("
        f"{_e(cost.verdicts)} LLM-judged verdicts, {_e(cost.prompt_tokens)} input and "
        f"{_e(cost.completion_tokens)} output tokens; the judges' own, apart from "
        f"the system's{f'; no price for {_e(unpriced)}' if unpriced else ''})</small></dd>"
    )


def plots(records: Sequence[CheckRecord]) -> str:
    """The "Scores per intent" section: a strip plot per intent (by qualified name)."""
    # Keyed by the intent's qualified name and its label: two intents of one name from two
    # modules stay apart, and ~X (passes below the line) is not merged into X.
    groups: dict[tuple[str, str], list[tuple[int, Leaf]]] = {}
    exact: dict[str, list[tuple[int, Leaf]]] = {}  # structural leaves: 1 or 0, never plotted
    for index, record in enumerate(records):
        for leaf in record.leaves:
            if leaf.threshold_source == "structural":
                exact.setdefault(leaf.intent, []).append((index, leaf))
                continue
            key = (leaf.intent, leaf.qualname or leaf.intent)
            groups.setdefault(key, []).append((index, leaf))
    labels = [label for label, _ in groups]
    figures = "".join(
        _plot(records, position, label, qualname if labels.count(label) > 1 else None, points)
        for position, ((label, qualname), points) in enumerate(sorted(groups.items()))
    )
    if not figures:
        figures = '<p class="empty">No judged scores to plot.</p>\n'
    return (
        '<section id="intents">\n<h2>Scores per intent</h2>\n'
        '<p class="hint">Every score of each intent against its threshold (dashed): '
        '<span class="k pass">●</span> passed, <span class="k fail">■</span> failed, '
        '<span class="k bl">○</span> borderline. A well-placed threshold separates the '
        "two colours with room to spare.</p>\n"
        f"{figures}{_structural(records, exact)}</section>\n"
    )


def _structural(records: Sequence[CheckRecord], exact: dict[str, list[tuple[int, Leaf]]]) -> str:
    """The structural checks as one compact table: each check's passes and failures (exact 1
    or 0, nothing to plot) and its first failure's test and reason."""
    if not exact:
        return ""
    rows = []
    for name, points in sorted(exact.items()):
        decided = [leaf.decided for _, leaf in points]
        failed = [(index, leaf) for index, leaf in points if leaf.decided == "failed"]
        first = ""
        if failed:
            index, leaf = failed[0]
            reason = preview(leaf.reason or "no reason given", 160, quote=False)
            first = f'<span class="id">{_e(records[index].nodeid)}</span>: {_e(reason)}'
        skipped = decided.count(NOT_JUDGED)
        rows.append(
            f'<tr class="{"fail" if failed else "pass"}"><td><code>{_e(readable(name))}</code>'
            f'</td><td class="n">{decided.count("passed")}</td><td class="n">{len(failed)}</td>'
            f'<td class="n">{skipped}</td><td>{first}</td></tr>'
        )
    return (
        f'<h3 id="structural">Structural checks ({len(exact)})</h3>\n'
        '<p class="hint">Decided exactly by semantix (1 or 0, no threshold to tune): counted '
        "here, not plotted.</p>\n"
        '<table class="structural"><thead><tr><th>check</th><th>passed</th><th>failed</th>'
        f"<th>not judged</th><th>first failure</th></tr></thead><tbody>{''.join(rows)}"
        "</tbody></table>\n"
    )


_LOCALS = re.compile(r"[\w.]*<locals>\.")


def readable(name: str) -> str:
    """``name`` without Python's ``<locals>`` qualifiers: ``test_x.<locals>.<lambda>`` reads
    ``<lambda>``, ``tests.test_bot.test_x.<locals>.Polite`` reads ``Polite``."""
    return _LOCALS.sub("", name)


def _plot(
    records: Sequence[CheckRecord],
    position: int,
    name: str,
    qualname: str | None,
    points: list[tuple[int, Leaf]],
) -> str:
    width = _PLOT_W - 2 * _PAD_X
    band = _PLOT_H - _PAD_TOP - _AXIS

    def x(score: float) -> float:
        return _PAD_X + min(max(score, 0.0), 1.0) * width

    description = next((leaf.description for _, leaf in points if leaf.description), "")
    expected = next((leaf.expected for _, leaf in points), True)
    thresholds = sorted({round(t, 4) for _, leaf in points if (t := leaf.threshold) is not None})
    rings: list[str] = []
    passes: list[str] = []
    fails: list[str] = []
    for number, (index, leaf) in enumerate(points):
        score = leaf.score
        if score is None:
            continue
        # A deterministic spread (golden-ratio sequence) keeps equal scores apart.
        y = _PAD_TOP + 3 + ((number * 0.6180339887498949) % 1.0) * (band - 6)
        cx = x(score)
        # Every point is a zero-length segment of one path per kind (round caps draw a dot,
        # square caps a square): thousands of points stay a few bytes each.
        lost = leaf.decided == "failed"
        (fails if lost else passes).append(f"M{cx:.1f} {y:.1f}h0")
        threshold = leaf.threshold
        why = lost and threshold is not None and (score >= threshold) is bool(expected)
        if leaf.borderline or why:
            # Borderline points are few and worth a look: a ring that names its test; a failure
            # on the passing side of its threshold says why (a judge's extra condition).
            tip = f"{_e(records[index].nodeid)}: {score:.3f}"
            if why:
                tip += f" failed: {_e(preview(leaf.reason or 'no reason', 120, quote=False))}"
            rings.append(
                f'<circle class="bl" cx="{cx:.1f}" cy="{y:.1f}" r="5"><title>{tip}</title></circle>'
            )
    paths = [(css, dots) for css, dots in (("pass", passes), ("fail", fails)) if dots]
    shapes = [f'<path class="{css}" d="{"".join(dots)}"/>' for css, dots in paths] + rings
    scored, failed, borderline = len(passes) + len(fails), len(fails), len(rings)
    lines = "".join(
        f'<line class="th" x1="{x(t):.1f}" x2="{x(t):.1f}" y1="{_PAD_TOP - 4}" '
        f'y2="{_PAD_TOP + band}"/>'
        for t in thresholds
    )
    axis_y = _PAD_TOP + band
    ticks = "".join(
        f'<line class="ax" x1="{x(v):.1f}" x2="{x(v):.1f}" y1="{axis_y}" y2="{axis_y + 4}"/>'
        f'<text x="{x(v):.1f}" y="{axis_y + 14}">{v:g}</text>'
        for v in (0, 0.25, 0.5, 0.75, 1)
    )
    direction = "at or above" if expected is not False else "below"
    shown = ", ".join(f"{t:g}" for t in thresholds) or "—"
    caption = (
        f"<b>{_e(readable(name))}</b>"
        + (f" <code>{_e(qualname.replace('.<locals>.', '.'))}</code>" if qualname else "")
        + f" <small>{_e(_split_description(description)[0])}</small><br>{scored:,} score"
        f"{'s' if scored != 1 else ''}, {failed:,} failed, {borderline:,} borderline; "
        f"threshold {_e(shown)} (passes {direction} the line)"
    )
    return (
        f'<figure id="intent-{position}"><figcaption>{caption}</figcaption>'
        f'<svg class="strip" viewBox="0 0 {_PLOT_W} {_PLOT_H}" width="{_PLOT_W}" '
        f'height="{_PLOT_H}" role="img" aria-label="scores of {_e(name)}">'
        f'<line class="ax" x1="{_PAD_X}" x2="{_PLOT_W - _PAD_X}" y1="{axis_y}" '
        f'y2="{axis_y}"/>{ticks}{lines}{"".join(shapes)}</svg></figure>\n'
    )


#: A repeated test's pytest outcome that replaces its own verdict, as its CSS class.
_EXPECTED = {"xfailed": "xfail", "xpassed": "xpass", "skipped": "skip"}


def runs(report: Report) -> str:
    """The "Repeated runs" section (empty without repeated tests, or tests run once)."""
    tests, once = report.repeated, report.once
    if not tests and not once:
        return ""
    ordered = sorted(tests, key=lambda test: (test.verdict == "passed", test.nodeid))
    rows = "".join(_run_row(test) for test in ordered)
    counted = _counted(tests)
    stability, below = suite_stability(counted)
    left_out = len(tests) - len(counted)
    summary = (
        f"Stability {_fmt(stability)} (mean pass rate) over {len(counted):,} repeated "
        f"test{'s' if len(counted) != 1 else ''}; {below} not "
        "proven at their floor (the 95 % interval's lower bound is under it)"
        + (f"; {_e(left_out)} xfailed or skipped left out." if left_out else ".")
    )
    if once:
        summary += (
            f"</p>\n<p>Ran once, every check in the first run structural (decided without a "
            f"judge, so repeating proves nothing): {', '.join(f'<code>{_e(n)}</code>' for n in once)}."
        )
    return (
        '<section id="runs">\n<h2>Repeated runs</h2>\n'
        '<p class="hint">Pass rate (bar), its Wilson 95 % interval (whiskers) and the floor '
        "(red line).</p>\n"
        '<table class="runs"><thead><tr><th>verdict</th><th>test</th><th>runs</th>'
        "<th>passes</th><th>errors</th><th>pass rate</th><th>95% interval</th>"
        f"<th>floor</th></tr></thead><tbody>\n{rows}</tbody></table>\n"
        f"<p>{summary}</p>\n</section>\n"
    )


def _run_row(test: RepeatedTest) -> str:
    rate, floor = test.pass_rate, test.min_pass_rate
    low, high = test.interval
    # pytest's outcome when it expected the failure or skipped the test, else the verdict
    css = _EXPECTED.get(str(test.test_outcome), "pass" if test.verdict == "passed" else "fail")
    name, nodeid = test.name, test.nodeid
    label = _e(nodeid) + (f" <small>({_e(name)})</small>" if name not in (None, nodeid) else "")
    return (
        f'<tr class="{css}"><td class="v {css}">{_e(_verdict(test))}</td>'
        f'<td class="id">{label}</td><td class="n">{test.runs}</td>'
        f'<td class="n">{test.passes}</td><td class="n">{test.errors}</td>'
        f'<td class="n">{_fmt(rate)} {_bar(rate, low, high, floor)}</td>'
        f'<td class="n">[{_fmt(low)}, {_fmt(high)}]</td><td class="n">{_fmt(floor)}</td></tr>\n'
    )


def _css_string(text: str) -> str:
    """``text`` escaped for a CSS string: anything but letters, digits and plain punctuation
    becomes a hex escape (so no quote, backslash, newline or ``</style>`` survives)."""
    return "".join(
        ch if ch.isascii() and (ch.isalnum() or ch in " .,:;!?'()-_") else f"\\{ord(ch):x} "
        for ch in text
    )


def _short(number: float) -> str:
    """A sort key: the number to 4 decimals, without trailing zeros."""
    return f"{number:.4f}".rstrip("0").rstrip(".")


def _bar(rate: float | None, low: float | None, high: float | None, floor: float | None) -> str:
    """A pass-rate bar with its interval's whiskers and the floor, as inline SVG."""
    if rate is None:
        return ""
    pad, width, mid = 4, _BAR_W - 8, _BAR_H / 2

    def x(value: float) -> float:
        return pad + min(max(value, 0.0), 1.0) * width

    parts = [
        f'<rect class="track" x="{pad}" y="4" width="{width}" height="{_BAR_H - 8}"/>',
        f'<rect class="rate" x="{pad}" y="4" width="{x(rate) - pad:.1f}" height="{_BAR_H - 8}"/>',
    ]
    if low is not None and high is not None:
        parts.append(
            f'<path class="whisker" d="M{x(low):.1f} {mid}H{x(high):.1f}M{x(low):.1f} 3V{_BAR_H - 3}'
            f'M{x(high):.1f} 3V{_BAR_H - 3}"/>'
        )
    if floor is not None:
        parts.append(
            f'<line class="floor" x1="{x(floor):.1f}" x2="{x(floor):.1f}" y1="0" y2="{_BAR_H}"/>'
        )
    return (
        f'<svg class="bar" viewBox="0 0 {_BAR_W} {_BAR_H}" width="{_BAR_W}" height="{_BAR_H}" '
        f'role="img" aria-label="pass rate {rate:.2f}">{"".join(parts)}</svg>'
    )
