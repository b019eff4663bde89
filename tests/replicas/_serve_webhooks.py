"""``python -m tests.replicas._serve_webhooks serve ...``: ``graphwire serve`` whose webhooks stop at a gate before their POST.

Fault injection for tests/replicas/test_webhooks_across_replicas.py: each
webhook request (``WebhookDeliverer.post``, called once the run has ended and
its body is built) first touches ``webhook-reached-<pid>`` in the gates
directory, then waits until the gate ``webhook-go-<pid>`` is open. A test so
holds a replica just before it delivers, and kills it there. Everything else
is the real server.
"""

from __future__ import annotations

import os

from server.cli import main
from server.http._webhooks import WebhookDeliverer
from tests.graphs import gate_path, wait_gate

_real_post = WebhookDeliverer.post


async def _gated_post(self: WebhookDeliverer, url: str, body: bytes) -> int:
    gate_path(f"webhook-reached-{os.getpid()}").touch()
    await wait_gate(f"webhook-go-{os.getpid()}")
    return await _real_post(self, url, body)


WebhookDeliverer.post = _gated_post  # type: ignore[method-assign]

if __name__ == "__main__":
    raise SystemExit(main())
