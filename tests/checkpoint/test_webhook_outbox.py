"""The webhook outbox (engine/checkpoint/_webhooks.py) on every saver kind: rows claimed once until their hold ends."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone
from typing import Any

from engine.checkpoint import InMemorySaver
from engine.host import MemoryWebhooks, WebhookOutbox, WebhookRecord, webhooks_of

T0 = datetime(2026, 1, 2, 3, 4, 5, 123456, tzinfo=timezone.utc)


def outbox_of(saver: Any) -> WebhookOutbox:
    outbox = webhooks_of(saver)
    assert isinstance(outbox, MemoryWebhooks) == isinstance(saver, InMemorySaver)
    return outbox


def test_claimed_once_held_retried_and_done(saver: Any) -> None:
    outbox = outbox_of(saver)

    async def go() -> None:
        await outbox.aadd(WebhookRecord("r1", "http://x/1", T0, T0, "ann"))
        await outbox.aadd(WebhookRecord("r1", "http://x/other", T0, T0))  # one per run: the first stays
        await outbox.aadd(WebhookRecord("r2", "http://x/2", T0, T0 + timedelta(minutes=5)))
        claims = await asyncio.gather(*(outbox.aclaim_due(T0, 10.0) for _ in range(3)))
        taken = [r for found in claims for r in found]
        assert [(r.run_id, r.url, r.tenant, r.attempts, r.next_attempt_at) for r in taken] == [("r1", "http://x/1", "ann", 0, T0)]
        assert await outbox.aclaim_due(T0 + timedelta(seconds=9), 10.0) == []  # held
        (again,) = await outbox.aclaim_due(T0 + timedelta(seconds=10), 10.0)  # its sender never came back
        assert again.run_id == "r1"
        await outbox.aretry("r1", T0 + timedelta(minutes=1), 1)
        assert [r.run_id for r in await outbox.aclaim_due(T0 + timedelta(seconds=30), 10.0)] == []
        (retried,) = await outbox.aclaim_due(T0 + timedelta(minutes=1), 10.0)
        assert retried.attempts == 1
        await outbox.adone("r1")
        assert [r.run_id for r in await outbox.aclaim_due(T0 + timedelta(hours=1), 10.0)] == ["r2"]

    asyncio.run(go())
