"""``semantix calibrate LABELS.csv``: measure a judge against labelled outputs and suggest
thresholds (the metrics are `semantix.calibration`'s)."""

from __future__ import annotations

import argparse
import csv
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from semantix.calibration import best_threshold, evaluate_threshold
from semantix.cli.common import (
    CommandError,
    Commands,
    Formatter,
    add_judge_options,
    cli_judge,
    load_intent,
)
from semantix.errors import IntentCalibrationError
from semantix.intent import Intent, as_intent
from semantix.judges.base import Judge
from semantix.pipeline import evaluate_many
from semantix.pipeline.thresholds import calibrate_intent, resolve_threshold

__all__ = ["NAME", "Row", "add_parser", "read_labels", "run"]

NAME = "calibrate"
TRUE_WORDS = frozenset({"1", "true", "yes", "y", "pass", "passed", "t"})
FALSE_WORDS = frozenset({"0", "false", "no", "n", "fail", "failed", "f"})
#: Outputs judged per call (one batch for judges with ``evaluate_batch``).
CHUNK = 16


def add_parser(commands: Commands) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        NAME,
        help="measure a judge against labelled outputs and suggest thresholds",
        description="Read LABELS.csv with the columns output,intent,expected (expected: "
        "true/false, yes/no, 1/0 or pass/fail), score every row with the judge and report, per "
        "intent, accuracy, balanced accuracy and Cohen's kappa at the current threshold and at "
        "the threshold that maximises agreement; then print the thresholds as lines to paste.",
        epilog="example:\n  semantix calibrate labels.csv --judge quantized --intent myapp:Polite\n",
        formatter_class=Formatter,
    )
    parser.add_argument("labels", metavar="LABELS.csv", help="CSV file: output,intent,expected")
    add_judge_options(parser)
    parser.add_argument(
        "--intent",
        action="append",
        default=[],
        metavar="INTENT",
        help="only calibrate rows whose intent column is INTENT (repeatable)",
    )
    return parser


@dataclass(frozen=True, slots=True)
class Row:
    """One labelled output: its line in the file, the output, the intent column, the label."""

    line: int
    output: str
    intent: str
    expected: bool


def read_labels(path: Path) -> list[Row]:
    """Rows of a labels CSV (columns output, intent, expected; header required)."""
    try:
        handle = path.open(newline="", encoding="utf-8")
    except FileNotFoundError:
        raise CommandError(
            f"labels file {str(path)!r} does not exist; pass a CSV with the columns "
            "output,intent,expected"
        ) from None
    with handle:
        reader = csv.DictReader(handle)
        columns = [name.strip().lower() for name in reader.fieldnames or []]
        missing = [name for name in ("output", "intent", "expected") if name not in columns]
        if missing:
            raise CommandError(
                f"{path} has columns {columns or 'none'} but needs output, intent and expected "
                f"(missing: {', '.join(missing)}); add a header row 'output,intent,expected'"
            )
        rows = []
        for record in reader:
            fields = {(key or "").strip().lower(): (value or "") for key, value in record.items()}
            rows.append(
                Row(
                    reader.line_num,
                    fields["output"],
                    fields["intent"],
                    _label(fields["expected"], f"{path}:{reader.line_num}"),
                )
            )
    if not rows:
        raise CommandError(f"{path} has a header but no rows; add labelled outputs")
    return rows


def _label(value: str, where: str) -> bool:
    word = value.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise CommandError(
        f"{where}: expected = {value!r} is not a label; write true or false (also yes/no, "
        "1/0, pass/fail)"
    )


def run(args: argparse.Namespace) -> int:
    path = Path(args.labels)
    rows = _selected(read_labels(path), args.intent, path)
    judge = cli_judge(args)
    intents = {name: load_intent(name) for name in dict.fromkeys(row.intent for row in rows)}
    progress = _Progress(len(rows), sys.stderr)
    scored = {
        name: _score(judge, intent, name, rows, path, progress) for name, intent in intents.items()
    }
    progress.close()

    judge_label = next(iter(scored.values()))[1]
    print(f"calibration of {judge_label} on {path} ({len(rows)} rows)")
    snippet = []
    for name, intent in intents.items():
        scores, _ = scored[name]
        labels = [row.expected for row in rows if row.intent == name]
        current, note = _current_threshold(intent, judge)
        best = evaluate_threshold(scores, labels, best_threshold(scores, labels))
        title = name if not isinstance(intent, str) else repr(name)
        print()
        print(f"{title}: {best.n} rows, {best.positives} expected to pass")
        if note:
            print(f"  {note}")
        print(f"  {'threshold':<22}{'accuracy':>10}{'balanced':>10}{'kappa':>8}")
        lines = [("best", best)]
        if current is not None:
            lines.insert(0, ("current", evaluate_threshold(scores, labels, current)))
        for label, stats in lines:
            print(
                f"  {label + f' {stats.threshold:.3f}':<22}{stats.accuracy:>10.3f}"
                f"{stats.balanced_accuracy:>10.3f}{stats.kappa:>8.3f}"
            )
        snippet.append(f"# {title}: accuracy {best.accuracy:.3f}, kappa {best.kappa:.3f}")
        snippet.append(f"threshold = {best.threshold:.3f}")
    print()
    print(f"# thresholds from semantix calibrate ({judge_label}, {path.name}); paste into each")
    print("# intent class, or pass threshold=... for description strings")
    print("\n".join(snippet))
    return 0


def _current_threshold(intent: type[Intent] | str, judge: Judge) -> tuple[float | None, str]:
    """The threshold a check would use now, and whether the intent's examples separate."""
    leaf = as_intent(intent)
    try:
        chosen = resolve_threshold(leaf, judge)
    except IntentCalibrationError as exc:
        return None, f"examples do not separate: {exc}"
    if chosen.source != "calibrated":
        if leaf.examples and leaf.counterexamples and getattr(judge, "uses_examples", False):
            return chosen.value, "examples: used by the judge itself (no calibration)"
        return chosen.value, ""
    calibration = calibrate_intent(leaf, judge)  # cached: the same scores resolve_threshold saw
    if calibration is None:
        return chosen.value, ""
    return chosen.value, (
        f"examples separate: weakest example {calibration.weakest_example:.3f} > strongest "
        f"counterexample {calibration.strongest_counterexample:.3f}; calibrated threshold "
        f"{calibration.threshold:.3f}"
    )


def _selected(rows: list[Row], wanted: list[str], path: Path) -> list[Row]:
    if not wanted:
        return rows
    unknown = set(wanted) - {row.intent for row in rows}
    if unknown:
        raise CommandError(
            f"--intent {', '.join(sorted(map(repr, unknown)))} matches no row of {path}; "
            f"its intents are: {', '.join(sorted({repr(row.intent) for row in rows}))}"
        )
    return [row for row in rows if row.intent in set(wanted)]


def _score(
    judge: Judge,
    intent: type[Intent] | str,
    name: str,
    rows: list[Row],
    path: Path,
    progress: _Progress,
) -> tuple[list[float], str]:
    """The scores of ``intent``'s rows and the judge's name.

    Rows are judged at a fixed threshold: only the scores are used, so an intent whose examples
    do not separate is still measured (and reported as such).
    """
    mine = [row for row in rows if row.intent == name]
    scores: list[float] = []
    judge_name = ""
    for start in range(0, len(mine), CHUNK):
        chunk = mine[start : start + CHUNK]
        for row, result in zip(
            chunk,
            evaluate_many([row.output for row in chunk], intent, judge=judge, threshold=0.5),
            strict=True,
        ):
            judge_name = str(result.judge)
            if len(result.leaves) != 1 or not result.leaves[0].expected:
                raise CommandError(
                    f"{path}:{row.line}: intent {name!r} is composite or negated (a negative "
                    "requirement is judged as NOT its positive statement); calibrate one plain, "
                    "positive intent at a time (the parts of a composite have their own "
                    "thresholds)"
                )
            leaf = result.leaves[0]
            if leaf.verdict.score is None:
                raise CommandError(
                    f"judge {result.judge} gives no scores, so there is no threshold to "
                    "calibrate; use a scoring judge (quantized, nli, embedding)"
                )
            scores.append(leaf.verdict.score)
        progress.advance(len(chunk))
    return scores, judge_name


class _Progress:
    """A one-line progress bar on a stream (a line per 10% when it is not a terminal)."""

    WIDTH = 30

    def __init__(self, total: int, stream: TextIO) -> None:
        self.total = total
        self.done = 0
        self.stream = stream
        self.tty = stream.isatty()
        self.last_decile = -1

    def advance(self, count: int = 1) -> None:
        self.done += count
        filled = self.WIDTH * self.done // self.total
        bar = "#" * filled + "-" * (self.WIDTH - filled)
        text = f"scoring [{bar}] {self.done}/{self.total}"
        if self.tty:
            self.stream.write("\r" + text)
        else:
            decile = 10 * self.done // self.total
            if decile == self.last_decile:
                return
            self.last_decile = decile
            self.stream.write(text + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
