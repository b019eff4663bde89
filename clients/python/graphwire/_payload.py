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


def encode(value: Any) -> str:
    """``value`` as one compact JSON text.

    Raises:
        TypeError: ``value`` holds something JSON cannot represent.
        ValueError: ``value`` holds NaN or an infinity.
    """
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def decode(text: str) -> Any:
    """The value of a JSON text; an empty one (no value) reads as ``None``.

    Raises:
        ValueError: the text is not JSON.
    """
    if not text:
        return None
    return json.loads(text)
