"""Topic: collects every value written in a step (Sends travel through one)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, Union

from engine.channels.base import MISSING, BaseChannel, EmptyChannelError, Value

__all__ = ["Topic"]


class Topic(Generic[Value], BaseChannel[Sequence[Value], Union[Value, list[Value]], list[Value]]):
    """Values written in a step, in write order.

    With ``accumulate=False`` (the default) the list is cleared at the next
    step's update, so it holds only the last step's writes.
    """

    __slots__ = ("values", "accumulate")

    def __init__(self, typ: Any = Any, accumulate: bool = False, key: str = "") -> None:
        super().__init__(typ, key)
        self.accumulate = accumulate
        self.values: list[Any] = []

    @property
    def ValueType(self) -> Any:  # noqa: N802 - LangGraph's name
        return Sequence[self.typ]  # type: ignore[name-defined]

    @property
    def UpdateType(self) -> Any:  # noqa: N802 - LangGraph's name
        return Union[self.typ, list[self.typ]]  # type: ignore[name-defined]

    def from_checkpoint(self, checkpoint: Any) -> "Topic":
        ch: Topic[Any] = Topic(self.typ, self.accumulate, self.key)
        if checkpoint is not MISSING:
            ch.values = list(checkpoint)
        return ch

    def update(self, values: Sequence[Any]) -> bool:
        changed = False
        if not self.accumulate and self.values:
            self.values = []
            changed = True
        for v in values:
            if isinstance(v, list):
                self.values.extend(v)
            else:
                self.values.append(v)
            changed = True
        return changed

    def get(self) -> list:
        if not self.values:
            raise EmptyChannelError(self.key)
        return list(self.values)

    def checkpoint(self) -> Any:
        return list(self.values) if self.values else MISSING
