"""A run call's turn on its thread, acted on: the running run replaced, the chat-safe checks made.

:mod:`server._turns` parses and decides; :class:`TurnKeeper` does, around a
run's slot (see :meth:`server._stream.Streams._run`):

1. before the slot, for INTERRUPT and ROLLBACK, :meth:`TurnKeeper.cancel_running`
   finds the thread's running run by its record (any replica's) and cancels
   it: here, or through the cross-replica relay (:class:`server._cancel.CancelRelay`,
   as ``CancelRun``). Its replica ends its record CANCELLED and lets the thread
   go; the call waits for the slot and lease as an ENQUEUE does (calls queued
   here before it keep their turn);
2. holding the thread, for ROLLBACK, :meth:`TurnKeeper.roll_back` deletes every
   version the cancelled run wrote (the versions name their run:
   ``engine.host.RUN_KEY``) and marks its record ROLLED_BACK;
3. still before the new run is recorded, :meth:`TurnKeeper.check` makes the
   chat-safe checks on the thread's newest version (a refusal writes nothing);
4. once the new run's record is in (its ``replaces`` set),
   :meth:`TurnKeeper.link` names it in the cancelled run's ``replaced_by``.

A run that ended by itself before the cancel reached it was not replaced: it
is neither rolled back nor linked, and the call simply runs after it.
"""

from __future__ import annotations

import logging
from typing import Any

from engine.checkpoint.base import BaseCheckpointSaver
from engine.host import RunRecord
from server import _convert as conv
from server._cancel import CancelRelay
from server._reads import newest_state
from server._records import Records
from server._registry import GraphEntry
from server._runs import RunManager
from server._turns import Turn, refusal

__all__ = ["TurnKeeper"]

log = logging.getLogger("graphwire.server")


class TurnKeeper:
    """Replaces running runs and checks threads for run calls.

    Args:
        records: the replica's run records.
        runs: this replica's run slots.
        saver: the server's checkpointer (thread ids are storage keys).
        relay: cancels a run on the replica holding it (None: one process, or no leases).
    """

    def __init__(self, records: Records, runs: RunManager, saver: BaseCheckpointSaver, relay: CancelRelay | None) -> None:
        self.records = records
        self.runs = runs
        self.saver = saver
        self.relay = relay

    async def cancel_running(self, key: str, thread_id: str) -> RunRecord | None:
        """Cancel the thread's running run wherever it runs; its record (as read) if one was cancelled."""
        for record in await self.records.store.aactive(key):
            if record.status != "RUNNING":
                continue  # waiting for a replica to continue it: nothing runs to cancel
            if self.relay is not None:
                cancelled = await self.relay.cancel(key, thread_id, record.run_id)
            else:
                cancelled = self.runs.cancel(key, record.run_id)
            if cancelled:
                return record
        return None

    async def roll_back(self, replaced: RunRecord) -> int:
        """Delete the versions ``replaced`` wrote and mark its record ROLLED_BACK (holding the thread); how many."""
        gone = await self.saver.adelete_run_versions(replaced.thread_id, replaced.run_id)
        await self._mark(replaced, status="ROLLED_BACK")
        log.info("run %s on thread %r rolled back: %d version(s) deleted", replaced.run_id, replaced.caller_thread, gone)
        return gone

    async def link(self, replaced: RunRecord, run_id: str) -> None:
        """Name ``run_id`` as the run that replaced ``replaced``, in its record."""
        await self._mark(replaced, replaced_by=run_id)

    async def _mark(self, replaced: RunRecord, **changes: Any) -> None:
        # Its replica ended it before letting the thread go; read it again for its attempt.
        current = await self.records.store.aget(replaced.run_id)
        if current is None or not await self.records.store.aupdate(current.run_id, current.attempts, **changes):
            log.warning("run %s: its record could not say %s", replaced.run_id, changes)

    async def check(self, entry: GraphEntry, thread_id: str, turn: Turn) -> None:
        """The chat-safe checks of ``turn`` on the thread's newest version (holding the thread).

        Raises:
            TurnRefusedError: FAILED_PRECONDITION, with the version and its pending interrupts.
        """
        if not turn.checks:
            return
        snap = conv.snapshot(await newest_state(entry.graph, thread_id))
        refused = refusal(turn, thread_id, snap.checkpoint.checkpoint_id or None, snap.interrupts)
        if refused is not None:
            raise refused
