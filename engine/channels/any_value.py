"""AnyValue: the last value written, several writes in a step taken as equal (LangGraph's ``langgraph.channels.any_value``)."""

from __future__ import annotations

from typing import Any

from engine.channels.base import BaseChannel, Value
from engine.channels.ephemeral import EphemeralValue

__all__ = ["AnyValue"]


class AnyValue(EphemeralValue[Value]):
    """Holds the last write; a step with no write clears it.

    Unlike :class:`~engine.channels.LastValue`, several writes in one step
    are no error: the writers are assumed to agree, and the last one is kept
    (an :class:`EphemeralValue` with ``guard=False``).
    """

    __slots__ = ()

    def __init__(self, typ: Any = Any, key: str = "") -> None:
        super().__init__(typ, guard=False, key=key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AnyValue)

    __hash__ = BaseChannel.__hash__

    def from_checkpoint(self, checkpoint: Any) -> "AnyValue":
        ch: AnyValue[Any] = AnyValue(self.typ, self.key)
        ch.value = checkpoint
        return ch
