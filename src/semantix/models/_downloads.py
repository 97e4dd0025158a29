"""Fetching model files from the Hugging Face hub: the one place semantix touches the network.

`Hub` looks in the cache first, then lets huggingface_hub download (honouring the proxy
variables, ``HF_ENDPOINT`` and ``HF_HUB_OFFLINE``) and maps its final errors into
`ModelNotFoundError`. Every real download enters the download listeners of `semantix._context`
and is recorded with its duration (`recent_downloads`).
"""

from __future__ import annotations

import contextlib
import re
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import KW_ONLY, dataclass
from pathlib import Path
from typing import Any

from semantix import _config as config
from semantix import _context as context
from semantix._config import ModelKind
from semantix.errors import ModelNotFoundError
from semantix.models._deps import require

__all__ = ["CONNECT_TIMEOUT", "Download", "Hub", "recent_downloads"]

_GLOB = re.compile(r"[*?\[\]]")  # a pattern with these fetches a snapshot's matching files

#: Seconds to wait for the Hugging Face endpoint (connection and first answer) before declaring
#: it unreachable: with no network a first use fails within seconds, not after retries.
CONNECT_TIMEOUT = 3.0


@dataclass(frozen=True, slots=True)
class Download:
    """One download from the hub: what was fetched and how long it took."""

    description: str
    repo_id: str
    revision: str
    files: tuple[str, ...]
    seconds: float


def recent_downloads() -> list[Download]:
    """The last downloads of this process (at most 64), oldest first, with their durations."""
    return context.recent_downloads()


@contextlib.contextmanager
def _announced(
    description: str, repo_id: str, revision: str, files: Sequence[str]
) -> Iterator[None]:
    """Enter every download listener (none: a line on stderr) and record the download's time."""
    started = time.perf_counter()
    try:
        with contextlib.ExitStack() as stack:
            listeners = context.download_listeners()
            for factory in listeners:
                stack.enter_context(factory(description))
            if not listeners:
                print(f"semantix: downloading {description}", file=sys.stderr, flush=True)
            yield
    finally:
        seconds = time.perf_counter() - started
        context.record_download(Download(description, repo_id, revision, tuple(files), seconds))


def _reason(exc: BaseException) -> str:
    """The error's type and, for an HTTP answer, its status (``HfHubHTTPError 403 Forbidden``)."""
    seen: BaseException | None = exc
    while seen is not None:
        response = getattr(seen, "response", None)
        status = getattr(response, "status_code", None)
        if isinstance(status, int):
            phrase = getattr(response, "reason", None) or getattr(response, "reason_phrase", "")
            return f"{type(exc).__name__} {status} {phrase}".strip()
        seen = seen.__cause__
    return type(exc).__name__


@dataclass
class Hub:
    """One repository at one revision in one cache: look it up, download what is missing."""

    repo_id: str
    _: KW_ONLY
    revision: str
    cache_dir: Path
    kind: ModelKind
    size_mb: float | None = None

    def __post_init__(self) -> None:
        self.endpoint = config.hf_endpoint()
        self.hub: Any = require("huggingface_hub", extra="onnx", feature="downloading models")

    def fetch(self, allow_patterns: Sequence[str] | None, required_files: Sequence[str]) -> Path:
        patterns = list(allow_patterns) if allow_patterns is not None else None
        cached, absent = self._cached(patterns, required_files)
        if cached is not None and not absent:
            return cached
        missing = f" with {', '.join(absent)}" if cached is not None else ""
        if config.hf_offline():
            raise self._not_found(missing, "HF_HUB_OFFLINE is set")
        self._check_connection()
        if patterns is not None and not any(_GLOB.search(p) for p in patterns):
            return self._download_files(patterns, required_files)
        return self._download_snapshot(patterns, required_files)

    def _cached(
        self, patterns: list[str] | None, required_files: Sequence[str]
    ) -> tuple[Path | None, list[str]]:
        """The cached snapshot (no network) and the required files it lacks."""
        try:
            path = self._snapshot(patterns, local_files_only=True)
        except (FileNotFoundError, self.hub.errors.LocalEntryNotFoundError):
            return None, list(required_files)
        return path, [name for name in required_files if not (path / name).is_file()]

    def _check_connection(self) -> None:
        """Fail within seconds (its downloads retry for ~20 s) when the endpoint cannot be
        reached, through huggingface_hub's own session: its proxies, certificates and headers."""
        url = self.hub.hf_hub_url(
            self.repo_id, "config.json", revision=self.revision, endpoint=self.endpoint
        )
        try:
            self.hub.utils.get_session().head(
                url, headers=self.hub.utils.build_hf_headers(), timeout=CONNECT_TIMEOUT
            )
        except Exception as exc:  # noqa: BLE001 - requests and httpx errors alike; kept as cause
            raise self._not_found(
                "", f"{self.endpoint} could not be reached ({_reason(exc)})", cause=exc
            ) from None

    def _describe(self, files: Sequence[str] | None) -> str:
        what = ", ".join(files) if files else "all files"
        weight = f", ~{self.size_mb:.0f} MB" if self.size_mb else ""
        return (
            f"{self.repo_id} at revision {self.revision[:12]} ({what}{weight}) "
            f"from {self.endpoint} into {self.cache_dir}"
        )

    def _download_files(self, files: list[str], required_files: Sequence[str]) -> Path:
        """Each file on its own: those not required may be absent from the repository."""
        snapshot: Path | None = None
        with _announced(self._describe(files), self.repo_id, self.revision, files):
            for name in files:
                try:
                    local = self.hub.hf_hub_download(
                        self.repo_id,
                        name,
                        revision=self.revision,
                        cache_dir=self.cache_dir,
                        endpoint=self.endpoint,
                        etag_timeout=CONNECT_TIMEOUT,
                    )
                except self.hub.errors.LocalEntryNotFoundError as exc:
                    # (a subclass of EntryNotFoundError): the hub could not be asked, or answered
                    # with an error; not an answer that the file is absent.
                    raise self._mapped(exc) from None
                except self.hub.errors.EntryNotFoundError as exc:
                    if name in required_files:
                        raise ModelNotFoundError(
                            f"repository {self.repo_id!r} has no file {name!r} at revision "
                            f"{self.revision}; pass file=... naming one it has, or another "
                            "revision",
                            cause=exc,
                        ) from None
                    continue  # optional: e.g. a CPU variant; the judge falls back
                except Exception as exc:  # noqa: BLE001 - mapped or re-raised by _mapped
                    raise self._mapped(exc) from None
                snapshot = Path(local).parents[len(Path(name).parts) - 1]
        if snapshot is None:
            raise ModelNotFoundError(
                f"repository {self.repo_id!r} has none of {', '.join(files)} at revision "
                f"{self.revision}; check the model name and revision"
            )
        return snapshot

    def _download_snapshot(self, patterns: list[str] | None, required_files: Sequence[str]) -> Path:
        with _announced(self._describe(patterns), self.repo_id, self.revision, patterns or []):
            try:
                path = self._snapshot(
                    patterns, endpoint=self.endpoint, etag_timeout=CONNECT_TIMEOUT
                )
            except Exception as exc:  # noqa: BLE001 - mapped or re-raised by _mapped
                raise self._mapped(exc) from None
        absent = [name for name in required_files if not (path / name).is_file()]
        if absent:
            raise ModelNotFoundError(
                f"repository {self.repo_id!r} at revision {self.revision} has no "
                f"{', '.join(absent)}; pass file=... naming a file it has, or another revision"
            )
        return path

    def _snapshot(self, patterns: list[str] | None, **options: Any) -> Path:
        """huggingface_hub's ``snapshot_download`` of this repo and revision into our cache."""
        return Path(
            self.hub.snapshot_download(
                self.repo_id,
                revision=self.revision,
                cache_dir=self.cache_dir,
                allow_patterns=patterns,
                **options,
            )
        )

    def _mapped(self, exc: Exception) -> ModelNotFoundError:
        """huggingface_hub's final error as ours (``exc`` kept as its ``cause``, not chained);
        anything else (a bug, not a network or hub condition) is raised as itself."""
        errors = self.hub.errors
        if isinstance(exc, errors.RepositoryNotFoundError):  # also a gated repository
            return ModelNotFoundError(
                f"Hugging Face has no repository {self.repo_id!r} (or it is private or gated: "
                "log in with `huggingface-cli login`); check the name",
                cause=exc,
            )
        if isinstance(exc, errors.RevisionNotFoundError):
            return ModelNotFoundError(
                f"repository {self.repo_id!r} has no revision {self.revision!r}; pass an "
                "existing commit, branch or tag",
                cause=exc,
            )
        if isinstance(exc, (OSError, errors.LocalEntryNotFoundError, errors.HfHubHTTPError)):
            return self._not_found("", f"the download failed ({_reason(exc)})", cause=exc)
        raise exc

    def _not_found(
        self, missing: str, why: str, *, cause: BaseException | None = None
    ) -> ModelNotFoundError:
        """What is missing, where semantix looked, why it could not fetch it, the two ways out."""
        variable = config.MODEL_DIR_VARIABLES[self.kind]
        return ModelNotFoundError(
            f"model {self.repo_id!r} (revision {self.revision[:12]}){missing} is not in the "
            f"Hugging Face cache at {self.cache_dir} and {why}. Either run `semantix download` "
            "on a connected machine and copy its cache here (or point HF_HOME at it), or use a "
            f"local model directory: {variable}=/path/to/model (or the judge's model=...)",
            cause=cause,
        )
