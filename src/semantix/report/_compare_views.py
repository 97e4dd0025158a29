"""A `semantix.report._compare.Comparison` as terminal lines, Markdown (a pull-request comment) and
an HTML page in the style of the run's report (JSON is `Comparison.to_dict`), each in the one
order of `KINDS`, the repeated tests' pass rates after the regressions.
"""

from __future__ import annotations

from collections.abc import Sequence

from semantix._proportions import wilson_interval
from semantix._text import preview
from semantix.report._compare import KINDS, Comparison, Flip, RateChange
from semantix.report._html_parts import _breakable, _e, _folded, page, readable
from semantix.report._model import Leaf
from semantix.report._records import clean
from semantix.report._terminal import Line, short_judge

__all__ = ["MARKDOWN_ROWS", "html_page", "markdown", "text_lines"]

#: Rows per Markdown table (a GitHub comment holds 65,536 characters); the rest are counted.
MARKDOWN_ROWS = 50
_TITLES = {"regression": "regressions", "fix": "fixes", "new": "new", "removed": "removed"}
_TITLES["judge"] = "judged by another judge"
_MARKUP = {"regression": {"red": True}, "fix": {"green": True}}


def text_lines(comparison: Comparison) -> list[Line]:
    """The comparison for a terminal: a title, the summary line, then one section per kind."""
    lines: list[Line] = [(_title(comparison), {"bold": True}), (comparison.summary_line(), {})]
    rates = list(comparison.rates)
    for kind in KINDS:
        flips = comparison.of_kind(kind)
        if kind == "fix" and rates:
            lines.append((f"repeated tests ({len(rates)}):", {"bold": True}))
            lines += [(f"  {_rate_text(rate)}", _rate_markup(rate)) for rate in rates]
        if flips:
            lines.append((f"{_TITLES[kind]} ({len(flips)}):", {"bold": True}))
            texts = (
                f"{flip.nodeid}  {flip.label}  {_outcomes(flip)}  {detail(flip)}" for flip in flips
            )
            lines += [(f"  {text}".rstrip(), _MARKUP.get(kind, {})) for text in texts]
    return lines


def _title(comparison: Comparison) -> str:
    base, candidate = comparison.base_path or "baseline", comparison.candidate_path or "candidate"
    return f"semantix compare: {base} -> {candidate}"


def _outcomes(flip: Flip) -> str:
    if flip.base is None or flip.candidate is None:
        return str(flip.candidate or flip.base)
    return f"{flip.base} -> {flip.candidate}"


def detail(flip: Flip) -> str:
    """What changed: the leaves whose outcome moved (score/threshold in each run), the error,
    and a change of judge."""
    moved = [pair for pair in flip.leaves if _side(pair.base) != _side(pair.candidate)]
    parts = []
    for pair in moved or flip.leaves:
        base = _score(pair.base, flip.base)
        candidate = _score(pair.candidate, flip.candidate)
        if flip.kind in ("new", "removed"):
            parts.append(f"{pair.intent} {candidate if flip.kind == 'new' else base}")
        else:
            parts.append(f"{pair.intent} {base} -> {candidate}")
    if flip.error:
        parts.append(preview(flip.error, 160, quote=False))
    if flip.judge_changed:
        parts.append(
            f"judge changed: {short_judge(flip.base_judge)} -> {short_judge(flip.candidate_judge)}"
            " (not like for like)"
        )
    return "; ".join(parts)


def _side(leaf: Leaf | None) -> str | None:
    return None if leaf is None else leaf.decided


def _score(leaf: Leaf | None, outcome: str | None) -> str:
    if leaf is None:
        return "error" if outcome == "error" else "absent"
    if leaf.decided == "not judged":
        return "not judged"
    score, threshold = leaf.score, leaf.threshold
    shown = "n/a" if score is None else f"{score:.2f}"
    if threshold is None:
        return shown
    text = f"{shown}/{threshold:.2f} {leaf.decided}"
    if leaf.decided == "failed" and (score is None or score >= threshold):
        # failed on the passing side of its threshold (or with no score): say why
        text += f" ({preview(leaf.reason or 'no reason given', 120, quote=False)})"
    return text


def _rate(counts: tuple[int, int] | None) -> str:
    if counts is None:
        return "absent"
    low, high = wilson_interval(*counts)
    return f"{counts[0]}/{counts[1]} = {counts[0] / counts[1]:.2f} [{low:.2f}, {high:.2f}]"


def _difference(rate: RateChange) -> str:
    if rate.difference is None or rate.interval is None:
        return "-"
    low, high = rate.interval
    mark = " significant" if rate.significant else ""
    return f"{rate.difference:+.2f} [{low:+.2f}, {high:+.2f}]{mark}"


def _rate_text(rate: RateChange) -> str:
    name = rate.nodeid if rate.name in (None, rate.nodeid) else f"{rate.nodeid} ({rate.name})"
    return f"{name}  {_rate(rate.base)} -> {_rate(rate.candidate)}  difference {_difference(rate)}"


def _rate_markup(rate: RateChange) -> dict[str, bool]:
    if rate.worse or rate.regression:
        return {"red": True}
    return {"green": True} if rate.significant else {}


def markdown(comparison: Comparison, *, rows: int = MARKDOWN_ROWS) -> str:
    """GitHub-flavoured Markdown for a pull-request comment: the summary line, the regressions'
    table, the repeated tests, then fixes, new and removed assertions folded away."""
    verdict = "worse" if comparison.significant else "changed" if comparison.flips else "same"
    parts = [f"**semantix compare** ({verdict}): {_md(comparison.summary_line())}", ""]
    regressions = comparison.regressions
    if regressions:
        parts += [f"#### Regressions ({len(regressions)})", "", *_flip_table(regressions, rows)]
    rates = list(comparison.rates)
    if rates:
        parts += [f"#### Repeated tests ({len(rates)})", ""]
        parts += ["| test | baseline | candidate | difference (95% Newcombe) |"]
        parts += ["|---|---:|---:|---:|"]
        parts += [
            f"| `{_code(rate.nodeid)}` | {_rate(rate.base)} | {_rate(rate.candidate)} | "
            f"{_md(_difference(rate))} |"
            for rate in rates[:rows]
        ]
        parts += _more(len(rates), rows)
    for kind in KINDS[1:]:
        flips = comparison.of_kind(kind)
        if flips:
            title = f"{_TITLES[kind].capitalize()} ({len(flips)})"
            parts += [f"<details><summary>{title}</summary>", "", *_flip_table(flips, rows)]
            parts += ["</details>", ""]
    return "\n".join(parts).rstrip() + "\n"


def _flip_table(flips: Sequence[Flip], rows: int) -> list[str]:
    lines = ["| test | intent | outcome | what changed |", "|---|---|---|---|"]
    lines += [
        f"| `{_code(flip.nodeid)}` | {_md(flip.label)} | {_md(_outcomes(flip))} | "
        f"{_md(detail(flip))} |"
        for flip in flips[:rows]
    ]
    return [*lines, *_more(len(flips), rows)]


def _more(count: int, rows: int) -> list[str]:
    if count <= rows:
        return [""]
    return ["", f"... and {count - rows} more (semantix compare --format json lists all)", ""]


def _code(text: str) -> str:
    """Text in a code span of a table cell (a test id): markup is shown as it is there."""
    return str(clean(text)).replace("|", "\\|").replace("\n", " ").replace("`", "'")


def _md(text: str) -> str:
    """Text in a Markdown table cell: no row break, no code span, and no HTML (an unclosed
    ``<!--`` in a model's words would hide every later row of a GitHub comment)."""
    return _code(text).replace("<", "&lt;")  # no tag, no comment can open


def html_page(comparison: Comparison) -> str:
    """A self-contained page: the style sheet of the run's report, the same sections."""
    sections = []
    for kind in KINDS:
        flips = comparison.of_kind(kind)
        if kind == "fix":
            sections.append(_html_rates(comparison.rates))
        if flips:
            css = {"regression": "fail", "fix": "pass"}.get(kind, "")
            body = "".join(
                f'<tr class="{css}"><td class="id">{_breakable(flip.nodeid)}</td>'
                f'<td>{_breakable(flip.label)}</td><td class="v">{_e(_outcomes(flip))}</td>'
                f"<td>{_e(clean(readable(detail(flip))))}{_outputs(flip)}</td></tr>"
                for flip in flips
            )
            sections.append(
                f"<h2>{_e(_TITLES[kind].capitalize())} ({len(flips)})</h2>"
                f'<table class="cmp">{_COLUMNS}<thead><tr><th>test</th><th>intent</th>'
                "<th>outcome</th><th>what changed</th></tr></thead>"
                f"<tbody>{body}</tbody></table>"
            )
    title = _title(comparison)
    return page(
        title,
        f"<h1>{_e(title)}</h1>\n<p>{_e(comparison.summary_line())}</p>\n"
        + "\n".join(sections)
        + "\n<footer>Rendered by semantix compare. Pairs are matched by test id and intent; "
        "McNemar's exact test counts the paired flips; a repeated test's difference has "
        "Newcombe's 95 % interval.</footer>\n",
        style=_STYLE,
    )


#: The flip tables fit the page: fixed column shares, and the long cells wrap (a test id between
#: its parts, the change and the outputs anywhere) rather than running off the screen.
_COLUMNS = (
    '<colgroup><col style="width:26%"><col style="width:16%"><col style="width:12%">'
    '<col style="width:46%"></colgroup>'
)
_STYLE = (
    "table.cmp{table-layout:fixed}table.cmp td{overflow-wrap:anywhere}"
    "table.cmp .v{white-space:normal}dl.outs{margin:4px 0 0}dl.outs dt{font-weight:600}"
    "dl.outs dd{margin:0 0 4px 12px}"
)


def _outputs(flip: Flip) -> str:
    """A regression's output in each run, folded when long: what changed, not just scores."""
    if flip.kind != "regression" or (flip.base_output is None and flip.candidate_output is None):
        return ""
    return (
        f'<dl class="outs"><dt>baseline output</dt><dd>{_folded(flip.base_output, "out")}</dd>'
        f"<dt>candidate output</dt><dd>{_folded(flip.candidate_output, 'out')}</dd></dl>"
    )


def _html_rates(shown: Sequence[RateChange]) -> str:
    if not shown:
        return ""
    body = "".join(
        f'<tr class="{"fail" if rate.worse else "pass" if rate.significant else ""}">'
        f'<td class="id">{_e(rate.nodeid)}</td><td class="n">{_e(_rate(rate.base))}</td>'
        f'<td class="n">{_e(_rate(rate.candidate))}</td>'
        f'<td class="n">{_e(_difference(rate))}</td></tr>'
        for rate in shown
    )
    return (
        f"<h2>Repeated tests ({len(shown)})</h2><table><thead><tr><th>test</th><th>baseline</th>"
        "<th>candidate</th><th>difference (95% Newcombe)</th></tr></thead>"
        f"<tbody>{body}</tbody></table>"
    )
