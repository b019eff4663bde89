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

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any
from uuid import UUID

from engine.serde._depth import WIRE_DEPTH, stored_depth
from engine.serde._ext import tz_state
from engine.serde._registry import Entry
from engine.serde._wire import json_problem, key_problem

__all__ = ["MAX_EXT_DEPTH", "UNSTORABLE_HINT", "Problem", "find_problem"]

# Containers stored as ext values (tuples, sets, registered classes) nest
# through Python calls on both write and read; bounding their nesting at write
# keeps every stored value readable well inside Python's recursion limit.
MAX_EXT_DEPTH = 100
# A path longer than this is shortened in messages (a value thousands of levels deep).
_PATH_SHOWN = 240

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
    either (see :mod:`engine.serde._wire`), nor what nests past
    :data:`~engine.serde._depth.WIRE_DEPTH`; otherwise the bound is what
    msgpack stores (:func:`~engine.serde._depth.stored_depth`). The walk
    keeps its own stack (a list of iterators, one per open container), so a
    value nested thousands of levels deep is reported, never a RecursionError.
    """
    w = _Walk(registry, json_safe, WIRE_DEPTH if json_safe else stored_depth())
    found = _visit(value, "", 0, 0, w)
    if not isinstance(found, Iterator):
        return found
    stack: list[tuple[Iterator[_Child | Problem], int]] = [(found, id(value))]
    w.active.add(id(value))
    while stack:
        children, oid = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            w.active.discard(oid)
            continue
        if isinstance(child, Problem):
            return child
        obj, path, depth, ext_depth = child
        found = _visit(obj, path, depth, ext_depth, w)
        if isinstance(found, Iterator):
            stack.append((found, id(obj)))
            w.active.add(id(obj))
        elif found is not None:
            return found
    return None


@dataclass(slots=True)
class _Walk:
    """What one walk carries: the registry, the rules, the containers on the current path."""

    registry: Mapping[type, Entry]
    json_safe: bool
    max_depth: int
    active: set[int] = field(default_factory=set)


# (a part of a value, its path, its depth, its depth in ext values)
_Child = tuple[Any, str, int, int]


def _too_deep(path: str, w: _Walk) -> Problem:
    return Problem(
        _shortened(path),
        f"nested too deeply (more than {MAX_EXT_DEPTH} levels of tuples, sets, dates or "
        f"registered classes, or {w.max_depth} levels in all); store flatter data",
    )


def _visit(obj: Any, path: str, depth: int, ext_depth: int, w: _Walk) -> Problem | Iterator[_Child | Problem] | None:
    """``obj``'s own problem, or an iterator over its parts (a container), or None (a leaf that is fine)."""
    t = type(obj)
    if t in _NATIVE:
        reason = json_problem(obj) if w.json_safe else None
        return None if reason is None else Problem(path, reason)
    plain = t is list or t is dict
    if not plain and ext_depth >= MAX_EXT_DEPTH:
        return _too_deep(path, w)
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
    return _parts(obj, t, path, depth + 1, ext_depth, w)


def _parts(obj: Any, t: type, path: str, d: int, ext_depth: int, w: _Walk) -> Iterator[_Child | Problem]:
    """The parts of container ``obj`` (their depth ``d``) in the packer's order, or the problem found first.

    As the packer counts, a part more than the walk's ``max_depth`` levels
    down is too deep, leaf or container; the container holding it is named.
    """
    parts = _all_parts(obj, t, path, d, ext_depth, w)
    if d <= w.max_depth:
        yield from parts
        return
    for part in parts:
        yield part if isinstance(part, Problem) else _too_deep(path, w)
        return


def _all_parts(obj: Any, t: type, path: str, d: int, ext_depth: int, w: _Walk) -> Iterator[_Child | Problem]:
    if t is list or t is tuple:
        e = ext_depth + (t is tuple)
        for i, item in enumerate(obj):
            yield item, f"{path}[{i}]", d, e
        return
    if t is dict:
        for key, item in obj.items():
            if w.json_safe and (reason := key_problem(key)) is not None:
                yield Problem(f"{path}<key>", reason)
                return
            yield key, f"{path}<key>", d, ext_depth
            yield item, f"{path}[{_key_repr(key)}]", d, ext_depth
        return
    if t is set or t is frozenset:
        for item in obj:
            yield item, f"{path}<item>", d, ext_depth + 1
        return
    entry = w.registry[t]
    if entry.kind == "enum":
        return
    try:
        data = entry.dump(obj)
    except Exception as exc:  # noqa: BLE001 - a model that cannot dump itself is the reason
        yield Problem(path, f"cannot take apart {t.__qualname__}: {exc}")
        return
    if type(data) is dict:
        for key, item in data.items():
            yield item, f"{path}.{key}", d, ext_depth + 1
        return
    yield data, path, d, ext_depth + 1


def _shortened(path: str) -> str:
    if len(path) <= _PATH_SHOWN:
        return path
    return f"{path[: _PATH_SHOWN // 2]}…{path[-_PATH_SHOWN // 3 :]}"


def _key_repr(key: Any) -> str:
    text = repr(key)
    return text if len(text) <= _KEY_REPR_MAX else text[: _KEY_REPR_MAX - 3] + "..."
