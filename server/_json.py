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
import sys
import uuid
from collections.abc import Callable
from typing import Any

from engine.host import is_unicode

__all__ = ["encode", "decode_json", "PayloadError", "MAX_DEPTH"]

MAX_DEPTH = 64


class PayloadError(ValueError):
    """A JSON value the server cannot accept; the message names the field."""


def _default(o: Any) -> Any:
    kind = type(o)
    convert = _CONVERTERS.get(kind)
    if convert is None and not isinstance(o, type):  # (a class: only the instance branches below)
        convert = _converter_of(kind)
        if convert is not None:
            if len(_CONVERTERS) < _CONVERTERS_MAX:
                _CONVERTERS[kind] = convert
        elif o.__class__ is not kind:  # a proxy: isinstance also goes by the class it claims
            convert = _converter_of(o.__class__)
    if convert is not None:
        return convert(o)
    dump = getattr(o, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    if hasattr(o, "__dict__"):
        return {k: v for k, v in vars(o).items() if not k.startswith("_")}
    return repr(o)


def _converter_of(kind: type) -> Callable[[Any], Any] | None:
    """How :func:`_default` converts every instance of ``kind``: sets and tuples as lists, times as ISO
    text, durations as seconds, UUIDs and decimals as text, enums as their values, bytes as base64,
    dataclasses and pydantic models as their fields; None for any other class (its instances are
    then asked for a ``model_dump`` or their ``__dict__``, else written as their ``repr``).

    Found once per class (``_CONVERTERS``), not once per value: a chat's values hold tens of
    messages, and for a pydantic model the dataclass check alone cost 3 µs (its metaclass raises an
    AttributeError for the missing dataclass fields), more than half of what its dump costs."""
    if issubclass(kind, (set, frozenset, tuple)):
        return list
    if issubclass(kind, (dt.datetime, dt.date, dt.time)):
        return _iso
    if issubclass(kind, dt.timedelta):
        return _seconds
    if issubclass(kind, (uuid.UUID, decimal.Decimal)):
        return str
    if issubclass(kind, enum.Enum):
        return _enum_value
    if issubclass(kind, (bytes, bytearray)):
        return _base64
    if dataclasses.is_dataclass(kind):
        return _fields
    if callable(getattr(kind, "model_dump", None)):
        return _model_dump
    return None


def _iso(o: Any) -> Any:
    return o.isoformat()


def _seconds(o: Any) -> Any:
    return o.total_seconds()


def _enum_value(o: Any) -> Any:
    return o.value


def _base64(o: Any) -> str:
    return base64.b64encode(bytes(o)).decode()


def _fields(o: Any) -> dict[str, Any]:
    return {f.name: getattr(o, f.name) for f in dataclasses.fields(o)}


def _model_dump(o: Any) -> Any:
    return o.model_dump(mode="json")


#: type -> its converter (_converter_of), found once per type; bounded, as a graph's state holds few types
_CONVERTERS: dict[type, Callable[[Any], Any]] = {}
_CONVERTERS_MAX = 1024


# One encoder for every call (it keeps no state between calls): json.dumps with these options made
# a JSONEncoder per call, a Python-level constructor for every event's every JSON field.
_ENCODER = json.JSONEncoder(default=_default, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def encode(value: Any) -> str:
    """``value`` as one compact JSON text, for a ``*_json`` field.

    A state's values (a map whose members may be lists of pydantic models: a chat's messages)
    have each model written by pydantic's own ``model_dump_json``: the text ``model_dump(mode="json")``
    gives written by this module's encoder, at about a third of the CPU (a run's values at its end
    are the whole conversation; bench/long_thread.py). Floats may be written in another form of the
    same number (``1e20`` for ``1e+20``), and a non-finite float inside a model as ``null``, as
    LangGraph's server writes it; where pydantic cannot write a model, this module's way is taken.
    """
    if type(value) is dict and any(map(_holds_models, value.values())):
        return _members(value)
    return _ENCODER.encode(value)


def _holds_models(value: Any) -> bool:
    kind = type(value)
    if kind is list:
        return bool(value) and _writes_itself(type(value[-1]))
    return _writes_itself(kind)


def _writes_itself(kind: type) -> bool:
    """Whether ``model_dump_json`` writes an instance of ``kind`` as this module would write its
    ``model_dump(mode="json")``: a pydantic model whose class overrides neither (found once per class)."""
    found = _SELF_WRITING.get(kind)
    if found is None:
        base = getattr(sys.modules.get("pydantic"), "BaseModel", None)
        found = (
            base is not None and issubclass(kind, base)
            and getattr(kind, "model_dump", None) is base.model_dump
            and getattr(kind, "model_dump_json", None) is base.model_dump_json
        )  # fmt: skip
        if len(_SELF_WRITING) < _CONVERTERS_MAX:
            _SELF_WRITING[kind] = found
    return found


def _members(value: dict[Any, Any]) -> str:
    """:func:`encode` of a map some of whose members are (lists of) models that write themselves."""
    if not all(type(k) is str for k in value):  # keys JSON writes as text: the encoder's own way
        return _ENCODER.encode(value)
    parts: list[str] = []  # joined once: a chat's text is copied once more, not once per level
    for key, member in value.items():
        parts.append("," if parts else "{")
        parts.append(_ENCODER.encode(key))
        kind = type(member)
        try:  # (what pydantic cannot write is written the encoder's way, which may refuse it)
            if kind is list and member and all(map(_writes_itself, set(map(type, member)))):
                # One call for the list: each model written by its own serializer, as model_dump_json writes
                # it, the list's joining in Rust too (a chat's 40 messages: ~half the time of one call each).
                parts += (":", _pydantic_core().to_json(member).decode())
                continue
            if _writes_itself(kind):
                parts += (":", member.model_dump_json())
                continue
        except Exception:  # noqa: BLE001
            pass
        parts += (":", _ENCODER.encode(member))
    parts.append("}")
    return "".join(parts)


#: type -> whether it writes itself (_writes_itself); bounded as _CONVERTERS
_SELF_WRITING: dict[type, bool] = {}


def _pydantic_core() -> Any:
    """pydantic's core (there whenever a model that writes itself is: see :func:`_writes_itself`)."""
    return sys.modules["pydantic_core"]


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
