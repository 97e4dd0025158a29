"""Settings: every environment variable semantix reads, and the checks of user-given values.

No other module reads ``os.environ``: each asks a function here when the value matters, never at
import time. ``VARIABLES`` lists every variable (docs/environment-variables.md is tested on it).
"""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING, Literal, NamedTuple, TypeGuard

from semantix.errors import ConfigurationError

if TYPE_CHECKING:
    from pathlib import Path

    #: The frozen-verdict store, relative to the current directory, when nothing else says
    #: where (made on first use, as every Path here: pathlib is a tenth of import semantix).
    DEFAULT_VERDICTS_PATH: Path

__all__ = [
    "DEFAULT_VERDICTS_PATH",
    "VARIABLES",
    "VERDICT_MODES",
    "Variable",
    "available_cores",
    "cache_path",
    "check_positive_int",
    "check_seconds",
    "check_threshold",
    "check_verdict_mode",
    "default_threads",
    "env",
    "github_step_summary",
    "hf_cache_dir",
    "hf_endpoint",
    "hf_offline",
    "in_ci",
    "is_number",
    "judge_spec",
    "model_dir",
    "openai_api_key",
    "openai_base_url",
    "ort_cache_enabled",
    "parse_flag",
    "verdicts_mode",
    "verdicts_path",
]

ModelKind = Literal["nli", "embedding"]

#: The frozen-verdict modes (``SEMANTIX_VERDICTS``, ``--semantic-verdicts``, ``mode=``).
VERDICT_MODES: tuple[str, ...] = ("off", "replay", "update", "strict")

_TRUE = frozenset({"1", "on", "yes", "true"})
_FALSE = frozenset({"0", "off", "no", "false"})


class Variable(NamedTuple):
    """One environment variable semantix reads (a tuple: no dataclasses at import)."""

    name: str
    section: str
    default: str
    meaning: str


VARIABLES: tuple[Variable, ...] = (
    Variable("SEMANTIX_JUDGE", "semantix", "`quantized`", "the default judge"),
    Variable("SEMANTIX_THREADS", "semantix", "cores ÷ xdist workers", "threads per session"),
    Variable("SEMANTIX_CACHE_PATH", "semantix", "user cache dir", "semantix's own cache"),
    Variable("SEMANTIX_ORT_CACHE", "semantix", "on", "cache optimized ONNX sessions"),
    Variable("SEMANTIX_MODEL_DIR", "semantix", "unset", "local default NLI model"),
    Variable("SEMANTIX_EMBEDDING_MODEL_DIR", "semantix", "unset", "local embedding model"),
    Variable("SEMANTIX_VERDICTS", "semantix", "`off`", "frozen-verdict mode"),
    Variable("SEMANTIX_VERDICTS_PATH", "semantix", "`.semantix/verdicts`", "verdict store"),
    Variable("HF_HOME", "Hugging Face", "`~/.cache/huggingface`", "Hugging Face home"),
    Variable("HF_HUB_CACHE", "Hugging Face", "`$HF_HOME/hub`", "model cache directory"),
    Variable("HF_HUB_OFFLINE", "Hugging Face", "unset", "never touch the network"),
    Variable("HF_ENDPOINT", "Hugging Face", "`https://huggingface.co`", "hub mirror"),
    Variable("OPENAI_API_KEY", "OpenAI", "unset", "the LLM judge's API key"),
    Variable("OPENAI_BASE_URL", "OpenAI", "unset", "an OpenAI-compatible server"),
    Variable(
        "ANTHROPIC_API_KEY", "Anthropic", "unset", "masked wherever semantix shows or stores text"
    ),
    Variable("PYTEST_XDIST_WORKER_COUNT", "pytest", "unset", "set by pytest-xdist"),
    Variable("CI", "CI", "unset", "set by CI services: no new snapshots"),
    Variable("GITHUB_STEP_SUMMARY", "CI", "unset", "GitHub Actions' step summary file"),
    Variable("RAY_ADDRESS", "Ray", "unset: a local Ray", "the Ray cluster of `eval --engine ray`"),
    Variable("SEMANTIX_RUN_ID", "semantix", "the CI's run, else a new id", "a run's shards' id"),
    Variable("GITHUB_RUN_ID", "CI", "unset", "GitHub Actions' run"),
    Variable("GITHUB_RUN_ATTEMPT", "CI", "unset", "GitHub Actions' attempt"),
    Variable("CI_PIPELINE_ID", "CI", "unset", "GitLab's pipeline"),
    Variable("XDG_CACHE_HOME", "system", "`~/.cache`", "the user cache directory"),
)

_NAMES = frozenset(variable.name for variable in VARIABLES)


def env(name: str) -> str | None:
    """The value of a variable in `VARIABLES`, stripped; None when unset or blank."""
    if name not in _NAMES:
        raise KeyError(f"{name} is not a semantix variable; add it to semantix._config.VARIABLES")
    value = os.environ.get(name, "").strip()
    return value or None


def parse_flag(value: str) -> bool | None:
    """``value`` as a yes/no setting (1/0, true/false, on/off, yes/no, any case); None when it
    is none of them. The one rule for every boolean we read (variables, ini keys)."""
    lowered = value.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    return None


def _flag(name: str, *, default: bool) -> bool:
    value = env(name)
    flag = default if value is None else parse_flag(value)
    if flag is None:
        raise ConfigurationError(
            f"{name}={value!r} is not a yes/no value; use one of 1, 0, true, false, on, off"
        )
    return flag


def judge_spec() -> str | None:
    """``SEMANTIX_JUDGE``: the default judge's spec, or None for the built-in default."""
    return env("SEMANTIX_JUDGE")


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity), not the machine's total."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def default_threads() -> int:
    """Threads for one model session: ``SEMANTIX_THREADS``, else the available cores divided
    among pytest-xdist workers, at least 1 (``-n 2`` on two cores runs two busy threads, not 4)."""
    configured = env("SEMANTIX_THREADS")
    if configured is not None:
        try:
            threads = int(configured)
        except ValueError:
            threads = 0
        if threads < 1:
            raise ConfigurationError(
                f"SEMANTIX_THREADS must be a positive integer, got {configured!r}; "
                "unset it to use the available cores"
            )
        return threads
    workers = env("PYTEST_XDIST_WORKER_COUNT") or ""  # 1 outside xdist
    return max(1, available_cores() // (max(1, int(workers)) if workers.isdigit() else 1))


def cache_path() -> Path:
    """semantix's own cache (optimized ONNX sessions): ``SEMANTIX_CACHE_PATH``, else the user
    cache dir (``$XDG_CACHE_HOME/semantix`` or ``~/.cache/semantix``), never a temporary one."""
    configured = env("SEMANTIX_CACHE_PATH")
    return _path(configured) if configured else _user_cache() / "semantix"


def _user_cache() -> Path:
    return _path(env("XDG_CACHE_HOME") or "~/.cache")


def ort_cache_enabled() -> bool:
    """``SEMANTIX_ORT_CACHE``: whether optimized ONNX sessions are cached on disk (default on)."""
    return _flag("SEMANTIX_ORT_CACHE", default=True)


MODEL_DIR_VARIABLES = {"nli": "SEMANTIX_MODEL_DIR", "embedding": "SEMANTIX_EMBEDDING_MODEL_DIR"}


def model_dir(kind: ModelKind) -> Path | None:
    """The local directory configured for the default model of ``kind``, or None."""
    configured = env(MODEL_DIR_VARIABLES[kind])
    return _path(configured) if configured else None


def check_verdict_mode(value: object, *, source: str) -> str:
    """``value`` as a frozen-verdict mode (lower-cased), or a ConfigurationError naming
    ``source`` (e.g. ``"SEMANTIX_VERDICTS"``, ``"mode"``)."""
    if not isinstance(value, str) or value.strip().lower() not in VERDICT_MODES:
        raise ConfigurationError(
            f"{source}={value!r} is not a frozen-verdict mode; use one of "
            f"{', '.join(VERDICT_MODES)}"
        )
    return value.strip().lower()


def verdicts_mode() -> str | None:
    """``SEMANTIX_VERDICTS``, lower-cased and checked; None when unset."""
    configured = env("SEMANTIX_VERDICTS")
    if configured is None:
        return None
    return check_verdict_mode(configured, source="SEMANTIX_VERDICTS")


def verdicts_path(path: str | os.PathLike[str] | None = None, *, root: Path | None = None) -> Path:
    """The frozen-verdict store: ``path`` if given, else ``SEMANTIX_VERDICTS_PATH``, else
    `DEFAULT_VERDICTS_PATH` in ``root`` (a pytest run's rootdir); ``~`` expanded, made absolute
    against the current directory."""
    default = __getattr__("DEFAULT_VERDICTS_PATH")
    chosen = (
        path
        if path is not None
        else env("SEMANTIX_VERDICTS_PATH") or (default if root is None else root / default)
    )
    return _path(chosen).absolute()


def hf_cache_dir() -> Path:
    """The Hugging Face hub cache (``HF_HUB_CACHE``, else ``$HF_HOME/hub``)."""
    configured = env("HF_HUB_CACHE")
    if configured:
        return _path(configured)
    return _path(env("HF_HOME") or _user_cache() / "huggingface") / "hub"


def hf_offline() -> bool:
    """``HF_HUB_OFFLINE``: never touch the network (a yes/no value, `parse_flag`)."""
    return _flag("HF_HUB_OFFLINE", default=False)


def hf_endpoint() -> str:
    """``HF_ENDPOINT``, else the public hub."""
    return env("HF_ENDPOINT") or "https://huggingface.co"


def openai_base_url() -> str | None:
    """``OPENAI_BASE_URL``: an OpenAI-compatible server, or None for OpenAI itself."""
    return env("OPENAI_BASE_URL")


def openai_api_key() -> str | None:
    """``OPENAI_API_KEY``, or None."""
    return env("OPENAI_API_KEY")


def api_keys() -> tuple[str | None, ...]:
    """The API keys the run knows (``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``; None where
    unset): masked in every error, message, report and stored verdict semantix writes."""
    return openai_api_key(), env("ANTHROPIC_API_KEY")


def run_id() -> str:
    """The id every shard of one run shares: ``SEMANTIX_RUN_ID``, else the CI's run (GitHub
    Actions: run id and attempt; GitLab: the pipeline), else a new one (a run on one machine)."""
    given, github, gitlab = env("SEMANTIX_RUN_ID"), env("GITHUB_RUN_ID"), env("CI_PIPELINE_ID")
    if given:
        return given
    if github:
        return f"github-{github}-{env('GITHUB_RUN_ATTEMPT') or '1'}"
    if gitlab:
        return f"gitlab-{gitlab}"
    import uuid  # a run of one machine: made when its report is written

    return uuid.uuid4().hex


def ray_address() -> str | None:
    """``RAY_ADDRESS``: the cluster ``semantix eval --engine ray`` joins (None: a local Ray)."""
    return env("RAY_ADDRESS")


def in_ci() -> bool:
    """Whether a CI service runs us (``CI`` set to anything but a false value)."""
    value = env("CI")
    return value is not None and value.lower() not in _FALSE


def github_step_summary() -> Path | None:
    """GitHub Actions' step-summary file, when set."""
    configured = env("GITHUB_STEP_SUMMARY")
    return _path(configured) if configured else None


def is_number(
    value: object, *, low: float = -math.inf, high: float = math.inf
) -> TypeGuard[int | float]:
    """Whether ``value`` is a finite int or float (not a bool) in [low, high]."""
    return (
        not isinstance(value, bool)
        and isinstance(value, (int, float))
        and math.isfinite(value)
        and low <= value <= high
    )


def check_threshold(
    value: object, *, what: str = "threshold", example: str = "threshold=0.8"
) -> float:
    """``value`` as a float in [0, 1], or a ``ValueError`` that names it and suggests
    ``example`` (``min_pass_rate=0.8`` for a floor)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        # A ValueError, not TypeError: the documented contract for every invalid threshold.
        raise ValueError(  # noqa: TRY004
            f"{what} must be a number between 0 and 1, got {value!r} "
            f"({type(value).__name__}); pass e.g. {example}"
        )
    number = float(value)
    if math.isnan(number) or not 0.0 <= number <= 1.0:
        raise ValueError(
            f"{what} must be between 0 and 1 inclusive, got {value!r}; pass e.g. {example}"
        )
    return number


def check_positive_int(value: object, *, what: str, example: int, optional: bool = False) -> None:
    """Raise a ``ConfigurationError`` unless ``value`` is a positive int (or None if optional)."""
    if optional and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        allowed = " or None (all available cores)" if optional else ""
        raise ConfigurationError(
            f"{what} must be a positive int{allowed}, got {value!r}; pass e.g. {what}={example}"
        )


def check_seconds(value: object, *, what: str = "timeout") -> float | None:
    """Return ``value`` as a positive, finite number of seconds (None passes), else ValueError."""
    if value is None:
        return None
    if not is_number(value, low=0.0) or value == 0:
        raise ValueError(
            f"{what} must be a positive number of seconds, got {value!r}; pass e.g. "
            f"{what}=30, or None for no limit"
        )
    return float(value)


def _path(value: str | os.PathLike[str]) -> Path:
    """``value`` as a `pathlib.Path`, ``~`` expanded."""
    from pathlib import Path

    return Path(value).expanduser()


def __getattr__(name: str) -> Path:
    if name == "DEFAULT_VERDICTS_PATH":  # made once, on first use
        default = globals().get(name)
        if default is None:
            default = globals()[name] = _path(".semantix") / "verdicts"
        return default
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
