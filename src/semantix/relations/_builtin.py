"""The four built-in relations: order, distractor, format jitter, paraphrase.

Every random choice comes from ``random.Random(seed)`` (the same variants on every run and
machine), and every variant's label records what was done: the permutation, the distractor and
where it went, the jitter, the paraphrase's number in its file.
"""

from __future__ import annotations

import itertools
import random
import re
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from semantix._config import check_positive_int
from semantix._text import preview
from semantix.errors import ConfigurationError
from semantix.relations._base import (
    MISSING,
    Case,
    NotApplicable,
    Relation,
    Variant,
    Variants,
    _missing,
    check_field_path,
    get_field,
    with_field,
)
from semantix.relations._variants import read_variants, variants_path

__all__ = [
    "JITTERS",
    "Distractor",
    "FormatJitter",
    "MissingVariantsWarning",
    "Order",
    "Paraphrase",
    "distractor",
    "format_jitter",
    "order",
    "paraphrase",
]

#: The kinds of format jitter, in the order variants cycle through them.
JITTERS = ("whitespace", "casing", "punctuation")


class MissingVariantsWarning(UserWarning):
    """A paraphrase relation found no usable variants file for a case (it is not applicable)."""


def _list_field(relation: Order | Distractor, case: Case) -> list[Any] | NotApplicable:
    value = get_field(case, relation.field)
    if value is MISSING:
        return _missing(case, relation.field)
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise ConfigurationError(
            f"{relation.label}: field {relation.field!r} holds {type(value).__name__}, not a "
            "list; order and distractor relations reorder or extend a list field (e.g. the "
            "retrieved documents)"
        )
    return list(value)


def _rebuilt(case: Case, path: str, items: list[Any]) -> Any:
    """``case`` with the list at ``path`` replaced by ``items`` (a tuple stays a tuple)."""
    rebuild = tuple if isinstance(get_field(case, path), tuple) else list
    return with_field(case, path, rebuild(items))


class Order(Relation):
    """Permute a list field: the reversal first, then distinct seeded permutations."""

    name = "order"
    field: str

    def __init__(self, field: str, *, count: int = 3, seed: int = 0) -> None:
        self.field = check_field_path(field)
        check_positive_int(count, what="count", example=3)
        self.count = count
        self.seed = seed

    def variants(self, case: Case, *, case_id: str | None = None) -> Variants:
        items = _list_field(self, case)
        if isinstance(items, NotApplicable):
            return items
        n = len(items)
        if n < 2:
            return NotApplicable(f"{self.field!r} has {n} item{'s' * (n != 1)}: nothing to reorder")
        identity = tuple(range(n))
        chosen: list[tuple[int, ...]] = [tuple(reversed(identity))]
        if n <= 4:  # few permutations: take them in a seeded order
            rest = [p for p in itertools.permutations(identity) if p not in (identity, chosen[0])]
            random.Random(self.seed).shuffle(rest)
            chosen.extend(rest)
        else:
            rng = random.Random(self.seed)
            attempts = 0
            while len(chosen) < self.count and attempts < 100 * self.count:
                attempts += 1
                permutation = tuple(rng.sample(identity, n))
                if permutation != identity and permutation not in chosen:
                    chosen.append(permutation)
        return tuple(
            Variant(_rebuilt(case, self.field, [items[i] for i in order]), f"order {list(order)}")
            for order in chosen[: self.count]
        )


class Distractor(Relation):
    """Insert one irrelevant document from ``pool`` into a list field, at a seeded position."""

    name = "distractor"
    field: str

    def __init__(self, field: str, pool: Sequence[Any], *, count: int = 1, seed: int = 0) -> None:
        self.field = check_field_path(field)
        if isinstance(pool, (str, bytes)) or not isinstance(pool, Sequence) or not pool:
            raise ConfigurationError(
                f"distractor(field={field!r}) needs pool= a non-empty list of irrelevant "
                f"documents to insert, got {pool!r}"
            )
        check_positive_int(count, what="count", example=1)
        self.pool = list(pool)
        self.count = count
        self.seed = seed

    def variants(self, case: Case, *, case_id: str | None = None) -> Variants:
        items = _list_field(self, case)
        if isinstance(items, NotApplicable):
            return items
        candidates = [document for document in self.pool if document not in items]
        if not candidates:
            return NotApplicable(f"every document of the pool is already in {self.field!r}")
        rng = random.Random(self.seed)
        picked = rng.sample(candidates, min(self.count, len(candidates)))
        variants = []
        for document in picked:
            position = rng.randint(0, len(items))
            changed = [*items[:position], document, *items[position:]]
            label = f"distractor {preview(str(document), 40)} at {position}"
            variants.append(Variant(_rebuilt(case, self.field, changed), label))
        return tuple(variants)


def _whitespace(text: str, rng: random.Random) -> tuple[str, str]:
    spaces = [match.start() for match in re.finditer(" ", text)]
    if spaces:
        doubled = set(rng.sample(spaces, max(1, len(spaces) // 3)))
        text = "".join(char * 2 if index in doubled else char for index, char in enumerate(text))
        return f"  {text} ", f"whitespace: {len(doubled)} doubled spaces, padded"
    return f"  {text} ", "whitespace: padded"


def _casing(text: str, rng: random.Random) -> tuple[str, str]:
    options = [("lower", text.lower()), ("upper", text.upper()), ("swapped", text.swapcase())]
    rng.shuffle(options)
    for name, changed in options:
        if changed != text:
            return changed, f"casing: {name}"
    return text, "casing"


def _punctuation(text: str, rng: random.Random) -> tuple[str, str]:
    stripped = text.rstrip(".?!;: ")
    if stripped != text.rstrip():
        return stripped, f"punctuation: removed trailing {text.rstrip()[len(stripped) :]!r}"
    if "," in text:
        return text.replace(",", ""), "punctuation: commas removed"
    mark = rng.choice([".", "!", "?"]) if not text.rstrip().endswith("?") else "."
    return text.rstrip() + mark, f"punctuation: added {mark!r}"


_JITTER_FUNCTIONS = {"whitespace": _whitespace, "casing": _casing, "punctuation": _punctuation}


class FormatJitter(Relation):
    """Whitespace, casing and punctuation changes of a text field (one kind per variant)."""

    name = "format_jitter"
    field: str

    def __init__(
        self, field: str, *, kinds: Sequence[str] = JITTERS, count: int = 3, seed: int = 0
    ) -> None:
        self.field = check_field_path(field)
        unknown = [kind for kind in kinds if kind not in JITTERS] if kinds else ["(none)"]
        if isinstance(kinds, str) or unknown:
            raise ConfigurationError(
                f"format_jitter kinds must be a non-empty list of {', '.join(JITTERS)}; got "
                f"{kinds!r}"
            )
        check_positive_int(count, what="count", example=3)
        self.kinds = tuple(kinds)
        self.count = count
        self.seed = seed

    def variants(self, case: Case, *, case_id: str | None = None) -> Variants:
        text = get_field(case, self.field)
        if text is MISSING:
            return _missing(case, self.field)
        if not isinstance(text, str):
            raise ConfigurationError(
                f"{self.label}: field {self.field!r} holds {type(text).__name__}, not text; "
                "format jitter changes a text field (e.g. the question)"
            )
        if not text.strip():
            return NotApplicable(f"{self.field!r} is empty: no format to jitter")
        rng = random.Random(self.seed)
        seen = {text}
        variants = []
        for kind in itertools.islice(itertools.cycle(self.kinds), self.count):
            changed, label = _JITTER_FUNCTIONS[kind](text, rng)
            if changed not in seen:
                seen.add(changed)
                variants.append(Variant(with_field(case, self.field, changed), label))
        return tuple(variants) or NotApplicable(f"no jitter changes {self.field!r}")


class Paraphrase(Relation):
    """Replace a text field by its reviewed paraphrases, read from ``<directory>/<case id>.yaml``.

    Never generated at test time: a missing file, a field the file lacks, or a file frozen for
    another text of the field makes the relation not applicable, with a `MissingVariantsWarning`.
    """

    name = "paraphrase"
    field: str

    def __init__(self, field: str, *, directory: str | Path = "variants") -> None:
        self.field = check_field_path(field)
        self.directory = Path(directory)

    def located(self, base: Path) -> Paraphrase:
        """This relation with a relative directory resolved against ``base`` (the test's)."""
        if self.directory.is_absolute():
            return self
        return Paraphrase(self.field, directory=base / self.directory)

    def variants(self, case: Case, *, case_id: str | None = None) -> Variants:
        text = get_field(case, self.field)
        if text is MISSING:
            return _missing(case, self.field)
        if case_id is None:
            raise ConfigurationError(
                f"{self.label} needs the case's id to find its variants file: give the case an "
                "'id' field, or pass case_id=..."
            )
        path = variants_path(self.directory, case_id)
        if path is None:
            return self._skip(
                f"no variants file {self.directory / case_id}.yaml; write it with "
                f"semantix freeze-variants (then review and commit it)"
            )
        frozen = read_variants(path)
        if self.field not in frozen.fields:
            return self._skip(f"{path} has no paraphrases of {self.field!r}")
        original, paraphrases = frozen.fields[self.field]
        if original != text:
            return self._skip(
                f"{path} was frozen for another {self.field!r} ({preview(original, 60)}, the "
                f"case has {preview(str(text), 60)}); write it again with semantix "
                "freeze-variants --force, then review it"
            )
        if not paraphrases:
            return NotApplicable(f"{path} keeps no paraphrase of {self.field!r} (all deleted)")
        return tuple(
            Variant(with_field(case, self.field, paraphrase), f"paraphrase {index}")
            for index, paraphrase in enumerate(paraphrases, start=1)
        )

    def _skip(self, reason: str) -> NotApplicable:
        warnings.warn(
            f"{self.label} not applicable: {reason}", MissingVariantsWarning, stacklevel=4
        )
        return NotApplicable(reason)


#: The relations by their documented lower-case names (``order("documents")``).
order = Order
distractor = Distractor
format_jitter = FormatJitter
paraphrase = Paraphrase
