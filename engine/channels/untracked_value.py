"""UntrackedValue: a state key that lives only while a run runs, never stored (LangGraph's ``langgraph.channels.untracked_value``).

For what cannot or should not be saved (a session, a lock, a client): nodes
read and write it as any key during the run, a version never holds it, so
``get_state`` and a later call do not see it.
"""

from __future__ import annotations

from typing import Any, Sequence

from engine.channels.base import MISSING, BaseChannel, EmptyChannelError
from engine.errors import InvalidUpdateError

__all__ = ["UntrackedValue"]


class UntrackedValue(BaseChannel[Any]):
    """The last value written, never checkpointed.

    ``guard=True`` (the default) takes one write per step, as a plain key does.
    """

    __slots__ = ("value", "guard")

    #: the run's versions leave it out (engine.pregel._algo keeps its live value apart)
    tracked = False

    def __init__(self, typ: Any = Any, guard: bool = True, key: str = "") -> None:
        super().__init__(typ, key)
        self.guard = guard
        self.value: Any = MISSING

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UntrackedValue) and other.guard == self.guard

    __hash__ = BaseChannel.__hash__

    def copy(self) -> "UntrackedValue":
        ch = UntrackedValue(self.typ, self.guard, self.key)
        ch.value = self.value
        return ch

    def from_checkpoint(self, checkpoint: Any) -> "UntrackedValue":
        # Nothing was stored: a channel restored from a version starts empty.
        return UntrackedValue(self.typ, self.guard, self.key)

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            return False
        if len(values) != 1 and self.guard:
            raise InvalidUpdateError(
                f"At key '{self.key}': UntrackedValue(guard=True) can receive only one value per step. "
                f"Use guard=False if you want to store any one of multiple values."
            )
        self.value = values[-1]
        return True

    def get(self) -> Any:
        if self.value is MISSING:
            raise EmptyChannelError(self.key)
        return self.value

    def is_available(self) -> bool:
        return self.value is not MISSING

    def checkpoint(self) -> Any:
        return MISSING
