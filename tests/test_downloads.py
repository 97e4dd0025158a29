"""Downloads from the hub, with local stand-ins: a throttled HTTP server on 127.0.0.1 playing the
Hugging Face hub (``HF_ENDPOINT``), a tiny proxy that records it was used, and fake hub caches.

Nothing here reaches the network.
"""

from __future__ import annotations

import contextlib
import hashlib
import socket
import socketserver
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from models.fixtures import *  # session fixtures: the tiny models
from semantix import ModelNotFoundError, QuantizedNLIJudge
from semantix import _context as context
from semantix._cache import model_cache
from semantix.models import download_model, resolve_model
from semantix.models._api import default_model, hf_cache_dir, lookup_model
from semantix.models._downloads import recent_downloads

COMMIT = "0123456789abcdef0123456789abcdef01234567"
PROXY_VARIABLES = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY")


@pytest.fixture(autouse=True)
def no_inherited_proxy(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Neither the machine's proxy settings nor its Hugging Face cache leak into a test."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    # huggingface_hub reads HF_HUB_OFFLINE once, at import: an earlier offline test may have
    # imported it; semantix reads the variable when it resolves a model.
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_OFFLINE", False)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))


@pytest.fixture(autouse=True)
def own_listeners_only() -> Iterator[None]:
    """The session's download listeners (the pytest plugin's) step aside: a test registers its
    own, or none, as a script or the CLI would."""
    registered = context.download_listeners()
    for factory in registered:
        context.remove_download_listener(factory)
    yield
    for factory in registered:
        context.add_download_listener(factory)


# --- a hub on 127.0.0.1 ------------------------------------------------------------------------


@dataclass
class FakeHub:
    """Repositories at one commit, served the way huggingface_hub downloads a file:
    ``HEAD``/``GET /{repo}/resolve/{revision}/{path}`` with the hub's headers."""

    files: dict[str, dict[str, bytes]]  # repo id -> path -> content
    commit: str = COMMIT
    seconds_per_file: float = 0.0  # each GET trickles its body out over this long
    requests: list[tuple[str, str]] = field(default_factory=list)
    url: str = ""

    def lookup(self, path: str) -> tuple[int, dict[str, str], bytes]:
        for repo_id, files in self.files.items():
            prefix = f"/{repo_id}/resolve/"
            if path.startswith(prefix):
                revision, _, name = path[len(prefix) :].partition("/")
                headers = {"X-Repo-Commit": self.commit}
                if revision not in (self.commit, "main"):
                    return 404, {**headers, "X-Error-Code": "RevisionNotFound"}, b""
                if name not in files:
                    return 404, {**headers, "X-Error-Code": "EntryNotFound"}, b""
                body = files[name]
                etag = hashlib.sha256(body).hexdigest()
                return 200, {**headers, "ETag": f'"{etag}"'}, body
        return 404, {"X-Error-Code": "RepoNotFound"}, b""


def _handler(hub: FakeHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _answer(self, with_body: bool) -> None:
            hub.requests.append((self.command, self.path))
            status, headers, body = hub.lookup(self.path)
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if not with_body or not body:
                return
            chunks = [body[i : i + 4096] for i in range(0, len(body), 4096)]
            for chunk in chunks:
                time.sleep(hub.seconds_per_file / len(chunks))
                self.wfile.write(chunk)

        def do_HEAD(self) -> None:
            self._answer(with_body=False)

        def do_GET(self) -> None:
            self._answer(with_body=True)

        def log_message(self, format: str, *args: object) -> None:
            pass  # quiet: requests are recorded in hub.requests

    return Handler


@contextlib.contextmanager
def serve(hub: FakeHub) -> Iterator[FakeHub]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(hub))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    hub.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield hub
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def model_files(directory: Path, onnx_as: tuple[str, ...]) -> dict[str, bytes]:
    """A tiny model's files as a hub repository holds them, its int8 file under each name."""
    files = {
        name: (directory / name).read_bytes()
        for name in ("config.json", "tokenizer.json", "tokenizer_config.json")
    }
    int8 = (directory / "model_quantized.onnx").read_bytes()
    files.update(dict.fromkeys(onnx_as, int8))
    return files


@pytest.fixture
def listener() -> Iterator[list[str]]:
    """A download listener that records each description on entry and 'done' on exit."""
    events: list[str] = []

    @contextlib.contextmanager
    def listen(description: str) -> Iterator[None]:
        events.append(description)
        yield
        events.append("done")

    context.add_download_listener(listen)
    yield events
    context.remove_download_listener(listen)


TINY = {
    "config.json": b"{}",
    "tokenizer.json": b'{"version": "1.0"}',
    "onnx/model.onnx": b"x" * 20_000,
}


def test_download_says_what_enters_listeners_and_records_its_duration(
    monkeypatch: pytest.MonkeyPatch,
    listener: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    with serve(FakeHub({"acme/tiny-nli": TINY}, seconds_per_file=0.2)) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        resolved = resolve_model(
            "acme/tiny-nli",
            kind="nli",
            revision=COMMIT,
            allow_patterns=["config.json", "tokenizer.json", "onnx/model.onnx"],
            required_files=["onnx/model.onnx"],
        )
        assert (resolved.path / "onnx/model.onnx").read_bytes() == TINY["onnx/model.onnx"]
        assert resolved.path.name == COMMIT
        description, done = listener
        assert done == "done"
        for part in ("acme/tiny-nli", COMMIT[:12], "onnx/model.onnx", "config.json", hub.url):
            assert part in description
        assert "semantix: downloading" not in capsys.readouterr().err  # the listener says it
        record = recent_downloads()[-1]
        assert (record.repo_id, record.revision, record.description) == (
            "acme/tiny-nli",
            COMMIT,
            description,
        )
        # The server trickled three bodies out over 0.2 s each: a lower bound, not a speed.
        assert record.seconds >= 0.6
        # A cache hit: no listener, no request, no new record.
        served = len(hub.requests)
        again = resolve_model(
            "acme/tiny-nli",
            kind="nli",
            revision=COMMIT,
            allow_patterns=["config.json", "tokenizer.json", "onnx/model.onnx"],
            required_files=["onnx/model.onnx"],
        )
    assert again.path == resolved.path
    assert len(hub.requests) == served and len(listener) == 2
    assert recent_downloads()[-1] is record


def test_a_file_not_required_may_be_absent_a_required_one_may_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with serve(FakeHub({"acme/tiny-nli": TINY})) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        path = download_model(
            "acme/tiny-nli",
            revision=COMMIT,
            allow_patterns=["config.json", "onnx/model.onnx", "special_tokens_map.json"],
        )
        assert sorted(p.name for p in path.rglob("*") if p.is_file()) == [
            "config.json",
            "model.onnx",
        ]
        with pytest.raises(ModelNotFoundError, match=r"has no file 'onnx/int8\.onnx' at revision"):
            resolve_model(
                "acme/tiny-nli",
                kind="nli",
                revision=COMMIT,
                allow_patterns=["config.json", "onnx/int8.onnx"],
                required_files=["onnx/int8.onnx"],
            )


def test_hub_errors_become_model_not_found(monkeypatch: pytest.MonkeyPatch) -> None:
    with serve(FakeHub({"acme/tiny-nli": TINY})) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        with pytest.raises(ModelNotFoundError, match="no repository 'acme/other'"):
            download_model("acme/other", allow_patterns=["config.json"])
        with pytest.raises(ModelNotFoundError, match="has no revision 'v9'"):
            download_model("acme/tiny-nli", revision="v9", allow_patterns=["config.json"])


def test_offline_mode_never_asks_the_hub(monkeypatch: pytest.MonkeyPatch) -> None:
    with serve(FakeHub({"acme/tiny-nli": TINY})) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
        with pytest.raises(ModelNotFoundError, match="HF_HUB_OFFLINE is set"):
            download_model("acme/tiny-nli", allow_patterns=["config.json"])
    assert hub.requests == []


def test_the_default_judge_fetches_exactly_the_default_models_files(
    monkeypatch: pytest.MonkeyPatch, two_label_model: Path, listener: list[str]
) -> None:
    info = default_model("nli")
    files = model_files(two_label_model, onnx_as=(info.onnx_file,))
    with serve(FakeHub({info.repo_id: files}, commit=info.revision)) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        judge = QuantizedNLIJudge(lazy_load=False)
    fetched = sorted({path.split("/resolve/")[1].split("/", 1)[1] for _, path in hub.requests})
    assert fetched == sorted(info.files())  # special_tokens_map.json: asked, absent, skipped
    assert info.revision[:12] in listener[0] and info.repo_id in listener[0]
    assert judge.identity.model == info.repo_id
    assert (judge.identity.file, judge.identity.note) == (info.onnx_file, None)
    verdict = judge.evaluate("Thank you for waiting.", "The text is polite.", 0.5)
    assert verdict.passed and verdict.score is not None and verdict.score > 0.5


@pytest.mark.parametrize(
    "argv",
    [["download"], ["download", "--model", "deberta-v3-xsmall-zeroshot"]],
    ids=["judge", "model"],
)
def test_semantix_download_fetches_exactly_the_default_models_files(
    monkeypatch: pytest.MonkeyPatch,
    two_label_model: Path,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
) -> None:
    from semantix.cli import main

    info = default_model("nli")
    files = model_files(two_label_model, onnx_as=(info.onnx_file, "onnx/model.onnx"))
    with serve(FakeHub({info.repo_id: files}, commit=info.revision)) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        assert main(argv) == 0
    fetched = {path.split("/resolve/")[1].split("/", 1)[1] for _, path in hub.requests}
    assert fetched == set(info.files())  # not onnx/model.onnx, which the repo also has
    assert f"semantix: downloading {info.repo_id} at revision {info.revision[:12]}" in (
        capsys.readouterr().err
    )


# --- the CPU-specific file and its portable fallback -------------------------------------------

CROSS_ENCODER = lookup_model("nli-deberta-v3-xsmall", "nli")
assert CROSS_ENCODER is not None
VARIANT = dict(CROSS_ENCODER.cpu_files)["vnni"]
PORTABLE = CROSS_ENCODER.onnx_file


@pytest.fixture
def vnni(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("semantix.models._api.cpu_kind", lambda: "vnni")


@pytest.mark.usefixtures("vnni")
def test_variant_absent_at_the_revision_falls_back_to_the_portable_file(
    monkeypatch: pytest.MonkeyPatch, entailing_model: Path
) -> None:
    info = CROSS_ENCODER
    assert info is not None
    files = model_files(entailing_model, onnx_as=(PORTABLE,))  # the hub lacks the variant
    with serve(FakeHub({info.repo_id: files}, commit=info.revision)) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        judge = QuantizedNLIJudge("nli-deberta-v3-xsmall", lazy_load=False)
    asked = {path.rsplit(info.revision + "/", 1)[1] for _, path in hub.requests}
    assert {VARIANT, PORTABLE} <= asked
    assert judge.identity.file == PORTABLE
    assert judge.identity.note == (
        f"{VARIANT} (faster on vnni CPUs) is not in the repository at revision "
        f"{info.revision[:12]}; loaded the portable {PORTABLE}"
    )
    assert judge.evaluate("Hello.", "The text greets.", 0.5).passed
    # The next process finds the portable file in the cache and the variant known absent.
    model_cache.clear()
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    again = QuantizedNLIJudge("nli-deberta-v3-xsmall", lazy_load=False)
    assert (again.identity.file, again.identity.note) == (PORTABLE, judge.identity.note)


def fake_hf_cache(root: Path, repo_id: str, revision: str, files: dict[str, bytes]) -> Path:
    """A Hugging Face cache entry, laid out as huggingface_hub writes one."""
    repo = root / f"models--{repo_id.replace('/', '--')}"
    snapshot = repo / "snapshots" / revision
    for name, content in files.items():
        (snapshot / name).parent.mkdir(parents=True, exist_ok=True)
        (snapshot / name).write_bytes(content)
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / "main").write_text(revision)
    return snapshot


@pytest.mark.usefixtures("vnni")
@pytest.mark.parametrize("with_variant", [False, True], ids=["variant-missing", "variant-cached"])
def test_cached_snapshot_with_or_without_the_variant(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, entailing_model: Path, with_variant: bool
) -> None:
    info = CROSS_ENCODER
    assert info is not None
    onnx = (PORTABLE, VARIANT) if with_variant else (PORTABLE,)
    fake_hf_cache(tmp_path / "hub", info.repo_id, info.revision, model_files(entailing_model, onnx))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    judge = QuantizedNLIJudge("nli-deberta-v3-xsmall", lazy_load=False)
    if with_variant:
        assert (judge.identity.file, judge.identity.note) == (VARIANT, None)
    else:
        assert judge.identity.file == PORTABLE
        assert judge.identity.note is not None
        assert judge.identity.note.startswith(
            f"{VARIANT} (faster on vnni CPUs) is not in the cache"
        )
    assert judge.evaluate("Hello.", "The text greets.", 0.5).passed


def test_a_cached_variant_without_the_portable_file_is_not_enough(
    vnni: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, entailing_model: Path
) -> None:
    info = CROSS_ENCODER
    assert info is not None
    fake_hf_cache(
        tmp_path / "hub", info.repo_id, info.revision, model_files(entailing_model, (VARIANT,))
    )
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelNotFoundError, match=f"with {PORTABLE} is not in the Hugging Face"):
        QuantizedNLIJudge("nli-deberta-v3-xsmall", lazy_load=False)


# --- proxies -----------------------------------------------------------------------------------


class RefusingProxy(socketserver.ThreadingTCPServer):
    """An HTTP proxy that records each request line and refuses it (403)."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self) -> None:
        self.lines: list[str] = []
        proxy = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                proxy.lines.append(self.rfile.readline().decode("latin-1").strip())
                self.wfile.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")

        super().__init__(("127.0.0.1", 0), Handler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


@pytest.fixture
def proxy() -> Iterator[RefusingProxy]:
    server = RefusingProxy()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join()


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_https_proxy_from_the_environment_is_used(
    monkeypatch: pytest.MonkeyPatch, proxy: RefusingProxy
) -> None:
    monkeypatch.setenv("HF_ENDPOINT", "https://hub.semantix.invalid")
    monkeypatch.setenv("HTTPS_PROXY", proxy.url)
    with pytest.raises(ModelNotFoundError) as info:
        download_model("acme/tiny-nli", allow_patterns=["config.json"])
    assert len(proxy.lines) == 1 and proxy.lines[0].startswith("CONNECT hub.semantix.invalid:443 ")
    message = str(info.value)
    assert "https://hub.semantix.invalid could not be reached (ProxyError)" in message
    assert "'acme/tiny-nli'" in message and "semantix download" in message


def test_http_proxy_and_no_proxy_are_honoured(
    monkeypatch: pytest.MonkeyPatch, proxy: RefusingProxy
) -> None:
    endpoint = f"http://127.0.0.1:{_closed_port()}"
    monkeypatch.setenv("HF_ENDPOINT", endpoint)
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    with pytest.raises(ModelNotFoundError, match=r"the download failed \(\w+ 403 Forbidden\)"):
        download_model("acme/tiny-nli", allow_patterns=["config.json"])
    assert proxy.lines and all(line.startswith(f"HEAD {endpoint}/acme/") for line in proxy.lines)
    used = len(proxy.lines)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    with pytest.raises(ModelNotFoundError, match=r"could not be reached \(ConnectionError\)"):
        download_model("acme/tiny-nli", allow_patterns=["config.json"])
    assert len(proxy.lines) == used  # the second attempt went straight to the (closed) endpoint


def test_unreachable_endpoint_fails_without_retrying(monkeypatch: pytest.MonkeyPatch) -> None:
    endpoint = f"http://127.0.0.1:{_closed_port()}"
    monkeypatch.setenv("HF_ENDPOINT", endpoint)
    with pytest.raises(ModelNotFoundError) as info:
        download_model("acme/tiny-nli", allow_patterns=["config.json"])
    message = str(info.value)
    assert f"{endpoint} could not be reached (ConnectionError" in message
    assert "SEMANTIX_MODEL_DIR=/path/to/model" in message and "local model directory" in message


def test_an_unreachable_hub_is_one_short_line_with_the_cause_kept_but_not_chained(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    endpoint = f"http://127.0.0.1:{_closed_port()}"
    monkeypatch.setenv("HF_ENDPOINT", endpoint)
    with pytest.raises(ModelNotFoundError) as info:
        download_model("acme/tiny-nli", allow_patterns=["config.json"])
    error = info.value
    message = str(error)
    assert "\n" not in message and message.count("ConnectionError") == 1
    assert "Max retries" not in message and "127.0.0.1" in message  # where, not the cause's text
    assert len(message.replace(str(hf_cache_dir()), "")) < 360, message
    assert error.__cause__ is None and error.__suppress_context__
    assert type(error.cause).__name__ == "ConnectionError"  # the low-level error, kept


def test_a_script_offline_ends_in_one_traceback_and_one_short_line(tmp_path: Path) -> None:
    """``python examples/quickstart.py`` with HF_HUB_OFFLINE=1 and an empty cache."""
    import os
    import subprocess
    import sys

    script = Path(__file__).parents[1] / "examples" / "quickstart.py"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("SEMANTIX_", "HF_"))},
        "HF_HOME": str(tmp_path / "hf"),
        "HF_HUB_OFFLINE": "1",
    }
    done = subprocess.run(
        [sys.executable, str(script)],
        check=False,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert done.stderr.count("Traceback (most recent call last)") == 1, done.stderr
    assert "During handling" not in done.stderr and "direct cause" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("semantix.ModelNotFoundError: model 'MoritzLaurer/")
    assert last.count("HF_HUB_OFFLINE is set") == 1
    assert len(last.replace(str(tmp_path / "hf" / "hub"), "")) < 400, last
    assert "semantix download" in last and "SEMANTIX_MODEL_DIR=/path/to/model" in last
