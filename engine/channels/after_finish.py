"""Trigger channels of a deferred node (``add_node(defer=True)``): they fire only once the run is about to end.

A write makes such a channel hold a value, but it is not *available* (it
triggers nothing) until :meth:`finish` is called, which the loop does when a
step's writes trigger no node at all (see
:func:`engine.pregel._algo.apply_writes`): then the deferred node runs, once,
whatever number of branches led to it. Running it consumes the value. As
LangGraph 1.2's ``LastValueAfterFinish`` and ``NamedBarrierValueAfterFinish``;
the stored value is ``[value, finished]`` (``[names seen, finished]``).
"""

from __future__ import annotations

from typing import Any, Generic, Sequence

from engine.channels.base import MISSING, BaseChannel, EmptyChannelError, Value
from engine.channels.named_barrier import NamedBarrierValue

__all__ = ["LastValueAfterFinish", "NamedBarrierValueAfterFinish"]


class LastValueAfterFinish(Generic[Value], BaseChannel[Value, Value, tuple[Value, bool]]):
    """A deferred node's ``branch:to:`` channel: the last write, available once finished."""

    __slots__ = ("value", "finished")

    def __init__(self, typ: Any = Any, key: str = "") -> None:
        super().__init__(typ, key)
        self.value: Any = MISSING
        self.finished = False

    def from_checkpoint(self, checkpoint: Any) -> "LastValueAfterFinish":
        ch: LastValueAfterFinish[Any] = LastValueAfterFinish(self.typ, self.key)
        if checkpoint is not MISSING:
            ch.value, ch.finished = checkpoint
        return ch

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            return False
        self.finished = False
        self.value = values[-1]
        return True

    def consume(self) -> bool:
        if not self.finished:
            return False
        self.finished = False
        self.value = MISSING
        return True

    def finish(self) -> bool:
        if self.finished or self.value is MISSING:
            return False
        self.finished = True
        return True

    def get(self) -> Any:
        if self.value is MISSING or not self.finished:
            raise EmptyChannelError(self.key)
        return self.value

    def is_available(self) -> bool:
        return self.value is not MISSING and self.finished

    def checkpoint(self) -> Any:
        return MISSING if self.value is MISSING else [self.value, self.finished]


class NamedBarrierValueAfterFinish(NamedBarrierValue[Value]):
    """A join edge into a deferred node: every source wrote, and the run is about to end."""

    __slots__ = ("finished",)

    def __init__(self, typ: Any, names: frozenset[Any] | set[Any], key: str = "") -> None:
        super().__init__(typ, names, key)
        self.finished = False

    def from_checkpoint(self, checkpoint: Any) -> "NamedBarrierValueAfterFinish":
        ch: NamedBarrierValueAfterFinish[Any] = NamedBarrierValueAfterFinish(self.typ, self.names, self.key)
        if checkpoint is not MISSING:
            seen, ch.finished = checkpoint
            ch.seen = set(seen)
        return ch

    def consume(self) -> bool:
        if not (self.finished and self.seen == self.names):
            return False
        self.finished = False
        self.seen = set()
        return True

    def finish(self) -> bool:
        if self.finished or self.seen != self.names:
            return False
        self.finished = True
        return True

    def get(self) -> None:
        if not self.is_available():
            raise EmptyChannelError(self.key)
        return None

    def is_available(self) -> bool:
        return self.finished and self.seen == self.names

    def checkpoint(self) -> Any:
        return [sorted(self.seen), self.finished] if self.seen else MISSING
