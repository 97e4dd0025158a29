"""A loopback server that answers text-embeddings-inference's ``POST /predict`` as TEI documents
it (docs/openapi.json of huggingface/text-embeddings-inference: ``PredictRequest`` ->
``PredictResponse``), running a tiny ONNX NLI model with onnxruntime: the tests of
`semantix.judges._tei` compare its verdicts with the local judge's on the same file."""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


class TEIModel:
    """The served model: tokenizer.json, config.json's labels and one ONNX file."""

    def __init__(self, directory: Path, onnx_file: str) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
        self.labels = [config["id2label"][str(i)] for i in range(len(config["id2label"]))]
        self.session = onnxruntime.InferenceSession(
            str(directory / onnx_file), providers=["CPUExecutionProvider"]
        )
        self.inputs = [item.name for item in self.session.get_inputs()]

    def logits(self, first: str, second: str | None) -> list[float]:
        import numpy as np

        encoding = self.tokenizer.encode(first, second) if second else self.tokenizer.encode(first)
        columns = {
            "input_ids": encoding.ids,
            "attention_mask": encoding.attention_mask,
            "token_type_ids": encoding.type_ids,
        }
        feed = {name: np.array([columns[name]], dtype=np.int64) for name in self.inputs}
        return [float(value) for value in self.session.run(None, feed)[0][0]]

    def predictions(self, item: Any, raw: bool) -> list[dict[str, Any]]:
        first, second = (
            (item, None)
            if isinstance(item, str)
            else (item[0], item[-1] if len(item) == 2 else None)
        )
        values = self.logits(first, second)
        if not raw:
            top = max(values)
            exps = [math.exp(v - top) for v in values]
            values = [e / sum(exps) for e in exps]
        found = [{"label": label, "score": v} for label, v in zip(self.labels, values, strict=True)]
        return sorted(found, key=lambda p: -p["score"])  # TEI lists the best label first


class TEIServer:
    """``with TEIServer(model).running() as url``; ``fail`` makes the next replies an HTTP
    status, ``garbage`` a reply off the schema, ``delay`` a slow answer."""

    def __init__(self, model: TEIModel) -> None:
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self.fail: tuple[int, dict[str, str]] | None = None
        self.garbage: Any = None
        self.delay = 0.0

    @contextmanager
    def running(self) -> Iterator[str]:
        server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}"
        finally:
            server.shutdown()
            server.server_close()
            thread.join()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                owner.requests.append(body)
                if owner.delay:
                    time.sleep(owner.delay)
                if self.path != "/predict":
                    return self._send(404, {"error": "not found", "error_type": "validation"})
                if owner.fail is not None:
                    return self._send(*owner.fail)
                if owner.garbage is not None:
                    return self._send(200, owner.garbage)
                inputs, raw = body["inputs"], bool(body.get("raw_scores", False))
                batch = isinstance(inputs, list) and inputs and isinstance(inputs[0], list)
                if batch:
                    return self._send(200, [owner.model.predictions(i, raw) for i in inputs])
                return self._send(200, owner.model.predictions(inputs, raw))

            def _send(self, status: int, payload: Any) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (the timeout test)

        return Handler
