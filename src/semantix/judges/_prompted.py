"""The judges that ask a chat model in words: `PromptedJudge`, the verdict path `LLMJudge` (the
openai SDK, `semantix.judges._llm`) and `CallableJudge` (your own ``prompt -> text`` function)
share.

```python
from semantix import assert_semantic
from semantix.judges import CallableJudge

def ask(prompt: str) -> str:  # your call to the model (any SDK, a gateway, a fake)
    return '{"pass": true, "reasoning": "It says sorry."}'

assert_semantic("Sorry for the delay.", "apologizes", judge=CallableJudge(ask, model_name="m"))
```

They ask the same questions and read the answers with the same parser, so a frozen verdict means
the same whoever asked; anything but a readable reply is a `JudgeError`, never a pass.
"""

from __future__ import annotations

import dataclasses
import inspect
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

import semantix.judges._llm_prompt as prompts
from semantix import _config as config
from semantix._config import check_positive_int, check_threshold
from semantix._intent import SupportDescription
from semantix._text import mask_secrets, preview
from semantix.errors import ConfigurationError, JudgeError
from semantix.judges._base import Judge, JudgeIdentity, JudgeRequest, TokenUsage, Verdict
from semantix.judges._llm_prompt import ParsedVerdict, parse_support, parse_verdict
from semantix.judges._support import support_request

__all__ = ["CallableJudge", "PromptedJudge", "Reply"]

T = TypeVar("T")

#: How much of a reply or an error body a message quotes.
QUOTED = 200


@dataclass(frozen=True, slots=True)
class Reply:
    """The model's answer to one question: its text, what it cost, whether it was cut off."""

    content: str | None
    usage: TokenUsage | None = None
    truncated: bool = False


class PromptedJudge(Judge):
    """The base of the judges that ask a chat model (see the module docstring)."""

    #: A probability: 0.5 ("more likely than not") is the natural cut.
    recommended_threshold: float | None = 0.5
    costly: bool = True  # money and a round trip per call
    prompt_version: str | None = prompts.PROMPT_VERSION
    model: str  # the model asked (in names and messages)
    max_concurrency: int = 1  # questions in flight at once within one batch

    def _reply(self, messages: list[dict[str, str]], schema: dict[str, Any]) -> Reply:
        raise NotImplementedError

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        """Ask the model once (a support request gets the support prompt: `evaluate_support`)."""
        request = (output, intent_description, threshold)
        if isinstance(intent_description, SupportDescription):
            return self.evaluate_support([request])[0]
        return self.evaluate_batch([request])[0]

    def evaluate_batch(self, requests: Sequence[JudgeRequest]) -> list[Verdict]:
        """Judge several requests, at most ``max_concurrency`` at a time, in order."""
        return self._each(self._plain, requests)

    def _plain(self, request: JudgeRequest) -> Verdict:
        output, intent_description, threshold = request
        messages = prompts.build_messages(output, intent_description)
        return self._judge(
            messages, prompts.VERDICT_SCHEMA, check_threshold(threshold), self.identity
        )

    def evaluate_support(self, requests: Sequence[JudgeRequest]) -> list[Verdict]:
        """Which claims of ``Grounded``/``Contradicts`` requests the sources do not support."""
        checked = [support_request(request) for request in requests]
        return self._each(lambda request: self._support(*request), checked)

    def _support(self, output: str, description: SupportDescription, threshold: float) -> Verdict:
        messages = prompts.build_support_messages(output, description.sources, description.relation)
        identity = dataclasses.replace(self.identity, revision=prompts.SUPPORT_PROMPT_VERSION)
        relation = description.relation
        return self._judge(
            messages,
            prompts.SUPPORT_SCHEMAS[relation],
            threshold,
            identity,
            lambda text: parse_support(text, output, relation, threshold),
        )

    def evaluate_equivalence(self, stored: str, new: str, threshold: float) -> Verdict:
        """Ask the model whether ``stored`` and ``new`` say the same thing (snapshots); the reason
        names what one says that the other does not (revision ``EQUIVALENCE_PROMPT_VERSION``)."""
        threshold = check_threshold(threshold)
        for name, text in (("stored", stored), ("new", new)):
            if not isinstance(text, str):
                raise TypeError(
                    f"evaluate_equivalence({name}=...) takes a str, got {type(text).__name__}; "
                    "normalise the output to text first"
                )
        identity = dataclasses.replace(self.identity, revision=prompts.EQUIVALENCE_PROMPT_VERSION)
        messages = prompts.build_equivalence_messages(stored, new)
        return self._judge(messages, prompts.EQUIVALENCE_SCHEMA, threshold, identity)

    def _each(self, judge_one: Callable[[T], Verdict], items: Sequence[T]) -> list[Verdict]:
        if len(items) <= 1 or self.max_concurrency == 1:
            return [judge_one(item) for item in items]
        workers = min(self.max_concurrency, len(items))
        with ThreadPoolExecutor(workers, thread_name_prefix="semantix-llm") as pool:
            return list(pool.map(judge_one, items))

    def _judge(
        self,
        messages: list[dict[str, str]],
        schema: dict[str, Any],
        threshold: float,
        identity: JudgeIdentity,
        parse: Callable[[str | None], ParsedVerdict] = parse_verdict,
    ) -> Verdict:
        started = time.perf_counter()
        reply = self._reply(messages, schema)
        latency_ms = (time.perf_counter() - started) * 1000.0
        try:
            parsed = parse(reply.content)
        except ValueError as exc:
            hint = " (the reply was cut off: finish_reason=length)" if reply.truncated else ""
            quoted = (
                f" Reply: {self._quote(reply.content)}." if isinstance(reply.content, str) else ""
            )
            raise JudgeError(
                f"{self._name()} returned an unusable verdict{hint}: {self._mask(str(exc))}."
                f"{quoted} An unreadable verdict is never a pass; try another model, or one that "
                "supports structured output"
            ) from None
        return Verdict(
            passed=parsed.score >= threshold,
            score=parsed.score,
            reason=self._mask(parsed.reason),
            threshold=threshold,
            judge=identity,
            latency_ms=latency_ms,
            usage=reply.usage,
        )

    def _name(self) -> str:
        return f"{type(self).__name__}({self.model})"

    def _mask(self, text: str) -> str:
        """``text`` with the judge's ``secrets`` and ``OPENAI_API_KEY`` masked (a reason, a
        quoted reply, an error: a model or a function may echo the key it was sent with)."""
        return mask_secrets(text, (*self.secrets, *config.api_keys()))

    def _quote(self, text: str) -> str:
        return preview(self._mask(text), QUOTED, quote=True)


class CallableJudge(PromptedJudge):
    """A judge that asks your function, with the LLM judge's prompts, and reads its reply.

    Args:
        fn: called with the prompt (a str); returns the model's reply text.
        model_name: the model ``fn`` asks: part of the judge's identity, so a frozen verdict
            stays tied to the model that gave it.
        max_concurrency: calls of ``fn`` at once within a batch (default 1: ``fn`` need not be
            thread-safe).
    """

    __module__ = "semantix.judges"

    def __init__(
        self, fn: Callable[[str], str], model_name: str, *, max_concurrency: int = 1
    ) -> None:
        if not callable(fn):
            raise ConfigurationError(
                f"CallableJudge(fn=...) must be a function prompt -> reply text, got "
                f"{type(fn).__name__} {fn!r:.60}"
            )
        if not isinstance(model_name, str) or not model_name.strip():
            raise ConfigurationError(
                f"CallableJudge model_name must name the model fn asks, got {model_name!r}; "
                "e.g. model_name='gpt-4o-mini'"
            )
        check_positive_int(max_concurrency, what="max_concurrency", example=4)
        self.fn = fn
        self.model = self.model_name = model_name
        self.max_concurrency = max_concurrency
        self.identity = JudgeIdentity(
            "CallableJudge", model=model_name, revision=prompts.PROMPT_VERSION
        )

    def __repr__(self) -> str:
        return f"CallableJudge({_name_of(self.fn)}, model_name={self.model!r})"

    def _reply(self, messages: list[dict[str, str]], schema: dict[str, Any]) -> Reply:
        prompt = "\n\n".join(message["content"] for message in messages)
        try:
            content: object = self.fn(prompt)
        except Exception as exc:
            raise JudgeError(
                f"{self._name()}: {_name_of(self.fn)} raised {type(exc).__name__}: "
                f"{self._mask(str(exc))}. A judge error is never a pass; fix the cause (see the "
                "chained exception)"
            ) from exc
        if isinstance(content, str):
            return Reply(content)
        if inspect.iscoroutine(content):
            content.close()  # never awaited, on purpose: the error says so instead of a warning
            raise JudgeError(
                f"{self._name()}: {_name_of(self.fn)} returned a coroutine; pass a plain function "
                "prompt -> text (for an async one: lambda prompt: asyncio.run(ask(prompt)))"
            )
        raise JudgeError(
            f"{self._name()}: {_name_of(self.fn)} returned {type(content).__name__}, not the "
            "model's reply text (a str)"
        )


def _name_of(fn: Callable[..., Any]) -> str:
    return str(getattr(fn, "__qualname__", None) or type(fn).__name__)
