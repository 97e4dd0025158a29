"""The HTML page reads well (issue 22, item 2): ids and judge names wrap between their parts,
empty columns are left out, a composite's reasons name their leaf, a long docstring folds, the
score plots keep two intents of one name apart, and leaves that structural leaves decided show
as "not judged", never as a failure."""

from __future__ import annotations

import json
import re
from typing import Any

from semantix import FakeJudge, Intent, Verdict, evaluate_semantic
from semantix.report import json_document, result_record
from semantix.report.html import render
from test_report_html import Node, parse, rows


class Polite(Intent):
    """The text is polite."""

    threshold = 0.5


class Kind(Intent):
    """The text is kind."""

    threshold = 0.5


class Guidelines(Intent):
    """The text follows the support guidelines.

    It greets the customer by name and thanks them for waiting.
    It never blames the customer.
    """

    threshold = 0.5


def _judge(evidence: str | None = None) -> FakeJudge:
    def verdict(output: str, description: str) -> Verdict:
        score = 0.9 if "thank" in output.lower() else 0.2
        return Verdict(
            passed=score >= 0.5,
            score=score,
            reason=f"scored {description[:12]}",
            evidence=evidence,
        )

    return FakeJudge(verdict, name="QuantizedNLIJudge")


def _page(*records: dict[str, Any]) -> Node:
    return parse(render(json.loads(json.dumps(json_document(list(records))))))


def _headers(root: Node) -> list[str]:
    return [th.text() for th in root.find("thead").find_all("th")]


def test_test_ids_and_judge_names_wrap_only_between_their_parts() -> None:
    nodeid = "tests/test_bot.py::test_apologizes[gpt-4o]"
    root = _page(result_record(evaluate_semantic("Thank you", Polite, judge=_judge()), nodeid))
    link = rows(root)[0].find_all("td")[1].find("a")
    assert link.text() == nodeid
    pieces = [child.texts[0] for child in link.children if child.tag == "#text"]
    assert pieces == ["tests/", "test_", "bot.", "py::", "test_", "apologizes", "[gpt-", "4o]"]
    assert len(link.find_all("wbr")) == len(pieces) - 1
    judge = rows(root)[0].find("span", **{"class": "j"})
    assert judge.text() == "QuantizedNLIJudge"


def test_a_column_no_row_fills_is_left_out_and_the_grid_follows() -> None:
    without = _page(result_record(evaluate_semantic("Thanks", Polite, judge=_judge()), "t::a"))
    assert "evidence" not in _headers(without)
    style = without.find("style").text()
    assert re.search(r"\.grid tr\{grid-template-columns:(\S+ ){8}\S+\}", style)  # 9 columns
    assert len(rows(without)[0].find_all("td")) == 9
    with_evidence = _page(
        result_record(evaluate_semantic("Thanks", Polite, judge=_judge("Thanks")), "t::a")
    )
    assert "evidence" in _headers(with_evidence)
    assert len(rows(with_evidence)[0].find_all("td")) == 10


def test_a_composite_row_names_the_leaf_of_each_reason() -> None:
    root = _page(
        result_record(evaluate_semantic("Thanks", Polite & ~Kind, judge=_judge()), "t::both")
    )
    reason = rows(root)[0].find_all("td")[_headers(root).index("reason")]
    lines = [" ".join(div.all_text().split()) for div in reason.find_all("div")]
    assert lines == ["Polite : scored The text is", "~Kind : ✗ scored The text is"]


def test_a_long_docstring_shows_its_first_line_and_the_rest_on_demand() -> None:
    root = _page(result_record(evaluate_semantic("Thanks", Guidelines, judge=_judge()), "t::g"))
    intent = rows(root)[0].find_all("td")[2]
    details = intent.find("details")
    assert "open" not in details.attrs
    rest_class = next(c for c in details.find("span").classes if c.startswith("r"))
    style = root.find("style").text()
    first = re.search(r'\.d0::after\{content:"([^"]*)"\}', style)
    assert first is not None and first.group(1) == "The text follows the support guidelines."
    rest = re.search(rf'\.{rest_class}::after\{{content:"([^"]*)"\}}', style)
    assert rest is not None and rest.group(1).startswith("It greets the customer by name")


def test_scores_per_intent_keep_two_intents_of_one_name_apart() -> None:
    first = type("Polite", (Intent,), {"__doc__": "The text is polite.", "__module__": "app.a"})
    second = type("Polite", (Intent,), {"__doc__": "The text is formal.", "__module__": "app.b"})
    root = _page(
        result_record(evaluate_semantic("Thanks", first, judge=_judge()), "t::a"),
        result_record(evaluate_semantic("Thanks", second, judge=_judge()), "t::b"),
    )
    captions = [f.find("figcaption") for f in root.find("section", id="intents").find_all("figure")]
    assert [caption.find("code").text() for caption in captions] == ["app.a.Polite", "app.b.Polite"]


def test_a_leaf_decided_by_structural_leaves_is_not_judged_not_failed() -> None:
    record = result_record(evaluate_semantic("Thanks", Polite & Kind, judge=_judge()), "t::a")
    record["leaves"][0].update(judge="structural", reason="contains 'Thanks'")
    record["leaves"][1].update(
        judged=False, passed=False, score=None, reason="not judged: decided by Polite"
    )
    root = _page(record)
    reason = rows(root)[0].find_all("td")[_headers(root).index("reason")]
    kind = reason.find_all("div")[1]
    assert kind.find("b", **{"class": "nj"}).text() == "not judged"
    assert not kind.find_all("b", **{"class": "fail"})
    assert "decided by Polite" in kind.all_text()
    judges = rows(root)[0].find_all("td")[_headers(root).index("judge")]
    assert judges.find("span").text() == "structural"
