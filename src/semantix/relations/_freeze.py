"""Write paraphrase variants through an LLM, once, for a person to review (``semantix
freeze-variants``); never at test time, never in CI. The request goes through
`semantix.judges._llm.LLMJudge`'s client: its timeouts, retries and errors are the judge's.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from semantix import _config as config
from semantix._config import check_positive_int
from semantix._text import mask_url, preview
from semantix.errors import ConfigurationError, JudgeError
from semantix.judges._llm import LLMJudge
from semantix.relations._base import MISSING, Case, check_case, check_field_path, get_field
from semantix.relations._variants import VariantsFile, check_case_id, variants_path, write_variants

__all__ = [
    "PROMPT",
    "FreezeOutcome",
    "ask_texts",
    "freeze_variants",
    "paraphrases",
    "provenance",
    "refuse_in_ci",
]

_SHAPE = '{"paraphrases": ["...", ...]}'
#: The instruction sent with every text; stored in each file's provenance.
PROMPT = (
    "Rewrite the user's text {count} times. Every rewrite must keep its exact meaning, facts, "
    "names, numbers and intent, and must not answer it; change only the wording and sentence "
    'structure. Reply with JSON only: {{"paraphrases": ["...", "..."]}}.'
)


def refuse_in_ci(command: str, what: str) -> None:
    """Raise where ``CI`` is set: ``what`` an LLM writes is for a person to review first."""
    if config.in_ci():
        raise ConfigurationError(
            f"semantix {command} does not run in CI (CI is set): {what} are written on a "
            "developer's machine, reviewed by a person and committed; unset CI to run it there"
        )


def ask_texts(
    judge: LLMJudge,
    instruction: str,
    text: str,
    schema: str,
    keys: Sequence[str],
    *,
    what: str,
    shape: str,
) -> list[list[str]]:
    """The LLM's lists of texts under ``keys`` (stripped; blanks and repeats dropped), asked
    through the judge's own request path (client, timeouts, retries, error mapping); a reply
    without them is a `JudgeError` showing it, ``what`` was expected and its JSON ``shape``."""
    items = {"type": "array", "items": {"type": "string"}}
    body = {"type": "object", "properties": dict.fromkeys(keys, items), "required": list(keys)}
    request = {"name": schema, "strict": True, "schema": body | {"additionalProperties": False}}
    messages = [{"role": "system", "content": instruction}, {"role": "user", "content": text}]
    data, content = judge.ask_json(messages, request)
    lists = [data.get(key) if isinstance(data, dict) else None for key in keys]
    texts = [got for got in lists if isinstance(got, list) and all(isinstance(i, str) for i in got)]
    if len(texts) < len(keys):
        shown = preview(content, 200) if isinstance(content, str) else repr(content)
        raise JudgeError(
            f"LLMJudge({judge.model}) returned no {what}: {shown}; expected JSON {shape}. "
            "Try another model, or one with structured output"
        )
    return [list(dict.fromkeys(i.strip() for i in got if i.strip())) for got in texts]


def provenance(
    judge: LLMJudge, instruction: str, command: str, today: datetime.date | None = None
) -> dict[str, str]:
    """Where a reviewed file's texts came from: model, server, prompt, date, command."""
    return {
        "model": judge.model,
        "server": mask_url(judge.base_url) or "https://api.openai.com/v1",
        "prompt": instruction,
        "date": (today or datetime.date.today()).isoformat(),
        "written_by": f"semantix {command}",
    }


def paraphrases(judge: LLMJudge, text: str, count: int) -> list[str]:
    """Up to ``count`` distinct paraphrases of ``text`` (the text itself and blanks dropped)."""
    prompt, keys = PROMPT.format(count=count), ["paraphrases"]
    (found,) = ask_texts(
        judge, prompt, text, "paraphrases", keys, what="paraphrase list", shape=_SHAPE
    )
    return [item for item in found if item != text.strip()][:count]


@dataclass(frozen=True, slots=True)
class FreezeOutcome:
    """What `freeze_variants` did for one case: ``written`` (a path), or ``kept`` (a file
    existed), or ``skipped`` (the case lacks the field), with the case id."""

    case_id: str
    action: str
    path: Path | None
    detail: str = ""

    def __repr__(self) -> str:
        return f"<FreezeOutcome {self.case_id}: {self.action} {self.path or self.detail}>"


def freeze_variants(
    cases: Sequence[Case],
    fields: Sequence[str],
    directory: Path,
    *,
    judge: LLMJudge,
    count: int = 5,
    force: bool = False,
    id_field: str = "id",
    today: datetime.date | None = None,
) -> list[FreezeOutcome]:
    """Write ``directory/<case id>.yaml`` with ``count`` paraphrases of each of ``fields`` for
    every case; an existing file is kept unless ``force``. Refuses to run in CI."""
    refuse_in_ci("freeze-variants", "variants")
    check_positive_int(count, what="count", example=5)
    names = [check_field_path(name) for name in fields]
    if not names:
        raise ConfigurationError("freeze_variants needs at least one field, e.g. ['question']")
    prepared = []
    for index, case in enumerate(cases):
        check_case(case)
        case_id = case.get(id_field)
        if case_id is None:
            raise ConfigurationError(
                f"case {index} has no {id_field!r} field; every case needs an id to name its "
                "variants file"
            )
        prepared.append((check_case_id(str(case_id)), case))
    written = provenance(judge, PROMPT.format(count=count), "freeze-variants", today)
    outcomes = []
    for case_id, case in prepared:
        texts = {name: get_field(case, name) for name in names}
        present = {name: value for name, value in texts.items() if value is not MISSING}
        if not present:
            outcomes.append(FreezeOutcome(case_id, "skipped", None, f"no field {', '.join(names)}"))
            continue
        for name, value in present.items():
            if not isinstance(value, str):
                raise ConfigurationError(
                    f"case {case_id!r}: field {name!r} holds {type(value).__name__}; only text "
                    "fields are paraphrased"
                )
        existing = variants_path(directory, case_id)
        if existing is not None and not force:
            outcomes.append(FreezeOutcome(case_id, "kept", existing, "exists (--force rewrites)"))
            continue
        made = {name: (text, paraphrases(judge, text, count)) for name, text in present.items()}
        path = write_variants(directory, VariantsFile(case_id, made, written), force=True)
        outcomes.append(FreezeOutcome(case_id, "written", path))
    return outcomes
