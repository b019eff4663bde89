"""A cron's firing: its run started in the background, as ``POST /threads/{thread_id}/runs`` (or ``/runs``) would.

The cron's payload is the run body its creator sent (checked then, and again
here: an assistant deleted since fails the firing); it runs in the cron's
tenant. A cron on a thread runs there (its multitask strategy, default
"enqueue" as a run's, decides what happens when a run is going on: queued, its
run waits in the delayed runs' table for its turn); a stateless one runs
on a new thread, deleted once its run ended unless ``on_run_completed`` is
"keep". Started from :class:`server._cron_scheduler.CronScheduler`.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import TYPE_CHECKING, Any

from engine.host import CronRecord
from server._run_api import run_events
from server._tenants import TENANT
from server.http._run_body import parse_run_body
from server.http._common import check_run_thread
from server.http._delayed import ask_later, queued_behind
from server.http._runs import _forget_after, _record
from server.http._webhooks import keep_webhook

if TYPE_CHECKING:
    from server.service import GraphService

__all__ = ["CronFirer", "run_body_of"]


def run_body_of(cron: CronRecord) -> dict[str, Any]:
    """The run body a firing of ``cron`` sends."""
    body = {**cron.payload, "assistant_id": cron.assistant_id}
    if cron.thread_id is None:
        body["on_completion"] = cron.on_run_completed or "delete"
    return body


class CronFirer:
    """Starts crons' runs on ``service`` (the stateless runs' cleanups held until done)."""

    def __init__(self, service: GraphService) -> None:
        self.service = service
        self._cleanups: set[asyncio.Task[None]] = set()

    async def __call__(self, cron: CronRecord) -> None:
        token = TENANT.set(cron.tenant or None)
        try:
            await self._fire(cron)
        finally:
            TENANT.reset(token)

    async def _fire(self, cron: CronRecord) -> None:
        stateless = cron.thread_id is None
        body = run_body_of(cron)
        run = parse_run_body(body, cron.thread_id or str(uuid.uuid4()), stateless=stateless, background=True)
        if cron.thread_id is not None:
            graph = await check_run_thread(self.service, run)
            if await queued_behind(self.service, run, cron.thread_id, graph):
                await ask_later(self.service, run, body, cron.thread_id, checked=True)  # its thread busy: queued, as a run
                return
        events = run_events(self.service, run.request, langgraph_api=True)
        first = None
        async for e in events:  # a background call ends right after RunStarted
            first = first or e
        if first is not None and run.webhook is not None and first.HasField("run_started"):
            await keep_webhook(self.service, run.webhook, first.run_id)
        if first is None or not stateless or run.on_completion != "delete":
            return
        record = await _record(self.service, first.run_started.thread_id, first.run_id)
        task = asyncio.get_running_loop().create_task(_forget_after(self.service, record, first))
        self._cleanups.add(task)
        task.add_done_callback(self._cleanups.discard)

    async def close(self) -> None:
        """Wait for the stateless runs' cleanups still going (at the server's stop)."""
        for task in list(self._cleanups):
            task.cancel()
        await asyncio.gather(*self._cleanups, return_exceptions=True)
