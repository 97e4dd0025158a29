"""The judges that ask a chat model in words: one verdict path for `LLMJudge` (the openai SDK)
and `CallableJudge` (your own ``prompt -> text`` function).

Both ask the same three questions (`semantix.judges.llm_prompt`: does an output meet a
requirement, do sources support it, do two texts say the same) with the same prompt versions, and
read the answers with the same parser, so a frozen verdict means the same whoever asked. A
subclass implements ``_reply(messages, schema)``: the model's answer to one question.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

import semantix.judges.llm_prompt as prompts
from semantix.config import check_threshold
from semantix.errors import JudgeError
from semantix.intents._grounded import SupportDescription
from semantix.judges.base import Judge, JudgeIdentity, JudgeRequest, TokenUsage, Verdict
from semantix.judges.llm_prompt import ParsedVerdict, parse_support, parse_verdict
from semantix.judges.support import route_support, support_request
from semantix.text import mask_secrets, preview

__all__ = ["PromptedJudge", "Reply"]

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

    #: The score is asked for as a probability, so 0.5 ("more likely than not") is the natural
    #: cut; raise it (e.g. 0.7) for checks where a false pass costs more than a false failure.
    recommended_threshold: float | None = 0.5
    #: Every call costs money and a round trip: structural leaves that already decide a check
    #: keep its semantic leaves from being sent.
    costly: bool = True
    prompt_version: str | None = prompts.PROMPT_VERSION
    #: The model asked (in names and messages).
    model: str
    #: Questions in flight at once within one batch.
    max_concurrency: int = 1

    def _reply(self, messages: list[dict[str, str]], schema: dict[str, Any]) -> Reply:
        raise NotImplementedError

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        """Ask the model once and turn its answer into a `Verdict`."""
        return self.evaluate_batch([(output, intent_description, threshold)])[0]

    def evaluate_batch(self, requests: Sequence[JudgeRequest]) -> list[Verdict]:
        """Judge several requests, at most ``max_concurrency`` at a time, in order (support
        requests handed here go to `evaluate_support`: `route_support`)."""
        return route_support(
            requests, lambda asked: self._each(self._plain, asked), self.evaluate_support
        )

    def _plain(self, request: JudgeRequest) -> Verdict:
        output, intent_description, threshold = request
        messages = prompts.build_messages(output, intent_description)
        return self._judge(
            messages, prompts.VERDICT_SCHEMA, check_threshold(threshold), self.identity
        )

    def evaluate_support(self, requests: Sequence[JudgeRequest]) -> list[Verdict]:
        """Which claims the sources do not support (``Grounded``/``Contradicts`` requests only):
        the model quotes them back and scores its probability that every claim is supported (or
        that some claim is contradicted); the claims it lists decide (`parse_support`)."""
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
        """Ask the model whether ``stored`` and ``new`` say the same thing (semantic snapshots).

        The score is the model's probability that they do; the reason names what one says that
        the other does not. The verdict's judge identity carries
        ``EQUIVALENCE_PROMPT_VERSION`` as its revision.
        """
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
        return mask_secrets(text, self.secrets)

    def _quote(self, text: str) -> str:
        return preview(self._mask(text), QUOTED, quote=True)
