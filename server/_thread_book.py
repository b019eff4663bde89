"""Thread records, the server's side of them: kept current by the run machinery, read by the RPCs.

Every thread the server serves has a record in the checkpointer's database
(:mod:`engine.checkpoint._threads`, through :mod:`engine.host`): the run
path marks it (:meth:`ThreadBook.busy` when a run holds the thread,
:meth:`ThreadBook.ended` when it ends: ``idle``, ``interrupted`` with its
pending interrupts, or ``error``), ``UpdateState`` touches it
(:meth:`ThreadBook.touched`), and a mark of a thread without a record
creates it, so the first call on an unknown thread makes its record, and a
thread from before records were kept gets one at its next call (the
migrations backfill those they can read; see ``0007_threads.sql``).

A record's tenant and caller id come from its storage key
(:func:`server._reads.owner_of`), so a record is the tenant's whose key it
has, whoever marks it (a run continued by another replica too). A graph's
default TTL (``[thread_ttl]`` in graphwire.toml, :func:`server._ages.parse_thread_ttl`)
is given to each record it creates.

The pending interrupts are kept as the bytes of a :class:`pb.ThreadInfo`
holding only them: the record stays opaque to the engine.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp

from engine.host import KEEP, Expected, MemoryThreads, RecordChanged, RunRecord, RunStore, ThreadMark, ThreadQuery, ThreadRecord, ThreadStore
from graphwire_proto.v1 import graphwire_pb2 as pb
from server._json import encode
from server._ages import TtlRule, parse_thread_ttl
from server._reads import owner_of
from server._records import now

__all__ = ["STATUS", "ThreadBook", "TtlRule", "expect", "parse_thread_ttl"]

log = logging.getLogger("graphwire.server")

#: A run's end (its record's status) → its thread's status.
_AFTER_RUN = {"SUCCESS": "idle", "CANCELLED": "idle", "INTERRUPTED": "interrupted", "ERROR": "error"}
STATUS: dict[str, Any] = {"idle": pb.THREAD_STATUS_IDLE, "busy": pb.THREAD_STATUS_BUSY, "interrupted": pb.THREAD_STATUS_INTERRUPTED, "error": pb.THREAD_STATUS_ERROR}
STRATEGY: dict[str, Any] = {"delete": pb.TTL_STRATEGY_DELETE, "keep_latest": pb.TTL_STRATEGY_KEEP_LATEST}


def _ts(value: Any) -> Timestamp:
    t = Timestamp()
    t.FromDatetime(value)
    return t


class ThreadBook:
    """The records of the server's threads (see the module's doc).

    Args:
        store: the checkpointer's thread store (open it once: a memory one is per call of ``threads_of``).
        ttl: each graph's default TTL.
    """

    def __init__(self, store: ThreadStore, ttl: Mapping[str, TtlRule] | None = None) -> None:
        self.store = store
        self.ttl = dict(ttl or {})

    def template(
        self, graph: str, key: str, *, metadata: dict[str, Any] | None = None, ttl: TtlRule | None | Any = KEEP
    ) -> ThreadRecord:
        """A new record of the thread stored under ``key`` (``ttl``: KEEP for the graph's default)."""
        tenant, caller = owner_of(key, graph) or (None, key)
        at = now()
        rule = self.ttl.get(graph) if ttl is KEEP else ttl
        seconds, strategy = rule if rule is not None else (None, None)
        return ThreadRecord(key, graph, caller, at, at, tenant=tenant or "", metadata=dict(metadata or {}), ttl_seconds=seconds, ttl_strategy=strategy)

    def rides_with(self, runs: RunStore) -> bool:
        """Whether ``runs`` writes this book's records: then a run's marks go with its record's
        writes (``mark=``), one write for both at its start and at its end, not two each."""
        return runs.threads is not None and runs.threads is self.store

    def busy_mark(self, graph: str, key: str, expected: Expected | None = None) -> ThreadMark:
        """A run holds the thread now (``expected``: what its start needs of the record first)."""
        return ThreadMark(self.template(graph, key), now(), status="busy", interrupts=b"", expected=expected)

    async def expect(self, graph: str, key: str, expected: Expected) -> None:
        """Raise :class:`~engine.checkpoint._threads.RecordChanged` unless the thread's record is as
        ``expected`` says: the check a start that cannot make it in its own write makes before."""
        record = self.template(graph, key)
        found = await self.store.asearch(ThreadQuery(tenant=record.tenant, caller_ids=(record.caller_thread,), limit=2))
        expected.require(found)

    def ended_mark(self, record: RunRecord, status: str, final: pb.RunEvent | None) -> ThreadMark:
        """``record``'s run ended with ``status`` (its RunFinished ``final``, when it sent one)."""
        after = _AFTER_RUN.get(status, "idle")
        if status == "CANCELLED" and final is not None and final.run_finished.checkpoint.next:
            after = "interrupted"  # as LangGraph's server: a run cancelled with nodes due leaves its thread interrupted
        pending = b""  # what the record keeps of the run's end: its interrupts, or its error (see info)
        if after == "interrupted" and final is not None:
            pending = pb.ThreadInfo(interrupts=final.run_finished.interrupts).SerializeToString()
        elif after == "error" and final is not None and final.run_finished.HasField("error"):
            pending = pb.ThreadInfo(error=final.run_finished.error).SerializeToString()
        return ThreadMark(self.template(record.graph, record.thread_id), now(), status=after, interrupts=pending)

    async def busy(self, graph: str, key: str) -> None:
        """:meth:`busy_mark`, written apart from the run's record. A failure is logged, as :meth:`ended`'s:
        the run goes on (its record is written already, and would be left RUNNING by a failure here)."""
        mark = self.busy_mark(graph, key)
        try:
            await self.store.amark(mark.record, mark.at, status=mark.status, interrupts=mark.interrupts)
        except Exception:  # noqa: BLE001 - see the doc
            log.exception("thread %r: its record could not be marked busy", key)

    async def ended(self, record: RunRecord, status: str, final: pb.RunEvent | None) -> None:
        """:meth:`ended_mark`, written apart from the run's record. A failure is logged: the run's own
        outcome stands, and the record is marked again at the thread's next call."""
        mark = self.ended_mark(record, status, final)
        try:
            await self.store.amark(mark.record, mark.at, status=mark.status, interrupts=mark.interrupts)
        except Exception:  # noqa: BLE001 - see the doc
            log.exception("thread %r: its record could not be marked %s after run %s", record.thread_id, mark.status, record.run_id)

    async def touched(self, graph: str, key: str, state: pb.StateSnapshot) -> None:
        """A version of the thread was written outside a run (UpdateState), its newest now ``state``: as
        LangGraph's server marks the thread then, "interrupted" (with ``state``'s pending interrupts)
        when nodes are due, else "idle"."""
        status = "interrupted" if state.next else "idle"
        pending = pb.ThreadInfo(interrupts=state.interrupts).SerializeToString() if state.next and state.interrupts else b""
        await self.store.amark(self.template(graph, key), now(), status=status, interrupts=pending)

    async def forget(self, key: str) -> None:
        """Thread ``key`` was deleted: its record goes with it (a SQL saver's row went with the thread's)."""
        if isinstance(self.store, MemoryThreads):
            await self.store.adelete(key)

    @staticmethod
    def info(record: ThreadRecord, values_json: str = "") -> pb.ThreadInfo:
        """``record`` as the wire has it."""
        out = pb.ThreadInfo(
            thread_id=record.caller_thread, graph=record.graph, metadata_json=encode(record.metadata),
            created_at=_ts(record.created_at), updated_at=_ts(record.updated_at), status=STATUS.get(record.status, 0),
            values_json=values_json,
        )  # fmt: skip
        if record.status == "interrupted" and record.interrupts:
            out.interrupts.extend(pb.ThreadInfo.FromString(record.interrupts).interrupts)
        elif record.status == "error" and record.interrupts:
            kept = pb.ThreadInfo.FromString(record.interrupts)
            if kept.HasField("error"):
                out.error.CopyFrom(kept.error)
        if record.ttl_seconds is not None:
            out.ttl.CopyFrom(pb.ThreadTtl(seconds=record.ttl_seconds, strategy=STRATEGY.get(record.ttl_strategy or "delete", 0)))
        if record.expires_at is not None:
            out.expires_at.CopyFrom(_ts(record.expires_at))
        return out


async def expect(book: ThreadBook | None, graph: str, key: str, expected: Expected) -> None:
    """:meth:`ThreadBook.expect`; without records, unmet."""
    if book is None:
        raise RecordChanged("this server keeps no thread records to check")
    await book.expect(graph, key, expected)
