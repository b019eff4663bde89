"""Webhooks to send, kept in the checkpointer's database: a durable outbox.

A run started with a ``webhook`` (LangGraph's run body field) gets a row
here when it starts, before its caller hears of it: the URL to POST the run
to once it has ended, its tenant, when to try next and how many tries were
made. A sender (:mod:`server._webhook_sender`) claims the rows due
(:meth:`WebhookOutbox.aclaim_due`: their ``next_attempt_at`` moved ``hold``
seconds on in the same transaction, so no other claim takes them meanwhile,
and a sender killed mid-send leaves them to be claimed again after), sends,
and removes a row once delivered (:meth:`WebhookOutbox.adone`) or moves it to
its next try (:meth:`WebhookOutbox.aretry`). A row is so sent at least once.

One contract, three stores: :class:`MemoryWebhooks` here, SQLite
(:mod:`engine.checkpoint.sqlite._webhooks`) and PostgreSQL
(:mod:`engine.checkpoint.postgres._webhooks`); :func:`webhooks_of` gets a saver's.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol, runtime_checkable

__all__ = ["MemoryWebhooks", "WebhookOutbox", "WebhookRecord", "webhooks_of"]


@dataclass(slots=True)
class WebhookRecord:
    """A webhook to send: run ``run_id``'s (of ``tenant``) to ``url``; ``attempts``: tries made so far."""

    run_id: str
    url: str
    created_at: datetime
    next_attempt_at: datetime
    tenant: str = ""
    attempts: int = 0


@runtime_checkable
class WebhookOutbox(Protocol):
    """Where webhooks wait to be sent. Every method is one transaction."""

    async def aadd(self, record: WebhookRecord) -> None:
        """Keep ``record`` (one per run: a second for the same run replaces nothing)."""
        ...

    async def aclaim_due(self, now: datetime, hold: float, *, limit: int = 100) -> list[WebhookRecord]:
        """The rows due at ``now`` (oldest first, at most ``limit``), each returned as it was while its
        stored ``next_attempt_at`` moves to ``now + hold`` seconds: no other claim takes it until then."""
        ...

    async def aretry(self, run_id: str, at: datetime, attempts: int) -> None:
        """Try ``run_id``'s again at ``at``, ``attempts`` tries made."""
        ...

    async def adone(self, run_id: str) -> None:
        """``run_id``'s is sent (or given up): remove it."""
        ...


class MemoryWebhooks:
    """Webhooks in this process's memory (a saver without tables of its own)."""

    def __init__(self) -> None:
        self._rows: dict[str, WebhookRecord] = {}
        self._lock = asyncio.Lock()

    async def aadd(self, record: WebhookRecord) -> None:
        async with self._lock:
            self._rows.setdefault(record.run_id, copy.deepcopy(record))

    async def aclaim_due(self, now: datetime, hold: float, *, limit: int = 100) -> list[WebhookRecord]:
        async with self._lock:
            due = sorted((r for r in self._rows.values() if r.next_attempt_at <= now), key=lambda r: (r.next_attempt_at, r.run_id))[:limit]
            out = [copy.deepcopy(r) for r in due]
            for r in due:
                r.next_attempt_at = now + timedelta(seconds=hold)
            return out

    async def aretry(self, run_id: str, at: datetime, attempts: int) -> None:
        async with self._lock:
            if run_id in self._rows:
                self._rows[run_id] = dataclasses.replace(self._rows[run_id], next_attempt_at=at, attempts=attempts)

    async def adone(self, run_id: str) -> None:
        async with self._lock:
            self._rows.pop(run_id, None)


def webhooks_of(saver: Any) -> WebhookOutbox:
    """The outbox of ``saver``'s database (``saver.webhooks``), else a new one in memory."""
    found = getattr(saver, "webhooks", None)
    if isinstance(found, WebhookOutbox):
        return found
    return MemoryWebhooks()
