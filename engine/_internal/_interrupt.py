"""The ``Interrupt`` value, below every module that uses it (public as ``engine.types.Interrupt``).

``engine.errors`` (``NodeInterrupt`` builds one), the task context
(``interrupt()`` raises them) and ``engine.types`` all import it from here, so
none of them imports another for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Interrupt"]


@dataclass(frozen=True, slots=True)
class Interrupt:
    """A pending question raised by ``interrupt(value)`` in a node.

    ``response_schema``: the JSON Schema of the answer the node expects
    (``interrupt(value, response_schema=...)``), or None.
    """

    value: Any
    id: str = ""
    response_schema: Any = None

    @property
    def interrupt_id(self) -> str:
        """LangGraph's older name of ``id`` (deprecated there)."""
        import warnings

        from engine.warnings import LangGraphDeprecatedSinceV10

        warnings.warn("`interrupt_id` is deprecated. Use `id` instead.", LangGraphDeprecatedSinceV10, stacklevel=2)
        return self.id


# Public as engine.types.Interrupt; stored checkpoints name it so.
Interrupt.__module__ = "engine.types"
