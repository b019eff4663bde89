"""Finding *where* in a value the serializer gave up (the slow path).

Packing never walks the value in Python first: msgpack packs natively and
calls back only for non-native types. When that fails, the error msgpack gives
says *what* failed but not *where*. This module walks the value once more,
with the same rules as the packer, and returns the path of the first part
that cannot be stored, so the message can say
``at ['messages'][3].content: cannot store a value of type Foo``.

It only runs after a failure, so its cost does not matter.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any
from uuid import UUID

from engine.serde._ext import tz_state
from engine.serde._registry import Entry
from engine.serde._wire import json_problem, key_problem

__all__ = ["MAX_DEPTH", "MAX_EXT_DEPTH", "UNSTORABLE_HINT", "Problem", "find_problem"]

# Containers stored as ext values (tuples, sets, registered classes) nest
# through Python calls on both write and read; bounding their nesting at write
# keeps every stored value readable well inside Python's recursion limit.
MAX_EXT_DEPTH = 100
# msgpack's own packer refuses nesting past 511 levels.
MAX_DEPTH = 500

UNSTORABLE_HINT = "(register it with the graph's serializer, or store plain data)"

_NATIVE = frozenset({type(None), bool, int, float, str, bytes, bytearray, memoryview})
_LEAVES = frozenset({date, timedelta, UUID, Decimal})
_EXT_CONTAINERS = frozenset({tuple, set, frozenset})
_KEY_REPR_MAX = 40


@dataclass(frozen=True, slots=True)
class Problem:
    """The first unstorable part of a value: where it is, and why."""

    path: str
    reason: str


def find_problem(value: Any, registry: Mapping[type, Entry], *, json_safe: bool = False) -> Problem | None:
    """The path and reason of the first part of ``value`` that cannot be stored.

    ``None`` when every part is allowed (the failure then came from elsewhere,
    e.g. a codec). ``json_safe``: what JSON cannot carry cannot be stored
    either (see :mod:`engine.serde._wire`).
    """
    return _walk(value, "", 0, 0, _Walk(registry, json_safe))


@dataclass(slots=True)
class _Walk:
    """What one walk carries: the registry, the rules, the containers on the current path."""

    registry: Mapping[type, Entry]
    json_safe: bool
    active: set[int] = field(default_factory=set)


def _walk(obj: Any, path: str, depth: int, ext_depth: int, w: _Walk) -> Problem | None:
    t = type(obj)
    if t in _NATIVE:
        reason = json_problem(obj) if w.json_safe else None
        return None if reason is None else Problem(path, reason)
    plain = t is list or t is dict
    if depth >= MAX_DEPTH or (not plain and ext_depth >= MAX_EXT_DEPTH):
        return Problem(
            path,
            f"nested too deeply (more than {MAX_EXT_DEPTH} levels of tuples, sets, dates or "
            f"registered classes, or {MAX_DEPTH} levels in all); store flatter data",
        )
    if t in _LEAVES:
        return None
    if t is datetime or t is time:
        try:
            tz_state(obj.tzinfo, obj.utcoffset())
        except Exception as exc:  # noqa: BLE001 - any failure is the reason to report
            return Problem(path, f"cannot store this {t.__name__}: {exc}")
        return None
    if not plain and t not in _EXT_CONTAINERS and t not in w.registry:
        return Problem(path, f"cannot store a value of type {t.__name__} {UNSTORABLE_HINT}")
    if id(obj) in w.active:
        return Problem(path, "the value contains itself (a reference cycle); store plain data")
    w.active.add(id(obj))
    try:
        return _walk_container(obj, t, path, depth, ext_depth, w)
    finally:
        w.active.discard(id(obj))


def _walk_container(obj: Any, t: type, path: str, depth: int, ext_depth: int, w: _Walk) -> Problem | None:
    d = depth + 1
    if t is list or t is tuple:
        e = ext_depth + (t is tuple)
        for i, item in enumerate(obj):
            if found := _walk(item, f"{path}[{i}]", d, e, w):
                return found
        return None
    if t is dict:
        for key, item in obj.items():
            if w.json_safe and (reason := key_problem(key)) is not None:
                return Problem(f"{path}<key>", reason)
            if found := _walk(key, f"{path}<key>", d, ext_depth, w):
                return found
            if found := _walk(item, f"{path}[{_key_repr(key)}]", d, ext_depth, w):
                return found
        return None
    if t is set or t is frozenset:
        for item in obj:
            if found := _walk(item, f"{path}<item>", d, ext_depth + 1, w):
                return found
        return None
    entry = w.registry[t]
    if entry.kind == "enum":
        return None
    try:
        data = entry.dump(obj)
    except Exception as exc:  # noqa: BLE001 - a model that cannot dump itself is the reason
        return Problem(path, f"cannot take apart {t.__qualname__}: {exc}")
    if type(data) is dict:
        for key, item in data.items():
            if found := _walk(item, f"{path}.{key}", d, ext_depth + 1, w):
                return found
        return None
    return _walk(data, path, d, ext_depth + 1, w)


def _key_repr(key: Any) -> str:
    text = repr(key)
    return text if len(text) <= _KEY_REPR_MAX else text[: _KEY_REPR_MAX - 3] + "..."
