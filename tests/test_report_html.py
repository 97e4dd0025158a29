"""The HTML report: structure, escaping and masking (parsed with html.parser), the pytest option,
``semantix report`` (byte-identical pages), and headless Chromium when one is installed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from semantix import FakeJudge, Intent, evaluate_semantic
from semantix.cli import main
from semantix.report import error_record, json_document, result_record
from semantix.report._html import ReportDocumentError, json_href, render, write_html_report
from semantix.report._runs import run_record, runs_section
from semantix.runs import evaluate_pass_rate

KEY = "sk-test-secret-0123456789abcdef"
VOID = {"meta", "input", "br", "img", "link", "hr", "col", "source", "wbr"}


# --- a tiny DOM from html.parser ---------------------------------------------------------------


@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    children: list[Node] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)

    def walk(self) -> Iterator[Node]:
        yield self
        for child in self.children:
            yield from child.walk()

    def find_all(self, tag: str, **attrs: str) -> list[Node]:
        return [
            node
            for node in self.walk()
            if node.tag == tag and all(node.attrs.get(k) == v for k, v in attrs.items())
        ]

    def find(self, tag: str, **attrs: str) -> Node:
        found = self.find_all(tag, **attrs)
        assert found, f"no <{tag} {attrs}>"
        return found[0]

    def text(self) -> str:
        return "".join(self.texts) + "".join(child.text() for child in self.children)

    def all_text(self) -> str:
        parts: list[str] = list(self.texts)
        for child in self.children:
            parts.append(child.all_text())
        return " ".join(parts)

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())


class TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("td", "th") and self.stack[-1].tag in ("td", "th"):
            self.stack.pop()  # a cell's end tag is implied by the next cell
        node = Node(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Node(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        if tag == "tr" and self.stack[-1].tag in ("td", "th"):
            self.stack.pop()  # and the last cell's by the end of the row
        assert self.stack[-1].tag == tag, f"</{tag}> closes <{self.stack[-1].tag}>"
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(Node("#text", {}, texts=[data]))  # in document order


def parse(page: str) -> Node:
    builder = TreeBuilder()
    builder.feed(page)
    builder.close()
    assert builder.stack == [builder.root], "unclosed elements"
    return builder.root


# --- a document from real records --------------------------------------------------------------


class Polite(Intent):
    """The text is polite."""

    threshold = 0.5


class Rude(Intent):
    """The text is rude."""


def _score(output: str, description: str) -> float:
    text = output.lower()
    if "rude" in description.lower():
        return 0.9 if "go away" in text else 0.1
    if "borderline" in text:
        return 0.52
    return 0.9 if "thank" in text else 0.2


JUDGE = FakeJudge(_score, name="KeywordJudge")


def sample_document(*, runs: bool = True) -> dict[str, Any]:
    records = [
        result_record(evaluate_semantic("Thank you!", Polite, judge=JUDGE), "t.py::test_polite"),
        result_record(
            evaluate_semantic("Thank you, borderline.", Polite, judge=JUDGE), "t.py::test_bl"
        ),
        result_record(
            evaluate_semantic("Go away. <script>alert(1)</script> " + KEY, Polite, judge=JUDGE),
            "t.py::test_rude[<b>]",
        ),
        result_record(
            evaluate_semantic("Thank you!", Polite & ~Rude, judge=JUDGE), "t.py::test_both"
        ),
        error_record("t.py::test_error", RuntimeError("judge down <i>x</i>"), intent="Polite"),
        result_record(
            evaluate_semantic("Thank you. " + "long " * 100, Polite, judge=JUDGE), "t.py::test_long"
        ),
    ]
    sections: dict[str, Any] = {}
    if runs:
        outputs = iter(["Thank you", "Go away"] * 3)
        stats = evaluate_pass_rate(
            lambda: next(outputs), Polite, runs=6, min_pass_rate=0.8, judge=JUDGE
        )
        sections["runs"] = runs_section([run_record(stats, "t.py::test_flaky")])
        sections["snapshots"] = {
            "counts": {"passed": 1, "drifted": 1, "unused": 0},
            "snapshots": [
                {"path": "snaps/a.txt", "outcome": "passed"},
                {
                    "path": "snaps/b.txt",
                    "outcome": "drifted",
                    "stored": "Refunds within 30 days <ok>.",
                    "output": "Refunds within 14 days <ok>.",
                },
            ],
            "unused": [],
            "deleted": [],
        }
    meta = {
        "judges": ["KeywordJudge"],
        "verdicts_mode": "off",
        "started": "2026-12-01T02:30:00+00:00",
        "duration_s": 75.5,
    }
    return json.loads(json.dumps(json_document(records, meta=meta, sections=sections)))


@pytest.fixture
def page(monkeypatch: pytest.MonkeyPatch) -> Node:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    return parse(render(sample_document(), json_href="report.json"))


def rows(root: Node) -> list[Node]:
    return root.find("table", id="t").find("tbody").find_all("tr")


def description(root: Node, node: Node) -> str:
    """The intent description the page's style shows under ``node`` (a ``dN`` class)."""
    number = next(c for c in node.classes if c[0] == "d" and c[1:].isdigit())
    style = root.find("style").text()
    start = style.index(f'.{number}::after{{content:"') + len(number) + 18
    return style[start : style.index('"}', start)]


# --- structure ---------------------------------------------------------------------------------


def test_header_shows_run_date_judges_mode_totals_and_duration(page: Node) -> None:
    header = page.find("header")
    text = " ".join(header.all_text().split())
    assert "2026-12-01 02:30:00 UTC" in text
    assert "1 min 16 s" in text  # 75.5 s
    assert "KeywordJudge" in text
    totals = {li.attrs["class"]: li.find("b").text() for li in header.find("ul").find_all("li")}
    assert totals == {"total": "6", "pass": "4", "fail": "1", "error": "1", "bl": "1"}
    assert page.find("dl").find_all("dd")[2].text() == "off"


def test_table_has_every_assertion_failures_first_with_json_pointer_ids(page: Node) -> None:
    found = rows(page)
    assert len(found) == 6
    ids = [row.attrs["id"] for row in found]
    assert sorted(ids) == [f"/assertions/{n}" for n in range(6)]
    verdicts = [row.find("td").text().split()[0] for row in found]
    assert verdicts[:2] == ["ERROR", "FAIL"]  # errors, failures, then borderline, then passes
    assert "bl" in found[2].classes and verdicts[2] == "PASS"
    for row in found:
        link = row.find_all("td")[1].find("a")
        assert (
            link.attrs["href"] == "#" + row.attrs["id"]
        )  # its own row: a JSON file has no anchors
    assert page.find("header").find("a").attrs["href"] == "report.json"  # the file, once
    headers = [th.text() for th in page.find("thead").find_all("th")]
    assert headers == [
        "verdict",
        "test",
        "intent",
        "output",
        "score",
        "threshold",
        "reason",
        "judge",
        "latency",
    ]  # no evidence column: no judge gave evidence


def test_a_row_shows_intent_description_score_threshold_reason_and_judge(page: Node) -> None:
    document = sample_document()
    index = next(i for i, r in enumerate(document["assertions"]) if r["nodeid"] == "t.py::test_bl")
    row = page.find("tr", id=f"/assertions/{index}")
    cells = [" ".join(td.all_text().split()) for td in row.find_all("td")]
    assert cells[2] == "Polite"
    assert description(page, row.find_all("td")[2].find("span")) == "The text is polite."
    assert cells[4] == "0.52"
    assert cells[5] == "0.50 intent"
    assert "fake score 0.520" in cells[6]
    assert row.find_all("td")[7].text() == "KeywordJudge"  # <wbr> between its words
    assert "data-s" not in row.attrs  # one leaf: the score column sorts by the cell


def test_composite_rows_list_each_leaf(page: Node) -> None:
    row = next(r for r in rows(page) if "test_both" in r.find_all("td")[1].text())
    intent, score = row.find_all("td")[2], row.find_all("td")[4]
    assert [d.text() for d in score.find_all("div")] == ["0.90", "0.10"]
    assert row.attrs["data-s"] == "0.1"  # sorts by its lowest score
    leaves = intent.find_all("span")
    assert [leaf.text() for leaf in leaves] == ["Polite", "~Rude"]
    assert description(page, leaves[1]) == "The text is rude."


def test_long_output_folds_into_details_with_the_full_text(page: Node) -> None:
    row = next(r for r in rows(page) if "test_long" in r.find_all("td")[1].text())
    details = row.find_all("td")[3].find("details")
    summary = details.find("summary")
    assert summary.attrs["data-n"] == "511 chars"  # shown with an ellipsis while folded
    assert len(summary.text()) <= 120 and summary.text().startswith("Thank you. long")
    assert details.text() == "Thank you. " + "long " * 100  # the full text, once


def test_error_row_shows_the_error(page: Node) -> None:
    row = rows(page)[0]
    assert "RuntimeError: judge down <i>x</i>" in row.all_text()
    assert not row.find_all("i")  # the error's markup is text


def test_strip_plot_per_intent_with_threshold_and_marked_failures(page: Node) -> None:
    section = page.find("section", id="intents")
    figures = section.find_all("figure")
    captions = [figure.find("figcaption").find("b").text() for figure in figures]
    assert captions == ["Polite", "~Rude"]
    polite = figures[0].find("svg")
    assert len(polite.find_all("line", **{"class": "th"})) == 1
    # One path per kind of point, a dot per score: 1 failure, 4 passes, 1 borderline ring.
    assert polite.find("path", **{"class": "fail"}).attrs["d"].count("M") == 1
    assert polite.find("path", **{"class": "pass"}).attrs["d"].count("M") == 4
    ring = polite.find("circle", **{"class": "bl"})
    assert ring.find("title").text() == "t.py::test_bl: 0.520"
    assert "passes below the line" in figures[1].find("figcaption").all_text()


def test_repeated_runs_bar_with_whiskers_and_floor(page: Node) -> None:
    section = page.find("section", id="runs")
    row = section.find("tbody").find("tr")
    assert row.find("td").text() == "FAIL"  # 3 of 6 under a floor of 0.8
    svg = row.find("svg")
    assert svg.find("rect", **{"class": "rate"})
    assert svg.find("path", **{"class": "whisker"}).attrs["d"].count("M") == 3
    assert svg.find("line", **{"class": "floor"})
    assert "0.50" in row.all_text() and "0.80" in row.all_text()


def test_drifted_snapshot_shows_the_word_diff(page: Node) -> None:
    section = page.find("section", id="snapshots")
    items = section.find("ul").find_all("li")
    assert "drifted" in items[0].all_text()  # drifted first
    diff = items[0].find("div")
    assert [d.text() for d in diff.find_all("del")] == ["30"]
    assert [i.text() for i in diff.find_all("ins")] == ["14"]
    assert "<ok>" in diff.text()


def test_sections_without_data_are_left_out() -> None:
    root = parse(render(sample_document(runs=False)))
    assert not root.find_all("section", id="runs")
    assert not root.find_all("section", id="snapshots")
    for row in rows(root):  # without a JSON file, a test id links to its own row
        assert row.find_all("td")[1].find("a").attrs["href"] == "#" + row.attrs["id"]


def test_an_empty_run_renders() -> None:
    root = parse(render(json_document([])))
    assert rows(root) == []
    assert "No semantic assertion" in root.find("section", id="assertions").all_text()


# --- escaping, masking, self-containment -------------------------------------------------------


def test_output_with_script_shows_as_text(page: Node) -> None:
    scripts = page.find_all("script")
    assert len(scripts) == 1 and "alert" not in scripts[0].text()  # only the page's own
    row = next(r for r in rows(page) if "test_rude" in r.find_all("td")[1].text())
    assert "<script>alert(1)</script>" in row.find_all("td")[3].all_text()
    assert row.find_all("td")[1].text() == "t.py::test_rude[<b>]"
    assert not row.find_all("td")[1].find_all("b")


def test_api_key_is_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    page = render(sample_document())
    assert KEY not in page
    assert "********" in page


def test_page_needs_no_network(page: Node) -> None:
    for node in page.walk():
        for name in ("src", "href", "action", "data"):
            value = node.attrs.get(name, "")
            assert "://" not in value and not value.startswith("//"), (node.tag, value)
    assert not page.find_all("link")
    assert page.find("style") and page.find("script")


def test_controls_are_hidden_until_the_script_shows_them(page: Node) -> None:
    assert "hidden" in page.find("div", id="controls").attrs


def test_render_rejects_what_is_not_a_report() -> None:
    with pytest.raises(ReportDocumentError, match="not a semantix report"):
        render({"hello": 1})
    with pytest.raises(ReportDocumentError, match="upgrade semantix"):
        render({"version": 99, "assertions": []})
    with pytest.raises(ReportDocumentError, match="JSON object, got a list"):
        render([])  # type: ignore[arg-type]


def test_render_is_deterministic() -> None:
    document = sample_document()
    assert render(document) == render(json.loads(json.dumps(document)))


def test_json_href_is_relative_and_quoted(tmp_path: Path) -> None:
    assert json_href(tmp_path / "r e.json", tmp_path / "out" / "p.html") == "../r%20e.json"
    assert json_href(None, tmp_path / "p.html") is None


# --- semantix report ---------------------------------------------------------------------------


def test_cli_renders_the_same_page_as_write_html_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = sample_document()
    source = tmp_path / "report.json"
    source.write_text(json.dumps(document, indent=2), encoding="utf-8")
    write_html_report(tmp_path / "direct.html", document, json_path=source)
    assert main(["report", str(source), "-o", str(tmp_path / "cli.html")]) == 0
    assert "wrote" in capsys.readouterr().out
    assert (tmp_path / "cli.html").read_bytes() == (tmp_path / "direct.html").read_bytes()
    assert main(["report", str(source)]) == 0  # default: beside the JSON
    assert (tmp_path / "report.html").read_bytes() == (tmp_path / "direct.html").read_bytes()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read the JSON report"),
        ("{not json", "is not JSON"),
        ('{"a": 1}', "not a semantix report"),
    ],
)
def test_cli_errors_say_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, message: str
) -> None:
    source = tmp_path / "report.json"
    if content is not None:
        source.write_text(content, encoding="utf-8")
    assert main(["report", str(source), "-o", str(tmp_path / "p.html")]) == 2
    err = capsys.readouterr().err
    assert message in err and "--semantic-report-json" in err
    assert not (tmp_path / "p.html").exists()


def test_cli_json_href_sets_where_the_header_links(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "report.json"
    source.write_text(json.dumps(sample_document()), encoding="utf-8")
    href = "https://ci.example/run/7/report.json"
    assert main(["report", str(source), "-o", str(tmp_path / "p.html"), "--json-href", href]) == 0
    capsys.readouterr()
    root = parse((tmp_path / "p.html").read_text(encoding="utf-8"))
    assert root.find("header").find("a").attrs["href"] == href
    links = [row.find_all("td")[1].find("a").attrs["href"] for row in rows(root)]
    assert links and all(link.startswith("#/assertions/") for link in links)


def test_cli_refuses_to_overwrite_the_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "report.json"
    source.write_text(json.dumps(sample_document()), encoding="utf-8")
    assert main(["report", str(source), "-o", str(source)]) == 2
    assert "overwrite" in capsys.readouterr().err


def test_cli_refuses_a_missing_directory_and_creates_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "report.json"
    source.write_text(json.dumps(sample_document()), encoding="utf-8")
    target = tmp_path / "missing" / "dir" / "x.html"
    assert main(["report", str(source), "-o", str(target)]) == 2
    err = capsys.readouterr().err
    assert f"the directory of {str(target)!r} does not exist" in err and "mkdir -p" in err
    assert not (tmp_path / "missing").exists()


def test_cli_never_replaces_a_page_it_did_not_write_without_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The page pytest wrote beside the JSON (default name) stays, unless --force is given."""
    source = tmp_path / "report.json"
    source.write_text(json.dumps(sample_document()), encoding="utf-8")
    page = tmp_path / "report.html"
    page.write_text("the page pytest wrote", encoding="utf-8")
    assert main(["report", str(source)]) == 2
    err = capsys.readouterr().err
    assert f"{str(page)!r} exists" in err and "--force" in err
    assert page.read_text(encoding="utf-8") == "the page pytest wrote"
    assert main(["report", str(source), "-o", str(page)]) == 2  # named with -o: the same rule
    assert main(["report", str(source), "--force"]) == 0
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


# --- the pytest option, end to end -------------------------------------------------------------

JUDGES = """
from semantix import FakeJudge

def score(output, description):
    return 0.9 if "thank" in output.lower() else 0.2

judge = FakeJudge(score, name="KeywordJudge")
"""

SUITE = '''
from semantix import Intent

class Polite(Intent):
    """The text is polite."""
    threshold = 0.5

def test_polite(semantic):
    semantic("Thank you for waiting.", Polite)

def test_script(semantic):
    semantic("<script>alert('x')</script> go away", Polite)
'''


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makepyfile(judges_mod=JUDGES, test_suite=SUITE)
    monkeypatch.setenv("PYTHONPATH", str(pytester.path), prepend=os.pathsep)  # our src too
    return pytester


@pytest.mark.parametrize("plugin_args", [[], ["-n", "2"]], ids=["plain", "xdist-2"])
def test_plugin_page_matches_semantix_report_byte_for_byte(
    project: pytest.Pytester, plugin_args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    result = project.runpytest_subprocess(
        "-p",
        "no:cacheprovider",
        *plugin_args,
        "--semantic-judge=judges_mod:judge",
        "--semantic-report-json=out/report.json",
        "--semantic-report-html=out/report.html",
    )
    result.assert_outcomes(passed=1, failed=1)
    out = project.path / "out"
    page = (out / "report.html").read_text(encoding="utf-8")
    root = parse(page)
    found = rows(root)
    assert [row.find("td").text() for row in found] == ["FAIL", "PASS"]
    assert [row.find_all("td")[1].find("a").attrs["href"] for row in found] == [
        "#/assertions/1",
        "#/assertions/0",
    ]
    assert root.find("header").find("a").attrs["href"] == "report.json"
    assert "<script>alert('x')</script> go away" in found[0].find_all("td")[3].all_text()
    assert len(root.find_all("script")) == 1
    assert root.find("section", id="intents").find("svg").find("path", **{"class": "fail"})
    assert "UTC" in root.find("header").all_text()  # the run date, from the JSON's meta

    assert main(["report", str(out / "report.json"), "-o", str(out / "again.html")]) == 0
    capsys.readouterr()
    assert (out / "again.html").read_bytes() == (out / "report.html").read_bytes()


FLAKY = '''
import itertools
import pytest
from semantix import Intent

class Polite(Intent):
    """The text is polite."""
    threshold = 0.5

replies = itertools.cycle(["Thank you!", "Thank you!", "Go away."])

@pytest.mark.semantic(runs=6, min_pass_rate=0.5)
def test_flaky(semantic):
    semantic(next(replies), Polite)
'''


def test_plugin_page_shows_repeated_runs(project: pytest.Pytester) -> None:
    project.makepyfile(test_flaky=FLAKY)
    result = project.runpytest_subprocess(
        "-p",
        "no:cacheprovider",
        "--semantic-judge=judges_mod:judge",
        "--semantic-report-html=report.html",
        "test_flaky.py",
    )
    result.assert_outcomes(passed=1)
    root = parse((project.path / "report.html").read_text(encoding="utf-8"))
    assert len(rows(root)) == 6  # every run's assertion
    row = root.find("section", id="runs").find("tbody").find("tr")
    cells = [" ".join(td.all_text().split()) for td in row.find_all("td")]
    assert cells[:5] == ["PASS", "test_flaky.py::test_flaky", "6", "4", "0"]
    assert cells[5].startswith("0.67") and cells[7] == "0.50"
    assert row.find("svg").find("path", **{"class": "whisker"})


SNAPSHOT_JUDGE = """
from semantix import FakeJudge

def same(output, other):
    return 0.9 if "30 days" in output and "30 days" in other else 0.1

judge = FakeJudge(same, name="SameJudge")
"""

SNAPSHOT_TEST = """
import os

def test_refund(semantic_snapshot):
    semantic_snapshot(os.environ["REPLY"])
"""


def test_plugin_page_lists_drifted_snapshots_first(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.makepyfile(snap_judge=SNAPSHOT_JUDGE, test_snap=SNAPSHOT_TEST)
    monkeypatch.delenv("CI", raising=False)
    args = ["-p", "no:cacheprovider", "--semantic-judge=snap_judge:judge", "test_snap.py"]
    monkeypatch.setenv("REPLY", "Refunds within 30 days.")
    project.runpytest_subprocess(*args, "--semantic-snapshot-update").assert_outcomes(passed=1)
    monkeypatch.setenv("REPLY", "Refunds within 14 days.")
    result = project.runpytest_subprocess(*args, "--semantic-report-html=report.html")
    result.assert_outcomes(failed=1)
    root = parse((project.path / "report.html").read_text(encoding="utf-8"))
    item = root.find("section", id="snapshots").find("ul").find("li")
    assert item.find("span").text() == "drifted"
    assert item.find("code").text().endswith(".txt")
    diff = item.find("div")  # the word diff, from the texts the JSON report carries
    assert [node.text() for node in diff.find_all("del")] == ["30"]
    assert [node.text() for node in diff.find_all("ins")] == ["14"]


def test_ini_key_writes_the_page_beside_the_ini_file(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\nsemantic_report_html = reports/semantic.html\n")
    sub = project.mkdir("sub")
    result = project.runpytest_subprocess(
        "-p", "no:cacheprovider", "--semantic-judge=judges_mod:judge", str(project.path)
    )
    result.assert_outcomes(passed=1, failed=1)
    root = parse((project.path / "reports" / "semantic.html").read_text(encoding="utf-8"))
    assert len(rows(root)) == 2
    assert not (sub / "reports").exists()
    # The page's path is printed, as the JSON report's is.
    result.stdout.fnmatch_lines(
        [f"semantic report HTML: {project.path / 'reports' / 'semantic.html'}"]
    )


# --- the benchmark script --------------------------------------------------------------------


def test_bench_report_prints_every_figure() -> None:
    """A smoke run of scripts/bench-report on a few assertions (figures printed, not judged)."""
    script = Path(__file__).resolve().parent.parent / "scripts" / "bench-report"
    done = subprocess.run(
        [sys.executable, str(script), "--assertions", "120", "--rounds", "1", "--no-browser"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    labels = [line.split("  ", 1)[0] for line in done.stdout.splitlines()]
    assert labels == ["setup", "render", "size", "compare", "browser"]
    assert "browser  skipped: --no-browser" in done.stdout


# --- a real browser ----------------------------------------------------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,900",
]


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium installed (apt-get install chromium)")
def test_headless_chromium_renders_table_and_plots(tmp_path: Path) -> None:
    assert CHROMIUM is not None
    page = tmp_path / "report.html"
    write_html_report(page, sample_document())
    common = [CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run(
        [*common, "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    root = parse_loose(dom)
    # The script ran: the controls are shown and count the rows.
    controls = root.find("div", id="controls")
    assert "hidden" not in controls.attrs
    assert controls.find("span", id="n").text() == "6 of 6 shown"
    assert len(rows(root)) == 6
    assert len(root.find("section", id="intents").find_all("svg")) == 2
    shot = tmp_path / "shot.png"
    subprocess.run(
        [*common, f"--screenshot={shot}", page.as_uri()],
        capture_output=True,
        timeout=120,
        check=True,
    )
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.stat().st_size > 10_000  # a rendered page, not a blank one


# Drives the page's own script as a reader would, and writes what it saw into the title.
DRIVE = """<script>window.addEventListener('load',function(){
var f=document.getElementById('f');f.value='bad';f.dispatchEvent(new Event('change'));
var bad=document.getElementById('n').textContent;f.value='';f.dispatchEvent(new Event('change'));
var th=document.querySelector('#t th[data-k=s]');th.click();
var up=document.querySelector('#t tbody tr').id;th.click();
var down=document.querySelector('#t tbody tr').id;
var q=document.getElementById('q');q.value='test_long';q.dispatchEvent(new Event('input'));
setTimeout(function(){document.title=['JS',bad,up,down,
document.getElementById('n').textContent].join('|');},400);});</script>"""


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium installed (apt-get install chromium)")
def test_headless_chromium_runs_the_filter_and_sort_script(tmp_path: Path) -> None:
    assert CHROMIUM is not None
    document = sample_document()
    page = tmp_path / "driven.html"
    page.write_text(render(document).replace("</body>", DRIVE + "</body>"), encoding="utf-8")
    dom = subprocess.run(
        [
            CHROMIUM,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={tmp_path / 'profile'}",
            "--virtual-time-budget=5000",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    title = parse_loose(dom).find("title").text()
    _, bad, up, down, searched = title.split("|")
    assert bad == "2 of 6 shown"  # the error and the failure
    nodeids = [record["nodeid"] for record in document["assertions"]]
    assert nodeids[int(up.rsplit("/", 1)[1])] == "t.py::test_both"  # lowest score: 0.10
    assert document["assertions"][int(down.rsplit("/", 1)[1])]["leaves"][0]["score"] == 0.9
    assert searched == "1 of 6 shown"


def parse_loose(dom: str) -> Node:
    """Chromium's serialisation (it closes <p>, adds <tbody>...), read without the strict check."""
    builder = _LooseBuilder()
    builder.feed(dom)
    return builder.root


class _LooseBuilder(TreeBuilder):
    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return
