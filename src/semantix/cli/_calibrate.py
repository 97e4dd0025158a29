"""``semantix calibrate LABELS``: measure a judge against labelled outputs and suggest
thresholds (the metrics are `semantix.calibration`'s; the LABELS formats are in
docs/calibration.md).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import importlib
import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from semantix._files import read_text
from semantix._intent import Intent, as_intent
from semantix.calibration import Calibration, calibrate, evaluate_threshold
from semantix.cli._common import (
    CommandError,
    Commands,
    add_judge_options,
    cli_judge,
    load_intent,
)
from semantix.errors import IntentCalibrationError
from semantix.judges._base import Judge
from semantix.pipeline import evaluate_many
from semantix.pipeline._thresholds import calibrate_intent, resolve_threshold

__all__ = ["NAME", "Row", "add_parser", "read_labels", "run"]

NAME = "calibrate"
TRUE_WORDS = frozenset({"1", "true", "yes", "y", "pass", "passed", "t"})
FALSE_WORDS = frozenset({"0", "false", "no", "n", "fail", "failed", "f"})
#: Outputs judged per call (one batch for judges with ``evaluate_batch``).
CHUNK = 16
#: Fewer labelled rows than this per intent get a small-sample warning.
SMALL_SAMPLE = 30
CSV_FORMAT = "a CSV file with the header output,intent,expected"
JSONL_FORMAT = (
    'JSON Lines (.jsonl) with one {"output": ..., "intent": ..., "expected": ...} per line'
)
FORMATS = f"{CSV_FORMAT}, or {JSONL_FORMAT}"


def add_parser(commands: Commands) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        NAME,
        help="measure a judge against labelled outputs and suggest thresholds",
        description="Read LABELS (CSV with the columns output,intent,expected, or JSON Lines with "
        "those keys; expected: true/false, yes/no, 1/0 or pass/fail; an intent ~module:Name is "
        "the negation of that intent), score every row with the judge and report, per "
        "intent, accuracy, balanced accuracy and Cohen's kappa at the current threshold and at "
        "the threshold that maximises agreement, and the judge's sensitivity and specificity "
        "there (each with its Wilson 95% interval); then print the thresholds as lines to paste "
        "and the judge_accuracy=... that corrects repeated runs' pass rates.",
        epilog="example:\n  semantix calibrate labels.csv --judge quantized --intent myapp:Polite\n",
    )
    parser.add_argument(
        "labels", metavar="LABELS", help="CSV (output,intent,expected) or JSON Lines file"
    )
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
    negated: bool = False


def read_labels(path: Path) -> list[Row]:
    """Rows of a labels file: CSV with a header, or JSON Lines (docs/calibration.md)."""
    try:
        text = read_text(path, what="labels file", error=CommandError)
    except FileNotFoundError:
        raise CommandError(f"labels file {str(path)!r} does not exist; pass {FORMATS}") from None
    jsonl = path.suffix.lower() in (".jsonl", ".ndjson") or text.lstrip().startswith("{")
    rows = list(_json_lines(text, path) if jsonl else _csv_rows(text, path))
    if not rows:
        raise CommandError(f"{path} has a header but no rows; add labelled outputs")
    return rows


def _csv_rows(text: str, path: Path) -> Iterator[Row]:
    reader = csv.DictReader(text.splitlines(keepends=True))
    columns = [name.strip().lower() for name in reader.fieldnames or []]
    missing = [name for name in ("output", "intent", "expected") if name not in columns]
    if missing:
        raise CommandError(
            f"{path} has columns {columns or 'none'} but needs output, intent and expected "
            f"(missing: {', '.join(missing)}); accepted: {FORMATS}"
        )
    for record in reader:
        fields = {(key or "").strip().lower(): (value or "") for key, value in record.items()}
        where = f"{path}:{reader.line_num}"
        yield Row(
            reader.line_num, fields["output"], fields["intent"], _label(fields["expected"], where)
        )


def _json_lines(text: str, path: Path) -> Iterator[Row]:
    # "\n" only: splitlines would also cut at a U+2028 or U+0085 that JSON allows in a string
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            record: Any = json.loads(line)
        except ValueError as exc:
            raise CommandError(
                f"{where} is not a JSON object ({exc}); accepted: {FORMATS}"
            ) from None
        if not isinstance(record, dict):
            raise CommandError(f"{where} is {type(record).__name__}, not an object; {FORMATS}")
        missing = [key for key in ("output", "intent", "expected") if key not in record]
        wrong = [key for key in ("output", "intent") if not isinstance(record.get(key, ""), str)]
        if missing or wrong:
            problem = f"lacks {', '.join(missing)}" if missing else f"{', '.join(wrong)} not text"
            raise CommandError(f"{where} {problem}; each line needs {JSONL_FORMAT}")
        expected = record["expected"]
        value = expected if isinstance(expected, str) else json.dumps(expected)
        yield Row(number, record["output"], record["intent"], _label(value, where))


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
    rows = [_positive(row) for row in _selected(read_labels(path), args.intent, path)]
    judge = cli_judge(args)
    intents = {name: load_intent(name) for name in dict.fromkeys(row.intent for row in rows)}
    with _progress(len(rows)) as advance:
        scored = {
            name: _score(judge, intent, name, rows, path, advance)
            for name, intent in intents.items()
        }

    judge_label = next(iter(scored.values()))[1]
    print(f"calibration of {judge_label} on {path} ({len(rows)} rows)")
    snippet = []
    for name, intent in intents.items():
        scores, _ = scored[name]
        mine = [row for row in rows if row.intent == name]
        labels = [row.expected for row in mine]
        current, note = _current_threshold(intent, judge)
        best = calibrate(scores, labels)
        title = name if not isinstance(intent, str) else repr(name)
        print(f"\n{title}: {best.n} rows, {best.positives} expected to pass")
        flipped = sum(1 for row in mine if row.negated)
        if flipped:
            print(f"  {flipped} of them from ~{name}, with the label flipped")
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
        intervals = best.intervals()
        low, high = intervals["accuracy"] or (0.0, 1.0)
        counted = f"{best.n} row{'s' * (best.n != 1)}"
        print(f"  best accuracy: 95% interval {low:.2f}-{high:.2f} ({counted})")
        print(f"  at best: {_rates(best, intervals)}")
        if best.n < SMALL_SAMPLE:
            print(
                f"  small sample: {counted}; label at least "
                f"{SMALL_SAMPLE} per intent (both passing and failing outputs) before trusting "
                "this threshold"
            )
        snippet.append(
            f"# {title}: accuracy {best.accuracy:.3f} (95% {low:.2f}-{high:.2f}, n={best.n}), "
            f"kappa {best.kappa:.3f}"
        )
        snippet.append(f"threshold = {best.threshold:.3f}")
        if best.sensitivity is not None and best.specificity is not None:
            snippet.append(
                f"# judge accuracy at it, for repeated runs: judge_accuracy=({best.sensitivity:.3f}, "
                f"{best.specificity:.3f}, {best.positives}, {best.n - best.positives})"
            )
    print(f"\n# thresholds from semantix calibrate ({judge_label}, {path.name}); paste into each")
    print("# intent class, or pass threshold=... for description strings")
    print("\n".join(snippet))
    return 0


def _rates(calibration: Calibration, intervals: dict[str, tuple[float, float] | None]) -> str:
    """``sensitivity 1.000 (95% 0.34-1.00, 2 of 2 expected to pass), specificity ...``."""
    parts = []
    for name, hits, total, kind in (
        ("sensitivity", calibration.true_positives, calibration.positives, "pass"),
        ("specificity", calibration.true_negatives, calibration.n - calibration.positives, "fail"),
    ):
        interval = intervals[name]
        if interval is None:
            parts.append(f"{name} n/a (no output expected to {kind})")
        else:
            parts.append(
                f"{name} {hits / total:.3f} (95% {interval[0]:.2f}-{interval[1]:.2f}, {hits} of "
                f"{total} expected to {kind})"
            )
    return ", ".join(parts)


def _positive(row: Row) -> Row:
    """A row of ``~module:Name`` as a row of ``module:Name`` with the label flipped: the
    negation passes exactly when the intent fails, so both calibrate the intent's threshold."""
    text = row.intent.strip()
    if not text.startswith("~") or isinstance(load_intent(text[1:].strip()), str):
        return row  # a description that happens to start with '~' stays a description
    return replace(row, intent=text[1:].strip(), expected=not row.expected, negated=True)


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
        f"examples separate: weakest example {calibration.weakest_positive:.3f} > strongest "
        f"counterexample {calibration.strongest_negative:.3f}; calibrated threshold "
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
    advance: Callable[[int], object],
) -> tuple[list[float], str]:
    """The scores of ``intent``'s rows and the judge's name, judged at a fixed threshold (an
    intent whose examples do not separate is still measured)."""
    mine = [row for row in rows if row.intent == name]
    scores: list[float] = []
    judge_name = ""
    for start in range(0, len(mine), CHUNK):
        chunk = mine[start : start + CHUNK]
        results = evaluate_many([row.output for row in chunk], intent, judge=judge, threshold=0.5)
        for row, result in zip(chunk, results, strict=True):
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
        advance(len(chunk))
    return scores, judge_name


@contextlib.contextmanager
def _progress(total: int) -> Iterator[Callable[[int], object]]:
    """A tqdm bar on stderr (on a terminal only, tqdm's default), or nothing where tqdm is not
    installed (it comes with huggingface_hub, so it is there with every model extra)."""
    try:
        tqdm: Any = importlib.import_module("tqdm").tqdm  # untyped: no stubs needed
    except ImportError:
        yield lambda count: None
        return
    with tqdm(total=total, desc="scoring", unit="row", file=sys.stderr, disable=None) as bar:
        yield bar.update
