"""AnyValue: the last value written, several writes in a step taken as equal (LangGraph's ``langgraph.channels.any_value``)."""

from __future__ import annotations

from typing import Any, Sequence

from engine.channels.base import MISSING, BaseChannel, EmptyChannelError

__all__ = ["AnyValue"]


class AnyValue(BaseChannel[Any]):
    """Holds the last write; a step with no write clears it.

    Unlike :class:`~engine.channels.LastValue`, several writes in one step
    are no error: the writers are assumed to agree, and the last one is kept.
    """

    __slots__ = ("value",)

    def __init__(self, typ: Any = Any, key: str = "") -> None:
        super().__init__(typ, key)
        self.value: Any = MISSING

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AnyValue)

    __hash__ = BaseChannel.__hash__

    def from_checkpoint(self, checkpoint: Any) -> "AnyValue":
        ch = AnyValue(self.typ, self.key)
        ch.value = checkpoint
        return ch

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            if self.value is MISSING:
                return False
            self.value = MISSING
            return True
        self.value = values[-1]
        return True

    def get(self) -> Any:
        if self.value is MISSING:
            raise EmptyChannelError(self.key)
        return self.value

    def is_available(self) -> bool:
        return self.value is not MISSING

    def checkpoint(self) -> Any:
        return self.value
