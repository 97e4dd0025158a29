"""Run the Python examples of the documentation site, the README and a few module docstrings.

Rules for examples, in ``docs/**/*.md`` and ``README.md``:

- Every fenced ```` ```python ```` block runs, in order, in one namespace per page, with the
  default judge set to ``DocsJudge`` below (a keyword-matching stand-in for the NLI judge).
- A block preceded by a ``<!-- skip -->`` comment (``<!-- skip: reason -->``) does not run, nor
  does a block that builds a model-backed or server-backed judge (``QuantizedNLIJudge(``,
  ``NLIJudge(``, ``EmbeddingJudge(``, ``LLMJudge(``, ``OpenAI(``, ``download_model(``,
  ``export_model(``).
- A block that uses a name only a skipped block of the page defines is skipped too.
- ``#> text`` lines after a block's code are the output it must print, line for line.
- After a page's blocks ran, its ``unittest.TestCase`` classes and ``test_*`` functions run too
  (``semantic`` and ``semantic_judge`` arguments get what the pytest fixtures would give).

A description that DocsJudge has no keywords for is an error: add the keywords to
``DOC_KEYWORDS`` rather than weakening the example.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import inspect
import io
import re
import shutil
import subprocess
import sys
import unittest
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

import semantix
from llm_server import FakeOpenAIServer, verdict
from semantix import FakeJudge, Verdict
from semantix import _context as context
from semantix.pytest._plugin import SemanticAssert

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
DOCSTRING_MODULES = [
    "semantix",
    "semantix.agents",
    "semantix.calibration",
    "semantix.composite",
    "semantix.judges._deadline",
    "semantix._intent",
    "semantix.intents",
    "semantix.judges._escalating",
    "semantix.judges._prompted",
    "semantix._proportions",
    "semantix.pytest._plugin",
    "semantix.report._compare",
    "semantix.report._html",
    "semantix.report._merge",
    "semantix.report._model",
    "semantix.runs",
    "semantix._text",
    "semantix.snapshots",
    "semantix.unittest",
    "semantix.judges._verdict",
    "semantix.verdicts",
]

#: For each word stem that may appear in an intent description, the output words (prefixes)
#: that satisfy it. An output satisfies a description when it matches every stem found in it.
DOC_KEYWORDS: dict[str, tuple[str, ...]] = {
    "polite": ("thank", "please", "appreciat", "happy to help", "glad", "sorry", "apolog"),
    "medical": ("aspirin", "ibuprofen", "mg", "diagnos", "dose", "dosage", "prescri", "tablet"),
    "apolog": ("sorry", "apolog"),
    "rude": ("whatever", "go away", "stupid", "shut up"),
    "refund": ("refund",),
    "human": ("human", "agent", "colleague"),
    "greet": ("hello", "hi", "good morning", "welcome"),
    "refus": ("can't help", "cannot help", "unable to", "won't", "decline"),
    "cooking": ("oven", "roast", "bake", "recipe", "whisk"),
    "oven temperature": ("degrees",),
}
SKIP_MARK = re.compile(r"^<!--\s*skip\b.*-->\s*$")
NEEDS_MODEL = re.compile(
    r"\b(QuantizedNLIJudge|NLIJudge|EmbeddingJudge|LLMJudge|OpenAI|download_model|export_model)\("
)


def docs_score(output: str, description: str) -> float:
    # An intent's own examples score as labelled, so calibrating from them works (ready-made
    # intents carry twelve of each, more than keywords can separate).
    if output in getattr(description, "examples", ()):
        return 0.95
    if output in getattr(description, "counterexamples", ()):
        return 0.05
    text = output.lower()
    wanted = description.lower()
    stems = [stem for stem in DOC_KEYWORDS if stem in wanted]
    if not stems:
        raise LookupError(
            f"DocsJudge has no keywords for the description {description!r}; add its stem to "
            "DOC_KEYWORDS in tests/test_docs.py"
        )
    matched = all(
        any(re.search(rf"\b{re.escape(word)}", text) for word in DOC_KEYWORDS[stem])
        for stem in stems
    )
    return 0.95 if matched else 0.05


def docs_judge() -> FakeJudge:
    return FakeJudge(docs_score, name="DocsJudge")


# --- extraction ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Block:
    path: str
    line: int  # 1-based line of the first code line
    code: str
    skip: str | None

    @property
    def expected_output(self) -> list[str] | None:
        lines = [line for line in self.code.splitlines() if line.startswith("#>")]
        if not lines:
            return None
        return [line[3:] if line.startswith("#> ") else line[2:] for line in lines]


def extract_blocks(text: str, path: str) -> list[Block]:
    """Fenced ```python blocks of a markdown text, with their line numbers and skip marks."""
    blocks = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        fence = re.match(r"^(\s*)(`{3,})\s*(\w*)", line)
        if fence is None:
            index += 1
            continue
        indent, ticks, language = fence.groups()
        start = index + 1
        end = start
        while end < len(lines) and not lines[end].strip().startswith(ticks):
            end += 1
        if language == "python":
            previous = next(
                (lines[i].strip() for i in range(index - 1, -1, -1) if lines[i].strip()), ""
            )
            code = "\n".join(row[len(indent) :] for row in lines[start:end])
            skip = None
            if SKIP_MARK.match(previous):
                skip = previous
            elif NEEDS_MODEL.search(code):
                skip = "needs a model or a server"
            blocks.append(Block(path, start + 1, code, skip))
        index = end + 1
    return blocks


def test_extract_blocks() -> None:
    text = (
        "# Title\n\n```python\nx = 1\n```\n\ntext\n\n<!-- skip: slow -->\n```python\ny = 2\n```\n"
        "```bash\nls\n```\n```python\nprint(x)\n#> 1\n```\n```python\nQuantizedNLIJudge()\n```\n"
    )
    blocks = extract_blocks(text, "page.md")
    assert [(block.line, block.code, block.skip) for block in blocks] == [
        (4, "x = 1", None),
        (11, "y = 2", "<!-- skip: slow -->"),
        (17, "print(x)\n#> 1", None),
        (21, "QuantizedNLIJudge()", "needs a model or a server"),
    ]
    assert blocks[2].expected_output == ["1"]
    assert blocks[0].expected_output is None


def test_docs_judge_fails_on_unknown_descriptions() -> None:
    assert docs_score("Thank you!", "The text is polite.") == 0.95
    assert docs_score("Whatever.", "The text is polite.") == 0.05
    with pytest.raises(LookupError, match="DocsJudge has no keywords"):
        docs_score("anything", "The text is about cheese.")


# --- running -------------------------------------------------------------------------------


@pytest.fixture
def default_docs_judge() -> Iterator[FakeJudge]:
    judge = docs_judge()
    semantix.set_default_judge(judge)
    try:
        yield judge
    finally:
        semantix.set_default_judge(None)


def _defined_names(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return names


def _used_names(tree: ast.AST) -> set[str]:
    return {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    }


def run_blocks(blocks: list[Block], namespace: dict[str, Any]) -> list[Block]:
    """Run the blocks in order; return those that were skipped."""
    skipped: list[Block] = []
    only_in_skipped: set[str] = set()
    for block in blocks:
        source = "\n" * (block.line - 1) + block.code
        if block.skip is not None:
            skipped.append(block)
            with contextlib.suppress(SyntaxError):
                only_in_skipped |= _defined_names(ast.parse(source)) - set(namespace)
            continue
        tree = ast.parse(source, block.path)
        if _used_names(tree) & only_in_skipped - _defined_names(tree):
            skipped.append(block)
            only_in_skipped |= _defined_names(tree)
            continue
        only_in_skipped -= _defined_names(tree)
        code = compile(tree, block.path, "exec")
        captured = io.StringIO()
        with contextlib.redirect_stdout(captured):
            exec(code, namespace)  # noqa: S102 - running our own documentation is the point
        expected = block.expected_output
        if expected is not None:
            assert captured.getvalue().splitlines() == expected, (
                f"{block.path}:{block.line}: printed output differs from the #> lines"
            )
    return skipped


def _word_vector(text: str) -> list[float]:
    """A deterministic stand-in for a sentence embedding: the text's words, hashed into 64
    counts (the docs runner has no model weights)."""
    import zlib

    row = [0.0] * 64
    for word in re.findall(r"[a-z']+", text.lower()):
        row[zlib.crc32(word.encode()) % 64] += 1.0
    return row


def _docs_matcher(*args: Any, **kwargs: Any) -> Any:
    """The ``semantic_matcher`` fixture of the docs runner: the real matcher on `_word_vector`."""
    from semantix.testing import SemanticMatcher

    if "threshold" in kwargs:  # pytest-semantic's name for the margin, as the fixture takes it
        kwargs["margin"] = kwargs.pop("threshold")
    return SemanticMatcher(*args, custom_embed_fn=_word_vector, **kwargs)


def run_tests_defined(namespace: dict[str, Any], judge: FakeJudge, where: str) -> int:
    """Run the TestCases and test_* functions a page defined; return how many ran."""
    ran = 0
    for value in list(namespace.values()):
        if (
            isinstance(value, type)
            and issubclass(value, unittest.TestCase)
            and value.__module__ == namespace["__name__"]
        ):
            suite = unittest.defaultTestLoader.loadTestsFromTestCase(value)
            result = unittest.TestResult()
            suite.run(result)
            problems = [text for _, text in result.failures + result.errors]
            assert not problems, f"{where}: {value.__name__} failed:\n" + "\n".join(problems)
            ran += result.testsRun
    for name, value in list(namespace.items()):
        if not (name.startswith("test_") and inspect.isfunction(value)):
            continue
        if value.__module__ != namespace["__name__"]:
            continue
        marker_judge: Any = judge
        threshold = None
        for mark in getattr(value, "pytestmark", []):
            if mark.name == "semantic":
                marker_judge = mark.kwargs.get("judge", judge)
                threshold = mark.kwargs.get("threshold")
        fixtures = {
            "semantic": SemanticAssert(),
            "semantic_judge": judge,
            "semantic_matcher": _docs_matcher,
        }
        parameters = inspect.signature(value).parameters
        unknown = set(parameters) - set(fixtures)
        assert not unknown, f"{where}: {name} needs fixtures {unknown} the docs runner lacks"
        # As the plugin does: the marker's judge and threshold hold for every semantic
        # assertion in the test, the fixture and plain assert_semantic calls alike.
        with context.scope(judge=marker_judge, threshold=threshold):
            value(**{parameter: fixtures[parameter] for parameter in parameters})
        ran += 1
    return ran


def _pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md"))


def _relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("page", [ROOT / "README.md", *_pages()], ids=_relative)
def test_page_examples_run(
    page: Path, default_docs_judge: FakeJudge, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # examples that write files write them here
    # Examples show the user's defaults: semantix's cache under the user cache dir (here: tmp).
    monkeypatch.delenv("SEMANTIX_CACHE_PATH", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    relative = _relative(page)
    blocks = extract_blocks(page.read_text(encoding="utf-8"), relative)
    namespace: dict[str, Any] = {"__name__": "docs_example"}
    run_blocks(blocks, namespace)
    ran = run_tests_defined(namespace, default_docs_judge, relative)
    if any("def test_" in block.code and block.skip is None for block in blocks):
        assert ran > 0, f"{relative}: its test functions were not run"


@pytest.mark.parametrize(
    "page",
    _pages(),
    ids=lambda path: path.relative_to(DOCS).as_posix(),
)
def test_page_opens_with_an_example(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    before_first_section = text.split("\n## ", 1)[0]
    assert re.search(r"^```(python|bash)\s*$", before_first_section, re.MULTILINE), (
        f"docs/{page.relative_to(DOCS).as_posix()} must open with a runnable example "
        "(a python or bash block before the first ## section)"
    )


def test_most_examples_run_rather_than_skip() -> None:
    blocks = [
        block
        for page in _pages()
        for block in extract_blocks(page.read_text(encoding="utf-8"), page.name)
    ]
    skipped = [block for block in blocks if block.skip is not None]
    assert len(blocks) >= 30
    # Model- and server-backed examples (the judge pages) skip; everything else must run.
    assert len(skipped) <= len(blocks) // 5, [f"{b.path}:{b.line}" for b in skipped]


_SHOWN_OUTPUT = re.compile(r"output \((\d+) chars\): ('.*'|\".*\")\s*$")


def test_failure_messages_shown_in_the_docs_count_their_output_right() -> None:
    """A message quoted as text (scores vary by judge, so it is not run) still tells the truth
    about what it shows: "output (N chars)" is the length of the output it quotes."""
    shown = [
        (f"{page.name}:{number}", match)
        for page in [*_pages(), ROOT / "README.md"]
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1)
        if (match := _SHOWN_OUTPUT.search(line))
    ]
    assert len(shown) >= 4
    wrong = [
        where
        for where, match in shown
        if not match.group(2)[1:-1].endswith("…")
        and int(match.group(1)) != len(ast.literal_eval(match.group(2)))
    ]
    assert not wrong, wrong


def test_pages_are_in_the_navigation() -> None:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for page in _pages():
        relative = page.relative_to(DOCS).as_posix()
        assert f": {relative}\n" in config, f"docs/{relative} is not in the mkdocs.yml nav"


@pytest.mark.parametrize("module_name", DOCSTRING_MODULES)
def test_docstring_examples_run(
    module_name: str,
    default_docs_judge: FakeJudge,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)  # examples that write files (snapshots, verdicts) write them here
    module = importlib.import_module(module_name)
    blocks = extract_blocks(inspect.getdoc(module) or "", module_name)
    assert blocks, f"{module_name} has no example in its docstring"
    namespace: dict[str, Any] = {"__name__": "docs_example"}
    run_blocks(blocks, namespace)
    run_tests_defined(namespace, default_docs_judge, module_name)


def test_runner_catches_broken_examples(default_docs_judge: FakeJudge) -> None:
    """The runner itself must be able to fail: wrong output, failing tests, unknown intents."""
    wrong_output = extract_blocks("```python\nprint(1)\n#> 2\n```\n", "bad.md")
    with pytest.raises(AssertionError, match="printed output differs"):
        run_blocks(wrong_output, {"__name__": "docs_example"})
    failing_test = extract_blocks(
        "```python\ndef test_x(semantic):\n    semantic('Whatever.', 'The text is polite.')\n```\n",
        "bad.md",
    )
    namespace: dict[str, Any] = {"__name__": "docs_example"}
    run_blocks(failing_test, namespace)
    with pytest.raises(semantix.SemanticAssertionError):
        run_tests_defined(namespace, default_docs_judge, "bad.md")
    unknown = extract_blocks(
        "```python\nfrom semantix import assert_semantic\nassert_semantic('x', 'About cheese.')\n```",
        "bad.md",
    )
    with pytest.raises(semantix.JudgeError, match="DocsJudge has no keywords"):
        run_blocks(unknown, {"__name__": "docs_example"})
    assert Verdict(passed=True).passed


@pytest.mark.slow
def test_mkdocs_build_strict(tmp_path: Path) -> None:
    mkdocs = Path(sys.executable).parent / "mkdocs"
    if not mkdocs.exists() and shutil.which("mkdocs") is None:
        pytest.skip("mkdocs is not installed (pip install 'semantix-judge[docs]')")
    completed = subprocess.run(
        [
            str(mkdocs) if mkdocs.exists() else "mkdocs",
            "build",
            "--strict",
            "--site-dir",
            str(tmp_path / "site"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**__import__("os").environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert completed.returncode == 0, completed.stderr
    # The API reference renders every docstring as Markdown (Google style): no Sphinx role left
    # as text, no Returns table whose type column caught a description's first word.
    api = (tmp_path / "site" / "api" / "index.html").read_text(encoding="utf-8")
    roles = sorted(set(SPHINX_ROLE.findall(api)))
    assert not roles, f"Sphinx roles rendered literally in the API reference: {roles}"
    assert ">The<" not in api, "a Returns section renders a row named 'The'"


SPHINX_ROLE = re.compile(r":(?:class|func|meth|data|mod|attr|exc|obj):<code>[^<]*")


def test_sphinx_role_pattern_finds_rendered_roles() -> None:
    rendered = "<p>returns a :class:<code>~semantix.SemanticResult</code> or <code>x</code></p>"
    assert SPHINX_ROLE.findall(rendered) == [":class:<code>~semantix.SemanticResult"]


def test_blocks_that_need_a_skipped_block_are_skipped() -> None:
    text = (
        "```python\nx = 1\n```\n"
        "<!-- skip -->\n```python\njudge = QuantizedNLIJudge()\n```\n"
        "```python\nverdict = judge.evaluate('a', 'b', 0.5)\n```\n"
        "```python\nprint(verdict.score)\n```\n"
        "```python\nprint(x)\n#> 1\n```\n"
    )
    namespace: dict[str, Any] = {"__name__": "docs_example"}
    skipped = run_blocks(extract_blocks(text, "page.md"), namespace)
    assert [block.line for block in skipped] == [6, 9, 12]
    assert namespace["x"] == 1


def test_ci_runs_the_readme_test_command_without_upgrading_pip() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    commands = re.findall(r"```bash\n(.*?)\n```", readme, re.DOTALL)
    test_command = next(command for command in commands if "python -m pytest" in command)
    assert test_command in ci.splitlines(), f".ci/run does not run {test_command!r}"
    # The README promises the pip a fresh venv ships; CI must not hide a resolver difference.
    assert "--upgrade pip" not in ci and "-U pip" not in ci
    # The CPU-torch step comes before the command it affects, in the README and in CI.
    torch_step = next(i for i, command in enumerate(commands) if "pip install torch" in command)
    assert torch_step < commands.index(test_command)
    assert ci.index("pip install --quiet torch") < ci.index(test_command)
    # ... and it is the same command: the README's pin is the one CI installs.
    torch_command = commands[torch_step]
    assert torch_command.replace("pip install", "pip install --quiet") in ci.splitlines()


def test_readme_llm_example_runs_against_a_local_server(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The README's LLMJudge block, as written, against an OpenAI-compatible server on 127.0.0.1."""
    pytest.importorskip("openai")
    monkeypatch.chdir(tmp_path)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = [block for block in extract_blocks(readme, "README.md") if "LLMJudge(" in block.code]
    assert blocks, "the README no longer shows the LLM judge"
    llm = importlib.import_module("semantix.judges._llm")
    built: list[Any] = []

    class LLMJudge(llm.LLMJudge):  # the README's class, remembered so its client gets closed
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            built.append(self)

    monkeypatch.setattr(llm, "LLMJudge", LLMJudge)
    with FakeOpenAIServer(default=verdict(0.9, "it apologizes for the delay")) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-readme")
        monkeypatch.delenv("SEMANTIX_VERDICTS", raising=False)
        try:
            for block in blocks:
                run_blocks([replace(block, skip=None)], {"__name__": "docs_example"})
        finally:
            for judge in built:
                judge.close()
        assert built, "the README's LLMJudge block did not build an LLMJudge"
        assert server.requests, "the README's LLMJudge block did not ask the server"
