"""The optional parts of the checkpointer contract: leases and messages between processes.

A saver is first a store of checkpoints (:class:`~engine.checkpoint.base.BaseCheckpointSaver`).
One whose tables several processes share (PostgreSQL) also has

* ``saver.leases``, a :class:`LeaseStore`: one run per thread across the
  processes, and the fencing token (:class:`Lease`) its writes carry;
* ``saver.messages``, a :class:`MessageBus`: what those processes tell
  each other (cancel the run a lease holder runs).

Each is an object of its own sharing the saver's connections; a saver
without them has ``None`` there (memory, SQLite: one process owns the data).
A host checks them with ``isinstance`` against these Protocols. See
:mod:`engine.checkpoint.base` (its "Leases" paragraph) for how a host, the
engine and a saver use a lease.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, AsyncIterator, Mapping, Protocol, runtime_checkable

__all__ = ["LEASE_KEY", "Lease", "LeaseHolder", "LeaseStore", "MessageBus", "run_lease"]

# Where a write's config carries the run's fencing token (a Lease): put there
# by the loop on every write, from the lease the host passed the engine as an
# argument. A saver that enforces one run per thread across processes
# (PostgreSQL) commits a write only while the token's lease still holds;
# savers without leases ignore it.
LEASE_KEY = "__lease__"


@dataclass(frozen=True, slots=True)
class Lease:
    """A process's hold on a thread, and the fencing token its writes carry.

    ``epoch`` grows by one at every change of holder, so a token from before a
    takeover never matches again. Returned by
    :meth:`BaseCheckpointSaver.aacquire_lease`; opaque to everyone else.
    """

    thread_id: str
    owner: str
    epoch: int


@dataclass(frozen=True, slots=True)
class LeaseHolder:
    """Who holds a thread's live lease, and when it ends unless renewed (the database's clock)."""

    owner: str
    expires_at: datetime


@runtime_checkable
class LeaseStore(Protocol):
    """Threads' leases, shared by the processes using one store.

    ``requires_lease``: set by a host that gives each thread one run at a
    time with these leases (the server): from then on every run must be given
    its lease (:func:`run_lease`) and every checkpoint write (and delete) of
    the saver must carry it; one without raises rather than write unfenced.
    """

    requires_lease: bool

    async def aacquire_lease(self, thread_id: str, owner: str, *, ttl: float) -> Lease | None:
        """Take the thread's lease for ``ttl`` seconds, or None while another owner holds it.

        A lease that lapsed (not renewed in time) or was released is taken
        over with the epoch plus one, and so is one whose holder's process
        is gone, where the store can tell (PostgreSQL: its session ended).
        So is a live lease of the same ``owner``: the host runs one run per
        thread per owner, so such a lease is a leftover of that owner's own
        (e.g. a release that failed). Times are the store's clock, never the
        callers'.

        Raises:
            CheckpointError: the store could not be reached.
        """
        ...

    async def arenew_lease(self, lease: Lease, *, ttl: float) -> bool:
        """Extend a live lease to ``ttl`` seconds from now; False when it is lost (lapsed or taken over)."""
        ...

    async def arelease_lease(self, lease: Lease) -> None:
        """Let the thread go now (the next acquire takes it at once); a lost lease is left alone."""
        ...

    async def alease_holder(self, thread_id: str) -> LeaseHolder | None:
        """Who holds the thread's live lease (for a busy message); None: nobody, or the store cannot tell."""
        ...


@runtime_checkable
class MessageBus(Protocol):
    """Messages between the processes sharing a store, addressed by lease owner id.

    Delivery is at most once, to the processes listening when a message is sent.
    """

    async def asignal_holder(self, thread_id: str, body: Mapping[str, Any]) -> str | None:
        """Send ``body`` to the process holding ``thread_id``'s live lease; that
        lease's owner, or None when no live lease exists (and nothing was sent)."""
        ...

    async def asend(self, to: str, body: Mapping[str, Any], *, thread_id: str = "") -> None:
        """Send ``body`` to the process whose lease owner id is ``to``."""
        ...

    def alisten(self) -> AbstractAsyncContextManager[AsyncIterator[dict[str, Any]]]:
        """Listen: the block gets an iterator of the messages sent from its start
        (``{"to", "thread_id", "body"}``), which raises CheckpointError when
        the connection is lost (listen again to go on)."""
        ...


def run_lease(saver: Any, thread_id: Any, configurable: Mapping[str, Any], lease: Lease | None) -> Lease | None:
    """The lease a run (or an update) writes under, checked before it writes anything.

    Raises:
        ValueError: ``LEASE_KEY`` in the caller's config (the lease is an
            argument of its own), a lease on another thread, or none for a
            saver that ``requires_lease``.
        TypeError: ``lease`` is not a :class:`Lease`.
    """
    if LEASE_KEY in configurable:
        raise ValueError("pass the run's lease as lease=, not in config['configurable']")
    if lease is None:
        if getattr(saver, "requires_lease", False):
            raise ValueError(f"thread {thread_id!r}: this checkpointer requires every run to hold the thread's lease (pass lease=)")
        return None
    if not isinstance(lease, Lease):
        raise TypeError(f"lease must be a Lease from acquire_lease, not {type(lease).__name__}")
    stored = getattr(saver, "stored_thread", None)  # a ScopedSaver's storage key (engine.checkpoint._scoped)
    if lease.thread_id != (stored(thread_id) if stored is not None else thread_id):
        raise ValueError(f"the lease is on thread {lease.thread_id!r}, the run on thread {thread_id!r}")
    return lease
