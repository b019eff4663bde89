"""DeltaChannel: a reducer key whose versions store the writes, not the value (LangGraph's ``langgraph.channels.delta``).

The reducer takes the value and a whole batch of writes at once,
``reducer(value, [w1, w2, ...])``, and must give the same result however the
writes are batched: ``reducer(reducer(v, xs), ys) == reducer(v, xs + ys)``.
That is what lets a version be stored without its value: the value is the
nearest stored snapshot with every write since folded in, and the writes are
the pending writes the thread keeps anyway.

What a saver holds, as in LangGraph 1.2: a version stores the channel only as a
:class:`~engine.types.DeltaSnapshot` (every ``snapshot_frequency`` updates, after
an ``Overwrite``, where a new branch starts, and at least every
:data:`MAX_STEPS_WITHOUT_SNAPSHOT` steps), and otherwise not at all; its
metadata's ``counters_since_delta_snapshot`` counts, per channel, the updates
and the steps since the last snapshot. Reading a version back folds the
writes stored since that snapshot (:mod:`engine.pregel._delta`).

In a run the engine keeps the live value in the run's state like any key's;
:meth:`DeltaChannel.checkpoint` returns ``MISSING`` as LangGraph's does (the
loop asks for the value with :meth:`~DeltaChannel.get`).
"""

from __future__ import annotations

import collections.abc
import copy as _copy
import os
import typing
from typing import Any, Callable, Generic, Sequence

from engine.channels.base import MISSING, BaseChannel, EmptyChannelError, Value
from engine.channels.binop import as_overwrite
from engine.errors import ErrorCode, InvalidUpdateError, create_error_message
from engine.types import DeltaSnapshot

__all__ = ["DeltaChannel", "MAX_STEPS_WITHOUT_SNAPSHOT"]

#: A delta channel is snapshotted at least this often (steps), written or not, so
#: a read never walks further back (LangGraph's LANGGRAPH_DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT).
MAX_STEPS_WITHOUT_SNAPSHOT = int(os.environ.get("LANGGRAPH_DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT", "5000"))

_ABSTRACT = {
    collections.abc.Sequence: list,
    collections.abc.MutableSequence: list,
    collections.abc.Set: set,
    collections.abc.MutableSet: set,
    collections.abc.Mapping: dict,
    collections.abc.MutableMapping: dict,
}


def _concrete(typ: Any) -> Any:
    """``list`` for ``list[str]``, ``NotRequired[dict[str, int]]`` or ``Sequence``: the type to make an empty value of."""
    while True:
        origin = typing.get_origin(typ)
        if origin is None:
            break
        if origin in (typing.Annotated, typing.Required, typing.NotRequired):
            typ = typing.get_args(typ)[0]
        else:
            typ = origin
    return _ABSTRACT.get(typ, typ)


def _same_reducer(a: Callable[..., Any], b: Callable[..., Any]) -> bool:
    # As LangGraph: two lambdas cannot be told apart, so they count as the same.
    if getattr(a, "__name__", "") == "<lambda>" or getattr(b, "__name__", "") == "<lambda>":
        return True
    return a is b


class DeltaChannel(Generic[Value], BaseChannel[Any, Any, Any]):
    """A key folded by a batch reducer, stored as its writes between periodic snapshots.

    ``reducer(value, writes) -> value`` gets every write of a step in one
    call and must be deterministic and batching-invariant (see the module).
    ``typ`` is the value's type (taken from ``Annotated[T, DeltaChannel(...)]``
    when the channel is a state key; ``list`` otherwise); ``snapshot_frequency``
    (a positive int, default 100) is how many updates a stored snapshot is
    followed by before the next one.
    """

    __slots__ = ("value", "reducer", "snapshot_frequency", "replaced")

    #: versions store it as writes (engine.pregel._delta); the run keeps the live value
    delta = True

    def __init__(
        self, reducer: Callable[[Any, Sequence[Any]], Any], typ: Any = None, *, snapshot_frequency: int = 100, key: str = ""
    ) -> None:  # fmt: skip
        if isinstance(snapshot_frequency, bool) or not isinstance(snapshot_frequency, int) or snapshot_frequency <= 0:
            raise ValueError(f"snapshot_frequency must be a positive int, got {snapshot_frequency!r}")
        if not callable(reducer):
            raise TypeError(f"DeltaChannel's reducer must be callable, got {reducer!r}")
        super().__init__(_concrete(list if typ is None else typ), key)
        self.reducer = reducer
        self.snapshot_frequency = snapshot_frequency
        self.value: Any = MISSING
        #: an Overwrite replaced the value since the last stored version (which then snapshots it)
        self.replaced = False

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, DeltaChannel)
            and other.snapshot_frequency == self.snapshot_frequency
            and _same_reducer(self.reducer, other.reducer)
        )

    __hash__ = BaseChannel.__hash__

    def retyped(self, typ: Any) -> "DeltaChannel":
        """This channel for values of ``typ`` (a state key's annotation)."""
        return DeltaChannel(self.reducer, typ, snapshot_frequency=self.snapshot_frequency, key=self.key)

    def _empty(self) -> Any:
        return self.typ()

    def copy(self) -> "DeltaChannel":
        ch: DeltaChannel[Any] = DeltaChannel(self.reducer, self.typ, snapshot_frequency=self.snapshot_frequency, key=self.key)
        ch.value = self.value if self.value is MISSING else _copy.copy(self.value)
        return ch

    def from_checkpoint(self, checkpoint: Any) -> "DeltaChannel":
        """A channel holding what a version stored: nothing (empty: its writes are folded in
        after), a :class:`~engine.types.DeltaSnapshot`, or a plain value (a key that was a
        plain reducer key before)."""
        ch: DeltaChannel[Any] = DeltaChannel(self.reducer, self.typ, snapshot_frequency=self.snapshot_frequency, key=self.key)
        if checkpoint is MISSING:
            ch.value = self._empty()
        elif isinstance(checkpoint, DeltaSnapshot):
            ch.value = checkpoint.value
        else:
            ch.value = checkpoint
        return ch

    def replay_writes(self, writes: Sequence[Any]) -> None:
        """Fold stored writes ``(task_id, channel, value)``, oldest first, in one reducer call;
        the last ``Overwrite`` among them restarts the value."""
        values = [w[2] for w in writes]
        if not values:
            return
        base, start = self.value, 0
        for i, v in enumerate(values):
            is_ow, replacement = as_overwrite(v)
            if is_ow:
                base = self._empty() if replacement is None else _copy.copy(replacement)
                start = i + 1
        rest = values[start:]
        self.value = self.reducer(base, rest) if rest else base

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            return False
        overwrite: tuple[Any] | None = None
        for v in values:
            is_ow, replacement = as_overwrite(v)
            if is_ow:
                if overwrite is not None:
                    raise InvalidUpdateError(
                        create_error_message(
                            message="Can receive only one Overwrite value per super-step.",
                            error_code=ErrorCode.INVALID_CONCURRENT_GRAPH_UPDATE,
                        )
                    )
                overwrite = (replacement,)
        if overwrite is not None:
            self.value = self._empty() if overwrite[0] is None else _copy.copy(overwrite[0])
            self.replaced = True
            return True
        base = self._empty() if self.value is MISSING else self.value
        self.value = self.reducer(base, list(values))
        return True

    def get(self) -> Any:
        if self.value is MISSING:
            raise EmptyChannelError(self.key)
        return self.value

    def is_available(self) -> bool:
        return self.value is not MISSING

    def checkpoint(self) -> Any:
        """Always ``MISSING``, as LangGraph's: a version stores writes and snapshots, never this."""
        return MISSING
