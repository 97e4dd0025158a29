"""Masking secrets (API keys, URL passwords) out of every text semantix keeps or shows.

The bottom floor: imports nothing from semantix and nothing heavy, so the judges, the verdict
store and the report can all use it.

```python
from semantix.secrets import mask_secrets, mask_url

print(mask_secrets("echo: Bearer sk-test-0123456789", ["sk-test-0123456789"]))
print(mask_url("https://me:pw@proxy.example/v1"))
#> echo: Bearer ********
#> https://me:********@proxy.example/v1
```

A secret is masked wherever it appears as a substring, before any shortening (a preview cut in
the middle of a key would otherwise leave its prefix). Values shorter than
`MIN_SECRET_LENGTH` characters are not treated as secrets (they would mask ordinary words);
``None`` and empty values are ignored, so ``mask_secrets(text, [config.openai_api_key()])`` is safe
whether or not a key is set.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit, urlunsplit

__all__ = [
    "MASK",
    "MIN_SECRET_LENGTH",
    "mask_exception",
    "mask_secrets",
    "mask_url",
    "mask_value",
    "usable_secrets",
]

#: What a secret is replaced with.
MASK = "********"

#: Shorter values are not masked: they are not real keys and would hide ordinary words.
MIN_SECRET_LENGTH = 4


def usable_secrets(secrets: Iterable[object]) -> tuple[str, ...]:
    """The distinct strings of ``secrets`` worth masking, longest first (None, short ignored)."""
    found = {s for s in secrets if isinstance(s, str) and len(s) >= MIN_SECRET_LENGTH}
    # Longest first, so a key that contains another secret is masked whole.
    return tuple(sorted(found, key=lambda s: (-len(s), s)))


def mask_secrets(text: str, secrets: Iterable[object]) -> str:
    """``text`` with every occurrence of each secret replaced by `MASK`."""
    for secret in usable_secrets(secrets):
        if secret in text:
            text = text.replace(secret, MASK)
    return text


def mask_value(value: object, secrets: Iterable[object]) -> object:
    """``value`` with secrets masked in every string inside it (dicts, lists and tuples walked).

    For JSON-like data such as an error body; other objects are returned unchanged.
    """
    usable = usable_secrets(secrets)
    if not usable:
        return value
    return _mask_value(value, usable)


def _mask_value(value: object, secrets: tuple[str, ...]) -> object:
    if isinstance(value, str):
        return mask_secrets(value, secrets)
    if isinstance(value, Mapping):
        return {_mask_value(k, secrets): _mask_value(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [_mask_value(item, secrets) for item in value]
    if isinstance(value, tuple):
        return tuple(_mask_value(item, secrets) for item in value)
    return value


def mask_exception(exc: BaseException, secrets: Iterable[object]) -> BaseException:
    """Mask secrets in ``exc`` in place and return it.

    Masks its ``args`` and the ``message`` and ``body`` attributes HTTP SDKs set (the openai SDK's
    ``APIError``), through the whole ``__cause__``/``__context__`` chain.
    """
    usable = usable_secrets(secrets)
    seen: set[int] = set()
    current: BaseException | None = exc
    while usable and current is not None and id(current) not in seen:
        seen.add(id(current))
        current.args = tuple(_mask_value(arg, usable) for arg in current.args)
        for name in ("message", "body"):
            attribute = getattr(current, name, None)
            if isinstance(attribute, (str, Mapping, list)):
                try:
                    setattr(current, name, _mask_value(attribute, usable))
                except AttributeError:  # a read-only property: nothing stored to mask
                    continue
        current = current.__cause__ or current.__context__
    return exc


def mask_url(url: str | None) -> str | None:
    """``url`` with any password replaced by `MASK` (for reprs and messages)."""
    if not url:
        return url
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = f"{parts.username}:{MASK}@{parts.hostname}"
    if parts.port is not None:
        netloc += f":{parts.port}"
    return urlunsplit(parts._replace(netloc=netloc))
