"""EphemeralValue: a value that lives for one step (node triggers, the input)."""

from __future__ import annotations

from typing import Any, Generic, Sequence

from engine.channels.base import MISSING, BaseChannel, EmptyChannelError, Value
from engine.errors import InvalidUpdateError

__all__ = ["EphemeralValue"]


class EphemeralValue(Generic[Value], BaseChannel[Value, Value, Value]):
    """Holds what was written in the last step; cleared by a step with no write.

    ``guard=True`` rejects several writes in one step (like LastValue);
    trigger channels use ``guard=False``, since several nodes may route to the
    same node in one step.
    """

    __slots__ = ("value", "guard")

    def __init__(self, typ: Any = Any, guard: bool = True, key: str = "") -> None:
        super().__init__(typ, key)
        self.guard = guard
        self.value: Any = MISSING

    def from_checkpoint(self, checkpoint: Any) -> "EphemeralValue":
        ch: EphemeralValue[Any] = EphemeralValue(self.typ, self.guard, self.key)
        ch.value = checkpoint
        return ch

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            if self.value is MISSING:
                return False
            self.value = MISSING
            return True
        if len(values) != 1 and self.guard:
            raise InvalidUpdateError(
                f"At key '{self.key}': {type(self).__name__}(guard=True) can receive only one value per step. "
                f"Use guard=False if you want to store any one of multiple values."
            )
        self.value = values[-1]
        return True

    def get(self) -> Any:
        if self.value is MISSING:
            raise EmptyChannelError(self.key)
        return self.value

    def checkpoint(self) -> Any:
        return self.value
