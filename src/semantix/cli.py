"""The ``semantix`` command line.

```
semantix check "Thank you for waiting." "The text is polite." --judge quantized
semantix download --judge quantized --judge embedding
semantix export cross-encoder/nli-deberta-v3-small ./models/nli-small
semantix calibrate labels.csv --judge quantized
```

Exit status: 0 the check passed (or the command succeeded), 1 the check failed, 2 the command
could not run (bad arguments, configuration, a judge error). Errors are one line that says what
to do.
"""

from __future__ import annotations

import argparse
import csv
import importlib
import json
import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from semantix.assertions import SemanticResult
    from semantix.intent import Intent
    from semantix.judges.base import Judge

__all__ = ["main"]

PROG = "semantix"
JUDGE_HELP = (
    "quantized, nli, embedding, llm or module:attr (default: SEMANTIX_JUDGE, else quantized)"
)
#: What the ``download`` command fetches for each judge name: the model kind, or None.
DOWNLOAD_KINDS: dict[str, str | None] = {
    "quantized": "nli",
    "nli": "nli",
    "embedding": "embedding",
    "llm": None,
}
_IMPORT_PATH = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")
TRUE_WORDS = frozenset({"1", "true", "yes", "y", "pass", "passed", "t"})
FALSE_WORDS = frozenset({"0", "false", "no", "n", "fail", "failed", "f"})


class _Formatter(argparse.HelpFormatter):
    """Wraps descriptions like the default formatter, but keeps example epilogs as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith("example"):
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


class CommandError(Exception):
    """A problem the user can fix; printed as one line, exit status 2."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``semantix`` command line; returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2, already printed by argparse)
        return exc.code if isinstance(exc.code, int) else 2
    handler: Callable[[argparse.Namespace], int] | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return handler(args)
    except KeyboardInterrupt:
        print(f"{PROG} {args.command}: interrupted", file=sys.stderr)
        return 130
    except (CommandError, OSError, ValueError, TypeError, ImportError) as exc:
        _error(args.command, exc)
        return 2
    except Exception as exc:
        from semantix.errors import SemantixError

        if not isinstance(exc, SemantixError):
            raise
        _error(args.command, exc)
        return 2


def _error(command: str, exc: BaseException) -> None:
    message = " ".join(str(exc).split()) or type(exc).__name__
    print(f"{PROG} {command}: error: {message}", file=sys.stderr)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Assert what LLM output means, from the shell; manage semantix models.",
        epilog="Run 'semantix COMMAND --help' for the options of each command.",
    )
    from semantix import __version__

    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = commands.add_parser(
        "check",
        help="judge one text against one intent (exit 0 pass, 1 fail, 2 error)",
        description="Judge TEXT against INTENT and print the verdict. Exit status: 0 the text "
        "satisfies the intent, 1 it does not, 2 the check could not run.",
        epilog="examples:\n"
        '  semantix check "Thank you for waiting." "The text is polite."\n'
        "  llm-app | semantix check - myapp.intents:Polite --json\n",
        formatter_class=_Formatter,
    )
    check.add_argument("text", metavar="TEXT", help="the output to judge; '-' reads stdin")
    check.add_argument(
        "intent",
        metavar="INTENT",
        help="a description such as 'The text is polite.' or an Intent class as module:Name",
    )
    check.add_argument("--judge", metavar="SPEC", help=JUDGE_HELP)
    check.add_argument(
        "--threshold",
        type=float,
        metavar="X",
        help="threshold in [0, 1] for every part of the intent (default: the threshold order)",
    )
    check.add_argument("--json", action="store_true", help="print the result as JSON")
    check.set_defaults(handler=cmd_check)

    download = commands.add_parser(
        "download",
        help="pre-fetch models into the Hugging Face cache (for offline CI)",
        description="Fetch the model each given judge loads (default: the default judge's; "
        "exactly the files the judge reads), and every repository named with --model, into "
        "the Hugging Face cache (HF_HOME / HF_HUB_CACHE, or --cache-dir). Run it on a "
        "connected machine, then copy the cache to offline ones.",
        epilog="examples:\n"
        "  semantix download\n"
        "  semantix download --judge quantized --judge embedding\n"
        "  HF_HOME=./hf semantix download --model cross-encoder/nli-deberta-v3-small\n",
        formatter_class=_Formatter,
    )
    download.add_argument(
        "--judge",
        action="append",
        choices=sorted(DOWNLOAD_KINDS),
        default=[],
        help="a judge whose model to fetch, by loading it once (repeatable)",
    )
    download.add_argument(
        "--model",
        action="append",
        default=[],
        metavar="NAME",
        help="a supported model name or a Hugging Face repo id owner/name: the files its "
        "onnxruntime judge (quantized NLI or embedding) loads (repeatable)",
    )
    download.add_argument("--revision", help="commit, branch or tag for --model (default: pinned)")
    download.add_argument("--cache-dir", metavar="DIR", help="download into this HF cache")
    download.set_defaults(handler=cmd_download)

    export = commands.add_parser(
        "export",
        help="convert a Hugging Face NLI model to the ONNX int8 layout of QuantizedNLIJudge",
        description="Export MODEL (a Hugging Face repo id or a local directory) to ONNX, "
        "quantize it to int8 and write it with its tokenizer to OUT_DIR, ready for "
        "QuantizedNLIJudge(model=OUT_DIR) or SEMANTIX_MODEL_DIR=OUT_DIR. Needs "
        "pip install 'semantix-judge[export]'.",
        epilog="example:\n  semantix export cross-encoder/nli-deberta-v3-small ./models/nli-small\n",
        formatter_class=_Formatter,
    )
    export.add_argument("model", metavar="MODEL", help="Hugging Face repo id or local directory")
    export.add_argument("out_dir", metavar="OUT_DIR", help="directory to write the model to")
    export.add_argument("--revision", help="commit, branch or tag of MODEL (default: main)")
    export.set_defaults(handler=cmd_export)

    calibrate = commands.add_parser(
        "calibrate",
        help="measure a judge against labelled outputs and suggest thresholds",
        description="Read LABELS.csv with the columns output,intent,expected (expected: "
        "true/false, yes/no, 1/0 or pass/fail), score every row with the judge and report, per "
        "intent, accuracy, balanced accuracy and Cohen's kappa at the current threshold and at "
        "the threshold that maximises agreement; then print the thresholds as lines to paste.",
        epilog="example:\n  semantix calibrate labels.csv --judge quantized --intent myapp:Polite\n",
        formatter_class=_Formatter,
    )
    calibrate.add_argument("labels", metavar="LABELS.csv", help="CSV file: output,intent,expected")
    calibrate.add_argument("--judge", metavar="SPEC", help=JUDGE_HELP)
    calibrate.add_argument(
        "--intent",
        action="append",
        default=[],
        metavar="INTENT",
        help="only calibrate rows whose intent column is INTENT (repeatable)",
    )
    calibrate.set_defaults(handler=cmd_calibrate)
    return parser


# --- shared --------------------------------------------------------------------------------


def _judge(spec: str | None) -> Judge:
    """The judge for ``--judge`` (else the default judge), behind the frozen-verdict store.

    Like the default judge, a named judge honours ``SEMANTIX_VERDICTS`` (``off`` by default).
    """
    if spec is None:
        from semantix.judges import default_judge

        return default_judge()
    from semantix.judges import judge_from_spec
    from semantix.verdicts import wrap_judge

    return wrap_judge(judge_from_spec(spec))


def load_intent(value: str) -> type[Intent] | str:
    """An intent class for ``module:Name``, else the text itself (a description)."""
    if not _IMPORT_PATH.match(value.strip()):
        return value
    from semantix.intent import IntentMeta

    module_name, _, attr = value.strip().partition(":")
    try:
        module = importlib.import_module(module_name)
        target: object = module
        for part in attr.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError) as exc:
        raise CommandError(
            f"INTENT {value!r} looks like an import path but cannot be loaded ({exc}); check the "
            "path, or write the intent as a sentence such as 'The text is polite.'"
        ) from exc
    if not isinstance(target, IntentMeta):
        raise CommandError(
            f"INTENT {value!r} is {type(target).__name__}, not an Intent class; point it at a "
            "subclass of semantix.Intent"
        )
    return target  # type: ignore[return-value]


# --- check ---------------------------------------------------------------------------------


def cmd_check(args: argparse.Namespace) -> int:
    from semantix.assertions import evaluate_semantic

    text = sys.stdin.read() if args.text == "-" else args.text
    if args.text == "-":
        text = text.rstrip("\r\n")
    intent = load_intent(args.intent)
    judge = _judge(args.judge)
    result = evaluate_semantic(text, intent, judge=judge, threshold=args.threshold)
    if args.json:
        document = result.to_dict()
        document["output"] = result.output
        print(json.dumps(document, indent=2))
    elif result.passed:
        print(_pass_line(result))
    else:
        print(result.explain())
    return 0 if result.passed else 1


def _pass_line(result: SemanticResult) -> str:
    lines = [f"PASS {result.intent.__name__} (judge: {result.judge})"]
    for leaf in result.leaves:
        name = leaf.intent.__name__ if leaf.expected else f"~{leaf.intent.__name__}"
        score = "n/a" if leaf.verdict.score is None else f"{leaf.verdict.score:.2f}"
        lines.append(
            f"  {name}: score {score}, threshold {leaf.threshold:.2f}, {'ok' if leaf.ok else 'not ok'}"
        )
    return "\n".join(lines)


# --- download ------------------------------------------------------------------------------


def _files_for(model: str, kind: str) -> list[str]:
    """Only the files the onnxruntime judge of ``kind`` loads, not the whole repository
    (the cross-encoder repos hold ~2 GB of other formats)."""
    if kind == "embedding":
        from semantix.judges.embedding import required_files as embedding_files

        return embedding_files(model)
    from semantix.judges.quantized import required_files as nli_files

    return nli_files(model)


def cmd_download(args: argparse.Namespace) -> int:
    from semantix.assertions import judge_name
    from semantix.judges import judge_from_spec
    from semantix.models import download_model, list_supported_models

    judges = list(args.judge)
    if not judges and not args.model:
        configured = os.environ.get("SEMANTIX_JUDGE", "").strip()
        judges = [configured if configured in DOWNLOAD_KINDS else "quantized"]
    jobs: list[tuple[str, str]] = []  # ("judge" | "model", name)
    for name in dict.fromkeys(judges):
        if DOWNLOAD_KINDS[name] is None:
            print(f"{name}: nothing to download (the judge calls a server)", file=sys.stderr)
        else:
            jobs.append(("judge", name))
    jobs.extend(("model", model) for model in dict.fromkeys(args.model))
    kinds = {info.name: info.kind for info in list_supported_models()}
    kinds.update({info.repo_id: info.kind for info in list_supported_models()})
    for number, (what, name) in enumerate(jobs, 1):
        step = f"[{number}/{len(jobs)}]"
        if what == "judge":
            # Loading the judge fetches exactly the files it needs (not the whole repository).
            print(f"{step} fetching the {name} judge's model ...", file=sys.stderr, flush=True)
            options: dict[str, Any] = {"lazy_load": False}
            if args.cache_dir is not None:
                options["cache_dir"] = args.cache_dir
            judge = judge_from_spec(name, **options)
            print(f"{name}: {judge_name(judge)}")
        else:
            print(f"{step} fetching {name} ...", file=sys.stderr, flush=True)
            kind = kinds.get(name, "nli")
            path = download_model(
                name,
                kind=kind,
                revision=args.revision,
                cache_dir=args.cache_dir,
                allow_patterns=_files_for(name, kind),
            )
            print(f"{name}: {path}")
    if jobs:
        print(
            f"done: {len(jobs)} model{'s' if len(jobs) != 1 else ''} cached; copy the cache "
            "(HF_HOME) to offline machines and set HF_HUB_OFFLINE=1 there",
            file=sys.stderr,
        )
    return 0


# --- export --------------------------------------------------------------------------------


def cmd_export(args: argparse.Namespace) -> int:
    try:
        from semantix.export import export_model  # type: ignore[import-not-found,unused-ignore]
    except ModuleNotFoundError as exc:
        if exc.name != "semantix.export":
            raise
        raise CommandError(
            "this installation of semantix has no export support (semantix.export is missing); "
            "upgrade semantix and pip install 'semantix-judge[export]'"
        ) from exc
    print(f"exporting {args.model} to {args.out_dir} ...", file=sys.stderr, flush=True)
    path = export_model(args.model, args.out_dir, revision=args.revision)
    print(path)
    print(
        f"use it with QuantizedNLIJudge(model={str(path)!r}) or SEMANTIX_MODEL_DIR={path}",
        file=sys.stderr,
    )
    return 0


# --- calibrate -----------------------------------------------------------------------------


@dataclass
class _Row:
    line: int
    output: str
    intent: str
    expected: bool


def read_labels(path: Path) -> list[_Row]:
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
            word = fields["expected"].strip().lower()
            if word in TRUE_WORDS:
                expected = True
            elif word in FALSE_WORDS:
                expected = False
            else:
                raise CommandError(
                    f"{path}:{reader.line_num}: expected = {fields['expected']!r} is not a "
                    "label; write true or false (also yes/no, 1/0, pass/fail)"
                )
            rows.append(_Row(reader.line_num, fields["output"], fields["intent"], expected))
    if not rows:
        raise CommandError(f"{path} has a header but no rows; add labelled outputs")
    return rows


def cmd_calibrate(args: argparse.Namespace) -> int:
    from semantix.assertions import evaluate_semantic
    from semantix.calibration import best_threshold, evaluate_threshold

    path = Path(args.labels)
    rows = read_labels(path)
    if args.intent:
        wanted = set(args.intent)
        unknown = wanted - {row.intent for row in rows}
        if unknown:
            raise CommandError(
                f"--intent {', '.join(sorted(map(repr, unknown)))} matches no row of {path}; "
                f"its intents are: {', '.join(sorted({repr(row.intent) for row in rows}))}"
            )
        rows = [row for row in rows if row.intent in wanted]
    judge = _judge(args.judge)
    intents = {name: load_intent(name) for name in dict.fromkeys(row.intent for row in rows)}
    scores: dict[str, list[float]] = {name: [] for name in intents}
    labels: dict[str, list[bool]] = {name: [] for name in intents}
    current: dict[str, float] = {}
    judge_label = ""
    progress = _Progress(len(rows), sys.stderr)
    for row in rows:
        result = evaluate_semantic(row.output, intents[row.intent], judge=judge)
        judge_label = result.judge
        if len(result.leaves) != 1 or not result.leaves[0].expected:
            raise CommandError(
                f"{path}:{row.line}: intent {row.intent!r} is composite or negated; calibrate "
                "one plain intent at a time (its parts have their own thresholds)"
            )
        leaf = result.leaves[0]
        if leaf.verdict.score is None:
            raise CommandError(
                f"judge {result.judge} gives no scores, so there is no threshold to calibrate; "
                "use a scoring judge (quantized, nli, embedding)"
            )
        scores[row.intent].append(leaf.verdict.score)
        labels[row.intent].append(row.expected)
        current[row.intent] = leaf.threshold
        progress.advance()
    progress.close()

    print(f"calibration of {judge_label} on {path} ({len(rows)} rows)")
    snippet = []
    for name, intent in intents.items():
        at_current = evaluate_threshold(scores[name], labels[name], current[name])
        best = evaluate_threshold(
            scores[name], labels[name], best_threshold(scores[name], labels[name])
        )
        title = name if not isinstance(intent, str) else repr(name)
        print()
        print(f"{title}: {at_current.n} rows, {at_current.positives} expected to pass")
        print(f"  {'threshold':<22}{'accuracy':>10}{'balanced':>10}{'kappa':>8}")
        for label, stats in (("current", at_current), ("best", best)):
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


class _Progress:
    """A one-line progress bar on a stream (a line per 10% when it is not a terminal)."""

    WIDTH = 30

    def __init__(self, total: int, stream: TextIO) -> None:
        self.total = total
        self.done = 0
        self.stream = stream
        self.tty = stream.isatty()
        self.last_decile = -1

    def advance(self) -> None:
        self.done += 1
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


if __name__ == "__main__":
    raise SystemExit(main())
