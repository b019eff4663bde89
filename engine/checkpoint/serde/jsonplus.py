"""LangGraph's default serializer, ``JsonPlusSerializer``, as the engine's :class:`~engine.serde.Serializer`.

The constructor takes LangGraph's options. What they allow is the engine's
allowlist, never more: ``allowed_msgpack_modules`` names classes (as
``(module, name)`` pairs, or the classes themselves) that are imported here,
from the program's own code, and registered; stored bytes never name a class
to import. ``True`` (LangGraph's permissive default) therefore allows what
the engine allows (its built-in types, LangChain's messages and the classes
the state schema names) and refuses anything else loudly at write time;
``None`` the same (LangGraph's strict mode). Pickle is never used:
``pickle_fallback=True`` is refused.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import Any, Callable

from engine._internal._unsupported import WHERE_IT_DIFFERS
from engine.serde import Serializer

__all__ = ["JsonPlusSerializer"]


class JsonPlusSerializer(Serializer):
    """The engine's serializer under LangGraph's name and options."""

    __slots__ = ()

    def __init__(
        self,
        *,
        pickle_fallback: bool = False,
        allowed_json_modules: Iterable[tuple[str, ...]] | bool | None = None,
        allowed_msgpack_modules: Iterable[tuple[str, ...] | type] | bool | None = True,
        __unpack_ext_hook__: Callable[[int, bytes], Any] | None = None,
        **engine_options: Any,
    ) -> None:
        if pickle_fallback:
            raise NotImplementedError(f"pickle_fallback: the engine never stores or loads pickle; see {WHERE_IT_DIFFERS}")
        if allowed_json_modules not in (None, False):
            raise NotImplementedError(
                f"allowed_json_modules: the engine loads no LangChain-serialized JSON constructors; see {WHERE_IT_DIFFERS}"
            )
        if __unpack_ext_hook__ is not None:
            raise NotImplementedError(f"__unpack_ext_hook__: the engine's ext codes are fixed; see {WHERE_IT_DIFFERS}")
        super().__init__(**engine_options)
        if allowed_msgpack_modules not in (None, True, False):
            self.register(*(_class(entry) for entry in allowed_msgpack_modules))  # type: ignore[union-attr]


def _class(entry: tuple[str, ...] | type) -> type:
    """A class named in code by ``(module, name)`` (or given itself), imported now, never from stored bytes."""
    if isinstance(entry, type):
        return entry
    if not isinstance(entry, tuple) or len(entry) != 2 or not all(isinstance(p, str) for p in entry):
        raise TypeError(f"allowed_msgpack_modules takes (module, class name) pairs or classes, not {entry!r}")
    module, name = entry
    target: Any = importlib.import_module(module)
    for part in name.split("."):
        target = getattr(target, part)
    if not isinstance(target, type):
        raise TypeError(f"allowed_msgpack_modules: {module}.{name} is not a class")
    return target
