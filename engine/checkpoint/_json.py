"""Compact JSON text of a version's metadata, as ``json.dumps`` writes it, without its Python layers.

``json.dumps(obj, ensure_ascii=False, allow_nan=False, separators=(",", ":"),
default=...)`` builds a ``JSONEncoder``, defines a float formatter and makes
the C encoder, every call: about 2 µs of a small dict's 3, paid by every
version a saver stores. :func:`compact_json` makes the same C encoder
directly, so the text, and every error, is the one ``json.dumps`` gives.
Where the C encoder is missing, or was made with other arguments (a Python
that changed them), it is ``json.dumps`` itself.

The encoders made are kept for the next call, in a pool of idle ones (a
thread takes one and gives it back: ``list.pop`` and ``append`` are atomic):
an encoder's circular-reference map is empty again after an encoding that
succeeded, so each call starts with an empty map, as ``json.dumps``'s does.
One that failed (its map may still hold entries) is dropped. An encoder is
kept for one ``default``.
"""

from __future__ import annotations

import json
from json import encoder as _encoder
from typing import Any, Callable

__all__ = ["compact_json"]


def _slow(obj: Any, default: Callable[[Any], Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, allow_nan=False, separators=(",", ":"), default=default)


def _fast(obj: Any, default: Callable[[Any], Any]) -> str:
    pool = _idle.get(default)
    if pool is None:
        pool = _idle.setdefault(default, []) if len(_idle) < _DEFAULTS else []
    try:
        encode = pool.pop()
    except IndexError:
        encode = _make({}, default, _text, None, ":", ",", False, False, False)
    text = "".join(encode(obj, 0))  # a failure leaves the encoder out of the pool
    pool.append(encode)
    return text


#: default -> idle encoders made with it
_idle: dict[Any, list[Any]] = {}
# How many defaults get a pool (the savers pass one; a caller passing a new one each call gets none).
_DEFAULTS = 8


_make: Any = getattr(_encoder, "c_make_encoder", None)
_text: Any = getattr(_encoder, "c_encode_basestring", None)


def _works() -> bool:
    """Whether the C encoder, called as :func:`_fast` does, writes what ``json.dumps`` does."""
    if _make is None or _text is None:
        return False
    sample = {"a": [1, 2.5, None, True, "é\n\"x\""], "b": {"c": -0.0}, "d": ""}
    try:
        return _fast(sample, repr) == _slow(sample, repr)
    except Exception:  # another signature: json.dumps it is
        return False


#: ``json.dumps(obj, ensure_ascii=False, allow_nan=False, separators=(",", ":"), default=default)``
compact_json: Callable[[Any, Callable[[Any], Any]], str] = _fast if _works() else _slow
