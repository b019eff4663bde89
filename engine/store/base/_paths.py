"""Which texts of a stored value get embedded: LangGraph's field-path syntax.

A path names parts of a value: ``"title"``, ``"meta.title"`` (nested keys),
``"authors[0]"`` / ``"authors[-1]"`` (one element), ``"chunks[*].text"``
(every element, each its own text), ``"*"`` (every value of a dict or list),
``"{title,meta.author}"`` (several fields at once), and ``"$"`` (the whole
value as JSON). Strings, numbers and booleans become their ``str``; lists
and dicts become JSON (sorted keys); None and missing parts give nothing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["get_text_at_path", "tokenize_path"]


def _as_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def tokenize_path(path: str) -> list[str]:
    """Split ``path`` into keys, ``[index]`` and ``{fields}`` tokens (brackets balanced)."""
    tokens: list[str] = []
    word: list[str] = []
    i, n = 0, len(path)
    while i < n:
        char = path[i]
        if char in "[{":
            if word:
                tokens.append("".join(word))
                word = []
            close = "]" if char == "[" else "}"
            depth, j = 1, i + 1
            while j < n and depth:
                depth += (path[j] == char) - (path[j] == close)
                j += 1
            tokens.append(path[i:j])
            i = j
            continue
        if char == ".":
            if word:
                tokens.append("".join(word))
                word = []
        else:
            word.append(char)
        i += 1
    if word:
        tokens.append("".join(word))
    return tokens


def _leaf(value: Any) -> list[str]:
    if isinstance(value, (str, int, float, bool)):
        return [str(value)]
    if isinstance(value, (list, dict)):
        return [_as_json(value)]
    return []


def _pick(value: Any, field: str) -> list[str]:
    """One field of a ``{a,b.c}`` token: nested keys only."""
    for key in tokenize_path(field):
        if not isinstance(value, dict) or key not in value:
            return []
        value = value[key]
    return _leaf(value)


def _walk(value: Any, tokens: list[str], at: int) -> list[str]:
    if at == len(tokens):
        return _leaf(value)
    token = tokens[at]
    out: list[str] = []
    if token.startswith("[") and token.endswith("]"):
        if not isinstance(value, list):
            return []
        inner = token[1:-1]
        if inner == "*":
            for element in value:
                out += _walk(element, tokens, at + 1)
            return out
        try:
            index = int(inner)
        except ValueError:
            return []
        if index < 0:
            index += len(value)
        return _walk(value[index], tokens, at + 1) if 0 <= index < len(value) else []
    if token.startswith("{") and token.endswith("}"):
        if not isinstance(value, dict):
            return []
        for field in token[1:-1].split(","):
            out += _pick(value, field.strip())
        return out
    if token == "*":
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        for child in children:
            out += _walk(child, tokens, at + 1)
        return out
    if isinstance(value, dict) and token in value:
        return _walk(value[token], tokens, at + 1)
    return []


def get_text_at_path(obj: Any, path: str | list[str]) -> list[str]:
    """The texts ``path`` (a string, or :func:`tokenize_path`'s tokens) picks out of ``obj``."""
    if isinstance(obj, Mapping) and not isinstance(obj, dict):
        obj = dict(obj)
    if not path or path == "$":
        return [_as_json(obj)]
    return _walk(obj, tokenize_path(path) if isinstance(path, str) else list(path), 0)
