"""Frozen variant files: reading, writing, and ``semantix freeze-variants`` against a fake
OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import datetime
import json
import re
from pathlib import Path

import pytest

from cli_helpers import run
from llm_server import FakeOpenAIServer, completion
from semantix.errors import ConfigurationError, JudgeError
from semantix.judges._llm import LLMJudge
from semantix.relations import VariantsFileError, paraphrase
from semantix.relations import _variants as variants_module
from semantix.relations._freeze import PROMPT, freeze_variants
from semantix.relations._variants import VariantsFile, read_variants, variants_path, write_variants

CASES = [
    {"id": "refund-1", "question": "How long does a refund take?"},
    {"id": "refund-2", "question": "Can I return a sale item?"},
]
REPLY = json.dumps({"paraphrases": ["What is the refund delay?", "How long does a refund take?"]})


def test_write_then_read_a_yaml_file(tmp_path: Path) -> None:
    written = VariantsFile("c1", {"question": ("Q?", ["P1", "P2"])}, {"model": "m"})
    path = write_variants(tmp_path, written)
    assert path == tmp_path / "c1.yaml"
    assert "paraphrases:\n    - P1\n    - P2" in path.read_text(encoding="utf-8")
    assert read_variants(path) == written
    assert variants_path(tmp_path, "c1") == path


def test_without_pyyaml_files_are_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(variants_module, "yaml_available", lambda: False)
    written = VariantsFile("c1", {"question": ("Q?", ["P1"])}, {"model": "m"})
    path = write_variants(tmp_path, written)
    assert path == tmp_path / "c1.json"
    assert json.loads(path.read_text(encoding="utf-8"))["fields"]["question"]["paraphrases"] == [
        "P1"
    ]
    assert read_variants(path) == written
    made = paraphrase("question", directory=tmp_path).variants({"question": "Q?"}, case_id="c1")
    assert isinstance(made, tuple) and made[0].case == {"question": "P1"}


def test_a_yaml_file_without_pyyaml_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_variants(tmp_path, VariantsFile("c1", {"q": ("Q", [])}))
    assert path is not None
    monkeypatch.setattr(variants_module, "yaml_available", lambda: False)
    with pytest.raises(VariantsFileError, match="PyYAML is not installed: pip install pyyaml"):
        read_variants(path)


def test_an_existing_file_is_kept_unless_forced(tmp_path: Path) -> None:
    first = VariantsFile("c1", {"q": ("Q", ["reviewed"])})
    assert write_variants(tmp_path, first) is not None
    assert write_variants(tmp_path, VariantsFile("c1", {"q": ("Q", ["new"])})) is None
    assert read_variants(tmp_path / "c1.yaml") == first
    assert write_variants(tmp_path, VariantsFile("c1", {"q": ("Q", ["new"])}), force=True)
    assert read_variants(tmp_path / "c1.yaml").fields["q"] == ("Q", ["new"])


@pytest.mark.parametrize("case_id", ["../escape", "", "a/b", " c", "x\n", "c1\n"])
def test_a_case_id_that_cannot_name_a_file_is_an_error(tmp_path: Path, case_id: str) -> None:
    with pytest.raises(VariantsFileError, match="cannot name a variants file"):
        write_variants(tmp_path, VariantsFile(case_id, {}))


def test_a_case_id_ending_in_a_newline_names_no_file_when_read(tmp_path: Path) -> None:
    (tmp_path / "x.yaml").write_text("case: x\nfields: {}\n", encoding="utf-8")
    with pytest.raises(VariantsFileError, match=re.escape("case id 'x\\n' cannot name a")):
        variants_path(tmp_path, "x\n")


VALID = {"case": "c1", "fields": {"q": {"original": "Q?", "paraphrases": ["P?"]}}}


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_a_variants_file_saved_with_a_bom_reads(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"c1{suffix}"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(VALID).encode("utf-8"))  # JSON is YAML too
    assert read_variants(path).fields == {"q": ("Q?", ["P?"])}


@pytest.mark.parametrize(
    ("suffix", "data", "expected"),
    [
        (".yaml", "case: c1\nfields: {q: {original: caf\xe9}}\n".encode("latin-1"),
         "is not UTF-8 text (byte 0xe9 at offset 35); save it as UTF-8"),
        (".json", b'{"case": "c1", "fields": \xff}', "is not UTF-8 text (byte 0xff"),
        (".json", b"[" * 100_000, "nests deeper than can be read"),
        (".yaml", b"[" * 5_000, "nests deeper than can be read"),
        (".json", b'{"case": "c1",', "is not valid JSON"),
    ],
    ids=["latin-1 yaml", "binary json", "nested json", "nested yaml", "truncated json"],
)  # fmt: skip
def test_a_damaged_variants_file_is_an_error_naming_it(
    tmp_path: Path, suffix: str, data: bytes, expected: str
) -> None:
    path = tmp_path / f"c1{suffix}"
    path.write_bytes(data)
    with pytest.raises(VariantsFileError) as caught:
        read_variants(path)
    assert str(path) in str(caught.value) and expected in str(caught.value)


# --- freezing through an OpenAI-compatible server --------------------------------------------


def test_freeze_writes_paraphrases_with_their_provenance(tmp_path: Path) -> None:
    with (
        FakeOpenAIServer(default=completion(REPLY)) as server,
        LLMJudge(model="tiny", base_url=server.base_url) as judge,
    ):
        outcomes = freeze_variants(
            CASES, ["question"], tmp_path, judge=judge, count=3, today=datetime.date(2025, 1, 2)
        )
    assert [(o.case_id, o.action) for o in outcomes] == [
        ("refund-1", "written"),
        ("refund-2", "written"),
    ]
    frozen = read_variants(tmp_path / "refund-1.yaml")
    # The original itself is dropped from its paraphrases.
    assert frozen.fields == {"question": (CASES[0]["question"], ["What is the refund delay?"])}
    assert frozen.provenance["model"] == "tiny"
    assert frozen.provenance["date"] == "2025-01-02"
    assert frozen.provenance["prompt"] == PROMPT.format(count=3)
    assert frozen.provenance["server"].startswith("http://127.0.0.1:")
    sent = server.requests[0].json
    assert sent["model"] == "tiny"
    assert sent["messages"][1] == {"role": "user", "content": CASES[0]["question"]}


def test_freeze_keeps_reviewed_files(tmp_path: Path) -> None:
    reviewed = VariantsFile("refund-1", {"question": (CASES[0]["question"], ["kept"])})
    write_variants(tmp_path, reviewed)
    with (
        FakeOpenAIServer(default=completion(REPLY)) as server,
        LLMJudge(model="tiny", base_url=server.base_url) as judge,
    ):
        outcomes = freeze_variants(CASES, ["question"], tmp_path, judge=judge)
    assert [o.action for o in outcomes] == ["kept", "written"]
    assert len(server.requests) == 1  # nothing asked for the kept case
    assert read_variants(tmp_path / "refund-1.yaml") == reviewed


def test_freeze_refuses_to_run_in_ci(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    judge = LLMJudge(model="tiny", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ConfigurationError, match="does not run in CI"):
        freeze_variants(CASES, ["question"], tmp_path, judge=judge)
    assert not list(tmp_path.iterdir())


def test_an_unusable_reply_is_an_error_and_writes_nothing(tmp_path: Path) -> None:
    with (
        FakeOpenAIServer(default=completion('{"rewrites": 3}')) as server,
        LLMJudge(model="tiny", base_url=server.base_url) as judge,
        pytest.raises(JudgeError, match="returned no paraphrase list"),
    ):
        freeze_variants(CASES, ["question"], tmp_path, judge=judge)
    assert not list(tmp_path.glob("*.yaml"))


def test_a_case_without_an_id_is_an_error(tmp_path: Path) -> None:
    judge = LLMJudge(model="tiny", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ConfigurationError, match="case 0 has no 'id' field"):
        freeze_variants([{"question": "q"}], ["question"], tmp_path, judge=judge)


# --- the command -----------------------------------------------------------------------------


def test_the_command_writes_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = tmp_path / "cases.jsonl"
    cases.write_text("\n".join(json.dumps(case) for case in CASES) + "\n", encoding="utf-8")
    out_dir = tmp_path / "variants"
    with FakeOpenAIServer(default=completion(REPLY)) as server:
        argv = [
            "freeze-variants", str(cases), "--field", "question", "--dir", str(out_dir),
            "--model", "tiny", "--base-url", server.base_url,
        ]  # fmt: skip
        status, out, err = run(capsys, *argv)
        assert (status, err) == (0, "")
        assert f"written  refund-1: {out_dir / 'refund-1.yaml'}" in out
        assert "review the 2 file(s) written" in out
        status, out, _ = run(capsys, *argv)
    assert status == 0 and "kept     refund-1:" in out
    assert len(server.requests) == 2


def test_the_command_reads_a_python_list(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "my_cases.py").write_text(f"CASES = {CASES!r}\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    with FakeOpenAIServer(default=completion(REPLY)) as server:
        status, _, _ = run(
            capsys, "freeze-variants", "my_cases:CASES", "--field", "question",
            "--base-url", server.base_url,
        )  # fmt: skip
    assert status == 0
    assert (tmp_path / "variants" / "refund-2.yaml").is_file()


def test_the_command_refuses_ci_and_bad_cases(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = tmp_path / "cases.json"
    bad.write_text('{"id": "x"}', encoding="utf-8")
    status, _, err = run(capsys, "freeze-variants", str(bad), "--field", "question")
    assert status == 2 and "holds dict, not a list of cases" in err
    status, _, err = run(capsys, "freeze-variants", "nowhere.json", "--field", "q")
    assert status == 2 and "neither a file nor module:attr" in err
    monkeypatch.setenv("CI", "1")
    bad.write_text(json.dumps(CASES), encoding="utf-8")
    status, _, err = run(capsys, "freeze-variants", str(bad), "--field", "question")
    assert status == 2 and "does not run in CI" in err


@pytest.mark.parametrize(
    ("name", "data", "expected"),
    [
        ("cases.json", b"\xef\xbb\xbf" + json.dumps(CASES).encode(), None),
        ("cases.jsonl", b"\xef\xbb\xbf" + "\n".join(map(json.dumps, CASES)).encode(), None),
        ("cases.json", json.dumps([{"id": "caf\xe9"}]).encode("latin-1").replace(b"\\u00e9", b"\xe9"),
         "is not UTF-8 text (byte 0xe9"),
        ("cases.json", b"[" * 100_000, "nests deeper than can be read"),
        ("cases.json", b'[{"id": "x",', "is not valid JSON (Expecting property name"),
        ("cases.jsonl", b'{"id": "a"}\n{"id": \n', "line 2 is not valid JSON"),
    ],
    ids=["json with a BOM", "jsonl with a BOM", "latin-1", "nested", "truncated", "bad line"],
)  # fmt: skip
def test_the_cases_file_is_read_as_a_person_saved_it(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    data: bytes,
    expected: str | None,
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    with FakeOpenAIServer(default=completion(REPLY)) as server:
        status, _, err = run(
            capsys, "freeze-variants", str(path), "--field", "question", "--dir",
            str(tmp_path / "variants"), "--base-url", server.base_url,
        )  # fmt: skip
    if expected is None:
        assert (status, err) == (0, "")
        assert (tmp_path / "variants" / "refund-2.yaml").is_file()
    else:
        assert status == 2 and expected in err and str(path) in err, err
        assert not server.requests


def test_json_lines_may_hold_line_separators_inside_strings(tmp_path: Path) -> None:
    from semantix.relations._variants import VariantsFileError, load_data

    rows = [{"id": "a", "q": "one\u2028two"}, {"id": "b", "q": "x\u0085y"}]
    text = "\n".join(json.dumps(row, ensure_ascii=False) for row in rows)
    data = load_data(text, tmp_path / "cases.jsonl", error=VariantsFileError, kind="JSON Lines")
    assert data == rows
