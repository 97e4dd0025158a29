"""What a pytest session's reports need from the run around them: the run's id and this
machine's shard (``meta.run_id``, ``meta.shard``, which `semantix report merge` checks), a path of
its own for every report (never the baseline's), and failures' text masked of the run's secrets.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from semantix import _config as config
from semantix._text import mask_secrets, usable_secrets
from semantix.pytest._settings import Settings

__all__ = ["mask_report", "refuse_writing_over_an_input", "run_id", "shard_option"]


def run_id(pytest_config: pytest.Config) -> str:
    """The id every shard of one run shares: ``--semantic-run-id`` (where the option exists),
    else `semantix._config.run_id` (``SEMANTIX_RUN_ID``, the CI's run, a new id)."""
    return str(pytest_config.getoption("semantic_run_id", None) or config.run_id())


def shard_option(config: pytest.Config) -> str | None:
    """``i/N`` when this session is shard i of N (``--semantic-shard``), else None."""
    value = config.getoption("semantic_shard", None)
    return None if value is None else str(value)


def refuse_writing_over_an_input(settings: Settings, config: pytest.Config) -> None:
    """Each report goes to a file of its own: never the baseline's (the run would replace what
    it is compared with), never another report's (JSON, HTML, pytest's JUnit XML)."""
    junit = config.getoption("xmlpath", None)
    paths = {
        "--semantic-baseline": settings.baseline,
        "--semantic-report-json": settings.report_json,
        "--semantic-report-html": settings.report_html,
        "--junitxml": None if not junit else Path(junit),
    }
    owners: dict[Path, str] = {}
    for option, path in paths.items():
        if path is None:
            continue
        other = owners.setdefault(path.resolve(), option)
        if other != option:
            what = "the report it is compared with" if other == "--semantic-baseline" else other
            raise pytest.UsageError(
                f"{option} {str(path)!r} is the {other} file: the run would overwrite {what}; "
                "give each report a path of its own (e.g. reports/branch.json)"
            )


def mask_report(report: pytest.TestReport) -> None:
    """A failure's text (the terminal, JUnit's message) with the run's known secrets masked:
    an API key echoed in a judge's error never leaves the process."""
    if not report.failed or report.longrepr is None:
        return
    secrets = usable_secrets(config.api_keys())
    text = str(report.longrepr)
    if any(secret in text for secret in secrets):
        report.longrepr = mask_secrets(text, secrets)
