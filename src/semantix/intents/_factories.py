"""Parameterised ready-made intents: ``OnTopic(topic)`` and ``Mentions(thing)``.

The classes carry no threshold or examples, so no judge calibrates them from examples; subclass
one to add them (the subclass keeps the description and hypothesis):

```python
class AboutCooking(OnTopic("cooking")):
    threshold = 0.3
    examples = ("Whisk the eggs with the sugar.", "Roast the squash for 40 minutes.")
    counterexamples = ("Your parcel ships today.", "The invoice is attached.")
```
"""

from __future__ import annotations

from typing import ClassVar, cast

from semantix._cache import memo
from semantix._intent import Intent, IntentMeta

__all__ = ["MentionIntent", "Mentions", "OnTopic", "TopicIntent", "build_intent"]

#: Longest accepted argument: a topic or a thing is a phrase, not a requirement.
MAX_ARGUMENT_CHARS = 200
_CACHE_SIZE = 256  # distinct arguments remembered: the same argument gives the same class


class TopicIntent(Intent, abstract=True):
    """Base of the intents ``OnTopic(topic)`` builds; ``topic`` is the argument."""

    topic: ClassVar[str]


class MentionIntent(Intent, abstract=True):
    """Base of the intents ``Mentions(thing)`` builds; ``thing`` is the argument."""

    thing: ClassVar[str]


def OnTopic(topic: str) -> type[Intent]:
    """The intent "the text is about ``topic``" as a whole (not merely in passing), named
    ``OnTopic('cooking')`` in messages; the same argument returns the same class.

    Args:
        topic: a short phrase such as ``"our refund policy"`` (whitespace is normalised, a final
            period dropped).

    Raises:
        TypeError: ``topic`` is not a str.
        ValueError: ``topic`` is empty or longer than 200 characters.
    """
    topic = _check_argument(topic, factory="OnTopic", what="topic", example="cooking")
    return _cached_intent(
        TopicIntent, f"OnTopic({topic!r})", f"The text is about {topic}.", topic=topic
    )


def Mentions(thing: str) -> type[Intent]:
    """The intent "the text mentions ``thing``" explicitly or by a clear paraphrase (the same
    subject is not enough), named ``Mentions('a refund')`` in messages; the same argument returns
    the same class.

    Args:
        thing: a short phrase such as ``"the return deadline"`` (whitespace is normalised, a
            final period dropped).

    Raises:
        TypeError: ``thing`` is not a str.
        ValueError: ``thing`` is empty or longer than 200 characters.
    """
    thing = _check_argument(thing, factory="Mentions", what="thing", example="the oven temperature")
    return _cached_intent(
        MentionIntent, f"Mentions({thing!r})", f"The text mentions {thing}.", thing=thing
    )


def build_intent(
    base: type[Intent], name: str, statement: str, **attributes: object
) -> type[Intent]:
    """A subclass of ``base`` named ``name``, with ``statement`` as its description and
    hypothesis, and ``attributes``."""
    namespace: dict[str, object] = {"__doc__": statement, "__module__": "semantix.intents"}
    namespace |= {"__qualname__": name, "hypothesis": statement, **attributes}
    return cast("type[Intent]", IntentMeta(name, (base,), namespace))


_cached_intent = memo(maxsize=_CACHE_SIZE)(build_intent)


def _check_argument(value: object, *, factory: str, what: str, example: str) -> str:
    if not isinstance(value, str):
        raise TypeError(
            f"{factory}() needs the {what} as a str, e.g. {factory}({example!r}); got "
            f"{type(value).__name__} {value!r:.80}"
        )
    text = " ".join(value.split()).rstrip(".").strip()
    if not text:
        raise ValueError(
            f"{factory}() got an empty {what} ({value!r}); pass a short phrase, e.g. "
            f"{factory}({example!r})"
        )
    if len(text) > MAX_ARGUMENT_CHARS:
        raise ValueError(
            f"{factory}() takes a short phrase as its {what}, got {len(text)} characters (at "
            f"most {MAX_ARGUMENT_CHARS}); for a longer requirement write an Intent class with "
            "the requirement as its docstring"
        )
    return text


for _base in (TopicIntent, MentionIntent):
    _base.__module__ = "semantix.intents"
