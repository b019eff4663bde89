"""LastValue: a plain state key. One write per step; the last value stays."""

from __future__ import annotations

from typing import Any, Generic, Sequence

from engine.channels.base import MISSING, BaseChannel, EmptyChannelError, Value
from engine.errors import ErrorCode, InvalidUpdateError, create_error_message

__all__ = ["LastValue", "LastValueAfterFinish"]


class LastValue(Generic[Value], BaseChannel[Value, Value, Value]):
    __slots__ = ("value",)

    def __init__(self, typ: Any = Any, key: str = "") -> None:
        super().__init__(typ, key)
        self.value: Any = MISSING

    def from_checkpoint(self, checkpoint: Any) -> "LastValue":
        ch: LastValue[Any] = LastValue(self.typ, self.key)
        ch.value = checkpoint
        return ch

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            return False
        if len(values) != 1:
            raise InvalidUpdateError(
                create_error_message(
                    message=f"At key '{self.key}': Can receive only one value per step. Use an Annotated key to handle multiple values.",
                    error_code=ErrorCode.INVALID_CONCURRENT_GRAPH_UPDATE,
                )
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
