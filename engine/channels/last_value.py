"""LastValue: a plain state key. One write per step; the last value stays."""

from __future__ import annotations

from typing import Any, Sequence

from engine.channels.base import MISSING, BaseChannel, EmptyChannelError
from engine.errors import InvalidUpdateError

__all__ = ["LastValue", "LastValueAfterFinish"]


class LastValue(BaseChannel[Any]):
    __slots__ = ("value",)

    def __init__(self, typ: Any = Any, key: str = "") -> None:
        super().__init__(typ, key)
        self.value: Any = MISSING

    def from_checkpoint(self, checkpoint: Any) -> "LastValue":
        ch = LastValue(self.typ, self.key)
        ch.value = checkpoint
        return ch

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            return False
        if len(values) != 1:
            raise InvalidUpdateError(
                f"state key {self.key!r} got {len(values)} writes in one step; it holds one value. "
                f"Give the key a reducer (Annotated[type, reducer]) to combine writes."
            )
        self.value = values[-1]
        return True

    def get(self) -> Any:
        if self.value is MISSING:
            raise EmptyChannelError(self.key)
        return self.value

    def checkpoint(self) -> Any:
        return self.value


from engine.channels.after_finish import LastValueAfterFinish  # noqa: E402  (LangGraph's path; after_finish imports nothing of this module)
