"""The HTML report: one self-contained page per run, rendered from the JSON report alone.

```python
from semantix.report._html import render

page = render({"version": 2, "meta": {}, "summary": {}, "assertions": []})  # or a loaded Report
print(page.startswith("<!DOCTYPE html>"))
#> True
```

`render` reads nothing but the JSON report, cleaned (`semantix.report._records.clean`), then
checked into the typed `semantix.report._model.Report` (`check_document`), so ``--semantic-report-html`` and ``semantix report`` write
byte-identical pages; what the page shows is in docs/html-report.md.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from semantix._files import write_atomic
from semantix.report._html_assets import JS
from semantix.report._html_parts import (
    PREVIEW_CHARS,
    _breakable,
    _css_string,
    _date,
    _duration,
    _e,
    _fmt,
    _folded,
    _judge,
    _lines,
    _ms,
    _short,
    _split_description,
    judge_cost,
    page,
    plots,
    runs,
)
from semantix.report._html_sections import relations, snapshot_data, snapshots
from semantix.report._model import NOT_JUDGED, CheckRecord, Leaf, Report, outcome
from semantix.report._records import OUTCOME_WORDS, REPORT_VERSION, clean
from semantix.report._schema import ReportDocumentError, check_document
from semantix.report._terminal import short_judge

__all__ = ["ReportDocumentError", "check_document", "json_href", "render", "write_html_report"]

#: The table's order: what needs a look first; expected failures and skips last.
_ORDER = ("error", "failed", "xpassed", "borderline", "passed", "caught", "xfailed", "skipped")
_OUTCOME_ORDER = {word: rank for rank, word in enumerate(_ORDER)}
_CSS_CLASS = dict(
    zip(OUTCOME_WORDS, ("pass", "fail", "error", "xfail", "xpass", "skip", "xfail"), strict=True)
)  # a caught check is muted like an expected failure: it failed nothing
_NONE = "—"
_EMPTY = '<p class="empty">No semantic assertion was made in this run.</p>\n'


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
    path: Path, document: Report | Mapping[str, Any], *, json_path: Path | None = None
) -> None:
    """Render ``document`` to ``path`` (parents created), whole or not at all; ``json_path`` is
    where the same document was written as JSON, for the header's link."""
    # Rendered from what the JSON file holds (tuples become lists, keys strings), so a page
    # rendered later from that file (semantix report) is byte-identical.
    data = document.to_json() if isinstance(document, Report) else document
    plain = json.loads(json.dumps(data, ensure_ascii=False))
    write_atomic(path, render(plain, json_href=json_href(json_path, path)))


def render(document: Report | Mapping[str, Any], *, json_href: str | None = None) -> str:
    """The HTML page of a report (or its JSON); ``json_href`` is the header's link to the JSON
    file. A document that is not a semantix report is a `ReportDocumentError` naming the field."""
    try:
        data = document.to_json() if isinstance(document, Report) else document
        cleaned = check_document(clean(data))
    except RecursionError:
        raise ReportDocumentError(
            "the document nests arrays or objects deeper than can be rendered (a semantix report "
            "nests 5 levels); write it again with pytest --semantic-report-json PATH"
        ) from None
    return _Page(cleaned, json_href).render()


def _rank(record: CheckRecord) -> int:
    result = outcome(record)
    return _OUTCOME_ORDER["borderline" if result == "passed" and record.borderline else result]


@dataclass(frozen=True, slots=True)
class _Column:
    key: str  # the sort key the script reads (data-k)
    kind: str  # "n": sorts as a number, "s": as text
    label: str
    width: str  # the column's track in the grid
    always: bool = False  # shown even when every cell is empty


_COLUMNS: Sequence[_Column] = (
    _Column("o", "n", "verdict", "5.5em", always=True),
    _Column("id", "s", "test", "minmax(0,1.3fr)", always=True),
    _Column("i", "s", "intent", "minmax(0,1.1fr)", always=True),
    _Column("out", "s", "output", "minmax(0,1.8fr)"),
    _Column("s", "n", "score", "3.5em"),
    _Column("h", "n", "threshold", "6.5em"),
    _Column("r", "s", "reason", "minmax(0,1.4fr)"),
    _Column("e", "s", "evidence", "minmax(0,.8fr)"),
    _Column("j", "s", "judge", "minmax(0,1fr)"),
    _Column("l", "n", "latency", "5em"),
)


#: The header's totals (`Summary` fields) and their CSS classes: the first four always shown.
_TOTALS = {"total": "total", "passed": "pass", "failed": "fail", "errors": "error"}
_TOTALS |= {"xfailed": "xfail", "xpassed": "xpass", "skipped": "skip", "borderline": "bl"}
_TOTALS |= {"caught": "xfail", "topical": "tp"}


class _Page:
    def __init__(self, report: Report, json_href: str | None) -> None:
        self.report = report
        self.meta = report.meta
        self.records = report.assertions
        self.counts = report.summary
        self.json_href = json_href
        #: Each distinct intent description, numbered: rows show it through CSS classes, so a
        #: description repeated on thousands of rows is in the page once.
        self.descriptions: dict[str, int] = {}
        self.columns: list[_Column] = list(_COLUMNS)

    def _described(self, name: object, description: object) -> str:
        """An intent's name with the first line of its description under it (from the page's
        style), and the rest of a longer description on demand (<details>)."""
        if not description:
            return _breakable(name)
        text = str(description)
        number = self.descriptions.setdefault(text, len(self.descriptions))
        shown = f'<span class="ds d{number}">{_breakable(name)}</span>'
        if _split_description(text)[1]:
            shown += (
                f'<details class="dm"><summary data-n="more"></summary>'
                f'<span class="dr r{number}"></span></details>'
            )
        return shown

    def _style(self) -> str:
        """The page's own style: the descriptions, and the grid of the columns shown."""
        parts = []
        for text, number in self.descriptions.items():
            first, rest = _split_description(text)
            parts.append(f'.d{number}::after{{content:"{_css_string(first)}"}}')
            if rest:
                parts.append(f'.r{number}::after{{content:"{_css_string(rest)}"}}')
        tracks = " ".join(column.width for column in self.columns)
        parts.append(f".grid tr{{grid-template-columns:{tracks}}}")
        return "".join(parts)

    def render(self) -> str:
        table = self._table()  # first: it collects the descriptions and columns the style shows
        parts = [
            self._header(),
            self._nav(),
            table,
            plots(self.records),
            runs(self.report),
            snapshots(self.report),
            relations(self.report),
            (
                "<footer>Rendered by semantix from the JSON report (version "
                f"{REPORT_VERSION}); every figure here is in that file. Row ids "
                "are JSON Pointers into it: <code>#/assertions/N</code>.</footer>\n"
            ),
            f"<script>{JS}</script>\n",
        ]
        return page(self._title(), "".join(parts), style=self._style())

    def _json_link(self) -> str:
        if self.json_href is None:
            return ""
        name = self.json_href.rsplit("/", 1)[-1] or self.json_href
        return (
            f'<dt>JSON</dt><dd><a href="{_e(self.json_href)}">{_e(name)}</a> <small>(row '
            "<code>#/assertions/N</code> is the JSON Pointer of its assertion there)</small></dd>"
        )

    def _title(self) -> str:
        bad = self.counts.failed + self.counts.errors
        state = f"{bad} failing" if bad else "all passed"
        return f"semantix report: {self.counts.total} assertions, {state}"

    def _header(self) -> str:
        counts = self.counts.to_dict()
        judges = "".join(f"<li><code>{_e(judge)}</code></li>" for judge in self.meta.judges)
        decided = sorted(self.counts.decided_by.items())
        decided_by = ", ".join(f"<code>{_e(short_judge(j))}</code> {_e(n)}" for j, n in decided)
        totals = "".join(
            f'<li class="{css}"><b>{counts[key]:,}</b> {"assertions" if key == "total" else key}</li>'
            for index, (key, css) in enumerate(_TOTALS.items())
            if counts[key] or index < 4
        )
        return (
            "<header>\n<h1>Semantic report</h1>\n"
            f'<ul class="totals">{totals}</ul>\n<dl class="meta">'
            f"<dt>Run</dt><dd>{_e(_date(self.meta.started))}</dd>"
            f"<dt>Duration</dt><dd>{_e(_duration(self.meta.duration_s))}</dd>"
            f"<dt>Verdicts</dt><dd>{_e(self.meta.verdicts_mode or 'off')}</dd>"
            f"<dt>Judges</dt><dd><ul>{judges or '<li>—</li>'}</ul></dd>"
            f"<dt>Decided by</dt><dd>{decided_by or '—'}</dd>{judge_cost(self.meta.judge_cost)}{self._json_link()}"
            "</dl>\n</header>\n"
        )

    def _nav(self) -> str:
        links = ['<a href="#assertions">Assertions</a>', '<a href="#intents">Scores per intent</a>']
        report = self.report
        optional = [("runs", "Repeated runs", bool(report.repeated))]
        optional += [("snapshots", "Snapshots", snapshot_data(report) is not None)]
        optional += [("relations", "Relations", bool(report.relations))]
        links += [f'<a href="#{key}">{label}</a>' for key, label, has in optional if has]
        return f"<nav>{' · '.join(links)}</nav>\n"

    def _table(self) -> str:
        order = sorted(range(len(self.records)), key=lambda i: (_rank(self.records[i]), i))
        cells = [self._cells(index, self.records[index]) for index in order]
        # A column with nothing in any row (no judge gave evidence, say) is left out.
        self.columns = [
            column
            for column in _COLUMNS
            if column.always or not cells or any(column.key in filled for _, _, filled in cells)
        ]
        head = "".join(
            f'<th data-k="{column.key}" data-t="{column.kind}" tabindex="0">{column.label}</th>'
            for column in self.columns
        )
        rows = "".join(
            f"<tr{attributes}>" + "".join(row[column.key] for column in self.columns) + "</tr>\n"
            for row, attributes, _ in cells
        )
        return (
            '<section id="assertions">\n<h2>Assertions</h2>\n'
            '<p class="hint">Failures and errors first, expected failures (xfail) and skips '
            "last; a test id links to its own row, so the link can be shared.</p>\n"
            '<div id="controls" hidden><input id="q" type="search" placeholder="filter: test, '
            'intent, output, reason…" aria-label="filter rows"> <select id="f" '
            'aria-label="outcome"><option value="">every outcome</option>'
            '<option value="bad">failed and errors</option><option value="fail">failed</option>'
            '<option value="error">errors</option><option value="bl">borderline</option>'
            '<option value="tp">topical</option><option value="pass">passed</option>'
            '<option value="xfail">xfailed</option><option value="xpass">xpassed</option>'
            '<option value="skip">skipped</option></select> <span id="n"></span> '
            "<small>Click a column header to sort.</small></div>\n"
            f'{"" if self.records else _EMPTY}<table id="t" class="grid">\n<thead><tr class="h">{head}</tr></thead>\n'
            f"<tbody>\n{rows}</tbody>\n</table>\n</section>\n"
        )

    def _cells(self, index: int, record: CheckRecord) -> tuple[dict[str, str], str, set[str]]:
        """The cells of one assertion's row by column key, the row's attributes, and the keys of
        the cells that show something (a column none of the rows fills is left out)."""
        pointer = f"/assertions/{index}"
        result = outcome(record)
        borderline, topical, leaves = record.borderline, record.topical, record.leaves
        known = [leaf.score for leaf in leaves if leaf.score is not None]
        verdict = (
            OUTCOME_WORDS[result]
            + ' <small class="bl">borderline</small>' * borderline
            + f' <small class="tp" title="{_TOPICAL}">topical</small>' * topical
        )
        shown_latency = _ms(record.duration_ms)
        if leaves:
            several = len(leaves) > 1
            if several or leaves[0].intent != record.intent:
                intent = _breakable(record.intent) + "".join(
                    f"<div>{self._described(leaf.intent, leaf.description)}</div>"
                    for leaf in leaves
                )
            else:
                intent = self._described(record.intent, leaves[0].description)
            judged = [leaf.judged_as for leaf in leaves if leaf.judged_as]
            intent += "".join(f'<div class="ja">judged as {_e(j)}</div>' for j in judged)
            score = _lines(_fmt(leaf.score) for leaf in leaves)
            threshold = _lines(_threshold(leaf) for leaf in leaves)
            reason = _lines(_reason(leaf, named=several) for leaf in leaves)
            evidence = _lines(_folded(leaf.evidence, "ev") for leaf in leaves)
            judge = _lines(_judge(leaf.judge or record.judge) for leaf in leaves)
            latencies = [leaf.latency_ms for leaf in leaves]
            if several and any(value is not None for value in latencies):
                shown_latency += _lines(f"<small>{_ms(value)}</small>" for value in latencies)
        else:
            intent = _breakable(record.intent)
            score = threshold = evidence = _NONE
            reason = _folded(record.error or NOT_JUDGED, "err")
            judge = _judge(record.judge)
        # End tags of cells are implied by the next cell (HTML's own rule): a large run's page
        # is a tenth smaller without them.
        cells = {
            "o": f'<td class="v">{verdict}',
            "id": f'<td class="id"><a href="#{pointer}">{_breakable(record.nodeid)}</a>',
            "i": f"<td>{intent}",
            "out": f"<td>{_folded(record.output, 'out')}",
            "s": f'<td class="n">{score}',
            "h": f'<td class="n">{threshold}',
            "r": f"<td>{reason}",
            "e": f"<td>{evidence}",
            "j": f"<td>{judge}",
            "l": f'<td class="n">{shown_latency}',
        }
        # The score column sorts by the lowest leaf score; the other numeric columns by the
        # first number shown in the cell (the script reads it).
        data = f' data-s="{_short(min(known))}"' if len(known) > 1 else ""
        classes = _CSS_CLASS[result] + (" bl" if borderline else "") + (" tp" if topical else "")
        return cells, f' id="{pointer}" class="{classes}"{data}', _filled(record, leaves)


def _filled(record: CheckRecord, leaves: Sequence[Leaf]) -> set[str]:
    """The keys of the columns this record has something to show in."""
    shown = {"r": not leaves, "out": record.output, "j": record.judge}
    shown["l"] = record.duration_ms is not None
    filled = {key for key, value in shown.items() if value}
    for leaf in leaves:
        numbers = {"s": leaf.score, "h": leaf.threshold, "l": leaf.latency_ms}
        filled |= {key for key, value in numbers.items() if value is not None}
        texts = {"r": leaf.reason, "e": leaf.evidence, "j": leaf.judge}
        filled |= {key for key, value in texts.items() if value}
    return filled


def _threshold(leaf: Leaf) -> str:
    source = leaf.threshold_source
    return _fmt(leaf.threshold) + (f" <small>{_e(source)}</small>" if source else "")


def _reason(leaf: Leaf, *, named: bool) -> str:
    """A leaf's reason, marked when it failed, was borderline or was not judged, and named by its
    leaf in a composite's row."""
    result = leaf.decided
    mark = {"failed": '<b class="fail">✗</b> ', NOT_JUDGED: '<b class="nj">not judged</b> '}
    text = leaf.reason or _NONE
    if result == NOT_JUDGED and text.startswith(NOT_JUDGED):
        text = text[len(NOT_JUDGED) :].lstrip(" :")
    name = f'<b class="lf">{_breakable(leaf.intent)}</b>: ' if named else ""
    return (
        name
        + mark.get(result, "")
        + ('<b class="bl">≈</b> ' if leaf.borderline else "")
        + (f'<b class="tp" title="{_TOPICAL}">topical</b> ' if leaf.topical else "")
        + (_e(text) if len(text) <= PREVIEW_CHARS else _folded(text, "rs"))
    )


#: What the "topical" mark means (its tooltip).
_TOPICAL = (
    "judged by closeness of topic to the description alone (a similarity judge, an intent "
    "without examples), not by whether the output does what it says: give the intent examples, "
    "or use an entailment judge"
)
