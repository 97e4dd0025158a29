"""``MatchesModel``: the text is JSON that a pydantic v2 model accepts (``model_validate_json``).

pydantic (the ``[json]`` extra) is imported when such a check is built. A failure lists every
error with its field path: ``items[0].qty: Input should be a valid integer``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from semantix._cache import memo
from semantix._intent import Intent
from semantix.checks._base import build, check_flag
from semantix.checks._json import JSONCheck, kind, listed, path_text, shown
from semantix.models._deps import require

__all__ = ["MatchesModel"]

_SCALARS = (str, int, float, bool, type(None))


class MatchesModelCheck(JSONCheck, abstract=True):
    """Base of ``MatchesModel``: ``model`` is the pydantic model class."""

    model: ClassVar[Any]

    @classmethod
    def check(cls, document: Any, text: str) -> tuple[bool, str]:
        pydantic = require("pydantic", extra="json", feature="MatchesModel")
        try:
            cls.model.model_validate_json(text)
        except pydantic.ValidationError as exc:
            problems = [_error(error) for error in exc.errors()]
            return False, f"{cls.model.__name__}: {listed(problems, 'validation error')}"
        return True, f"the JSON ({kind(document)}) is a valid {cls.model.__name__}"


def _error(error: Any) -> str:
    where = path_text(tuple(error["loc"])).removeprefix("$.")
    value = error.get("input")
    got = (
        f" (got {shown(value)})"
        if error["type"] != "missing" and isinstance(value, _SCALARS)
        else ""
    )
    return f"{where}: {error['msg']}{got}"


def MatchesModel(model: type[Any], *, extract: bool = False) -> type[Intent]:
    """The check "the text is JSON that the pydantic v2 ``model`` accepts" (``extract=True``
    finds the JSON inside prose); a TypeError when ``model`` is no pydantic v2 model class, a
    `JudgeUnavailableError` without pydantic (the ``[json]`` extra)."""
    pydantic = require("pydantic", extra="json", feature="MatchesModel")
    if not (isinstance(model, type) and issubclass(model, pydantic.BaseModel)):
        what = (
            f"the class {model.__qualname__}"
            if isinstance(model, type)
            else f"{type(model).__name__} {model!r:.80}"
        )
        old = " (a pydantic v1 model: subclass pydantic.BaseModel, not pydantic.v1's)"
        raise TypeError(
            f"MatchesModel() needs a pydantic v2 model class (a pydantic.BaseModel subclass), "
            f"e.g. MatchesModel(Ticket); got {what}"
            f"{old if hasattr(model, 'parse_raw') and isinstance(model, type) else ''}"
        )
    return _matches_model(model, check_flag(extract, "MatchesModel", "extract"))


@memo(maxsize=256)
def _matches_model(model: type[Any], extract: bool) -> type[Intent]:
    return build(
        MatchesModelCheck,
        f"MatchesModel({model.__name__}{', extract=True' if extract else ''})",
        f"The text is JSON that the pydantic model {model.__name__} accepts.",
        model=model,
        extract=extract,
    )
