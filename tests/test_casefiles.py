"""``semantix.cases(path)``: cases from JSON Lines, CSV and YAML files, with stable ids."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from semantix import cases
from semantix.testing.casefiles import CasesFileError

ROWS = [
    {"id": "refund", "question": "Where is my refund?", "intent": "The text is polite."},
    {"question": "Cancel my order", "intent": "The text apologizes."},
]


def ids_and_values(params: list[object]) -> list[tuple[str, dict[str, object]]]:
    return [(param.id, param.values[0]) for param in params]  # type: ignore[attr-defined]


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_json_lines_become_params_with_the_id_field_else_a_content_hash(tmp_path: Path) -> None:
    path = write(tmp_path, "cases.jsonl", "\n".join(json.dumps(row) for row in ROWS) + "\n\n")
    found = ids_and_values(cases(path))
    assert found[0] == ("refund", ROWS[0])
    hashed, row = found[1]
    assert row == ROWS[1] and len(hashed) == 10 and hashed.isalnum()
    # Stable: the same row keeps its id wherever it sits, and another row gets another id.
    moved = write(tmp_path, "moved.jsonl", json.dumps({"x": 1}) + "\n" + json.dumps(ROWS[1]))
    moved_ids = [case_id for case_id, _ in ids_and_values(cases(moved))]
    assert moved_ids[1] == hashed and moved_ids[0] != hashed


def test_csv_rows_are_text_fields_and_yaml_keeps_its_types(tmp_path: Path) -> None:
    csv_path = write(tmp_path, "cases.csv", 'id,question,runs\nrefund,"Where, is it?",3\n')
    assert ids_and_values(cases(csv_path)) == [
        ("refund", {"id": "refund", "question": "Where, is it?", "runs": "3"})
    ]
    yaml_path = write(tmp_path, "cases.yaml", "- id: refund\n  runs: 3\n- question: Hi\n")
    found = ids_and_values(cases(yaml_path))
    assert found[0] == ("refund", {"id": "refund", "runs": 3})
    assert found[1][1] == {"question": "Hi"}


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("bad.jsonl", '{"id": "a"}\n\n[1, 2]\n', r"bad.jsonl:3: a case is an object .* got list"),
        ("bad.jsonl", '{"id": "a"}\n{"id": \n', r"bad.jsonl:2: not JSON"),
        (
            "bad.jsonl",
            '{"id": "a"}\n{"id": "a"}\n',
            r"bad.jsonl:2: id 'a' is already the id of the case at line 1",
        ),
        ("bad.jsonl", '{"x": 1}\n{"x": 1}\n', r"bad.jsonl:2: id '[0-9a-f]{10}' is already"),
        ("bad.jsonl", '{"id": ""}\n', r"bad.jsonl:1: id '' is not a usable id"),
        (
            "bad.csv",
            "id,question\na,one\nb,two,three\n",
            r"bad.csv:3: this row's fields do not match the header's 2 columns",
        ),
        ("bad.yaml", "- id: a\n- just text\n", r"bad.yaml:2: a case is an object .* got str"),
        ("bad.yaml", "id: a\n", r"bad.yaml: a YAML cases file is a list of cases"),
        (
            "bad.txt",
            "x",
            r"'.*bad.txt': expected JSON Lines \(.jsonl, .ndjson\), CSV \(.csv\) or YAML",
        ),
    ],
)
def test_a_bad_row_names_the_file_and_line(
    tmp_path: Path, name: str, text: str, message: str
) -> None:
    with pytest.raises(CasesFileError, match=message):
        cases(write(tmp_path, name, text))


def test_a_missing_file_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(CasesFileError, match=r"cannot read the cases file '.*nope.jsonl'"):
        cases(tmp_path / "nope.jsonl")


def test_yaml_without_pyyaml_names_the_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "yaml", None)  # import yaml raises ImportError
    with pytest.raises(CasesFileError, match=r"needs PyYAML: pip install pyyaml"):
        cases(write(tmp_path, "cases.yml", "- id: a\n"))


CASES_SUITE = '''
import pytest
from semantix import Intent, cases

class Polite(Intent):
    """The text is polite."""
    threshold = 0.5

@pytest.mark.parametrize("case", cases("cases.jsonl"))
def test_reply(case, semantic):
    semantic(case["reply"], Polite)
'''

CASES_JUDGE = """
from semantix import FakeJudge
judge = FakeJudge(lambda output, description: 0.9 if "thank" in output.lower() else 0.1)
"""


def test_a_case_added_to_the_file_never_replays_another_cases_verdict(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_cases=CASES_SUITE, cases_judge=CASES_JUDGE)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(pytester.path), *sys.path]))
    (pytester.path / "cases.jsonl").write_text(
        '{"id": "thanks", "reply": "Thank you!"}\n', encoding="utf-8"
    )
    args = ["-p", "no:cacheprovider", "--semantic-judge", "cases_judge:judge"]
    recorded = pytester.runpytest_subprocess(*args, "--semantic-verdicts", "update", "-v")
    recorded.assert_outcomes(passed=1)
    recorded.stdout.fnmatch_lines(["*test_reply?thanks? PASSED*"])
    # A new case goes first in the file: ids follow the content, and its output has no verdict.
    (pytester.path / "cases.jsonl").write_text(
        '{"id": "rude", "reply": "Go away."}\n{"id": "thanks", "reply": "Thank you!"}\n',
        encoding="utf-8",
    )
    replayed = pytester.runpytest_subprocess(*args, "--semantic-verdicts", "replay", "-v")
    replayed.assert_outcomes(passed=1, failed=1)
    replayed.stdout.fnmatch_lines(
        ["*test_reply?rude? FAILED*", "*test_reply?thanks? PASSED*", "*VerdictNotRecordedError*"]
    )
