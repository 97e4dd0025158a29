"""The relation decorators on parametrized pytest tests, end to end with pytester (in
subprocesses), plain and under ``-n 2``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from semantix.report._schema import check_document

PLUGIN_ARGS = [pytest.param([], id="plain"), pytest.param(["-n", "2"], id="xdist-2")]

# Every relation result and every reported check, per process, in a file the test reads back:
# what the pytest plugin's report will receive once it learns the record type.
CONFTEST = """
import json
from semantix import _context as context
from semantix.pipeline._results import SemanticResult
from semantix.relations import RelationResult

RECORDS, CHECKS = [], []

def observe(event):
    if isinstance(event, RelationResult):
        RECORDS.append(event.to_dict())
    elif isinstance(event, SemanticResult):
        CHECKS.append(event.output)

def pytest_configure(config):
    context.add_observer(observe)

def pytest_sessionfinish(session):
    # Not PYTEST_XDIST_WORKER: this run's controller inherits it when the outer run is a worker.
    worker = getattr(session.config, "workerinput", {}).get("workerid", "controller")
    path = session.config.rootpath / f"heard-{worker}.json"
    path.write_text(json.dumps({"relations": RECORDS, "checks": CHECKS}))
"""

SUITE = '''
import pytest
from semantix import FakeJudge, Intent
from semantix.relations import order_invariant, paraphrase_invariant, format_invariant

JUDGE = FakeJudge(lambda output, intent: 1.0 if "d0" in output else 0.0, name="KeywordJudge")

class QuotesFirst(Intent):
    """The answer quotes the first document."""

CASES = [
    {"id": "c1", "question": "Which one?", "documents": ["d0", "d1"]},
    {"id": "c2", "question": "Which one?", "documents": ["d0"]},
]

def answer(case):
    if case["documents"][0] == "crash":
        raise RuntimeError("upstream timeout")
    return f"From {case['documents'][0]}"

@pytest.mark.semantic(judge=JUDGE)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c["id"])
@order_invariant(field="documents")
@paraphrase_invariant(field="question")
def test_answer(case, semantic):
    semantic(answer(case), QuotesFirst)

@pytest.mark.semantic(judge=JUDGE)
@pytest.mark.parametrize("case", CASES[:1], ids=["ceiling"])
@order_invariant(field="documents", max_violation_rate=0.0)
def test_ceiling(case, semantic):
    semantic(answer(case), QuotesFirst)

@pytest.mark.semantic(judge=JUDGE)
@pytest.mark.parametrize("case", [{"id": "f", "documents": ["d1", "d0"]}], ids=["fixed"])
@order_invariant(field="documents")
def test_original_fails(case, semantic):
    semantic(answer(case), QuotesFirst)

@pytest.mark.semantic(judge=JUDGE)
@pytest.mark.parametrize("case", [{"id": "e", "documents": ["d0", "crash"]}], ids=["crash"])
@order_invariant(field="documents")
def test_variant_crashes(case, semantic):
    semantic(answer(case), QuotesFirst)

@pytest.mark.parametrize("case", CASES, ids=lambda c: c["id"])
@format_invariant(field="documnets")
def test_typo(case):
    pass
'''

VARIANTS = """
case: c1
provenance: {model: tiny, date: "2025-01-02"}
fields:
  question:
    original: Which one?
    paraphrases:
    - Which document is it?
"""


def heard(project: pytest.Pytester) -> dict[str, list[Any]]:
    merged: dict[str, list[Any]] = {"relations": [], "checks": []}
    for path in sorted(project.path.glob("heard-*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for key in merged:
            merged[key] += data[key]
    return merged


@pytest.mark.parametrize("args", PLUGIN_ARGS)
def test_relations_on_parametrized_tests(pytester: pytest.Pytester, args: list[str]) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_suite=SUITE)
    (pytester.path / "variants").mkdir()
    (pytester.path / "variants" / "c1.yaml").write_text(VARIANTS, encoding="utf-8")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rA", *args)
    # Violations decide nothing: test_answer[c1] passes with a violated order relation; the
    # ceiling fails; the original's own failure is the test's failure; a typo is an error; a
    # relation whose every variant crashed is an error, never held.
    result.assert_outcomes(passed=2, failed=5)
    result.stdout.fnmatch_lines(
        [
            "*_ test_variant_crashes[[]crash[]] _*",
            "*RelationError: metamorphic relation could not be judged*",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*_ test_ceiling[[]ceiling[]] _*",
            "*RelationViolationError: metamorphic relation violated more often than its ceiling*",
        ]
    )
    result.stdout.fnmatch_lines(["*order(documents) case c1: 1/1 violations = 1.00*"])
    result.stdout.fnmatch_lines(["*order [[]1, 0]: VIOLATION, the variant failed*"])
    result.stdout.fnmatch_lines(
        ["*_ test_typo[[]c1[]] _*", "*ConfigurationError: format_jitter(documnets): no case has*"]
    )
    result.stdout.fnmatch_lines(["*MissingVariantsWarning*no variants file*c2.yaml*"])

    records = heard(pytester)
    found = sorted(
        (r["case_id"], r["relation"], r["applicable"], r["violations"], r["errors"])
        for r in records["relations"]
    )
    assert found == [
        ("c1", "order(documents)", True, 1, 0),  # test_ceiling
        ("c1", "order(documents)", True, 1, 0),  # test_answer
        ("c1", "paraphrase(question)", True, 0, 0),
        ("c2", "order(documents)", False, 0, 0),
        ("c2", "paraphrase(question)", False, 0, 0),
        ("e", "order(documents)", True, 0, 1),
        ("f", "order(documents)", True, 1, 0),
    ]
    crashed = next(r for r in records["relations"] if r["case_id"] == "e")
    assert crashed["outcome"] == "error"
    fixed = next(r for r in records["relations"] if r["case_id"] == "f")
    assert fixed["results"][0]["direction"] == "fixed"
    # Only the original cases' checks are the tests' own: variants are judged, not reported.
    assert sorted(records["checks"]) == ["From d0"] * 4 + ["From d1"]


@pytest.mark.parametrize("args", PLUGIN_ARGS)
def test_the_plugins_reports_carry_the_relations(
    pytester: pytest.Pytester, args: list[str]
) -> None:
    pytester.makepyfile(test_suite=SUITE)
    (pytester.path / "variants").mkdir()
    (pytester.path / "variants" / "c1.yaml").write_text(VARIANTS, encoding="utf-8")
    report = pytester.path / "report.json"
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--semantic-report", f"--semantic-report-json={report}", *args
    )
    result.assert_outcomes(passed=2, failed=5)
    result.stdout.fnmatch_lines(
        [
            "*- semantic relations -*",
            "relation * cases  n/a  violations  mean worst errors",
            "order(documents) * 5    1         3/3  1.00  1.00      1",
            "paraphrase(question) * 2    1         0/1  0.00  0.00      0",
        ]
    )
    document = json.loads(report.read_text(encoding="utf-8"))
    assert check_document(document).to_json() == document  # the typed report reads it back
    section = document["relations"]
    by_relation = {row["relation"]: row for row in section["summary"]}
    assert by_relation["order(documents)"]["cases"] == 5  # every worker's results, merged once
    assert len(section["results"]) == 7
    assert all(record["nodeid"].startswith("test_suite.py::") for record in section["results"])
