"""The HTML page reads well (issue 22, item 2): ids and judge names wrap between their parts,
empty columns are left out, a composite's reasons name their leaf, a long docstring folds, the
score plots keep two intents of one name apart, and leaves that structural leaves decided show
as "not judged", never as a failure."""

from __future__ import annotations

import json
import re
from dataclasses import replace

from semantix import FakeJudge, Intent, Verdict, evaluate_semantic
from semantix.report import json_document, result_record
from semantix.report._html import render
from semantix.report._model import CheckRecord
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


def _page(*records: CheckRecord) -> Node:
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
    polite, kind = record.leaves
    polite = replace(polite, judge="structural", reason="contains 'Thanks'")
    kind = replace(
        kind, judged=False, passed=False, score=None, reason="not judged: decided by Polite"
    )
    record = replace(record, leaves=(polite, kind))
    root = _page(record)
    reason = rows(root)[0].find_all("td")[_headers(root).index("reason")]
    kind = reason.find_all("div")[1]
    assert kind.find("b", **{"class": "nj"}).text() == "not judged"
    assert not kind.find_all("b", **{"class": "fail"})
    assert "decided by Polite" in kind.all_text()
    judges = rows(root)[0].find_all("td")[_headers(root).index("judge")]
    assert judges.find("span").text() == "structural"


# --- issue 34, item 12: short rows, one money formatter, relations ------------------------------


def test_long_error_reasons_fold_so_rows_stay_short() -> None:
    """100 errors of 400 characters: each reason shows its first words, the rest one click away
    (the page was 27,700 px tall with every reason wrapped whole in its column)."""
    from semantix import JudgeError
    from semantix.report import error_record
    from semantix.report._html_parts import PREVIEW_CHARS

    message = "the judge's server answered 503: " + "upstream overloaded, retry later; " * 12
    records = [
        error_record(f"t::test_{n}", JudgeError(message), intent="Polite", output="Thanks")
        for n in range(100)
    ]
    root = _page(*records)
    column = _headers(root).index("reason")
    for row in rows(root):
        cell = row.find_all("td")[column]
        details = cell.find("details")
        shown = details.find("summary").all_text()
        assert len(shown) <= PREVIEW_CHARS
        assert f"JudgeError: {message}".startswith(shown.strip())
        assert "open" not in details.attrs
        whole = " ".join(cell.all_text().split())  # the error is all there, past the fold
        assert whole.startswith("JudgeError: " + " ".join(message.split())[:300])


def test_a_long_leaf_reason_folds_too() -> None:
    reason = "The reply thanks the customer but " + "never names the refund window " * 8

    def verdict(output: str, description: str) -> Verdict:
        return Verdict(passed=False, score=0.3, reason=reason)

    root = _page(
        result_record(evaluate_semantic("Thanks", Polite, judge=FakeJudge(verdict)), "t::a")
    )
    cell = rows(root)[0].find_all("td")[_headers(root).index("reason")]
    assert cell.find("details").find("summary").all_text().startswith("The reply thanks")


def test_the_judges_cost_uses_the_one_money_formatter() -> None:
    document = json.loads(
        json.dumps(
            json_document(
                [],
                meta={
                    "judge_cost": {
                        "verdicts": 3,
                        "prompt_tokens": 1200,
                        "completion_tokens": 90,
                        "usd": 0.0011952,
                        "unpriced": [],
                    }
                },
            )
        )
    )
    header = parse(render(document)).find("header")
    assert "Judge cost $0.0011952 (3 LLM-judged verdicts, 1200 input and 90 output tokens" in (
        " ".join(header.all_text().split())
    )


def test_relations_have_their_section_as_in_the_terminal_and_the_json() -> None:
    held = {
        "relation": "paraphrase(question)",
        "case_id": "c1",
        "nodeid": "t::test_refund",
        "applicable": True,
        "not_applicable": None,
        "variants": 2,
        "judged": 2,
        "violations": 0,
        "errors": 0,
        "rate": 0.0,
        "max_violation_rate": None,
        "original": {"passes": 1, "runs": 1},
        "results": [],
    }
    broke = {
        **held,
        "case_id": "c2",
        "violations": 1,
        "rate": 0.5,
        "results": [
            {
                "label": "formal",
                "outcome": "held",
                "direction": None,
                "value": "Dear sir",
                "passes": 1,
                "runs": 1,
                "error": None,
            },
            {
                "label": "casual",
                "outcome": "violation",
                "direction": "broke",
                "value": "hey",
                "passes": 0,
                "runs": 1,
                "error": None,
            },
        ],
    }
    skipped = {
        **held,
        "case_id": "c3",
        "applicable": False,
        "judged": 0,
        "rate": None,
        "not_applicable": "the input has no question",
    }
    # the summary row is computed from the results, as the terminal's is
    document = json_document([], sections={"relations": {"results": [held, broke, skipped]}})
    root = parse(render(json.loads(json.dumps(document))))
    assert root.find("nav").find("a", href="#relations").text() == "Relations"
    section = root.find("section", id="relations")
    cells = [td.all_text() for td in section.find("tbody").find("tr").find_all("td")]
    assert cells == ["paraphrase(question)", "3", "1", "1/4", "0.25", "0.50", "0"]
    cases = [
        " ".join(li.all_text().split()) for li in section.find("ul").children if li.tag == "li"
    ]
    assert cases[0].startswith("1 violated paraphrase(question) case c2 in t::test_refund")
    assert "casual (broke)" in cases[0] and "formal" in cases[0]
    assert (
        cases[1] == "n/a paraphrase(question) case c3 in t::test_refund : the input has no question"
    )
    assert len(cases) == 2  # a case that held is in the table's figures only


def test_a_topical_verdict_is_marked_on_its_row_and_can_be_filtered() -> None:
    judge = FakeJudge(lambda output, description: 0.9, name="EmbeddingJudge")
    judge.scale = "similarity"
    root = _page(
        result_record(evaluate_semantic("Your invoice is attached.", Polite, judge=judge), "t::a")
    )
    [row] = rows(root)
    assert "tp" in row.classes
    verdict = row.find("td")
    assert " ".join(verdict.all_text().split()) == "PASS topical"
    assert "closeness of topic" in verdict.find("small").attrs["title"]
    assert root.find("select", id="f").find("option", value="tp").text() == "topical"
    totals = " ".join(root.find("ul", **{"class": "totals"}).all_text().split())
    assert totals.endswith("1 topical")
