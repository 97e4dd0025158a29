"""The openai SDK's final exceptions as a `JudgeError` (`JudgeTimeoutError`) that says what to do,
never a pass; every text, and the SDK exception chained to it, is masked of the judge's secrets."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NoReturn

from semantix._text import mask_exception, mask_secrets, preview
from semantix.errors import JudgeError, JudgeTimeoutError
from semantix.judges._llm_http import ReplyTooLargeError
from semantix.judges._prompted import QUOTED

__all__ = ["Failures"]


@dataclass(frozen=True, slots=True)
class Failures:
    """What a message about one LLM judge's failed request names."""

    name: str  #: the judge, e.g. ``LLMJudge(gpt-4o-mini)``
    where: str  #: the server, its URL masked
    request_timeout: float
    max_retries: int
    secrets: tuple[object, ...]

    def fail(self, exc: BaseException, rejected: list[str]) -> NoReturn:
        """Raise the `JudgeError` for the SDK's final ``exc`` (``rejected``: formats refused)."""
        import openai

        if isinstance(exc, ReplyTooLargeError):
            raise JudgeError(
                f"{self.name}: {exc} from {self.where}; a verdict is one short JSON object. "
                "Check the server and the model; an unreadable verdict is never a pass"
            ) from None
        if isinstance(exc, openai.APIStatusError):
            error = self._status(exc, rejected)
        elif isinstance(exc, openai.APITimeoutError):
            error = self.timeout(_attempts(exc))
        elif isinstance(exc, openai.APIConnectionError):
            attempts = _attempts(exc) or 1
            after = f" after {attempts} attempts" if attempts > 1 else ""
            error = JudgeError(
                f"{self.name} could not reach {self.where}{after}: "
                f"{self.describe(exc.__cause__ or exc)}. Start the server or check "
                "base_url / OPENAI_BASE_URL; a judge that cannot be reached is never a pass"
            )
        else:
            error = JudgeError(
                f"{self.name} request failed: {self.describe(exc)}. Check the server and the "
                "SDK version; a failed request is never a pass"
            )
        raise error from mask_exception(exc, self.secrets)

    def _status(self, exc: Any, rejected: list[str]) -> JudgeError:
        status = exc.status_code
        detail = self.describe(exc)
        if status in (401, 403):
            what = "the API key was refused" if status == 401 else "access was denied"
            return JudgeError(
                f"{self.name}: {what} ({detail}) by {self.where}; check "
                "OPENAI_API_KEY / api_key=... (and base_url) and its permissions"
            )
        if status == 429 or status in (408, 409) or status >= 500:
            attempts = _attempts(exc)
            times = "" if attempts is None else " once" if attempts == 1 else f" {attempts} times"
            return JudgeError(
                f"{self.name} failed{times} at {self.where}: {detail}; "
                "the server is down, overloaded or rate-limiting. Retry later, raise "
                "max_retries=..., lower max_concurrency=..., or replay frozen verdicts "
                "(SEMANTIX_VERDICTS=replay)"
            )
        tried = (
            f" after the server rejected response_format {', '.join(rejected)}" if rejected else ""
        )
        return JudgeError(
            f"{self.name} request failed{tried}: {detail}. Check the model name and "
            "the server; a failed request is never a pass"
        )

    def timeout(self, attempts: int | None, *, overall: float | None = None) -> JudgeError:
        """No complete answer within ``request_timeout`` (one attempt) or ``overall`` (a call)."""
        if overall is not None:
            return JudgeTimeoutError(
                f"{self.name} did not finish within {overall:g}s at {self.where} "
                f"(request_timeout={self.request_timeout:g}s x {self.max_retries + 1} attempts, "
                "through the injected client); raise request_timeout=... or check the server"
            )
        counted = f" ({attempts} attempts)" if attempts is not None else ""
        return JudgeTimeoutError(
            f"{self.name} did not answer within {self.request_timeout:g}s at {self.where}"
            f"{counted}; raise request_timeout=... or check the server. A judge that runs "
            "out of time is never a pass"
        )

    def describe(self, exc: BaseException) -> str:
        status = getattr(exc, "status_code", None)
        name = type(exc).__name__
        message = getattr(exc, "message", None) or str(exc) or "(no message)"
        prefix = f"HTTP {status} {name}" if status is not None else name
        masked = mask_secrets(str(message), self.secrets)
        return f"{prefix}: {preview(masked, QUOTED, quote=False)}"


def _attempts(exc: BaseException) -> int | None:
    """How many attempts the SDK made, from the retry count it sent with the last one."""
    request = getattr(exc, "request", None)
    if request is None:
        response = getattr(exc, "response", None)
        request = getattr(response, "request", None)
    headers = getattr(request, "headers", None)
    value = headers.get("x-stainless-retry-count") if headers is not None else None
    return int(value) + 1 if isinstance(value, str) and value.isdigit() else None
