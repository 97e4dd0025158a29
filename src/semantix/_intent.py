"""Intents: requirements written as classes whose docstring is the description.

```python
from semantix import Intent

class Polite(Intent):
    \"\"\"The text must be polite and professional.\"\"\"

class Rude(Intent):
    \"\"\"The text is rude.\"\"\"

class Apologetic(Intent):
    \"\"\"The text apologizes.\"\"\"

NotPolite = ~Polite                  # passes exactly when Polite fails
PoliteNotRude = Polite & ~Rude       # every part must hold
Either = Polite | Apologetic         # at least one part must hold
```
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar, cast

from semantix._cache import memo
from semantix._compat import Description
from semantix._config import check_threshold
from semantix._files import encodable, read_text
from semantix._text import cleandoc
from semantix.errors import ConfigurationError

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "DEFAULT_THRESHOLD",
    "Conjunction",
    "Disjunction",
    "EquivalenceDescription",
    "Intent",
    "IntentDescription",
    "IntentLike",
    "Negation",
    "SupportDescription",
    "as_intent",
    "examples_path",
    "iter_leaves",
]

#: Threshold used when neither the call, the intent nor the judge sets one.
DEFAULT_THRESHOLD = 0.8


class IntentDescription(str):
    """The description of an intent, as handed to a judge.

    It *is* the description string, so judges written against ``str`` work unchanged; judges that
    know more read the extra attributes: ``hypothesis`` (explicit NLI phrasing or None),
    ``examples`` and ``counterexamples`` (tuples of example outputs).
    """

    #: What a judge is asked (`semantix.judges._request.Request.asks`): a statement here.
    asks: ClassVar[str] = "statement"
    hypothesis: str | None
    examples: tuple[str, ...]
    counterexamples: tuple[str, ...]

    def __new__(  # noqa: PYI034 - typing.Self needs Python 3.11
        cls,
        description: str,
        *,
        hypothesis: str | None = None,
        examples: tuple[str, ...] = (),
        counterexamples: tuple[str, ...] = (),
    ) -> IntentDescription:
        self = super().__new__(cls, description)
        self.hypothesis = hypothesis
        self.examples = examples
        self.counterexamples = counterexamples
        return self


class EquivalenceDescription(IntentDescription):
    """What a snapshot asks a judge that declares ``evaluate_equivalence``: does the output mean
    the same as ``stored``? It is the stored text (also the explicit hypothesis); a judge's
    ``evaluate`` hands it to ``evaluate_equivalence(stored, output, threshold)``."""

    asks: ClassVar[str] = "equivalence"
    stored: str

    def __new__(cls, stored: str) -> EquivalenceDescription:  # noqa: PYI034
        self = cast("EquivalenceDescription", super().__new__(cls, stored, hypothesis=stored))
        self.stored = stored
        return self


class SupportDescription(IntentDescription):
    """The description of a support leaf, as a judge receives it: the requirement in words
    (which names a digest of the sources), built by ``Grounded`` and ``Contradicts``
    (`semantix.intents`), plus ``sources`` (the texts, in order) and
    ``relation`` (``support`` or ``contradiction``)."""

    asks: ClassVar[str] = "support"
    sources: tuple[str, ...]
    relation: str

    def __new__(  # noqa: PYI034 - typing.Self needs Python 3.11
        cls, description: str, *, sources: tuple[str, ...], relation: str
    ) -> SupportDescription:
        self = cast("SupportDescription", super().__new__(cls, description, hypothesis=description))
        self.sources = sources
        self.relation = relation
        return self


class IntentMeta(type):
    """Metaclass that gives intent classes ``~``, ``&``, ``|`` and a readable repr."""

    def __invert__(cls) -> type[Intent]:
        if issubclass(cls, Negation):
            return cls.operand
        return _make_composite(Negation, f"~{_operand_name(cls)}", (as_intent(cls),))

    def __and__(cls, other: object) -> type[Intent]:
        return _combine(Conjunction, cls, other)

    def __rand__(cls, other: object) -> type[Intent]:
        return _combine(Conjunction, other, cls)

    def __or__(cls, other: object) -> type[Intent]:
        return _combine(Disjunction, cls, other)

    def __ror__(cls, other: object) -> type[Intent]:
        return _combine(Disjunction, other, cls)

    def __repr__(cls) -> str:
        return cls.__name__

    @property
    def description(cls) -> str:
        """The requirement in words: the class docstring, cleaned with ``inspect.cleandoc``
        (a ``str``; ``Polite.description()`` gives the same, as in semantix-ai)."""
        if issubclass(cls, _Composite):
            return Description(cls.__name__)
        cached = cls.__dict__.get("_cached_description")
        if cached is not None and cached[0] is cls.__doc__:
            return cast("str", cached[1])
        found = _find_description(cls)
        description = None if found is None else Description(found)
        if description is None:
            raise TypeError(
                f"intent {cls.__name__} is abstract and has no description; "
                "use one of its subclasses with a docstring"
            )
        type.__setattr__(cls, "_cached_description", (cls.__doc__, description))
        return description

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            f"intents are used as classes, not instances: pass {cls.__name__}, not {cls.__name__}()"
        )


class Intent(metaclass=IntentMeta):
    """Base class of every intent. Write the requirement as the docstring.

    Every class attribute below is optional. Declare ``class Strict(Intent, abstract=True)`` for
    a base class that only shares attributes and has no description of its own.

    Attributes:
        threshold: the score this intent needs, in [0, 1] (step 2 of the threshold order:
            after an explicit ``threshold=`` argument, before calibration from the examples
            and the judge's recommended threshold). The base class's 0.8 is the last resort.
        hypothesis: an explicit NLI phrasing, used instead of the automatic one (it also turns
            off the rewrite of a negatively phrased requirement). It belongs to the docstring
            of the class that sets it: a subclass that rewrites the docstring without a
            hypothesis of its own is phrased from its own docstring.
        examples: outputs that satisfy the intent.
        counterexamples: outputs that do not. With both, a judge that gives scores calibrates
            the threshold from them (the midpoint between the weakest example and the strongest
            counterexample); the embedding judge uses them in its score instead.
        examples_file: a JSON file holding ``examples`` and ``counterexamples`` (a path
            relative to the module's directory), read once when the class is created; written
            by ``semantix examples`` and reviewed by a person (docs/cli.md#semantix-examples).
        abstract: True for base classes that carry no description (``abstract=True``) and for
            composites.
    """

    threshold: ClassVar[float] = DEFAULT_THRESHOLD
    hypothesis: ClassVar[str | None] = None
    examples: ClassVar[tuple[str, ...]] = ()
    counterexamples: ClassVar[tuple[str, ...]] = ()
    examples_file: ClassVar[str | None] = None
    #: The examples_file that was not there when the class was created (an error when judged).
    _missing_examples_file: ClassVar[Path | None] = None
    #: True for base classes that carry no description (``abstract=True``) and for composites.
    abstract: ClassVar[bool] = True
    #: The optional judge method this leaf needs (e.g. ``"evaluate_support"`` for `Grounded`),
    #: or None: the pipeline refuses a judge that does not declare it, before asking anything.
    requires: ClassVar[str | None] = None
    #: What the leaf reads of the output: ``"text"`` (every semantic leaf, most structural ones),
    #: or another part of the view (``"tool calls"``, ``"token usage"``). A leaf that reads the
    #: text, on an output that holds none, cannot be decided (see `semantix.pipeline`).
    needs: ClassVar[str] = "text"
    #: This leaf's own stand-in for the judge's recommended threshold, per judge ``scale``
    #: (a snapshot judged by a similarity judge: a paraphrase-level similarity).
    scale_thresholds: ClassVar[dict[str, float]] = {}

    def __init_subclass__(cls, *, abstract: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.abstract = abstract
        if "threshold" in cls.__dict__:
            cls.threshold = check_threshold(
                cls.__dict__["threshold"], what=f"{cls.__name__}.threshold"
            )
        if "hypothesis" in cls.__dict__:
            hypothesis = cls.__dict__["hypothesis"]
            if hypothesis is not None and (
                not isinstance(hypothesis, str) or not hypothesis.strip()
            ):
                raise TypeError(
                    f"{cls.__name__}.hypothesis must be a non-empty str or None, got {hypothesis!r}"
                )
            if hypothesis is not None:
                cls.hypothesis = encodable(hypothesis)
        for name in ("examples", "counterexamples"):
            if name in cls.__dict__:
                setattr(cls, name, _check_examples(cls, name, cls.__dict__[name]))
        if "examples_file" in cls.__dict__:
            _read_examples_file(cls)
        if not abstract and not issubclass(cls, _Composite) and _find_description(cls) is None:
            raise TypeError(
                f"intent {cls.__name__} has no description: write the requirement as its "
                f'docstring, e.g. class {cls.__name__}(Intent): """The text is polite.""" '
                f"(or declare class {cls.__name__}(Intent, abstract=True) for a base class "
                "that only shares attributes such as threshold)"
            )

    @classmethod
    def judge_description(cls) -> IntentDescription:
        """The description with the hypothesis and examples attached, as judges receive it."""
        if cls._missing_examples_file is not None:
            raise ConfigurationError(
                f"{cls.__name__}.examples_file {cls.examples_file!r} does not exist "
                f"({cls._missing_examples_file}); write it with 'semantix examples "
                f"{cls.__module__}:{cls.__qualname__} --judge llm', review and commit it, or "
                "remove examples_file"
            )
        # Built once per class (every check asks); rebuilt if the class's attributes change.
        key = (cls.description, cls.hypothesis, cls.examples, cls.counterexamples)
        cached = cls.__dict__.get("_cached_judge_description")
        if cached is not None and cached[0] == key:
            return cast("IntentDescription", cached[1])
        built = IntentDescription(
            cls.description,
            hypothesis=_own_hypothesis(cls),
            examples=tuple(cls.examples),
            counterexamples=tuple(cls.counterexamples),
        )
        type.__setattr__(cls, "_cached_judge_description", (key, built))
        return built

    @classmethod
    def explicit_threshold(cls) -> float | None:
        """The threshold set by the user on this class or a user base class, else None.

        The library's own ``Intent.threshold`` default does not count: it is the last resort
        of the threshold order, after the judge's recommended threshold.
        """
        for klass in cls.__mro__:
            if klass is Intent:
                return None
            if "threshold" in klass.__dict__:
                return float(klass.__dict__["threshold"])
        return None


def _own_hypothesis(cls: type) -> str | None:
    """The ``hypothesis`` of the class that wrote the description, or of one above it.

    A hypothesis phrases one docstring: a subclass that rewrites the docstring without setting
    a hypothesis of its own gets its own phrasing, not its parent's.
    """
    for klass in cls.__mro__:
        if klass is Intent or klass is object:
            return None
        if klass.__dict__.get("abstract") is True:
            continue  # an abstract base carries settings, not a description
        if "hypothesis" in klass.__dict__:
            value = klass.__dict__["hypothesis"]
            return value if isinstance(value, str) else None
        doc = klass.__dict__.get("__doc__")
        if isinstance(doc, str) and doc.strip():
            return None
    return None


def _find_description(cls: type) -> str | None:
    for klass in cls.__mro__:
        if klass is Intent or klass is object:
            return None
        if klass.__dict__.get("abstract") is True:
            continue  # an abstract base (Structural, Scoped, yours) documents, not describes
        doc = klass.__dict__.get("__doc__")
        if isinstance(doc, str) and doc.strip():
            return cleandoc(doc)
    return None


def examples_path(cls: type[Intent]) -> Path | None:
    """Where ``cls.examples_file`` points (relative to the module's directory), or None; a
    `ConfigurationError` when it leaves that directory (absolute, or up through ``..``)."""
    name = cls.examples_file
    if name is None:
        return None
    from pathlib import Path, PurePath  # only for an intent with an examples file

    if not isinstance(name, str) or not name.strip():
        raise TypeError(f"{cls.__name__}.examples_file must be a path (str), got {name!r}")
    module = sys.modules.get(cls.__module__)
    where = getattr(module, "__file__", None)
    relative = PurePath(os.path.normpath(name))
    if relative.anchor or relative.parts[:1] == ("..",):
        raise ConfigurationError(
            f"{cls.__name__}.examples_file {name!r} leaves the module's directory "
            f"({Path(where).parent if where else Path.cwd()}); name a file inside it, e.g. "
            f"examples_file = 'examples/{cls.__name__}.json' (semantix examples writes it there)"
        )
    return Path(where).parent / relative if where else Path(relative)


def _read_examples_file(cls: type[Intent]) -> None:
    path = examples_path(cls)
    if path is None or not path.is_file():
        cls._missing_examples_file = path
        return
    if {"examples", "counterexamples"} & set(cls.__dict__):
        raise TypeError(f"{cls.__name__} sets examples_file and examples: keep one of the two")
    text = read_text(path, what=f"{cls.__name__}.examples_file")
    try:
        import json  # only intents with an examples file read one

        data = json.loads(text)
    except ValueError as exc:
        raise ConfigurationError(f"{path}: not JSON ({exc}); rewrite it with --force") from None
    except RecursionError:
        raise ConfigurationError(
            f"{path}: nests arrays or objects deeper than can be read (an examples file nests "
            "2 levels); rewrite it with --force"
        ) from None
    if not isinstance(data, dict):
        raise ConfigurationError(f"{path}: expected an object with examples and counterexamples")
    for name in ("examples", "counterexamples"):
        setattr(cls, name, _check_examples(cls, name, data.get(name, ())))
    cls._missing_examples_file = None


def _check_examples(cls: type, name: str, value: object) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise TypeError(
            f"{cls.__name__}.{name} must be a list or tuple of example outputs (str), got {value!r}"
        )
    for item in value:
        if not isinstance(item, str) or not item.strip():
            raise TypeError(f"{cls.__name__}.{name} must hold non-empty strings, got {item!r}")
    return tuple(map(encodable, value))  # judged as outputs are: a lone surrogate is U+FFFD


class _Composite(Intent, abstract=True):
    """Base of the classes built by ``~``, ``&`` and ``|``."""

    operands: ClassVar[tuple[type[Intent], ...]] = ()


class Negation(_Composite, abstract=True):
    """``~X``: passes exactly when X fails. ``operand`` is X."""

    operand: ClassVar[type[Intent]]


class Conjunction(_Composite, abstract=True):
    """``X & Y``: passes when every operand passes."""


class Disjunction(_Composite, abstract=True):
    """``X | Y``: passes when at least one operand passes."""


IntentLike = type[Intent] | str


@memo(maxsize=1024)
def _described(value: str) -> type[Intent]:
    """The intent class of a description string (one per string: its checks share their plan
    and their verdicts)."""
    if not value.strip():
        raise ValueError(
            "the intent description is empty; pass a requirement such as "
            "'The text is polite.' or an Intent class"
        )
    text = encodable(value.strip())  # judged as outputs are (and a class name must encode)
    name = repr(" ".join(text.split()))  # the whole text: reports elide it once, if at all
    namespace = {"__doc__": text, "__module__": "semantix"}
    return cast("type[Intent]", IntentMeta(name, (Intent,), namespace))


def as_intent(value: object) -> type[Intent]:
    """Turn an intent class or a plain description string into an intent class."""
    if isinstance(value, type) and issubclass(value, Intent):
        if value.abstract and not issubclass(value, _Composite):
            raise TypeError(
                f"intent {value.__name__} is abstract (no description); pass one of its "
                "subclasses that has a docstring"
            )
        return value
    if isinstance(value, str):
        return _described(value)
    if isinstance(value, type):
        raise TypeError(
            f"{value.__name__} is a class but not an Intent; subclass semantix.Intent "
            "and write the requirement as its docstring"
        )
    raise TypeError(
        f"intent must be an Intent class or a description str, got {type(value).__name__} "
        f"{value!r:.80}"
    )


def _operand_name(cls: type) -> str:
    name = cls.__name__
    return f"({name})" if issubclass(cls, (Conjunction, Disjunction)) else name


def _combine(kind: type[_Composite], left: object, right: object) -> type[Intent]:
    operands: list[type[Intent]] = []
    for side in (left, right):
        intent = as_intent(side)
        if issubclass(intent, kind):
            operands.extend(intent.operands)  # flatten (A & B) & C into A & B & C
        else:
            operands.append(intent)
    symbol = " & " if kind is Conjunction else " | "
    name = symbol.join(_operand_name(operand) for operand in operands)
    return _make_composite(kind, name, tuple(operands))


def _make_composite(
    kind: type[_Composite], name: str, operands: tuple[type[Intent], ...]
) -> type[Intent]:
    namespace: dict[str, Any] = {"operands": operands, "__module__": "semantix", "__doc__": None}
    if kind is Negation:
        namespace["operand"] = operands[0]
    return cast("type[Intent]", IntentMeta(name, (kind,), namespace, abstract=True))


def iter_leaves(intent: type[Intent]) -> Iterator[type[Intent]]:
    """Yield the leaf intents of a (possibly composite) intent, depth first, each once."""
    seen: set[type[Intent]] = set()

    def walk(node: type[Intent]) -> Iterator[type[Intent]]:
        if issubclass(node, _Composite):
            for operand in node.operands:
                yield from walk(operand)
        elif node not in seen:
            seen.add(node)
            yield node

    yield from walk(intent)


Intent.__module__ = "semantix"
for _public in (IntentDescription, Negation, Conjunction, Disjunction):
    _public.__module__ = "semantix._intent"
