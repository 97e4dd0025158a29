"""Sections of the HTML report after the repeated runs: semantic snapshots (each drifted one with
its word diff) and metamorphic relations, each a function of the JSON report."""

from __future__ import annotations

from semantix.relations._results import summarize as summarize_relations
from semantix.report._html_parts import _e, _fmt
from semantix.report._model import RelationRecord, Report, SnapshotEntry, Snapshots
from semantix.snapshots._diff import word_runs

__all__ = ["relations", "snapshot_data", "snapshots"]


def snapshot_data(report: Report) -> Snapshots | None:
    """The ``snapshots`` section when any snapshot was involved, else None."""
    data = report.snapshots
    if data is None or not (any(data.counts.values()) or data.snapshots or data.unused):
        return None
    return data


def snapshots(report: Report) -> str:
    """The "Snapshots" section (empty when no snapshot was involved)."""
    data = snapshot_data(report)
    if data is None:
        return ""
    counts = data.counts.items()
    count_text = ", ".join(f"{_e(count)} {_e(name)}" for name, count in counts if count)
    order = {"drifted": 0, "missing": 1, "error": 2}
    entries = sorted(
        data.snapshots,
        key=lambda entry: (order.get(str(entry.outcome), 3), str(entry.path)),
    )
    items = "".join(_snapshot_item(entry) for entry in entries)
    unused_items = "".join(
        f"<li><code>{_e(entry.path or '?')}</code> of {_e(entry.test or '?')}"
        f"{' (deleted)' if entry.path in data.deleted else ''}</li>"
        for entry in data.unused
    )
    return (
        '<section id="snapshots">\n<h2>Snapshots</h2>\n'
        f"<p>{count_text or 'no snapshot checks'}.</p>\n"
        f'<ul class="snaps">{items}</ul>\n'
        + (f"<h3>Unused</h3>\n<ul>{unused_items}</ul>\n" if unused_items else "")
        + "</section>\n"
    )


def _snapshot_item(entry: SnapshotEntry) -> str:
    outcome = entry.outcome or "?"
    css = {"drifted": "fail", "missing": "fail", "error": "error"}.get(outcome, "pass")
    head = f'<span class="v {css}">{_e(outcome)}</span> <code>{_e(entry.path or "?")}</code>'
    stored, new = entry.stored, entry.output
    if outcome != "drifted" or stored is None or new is None:
        return f"<li>{head}</li>"
    return (
        f'<li>{head}<div class="diff" aria-label="word diff">{_diff_html(stored, new)}</div>'
        "<small>struck through: only in the snapshot; underlined: only in the new "
        "output</small></li>"
    )


def _diff_html(stored: str, new: str) -> str:
    """The word diff of a drifted snapshot with <del>/<ins> (escaped)."""
    return " ".join(_TAGS[kind].format(_e(words)) for kind, words in word_runs(stored, new))


_TAGS = {"equal": "{}", "removed": "<del>{}</del>", "added": "<ins>{}</ins>"}


def relations(report: Report) -> str:
    """The "Relations" section: per relation the terminal's figures (cases, not applicable,
    violations over variants judged, mean and worst rate, errors), then every case that did not
    simply hold — violated, errored or not applicable — with its variants (empty without
    relations)."""
    if not report.relations:
        return ""
    rows = "".join(
        f'<tr><td>{_e(row.relation)}</td><td class="n">{row.cases}</td>'
        f'<td class="n">{row.not_applicable}</td>'
        f'<td class="n">{row.violations}/{row.judged}</td>'
        f'<td class="n">{_fmt(row.mean_rate)}</td><td class="n">{_fmt(row.worst_rate)}'
        f'</td><td class="n">{row.errors}</td></tr>\n'
        for row in summarize_relations(report.relations)
    )
    cases = "".join(
        _relation_case(case)
        for case in report.relations
        if case.violations or case.errors or not case.applicable
    )
    return (
        '<section id="relations">\n<h2>Relations</h2>\n'
        '<p class="hint">A transformation of the input that keeps its meaning must not move the '
        "verdict: violations count in both directions; a relation that does not apply is not "
        "applicable, never 0.</p>\n"
        '<table class="runs"><thead><tr><th>relation</th><th>cases</th><th>n/a</th>'
        "<th>violations</th><th>mean</th><th>worst</th><th>errors</th></tr></thead><tbody>\n"
        f"{rows}</tbody></table>\n"
        + (f'<ul class="snaps">{cases}</ul>\n' if cases else "")
        + "</section>\n"
    )


def _relation_case(case: RelationRecord) -> str:
    what = (
        f"<code>{_e(case.relation)}</code> case <code>{_e(case.case_id)}</code>"
        f" in <code>{_e(case.nodeid)}</code>"
    )
    if not case.applicable:
        return f'<li><span class="v">n/a</span> {what}: {_e(case.not_applicable)}</li>'
    variants = "".join(
        f'<li><span class="v {_VARIANT_CSS.get(str(variant.outcome), "")}">'
        f"{_e(variant.outcome or '?')}</span> {_e(variant.label or '?')}"
        + (f" ({_e(variant.direction)})" if variant.direction else "")
        + (f": {_e(variant.error)}" if variant.error else "")
        + "</li>"
        for variant in case.results
    )
    return (
        f'<li><span class="v fail">{case.violations} violated</span> {what}, rate '
        f"{_fmt(case.rate)}, {case.errors} errors<ul>{variants}</ul></li>"
    )


_VARIANT_CSS = {"held": "pass", "violation": "fail", "error": "error"}
