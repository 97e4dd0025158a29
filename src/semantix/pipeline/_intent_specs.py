"""Intent specs: the text that names an intent on the command line and in data files
(docs/cli.md, "INTENT"): a description, an intent class as ``module:Name``, a factory call
``module:Factory(literal, ...)``, and (for ``semantix eval``) these combined with ``~``, ``&``,
``|`` and parentheses, where a description inside a combination is quoted.

```python
from semantix.pipeline._intent_specs import intent_from_spec

intent = intent_from_spec("semantix.checks:Contains('refund') & ~'The text is rude.'")
print(intent.__name__)
#> Contains('refund') & ~The text is rude.
```

A spec that does not read as a combination of such parts is a description, whole: ``"polite &
kind"`` is one description, never two.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from semantix._intent import Intent, IntentLike, IntentMeta, as_intent
from semantix.errors import ConfigurationError
from semantix.pipeline._specs import import_object

__all__ = ["intent_from_spec", "load_intent"]

_IMPORT_PATH = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")
_MODULE = re.compile(r"[A-Za-z_][\w.]*")
_AS_DESCRIPTION = (
    "; or, if INTENT is meant as a description, write it as a sentence such as "
    "'The text is polite.'"
)


def load_intent(value: str) -> type[Intent] | str:
    """An intent class for ``module:Name``, the intent a factory returns for
    ``module:Factory(args)`` (literal arguments only, read with `ast.literal_eval`: nothing is
    evaluated), else the text itself (a description). ConfigurationError when an import path
    does not lead to an intent."""
    module, colon, rest = value.strip().partition(":")
    call = _factory_call(rest.strip(), value) if colon and _MODULE.fullmatch(module) else None
    if call is None and not _IMPORT_PATH.fullmatch(value.strip()):
        return value
    name = f"{module}:{call[0]}" if call is not None else value.strip()
    try:
        target = import_object(name, what="INTENT")
    except ConfigurationError as exc:
        raise ConfigurationError(f"{exc}{_AS_DESCRIPTION}") from None
    if call is not None:
        if not callable(target):
            raise ConfigurationError(f"INTENT {value!r} calls {name}, a {type(target).__name__}")
        target = target(*call[1], **call[2])
    if not isinstance(target, IntentMeta):
        hint = (
            f"; {name} is a factory: call it, e.g. '{name}(\"cooking\")'"
            if call is None and callable(target)
            else ""
        )
        raise ConfigurationError(
            f"INTENT {value!r} is {type(target).__name__}, not an Intent class; point it at a "
            f"subclass of semantix.Intent{hint}"
        )
    intent: type[Intent] = target  # type: ignore[assignment]
    return intent


def _factory_call(text: str, value: str) -> tuple[str, list[Any], dict[str, Any]] | None:
    """(dotted name, args, kwargs) of ``Name(literal, key=literal)``; None when ``text`` is
    not a call of a dotted name. A call with a non-literal argument is a ConfigurationError."""
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(node, ast.Call):
        return None
    name = ast.unparse(node.func)
    if not _MODULE.fullmatch(name):
        return None
    try:
        if any(keyword.arg is None for keyword in node.keywords):
            raise ValueError("**kwargs")
        args = [ast.literal_eval(argument) for argument in node.args]
        kwargs = {str(k.arg): ast.literal_eval(k.value) for k in node.keywords}
    except ValueError:
        raise ConfigurationError(
            f"INTENT {value!r} calls {name} with an argument that is not a literal; semantix "
            "evaluates no code from the command line: pass strings, numbers, lists or dicts, "
            f"e.g. {name}('cooking')"
        ) from None
    return name, args, kwargs


def intent_from_spec(spec: str) -> IntentLike:
    """The intent ``spec`` names (module docstring): a combination when it reads as one, else
    `load_intent` of the whole text."""
    if not isinstance(spec, str) or not spec.strip():
        raise ConfigurationError(
            f"intent {spec!r} is not an intent spec; write a description such as 'The text is "
            "polite.', an intent class as module:Name, or a combination such as "
            "'app.intents:Polite & ~app.intents:Rude'"
        )
    tokens = _tokens(spec)
    if tokens is not None and any(token in ("~", "&", "|") for token in tokens):
        parser = _Parser(tokens)
        intent = parser.either()
        if parser.at == len(tokens):
            return intent
    return load_intent(spec)


def _tokens(spec: str) -> list[str] | None:
    """``spec`` cut into ``~ & | ( )``, import paths (with a call) and quoted descriptions; None
    when some part is none of these (then the spec is a description)."""
    tokens: list[str] = []
    at = 0
    while at < len(spec):
        char = spec[at]
        if char.isspace():
            at += 1
        elif char in "~&|()":
            tokens.append(char)
            at += 1
        elif char in "'\"":
            end = _string_end(spec, at)
            if end is None:
                return None
            tokens.append(spec[at:end])
            at = end
        else:
            found = _IMPORT_PATH.match(spec, at)
            if found is None:
                return None
            end = found.end()
            if end < len(spec) and spec[end] == "(":
                closed = _call_end(spec, end)
                if closed is None:
                    return None
                end = closed
            tokens.append(spec[at:end])
            at = end
    return tokens


def _string_end(text: str, start: int) -> int | None:
    quote, at = text[start], start + 1
    while at < len(text):
        if text[at] == "\\":
            at += 2
        elif text[at] == quote:
            return at + 1
        else:
            at += 1
    return None


def _call_end(text: str, start: int) -> int | None:
    depth, at = 0, start
    while at < len(text):
        char = text[at]
        if char in "'\"":
            end = _string_end(text, at)
            if end is None:
                return None
            at = end
            continue
        depth += {"(": 1, ")": -1}.get(char, 0)
        at += 1
        if depth == 0:
            return at
    return None


class _Parser:
    """``|`` of ``&`` of ``~``-prefixed parts, as Python binds the operators."""

    def __init__(self, tokens: list[str]) -> None:
        self.tokens, self.at = tokens, 0

    def peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def either(self) -> type[Intent]:
        intent = self.both()
        while self.peek() == "|":
            self.at += 1
            intent = intent | self.both()
        return intent

    def both(self) -> type[Intent]:
        intent = self.negated()
        while self.peek() == "&":
            self.at += 1
            intent = intent & self.negated()
        return intent

    def negated(self) -> type[Intent]:
        token = self.peek()
        if token is None or token in "&|)":
            raise ConfigurationError(
                f"intent {' '.join(self.tokens)!r}: expected an intent at part {self.at + 1}, "
                f"got {token or 'the end'!r}; write e.g. 'app.intents:Polite & ~app.intents:Rude'"
            )
        self.at += 1
        if token == "~":
            return ~self.negated()
        if token == "(":
            intent = self.either()
            if self.peek() != ")":
                raise ConfigurationError(
                    f"intent {' '.join(self.tokens)!r}: a '(' is not closed; add the ')'"
                )
            self.at += 1
            return intent
        if token[0] in "'\"":
            return as_intent(ast.literal_eval(token))
        return as_intent(load_intent(token))
