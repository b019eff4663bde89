"""The thread records' RPCs: CreateThread, GetThread, UpdateThread, SearchThreads, CountThreads,
CopyThread, PruneThread.

Records are the :class:`server._thread_book.ThreadBook`'s; each call sees
only its tenant's (the storage key carries the tenant, and a search is
bounded to it). A thread from before records were kept, found by its
versions, gets its record at its first call here (as at its next run).

What writes a thread's versions (CopyThread's target, PruneThread) takes its
run slot first, with its lease when the checkpointer has leases, as
DeleteThread does: ABORTED while a run holds it, and fenced against a
replica that lost the thread meanwhile.

A search's page token is the last row's sort value and key, with the order
it was read in (base64 of a small JSON): opaque to callers, checked on use.
"""

from __future__ import annotations

import base64
import binascii
import json
import uuid
from datetime import datetime, timezone
from typing import Any

import grpc

from engine.host import KEEP, MAX_METADATA_BYTES, ThreadQuery, ThreadRecord
from graphwire_proto.v1 import graphwire_pb2 as pb
from server import _convert as conv
from server import _requests as req
from server._errors import RpcError
from server._parse import Parser
from server._prune import prune_one
from server._reads import Reads, newest_state, thread_key
from server._records import Records, now
from server._registry import GraphEntry
from server._runs import RunManager
from server._tenants import TENANT
from server._thread_book import STATUS, STRATEGY, ThreadBook, TtlRule

__all__ = ["ThreadRecordRpcs"]

DEFAULT_LIMIT, MAX_LIMIT = 20, 1000
_STATUS_NAMES = {v: k for k, v in STATUS.items()}
_STRATEGY_NAMES = {v: k for k, v in STRATEGY.items()}


def json_object(text: str, field: str) -> dict[str, Any] | None:
    """A JSON object from ``text`` (empty: None); INVALID_ARGUMENT naming ``field`` otherwise."""
    if not text:
        return None
    if len(text.encode()) > MAX_METADATA_BYTES:
        raise req.bad(field, f"at most {MAX_METADATA_BYTES} bytes")
    try:
        value = json.loads(text)
    except ValueError as e:
        raise req.bad(field, f"not JSON: {e}") from None
    if not isinstance(value, dict):
        raise req.bad(field, f"a JSON object, not {type(value).__name__}")
    return value


def ttl_of(ttl: pb.ThreadTtl) -> TtlRule | None:
    """A request's TTL (None: seconds 0, no TTL)."""
    if ttl.strategy not in (0, *_STRATEGY_NAMES):
        raise req.bad("ttl.strategy", f"unknown strategy {ttl.strategy}")
    return (ttl.seconds, _STRATEGY_NAMES.get(ttl.strategy, "delete")) if ttl.seconds else None


def _time(request: Any, name: str) -> datetime | None:
    return request.__getattribute__(name).ToDatetime(tzinfo=timezone.utc) if request.HasField(name) else None


def token_of(record: ThreadRecord, sort_by: str, descending: bool) -> str:
    at = record.created_at if sort_by == "created_at" else record.updated_at
    data = json.dumps([sort_by, descending, at.isoformat(), record.thread_id], separators=(",", ":"))
    return base64.urlsafe_b64encode(data.encode()).decode()


def after_of(token: str, sort_by: str, descending: bool) -> tuple[datetime, str] | None:
    """A page token's position; INVALID_ARGUMENT when it is not one of this order's."""
    if not token:
        return None
    try:
        s, d, at, key = json.loads(base64.urlsafe_b64decode(token.encode()))
        position = (datetime.fromisoformat(at), str(key))
    except (ValueError, TypeError, binascii.Error):
        raise req.bad("page_token", "not a page token of SearchThreads (pass next_page_token as it came)") from None
    if (s, d) != (sort_by, descending):
        raise req.bad("page_token", "it was read in another order: page with the sort_by and sort_order of the first page")
    return position


class ThreadRecordRpcs:
    """The thread records' RPCs (see the module's doc)."""

    def __init__(self, parse: Parser, reads: Reads, runs: RunManager, records: Records, book: ThreadBook) -> None:
        self.parse = parse
        self.reads = reads
        self.runs = runs
        self.records = records
        self.book = book

    async def _found(self, entry: GraphEntry, thread_id: str) -> ThreadRecord | None:
        """The thread's record; one made now for a thread with versions and none (from before records)."""
        key = thread_key(entry.name, thread_id)
        found = await self.book.store.aget(key)
        if found is None and await self.reads.checkpointer.aget_tuple(req.config(key)) is not None:
            await self.book.store.acreate(self.book.template(entry.name, key))
            found = await self.book.store.aget(key)
        return found

    async def _info(self, record: ThreadRecord, include_values: bool) -> pb.ThreadInfo:
        values = ""
        if include_values:
            state = await newest_state(self.reads.graph(record.graph).graph, record.caller_thread, run_ids=True)
            if state.metadata is not None:  # (no version yet, CreateThread: no values)
                values = conv.snapshot(state).values_json
        return self.book.info(record, values)

    def _missing(self, entry: GraphEntry, thread_id: str) -> RpcError:
        return RpcError(grpc.StatusCode.NOT_FOUND, f"thread {thread_id!r} does not exist in graph {entry.name!r}")

    async def CreateThread(self, request: pb.CreateThreadRequest, context: grpc.aio.ServicerContext) -> pb.ThreadInfo:
        entry = self.reads.graph(req.ident(request.graph, "graph"))
        thread_id = req.ident(request.thread_id, "thread_id") if request.thread_id else str(uuid.uuid4())
        metadata = json_object(request.metadata_json, "metadata_json")
        ttl = ttl_of(request.ttl) if request.HasField("ttl") else KEEP
        existing = await self._found(entry, thread_id)
        if existing is None:
            existing = await self.book.store.acreate(self.book.template(entry.name, thread_key(entry.name, thread_id), metadata=metadata, ttl=ttl))
            if existing is None:
                created = await self.book.store.aget(thread_key(entry.name, thread_id))
                assert created is not None  # just inserted (a delete in between would be a race the caller made)
                return self.book.info(created)
        if request.if_exists == pb.IF_EXISTS_DO_NOTHING:
            return self.book.info(existing)
        raise RpcError(grpc.StatusCode.ALREADY_EXISTS, f"thread {thread_id!r} already exists in graph {entry.name!r}")

    async def GetThread(self, request: pb.GetThreadRequest, context: grpc.aio.ServicerContext) -> pb.ThreadInfo:
        entry, thread_id = self.parse.thread(request)
        found = await self._found(entry, thread_id)
        if found is None:
            raise self._missing(entry, thread_id)
        return await self._info(found, request.include_values)

    async def UpdateThread(self, request: pb.UpdateThreadRequest, context: grpc.aio.ServicerContext) -> pb.ThreadInfo:
        entry, thread_id = self.parse.thread(request)
        metadata = json_object(request.metadata_json, "metadata_json")
        ttl = ttl_of(request.ttl) if request.HasField("ttl") else KEEP
        if await self._found(entry, thread_id) is None:
            raise self._missing(entry, thread_id)
        done = await self.book.store.aupdate(thread_key(entry.name, thread_id), now(), metadata=metadata, ttl=ttl)
        if done is None:
            raise self._missing(entry, thread_id)
        return self.book.info(done)

    def _query(self, f: pb.ThreadFilter, **page: Any) -> ThreadQuery:
        graph = self.reads.graph(f.graph).name if f.graph else None
        statuses = []
        for s in f.statuses:
            if s not in _STATUS_NAMES:
                raise req.bad("filter.statuses", f"unknown status {s}")
            statuses.append(_STATUS_NAMES[s])
        return ThreadQuery(
            tenant=TENANT.get() or "", graph=graph, metadata=json_object(f.metadata_json, "filter.metadata_json"),
            statuses=tuple(statuses), caller_ids=tuple(req.ident(t, "filter.thread_ids") for t in f.thread_ids),
            created_after=_time(f, "created_after"), created_before=_time(f, "created_before"),
            updated_after=_time(f, "updated_after"), updated_before=_time(f, "updated_before"), **page,
        )  # fmt: skip

    async def SearchThreads(self, request: pb.SearchThreadsRequest, context: grpc.aio.ServicerContext) -> pb.SearchThreadsResponse:
        limit = request.limit or DEFAULT_LIMIT
        if limit > MAX_LIMIT:
            raise req.bad("limit", f"at most {MAX_LIMIT}")
        sort_by = "updated_at" if request.sort_by == pb.THREAD_SORT_BY_UPDATED_AT else "created_at"
        descending = request.sort_order != pb.SORT_ORDER_ASC
        after = after_of(request.page_token, sort_by, descending)
        query = self._query(request.filter, sort_by=sort_by, descending=descending, after=after, limit=limit)
        found = await self.book.store.asearch(query)
        out = pb.SearchThreadsResponse(threads=[await self._info(r, request.include_values) for r in found])
        if len(found) == limit:
            out.next_page_token = token_of(found[-1], sort_by, descending)
        return out

    async def CountThreads(self, request: pb.CountThreadsRequest, context: grpc.aio.ServicerContext) -> pb.CountThreadsResponse:
        return pb.CountThreadsResponse(count=await self.book.store.acount(self._query(request.filter)))

    async def CopyThread(self, request: pb.CopyThreadRequest, context: grpc.aio.ServicerContext) -> pb.ThreadInfo:
        entry, thread_id = self.parse.thread(request)
        new_id = req.ident(request.new_thread_id, "new_thread_id") if request.new_thread_id else str(uuid.uuid4())
        source = await self._found(entry, thread_id)
        if source is None:
            raise self._missing(entry, thread_id)
        saver, target = self.reads.checkpointer, thread_key(entry.name, new_id)
        async with self.runs.slot(target, new_id, "copy", enqueue=False) as handle:
            if await self._found(entry, new_id) is not None:
                raise RpcError(grpc.StatusCode.ALREADY_EXISTS, f"thread {new_id!r} already exists in graph {entry.name!r}")
            if handle.lease is not None:  # a saver with leases (PostgreSQL): the copy is fenced
                await saver.acopy_thread(source.thread_id, target, lease=handle.lease)  # type: ignore[call-arg]
            else:
                await saver.acopy_thread(source.thread_id, target)
            copy = self.book.template(entry.name, target, metadata=source.metadata, ttl=KEEP)
            copy.ttl_seconds, copy.ttl_strategy = source.ttl_seconds, source.ttl_strategy
            if source.status == "interrupted":  # the same history: the same pending interrupts
                copy.status, copy.interrupts = source.status, source.interrupts
            await self.book.store.acreate(copy)
            made = await self.book.store.aget(target)
        assert made is not None
        return self.book.info(made)

    async def PruneThread(self, request: pb.PruneThreadRequest, context: grpc.aio.ServicerContext) -> pb.PruneThreadResponse:
        entry, thread_id = self.parse.thread(request)
        keep_last = request.keep_last or 1
        key, saver = thread_key(entry.name, thread_id), self.reads.checkpointer
        async with self.runs.slot(key, thread_id, "prune", enqueue=False):
            if await saver.aget_tuple(req.config(key)) is None:
                raise self._missing(entry, thread_id)
            deleted, _ = await prune_one(saver, self.records.store, key, keep_last=keep_last)
        return pb.PruneThreadResponse(deleted=deleted)
