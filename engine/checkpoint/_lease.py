"""The lease side of the checkpointer contract: the fencing token and who holds a thread.

See :mod:`engine.checkpoint.base` (its "Leases" paragraph) for how a host,
the engine and a saver use them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Mapping

__all__ = ["LEASE_KEY", "Lease", "LeaseHolder", "run_lease"]

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
    if lease.thread_id != thread_id:
        raise ValueError(f"the lease is on thread {lease.thread_id!r}, the run on thread {thread_id!r}")
    return lease
