"""docs/ci.md's GitHub Actions workflow: the YAML parses, and each ``pytest`` and ``semantix``
command in it is one the page documents, with options the commands accept."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml

from semantix.cli._api import build_parser

PAGE = Path(__file__).resolve().parent.parent / "docs" / "ci.md"


def block(language: str) -> str:
    found = re.search(rf"```{language}\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.DOTALL)
    assert found is not None, f"docs/ci.md has no {language} block"
    return found.group(1)


def workflow() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(block("yaml"))
    return loaded


def commands(program: str) -> list[list[str]]:
    """The workflow's command lines that start with ``program``, GitHub expressions replaced
    by a value (the matrix's shard number, else a word)."""
    found = []
    for job in workflow()["jobs"].values():
        for step in job["steps"]:
            for line in str(step.get("run", "")).splitlines():
                line = line.replace("${{ matrix.shard }}", "1")
                line = re.sub(r"\$\{\{[^}]*\}\}", "X", line)
                if line.strip().startswith(f"{program} "):
                    found.append(shlex.split(line))
    return found


def documented_options() -> set[str]:
    return set(re.findall(r"--[a-z][a-z-]+", block("bash")))


def test_the_workflow_parses_with_shards_merge_compare_and_comment() -> None:
    jobs = workflow()["jobs"]
    assert jobs["shard"]["strategy"]["matrix"]["shard"] == [1, 2, 3, 4]
    assert jobs["report"]["needs"] == "shard"
    run = "\n".join(str(step.get("run", "")) for step in jobs["report"]["steps"])
    assert "<!-- semantix-compare -->" in run  # the comment is found by the marker
    assert [c[:3] for c in commands("semantix")] == [
        ["semantix", "report", "merge"],
        ["semantix", "compare", "main/branch.json"],
    ]


def test_every_semantix_command_is_accepted_and_documented() -> None:
    parser = build_parser()
    for argv in commands("semantix"):
        args = parser.parse_args(argv[1:])  # SystemExit on an unknown option
        assert args.command in block("bash")
        used = {word.split("=")[0] for word in argv if word.startswith("--")}
        assert used <= documented_options(), f"{argv}: undocumented {used - documented_options()}"


def test_every_pytest_command_is_accepted_and_documented(pytester: pytest.Pytester) -> None:
    (pytest_command,) = commands("pytest")
    used = {word for word in pytest_command if word.startswith("--")}
    assert used == {"--semantic-shard", "--semantic-report-json"} <= documented_options()
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    result = pytester.runpytest("-p", "no:asyncio", *pytest_command[1:])
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED)
    assert (pytester.path / "shard-1.json").exists()
