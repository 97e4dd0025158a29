"""LLMJudge: ask a chat model, through the openai SDK, how well an output meets an intent.

```python
from semantix import LLMJudge, assert_semantic

# Needs OPENAI_API_KEY, or an OpenAI-compatible server in OPENAI_BASE_URL (then no key).
judge = LLMJudge(model="gpt-4o-mini")
assert_semantic("Thank you for your patience.", "polite", judge=judge)
```

Works with any OpenAI-compatible server (vLLM, llama.cpp, Ollama, LiteLLM, ...): set ``base_url``
or ``OPENAI_BASE_URL``; a server given that way needs no key.

The model is asked for ``{"reason": "...", "score": 0..1}`` where ``score`` is the probability
that the output satisfies the requirement (prompts and parsing: `semantix.judges.llm_prompt`).
Structured output (``response_format`` with a JSON schema) is requested first; a server that
rejects it with a 400/422 is asked again with ``json_object`` and then with the prompt alone, and
the first mode that works is remembered.

Retries are the openai SDK's own (backoff with jitter, ``Retry-After``, 408/409/429/5xx,
timeouts and connection errors), ``max_retries`` times. ``timeout`` bounds each attempt from
connect to last byte (`semantix.judges.llm_http`). The SDK's final exception becomes a
`JudgeError` (`JudgeTimeoutError` for timeouts) that says what
to do: never a pass. The API key is masked in every text the judge keeps or raises — verdict
reasons, error messages, the chained SDK exception — even when a server echoes it back.

The openai SDK is imported on first use, not when this module is imported.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from semantix import config
from semantix.config import check_positive_int, check_threshold
from semantix.errors import ConfigurationError, JudgeError, JudgeTimeoutError
from semantix.intents._grounded import SupportDescription
from semantix.judges.base import Judge, JudgeIdentity, JudgeRequest, TokenUsage, Verdict
from semantix.judges.deadline import run_with_deadline
from semantix.judges.llm_http import ReplyTooLargeError, deadline_http_client
from semantix.judges.llm_prompt import (
    EQUIVALENCE_PROMPT_VERSION,
    EQUIVALENCE_SCHEMA,
    FORMATS,
    PROMPT_VERSION,
    SUPPORT_PROMPT_VERSION,
    SUPPORT_SCHEMAS,
    VERDICT_SCHEMA,
    ParsedVerdict,
    build_equivalence_messages,
    build_messages,
    build_support_messages,
    parse_support,
    parse_verdict,
    response_format,
)
from semantix.judges.support import support_request
from semantix.models.deps import ensure_installed, require
from semantix.text import MASK, mask_exception, mask_secrets, mask_url, preview

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["EQUIVALENCE_PROMPT_VERSION", "PROMPT_VERSION", "LLMJudge", "mask_url", "parse_verdict"]

logger = logging.getLogger("semantix.judges.llm")

#: Sent as the key when a custom ``base_url`` is used without one (local servers ignore it).
NO_KEY_PLACEHOLDER = "semantix-no-key"

#: How much of a reply or an error body a message quotes.
_QUOTED = 200


class LLMJudge(Judge):
    """A judge that asks a chat model, through the openai SDK, for a score and a reason.

    Args:
        model: the chat model to ask.
        base_url: an OpenAI-compatible endpoint; default ``OPENAI_BASE_URL``, else OpenAI.
        api_key: default ``OPENAI_API_KEY``. Not needed when a base URL is set (a placeholder
            is sent). Masked in reprs, logs, messages and verdicts.
        client: an ``openai.OpenAI`` client to use instead of building one (then ``base_url``
            and ``api_key`` must not be given); ``timeout`` and ``max_retries`` are applied to
            it with ``with_options``.
        timeout: seconds one attempt may take, connect to last byte. With an injected client,
            which keeps its own HTTP client, the whole call is bounded instead, by
            ``timeout * (max_retries + 1)``.
        max_retries: extra attempts the openai SDK makes after a transient failure (429, 408,
            409, 5xx, timeout, connection error), waiting with backoff and ``Retry-After``.
        temperature: sampling temperature; ``None`` omits it (for models that reject it).
        seed: best-effort determinism where the server supports it; ``None`` omits it.
        max_concurrency: requests in flight at once: in `evaluate_batch`, and across every
            thread and async check that uses this judge (``await aassert_semantic(...)`` from
            many tasks sends at most this many requests at a time).
        backoff: deprecated, no effect (the openai SDK does the backoff); passing it warns.

    The key is checked, and the client built, on first use: constructing the judge without
    credentials does not fail, judging does (with a `ConfigurationError`).
    """

    #: The score is asked for as a probability, so 0.5 ("more likely than not") is the natural
    #: cut; raise it (e.g. 0.7) for checks where a false pass costs more than a false failure.
    recommended_threshold: float | None = 0.5
    #: Every call costs money and a round trip: structural leaves that already decide a check
    #: keep its semantic leaves from being sent.
    costly: bool = True
    prompt_version: str | None = PROMPT_VERSION
    equivalence_prompt_version: str = EQUIVALENCE_PROMPT_VERSION

    def __init__(
        self,
        model: str = "gpt-4o-mini",
        api_key: str | None = None,
        base_url: str | None = None,
        *,
        client: Any = None,
        timeout: float = 30.0,
        max_retries: int = 2,
        temperature: float | None = 0.0,
        seed: int | None = 0,
        max_concurrency: int = 4,
        backoff: float | None = None,
    ) -> None:
        if backoff is not None:
            # semantix 0.1 waited `backoff` seconds between its own retries; the openai SDK now
            # retries with its own backoff (honouring Retry-After), which cannot be tuned.
            warnings.warn(
                "LLMJudge(backoff=...) no longer has an effect: the openai SDK retries with its "
                "own backoff (and honours Retry-After); remove the argument, and tune retries "
                "with max_retries=",
                DeprecationWarning,
                stacklevel=2,
            )
        _check_arguments(model, client, base_url, api_key, timeout, max_retries)
        check_positive_int(max_concurrency, what="max_concurrency", example=4)
        if client is None:
            ensure_installed(("openai",), extra="openai", feature="LLMJudge")
        self.model = model
        self.base_url = base_url or (config.openai_base_url() if client is None else None)
        self._api_key = api_key or (config.openai_api_key() if client is None else None)
        self.timeout = float(timeout)
        self.max_retries = max_retries
        self.temperature = temperature
        self.seed = seed
        self.max_concurrency = max_concurrency
        self.identity = JudgeIdentity("LLMJudge", model=model, revision=PROMPT_VERSION)
        self.secrets: tuple[object, ...] = (
            self._api_key,
            getattr(client, "api_key", None),
            urlsplit(self.base_url).password if self.base_url else None,
        )
        self._injected: Any = _configured(client, self.timeout, max_retries)
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

    # -- public API --

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        """Ask the model once (the SDK retries) and turn its answer into a `Verdict`."""
        threshold = check_threshold(threshold)
        if isinstance(intent_description, SupportDescription):
            return self._support(output, intent_description, threshold)
        messages = build_messages(output, intent_description)
        return self._judge(messages, VERDICT_SCHEMA, threshold, self.identity)

    def evaluate_support(self, requests: Sequence[JudgeRequest]) -> list[Verdict]:
        """Which claims the sources do not support (``Grounded``/``Contradicts`` requests only):
        the model quotes them back; the score is its probability that every claim is supported
        (or that some claim is contradicted). `evaluate` hands support requests here itself."""
        for request in requests:
            support_request(request)
        return self.evaluate_batch(requests)

    def _support(self, output: str, description: SupportDescription, threshold: float) -> Verdict:
        messages = build_support_messages(output, description.sources, description.relation)
        identity = JudgeIdentity("LLMJudge", model=self.model, revision=SUPPORT_PROMPT_VERSION)
        schema = SUPPORT_SCHEMAS[description.relation]
        return self._judge(
            messages, schema, threshold, identity, lambda text: parse_support(text, output)
        )

    def evaluate_equivalence(self, stored: str, new: str, threshold: float) -> Verdict:
        """Ask the model whether ``stored`` and ``new`` say the same thing (semantic snapshots).

        The score is the model's probability that they do; the reason names what one says that
        the other does not. The verdict's judge identity carries
        `EQUIVALENCE_PROMPT_VERSION` as its revision.
        """
        threshold = check_threshold(threshold)
        for name, text in (("stored", stored), ("new", new)):
            if not isinstance(text, str):
                raise TypeError(
                    f"evaluate_equivalence({name}=...) takes a str, got {type(text).__name__}; "
                    "normalise the output to text first"
                )
        identity = JudgeIdentity("LLMJudge", model=self.model, revision=EQUIVALENCE_PROMPT_VERSION)
        messages = build_equivalence_messages(stored, new)
        return self._judge(messages, EQUIVALENCE_SCHEMA, threshold, identity)

    def evaluate_batch(self, requests: Sequence[JudgeRequest]) -> list[Verdict]:
        """Judge several requests, at most ``max_concurrency`` at a time, in order."""
        if len(requests) <= 1 or self.max_concurrency == 1:
            return [self.evaluate(*request) for request in requests]
        workers = min(self.max_concurrency, len(requests))
        with ThreadPoolExecutor(workers, thread_name_prefix="semantix-llm") as pool:
            return list(pool.map(lambda request: self.evaluate(*request), requests))

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

    # -- one judgement --

    def _judge(
        self,
        messages: list[dict[str, str]],
        schema: dict[str, Any],
        threshold: float,
        identity: JudgeIdentity,
        parse: Callable[[str | None], ParsedVerdict] = parse_verdict,
    ) -> Verdict:
        started = time.perf_counter()
        response = self._complete(messages, schema)
        latency_ms = (time.perf_counter() - started) * 1000.0
        parsed = self._parse(response, parse)
        return Verdict(
            passed=parsed.score >= threshold,
            score=parsed.score,
            reason=self._mask(parsed.reason),
            threshold=threshold,
            judge=identity,
            latency_ms=latency_ms,
            usage=_usage(response),
        )

    def ask_json(
        self, messages: list[dict[str, str]], schema: dict[str, Any]
    ) -> tuple[Any, str | None]:
        """One request through this judge's own path (client, timeouts, retries, the
        response-format fallback, error mapping) for tools that ask a model for structured data
        (`semantix examples`, `semantix freeze-variants`): the reply's content parsed as JSON
        (None when it is not JSON), and the content as sent."""
        response = self._complete(messages, schema)
        choices = getattr(response, "choices", None) or []
        message = getattr(choices[0], "message", None) if choices else None
        content = getattr(message, "content", None)
        if not isinstance(content, str):
            return None, None
        try:
            return json.loads(content), content
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
                raise self._status_error(exc, rejected) from self._masked(exc)
            except openai.APITimeoutError as exc:
                raise self._timeout_error(_attempts(exc)) from self._masked(exc)
            except openai.APIConnectionError as exc:
                raise JudgeError(
                    f"{self._name()} could not reach {self._where()}{_after(_attempts(exc))}: "
                    f"{self._describe(exc.__cause__ or exc)}. Start the server or check "
                    "base_url / OPENAI_BASE_URL; a judge that cannot be reached is never a pass"
                ) from self._masked(exc)
            except ReplyTooLargeError as exc:
                raise JudgeError(
                    f"{self._name()}: {exc} from {self._where()}; a verdict is one short JSON "
                    "object. Check the server and the model; an unreadable verdict is never a pass"
                ) from None
            except openai.OpenAIError as exc:
                raise JudgeError(
                    f"{self._name()} request failed: {self._describe(exc)}. Check the server "
                    "and the SDK version; a failed request is never a pass"
                ) from self._masked(exc)
            with self._lock:
                self._format_index = index  # remembered only once a mode has worked
            return response

    def _request(
        self, client: Any, messages: list[dict[str, str]], format_: dict[str, Any] | None
    ) -> Any:
        options: dict[str, Any] = {"model": self.model, "messages": messages}
        if format_ is not None:
            options["response_format"] = format_
        if self.temperature is not None:
            options["temperature"] = self.temperature
        if self.seed is not None:
            options["seed"] = self.seed
        if self._injected is None:  # our own HTTP client bounds each attempt
            return client.chat.completions.create(**options)
        overall = self.timeout * (self.max_retries + 1)
        return run_with_deadline(
            lambda: client.chat.completions.create(**options),
            overall,
            lambda: self._timeout_error(None, overall=overall),
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
            timeout=self.timeout,
            max_retries=self.max_retries,
            http_client=deadline_http_client(self.timeout),
        )

    # -- reading the answer, and errors --

    def _parse(
        self, response: Any, parse: Callable[[str | None], ParsedVerdict] = parse_verdict
    ) -> ParsedVerdict:
        choices = getattr(response, "choices", None)
        if not choices:
            raise JudgeError(
                f"{self._name()}: the server returned a completion with no choices "
                f"({self._quote(repr(response))}); an empty reply is never a pass"
            )
        choice = choices[0]
        message = getattr(choice, "message", None)
        refusal = getattr(message, "refusal", None)
        if refusal:
            raise JudgeError(
                f"{self._name()} refused to judge: {self._quote(str(refusal))}. "
                "A refusal is never a pass; rephrase the intent or use another model"
            )
        content = getattr(message, "content", None)
        try:
            return parse(content)
        except ValueError as exc:
            truncated = getattr(choice, "finish_reason", None) == "length"
            hint = " (the reply was cut off: finish_reason=length)" if truncated else ""
            reply = f" Reply: {self._quote(content)}." if isinstance(content, str) else ""
            raise JudgeError(
                f"{self._name()} returned an unusable verdict{hint}: {self._mask(str(exc))}."
                f"{reply} An unreadable verdict is never a pass; try another model, or one that "
                "supports structured output"
            ) from None

    def _status_error(self, exc: Any, rejected: list[str]) -> JudgeError:
        status = exc.status_code
        detail = self._describe(exc)
        if status in (401, 403):
            what = "the API key was refused" if status == 401 else "access was denied"
            return JudgeError(
                f"{self._name()}: {what} ({detail}) by {self._where()}; check "
                "OPENAI_API_KEY / api_key=... (and base_url) and its permissions"
            )
        if status == 429 or status in (408, 409) or status >= 500:
            return JudgeError(
                f"{self._name()} failed{_times(_attempts(exc))} at {self._where()}: {detail}; "
                "the server is down, overloaded or rate-limiting. Retry later, raise "
                "max_retries=..., lower max_concurrency=..., or replay frozen verdicts "
                "(SEMANTIX_VERDICTS=replay)"
            )
        tried = (
            f" after the server rejected response_format {', '.join(rejected)}" if rejected else ""
        )
        return JudgeError(
            f"{self._name()} request failed{tried}: {detail}. Check the model name and "
            "the server; a failed request is never a pass"
        )

    def _timeout_error(self, attempts: int | None, *, overall: float | None = None) -> JudgeError:
        if overall is not None:
            return JudgeTimeoutError(
                f"{self._name()} did not finish within {overall:g}s at {self._where()} "
                f"(timeout={self.timeout:g}s x {self.max_retries + 1} attempts, through the "
                "injected client); raise timeout=... or check the server"
            )
        return JudgeTimeoutError(
            f"{self._name()} did not answer within {self.timeout:g}s at {self._where()}"
            f"{_counted(attempts)}; raise timeout=... or check the server. A judge that runs "
            "out of time is never a pass"
        )

    def _name(self) -> str:
        return f"LLMJudge({self.model})"

    def _where(self) -> str:
        url = self.base_url or _url_of(self._injected)
        return mask_url(url) or "the OpenAI API"

    def _mask(self, text: str) -> str:
        return mask_secrets(text, self.secrets)

    def _masked(self, exc: BaseException) -> BaseException:
        return mask_exception(exc, self.secrets)

    def _quote(self, text: str) -> str:
        return preview(self._mask(text), _QUOTED, quote=True)

    def _describe(self, exc: BaseException) -> str:
        status = getattr(exc, "status_code", None)
        name = type(exc).__name__
        message = getattr(exc, "message", None) or str(exc) or "(no message)"
        prefix = f"HTTP {status} {name}" if status is not None else name
        return f"{prefix}: {preview(self._mask(str(message)), _QUOTED, quote=False)}"


def _check_arguments(
    model: object,
    client: object,
    base_url: object,
    api_key: object,
    timeout: object,
    max_retries: object,
) -> None:
    if not isinstance(model, str) or not model.strip():
        raise ConfigurationError(f"model must be a model name such as 'gpt-4o-mini', got {model!r}")
    if client is not None and (base_url is not None or api_key is not None):
        raise ConfigurationError(
            "pass either client=... or base_url=/api_key=..., not both: an injected client "
            "already carries its base URL and key"
        )
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or not timeout > 0:
        raise ConfigurationError(
            f"timeout must be a positive number of seconds, got {timeout!r}; pass e.g. timeout=30"
        )
    if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
        raise ConfigurationError(
            f"max_retries must be an integer >= 0, got {max_retries!r}; pass e.g. max_retries=2 "
            "(0 turns retries off)"
        )


def _configured(client: Any, timeout: float, max_retries: int) -> Any:
    """The injected client with this judge's timeout and retries (the SDK's ``with_options``)."""
    if client is not None and callable(getattr(client, "with_options", None)):
        return client.with_options(timeout=timeout, max_retries=max_retries)
    return client


def _url_of(client: Any) -> str | None:
    """An injected client's base URL, for messages (None when it has none)."""
    url = getattr(client, "base_url", None)
    return str(url) if url else None


def _attempts(exc: BaseException) -> int | None:
    """How many attempts the SDK made, from the retry count it sent with the last one."""
    request = getattr(exc, "request", None)
    if request is None:
        response = getattr(exc, "response", None)
        request = getattr(response, "request", None)
    headers = getattr(request, "headers", None)
    value = headers.get("x-stainless-retry-count") if headers is not None else None
    return int(value) + 1 if isinstance(value, str) and value.isdigit() else None


def _after(attempts: int | None) -> str:
    return f" after {attempts} attempts" if attempts is not None and attempts > 1 else ""


def _times(attempts: int | None) -> str:
    if attempts is None:
        return ""
    return " once" if attempts == 1 else f" {attempts} times"


def _counted(attempts: int | None) -> str:
    return f" ({attempts} attempts)" if attempts is not None else ""


def _usage(response: Any) -> TokenUsage | None:
    usage = getattr(response, "usage", None)
    prompt = getattr(usage, "prompt_tokens", None)
    completion = getattr(usage, "completion_tokens", None)
    if isinstance(prompt, int) and isinstance(completion, int):
        return TokenUsage(prompt_tokens=prompt, completion_tokens=completion)
    return None


LLMJudge.__module__ = "semantix"
