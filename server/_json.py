"""Values across the wire: JSON texts in the ``*_json`` string fields.

Encoding is total over what a graph may hold in state: the serializer's
allowlist (datetimes, UUIDs, sets, dataclasses, …) maps onto plain JSON, so a
caller in any language can read every value. Decoding is strict: the text
must be valid JSON without NaN/Infinity (nor a number too large for a
double, which Python would read as infinity), nest no deeper than
:data:`MAX_DEPTH`, and hold only Unicode text (no lone surrogate written as a
``\ud800`` escape). That it is UTF-8, protobuf checks: a ``string`` field
that is not fails to parse, and ``server._errors`` names the field. What is
refused here could be stored but never sent back: a thread holding it would
fail every later read.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import decimal
import enum
import json
import math
import uuid
from typing import Any

from engine.host import is_unicode

__all__ = ["encode", "decode_json", "PayloadError", "MAX_DEPTH"]

MAX_DEPTH = 64


class PayloadError(ValueError):
    """A JSON value the server cannot accept; the message names the field."""


def _default(o: Any) -> Any:
    if isinstance(o, (set, frozenset, tuple)):
        return list(o)
    if isinstance(o, (dt.datetime, dt.date, dt.time)):
        return o.isoformat()
    if isinstance(o, dt.timedelta):
        return o.total_seconds()
    if isinstance(o, (uuid.UUID, decimal.Decimal)):
        return str(o)
    if isinstance(o, enum.Enum):
        return o.value
    if isinstance(o, (bytes, bytearray)):
        return base64.b64encode(bytes(o)).decode()
    if dataclasses.is_dataclass(o) and not isinstance(o, type):
        return {f.name: getattr(o, f.name) for f in dataclasses.fields(o)}
    dump = getattr(o, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    if hasattr(o, "__dict__"):
        return {k: v for k, v in vars(o).items() if not k.startswith("_")}
    return repr(o)


# One encoder for every call (it keeps no state between calls): json.dumps with these options made
# a JSONEncoder per call, a Python-level constructor for every event's every JSON field.
_ENCODER = json.JSONEncoder(default=_default, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def encode(value: Any) -> str:
    """``value`` as one compact JSON text, for a ``*_json`` field."""
    return _ENCODER.encode(value)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is out of range")
    return value


def _problem(v: Any, limit: int) -> str | None:
    """What makes ``v`` unacceptable (too deep, or not text), or None (iterative: no recursion limit)."""
    stack = [(v, 1)]
    while stack:
        cur, d = stack.pop()
        if d > limit:
            return f"JSON nests deeper than {limit} levels"
        if isinstance(cur, dict):
            for k, x in cur.items():
                if not is_unicode(k):
                    return "a JSON string holds a lone surrogate (an unpaired \\ud800-\\udfff escape)"
                stack.append((x, d + 1))
        elif isinstance(cur, list):
            stack.extend((x, d + 1) for x in cur)
        elif isinstance(cur, str) and not is_unicode(cur):
            return "a JSON string holds a lone surrogate (an unpaired \\ud800-\\udfff escape)"
    return None


def decode_json(text: str, field: str, *, default: Any = None) -> Any:
    """The value in the JSON text of ``field``; ``default`` when it is empty (no value)."""
    if not text.strip():
        return default
    if text.startswith("\ufeff"):
        raise PayloadError(f"{field}: the JSON text starts with a byte-order mark (U+FEFF); send it without one")
    try:
        value = json.loads(text, parse_constant=_reject_constant, parse_float=_finite)
    except RecursionError:
        raise PayloadError(f"{field}: JSON nests deeper than {MAX_DEPTH} levels") from None
    except ValueError as e:
        raise PayloadError(f"{field}: not valid JSON: {e}") from None
    problem = _problem(value, MAX_DEPTH)
    if problem is not None:
        raise PayloadError(f"{field}: {problem}")
    return value
