"""``semantix.cases(path)``: cases from JSON Lines, CSV and YAML files, with stable ids."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from semantix import cases
from semantix.testing._casefiles import CasesFileError

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
            r"'.*bad.txt': expected JSON Lines \(.jsonl, .ndjson\), JSON \(.json\), CSV",
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


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("empty.jsonl", ""),
        ("blank.jsonl", "\n  \n"),
        ("empty.json", "[]"),
        ("header.csv", "id,question\n"),
        ("empty.csv", ""),
        ("empty.yaml", ""),
        ("list.yaml", "[]\n"),
    ],
)
def test_a_file_holding_no_cases_is_an_error_not_a_skipped_test(
    tmp_path: Path, name: str, text: str
) -> None:
    # pytest skips a test parametrized over nothing: the suite would pass having checked nothing.
    with pytest.raises(CasesFileError, match=rf"'.*{name}' holds no cases.*checked nothing"):
        cases(write(tmp_path, name, text))


def test_a_yaml_alias_bomb_is_refused_before_it_expands(tmp_path: Path) -> None:
    levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for index in range(1, 10):
        name, previous = chr(97 + index), chr(96 + index)
        levels.append(f"{name}: &{name} [" + ",".join([f"*{previous}"] * 9) + "]")
    bomb = "- " + "\n  ".join(levels) + "\n"
    assert len(bomb) < 600
    with pytest.raises(CasesFileError, match=r"bomb.yaml:\d+: YAML aliases .* more than 100,000"):
        cases(write(tmp_path, "bomb.yaml", bomb))


def test_yaml_aliases_within_the_limit_are_read(tmp_path: Path) -> None:
    text = "- &base {id: a, intent: polite}\n- {<<: *base, id: b}\n- {id: c, tags: &t [x, y]}\n"
    text += "- {id: d, tags: *t}\n"
    found = ids_and_values(cases(write(tmp_path, "ok.yaml", text)))
    assert found[1] == ("b", {"id": "b", "intent": "polite"})
    assert found[3] == ("d", {"id": "d", "tags": ["x", "y"]})


def test_a_yaml_alias_repeating_a_case_names_its_own_line(tmp_path: Path) -> None:
    text = "- &first {id: a}\n- {id: b}\n- *first\n"
    with pytest.raises(CasesFileError, match=r"dup.yaml:3: id 'a' is already the id .* line 1"):
        cases(write(tmp_path, "dup.yaml", text))


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("twice.csv", "id,question,question\na,one,two\n", r"twice.csv:1: .* 'question' more"),
        ("twice.jsonl", '{"id": "a", "q": 1, "q": 2}\n', r"twice.jsonl:1: not JSON .* 'q'"),
        ("twice.json", '[{"id": "a", "q": 1, "q": 2}]', r"twice.json:1: not JSON .* 'q'"),
        ("twice.yaml", "- id: a\n  q: 1\n  q: 2\n", r"twice.yaml:3: the key 'q' appears twice"),
        ("nan.jsonl", '{"id": "a", "x": NaN}\n', r"nan.jsonl:1: not JSON .*NaN"),
    ],
)
def test_a_name_given_twice_in_a_case_is_an_error_not_a_lost_value(
    tmp_path: Path, name: str, text: str, message: str
) -> None:
    with pytest.raises(CasesFileError, match=message):
        cases(write(tmp_path, name, text))


def test_json_lines_may_hold_line_separators_inside_strings(tmp_path: Path) -> None:
    rows = [{"id": "a", "q": "one\u2028two"}, {"id": "b", "q": "x\u0085y\u2029z"}]
    text = "\r\n".join(json.dumps(row, ensure_ascii=False) for row in rows)
    assert ids_and_values(cases(write(tmp_path, "seps.jsonl", text))) == [
        ("a", rows[0]),
        ("b", rows[1]),
    ]


def test_a_json_array_of_cases_is_read_with_each_cases_line(tmp_path: Path) -> None:
    text = '[\n  {"id": "a", "vars": {"q": "hi"}},\n\n  {"id": "a"}\n]\n'
    with pytest.raises(CasesFileError, match=r"array.json:4: id 'a' is already .* line 2"):
        cases(write(tmp_path, "array.json", text))
    path = write(tmp_path, "ok.json", json.dumps(ROWS, indent=2))
    assert ids_and_values(cases(path))[0] == ("refund", ROWS[0])
    with pytest.raises(CasesFileError, match=r"object.json: a JSON cases file is an array"):
        cases(write(tmp_path, "object.json", '{"id": "a"}'))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- &me {id: a, self: *me}\n", r"self.yaml:1: the alias \*me is inside its own anchor"),
        ("- {1: a, true: b}\n", r"self.yaml:1: the key True appears twice"),
        ("- id: a\n  q: x\n  'q': y\n", r"self.yaml:3: the key 'q' appears twice"),
    ],
)
def test_a_yaml_case_that_contains_itself_or_repeats_a_key_is_refused(
    tmp_path: Path, text: str, message: str
) -> None:
    with pytest.raises(CasesFileError, match=message):
        cases(write(tmp_path, "self.yaml", text))
