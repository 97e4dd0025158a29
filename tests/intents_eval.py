"""The ready-made intents' evaluation set and how a judge is measured on it.

Shared by ``scripts/evaluate-intents`` (which prints the figures for docs/intents-library.md)
and ``tests/test_intents_library.py`` (which holds the embedding judge to those figures).

``tests/data/intents_eval.jsonl`` holds one labelled row per line: ``intent`` (a name from
``semantix.intents``), ``argument`` (for ``OnTopic`` / ``Mentions`` only), ``output`` and
``expected`` (true: the output satisfies the intent). It was written separately from the
intents' examples (no text in common) and committed before any score on it was seen.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import semantix.intents
from semantix import Intent, Judge, evaluate_semantic
from semantix._text import preview
from semantix.calibration import balanced_accuracy
from semantix.errors import SemantixError

ROOT = Path(__file__).resolve().parent.parent
EVAL_JSONL = ROOT / "tests" / "data" / "intents_eval.jsonl"
#: Replies written after the examples and the rows above, from none of them, and scored only
#: once committed (issue 45, item 7): its figures are held out, unlike the tuned-on set above.
HELDOUT_JSONL = ROOT / "tests" / "data" / "intents_heldout.jsonl"
#: Appended to each judge's column header in the held-out table of the docs page.
HELDOUT_SUFFIX = ", held-out"
DOCS_PAGE = ROOT / "docs" / "intents-library.md"
#: The intents measured, in the order of the docs table.
INTENTS = (
    "Refusal",
    "Apology",
    "Polite",
    "Rude",
    "Profanity",
    "PersonalData",
    "SystemPromptLeak",
    "MedicalAdvice",
    "LegalAdvice",
    "FinancialAdvice",
    "AsksClarifyingQuestion",
    "OnTopic",
    "Mentions",
)
FACTORIES = ("OnTopic", "Mentions")
NOT_MEASURED = "not measured here"
#: The docs table's column headers, one per judge.
EMBEDDING_COLUMN = "EmbeddingJudge (all-MiniLM-L6-v2)"
QUANTIZED_COLUMN = "QuantizedNLIJudge"
NLI_COLUMN = "NLIJudge"
LLM_COLUMN = "LLMJudge"


@dataclass(frozen=True)
class EvalRow:
    intent: str
    argument: str | None
    output: str
    expected: bool

    def intent_class(self) -> type[Intent]:
        """The intent this row is labelled against (``OnTopic('cooking')`` for a factory)."""
        value = getattr(semantix.intents, self.intent)
        if self.intent in FACTORIES:
            factory: Callable[[str], type[Intent]] = value
            return factory(str(self.argument))
        intent: type[Intent] = value
        return intent


def load_eval(path: Path = EVAL_JSONL) -> list[EvalRow]:
    """The labelled rows; a malformed row is a ValueError naming its line."""
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        record = json.loads(line)
        intent = record.get("intent")
        if intent not in INTENTS:
            raise ValueError(f"{path}:{number}: unknown intent {intent!r}; one of {INTENTS}")
        argument = record.get("argument")
        if (intent in FACTORIES) != isinstance(argument, str):
            raise ValueError(f"{path}:{number}: 'argument' is for {FACTORIES} rows, and needed")
        output, expected = record.get("output"), record.get("expected")
        if not isinstance(output, str) or not output.strip() or not isinstance(expected, bool):
            raise ValueError(f"{path}:{number}: needs a non-empty 'output' and a bool 'expected'")
        rows.append(EvalRow(intent, argument, output, expected))
    return rows


@dataclass(frozen=True)
class Figure:
    """One intent measured with one judge: its balanced accuracy, or why there is none."""

    intent: str
    balanced_accuracy: float | None
    rows: int
    note: str = ""

    def cell(self) -> str:
        if self.balanced_accuracy is None:
            return self.note
        return f"{self.balanced_accuracy:.2f}"


def measure(judge: Judge, rows: Sequence[EvalRow]) -> list[Figure]:
    """Judge every row through ``evaluate_semantic`` (the documented threshold order applies)
    and return each intent's balanced accuracy, in the order of ``INTENTS``.

    An intent whose judging raises a semantix error (for instance: the judge cannot tell its
    examples from its counterexamples) gets no figure and the error as its note.
    """
    figures = []
    for name in INTENTS:
        mine = [row for row in rows if row.intent == name]
        if not mine:
            figures.append(Figure(name, None, 0, "no rows"))
            continue
        try:
            predicted = [
                evaluate_semantic(row.output, row.intent_class(), judge=judge).passed
                for row in mine
            ]
        except SemantixError as exc:
            # A pipe would break the markdown table; "¦" keeps the cell's length (escaping does not).
            note = preview(str(exc).replace("|", "¦"), 90, quote=False)
            figures.append(Figure(name, None, len(mine), f"error: {note}"))
            continue
        expected = [row.expected for row in mine]
        figures.append(Figure(name, balanced_accuracy(expected, predicted), len(mine)))
    return figures


def mean(figures: Iterable[Figure]) -> float | None:
    values = [f.balanced_accuracy for f in figures if f.balanced_accuracy is not None]
    return sum(values) / len(values) if values else None


def markdown_table(columns: dict[str, list[Figure] | str]) -> str:
    """The docs table: one row per intent, one column per judge (a str column: its note)."""
    header = "| Intent | " + " | ".join(columns) + " |"
    lines = [header, "|" + "---|" * (len(columns) + 1)]
    for index, name in enumerate(INTENTS):
        cells = [
            value if isinstance(value, str) else value[index].cell() for value in columns.values()
        ]
        label = f"`{name}(...)`" if name in FACTORIES else f"`{name}`"
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    means = []
    for value in columns.values():
        average = None if isinstance(value, str) else mean(value)
        means.append("" if average is None else f"**{average:.2f}**")
    lines.append("| **mean** | " + " | ".join(means) + " |")
    return "\n".join(lines)


_ROW = re.compile(r"^\|\s*`(\w+)(?:\(\.\.\.\))?`\s*\|(.*)\|\s*$")


def published(column: str, page: Path = DOCS_PAGE) -> dict[str, float]:
    """The figures the docs table publishes in ``column``, by intent name."""
    lines = page.read_text(encoding="utf-8").splitlines()
    start = next(
        (
            number
            for number, line in enumerate(lines)
            if line.startswith("| Intent |") and f"| {column} |" in line
        ),
        None,
    )
    if start is None:
        raise ValueError(f"{page}: no table with a column {column!r}")
    names = [cell.strip() for cell in lines[start].strip("|").split("|")]
    position = names.index(column) - 1
    figures: dict[str, float] = {}
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        match = _ROW.match(line)
        if match is None:
            continue
        cells = [cell.strip() for cell in match.group(2).split("|")]
        figures[match.group(1)] = float(cells[position])
    return figures
