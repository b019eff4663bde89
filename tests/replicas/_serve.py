"""``python -m tests.replicas._serve serve ...``: ``graphwire serve`` whose deletes stop at a gate.

Fault injection for tests/replicas: the PostgreSQL saver's ``adelete_thread``
first touches ``delete-reached-<n>`` in the gates directory, then waits
(yielding the event loop) until the gate ``delete-go-<n>`` is open, ``<n>``
counting the deletes this process made from 1. A test so knows the replica
is inside a DeleteThread, its thread's lease held, and can pause it there.
Everything else is the real server.
"""

from __future__ import annotations

import itertools
from typing import Any

from engine.checkpoint.postgres import PostgresSaver
from server.cli import main
from tests.graphs import gate_path, wait_gate

_real_delete = PostgresSaver.adelete_thread
_count = itertools.count(1)


async def _gated_delete(self: PostgresSaver, thread_id: str, **kwargs: Any) -> None:
    n = next(_count)
    gate_path(f"delete-reached-{n}").touch()
    await wait_gate(f"delete-go-{n}")
    await _real_delete(self, thread_id, **kwargs)


PostgresSaver.adelete_thread = _gated_delete  # type: ignore[method-assign]

if __name__ == "__main__":
    raise SystemExit(main())
