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
import re
from json import encoder as _encoder
from typing import Any, Callable

__all__ = ["compact_json", "loop_json"]


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


# A run loop's metadata: {"source": one of these, "step": an int, "parents": {}}, after the run's id
# when a host names it (engine.checkpoint.base.RUN_KEY, a UUID's text). Its text needs no encoder.
_SOURCES = frozenset({"input", "loop", "update", "fork"})
_LOOP_KEYS = ("source", "step", "parents")
_RUN_KEYS = ("__graphwire_run_id__", *_LOOP_KEYS)
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_STEPS = 1 << 53


def loop_json(metadata: Any) -> str | None:
    """:func:`compact_json` of a run loop's metadata (the shape above; the same text), made without
    the encoder; None for any other metadata. Every version a loop saves has it: what the C
    encoder, its output chunks and the checks of what it wrote cost was most of dumping it."""
    if type(metadata) is not dict:
        return None
    step, parents, source = metadata.get("step"), metadata.get("parents"), metadata.get("source")
    if type(step) is not int or type(parents) is not dict or parents or type(source) is not str or source not in _SOURCES:
        return None
    if not -_STEPS < step < _STEPS:
        return None
    keys = tuple(metadata)
    if keys == _LOOP_KEYS:
        return f'{{"source":"{source}","step":{step},"parents":{{}}}}'
    if keys == _RUN_KEYS:
        run = metadata["__graphwire_run_id__"]
        if type(run) is str and _UUID.fullmatch(run):
            return f'{{"__graphwire_run_id__":"{run}","source":"{source}","step":{step},"parents":{{}}}}'
    return None
