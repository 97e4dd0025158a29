"""``semantix download``: fetch models into the Hugging Face cache, for offline CI; one that
fails is reported and the rest are still fetched (exit status 2)."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

from semantix import _config as config
from semantix.cli._common import Commands
from semantix.cli._errors import report_error
from semantix.judges._calls import judge_identity
from semantix.models import download_model
from semantix.models._api import lookup_model
from semantix.pipeline._specs import judge_from_spec

__all__ = ["DOWNLOAD_KINDS", "NAME", "add_parser", "run"]

NAME = "download"
#: What ``download --judge NAME`` fetches: the judge's model kind, or None (nothing to fetch).
DOWNLOAD_KINDS: dict[str, str | None] = {
    "quantized": "nli",
    "nli": "nli",
    "embedding": "embedding",
    "llm": None,
}


def add_parser(commands: Commands) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        NAME,
        help="pre-fetch models into the Hugging Face cache (for offline CI)",
        description="Fetch the model each given judge loads (default: the default judge's; "
        "exactly the files the judge reads), and every repository named with --model, into "
        "the Hugging Face cache (HF_HOME / HF_HUB_CACHE, or --cache-dir). Run it on a "
        "connected machine, then copy the cache to offline ones. A download that fails is "
        "reported and the others still run; the exit status is then 2.",
        epilog="examples:\n"
        "  semantix download\n"
        "  semantix download --judge quantized --judge embedding\n"
        "  HF_HOME=./hf semantix download --model cross-encoder/nli-deberta-v3-small\n",
    )
    parser.add_argument(
        "--judge",
        action="append",
        choices=sorted(DOWNLOAD_KINDS),
        default=[],
        help="a judge whose model to fetch, by loading it once (repeatable)",
    )
    parser.add_argument(
        "--no-optimize",
        dest="optimize",
        action="store_false",
        help="do not write the optimized ONNX copy of a judge's model (by default it is written "
        "beside the cache where it loads faster on this machine; test runs never write it)",
    )
    parser.add_argument(
        "--model",
        action="append",
        default=[],
        metavar="NAME",
        help="a supported model name or a Hugging Face repo id owner/name: the files its "
        "onnxruntime judge (quantized NLI or embedding) loads (repeatable)",
    )
    parser.add_argument("--revision", help="commit, branch or tag for --model (default: pinned)")
    parser.add_argument("--cache-dir", metavar="DIR", help="download into this HF cache")
    return parser


def run(args: argparse.Namespace) -> int:
    judges = list(args.judge)
    if not judges and not args.model:
        configured = config.judge_spec()
        judges = [configured if configured in DOWNLOAD_KINDS else "quantized"]
    jobs = [("judge", name) for name in dict.fromkeys(judges) if DOWNLOAD_KINDS[name]]
    for name in dict.fromkeys(judges):
        if DOWNLOAD_KINDS[name] is None:
            print(f"{name}: nothing to download (the judge calls a server)", file=sys.stderr)
    for model in dict.fromkeys(args.model):
        if Path(model).expanduser().is_dir():  # nothing to fetch: say so, count nothing
            print(
                f"{model}: a local directory, nothing to download; use it as it is "
                f"(--model {shlex.quote(model)}, model={model!r})",
                file=sys.stderr,
            )
        else:
            jobs.append(("model", model))
    failed: list[str] = []
    for number, (what, name) in enumerate(jobs, 1):
        step = f"[{number}/{len(jobs)}]"
        try:
            if what == "judge":
                print(f"{step} fetching the {name} judge's model ...", file=sys.stderr, flush=True)
                print(f"{name}: {_fetch_judge(name, args.cache_dir, args.optimize)}")
            else:
                print(f"{step} fetching {name} ...", file=sys.stderr, flush=True)
                print(f"{name}: {_fetch_model(name, args.revision, args.cache_dir)}")
        except Exception as exc:  # noqa: BLE001 - shown; the other downloads still run
            failed.append(name)
            report_error(f"{NAME} {name}", exc, show_traceback=args.traceback)
    done = len(jobs) - len(failed)
    if failed:
        print(
            f"{done} of {len(jobs)} downloads done; failed: {', '.join(failed)} (see above)",
            file=sys.stderr,
        )
        return 2
    if jobs:
        print(
            f"done: {done} model{'s' if done != 1 else ''} cached; copy the cache "
            "(HF_HOME) to offline machines and set HF_HUB_OFFLINE=1 there",
            file=sys.stderr,
        )
    return 0


def _fetch_judge(name: str, cache_dir: str | None, optimize: bool) -> str:
    """Load the judge once: that fetches exactly the files it reads (not the whole repo); then
    write the optimized copy of its ONNX file where it pays (never during a test run)."""
    options: dict[str, Any] = {} if cache_dir is None else {"cache_dir": cache_dir}
    judge = judge_from_spec(name, lazy_load=False, **options)
    described = str(judge_identity(judge))
    from semantix.judges._onnx import OnnxJudge
    from semantix.judges._sessions import optimize_model

    if optimize and isinstance(judge, OnnxJudge) and judge.onnx_path is not None:
        outcomes = optimize_model(judge.onnx_path)
        described += f" (optimized copy: {', '.join(outcomes.values())})"
    return described


def _fetch_model(name: str, revision: str | None, cache_dir: str | None) -> str:
    info = lookup_model(name)
    kind = info.kind if info is not None else "nli"
    # Only the files the onnxruntime judge of that kind loads (the cross-encoder repositories
    # hold ~2 GB of other formats). The judge modules import numpy and onnxruntime, so they are
    # imported here, when a download needs them, not when the command line starts.
    from semantix.judges import _embedding as embedding
    from semantix.judges import _quantized as quantized

    files = (embedding if kind == "embedding" else quantized).required_files(name)
    path = download_model(
        name, kind=kind, revision=revision, cache_dir=cache_dir, allow_patterns=files
    )
    return str(path)
