"""The HTML report: one self-contained page per run, rendered from the JSON report alone.

```python
from semantix.report.html import render

page = render({"version": 2, "meta": {}, "summary": {}, "assertions": []})
print(page.startswith("<!DOCTYPE html>"))
#> True
```

`render` reads nothing but the JSON report (`semantix.report.json_document`), so the
pytest option ``--semantic-report-html`` and ``semantix report JSON -o PAGE`` write byte-identical
pages for the same run. The page has no network dependency (inline CSS, a small inline script,
inline SVG plots drawn here, in Python), reads as a plain table without JavaScript and prints.

Every text from the run is HTML-escaped, and the OpenAI API key (``OPENAI_API_KEY``) is masked
wherever it appears. Each assertion's row has the id ``/assertions/N`` — the JSON Pointer of the
assertion in the JSON report — so ``page.html#/assertions/3`` and ``report.json#/assertions/3``
name the same assertion; a row's test id links to the JSON report (``json_href``) at that
pointer, or to the row itself when the page does not know where the JSON report is.
"""

from __future__ import annotations

import difflib
import html
import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import quote

from semantix import __version__, config
from semantix.report.html_assets import CSS, JS
from semantix.report.records import REPORT_VERSION
from semantix.report.terminal import short_judge
from semantix.text import mask_value

__all__ = [
    "ReportDocumentError",
    "check_document",
    "json_href",
    "render",
    "write_html_report",
]

#: Characters of an output (or evidence) shown in the table before it is folded into <details>.
PREVIEW_CHARS = 120

_OUTCOME_ORDER = {"error": 0, "failed": 1, "borderline": 2, "passed": 3}
_OUTCOME_WORD = {"error": "ERROR", "failed": "FAIL", "passed": "PASS"}

# Strip plot geometry (SVG user units).
_PLOT_W, _PLOT_H, _PAD_X, _PAD_TOP, _AXIS = 720, 64, 16, 6, 18
# Pass-rate bar geometry.
_BAR_W, _BAR_H = 200, 18


class ReportDocumentError(ValueError):
    """The data given to `render` is not a semantix JSON report."""


def json_href(json_path: Path | None, page_path: Path) -> str | None:
    """The link from the page at ``page_path`` to the JSON report (relative, URL-quoted)."""
    if json_path is None:
        return None
    target = Path(json_path).resolve()
    try:
        relative = os.path.relpath(target, Path(page_path).resolve().parent)
    except ValueError:  # another drive (Windows): no relative path exists
        return target.as_uri()
    return quote(Path(relative).as_posix())


def write_html_report(
    path: Path, document: Mapping[str, Any], *, json_path: Path | None = None
) -> None:
    """Render ``document`` (as it reads back from JSON) to ``path``, parents created.

    ``json_path`` is where the same document was written as JSON, for the test ids' links.
    """
    # The page is rendered from what the JSON file holds, so a page rendered later from that
    # file (semantix report) is byte-identical: tuples become lists, keys strings.
    plain = json.loads(json.dumps(document, ensure_ascii=False))
    page = render(plain, json_href=json_href(json_path, path))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(page.encode("utf-8"))


# --- the page ------------------------------------------------------------------------------


def check_document(document: object) -> Mapping[str, Any]:
    """``document`` if it looks like a semantix JSON report, else `ReportDocumentError`."""
    if not isinstance(document, Mapping):
        raise ReportDocumentError(
            f"a semantix JSON report is a JSON object, got {type(document).__name__}; pass the "
            "file written by pytest --semantic-report-json"
        )
    version = document.get("version")
    assertions = document.get("assertions")
    if not isinstance(version, int) or not isinstance(assertions, list):
        raise ReportDocumentError(
            "this JSON is not a semantix report (it needs an integer 'version' and an "
            "'assertions' list); pass the file written by pytest --semantic-report-json"
        )
    if version > REPORT_VERSION:
        raise ReportDocumentError(
            f"this JSON report has version {version}, newer than this semantix reads "
            f"({REPORT_VERSION}); upgrade semantix (pip install -U semantix-judge)"
        )
    for index, record in enumerate(assertions):
        if not isinstance(record, Mapping):
            raise ReportDocumentError(
                f"assertion {index} of the JSON report is a {type(record).__name__}, not an "
                "object; the file is damaged — write it again with pytest --semantic-report-json"
            )
    return document


def render(document: Mapping[str, Any], *, json_href: str | None = None) -> str:
    """The HTML page of a JSON report (a `semantix.report.json_document`).

    ``json_href`` is the link to the JSON report file; each test id links to
    ``json_href#/assertions/N``, or, without it, to its own row (``#/assertions/N``).
    """
    checked = check_document(document)
    masked = mask_value(checked, [config.openai_api_key()])
    assert isinstance(masked, Mapping)
    return _Page(masked, json_href).render()


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _num(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _fmt(value: object, digits: int = 2) -> str:
    number = _num(value)
    return "—" if number is None else f"{number:.{digits}f}"


def _ms(value: object) -> str:
    number = _num(value)
    if number is None:
        return "—"
    return f"{number:.1f} ms" if number < 10 else f"{number:,.0f} ms"


def _duration(value: object) -> str:
    seconds = _num(value)
    if seconds is None:
        return "—"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s"


def _date(value: object) -> str:
    if not isinstance(value, str) or not value:
        return "—"
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return value
    if moment.tzinfo is not None:
        return moment.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def _outcome(record: Mapping[str, Any]) -> str:
    outcome = record.get("outcome")
    if outcome in _OUTCOME_WORD:
        return str(outcome)
    return "passed" if record.get("passed") else "failed"


def _rank(record: Mapping[str, Any]) -> int:
    outcome = _outcome(record)
    if outcome == "passed" and record.get("borderline"):
        return _OUTCOME_ORDER["borderline"]
    return _OUTCOME_ORDER[outcome]


def _leaves(record: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    leaves = record.get("leaves")
    if not isinstance(leaves, list):
        return []
    return [leaf for leaf in leaves if isinstance(leaf, Mapping)]


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
    full = str(identity) if identity else None
    if full is None:
        return "—"
    short = short_judge(full)
    if short == full:
        return _e(short)
    return f'<span title="{_e(full)}">{_e(short)}</span>'


def _lines(cells: Iterable[str]) -> str:
    """One line per leaf inside a cell (a single leaf's cell is just its text)."""
    shown = list(cells)
    if len(shown) == 1:
        return shown[0]
    return "".join(f"<div>{cell}</div>" for cell in shown)


class _Page:
    def __init__(self, document: Mapping[str, Any], json_href: str | None) -> None:
        self.document = document
        self.meta: Mapping[str, Any] = _mapping(document.get("meta"))
        self.summary: Mapping[str, Any] = _mapping(document.get("summary"))
        self.records: list[Mapping[str, Any]] = list(document["assertions"])
        self.json_href = json_href
        #: Each distinct intent description, numbered: rows show it through a CSS class, so a
        #: description repeated on thousands of rows is in the page once.
        self.descriptions: dict[str, int] = {}

    def _described(self, name: object, description: object) -> str:
        """An intent's name with its description shown under it (from the page's style)."""
        if not description:
            return _e(name)
        number = self.descriptions.setdefault(str(description), len(self.descriptions))
        return f'<span class="ds d{number}">{_e(name)}</span>'

    def _description_css(self) -> str:
        return "".join(
            f'.d{number}::after{{content:"{_css_string(text)}"}}'
            for text, number in self.descriptions.items()
        )

    def render(self) -> str:
        table = self._table()  # first: it collects the descriptions the style shows
        parts = [
            "<!DOCTYPE html>\n",
            '<html lang="en">\n<head>\n<meta charset="utf-8">\n',
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
            '<meta name="generator" content="semantix ' + _e(__version__) + '">\n',
            f"<title>{_e(self._title())}</title>\n",
            f"<style>{CSS}{self._description_css()}</style>\n</head>\n<body>\n",
            self._header(),
            self._nav(),
            table,
            self._plots(),
            self._runs(),
            self._snapshots(),
            (
                "<footer>Rendered by semantix from the JSON report (version "
                f"{_e(self.document.get('version'))}); every figure here is in that file. Row ids "
                "are JSON Pointers into it: <code>#/assertions/N</code>.</footer>\n"
            ),
            f"<script>{JS}</script>\n</body>\n</html>\n",
        ]
        return "".join(parts)

    # -- header -------------------------------------------------------------------------------

    def _counts(self) -> dict[str, int]:
        names = ("total", "passed", "failed", "errors", "borderline")
        counts = {name: self.summary.get(name) for name in names}
        if all(isinstance(value, int) for value in counts.values()):
            return {name: int(value) for name, value in counts.items()}  # type: ignore[arg-type]
        outcomes = [_outcome(record) for record in self.records]
        return {
            "total": len(self.records),
            "passed": outcomes.count("passed"),
            "failed": outcomes.count("failed"),
            "errors": outcomes.count("error"),
            "borderline": sum(1 for record in self.records if record.get("borderline")),
        }

    def _title(self) -> str:
        counts = self._counts()
        bad = counts["failed"] + counts["errors"]
        state = f"{bad} failing" if bad else "all passed"
        return f"semantix report: {counts['total']} assertions, {state}"

    def _header(self) -> str:
        counts = self._counts()
        judges = self.meta.get("judges")
        judge_items = (
            "".join(f"<li><code>{_e(judge)}</code></li>" for judge in judges)
            if isinstance(judges, list) and judges
            else "<li>—</li>"
        )
        decided = _mapping(self.summary.get("decided_by"))
        decided_text = (
            ", ".join(
                f"<code>{_e(short_judge(str(judge)))}</code> {_e(count)}"
                for judge, count in sorted(decided.items())
            )
            or "—"
        )
        totals = "".join(
            f'<li class="{css}"><b>{counts[key]:,}</b> {label}</li>'
            for key, label, css in (
                ("total", "assertions", "total"),
                ("passed", "passed", "pass"),
                ("failed", "failed", "fail"),
                ("errors", "errors", "error"),
                ("borderline", "borderline", "bl"),
            )
        )
        return (
            "<header>\n<h1>Semantic report</h1>\n"
            f'<ul class="totals">{totals}</ul>\n<dl class="meta">'
            f"<dt>Run</dt><dd>{_e(_date(self.meta.get('started')))}</dd>"
            f"<dt>Duration</dt><dd>{_e(_duration(self.meta.get('duration_s')))}</dd>"
            f"<dt>Verdicts</dt><dd>{_e(self.meta.get('verdicts_mode') or 'off')}</dd>"
            f"<dt>Judges</dt><dd><ul>{judge_items}</ul></dd>"
            f"<dt>Decided by</dt><dd>{decided_text}</dd></dl>\n</header>\n"
        )

    def _nav(self) -> str:
        links = ['<a href="#assertions">Assertions</a>', '<a href="#intents">Scores per intent</a>']
        if self._run_tests():
            links.append('<a href="#runs">Repeated runs</a>')
        if self._snapshot_data():
            links.append('<a href="#snapshots">Snapshots</a>')
        return f"<nav>{' · '.join(links)}</nav>\n"

    # -- the table ----------------------------------------------------------------------------

    def _table(self) -> str:
        order = sorted(range(len(self.records)), key=lambda i: (_rank(self.records[i]), i))
        head = "".join(
            f'<th data-k="{key}" data-t="{kind}" tabindex="0">{label}</th>'
            for key, kind, label in _COLUMNS
        )
        rows = "".join(self._row(index, self.records[index]) for index in order)
        empty = (
            '<p class="empty">No semantic assertion was made in this run.</p>\n'
            if not self.records
            else ""
        )
        return (
            '<section id="assertions">\n<h2>Assertions</h2>\n'
            '<p class="hint">Failures and errors first; a test id links to its assertion in the '
            "JSON report.</p>\n"
            '<div id="controls" hidden><input id="q" type="search" placeholder="filter: test, '
            'intent, output, reason…" aria-label="filter rows"> <select id="f" '
            'aria-label="outcome"><option value="">every outcome</option>'
            '<option value="bad">failed and errors</option><option value="fail">failed</option>'
            '<option value="error">errors</option><option value="bl">borderline</option>'
            '<option value="pass">passed</option></select> <span id="n"></span> '
            "<small>Click a column header to sort.</small></div>\n"
            f'{empty}<table id="t" class="grid">\n<thead><tr class="h">{head}</tr></thead>\n'
            f"<tbody>\n{rows}</tbody>\n</table>\n</section>\n"
        )

    def _row(self, index: int, record: Mapping[str, Any]) -> str:
        pointer = f"/assertions/{index}"
        outcome = _outcome(record)
        css = {"passed": "pass", "failed": "fail", "error": "error"}[outcome]
        borderline = bool(record.get("borderline"))
        leaves = _leaves(record)
        known = [value for leaf in leaves if (value := _num(leaf.get("score"))) is not None]
        latency = _num(record.get("duration_ms"))
        # The score column sorts by the lowest leaf score; the other numeric columns by the
        # first number shown in the cell (the script reads it).
        data = f' data-s="{_short(min(known))}"' if len(known) > 1 else ""
        target = f"{self.json_href or ''}#{pointer}"
        verdict = _OUTCOME_WORD[outcome] + (' <small class="bl">borderline</small>' * borderline)
        if leaves:
            if len(leaves) > 1 or leaves[0].get("intent") != record.get("intent"):
                intent = _e(record.get("intent", "?")) + "".join(
                    f"<div>{self._described(leaf.get('intent', '?'), leaf.get('description'))}</div>"
                    for leaf in leaves
                )
            else:
                intent = self._described(record.get("intent", "?"), leaves[0].get("description"))
            judged = [leaf.get("judged_as") for leaf in leaves if leaf.get("judged_as")]
            if judged:
                intent += "".join(f'<div class="ja">judged as {_e(j)}</div>' for j in judged)
            score = _lines(_fmt(leaf.get("score")) for leaf in leaves)
            threshold = _lines(
                f"{_fmt(leaf.get('threshold'))}"
                + (
                    f" <small>{_e(leaf['threshold_source'])}</small>"
                    if leaf.get("threshold_source")
                    else ""
                )
                for leaf in leaves
            )
            reason = _lines(
                ("" if leaf.get("passed", True) else '<b class="fail">✗</b> ')
                + ('<b class="bl">≈</b> ' if leaf.get("borderline") else "")
                + _e(leaf.get("reason") or "—")
                for leaf in leaves
            )
            evidence = _lines(_folded(leaf.get("evidence"), "ev") for leaf in leaves)
            judge = _lines(_judge(leaf.get("judge") or record.get("judge")) for leaf in leaves)
            latencies = [_num(leaf.get("latency_ms")) for leaf in leaves]
            shown_latency = _ms(latency)
            if len(leaves) > 1 and any(value is not None for value in latencies):
                shown_latency += _lines(f"<small>{_ms(value)}</small>" for value in latencies)
        else:
            intent = _e(record.get("intent", "?"))
            score = threshold = evidence = "—"
            reason = f'<span class="err">{_e(record.get("error") or "not judged")}</span>'
            judge = _judge(record.get("judge"))
            shown_latency = _ms(latency)
        # End tags of cells are implied by the next cell (HTML's own rule): a large run's page
        # is a tenth smaller without them.
        cells = (
            f'<td class="v">{verdict}',
            f'<td class="id"><a href="{_e(target)}">{_e(record.get("nodeid", "?"))}</a>',
            f"<td>{intent}",
            f"<td>{_folded(record.get('output'), 'out')}",
            f'<td class="n">{score}',
            f'<td class="n">{threshold}',
            f"<td>{reason}",
            f"<td>{evidence}",
            f"<td>{judge}",
            f'<td class="n">{shown_latency}',
        )
        classes = css + (" bl" if borderline else "")
        return f'<tr id="{pointer}" class="{classes}"{data}>{"".join(cells)}</tr>\n'

    # -- strip plots --------------------------------------------------------------------------

    def _plots(self) -> str:
        groups: dict[str, list[tuple[int, Mapping[str, Any]]]] = {}
        for index, record in enumerate(self.records):
            for leaf in _leaves(record):
                groups.setdefault(str(leaf.get("intent", "?")), []).append((index, leaf))
        figures = "".join(
            self._plot(position, name, points)
            for position, (name, points) in enumerate(sorted(groups.items()))
        )
        if not figures:
            figures = '<p class="empty">No scores to plot.</p>\n'
        return (
            '<section id="intents">\n<h2>Scores per intent</h2>\n'
            '<p class="hint">Every score of each intent against its threshold (dashed): '
            '<span class="k pass">●</span> passed, <span class="k fail">■</span> failed, '
            '<span class="k bl">○</span> borderline. A well-placed threshold separates the '
            "two colours with room to spare.</p>\n"
            f"{figures}</section>\n"
        )

    def _plot(self, position: int, name: str, points: list[tuple[int, Mapping[str, Any]]]) -> str:
        width = _PLOT_W - 2 * _PAD_X
        band = _PLOT_H - _PAD_TOP - _AXIS

        def x(score: float) -> float:
            return _PAD_X + min(max(score, 0.0), 1.0) * width

        description = next(
            (str(leaf.get("description")) for _, leaf in points if leaf.get("description")), ""
        )
        expected = next((leaf.get("expected") for _, leaf in points), True)
        thresholds = sorted(
            {round(t, 4) for _, leaf in points if (t := _num(leaf.get("threshold"))) is not None}
        )
        shapes: list[str] = []
        passes: list[str] = []
        fails: list[str] = []
        scored = failed = borderline = 0
        for number, (index, leaf) in enumerate(points):
            score = _num(leaf.get("score"))
            if score is None:
                continue
            scored += 1
            # A deterministic spread (golden-ratio sequence) keeps equal scores apart.
            y = _PAD_TOP + 3 + ((number * 0.6180339887498949) % 1.0) * (band - 6)
            cx = x(score)
            # Every point is a zero-length segment of one path per kind (round caps draw a dot,
            # square caps a square): thousands of points stay a few bytes each.
            dot = f"M{cx:.1f} {y:.1f}h0"
            if leaf.get("passed", True):
                passes.append(dot)
            else:
                failed += 1
                fails.append(dot)
            if leaf.get("borderline"):
                # Borderline points are few and worth a look: a ring that names its test.
                borderline += 1
                tip = f"{_e(self.records[index].get('nodeid', '?'))}: {score:.3f}"
                shapes.append(
                    f'<circle class="bl" cx="{cx:.1f}" cy="{y:.1f}" r="5"><title>{tip}</title>'
                    "</circle>"
                )
        if passes:
            shapes.insert(0, f'<path class="pass" d="{"".join(passes)}"/>')
        if fails:
            shapes.insert(1 if passes else 0, f'<path class="fail" d="{"".join(fails)}"/>')
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
            f"<b>{_e(name)}</b> <small>{_e(description)}</small><br>{scored:,} score"
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

    # -- repeated runs ------------------------------------------------------------------------

    def _run_tests(self) -> list[Mapping[str, Any]]:
        runs = _mapping(self.document.get("runs"))
        tests = runs.get("tests")
        if not isinstance(tests, list):
            return []
        return [test for test in tests if isinstance(test, Mapping)]

    def _runs(self) -> str:
        tests = self._run_tests()
        if not tests:
            return ""
        runs = _mapping(self.document.get("runs"))
        ordered = sorted(
            tests, key=lambda test: (test.get("verdict") == "pass", str(test.get("nodeid")))
        )
        rows = "".join(self._run_row(test) for test in ordered)
        stability = _num(runs.get("stability"))
        below = runs.get("below_floor")
        summary = (
            f"Stability {_fmt(stability)} (mean pass rate) over {len(tests):,} repeated "
            f"test{'s' if len(tests) != 1 else ''}; {_e(below if below is not None else '—')} with "
            "the interval's lower bound under the floor."
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

    def _run_row(self, test: Mapping[str, Any]) -> str:
        rate = _num(test.get("pass_rate"))
        floor = _num(test.get("min_pass_rate"))
        interval = test.get("interval")
        low = high = None
        if isinstance(interval, list) and len(interval) == 2:
            low, high = _num(interval[0]), _num(interval[1])
        verdict = str(test.get("verdict") or "?")
        css = "pass" if verdict == "pass" else "fail"
        name = test.get("name")
        nodeid = str(test.get("nodeid", "?"))
        label = _e(nodeid) + (f" <small>({_e(name)})</small>" if name not in (None, nodeid) else "")
        return (
            f'<tr class="{css}"><td class="v {css}">{_e(verdict.upper())}</td>'
            f'<td class="id">{label}</td><td class="n">{_e(test.get("runs", "—"))}</td>'
            f'<td class="n">{_e(test.get("passes", "—"))}</td>'
            f'<td class="n">{_e(test.get("errors", "—"))}</td>'
            f'<td class="n">{_fmt(rate)} {_bar(rate, low, high, floor)}</td>'
            f'<td class="n">[{_fmt(low)}, {_fmt(high)}]</td><td class="n">{_fmt(floor)}</td></tr>\n'
        )

    # -- snapshots ----------------------------------------------------------------------------

    def _snapshot_data(self) -> Mapping[str, Any]:
        data = _mapping(self.document.get("snapshots"))
        counts = _mapping(data.get("counts"))
        listed = data.get("snapshots") or data.get("unused")
        if not any(_num(value) for value in counts.values()) and not listed:
            return {}
        return data

    def _snapshots(self) -> str:
        data = self._snapshot_data()
        if not data:
            return ""
        counts = _mapping(data.get("counts"))
        count_text = ", ".join(
            f"{_e(count)} {_e(name)}" for name, count in counts.items() if _num(count)
        )
        entries = [entry for entry in data.get("snapshots") or [] if isinstance(entry, Mapping)]
        order = {"drifted": 0, "missing": 1, "error": 2}
        entries.sort(
            key=lambda entry: (order.get(str(entry.get("outcome")), 3), str(entry.get("path")))
        )
        items = "".join(self._snapshot_item(entry) for entry in entries)
        unused = [entry for entry in data.get("unused") or [] if isinstance(entry, Mapping)]
        deleted = set(map(str, data.get("deleted") or []))
        unused_items = "".join(
            f"<li><code>{_e(entry.get('path', '?'))}</code> of {_e(entry.get('test', '?'))}"
            f"{' (deleted)' if str(entry.get('path')) in deleted else ''}</li>"
            for entry in unused
        )
        return (
            '<section id="snapshots">\n<h2>Snapshots</h2>\n'
            f"<p>{count_text or 'no snapshot checks'}.</p>\n"
            f'<ul class="snaps">{items}</ul>\n'
            + (f"<h3>Unused</h3>\n<ul>{unused_items}</ul>\n" if unused_items else "")
            + "</section>\n"
        )

    def _snapshot_item(self, entry: Mapping[str, Any]) -> str:
        outcome = str(entry.get("outcome", "?"))
        css = {"drifted": "fail", "missing": "fail", "error": "error"}.get(outcome, "pass")
        head = (
            f'<span class="v {css}">{_e(outcome)}</span> <code>{_e(entry.get("path", "?"))}</code>'
        )
        stored, new = entry.get("stored"), entry.get("output")
        if outcome != "drifted" or not isinstance(stored, str) or not isinstance(new, str):
            return f"<li>{head}</li>"
        return (
            f'<li>{head}<div class="diff" aria-label="word diff">{_diff_html(stored, new)}</div>'
            "<small>struck through: only in the snapshot; underlined: only in the new "
            "output</small></li>"
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


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


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


def _diff_html(stored: str, new: str) -> str:
    """The word diff of a drifted snapshot with <del>/<ins> (escaped)."""
    # The words and matching of semantix.snapshots.diff.word_diff (its rendered form mixes
    # markers into the text, so the opcodes are walked here to mark up escaped words).
    out: list[str] = []
    old_words, new_words = stored.split(), new.split()
    matcher = difflib.SequenceMatcher(a=old_words, b=new_words, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out.append(_e(" ".join(old_words[i1:i2])))
            continue
        if i2 > i1:
            out.append(f"<del>{_e(' '.join(old_words[i1:i2]))}</del>")
        if j2 > j1:
            out.append(f"<ins>{_e(' '.join(new_words[j1:j2]))}</ins>")
    return " ".join(out)


#: (sort key, sort kind, header) of the table's columns, in order.
_COLUMNS: Sequence[tuple[str, str, str]] = (
    ("o", "n", "verdict"),
    ("id", "s", "test"),
    ("i", "s", "intent"),
    ("out", "s", "output"),
    ("s", "n", "score"),
    ("h", "n", "threshold"),
    ("r", "s", "reason"),
    ("e", "s", "evidence"),
    ("j", "s", "judge"),
    ("l", "n", "latency"),
)
