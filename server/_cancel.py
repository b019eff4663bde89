"""CancelRun across replicas: ask the replica that runs the thread, and wait for its answer.

A run lives in the process that started it; behind a load balancer, a
``CancelRun`` may reach another replica. With a checkpointer that has leases
(PostgreSQL), the thread's live lease names the process running it, so the
replica that got the call (when the run is not its own) sends that process a
message through the database (LISTEN/NOTIFY, see the saver's
``messages.asignal_holder``), which cancels the run as a local ``CancelRun`` would and
answers whether it did. No lease: nothing runs on the thread anywhere, and
the answer is False at once. The owner not answering within
``answer_within`` seconds (stalled, or gone and its lease not yet lapsed) is
UNAVAILABLE naming it: the caller may retry.

Each replica listens from start-up until it stops. If the listening
connection is lost, it listens again after a pause (logged), and messages
sent meanwhile are lost; a cancel that was waiting for an answer then gets
UNAVAILABLE, as for a silent owner.

The same connection hears the messages sent to every process (``"to": "*"``),
which go to the :class:`Watcher` of their ``kind`` (:meth:`CancelRelay.watch`):
the assistants' changes, which the assistant cache forgets on
(``server/_assistant_cache.py``). A watcher is told when the relay listens and
when it stops listening, since what is sent meanwhile is lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator
from collections.abc import Mapping
from typing import Any, Protocol

import grpc

from engine.checkpoint.base import MessageBus
from engine.errors import CheckpointError
from server._errors import RpcError
from server._runs import RunManager

__all__ = ["CancelRelay", "Watcher"]

log = logging.getLogger("graphwire.server")

_RELISTEN_AFTER = 1.0
#: what a message to every process is addressed to
EVERY = "*"


class Watcher(Protocol):
    """Hears one kind of the messages sent to every process (on the event loop's thread)."""

    def message(self, body: Mapping[str, Any]) -> None:
        """A message of its kind (its ``body``)."""

    def listening(self, live: bool) -> None:
        """The relay listens from now on (True), or stopped listening (False: messages may be lost until it is True again)."""


class CancelRelay:
    """Cancels runs on whichever replica holds them.

    Args:
        bus: a checkpointer's messages (:class:`~engine.checkpoint._lease.MessageBus`:
            the PostgreSQL saver's ``messages``).
        runs: this replica's runs.
        owner: this replica's lease owner id (messages are addressed by it).
        answer_within: seconds to wait for the owner's answer.
    """

    def __init__(self, bus: MessageBus, runs: RunManager, owner: str, *, answer_within: float = 5.0) -> None:
        self.bus = bus
        self.runs = runs
        self.owner = owner
        self.answer_within = answer_within
        self._waiting: dict[str, asyncio.Future[bool]] = {}
        self._task: asyncio.Task[None] | None = None
        self._watchers: dict[str, Watcher] = {}
        self._live = False

    def watch(self, kind: str, watcher: Watcher) -> None:
        """Send the messages to every process of ``kind`` to ``watcher`` (one a kind), and tell it when the relay listens."""
        self._watchers[kind] = watcher
        watcher.listening(self._live)

    def _listens(self, live: bool) -> None:
        self._live = live
        for watcher in self._watchers.values():
            watcher.listening(live)

    async def start(self) -> None:
        """Listen (returns once listening, so a cancel sent after start-up reaches this replica)."""
        listening = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._listen(listening), name="graphwire-cancel-relay")
        await listening

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        self._listens(False)

    async def cancel(self, key: str, thread_id: str, run_id: str) -> bool:
        """Cancel the run on ``key`` (``run_id``: only that one) here or on its replica; whether one was."""
        if self.runs.cancel(key, run_id):
            return True
        request = uuid.uuid4().hex
        answer = asyncio.get_running_loop().create_future()
        self._waiting[request] = answer
        try:
            body = {"kind": "cancel", "from": self.owner, "request": request, "run_id": run_id}
            holder = await self.bus.asignal_holder(key, body)
            if holder is None or holder == self.owner:
                return False  # no run anywhere (or ours, and it ended before the check above)
            try:
                async with asyncio.timeout(self.answer_within):  # not wait_for: see server._leases
                    return await answer
            except TimeoutError:
                raise RpcError(
                    grpc.StatusCode.UNAVAILABLE,
                    f"the run on thread {thread_id!r} is on replica {holder}, which did not answer the cancel "
                    f"within {self.answer_within:g}s; retry, or wait for its lease to lapse",
                ) from None
        finally:
            self._waiting.pop(request, None)

    async def _listen(self, listening: asyncio.Future[None]) -> None:
        failing = False
        while True:
            try:
                async with self.bus.alisten() as messages:
                    self._listens(True)
                    if not listening.done():
                        listening.set_result(None)
                    if failing:
                        log.info("cancel relay: listening again")
                        failing = False
                    try:
                        await self._serve(messages)
                    finally:
                        self._listens(False)
            except Exception as exc:  # noqa: BLE001 - whatever stopped it, the relay goes on
                if not listening.done():
                    listening.set_exception(exc)
                    return
                if not isinstance(exc, CheckpointError):
                    log.exception("cancel relay: unexpected error; listening again in %gs", _RELISTEN_AFTER)
                else:  # once per outage at WARNING; each retry after that at DEBUG
                    log.log(logging.DEBUG if failing else logging.WARNING,
                            "cancel relay: %s; trying again every %gs", exc, _RELISTEN_AFTER)
                failing = True
                for waiting in self._waiting.values():
                    if not waiting.done():
                        waiting.set_exception(
                            RpcError(grpc.StatusCode.UNAVAILABLE, f"lost the database connection while waiting: {exc}")
                        )
            await asyncio.sleep(_RELISTEN_AFTER)

    async def _serve(self, messages: AsyncIterator[dict[str, Any]]) -> None:
        async for msg in messages:
            body = msg["body"]
            if msg.get("to") == EVERY:
                watcher = self._watchers.get(str(body.get("kind")))
                if watcher is not None:
                    watcher.message(body)
                continue
            if msg.get("to") != self.owner:
                continue
            if body.get("kind") == "cancel":
                cancelled = self.runs.cancel(str(msg.get("thread_id", "")), str(body.get("run_id", "")))
                reply = {"kind": "cancelled", "request": body.get("request"), "cancelled": cancelled}
                with contextlib.suppress(CheckpointError):  # the asker then reports UNAVAILABLE
                    await self.bus.asend(str(body.get("from", "")), reply)
            elif body.get("kind") == "cancelled":
                waiting = self._waiting.get(str(body.get("request")))
                if waiting is not None and not waiting.done():
                    waiting.set_result(bool(body.get("cancelled")))
