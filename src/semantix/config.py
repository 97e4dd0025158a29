"""Run-time defaults read from the environment, in one place.

| variable | meaning |
| --- | --- |
| ``SEMANTIX_JUDGE`` | the default judge: ``quantized``, ``nli``, ``embedding``, ``llm`` or ``module:attr`` |
| ``SEMANTIX_THREADS`` | threads per model session (default: cores available / xdist workers) |
| ``SEMANTIX_CACHE_PATH`` | where semantix keeps exported models and its own files |
| ``SEMANTIX_ORT_CACHE`` | ``0`` turns off the on-disk cache of optimized ONNX sessions |
| ``SEMANTIX_MODEL_DIR`` | a local directory holding the default NLI model (air-gapped CI) |
| ``SEMANTIX_EMBEDDING_MODEL_DIR`` | a local directory holding the default embedding model |
| ``SEMANTIX_VERDICTS`` | frozen-verdict mode: ``off`` (default), ``replay``, ``update``, ``strict`` |
| ``SEMANTIX_VERDICTS_PATH`` | the frozen-verdict store (default ``.semantix/verdicts`` in the cwd) |
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cache_path", "default_threads"]


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity), not the machine's total."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def default_threads() -> int:
    """Threads for one model session.

    ``SEMANTIX_THREADS`` wins; otherwise the available cores divided among pytest-xdist workers
    (``PYTEST_XDIST_WORKER_COUNT``), at least 1, so that ``-n 2`` on two cores does not run four
    busy threads.
    """
    configured = os.environ.get("SEMANTIX_THREADS")
    if configured:
        try:
            threads = int(configured)
        except ValueError:
            threads = 0
        if threads < 1:
            raise ValueError(
                f"SEMANTIX_THREADS must be a positive integer, got {configured!r}; "
                "unset it to use the available cores"
            )
        return threads
    workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT", "")
    divisor = int(workers) if workers.isdigit() and int(workers) > 0 else 1
    return max(1, available_cores() // divisor)


def cache_path() -> Path:
    """semantix's own cache directory (exported models, frozen verdicts default).

    ``SEMANTIX_CACHE_PATH`` wins; else the user cache dir (``$XDG_CACHE_HOME/semantix`` or
    ``~/.cache/semantix``), never a temporary directory that the OS may wipe.
    """
    configured = os.environ.get("SEMANTIX_CACHE_PATH")
    if configured:
        return Path(configured).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "semantix"
