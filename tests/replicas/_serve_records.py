"""``python -m tests.replicas._serve_records serve ...``: ``graphwire serve`` whose run records can be held.

Fault injection for tests/replicas: for a call whose request_id starts with
``held-``, the PostgreSQL run store's ``astart`` (the record's insert, made
once the run holds its thread and lease) first touches ``start-reached-<id>``
in the gates directory, then waits (yielding the event loop) until the gate
``start-go-<id>`` is open; its ``astart_taking`` (the lease taken and the
record inserted in one statement, a plain call's start) does the same once
it took the thread; and its ``afind`` (looking a request_id up) touches
``looked-<id>-<pid>``. A test so holds a run that holds its thread before it
runs (before it recorded itself, or with its record in when both were one
write), and knows when another replica has looked for that record.
Everything else is the real server.
"""

from __future__ import annotations

import os
from typing import Any

from engine.checkpoint.postgres._runs import PostgresRuns
from server.cli import main
from tests.graphs import gate_path, wait_gate

_real_start = PostgresRuns.astart
_real_take = PostgresRuns.astart_taking
_real_find = PostgresRuns.afind


async def _held_start(self: PostgresRuns, record: Any, events: Any = (), *, mark: Any = None) -> Any:
    rid = record.request_id or ""
    if rid.startswith("held-"):
        gate_path(f"start-reached-{rid}").touch()
        await wait_gate(f"start-go-{rid}")
    return await _real_start(self, record, events, mark=mark)


async def _held_take(self: PostgresRuns, record: Any, owner: str, ttl: float, *, mark: Any) -> Any:
    lease, first = out = await _real_take(self, record, owner, ttl, mark=mark)
    rid = record.request_id or ""
    if rid.startswith("held-") and lease is not None and first is None:
        gate_path(f"start-reached-{rid}").touch()
        await wait_gate(f"start-go-{rid}")
    return out


async def _marked_find(self: PostgresRuns, thread_id: str, request_id: str) -> Any:
    if request_id.startswith("held-"):
        gate_path(f"looked-{request_id}-{os.getpid()}").touch()
    return await _real_find(self, thread_id, request_id)


PostgresRuns.astart = _held_start  # type: ignore[method-assign]
PostgresRuns.astart_taking = _held_take  # type: ignore[method-assign]
PostgresRuns.afind = _marked_find  # type: ignore[method-assign]

if __name__ == "__main__":
    raise SystemExit(main())
