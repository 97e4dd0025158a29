"""The plugin's options and ini keys: declared in one table, read once per session.

Every ``--semantic-*`` option that takes a value has an ini key of the same name without the
dashes; the command line wins over the ini file. `read_settings` checks every value once, at
``pytest_configure``, and a bad one is a ``pytest.UsageError`` that names where it came from (the
option or the ini key) and shows a good value in the same form.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TypeVar

import pytest

from semantix import _config as semantix_config
from semantix._files import read_text
from semantix.errors import SemantixError

if TYPE_CHECKING:  # each imported where its option is given, not at pytest's start-up
    from semantix._proportions import JudgeAccuracy

__all__ = ["OPTIONS", "Option", "Settings", "add_options", "read_settings"]

N = TypeVar("N", int, float)


# The plugin's records are NamedTuples, not frozen dataclasses: every pytest run of every project
# that installs semantix imports this package, and a frozen dataclass compiles its methods at
# import (about 0.6 ms each on Python 3.11, a NamedTuple 0.1 ms; scripts/bench's pytest line).
class Option(NamedTuple):
    """One ``--semantic-*`` option: ``metavar`` None makes it a flag; ``ini`` is the ini key's
    help (None: no ini key); ``negation`` the help of its ``--no-...`` form; ``cli`` False makes
    it an ini key only."""

    name: str
    help: str
    metavar: str | None = None
    ini: str | None = None
    negation: str | None = None
    cli: bool = True

    @property
    def dest(self) -> str:
        return self.name.replace("-", "_")

    @property
    def flag(self) -> str:
        return f"--{self.name}"


OPTIONS = (
    Option(
        "semantic-judge",
        "default judge for the run: quantized, nli, embedding, llm, tei or module:attr "
        "(built on first use). Never overrides thresholds written on intents.",
        metavar="SPEC",
        ini="default judge for the run (see --semantic-judge)",
    ),
    Option(
        "semantic-verdicts",
        "frozen verdict store mode for every judge in the run: off, replay, update or strict",
        metavar="MODE",
        ini="frozen verdict store mode (see --semantic-verdicts)",
    ),
    Option(
        "semantic-verdicts-path",
        "the frozen verdict store directory (default: SEMANTIX_VERDICTS_PATH, else "
        ".semantix/verdicts in the rootdir, wherever pytest is started)",
        metavar="DIR",
        ini="the frozen verdict store directory, relative to this file (see "
        "--semantic-verdicts-path)",
    ),
    Option(
        "semantic-verdicts-prune",
        "after a passing run, delete the frozen verdicts no test used",
    ),
    Option(
        "semantic-timeout",
        "seconds one semantic assertion may wait for its judge (JudgeTimeoutError after)",
        metavar="SECONDS",
        ini="seconds an assertion may wait (see --semantic-timeout)",
    ),
    Option(
        "semantic-runs",
        "run every test that makes a semantic assertion N times and hold it to its floor "
        "(@pytest.mark.semantic(min_pass_rate=...), default 1.0); a marker's runs= wins",
        metavar="N",
        ini="repeat tests that make semantic assertions (see --semantic-runs)",
    ),
    Option(
        "semantic-snapshot-update",
        "record missing semantic snapshots, rewrite drifted ones and delete unused ones "
        "(never where CI is set: there a missing snapshot always fails)",
    ),
    Option(
        "semantic-report",
        "print a table of every semantic assertion at the end of the session",
        ini="print the semantic report: true/false (see --semantic-report)",
        negation="do not print the semantic report (overrides semantic_report = true)",
    ),
    Option(
        "semantic-report-json",
        "write every semantic assertion as JSON to PATH",
        metavar="PATH",
        ini="write the semantic report as JSON to this path",
    ),
    Option(
        "semantic-judge-prices",
        'a JSON file of LLM judge prices, {"model": [usd_per_1M_input, usd_per_1M_output]}: '
        "the report shows what judging cost, apart from the system's",
        metavar="PATH",
        ini="the JSON file of LLM judge prices (see --semantic-judge-prices)",
    ),
    Option(
        "semantic-baseline",
        "compare this run with a baseline's JSON report (--semantic-report-json of another run): "
        "mark each regression and print the compare summary; the JSON report records the flips",
        metavar="PATH",
        ini="the baseline's JSON report to compare the run with (see --semantic-baseline)",
    ),
    Option(
        "semantic-judge-accuracy",
        "the judge's sensitivity and specificity against human labels (semantix calibrate "
        "prints them), optionally with the counts they were measured on: repeated tests report "
        "their pass rate corrected for the judge's errors beside the observed one",
        metavar="SE,SP[,POS,NEG]",
        ini="the judge's sensitivity,specificity[,positives,negatives] (see "
        "--semantic-judge-accuracy)",
    ),
    Option(
        "semantic-report-html",
        "write the run's semantic report as one self-contained HTML page to PATH",
        metavar="PATH",
        ini="write the semantic report as an HTML page to this path",
    ),
    Option(
        "semantic-shard",
        "run only shard I of N of the collected tests (a stable hash of each test id), e.g. 2/8 "
        "on the second of 8 CI machines",
        metavar="I/N",
    ),
    # pytest-semantic's ini keys, read by the semantic_matcher fixture (no command-line form).
    Option(
        "semantic-threshold",
        "",
        ini="semantic_matcher: how much more similar to the valid examples than to the invalid "
        "ones a response must be (default 0.15)",
        cli=False,
    ),
    Option(
        "semantic-min-similarity",
        "",
        ini="semantic_matcher: the least mean similarity to the valid examples (default 0.5)",
        cli=False,
    ),
    Option(
        "semantic-model",
        "",
        ini="semantic_matcher: the embedding model (a directory relative to this file, a "
        "registered name or a Hugging Face repo id; default all-MiniLM-L6-v2)",
        cli=False,
    ),
)


def add_options(parser: pytest.Parser) -> None:
    """Every option of `OPTIONS` in semantix's group, and its ini key."""
    group = parser.getgroup("semantix", "semantic assertions (semantix)")
    for option in OPTIONS:
        if option.cli:
            _add_command_line(group, option)
        if option.ini is not None:
            parser.addini(option.dest, option.ini)


def _add_command_line(group: pytest.OptionGroup, option: Option) -> None:
    if option.metavar is not None:
        group.addoption(
            option.flag, dest=option.dest, default=None, metavar=option.metavar, help=option.help
        )
        return
    # A flag with an ini key keeps None as "not given", so the ini key can decide.
    default = None if option.ini is not None else False
    group.addoption(
        option.flag, dest=option.dest, action="store_true", default=default, help=option.help
    )
    if option.negation is not None:
        group.addoption(
            f"--no-{option.name}",
            dest=option.dest,
            action="store_false",
            default=default,
            help=option.negation,
        )


class Settings(NamedTuple):
    """The session's options, checked. None: not given (the library's default holds)."""

    judge: str | None = None
    verdicts_mode: str | None = None
    verdicts_path: Path | None = None
    #: The rootdir (the ini file's directory): where the default verdict store is.
    root: Path | None = None
    timeout: float | None = None
    runs: int | None = None
    report: bool = False
    report_json: Path | None = None
    report_html: Path | None = None
    verdicts_prune: bool = False
    snapshot_update: bool = False
    #: USD per million input and output tokens, per LLM judge model (--semantic-judge-prices).
    judge_prices: dict[str, tuple[float, ...]] | None = None
    baseline: Path | None = None
    judge_accuracy: JudgeAccuracy | None = None
    #: The semantic_matcher fixture's defaults (pytest-semantic's ini keys).
    matcher_threshold: float = 0.15
    matcher_min_similarity: float = 0.5
    matcher_model: str | None = None


class _Given(NamedTuple):
    """A value as the user wrote it, and where: the command line or the ini file."""

    option: Option
    text: str
    from_ini: bool

    @property
    def source(self) -> str:
        return f"ini option {self.option.dest}" if self.from_ini else self.option.flag

    def shown(self) -> str:
        return f"{self.source} = {self.text!r}" if self.from_ini else f"{self.source} {self.text!r}"

    def example(self, value: str) -> str:
        return f"{self.option.dest} = {value}" if self.from_ini else f"{self.option.flag} {value}"

    def error(self, expected: str, example: str) -> pytest.UsageError:
        return pytest.UsageError(
            f"{self.shown()} is not {expected}; write e.g. {self.example(example)}"
        )

    def base(self, config: pytest.Config) -> Path:
        """What a relative path is relative to: the ini file's directory (else the rootdir) for
        an ini value, the directory pytest was started in for a command-line value."""
        return _ini_base(config) if self.from_ini else config.invocation_params.dir

    def path(self, config: pytest.Config, text: str | None = None) -> Path:
        """``text`` (default: the value) as an absolute path (`base`; ``~`` expanded)."""
        return Path(
            self.base(config), Path(self.text if text is None else text).expanduser()
        ).resolve()

    def local_model(self, config: pytest.Config, model: str) -> Path | None:
        """``model`` as an absolute directory when it is one, or reads as a path
        (`semantix.models._api.path_reason`: the judge then says it is missing); else None."""
        from semantix.models._api import path_reason

        directory = self.path(config, model)
        local = directory.is_dir() or path_reason(model, self.base(config)) is not None
        return directory if local else None


def _ini_base(config: pytest.Config) -> Path:
    return config.inipath.parent if config.inipath is not None else config.rootpath


_BY_DEST = {option.dest: option for option in OPTIONS}


def _given(config: pytest.Config, dest: str) -> _Given | None:
    """The command-line value if given, else the ini value, else None."""
    option = _BY_DEST[dest]
    value = config.getoption(dest) if option.cli else None
    if value is not None:
        return _Given(option, str(value), from_ini=False)
    if option.ini is None:
        return None
    ini = config.getini(dest)
    if isinstance(ini, str) and ini.strip():
        return _Given(option, ini.strip(), from_ini=True)
    return None


def read_settings(config: pytest.Config) -> Settings:
    """Every option of the session, checked once (a bad one is a ``pytest.UsageError``)."""
    try:
        return Settings(
            judge=_judge(config, _given(config, "semantic_judge")),
            verdicts_mode=_verdicts_mode(_given(config, "semantic_verdicts")),
            # None: SEMANTIX_VERDICTS_PATH, else .semantix/verdicts in the rootdir (`root`), so
            # ``cd tests && pytest`` finds the same store.
            verdicts_path=_path(config, "semantic_verdicts_path"),
            root=_ini_base(config),
            timeout=_number(
                _given(config, "semantic_timeout"),
                float,
                "a positive number of seconds",
                "30",
                low=0,
                above=True,
            ),
            runs=_number(
                _given(config, "semantic_runs"), int, "a number of runs (a whole number >= 1)", "5"
            ),
            report=_flag(config, "semantic_report"),
            report_json=_path(config, "semantic_report_json"),
            report_html=_path(config, "semantic_report_html"),
            verdicts_prune=bool(config.getoption("semantic_verdicts_prune")),
            snapshot_update=bool(config.getoption("semantic_snapshot_update")),
            judge_prices=_prices(config, "semantic_judge_prices"),
            baseline=_path(config, "semantic_baseline"),
            judge_accuracy=_judge_accuracy(_given(config, "semantic_judge_accuracy")),
            matcher_threshold=_fraction(_given(config, "semantic_threshold"), 0.15),
            matcher_min_similarity=_fraction(_given(config, "semantic_min_similarity"), 0.5),
            matcher_model=_model(config, _given(config, "semantic_model")),
        )
    except SemantixError as exc:  # a check of the library: it already names the value
        raise pytest.UsageError(str(exc)) from None


def _judge(config: pytest.Config, given: _Given | None) -> str | None:
    """The judge spec, a model in it that is a local directory (``embedding:models/minilm``)
    made absolute (`_Given.path`): never taken for a Hugging Face repo id."""
    if given is None:
        return None
    from semantix.pipeline._specs import check_spec, parse_spec

    spec = check_spec(given.text, source=given.source)
    parsed = parse_spec(spec, source=given.source)
    if parsed.name is None or parsed.model is None:
        return spec
    directory = given.local_model(config, parsed.model)
    return spec if directory is None else f"{parsed.name}:{directory}"


def _verdicts_mode(given: _Given | None) -> str | None:
    if given is None:
        return semantix_config.verdicts_mode()  # SEMANTIX_VERDICTS, checked there
    return semantix_config.check_verdict_mode(given.text, source=given.source)


def _number(
    given: _Given | None,
    kind: Callable[[str], N],
    expected: str,
    example: str,
    *,
    low: float = 1,
    high: float = math.inf,
    above: bool = False,
) -> N | None:
    """``given`` as a ``kind`` in [low, high] (``above``: and not ``low``), else a usage error."""
    if given is None:
        return None
    try:
        value = kind(given.text)
    except ValueError:
        raise given.error(expected, example) from None
    if not semantix_config.is_number(value, low=low, high=high) or (above and value == low):
        raise given.error(expected, example)
    return value


def _judge_accuracy(given: _Given | None) -> JudgeAccuracy | None:
    if given is None:
        return None
    from semantix._proportions import JudgeAccuracy

    parts = given.text.split(",")
    try:
        return JudgeAccuracy.of([float(part) for part in parts[:2]] + [int(p) for p in parts[2:]])
    except (TypeError, ValueError) as exc:
        raise given.error(
            "sensitivity,specificity (each in [0, 1], adding up to more than 1), optionally "
            f"with the counts of outputs labelled to pass and to fail ({exc})",
            "0.92,0.95 (or 0.92,0.95,50,40)",
        ) from None


def _fraction(given: _Given | None, default: float) -> float:
    value = _number(given, float, "a number in [0, 1]", str(default), low=0, high=1)
    return default if value is None else value


def _model(config: pytest.Config, given: _Given | None) -> str | None:
    """A model name, repo id or directory; a directory relative to the ini file, as paths are
    (one that reads as a path, `semantix.models._api.path_reason`, even when it is not there: the
    judge then says so)."""
    if given is None:
        return None
    directory = given.local_model(config, given.text)
    return given.text if directory is None else str(directory)


def _flag(config: pytest.Config, dest: str) -> bool:
    """A flag: the command line (``--x`` / ``--no-x``), else its ini key by `parse_flag`."""
    given = _given(config, dest)
    if given is None:
        return False
    if not given.from_ini:
        return bool(config.getoption(dest))
    flag = semantix_config.parse_flag(given.text)
    if flag is None:
        raise given.error("a boolean", "true (or false)")
    return flag


def _prices(config: pytest.Config, dest: str) -> dict[str, tuple[float, ...]] | None:
    """The judge prices file, read and checked (its errors name the file)."""
    path = _path(config, dest)
    if path is None:
        return None
    try:
        data = json.loads(read_text(path, what="the judge prices file"))
    except (OSError, ValueError) as exc:
        raise pytest.UsageError(
            f"--semantic-judge-prices {str(path)!r} cannot be read as JSON ({exc}); write e.g. "
            '{"gpt-4o-mini": [0.15, 0.6]} (USD per million input and output tokens)'
        ) from None
    from semantix.checks._budget import check_prices

    try:
        return check_prices(data, what=f"the judge prices in {path}")
    except (TypeError, ValueError) as exc:
        raise pytest.UsageError(str(exc)) from None


def _path(config: pytest.Config, dest: str) -> Path | None:
    """A path: the option's relative to the current directory, the ini key's to the ini file."""
    given = _given(config, dest)
    return None if given is None else given.path(config)
