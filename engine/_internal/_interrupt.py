"""The ``Interrupt`` value, below every module that uses it (public as ``engine.types.Interrupt``).

``engine.errors`` (``NodeInterrupt`` builds one), the task context
(``interrupt()`` raises them) and ``engine.types`` all import it from here, so
none of them imports another for it.
"""

from __future__ import annotations

import types
from dataclasses import dataclass
from typing import Any

__all__ = ["Interrupt"]


#: The id of an Interrupt made without one, as LangGraph's.
DEFAULT_ID = "placeholder-id"
#: LangGraph's constructor arguments from before 0.6 (the attributes are gone; the arguments are taken).
_OLD_ARGUMENTS = frozenset({"ns", "when", "resumable", "interrupt_id"})


@dataclass(frozen=True, slots=True, init=False)
class Interrupt:
    """A pending question raised by ``interrupt(value)`` in a node.

    ``response_schema``: the JSON Schema of the answer the node expects
    (``interrupt(value, response_schema=...)``), or None. As LangGraph's, the
    constructor still takes the arguments older LangGraph had (``ns``,
    ``when``, ``resumable``, ``interrupt_id``); an Interrupt given ``ns`` and
    no id gets the id LangGraph derives from it (with the ``xxhash`` package,
    which LangGraph installs; without it, a hash of the engine's own).
    """

    value: Any
    id: str
    response_schema: Any

    def __class_getitem__(cls, item: Any) -> Any:  # ``Interrupt[Answer]`` in an annotation, as LangGraph's generic class
        return types.GenericAlias(cls, item)

    def __init__(self, value: Any, id: str = DEFAULT_ID, *, response_schema: Any = None, **old: Any) -> None:
        unknown = sorted(set(old) - _OLD_ARGUMENTS)
        if unknown:
            raise TypeError(f"Interrupt.__init__() got an unexpected keyword argument {unknown[0]!r}")
        ns = old.get("ns")
        if id == DEFAULT_ID and isinstance(ns, (list, tuple)):
            id = _ns_id("|".join(ns))
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "id", id)
        object.__setattr__(self, "response_schema", response_schema)

    @property
    def interrupt_id(self) -> str:
        """LangGraph's older name of ``id`` (deprecated there)."""
        import warnings

        from engine.warnings import LangGraphDeprecatedSinceV10

        warnings.warn("`interrupt_id` is deprecated. Use `id` instead.", LangGraphDeprecatedSinceV10, stacklevel=2)
        return self.id


def _ns_id(ns: str) -> str:
    try:
        from xxhash import xxh3_128_hexdigest
    except ImportError:
        import hashlib

        return hashlib.blake2b(ns.encode(), digest_size=16).hexdigest()
    return str(xxh3_128_hexdigest(ns.encode()))


# Public as engine.types.Interrupt; stored checkpoints name it so.
Interrupt.__module__ = "engine.types"
