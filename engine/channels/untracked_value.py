"""UntrackedValue: a state key that lives only while a run runs, never stored (LangGraph's ``langgraph.channels.untracked_value``).

For what cannot or should not be saved (a session, a lock, a client): nodes
read and write it as any key during the run, a version never holds it, so
``get_state`` and a later call do not see it.
"""

from __future__ import annotations

from typing import Any, Sequence

from engine.channels.base import MISSING, BaseChannel, Value
from engine.channels.ephemeral import EphemeralValue

__all__ = ["UntrackedValue"]


class UntrackedValue(EphemeralValue[Value]):
    """The last value written, never checkpointed; unlike an EphemeralValue, a step with no write keeps it.

    ``guard=True`` (the default) takes one write per step, as a plain key does.
    """

    __slots__ = ()

    #: the run's versions leave it out (engine.pregel._algo keeps its live value apart)
    tracked = False

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UntrackedValue) and other.guard == self.guard

    __hash__ = BaseChannel.__hash__

    def copy(self) -> "UntrackedValue":
        ch: UntrackedValue[Any] = UntrackedValue(self.typ, self.guard, self.key)
        ch.value = self.value
        return ch

    def from_checkpoint(self, checkpoint: Any) -> "UntrackedValue":
        # Nothing was stored: a channel restored from a version starts empty.
        return UntrackedValue(self.typ, self.guard, self.key)

    def update(self, values: Sequence[Any]) -> bool:
        return bool(values) and super().update(values)

    def is_available(self) -> bool:
        return self.value is not MISSING

    def checkpoint(self) -> Any:
        return MISSING
