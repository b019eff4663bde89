"""Settings given as text (``GRAPHWIRE_<KEY>`` variables): the parsers of the kinds that are not a
number or plain text (:func:`server.config.load_config` reads the variables). Each raises ValueError
for text it cannot read; the config names the variable and what it must be."""

from __future__ import annotations

import tomllib
from typing import Any

__all__ = ["bool_text", "graphs_text", "inline_table"]

_TRUE, _FALSE = ("true", "1", "on", "yes"), ("false", "0", "off", "no")


def graphs_text(text: str) -> dict[str, str]:
    """``name=spec,other=spec`` (GRAPHWIRE_GRAPHS) as a table of graph specs."""
    graphs = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, sep, spec = item.partition("=")
        if not sep or not name.strip() or not spec.strip():
            raise ValueError(item)
        graphs[name.strip()] = spec.strip()
    return graphs


def bool_text(text: str) -> bool:
    """true or false, 1 or 0, on or off, yes or no (any case)."""
    if text.lower() in _TRUE + _FALSE:
        return text.lower() in _TRUE
    raise ValueError(text)


def inline_table(text: str) -> dict[str, Any]:
    """A TOML inline table, ``{key = value, ...}`` (GRAPHWIRE_STORE_TTL...)."""
    try:
        value = tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        raise ValueError(text) from None
    if not isinstance(value, dict):
        raise ValueError(text)
    return value
