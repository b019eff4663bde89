"""How a durable run goes on: the one decision, over plain records. Pure: no I/O.

A run that keeps its events (``request_id``, ``on_disconnect = CONTINUE``,
``background``) can be met again: by a retry of its call, or by a replica's
sweep after the replica running it died. What happens then is decided here
and nowhere else (:class:`server._continuing.Continuations` acts on it):

* **join**: it runs somewhere, or it ended with its RunFinished stored, or
  another call replaced it (``multitask_strategy`` INTERRUPT or ROLLBACK: its
  record names that run): the caller reads its events (the stored ones, then
  the live ones);
* **close** (a sweep, for a run no caller continues: neither ``background``
  nor ``on_disconnect = CONTINUE``): recorded CANCELLED, as its caller's
  stream went with its replica; a retry with its request_id continues it then;
* **give up**: it was started ``max_attempts`` times: it ends ERROR
  (RecoveryError), the thread's newest version its checkpoint;
* **take**: nobody runs it (its replica died, its caller left a CANCEL run, or
  storage failed under it, so it ended ERROR with no RunFinished): its thread
  is taken, and the decision is made again with the thread's newest version,
  read while holding the thread (another call may take the thread between
  the first decision and then):

  * **run on**: the newest version is its own (its versions carry its run
    id): on from there, without its input;
  * **run again**: it saved no version: from its request as first sent (its
    input was never applied);
  * **refuse**: it saved versions, and another run went on from the thread
    after them: not run again (its input is in the thread; running it would
    apply it twice): it ends ERROR (RecoveryError).

The other rules of durable turns live here too: when a request_id stops
answering retries (:func:`request_expired`) and what a claim of a run for one
more attempt writes (:func:`claim_of`).
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from engine.host import ACTIVE, RunRecord

__all__ = ["Decision", "ThreadSeen", "Way", "claim_of", "decide", "request_expired"]


class Way(enum.Enum):
    """How a run goes on (see the module's doc)."""

    JOIN = "join"
    CLOSE = "close"
    GIVE_UP = "give up"
    TAKE = "take"
    RUN_ON = "run on"
    RUN_AGAIN = "run again"
    REFUSE = "refuse"


@dataclass(frozen=True, slots=True)
class Decision:
    way: Way
    #: For GIVE_UP and REFUSE: why, as the RecoveryError's message.
    why: str = ""


@dataclass(frozen=True, slots=True)
class ThreadSeen:
    """The thread of a run, as its continuation finds it once it holds the thread."""

    #: The thread's newest version's id, None when it has none.
    newest: str | None
    #: The run id in that version's metadata (the run that saved it).
    newest_by: str | None
    #: Whether any version of the thread was saved by the run.
    saved_any: bool


def decide(record: RunRecord, *, max_attempts: int, running: bool = False, caller: bool = True, thread: ThreadSeen | None = None) -> Decision:
    """How ``record``'s run goes on (see the module's doc).

    Args:
        record: the run as last read.
        max_attempts: how many times a run is started before it is given up.
        running: some replica runs it now (this one holds its thread for it, or its
            replica's lease on the thread is live).
        caller: a caller is there to join it (a retry); False for a sweep.
        thread: its thread, read while holding it; None before (then a run to continue is TAKE).
    """
    # Ended without a RunFinished: its caller left a CANCEL run, or storage failed under it (nothing
    # could record its end). Either way it goes on from its own newest version; unless another call
    # cancelled it to run in its place (double texting): that one stands.
    left = record.status in ("CANCELLED", "ERROR") and record.finished is None and record.replaced_by is None
    if not left and (record.status not in ACTIVE or running):
        return Decision(Way.JOIN)
    if not caller and not record.durable:
        return Decision(Way.CLOSE)
    if record.attempts >= max_attempts:
        return Decision(Way.GIVE_UP, (
            f"run {record.run_id} was started {record.attempts} times and stopped before its end each time "
            f"(max_run_attempts is {max_attempts})"
        ))  # fmt: skip
    if thread is None:
        return Decision(Way.TAKE)
    if thread.newest is not None and thread.newest_by == record.run_id:
        return Decision(Way.RUN_ON)
    if thread.newest is not None and thread.saved_any:
        return Decision(Way.REFUSE, (
            f"run {record.run_id} stopped after applying its input, and run {thread.newest_by} "
            f"went on from the thread (version {thread.newest}) before it could be continued; it is not run again, "
            "which would apply its input twice"
        ))  # fmt: skip
    return Decision(Way.RUN_AGAIN)


def request_expired(record: RunRecord, at: datetime, retention: timedelta) -> bool:
    """Whether ``record``'s request_id no longer answers retries at time ``at``.

    The window counts from the run's end: a run that has not ended (or whose end has no
    time, which no writer leaves) keeps its id, however long it has run, so no retry of a
    call whose input was applied is ever taken for a new call while it can still be answered.
    """
    return record.status not in ACTIVE and record.ended_at is not None and record.ended_at < at - retention


def claim_of(record: RunRecord, replica: str, epoch: int | None) -> tuple[dict[str, Any], RunRecord]:
    """A claim of ``record``'s run for one more attempt, here: (the changes to write, conditional on
    its attempts being still ``record.attempts``; the record as claimed)."""
    changes: dict[str, Any] = {"attempts": record.attempts + 1, "replica": replica, "epoch": epoch, "status": "RUNNING", "ended_at": None}
    return changes, dataclasses.replace(record, **changes)
