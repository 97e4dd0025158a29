"""ONNX Runtime sessions, one per (model file, threads) per process, and the optimized ORT-format
copies `optimize_model` keeps (docs/judges/nli.md, "Batching, threads, determinism" and "Cold
start"); loading or scoring never writes a copy. onnxruntime is imported inside the functions.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from semantix._cache import model_cache
from semantix._config import cache_path, ort_cache_enabled
from semantix._files import replace, write_atomic
from semantix.errors import ConfigurationError
from semantix.models._api import cpu_flags

if TYPE_CHECKING:
    import onnxruntime

__all__ = ["build_session", "optimize_model", "session_options", "shared_session"]

_PROVIDER = "CPUExecutionProvider"
#: Keep the optimized copy only when loading it takes at most this share of building the session
#: from the .onnx file (measured by `optimize_model` on this machine).
_KEEP_IF_FASTER = 0.8
#: ... and its peak memory at most this multiple of the build's (MiniLM2's copy costs ~75 MB more).
_KEEP_IF_LIGHTER = 1.05

Outcome = Literal["kept", "does not pay", "already optimized", "off", "failed"]


def shared_session(path: Path, threads: int) -> onnxruntime.InferenceSession:
    """The process-wide session for the ONNX file ``path`` at ``threads``, built on first use."""
    session: onnxruntime.InferenceSession = model_cache.get_or_create(
        ("onnx-session", str(path.resolve()), threads),
        lambda: build_session(path, threads),
    )
    return session


def session_options(threads: int) -> onnxruntime.SessionOptions:
    """``threads`` intra-op threads that sleep when idle; one inter-op thread; full graph
    optimization; warnings off."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    return options


def _check_provider() -> None:
    import onnxruntime as ort

    available = ort.get_available_providers()
    if _PROVIDER not in available:
        raise ConfigurationError(
            f"onnxruntime provider {_PROVIDER} is not available; available providers: "
            f"{', '.join(available)}. Reinstall onnxruntime (pip install onnxruntime)"
        )


def build_session(path: Path, threads: int) -> onnxruntime.InferenceSession:
    """A session on ``path``: from its optimized copy when `optimize_model` kept one, else from
    the file itself. A broken copy is deleted and the file is used."""
    import onnxruntime as ort

    _check_provider()
    optimized = _optimized_path(path)
    if optimized is not None and optimized.is_file():
        try:
            return ort.InferenceSession(
                str(optimized), sess_options=session_options(threads), providers=[_PROVIDER]
            )
        except Exception:  # noqa: BLE001 - onnxruntime errors derive from Exception only
            optimized.unlink(missing_ok=True)  # stale or truncated: `semantix download` rewrites it
    return ort.InferenceSession(
        str(path), sess_options=session_options(threads), providers=[_PROVIDER]
    )


def _optimized_path(path: Path) -> Path | None:
    """Where the optimized (ORT-format) copy of ``path`` lives in semantix's cache, if enabled."""
    if not ort_cache_enabled():
        return None
    import onnxruntime as ort

    # what an optimized graph may depend on: the file, the CPU's features, onnxruntime's version
    flags = " ".join(sorted(cpu_flags())) or platform.processor()
    try:
        stat = path.stat()
        key = f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{ort.__version__}|"
        key += f"{platform.machine()}|{flags}"
    except OSError:
        return None
    digest = hashlib.sha256(key.encode()).hexdigest()[:32]
    return cache_path() / "onnx" / f"{path.stem}-{digest}.ort"


def optimize_model(path: str | os.PathLike[str]) -> dict[str, Outcome]:
    """Write the optimized copies of the ONNX files at ``path`` (a file, or every ``.onnx``
    file under a directory), keeping each only where it pays on this machine (docs/judges/nli.md,
    "Cold start"). Returns, per file (relative to a directory ``path``), "kept", "does not pay",
    "already optimized", "off" (``SEMANTIX_ORT_CACHE=0``) or "failed"."""
    root = Path(path)
    if root.is_dir():
        files = {str(file.relative_to(root)): file for file in sorted(root.rglob("*.onnx"))}
    elif root.is_file():
        files = {root.name: root}
    else:
        raise ConfigurationError(
            f"optimize_model needs an ONNX file or a model directory, got {str(root)!r}, "
            "which does not exist"
        )
    return {name: _optimize_file(file) for name, file in files.items()}


def _optimize_file(source: Path) -> Outcome:
    import onnxruntime as ort

    target = _optimized_path(source)
    if target is None:
        return "off"
    skip = target.with_suffix(".skip.json")
    if target.is_file():
        return "already optimized"
    if skip.is_file():
        return "does not pay"
    _check_provider()
    partial = target.with_suffix(f".{os.getpid()}.partial")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        options = session_options(1)
        options.optimized_model_filepath = str(partial)
        options.add_session_config_entry("session.save_model_format", "ORT")
        ort.InferenceSession(str(source), sess_options=options, providers=[_PROVIDER])
        plain = _measure_load(source, "ONNX")
        optimized = _measure_load(partial, "ORT")
        if plain is None or optimized is None:
            return "failed"
        faster = optimized[0] <= _KEEP_IF_FASTER * plain[0]
        if faster and optimized[1] <= _KEEP_IF_LIGHTER * plain[1]:
            replace(partial, target)
            return "kept"
        figures = {"plain_s": plain[0], "optimized_s": optimized[0]}
        figures |= {"plain_peak_mb": plain[1], "optimized_peak_mb": optimized[1]}
        write_atomic(skip, json.dumps(figures))
        return "does not pay"
    except (OSError, RuntimeError):
        return "failed"
    finally:
        partial.unlink(missing_ok=True)


def _measure_load(path: Path, model_format: str) -> tuple[float, float] | None:
    """(seconds, peak MB) of a fresh process building a session on ``path`` (best of two)."""
    source = str(Path(__file__).resolve().parents[2])
    code = (
        f"import sys; sys.path.insert(0, {source!r}); "
        "from semantix.judges._sessions import _measure_main; _measure_main()"
    )
    try:
        completed = subprocess.run(
            [sys.executable, "-c", code, str(path), model_format],
            capture_output=True,
            text=True,
            check=True,
            timeout=600,
        )
        seconds, peak_mb = json.loads(completed.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        return None
    return float(seconds), float(peak_mb)


def _measure_main() -> None:
    """Measuring process: ``PATH FORMAT`` -> prints ``[seconds, peak_mb]`` on stdout."""
    import onnxruntime as ort

    path, model_format = sys.argv[1], sys.argv[2]
    times = []
    for _ in range(2):
        options = session_options(1)
        options.add_session_config_entry("session.load_model_format", model_format)
        started = time.perf_counter()
        session = ort.InferenceSession(path, sess_options=options, providers=[_PROVIDER])
        times.append(time.perf_counter() - started)
        del session
    print(json.dumps([min(times), _peak_mb()]))


def _peak_mb() -> float:
    """This process's peak resident memory: VmHWM where /proc says (ru_maxrss survives exec,
    so it would report the parent's peak), else ru_maxrss."""
    import resource

    try:
        with open("/proc/self/status", encoding="utf-8") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass  # no /proc (macOS, Windows): ru_maxrss below
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, bytes on macOS
    return peak / 1024 / (1024 if sys.platform == "darwin" else 1)
