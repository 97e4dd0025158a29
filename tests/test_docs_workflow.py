"""The GitHub Actions workflow of docs/comparing-runs.md, parsed (issue 45, item 10): it installs
semantix from the checkout, a CPU torch before the extras, uploads every artifact it downloads,
and its semantix commands parse."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

from semantix.cli._api import build_parser

PAGE = Path(__file__).parent.parent / "docs" / "comparing-runs.md"


def _workflow() -> dict[str, Any]:
    import yaml

    blocks = re.findall(r"```yaml\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.DOTALL)
    assert len(blocks) == 1, "docs/comparing-runs.md should hold one workflow"
    loaded: dict[Any, Any] = yaml.safe_load(blocks[0])
    return loaded


def _steps(workflow: dict[str, Any]) -> list[dict[str, Any]]:
    return [step for job in workflow["jobs"].values() for step in job["steps"]]


def _commands(workflow: dict[str, Any]) -> list[str]:
    """Every shell command line of every ``run`` step."""
    lines = [line.strip() for s in _steps(workflow) for line in str(s.get("run", "")).splitlines()]
    return [line for line in lines if line]


def test_runs_on_main_and_on_pull_requests() -> None:
    workflow = _workflow()
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as True
    assert triggers["push"] == {"branches": ["main"]}
    assert "pull_request" in triggers


def test_installs_semantix_from_the_checkout_with_a_cpu_torch_first() -> None:
    workflow = _workflow()
    for name, job in workflow["jobs"].items():
        runs = [str(step.get("run", "")) for step in job["steps"]]
        installs = [run for run in runs if run.startswith("pip install")]
        assert installs, name
        assert not any("semantix-judge" in run for run in installs), "not on PyPI"
        assert all("-e '." in run or run.startswith("pip install torch") for run in installs)
        assert job["steps"][0] == {"uses": "actions/checkout@v4"}
        dev = [i for i, run in enumerate(runs) if "'.[dev]'" in run]
        if dev:
            torch = [i for i, run in enumerate(runs) if run.startswith("pip install torch")]
            assert torch and torch[0] < dev[0], "the CPU torch goes before the [dev] extras"
            assert runs[torch[0]].endswith("--index-url https://download.pytorch.org/whl/cpu")


def test_every_artifact_downloaded_is_uploaded() -> None:
    workflow = _workflow()
    uploaded = [
        step["with"]["name"]
        for step in _steps(workflow)
        if str(step.get("uses", "")).startswith("actions/upload-artifact")
    ]
    patterns = [
        step["with"]["pattern"]
        for step in _steps(workflow)
        if str(step.get("uses", "")).startswith("actions/download-artifact")
    ]
    gh_names = [
        words[words.index("--name") + 1]
        for words in map(shlex.split, _commands(workflow))
        if words[:3] == ["gh", "run", "download"]
    ]
    assert patterns == ["shard-*"] and gh_names == ["semantic-report"]
    assert "shard-${{ matrix.group }}" in uploaded and "semantic-report" in uploaded
    # The report a pull request downloads is the file the push to main uploaded.
    upload = next(s for s in _steps(workflow) if s.get("with", {}).get("name") == "semantic-report")
    assert upload["if"] == "github.event_name == 'push'" and upload["with"]["path"] == "main.json"


def test_its_semantix_commands_parse() -> None:
    parser = build_parser()
    commands = [
        shlex.split(line.split(">")[0])
        for line in _commands(_workflow())
        if line.startswith("semantix ")
    ]
    assert [words[1] for words in commands] == ["report", "compare", "compare"]
    for words in commands:
        args = parser.parse_args(words[1:])
        assert args.run is not None


def test_its_pytest_command_uses_options_that_exist() -> None:
    from semantix.pytest._settings import OPTIONS

    line = next(c for c in _commands(_workflow()) if c.startswith("pytest "))
    ours = [word for word in shlex.split(line) if word.startswith("--semantic")]
    assert ours == ["--semantic-report-json"]
    assert {f"--{option.name}" for option in OPTIONS} >= set(ours)
