"""NamedBarrierValue: a join edge. Available once every named source wrote."""

from __future__ import annotations

from typing import Any, Generic, Sequence

from engine.channels.base import MISSING, BaseChannel, EmptyChannelError, Value
from engine.errors import InvalidUpdateError

__all__ = ["NamedBarrierValue"]


class NamedBarrierValue(Generic[Value], BaseChannel[None, Value, set[Value]]):
    __slots__ = ("names", "seen")

    def __init__(self, typ: Any, names: frozenset[Any] | set[Any], key: str = "") -> None:
        # As LangGraph: NamedBarrierValue(typ, names), typ the names' type.
        super().__init__(typ, key)
        self.names = frozenset(names)
        self.seen: set[str] = set()

    def from_checkpoint(self, checkpoint: Any) -> "NamedBarrierValue":
        ch: NamedBarrierValue[Any] = NamedBarrierValue(self.typ, self.names, self.key)
        if checkpoint is not MISSING:
            ch.seen = set(checkpoint)
        return ch

    def update(self, values: Sequence[Any]) -> bool:
        changed = False
        for name in values:
            if name not in self.names:
                raise InvalidUpdateError(f"join {self.key!r} does not wait for {name!r}")
            if name not in self.seen:
                self.seen.add(name)
                changed = True
        return changed

    def get(self) -> None:
        if self.seen != self.names:
            raise EmptyChannelError(self.key)
        return None

    def is_available(self) -> bool:
        return self.seen == self.names

    def consume(self) -> bool:
        if self.seen == self.names:
            self.seen = set()
            return True
        return False

    def checkpoint(self) -> Any:
        return sorted(self.seen) if self.seen else MISSING
