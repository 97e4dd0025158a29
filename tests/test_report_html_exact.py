"""The HTML page at scale (issue 45, item 11): structural checks (exact 1 or 0) are counted in one
compact table rather than drawn as a strip plot each, and names of functions defined inside a
test read without Python's ``<locals>`` qualifier."""

from __future__ import annotations

import json
from dataclasses import replace

from semantix import FakeJudge, Intent, evaluate_semantic
from semantix.checks import Contains, Length
from semantix.report import json_document, result_record
from semantix.report._html import render
from semantix.report._model import CheckRecord
from test_report_html import Node, parse

JUDGE = FakeJudge(lambda output, description: 0.9 if "thank" in output.lower() else 0.2)


class Polite(Intent):
    """The text is polite."""

    threshold = 0.5


def _page(*records: CheckRecord) -> Node:
    return parse(render(json.loads(json.dumps(json_document(list(records))))))


def _records() -> list[CheckRecord]:
    records = [
        result_record(evaluate_semantic(text, Contains("order"), judge=JUDGE), f"t.py::test_{n}")
        for n, text in enumerate(["Your order shipped.", "It shipped.", "The order is late."])
    ]
    records.append(
        result_record(
            evaluate_semantic(
                "Thanks, your order shipped.", Polite & Length(max_chars=10), judge=JUDGE
            ),
            "t.py::test_polite_and_short",
        )
    )
    return records


def test_structural_checks_are_counted_in_a_table_not_plotted() -> None:
    section = _page(*_records()).find("section", id="intents")
    captions = [figure.find("figcaption").find("b").text() for figure in section.find_all("figure")]
    assert captions == ["Polite"]  # the only judged intent has a strip plot
    table = section.find("table", **{"class": "structural"})
    rows = {
        row.find("code").text(): [cell.text() for cell in row.find_all("td")[1:4]]
        for row in table.find("tbody").find_all("tr")
    }
    assert rows == {"Contains('order')": ["2", "1", "0"], "Length(max_chars=10)": ["0", "1", "0"]}
    first_failure = table.find("tbody").find_all("tr")[0].find_all("td")[4].all_text()
    assert "t.py::test_1" in first_failure
    assert section.find("h3", id="structural").text() == "Structural checks (2)"


def test_a_run_of_structural_checks_only_draws_no_plot() -> None:
    section = _page(*_records()[:3]).find("section", id="intents")
    assert section.find_all("figure") == []
    assert section.find("p", **{"class": "empty"}).text() == "No judged scores to plot."
    assert len(section.find("table", **{"class": "structural"}).find_all("tr")) == 1 + 1


def test_names_defined_inside_a_test_read_without_locals() -> None:
    record = result_record(evaluate_semantic("Thanks!", Polite, judge=JUDGE), "t.py::test_x")
    judge = "EmbeddingFunctionJudge(tests.test_bot.test_x.<locals>.<lambda>)"
    leaves = tuple(replace(leaf, judge=judge) for leaf in record.leaves)
    record = replace(record, judge=judge, leaves=leaves)
    page = _page(record)
    shown = page.find("span", **{"class": "j"})
    assert shown.text() == "EmbeddingFunctionJudge(<lambda>)"
    assert "<locals>" in shown.attrs["title"]  # the full identity on hover
    table_text = page.find("table", id="t").all_text()
    assert "<locals>" not in table_text
