"""Sections of the HTML report after the repeated runs: semantic snapshots (each drifted one with
its word diff) and metamorphic relations, each a function of the JSON report."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from semantix.report._html_parts import _e, _fmt, _mapping, _num
from semantix.snapshots._diff import word_opcodes

__all__ = ["relation_data", "relations", "snapshot_data", "snapshots"]


def snapshot_data(document: Mapping[str, Any]) -> Mapping[str, Any]:
    """The ``snapshots`` section when any snapshot was involved, else empty."""
    data = _mapping(document.get("snapshots"))
    counts = _mapping(data.get("counts"))
    listed = data.get("snapshots") or data.get("unused")
    if not any(_num(value) for value in counts.values()) and not listed:
        return {}
    return data


def snapshots(document: Mapping[str, Any]) -> str:
    """The "Snapshots" section (empty when no snapshot was involved)."""
    data = snapshot_data(document)
    if not data:
        return ""
    counts = _mapping(data.get("counts")).items()
    count_text = ", ".join(f"{_e(count)} {_e(name)}" for name, count in counts if _num(count))
    order = {"drifted": 0, "missing": 1, "error": 2}
    entries = sorted(
        data.get("snapshots") or (),
        key=lambda entry: (order.get(str(entry.get("outcome")), 3), str(entry.get("path"))),
    )
    items = "".join(_snapshot_item(entry) for entry in entries)
    unused = data.get("unused") or ()
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


def _snapshot_item(entry: Mapping[str, Any]) -> str:
    outcome = str(entry.get("outcome", "?"))
    css = {"drifted": "fail", "missing": "fail", "error": "error"}.get(outcome, "pass")
    head = f'<span class="v {css}">{_e(outcome)}</span> <code>{_e(entry.get("path", "?"))}</code>'
    stored, new = entry.get("stored"), entry.get("output")
    if outcome != "drifted" or not isinstance(stored, str) or not isinstance(new, str):
        return f"<li>{head}</li>"
    return (
        f'<li>{head}<div class="diff" aria-label="word diff">{_diff_html(stored, new)}</div>'
        "<small>struck through: only in the snapshot; underlined: only in the new "
        "output</small></li>"
    )


def _diff_html(stored: str, new: str) -> str:
    """The word diff of a drifted snapshot with <del>/<ins> (escaped)."""
    # The words and matching of semantix.snapshots._diff.word_diff (its rendered form mixes
    # markers into the text, so the opcodes are walked here to mark up escaped words).
    out: list[str] = []
    old_words, new_words = stored.split(), new.split()
    for tag, i1, i2, j1, j2 in word_opcodes(old_words, new_words):
        if tag == "equal":
            out.append(_e(" ".join(old_words[i1:i2])))
            continue
        if i2 > i1:
            out.append(f"<del>{_e(' '.join(old_words[i1:i2]))}</del>")
        if j2 > j1:
            out.append(f"<ins>{_e(' '.join(new_words[j1:j2]))}</ins>")
    return " ".join(out)


def relation_data(document: Mapping[str, Any]) -> Mapping[str, Any]:
    """The ``relations`` section when a relation was checked, else empty."""
    data = _mapping(document.get("relations"))
    return data if data.get("summary") or data.get("results") else {}


def relations(document: Mapping[str, Any]) -> str:
    """The "Relations" section: per relation the terminal's figures (cases, not applicable,
    violations over variants judged, mean and worst rate, errors), then every case that did not
    simply hold — violated, errored or not applicable — with its variants (empty without
    relations)."""
    data = relation_data(document)
    if not data:
        return ""
    rows = "".join(
        f'<tr><td>{_e(row.get("relation", "?"))}</td><td class="n">{_e(row.get("cases", "—"))}</td>'
        f'<td class="n">{_e(row.get("not_applicable", "—"))}</td>'
        f'<td class="n">{_e(row.get("violations", "—"))}/{_e(row.get("judged", "—"))}</td>'
        f'<td class="n">{_fmt(row.get("mean_rate"))}</td><td class="n">{_fmt(row.get("worst_rate"))}'
        f'</td><td class="n">{_e(row.get("errors", "—"))}</td></tr>\n'
        for row in data.get("summary") or ()
    )
    cases = "".join(
        _relation_case(case)
        for case in data.get("results") or ()
        if (case.get("violations") or case.get("errors") or case.get("applicable") is False)
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


def _relation_case(case: Mapping[str, Any]) -> str:
    what = (
        f"<code>{_e(case.get('relation', '?'))}</code> case <code>{_e(case.get('case_id'))}</code>"
        f" in <code>{_e(case.get('nodeid', '?'))}</code>"
    )
    if case.get("applicable") is False:
        return f'<li><span class="v">n/a</span> {what}: {_e(case.get("not_applicable"))}</li>'
    variants = "".join(
        f'<li><span class="v {_VARIANT_CSS.get(str(variant.get("outcome")), "")}">'
        f"{_e(variant.get('outcome', '?'))}</span> {_e(variant.get('label', '?'))}"
        + (f" ({_e(variant.get('direction'))})" if variant.get("direction") else "")
        + (f": {_e(variant.get('error'))}" if variant.get("error") else "")
        + "</li>"
        for variant in case.get("results") or ()
        if isinstance(variant, Mapping)
    )
    return (
        f'<li><span class="v fail">{_e(case.get("violations", 0))} violated</span> {what}, rate '
        f"{_fmt(case.get('rate'))}, {_e(case.get('errors', 0))} errors<ul>{variants}</ul></li>"
    )


_VARIANT_CSS = {"held": "pass", "violation": "fail", "error": "error"}
