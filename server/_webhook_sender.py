"""The webhook sender: runs' webhooks POSTed from the durable outbox, at least once, by one replica at a time.

Every ``interval`` seconds the :class:`WebhookSender` of each replica tries to
take the sender's lease (:data:`SENDER_KEY`), as the cron scheduler does; the
holder claims the outbox's rows due (:meth:`engine.host.WebhookOutbox.aclaim_due`,
each held for twice the send ``timeout`` plus an interval: no other claim
takes it meanwhile), lets the lease go, and sends each through ``deliver``
(:mod:`server.http._webhooks`), which answers:

* "pending": the run has not ended; looked at again an interval later;
* "sent": delivered (a 2xx answer); the row goes;
* "gone": there is nothing to send (the run's record is gone); the row goes;
* "failed": tried again after a backoff (``interval`` × 2^attempts, at most
  ten minutes), at most :data:`MAX_ATTEMPTS` times, then given up (logged).

A replica killed while sending leaves its rows held; another claims them when
their hold ends, so a webhook is sent at least once (twice when the receiver
took it but the replica died before removing its row).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta

from opentelemetry import metrics

from engine.host import LeaseStore, WebhookOutbox, WebhookRecord
from server._periodic import Periodic
from server._records import now

__all__ = ["MAX_ATTEMPTS", "SENDER_KEY", "WebhookSender"]

log = logging.getLogger("graphwire.server")

#: The lease the sending replica holds while it claims (no thread's key: a graph name is never empty).
SENDER_KEY = ":sender:webhooks"
#: Tries before a webhook is given up.
MAX_ATTEMPTS = 10
_MAX_BACKOFF = 600.0
SENT = metrics.get_meter("graphwire.server").create_counter(
    "graphwire.webhooks.sent", unit="{request}", description="Webhook tries (attribute outcome: sent, failed, given_up)"
)


class WebhookSender(Periodic):
    """Sends the outbox's webhooks every ``interval`` seconds (see the module's doc)."""

    name = "graphwire-webhook-sender"
    doing = "sending webhooks"

    def __init__(
        self,
        outbox: WebhookOutbox,
        deliver: Callable[[WebhookRecord], Awaitable[str]],
        *,
        leases: LeaseStore | None,
        owner: str,
        interval: float,
        timeout: float,
        clock: Callable[[], datetime] = now,
    ) -> None:
        self.outbox, self.deliver = outbox, deliver
        self.timeout, self.clock = timeout, clock
        super().__init__(key=SENDER_KEY, leases=leases, owner=owner, interval=interval)

    async def tick(self) -> int | None:
        """Send the webhooks due: how many rows were claimed, or None when another replica holds the lease."""
        claimed = await self.alone(lambda: self.outbox.aclaim_due(self.clock(), self.timeout * 2 + self.interval))
        if claimed is None:
            return None
        await asyncio.gather(*(self._one(row) for row in claimed))
        return len(claimed)

    async def _one(self, row: WebhookRecord) -> None:
        try:
            outcome = await self.deliver(row)
        except Exception:  # noqa: BLE001 - a failure to build or send is a failed try
            log.warning("webhook of run %s to %s: the try failed", row.run_id, row.url, exc_info=True)
            outcome = "failed"
        if outcome == "pending":
            await self.outbox.aretry(row.run_id, self.clock() + timedelta(seconds=self.interval), row.attempts)
            return
        if outcome in ("sent", "gone"):
            await self.outbox.adone(row.run_id)
            SENT.add(1, {"outcome": outcome})
            return
        attempts = row.attempts + 1
        if attempts >= MAX_ATTEMPTS:
            log.error("webhook of run %s to %s: given up after %d tries", row.run_id, row.url, attempts)
            await self.outbox.adone(row.run_id)
            SENT.add(1, {"outcome": "given_up"})
            return
        SENT.add(1, {"outcome": "failed"})
        backoff = min(self.interval * 2**attempts, _MAX_BACKOFF)
        await self.outbox.aretry(row.run_id, self.clock() + timedelta(seconds=backoff), attempts)
