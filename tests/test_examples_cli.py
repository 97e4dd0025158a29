"""``semantix examples``: examples and counterexamples written once by an LLM (a fake
OpenAI-compatible server on 127.0.0.1), read by the intent through ``examples_file``
(issue 25, item 5)."""

from __future__ import annotations

import codecs
import datetime
import importlib
import json
import re
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli_helpers import run
from llm_server import FakeOpenAIServer, completion
from semantix import FakeJudge, Intent, evaluate_semantic
from semantix._intent import examples_path
from semantix.cli._examples import PROMPT, write_file
from semantix.errors import ConfigurationError

EXAMPLES = ["Thank you so much for waiting!", "Happy to help, have a lovely day."]
COUNTER = [
    "It ships when it ships.",
    "Read the FAQ. Not my problem.",
    "Thank you so much for waiting!",
]
REPLY = json.dumps({"examples": [*EXAMPLES, "  ", EXAMPLES[0]], "counterexamples": COUNTER})

MODULE = '''
from semantix import Intent

class Polite(Intent):
    """The text is polite and professional."""
{extra}
'''


@pytest.fixture
def intents_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> Iterator[tuple[str, Path]]:
    """A module ``<name>`` on sys.path holding ``Polite`` (examples_file from the test's param)."""
    extra = getattr(request, "param", "")
    name = f"myintents_{abs(hash(str(tmp_path)))}"
    (tmp_path / f"{name}.py").write_text(MODULE.format(extra=extra), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    yield name, tmp_path
    sys.modules.pop(name, None)


def test_the_command_writes_examples_with_their_provenance(
    intents_module: tuple[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    name, where = intents_module
    with FakeOpenAIServer(default=completion(REPLY)) as server:
        status, out, err = run(
            capsys, "examples", f"{name}:Polite", "--judge", "llm:tiny-model",
            "--base-url", server.base_url, "--count", "5",
        )  # fmt: skip
    assert (status, err) == (0, "")
    path = where / "examples" / "Polite.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    # blanks and repeats dropped; a text on both sides is on neither
    assert data["examples"] == [EXAMPLES[1]]
    assert data["counterexamples"] == COUNTER[:2]
    assert data["intent"] == f"{name}:Polite"
    assert data["description"] == "The text is polite and professional."
    provenance = data["provenance"]
    assert provenance["model"] == "tiny-model"
    assert provenance["prompt"] == PROMPT.format(count=5)
    assert provenance["date"] == datetime.date.today().isoformat()
    assert provenance["server"].startswith("http://127.0.0.1:")
    # diff-friendly: one example a line
    assert f'    "{EXAMPLES[1]}"' in path.read_text(encoding="utf-8").splitlines()
    sent = server.requests[0].json
    assert sent["model"] == "tiny-model"
    assert sent["messages"][0]["content"] == PROMPT.format(count=5)
    assert "near misses" in sent["messages"][0]["content"]
    assert sent["messages"][1]["content"] == "The text is polite and professional."
    assert f"wrote 1 examples and 2 counterexamples: {path}" in out
    assert 'sets examples_file = "examples/Polite.json"' in out
    assert "semantix calibrate" in out


@pytest.mark.parametrize(
    "intents_module", ['    examples_file = "data/polite.json"'], indirect=True
)
def test_the_intent_reads_the_file_it_names(
    intents_module: tuple[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    name, where = intents_module
    with pytest.raises(
        ConfigurationError, match=r"examples_file 'data/polite.json' does not exist"
    ):
        importlib.import_module(name).Polite.judge_description()
    sys.modules.pop(name)
    with FakeOpenAIServer(default=completion(REPLY)) as server:
        status, out, _ = run(capsys, "examples", f"{name}:Polite", "--base-url", server.base_url)
    assert status == 0 and "sets examples_file" not in out
    assert (where / "data" / "polite.json").is_file()
    sys.modules.pop(name)
    polite: type[Intent] = importlib.import_module(name).Polite
    assert polite.examples == (EXAMPLES[1],)
    assert polite.counterexamples == tuple(COUNTER[:2])
    # the usual threshold order: calibrated from the file's examples by a scoring judge
    judge = FakeJudge(lambda output, d: 0.9 if "help" in output else 0.1)
    result = evaluate_semantic("Happy to help!", polite, judge=judge)
    assert result.passed and result.leaves[0].threshold_source == "calibrated"


def test_an_existing_file_is_never_overwritten_without_force(
    intents_module: tuple[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    name, where = intents_module
    path = where / "reviewed.json"
    path.write_text('{"examples": ["mine"], "counterexamples": ["theirs"]}\n', encoding="utf-8")
    with FakeOpenAIServer(default=completion(REPLY)) as server:
        argv = ["examples", f"{name}:Polite", "--base-url", server.base_url, "--out", str(path)]
        status, _, err = run(capsys, *argv)
        assert status == 2 and "exists" in err and "--force" in err
        assert len(server.requests) == 0
        assert json.loads(path.read_text(encoding="utf-8"))["examples"] == ["mine"]
        status, out, _ = run(capsys, *argv, "--force")
    assert status == 0
    assert json.loads(path.read_text(encoding="utf-8"))["examples"] == [EXAMPLES[1]]
    assert 'examples_file = "reviewed.json"' in out


def test_the_command_refuses_to_run_in_ci(
    intents_module: tuple[str, Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    name, where = intents_module
    monkeypatch.setenv("CI", "true")
    with FakeOpenAIServer(default=completion(REPLY)) as server:
        status, _, err = run(capsys, "examples", f"{name}:Polite", "--base-url", server.base_url)
    assert status == 2 and "does not run in CI" in err
    assert not server.requests and not (where / "examples").exists()


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--judge", "embedding"], "examples are written by an LLM; pass --judge llm"),
        (["--count", "0"], "--count"),
    ],
)
def test_bad_options_name_the_value_and_the_fix(
    intents_module: tuple[str, Path],
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    expected: str,
) -> None:
    name, _ = intents_module
    status, _, err = run(capsys, "examples", f"{name}:Polite", *argv)
    assert status == 2 and expected in err


def test_a_description_is_not_an_intent(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "examples", "The text is polite.")
    assert status == 2 and "is not module:Name" in err


def test_an_unusable_reply_is_an_error_and_writes_nothing(
    intents_module: tuple[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    name, where = intents_module
    with FakeOpenAIServer(default=completion('{"examples": "three"}')) as server:
        status, _, err = run(capsys, "examples", f"{name}:Polite", "--base-url", server.base_url)
    assert status == 2 and "returned no example lists" in err
    assert not (where / "examples").exists()


def test_an_unreachable_server_is_the_llm_judges_error(
    intents_module: tuple[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    name, _ = intents_module
    status, _, err = run(
        capsys, "examples", f"{name}:Polite", "--base-url", "http://127.0.0.1:9/v1"
    )
    assert status == 2 and "could not reach" in err


def test_examples_file_and_examples_together_is_an_error() -> None:
    with pytest.raises(TypeError, match="sets examples_file and examples"):

        class Both(Intent):
            """The text is polite."""

            examples_file = "data/examples_both.json"  # tests/data/examples_both.json
            examples = ("hi",)


@pytest.mark.parametrize(
    "intents_module", ['    examples_file = "../outside/escape.json"'], indirect=True
)
def test_an_examples_file_outside_the_modules_directory_is_refused(
    intents_module: tuple[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    name, where = intents_module
    with FakeOpenAIServer(default=completion(REPLY)) as server:
        status, _, err = run(capsys, "examples", f"{name}:Polite", "--base-url", server.base_url)
    assert status == 2
    assert "Polite.examples_file '../outside/escape.json' leaves the module's directory" in err
    assert not server.requests
    assert not (where.parent / "outside").exists()


@pytest.mark.parametrize(
    "examples_file", ["../escape.json", "a/../../escape.json", "/etc/escape.json", ".."]
)
def test_examples_file_must_stay_in_the_modules_directory(examples_file: str) -> None:
    with pytest.raises(ConfigurationError, match="leaves the module's directory"):
        type(
            "Escaping",
            (Intent,),
            {"__doc__": "The text is polite.", "examples_file": examples_file,
             "__module__": __name__},
        )  # fmt: skip


def test_a_path_inside_the_modules_directory_is_fine(tmp_path: Path) -> None:
    polite = type(
        "Inside",
        (Intent,),
        {"__doc__": "The text is polite.", "examples_file": "data/./x/../polite.json",
         "__module__": __name__},
    )  # fmt: skip
    assert examples_path(polite) == Path(__file__).parent / "data" / "polite.json"


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (codecs.BOM_UTF8 + b'{"examples": ["hi"], "counterexamples": ["go away"]}', None),
        ('{"examples": ["caf\xe9"]}'.encode("latin-1"), "is not UTF-8 text (byte 0xe9"),
        (b"[" * 100_000, "nests arrays or objects deeper than can be read"),
        (b'{"examples": [', "not JSON"),
    ],
    ids=["a BOM", "latin-1", "nested", "truncated"],
)
def test_the_examples_file_is_read_as_a_person_saved_it(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    data: bytes,
    expected: str | None,
) -> None:
    (tmp_path / "polite.json").write_bytes(data)
    module = f"saved_{abs(hash(str(tmp_path)))}"
    (tmp_path / f"{module}.py").write_text(
        MODULE.format(extra='    examples_file = "polite.json"'), encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        if expected is None:
            polite = importlib.import_module(module).Polite
            assert (polite.examples, polite.counterexamples) == (("hi",), ("go away",))
        else:
            with pytest.raises(ConfigurationError, match=re.escape(expected)) as caught:
                importlib.import_module(module)
            assert str(tmp_path / "polite.json") in str(caught.value)
    finally:
        sys.modules.pop(module, None)


def test_concurrent_forced_writes_leave_one_whole_file(tmp_path: Path) -> None:
    # 8 writers of the reviewed file at once (--force in 8 terminals): a reader and the final file
    # only ever see one writer's whole JSON.
    path = tmp_path / "examples" / "Polite.json"
    payloads = [
        {"examples": [f"writer {n} " + "x" * 4000 * (n + 1)], "counterexamples": ["no"]}
        for n in range(8)
    ]
    expected = [json.dumps(p, indent=2, ensure_ascii=False) + "\n" for p in payloads]
    write_file(path, payloads[0])
    seen: set[str] = set()
    done = threading.Event()

    def read() -> None:
        while not done.is_set():
            seen.add(path.read_text(encoding="utf-8"))

    def write(n: int) -> None:
        for _ in range(10):
            write_file(path, payloads[n], force=True)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
    reader = threading.Thread(target=read)
    reader.start()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    done.set()
    reader.join()
    assert seen <= set(expected)
    assert path.read_text(encoding="utf-8") in expected
