"""JSON values: how Python values cross the wire.

Every value the server sees or sends is one JSON text in a ``*_json`` string
field of the proto (an empty string means "no value"). We encode compactly
and keep non-ASCII text as is (``ensure_ascii=False``), and we refuse NaN and
infinities, which are not JSON and which other languages' parsers reject.
Python's ``json`` reads integers as ``int``, so a 20-digit id comes back
exactly as it went.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["encode", "decode"]


def encode(value: Any, what: str = "value") -> str:
    """``value`` as one compact JSON text; ``what`` names it in an error (``input``, ``answer``, …).

    Raises:
        TypeError: ``value`` holds something JSON cannot represent (the
            message names where: ``input['messages'][0]['content']``).
        ValueError: ``value`` holds NaN or an infinity.
    """
    try:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except TypeError:
        where, bad = _first_unsendable(value, what) or (what, value)
        raise TypeError(
            f"{where} is of type {type(bad).__name__}, which JSON cannot carry: values cross the wire as JSON (dict with "
            "str keys, list, str, int, float, bool, None); convert it first (a datetime: .isoformat(), a set: list(...))"
        ) from None
    except ValueError as e:
        raise ValueError(f"{what}: {e} (NaN and infinities are not JSON; send None or a string)") from None


def _first_unsendable(value: Any, where: str) -> tuple[str, Any] | None:
    """The path to the first part of ``value`` that ``json.dumps`` refuses, and that part; None: no such part."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            if key is not None and not isinstance(key, (str, int, float, bool)):
                return f"{where}: the key {key!r}", key
            found = _first_unsendable(item, f"{where}[{key!r}]")
            if found is not None:
                return found
        return None
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            found = _first_unsendable(item, f"{where}[{i}]")
            if found is not None:
                return found
        return None
    return where, value


def decode(text: str) -> Any:
    """The value of a JSON text; an empty one (no value) reads as ``None``.

    Raises:
        ValueError: the text is not JSON.
    """
    if not text:
        return None
    return json.loads(text)
