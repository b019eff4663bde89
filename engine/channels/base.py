"""The channel contract.

A channel holds one piece of a run's state between supersteps. Writes to a
channel during a step are collected and handed to :meth:`BaseChannel.update`
once, at the end of the step, in a deterministic order; ``update`` returns
whether the value changed, and the loop bumps the channel's version only then.
Channels are mutable during a run and restored from a checkpoint's stored
value with :meth:`from_checkpoint`, which returns a fresh channel.
"""

from __future__ import annotations

import abc
from typing import Any, Generic, Sequence, TypeVar

from engine.errors import EmptyChannelError

__all__ = ["BaseChannel", "EmptyChannelError", "MISSING"]

#: The type parameters of LangGraph's ``BaseChannel[Value, Update, Checkpoint]`` (annotations only).
Value = TypeVar("Value")
Update = TypeVar("Update")
Checkpoint = TypeVar("Checkpoint")


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()


class BaseChannel(Generic[Value, Update, Checkpoint], abc.ABC):
    __slots__ = ("key", "typ")

    #: whether versions store the channel's value (an UntrackedValue's lives only in the run)
    tracked = True
    #: whether versions store its writes rather than its value (DeltaChannel): the run keeps the live value
    delta = False

    def __init__(self, typ: Any = Any, key: str = "") -> None:
        self.typ = typ
        self.key = key

    @abc.abstractmethod
    def from_checkpoint(self, checkpoint: Any) -> "BaseChannel[Value, Update, Checkpoint]":
        """A new channel like this one, holding ``checkpoint`` (or empty for MISSING)."""

    @abc.abstractmethod
    def update(self, values: Sequence[Any]) -> bool:
        """Apply one step's writes (possibly none); return whether the value changed."""

    @abc.abstractmethod
    def get(self) -> Value:
        """The current value; raises :class:`EmptyChannelError` when empty."""

    @abc.abstractmethod
    def checkpoint(self) -> Any:
        """The value to store, or MISSING when empty."""

    @property
    def ValueType(self) -> Any:  # noqa: N802 - LangGraph's name
        """The type of the value the channel holds (LangGraph's ``ValueType``)."""
        return self.typ

    @property
    def UpdateType(self) -> Any:  # noqa: N802 - LangGraph's name
        """The type of one write to the channel (LangGraph's ``UpdateType``)."""
        return self.typ

    def is_available(self) -> bool:
        try:
            self.get()
        except EmptyChannelError:
            return False
        return True

    def consume(self) -> bool:
        """Called when a task triggered by this channel ran; return whether it changed."""
        return False

    def finish(self) -> bool:
        """Called when the run is about to end (a step triggered no node); return whether it changed.

        Only a deferred node's channels change (:mod:`engine.channels.after_finish`).
        """
        return False

    def copy(self) -> "BaseChannel[Value, Update, Checkpoint]":
        return self.from_checkpoint(self.checkpoint())
