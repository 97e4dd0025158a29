"""The semantix pytest plugin, registered through the ``pytest11`` entry point: hooks and fixtures.

```python
def test_reply_is_polite(semantic):
    semantic("Thank you for your patience.", "The text is polite.")
```

Every hook hands over to the session's one `semantix.pytest._session.SemanticSession`. Imported
by every pytest run where semantix is installed, so it imports nothing heavy.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Generator, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import pytest

from semantix import _compat as compat
from semantix.pytest._markers import MARKER_HELP
from semantix.pytest._session import PAYLOAD_KEY, SemanticSession
from semantix.pytest._settings import add_options, read_settings

if TYPE_CHECKING:  # the checks are imported when a test first uses a fixture, not at start-up
    from typing_extensions import Unpack

    from semantix._intent import IntentLike
    from semantix.agents._capture import CapturedSpans
    from semantix.judges._base import Judge
    from semantix.pipeline import CheckOptions
    from semantix.pipeline._results import SemanticResult
    from semantix.snapshots._fixture import SemanticSnapshot
    from semantix.testing import SemanticMatcher

__all__ = ["SemanticAssert"]


_SESSION = pytest.StashKey[SemanticSession]()


def _session(config: pytest.Config) -> SemanticSession:
    return config.stash[_SESSION]


# --- the session's life ----------------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    refuse_clashing_plugins()
    config.addinivalue_line("markers", MARKER_HELP)
    config.stash[_SESSION] = session = SemanticSession(config, read_settings(config))
    session.start()
    config.pluginmanager.register(session, "semantix-session")  # pytest_runtest_logreport
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_XdistController(session), "semantix-xdist")


#: Plugins that clash with semantix's, by distribution: what clashes, and what replaces theirs
#: (either way a check could silently do nothing).
CLASHING_PLUGINS = {
    "pytest-semantix": (
        (
            "it registers its pytest plugin under the same name as semantix's ('semantix'), "
            "with the same --semantic-report options and its own 'semantic' marker, so pytest "
            "loads only one of them and the other does nothing"
        ),
        "its assert_semantic fixture is semantix's 'semantic' fixture",
    ),
    "pytest-semantic": (
        (
            "it defines the semantic_matcher fixture and the semantic_threshold, "
            "semantic_min_similarity and semantic_model ini keys, as semantix does, so pytest "
            "would use one plugin's fixture without saying which"
        ),
        "semantix's semantic_matcher takes the same arguments",
    ),
}


def refuse_clashing_plugins() -> None:
    """A plugin of `CLASHING_PLUGINS` installed beside us is a usage error, at once."""
    found = compat.installed_beside_us(tuple(name.replace("-", "_") for name in CLASHING_PLUGINS))
    if found is not None:
        name = found[0].replace("_", "-")
        clash, instead = CLASHING_PLUGINS[name]
        raise pytest.UsageError(
            f"{name} is installed too ({found[1]}): {clash}. Keep one: pip uninstall -y {name} "
            f"({instead}; see docs/coming-from-semantix-ai.md)"
        )


def pytest_unconfigure(config: pytest.Config) -> None:
    session = config.stash.get(_SESSION, None)
    if session is not None:
        session.stop()
        del config.stash[_SESSION]


def pytest_report_header(config: pytest.Config) -> str | None:
    return _session(config).header()


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(
    config: pytest.Config, items: list[pytest.Item]
) -> Generator[None, None, None]:
    session = _session(config)
    session.collected(items)  # every test, for snapshots, before -k and friends deselect any
    result = yield
    session.select_shard(items)  # --semantic-shard: this machine's share, after every selection
    return result


# --- one test --------------------------------------------------------------------------------


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, object, object]:
    with _session(item.config).test(item):
        return (yield)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    _session(item.config).setup(item)


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    __tracebackhide__ = True
    return _session(pyfuncitem.config).runs.call(pyfuncitem)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    return _session(item.config).make_report(item, call, report)


# --- the end ---------------------------------------------------------------------------------


@pytest.hookimpl(tryfirst=True)
def pytest_assertrepr_compare(op: str, left: object, right: object) -> list[str] | None:
    """``assert semantic_snapshot == output`` that failed: the snapshot's whole explanation."""
    fixture = sys.modules.get("semantix.snapshots._fixture")  # none made: not a snapshot's
    if op != "==" or fixture is None:
        return None
    snapshot = left if isinstance(left, fixture.SemanticSnapshot) else right
    if not isinstance(snapshot, fixture.SemanticSnapshot) or snapshot.error is None:
        return None
    lines = str(snapshot.error).splitlines() or [""]
    return [f"{type(snapshot.error).__name__}: {lines[0]}", *lines[1:]]


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _session(session.config).finish(exitstatus)


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
) -> None:
    _session(config).summary(terminalreporter)


class _XdistController:
    """Registered only when pytest-xdist is installed (``pytest_testnodedown`` is its hook)."""

    def __init__(self, session: SemanticSession) -> None:
        self.session = session

    def pytest_testnodedown(self, node: Any, error: object) -> None:
        self.session.merge(getattr(node, "workeroutput", {}).get(PAYLOAD_KEY))


# --- fixtures --------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def semantic_judge(pytestconfig: pytest.Config) -> Judge:
    """The run's judge: ``--semantic-judge`` (through ``--semantic-verdicts``), else the default;
    built once per session (per xdist worker), never a test's marker's (``semantic.judge``)."""
    return _session(pytestconfig).run_judge()


@pytest.fixture
def semantic(request: pytest.FixtureRequest) -> SemanticAssert:
    """``semantic(output, intent)``: ``assert_semantic`` with this test's judge (the marker's,
    else the run's) and the marker's threshold in place of the judge's recommended one."""
    return SemanticAssert()


@pytest.fixture
def semantic_snapshot(request: pytest.FixtureRequest) -> SemanticSnapshot:
    """Semantic snapshots of this test: ``assert semantic_snapshot == output``, or
    ``semantic_snapshot(output, name=...)``. Judged with this test's judge and threshold."""
    return _session(request.config).snapshot(request)


@pytest.fixture
def semantic_trace() -> Iterator[CapturedSpans]:
    """The OpenTelemetry spans that end during the test, on the global tracer provider (an SDK
    one is set when none is): pass it to ``assert_semantic`` as the output. opentelemetry-sdk is
    imported only by a test that asks for it (`semantix.agents.capture_spans`)."""
    from semantix.agents._capture import capture_spans

    with capture_spans() as captured:
        yield captured


@pytest.fixture
def semantic_matcher(pytestconfig: pytest.Config) -> Callable[..., SemanticMatcher]:
    """pytest-semantic's factory of `semantix.testing.SemanticMatcher` (``threshold`` is its
    margin); what a call does not give comes from the ini keys ``semantic_threshold`` (0.15),
    ``semantic_min_similarity`` (0.5) and ``semantic_model``."""
    from semantix.testing import SemanticMatcher

    settings = _session(pytestconfig).settings

    def create(
        valid: Sequence[str],
        invalid: Sequence[str] | None = None,
        threshold: float | None = None,
        min_similarity: float | None = None,
        model_name: str | None = None,
        custom_embed_fn: Callable[[str], Sequence[float]] | None = None,
    ) -> SemanticMatcher:
        if model_name is None and custom_embed_fn is None:
            model_name = settings.matcher_model
        if min_similarity is None:
            min_similarity = settings.matcher_min_similarity
        margin = settings.matcher_threshold if threshold is None else threshold
        return SemanticMatcher(valid, invalid, margin, min_similarity, model_name, custom_embed_fn)

    return create


class SemanticAssert:
    """``assert_semantic`` for one test, with its judge (the marker's, else the run's): what the
    ``semantic`` fixture returns. ``semantic(output, intent)`` asserts, ``await
    semantic.aassert(...)`` too, ``semantic.evaluate(...)`` returns the result without raising;
    each takes the check's options (``judge`` overrides the test's)."""

    def __init__(self, judge: object = None) -> None:
        self._judge = judge

    @property
    def judge(self) -> Judge:
        """The judge the assertions of this test use."""
        from semantix.pipeline._judging import resolve_judge

        return resolve_judge(self._judge)

    def _options(self, options: dict[str, Any]) -> dict[str, Any]:
        return {"judge": self._judge, **options}

    def __call__(
        self, output: object, intent: IntentLike, **options: Unpack[CheckOptions]
    ) -> SemanticResult:
        __tracebackhide__ = True
        from semantix.pipeline import assert_semantic

        return assert_semantic(output, intent, **self._options(dict(options)))

    def evaluate(
        self, output: object, intent: IntentLike, **options: Unpack[CheckOptions]
    ) -> SemanticResult:
        """Judge without raising (and without recording: only assertions are recorded)."""
        from semantix.pipeline import evaluate_semantic

        return evaluate_semantic(output, intent, **self._options(dict(options)))

    async def aassert(
        self, output: object, intent: IntentLike, **options: Unpack[CheckOptions]
    ) -> SemanticResult:
        """``await semantic.aassert(output, intent)``: the assertion, awaitable (async tests)."""
        __tracebackhide__ = True
        from semantix.pipeline import aassert_semantic

        return await aassert_semantic(output, intent, **self._options(dict(options)))

    def __repr__(self) -> str:
        return f"<semantic judge={self._judge or 'the test default'!r}>"
