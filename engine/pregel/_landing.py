"""A run's version writes as its host sees them: which are stored, and the run's last write, if the host takes it.

A host passes a :class:`Landing` to a run (``aevents(..., landing=)``). The run's
writer reports each write that stored versions, and a host that stores events
naming versions holds them until those versions are (server/_eventlog.py).

A host that writes a record of the run's end (graphwire's server: the run's
status, its final event, its thread's mark, its lease let go) may also take the
run's *last write* (``Landing(takes_last=True)``): the versions an "async" run
still holds when it ends (with the writer's linger, a run of fast steps: all of
them; a step that stopped, on an interrupt or a task's error, adds its record) are not written
by the run but handed over in a :class:`LastWrite`,
prepared by the saver (serialized, an unstorable value refused there, as
the run's own write would), and the host stores them with the end, in one
transaction where its stores allow (PostgreSQL: one statement, see
engine/checkpoint/postgres/_prepared.py; SQLite: one transaction,
engine/checkpoint/sqlite/_prepared.py). The run's ``RunFinished`` names the
last of them: the host stores them before it tells anyone the run ended, and a
failure to store them is the run's failure, as the run's own write failing
would have been. A host that takes no last write sees no difference.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable, Protocol

from engine.pregel import _telemetry as tel

__all__ = ["Landing", "LastWrite"]


class _Writer(Protocol):  # a run's VersionWriter, as a landing sees it
    def hurry(self) -> None: ...


class Landing:
    """A run's version writes as its host sees them (``aevents(..., landing=)``): the newest version
    stored, a callback after each write that stored versions, a way to ask for the write sooner and,
    with ``takes_last``, the run's last write (see the module's doc).

    Versions land in the order the run made them, and a run's ids grow (time-ordered), so a
    version of the run is stored once its id is at most :attr:`newest`."""

    __slots__ = ("newest", "notify", "attached", "takes_last", "last", "_writer")

    def __init__(self, notify: Callable[[], None] | None = None, *, takes_last: bool = False) -> None:
        #: the id of the newest version the run's writes stored ("": none yet)
        self.newest = ""
        #: called (with nothing) after each write that stored versions
        self.notify = notify
        #: a run reports to it: the host may wait for its versions (a run never started, or a
        #: runtime that does not report, leaves it unattached)
        self.attached = False
        #: the host stores the run's last write (:attr:`last`, once the run ended)
        self.takes_last = takes_last
        #: the run's last write, handed over at its end (with :attr:`takes_last`), until the host takes it
        self.last: LastWrite | None = None
        self._writer: weakref.ref[_Writer] | None = None  # (no cycle: the writer holds this)

    def attach(self, writer: _Writer) -> None:
        """``writer``'s run reports here (its ``VersionWriter`` calls this)."""
        self._writer = weakref.ref(writer)
        self.attached = True

    def stored(self, checkpoint_id: str) -> bool:
        """Whether the run's version ``checkpoint_id`` is stored (true when no run reports here: a host
        then holds nothing back for it)."""
        return not self.attached or checkpoint_id <= self.newest

    def hurry(self) -> None:
        """The run's writer, if it lingers, writes what it holds now."""
        writer = self._writer() if self._writer is not None else None
        if writer is not None:
            writer.hurry()

    def landed(self, checkpoint_id: str) -> None:
        """The run's versions up to ``checkpoint_id`` are stored."""
        self.newest = checkpoint_id
        if self.notify is not None:
            self.notify()

    def take_last(self) -> LastWrite | None:
        """The run's last write, if it handed one over and nobody tried to store it yet (the taker does)."""
        last, self.last = self.last, None
        return last


class LastWrite:
    """A run's last versions, prepared by its saver (``saver.prepare_many``), for its host to store once
    (see the module's doc): :meth:`astore`, or with a store's own ``ending`` where the saver's
    prepared write takes one (PostgreSQL's, ``PreparedPut``)."""

    __slots__ = ("prepared", "last_id", "_landing", "_attrs")

    def __init__(self, prepared: Any, last_id: str, landing: Landing, attrs: dict[str, Any]) -> None:
        #: the saver's prepared write
        self.prepared = prepared
        #: the id of the last version (what the run's RunFinished names)
        self.last_id = last_id
        self._landing = landing
        self._attrs = attrs  # the run's metric attributes

    async def astore(self, ending: Any = None) -> None:
        """Store the versions (with ``ending``, in the saver's statement); then they have landed. Once
        tried, it is no longer the landing's :attr:`~Landing.last` (a failed write is not tried again)."""
        if self._landing.last is self:
            self._landing.last = None
        write = self.prepared.astore() if ending is None else self.prepared.astore(ending)
        await tel.timed_write(write, None, None, self._attrs)  # (its span events went with the hand-over)
        self._landing.landed(self.last_id)
