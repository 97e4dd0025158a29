"""CallableJudge: the LLM judge's questions over your own function ``prompt -> reply text``.

```python
from openai import OpenAI
from semantix import assert_semantic
from semantix.judges import CallableJudge

client = OpenAI()

def ask(prompt: str) -> str:
    response = client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": prompt}]
    )
    return response.choices[0].message.content

assert_semantic(reply, "apologizes for the delay", judge=CallableJudge(ask, model_name="gpt-4o-mini"))
```

The function gets the whole prompt as one text — `LLMJudge`'s own instructions, then the
question — and returns the model's raw reply. The prompts, their versions and the reply parser
are the LLM judge's (`semantix.judges.prompted`), so frozen verdicts, grounded checks and
snapshots work as with `LLMJudge`; the reply may be ``{"score": ..., "reason": ...}`` or
fakellm-assert's ``{"pass": true, "reasoning": ...}``. Whatever the function raises, and a
reply that is not text or cannot be read, is a `JudgeError`: never a pass.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from semantix.config import check_positive_int
from semantix.errors import ConfigurationError, JudgeError
from semantix.judges.base import JudgeIdentity
from semantix.judges.llm_prompt import PROMPT_VERSION
from semantix.judges.prompted import PromptedJudge, Reply

__all__ = ["CallableJudge"]


class CallableJudge(PromptedJudge):
    """A judge that asks your function, with the LLM judge's prompts, and reads its reply.

    Args:
        fn: called with the prompt (a str); returns the model's reply text.
        model_name: the model ``fn`` asks: part of the judge's identity, so a frozen verdict
            stays tied to the model that gave it.
        max_concurrency: calls of ``fn`` at once within a batch (default 1: ``fn`` need not be
            thread-safe).
    """

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
        self.identity = JudgeIdentity("CallableJudge", model=model_name, revision=PROMPT_VERSION)

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


CallableJudge.__module__ = "semantix.judges"
