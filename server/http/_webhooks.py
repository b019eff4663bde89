"""Webhooks of runs started over HTTP: kept in the outbox when the run starts, sent once it ended.

:func:`keep_webhook` adds the outbox row (:mod:`engine.checkpoint._webhooks`)
right after a run with a ``webhook`` started, before its caller hears of it.
:class:`WebhookDeliverer` is the sender's ``deliver``
(:mod:`server._webhook_sender`): once the run has ended it POSTs the run as
LangGraph does, its ``Run`` object (:func:`server.http._run_views.run_json`)
with the thread's ``values`` after it and ``webhook_sent_at``, as JSON; the
request runs on a worker thread (the standard library's HTTP client), with
the sender's timeout.
"""

from __future__ import annotations

import asyncio
import json
import logging
import urllib.error
import urllib.request
from typing import TYPE_CHECKING, Any

from engine.host import ACTIVE, WebhookRecord
from graphwire_proto.v1 import graphwire_pb2 as pb
from server._records import now
from server._tenants import TENANT
from server.http import _shapes as shape
from server.http._run_views import run_json

if TYPE_CHECKING:
    from server.service import GraphService

__all__ = ["WebhookDeliverer", "keep_webhook"]

log = logging.getLogger("graphwire.server")


async def keep_webhook(service: GraphService, url: str, run_id: str) -> None:
    """Keep run ``run_id``'s webhook to ``url`` in the outbox (the caller's tenant's)."""
    at = now()
    await service.webhooks.aadd(WebhookRecord(run_id, url, at, at, TENANT.get() or ""))


def _post(url: str, body: bytes, timeout: float) -> int:
    request = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:  # noqa: S310 - the URL was checked to be http(s)
            return int(answer.status)
    except urllib.error.HTTPError as e:
        return int(e.code)


class WebhookDeliverer:
    """Sends one outbox row's webhook on ``service`` (see the module's doc)."""

    def __init__(self, service: GraphService, timeout: float) -> None:
        self.service = service
        self.timeout = timeout

    async def __call__(self, row: WebhookRecord) -> str:
        token = TENANT.set(row.tenant or None)
        try:
            return await self._send(row)
        finally:
            TENANT.reset(token)

    async def _send(self, row: WebhookRecord) -> str:
        record = await self.service.records.store.aget(row.run_id)
        if record is None:
            log.warning("webhook of run %s: the run is gone (its thread deleted); nothing to send", row.run_id)
            return "gone"
        if record.status in ACTIVE:
            return "pending"
        body: dict[str, Any] = run_json(record)
        try:
            found = await self.service.thread_records.GetThread(
                pb.GetThreadRequest(graph=record.graph, thread_id=record.caller_thread, include_values=True), None
            )
            body["values"] = shape.thread(found)["values"]
        except Exception:  # noqa: BLE001 - the run is sent without the values its thread no longer has
            body["values"] = None
        body["webhook_sent_at"] = now().isoformat()
        status = await self.post(row.url, json.dumps(body).encode())
        if 200 <= status < 300:
            return "sent"
        log.warning("webhook of run %s to %s: answered %d", row.run_id, row.url, status)
        return "failed"

    async def post(self, url: str, body: bytes) -> int:
        """POST ``body`` (JSON) to ``url``: the answer's status (a failure to connect raises)."""
        return await asyncio.to_thread(_post, url, body, self.timeout)
