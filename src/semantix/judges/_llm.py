"""LLMJudge: ask a chat model, through the openai SDK (imported on first use), how well an
output meets an intent; its fallbacks, retries, deadlines and errors are in docs/judges/llm.md."""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from semantix import _config as config
from semantix._config import check_positive_int, is_number
from semantix._text import MASK, mask_url, read_model_json
from semantix.errors import ConfigurationError, JudgeError
from semantix.judges._base import JudgeIdentity, TokenUsage
from semantix.judges._deadline import run_with_deadline
from semantix.judges._llm_errors import Failures
from semantix.judges._llm_http import ReplyTooLargeError, deadline_http_client
from semantix.judges._llm_prompt import (
    EQUIVALENCE_PROMPT_VERSION,
    FORMATS,
    PROMPT_VERSION,
    parse_verdict,
    response_format,
)
from semantix.judges._prompted import PromptedJudge, Reply
from semantix.models._deps import ensure_installed, require

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["EQUIVALENCE_PROMPT_VERSION", "PROMPT_VERSION", "LLMJudge", "mask_url", "parse_verdict"]

logger = logging.getLogger("semantix.judges._llm")

NO_KEY_PLACEHOLDER = "semantix-no-key"  # sent to a base_url given no key (local servers ignore it)
DEFAULT_REQUEST_TIMEOUT = 30.0  # seconds one attempt may take


class LLMJudge(PromptedJudge):
    """A judge that asks a chat model, through the openai SDK, for a score and a reason.

    Args:
        model: the chat model to ask.
        base_url: an OpenAI-compatible endpoint; default ``OPENAI_BASE_URL``, else OpenAI.
        api_key: default ``OPENAI_API_KEY``; not needed with a base URL. Masked everywhere.
        client: an ``openai.OpenAI`` client instead of ``base_url``/``api_key``; it gets
            ``request_timeout`` and ``max_retries`` through ``with_options``.
        request_timeout: seconds one HTTP attempt may take, connect to last byte (default 30);
            through an injected client, the whole call gets ``request_timeout * (max_retries +
            1)``. A check's own ``timeout=`` bounds the whole check.
        max_retries: extra attempts the openai SDK makes after a transient failure.
        temperature: sampling temperature; ``None`` omits it (for models that reject it).
        seed: best-effort determinism where the server supports it; ``None`` omits it.
        max_concurrency: requests in flight at once, across every batch, thread and async check
            that uses this judge.
        calibrate: False: never calibrate a threshold from an intent's examples (step 3 of the
            threshold order, one request per example and counterexample on first use: 24 for
            the ready-made ``Polite``); the intent's or the judge's threshold applies instead.

    The key is checked, and the client built, on first use: constructing the judge without
    credentials does not fail, judging does (with a `ConfigurationError`).
    """

    __module__ = "semantix"

    def __init__(
        self,
        model: str = "gpt-4o-mini",
        api_key: str | None = None,
        base_url: str | None = None,
        *,
        client: Any = None,
        request_timeout: float | None = None,
        max_retries: int = 2,
        temperature: float | None = 0.0,
        seed: int | None = 0,
        max_concurrency: int = 4,
        calibrate: bool = True,
    ) -> None:
        if request_timeout is None:
            request_timeout = DEFAULT_REQUEST_TIMEOUT
        if not isinstance(model, str) or not model.strip():
            raise ConfigurationError(
                f"model must be a model name such as 'gpt-4o-mini', got {model!r}"
            )
        if client is not None and (base_url is not None or api_key is not None):
            raise ConfigurationError(
                "pass either client=... or base_url=/api_key=..., not both: an injected client "
                "already carries its base URL and key"
            )
        if not is_number(request_timeout) or request_timeout <= 0:
            raise ConfigurationError(
                f"request_timeout must be a positive number of seconds, got {request_timeout!r}; "
                "pass e.g. request_timeout=30"
            )
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ConfigurationError(
                f"max_retries must be an integer >= 0, got {max_retries!r}; pass e.g. "
                "max_retries=2 (0 turns retries off)"
            )
        check_positive_int(max_concurrency, what="max_concurrency", example=4)
        if not isinstance(calibrate, bool):
            raise ConfigurationError(
                f"calibrate must be True or False, got {calibrate!r}; pass calibrate=False to "
                "skip calibrating thresholds from intents' examples"
            )
        if client is None:
            ensure_installed(("openai",), extra="openai", feature="LLMJudge")
        elif callable(getattr(client, "with_options", None)):  # the SDK's own client
            client = client.with_options(timeout=float(request_timeout), max_retries=max_retries)
        self.model = model
        self.base_url = base_url or (config.openai_base_url() if client is None else None)
        self._api_key = api_key or (config.openai_api_key() if client is None else None)
        self.request_timeout = float(request_timeout)
        self.max_retries = max_retries
        self.temperature = temperature
        self.seed = seed
        self.max_concurrency = max_concurrency
        self.calibrates = calibrate
        self.identity = JudgeIdentity("LLMJudge", model=model, revision=PROMPT_VERSION)
        self.secrets: tuple[object, ...] = (
            self._api_key,
            getattr(client, "api_key", None),
            urlsplit(self.base_url).password if self.base_url else None,
        )
        self._injected: Any = client
        self._client: Any = None
        self._lock = threading.Lock()
        #: Requests in flight at once, across threads and async checks (not only per batch).
        self._in_flight = threading.BoundedSemaphore(max_concurrency)
        self._format_index = 0  # the first response format the server accepted; under _lock

    def __repr__(self) -> str:
        parts = [f"model={self.model!r}"]
        if self.base_url:
            parts.append(f"base_url={mask_url(self.base_url)!r}")
        if self._api_key:
            parts.append(f"api_key={MASK!r}")
        return f"LLMJudge({', '.join(parts)})"

    def close(self) -> None:
        """Close the HTTP connections of the client this judge built (not an injected one)."""
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _reply(self, messages: list[dict[str, str]], schema: dict[str, Any]) -> Reply:
        response = self._complete(messages, schema)
        choices = getattr(response, "choices", None)
        if not choices:
            raise JudgeError(
                f"{self._name()}: the server returned a completion with no choices "
                f"({self._quote(repr(response))}); an empty reply is never a pass"
            )
        message = getattr(choices[0], "message", None)
        refusal = getattr(message, "refusal", None)
        if refusal:
            raise JudgeError(
                f"{self._name()} refused to judge: {self._quote(str(refusal))}. "
                "A refusal is never a pass; rephrase the intent or use another model"
            )
        truncated = getattr(choices[0], "finish_reason", None) == "length"
        return Reply(getattr(message, "content", None), _usage(response), truncated)

    def ask_json(
        self, messages: list[dict[str, str]], schema: dict[str, Any]
    ) -> tuple[Any, str | None]:
        """One request through this judge's path, for tools such as ``semantix examples``: the
        reply's content parsed as JSON (None if it is not), and the content as sent."""
        response = self._complete(messages, schema)
        choices = getattr(response, "choices", None) or []
        message = getattr(choices[0], "message", None) if choices else None
        content = getattr(message, "content", None)
        if not isinstance(content, str):
            return None, None
        try:
            return read_model_json(content), content
        except ValueError:
            return None, content

    def _complete(self, messages: list[dict[str, str]], schema: dict[str, Any]) -> Any:
        """One chat completion, falling back through response formats the server rejects."""
        openai = require("openai", extra="openai", feature="LLMJudge")
        client = self._get_client()
        rejected: list[str] = []
        with self._lock:
            index = self._format_index
        while True:
            mode = FORMATS[index]
            try:
                with self._in_flight:
                    response = self._request(client, messages, response_format(mode, schema))
            except openai.APIStatusError as exc:
                if exc.status_code in (400, 422) and index < len(FORMATS) - 1:
                    rejected.append(f"{mode} ({exc.status_code})")
                    logger.info("server rejected response_format %s; trying the next mode", mode)
                    index += 1
                    continue
                self._failures().fail(exc, rejected)
            except (openai.OpenAIError, ReplyTooLargeError) as exc:
                self._failures().fail(exc, rejected)
            with self._lock:
                self._format_index = index  # remembered only once a mode has worked
            return response

    def _request(
        self, client: Any, messages: list[dict[str, str]], format_: dict[str, Any] | None
    ) -> Any:
        optional = {"response_format": format_, "temperature": self.temperature, "seed": self.seed}
        options: dict[str, Any] = {"model": self.model, "messages": messages}
        options |= {name: value for name, value in optional.items() if value is not None}
        if self._injected is None:  # our own HTTP client bounds each attempt
            return client.chat.completions.create(**options)
        overall = self.request_timeout * (self.max_retries + 1)
        return run_with_deadline(
            lambda: client.chat.completions.create(**options),
            overall,
            lambda: self._failures().timeout(None, overall=overall),
            name="semantix-llm-call",
        )

    def _get_client(self) -> Any:
        if self._injected is not None:
            return self._injected
        with self._lock:
            if self._client is None:
                self._client = self._build_client()
            return self._client

    def _build_client(self) -> Any:
        openai = require("openai", extra="openai", feature="LLMJudge")
        api_key = self._api_key
        if api_key is None:
            if self.base_url is None:
                raise ConfigurationError(
                    f"LLMJudge(model={self.model!r}) has no API key for the OpenAI API: set "
                    "OPENAI_API_KEY or pass api_key=..., or point base_url=... / OPENAI_BASE_URL "
                    "at an OpenAI-compatible server (a local server needs no key)"
                )
            api_key = NO_KEY_PLACEHOLDER
        return openai.OpenAI(
            api_key=api_key,
            base_url=self.base_url,
            timeout=self.request_timeout,
            max_retries=self.max_retries,
            http_client=deadline_http_client(self.request_timeout),
        )

    def _failures(self) -> Failures:
        url = self.base_url or str(getattr(self._injected, "base_url", None) or "")
        where = mask_url(url) or "the OpenAI API"
        return Failures(self._name(), where, self.request_timeout, self.max_retries, self.secrets)


def _usage(response: Any) -> TokenUsage | None:
    usage = getattr(response, "usage", None)
    prompt = getattr(usage, "prompt_tokens", None)
    completion = getattr(usage, "completion_tokens", None)
    if isinstance(prompt, int) and isinstance(completion, int):
        return TokenUsage(prompt_tokens=prompt, completion_tokens=completion)
    return None
