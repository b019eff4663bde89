"""A store in process memory: for tests, notebooks and single-process programs.

``InMemoryStore()`` is LangGraph's, with the same batch semantics, search
order and semantic search (see :mod:`engine.store._logic`). Two things go
beyond LangGraph's: TTLs (``ttl={"default_ttl": ...}`` and ``put(...,
ttl=)``), which LangGraph's in-memory store refuses, and the timestamps: a
later put keeps an item's ``created_at``, as LangGraph's PostgreSQL store
does (its in-memory one resets it). Nothing survives the process.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Callable

from engine.store._logic import (
    Batch,
    NamespacePage,
    embed,
    expires_at,
    filter_matches,
    index_fields,
    plan,
    rank,
    search_item,
    under,
)
from engine.store.base import BaseStore, IndexConfig, Item, Op, Result, SearchItem, SearchOp, TTLConfig
from engine.store.base._embed import Embeddings, ensure_embeddings

__all__ = ["InMemoryStore"]


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(slots=True)
class _Record:
    item: Item
    seq: int
    vectors: dict[str, list[float]]
    ttl: float | None
    expires: datetime | None


class InMemoryStore(BaseStore):
    """Items in a dict, with optional semantic search and TTLs.

    Args:
        index: semantic search (``{"embed": fn, "dims": n, "fields": [...]}``);
            without it, a search's ``query`` is ignored, as in LangGraph.
        ttl: expiry settings (:class:`~engine.store.base.TTLConfig`).
    """

    supports_ttl = True

    def __init__(self, *, index: IndexConfig | None = None, ttl: TTLConfig | None = None) -> None:
        self.index_config: dict[str, Any] | None = dict(index) if index else None
        self.embeddings: Embeddings | None = ensure_embeddings(index.get("embed")) if index else None
        self._fields = index_fields(index.get("fields")) if index else []
        self.ttl_config = ttl
        self._data: dict[tuple[str, ...], dict[str, _Record]] = {}
        self._seq = itertools.count()
        self._lock = threading.Lock()
        self._now: Callable[[], datetime] = utcnow

    # -- reading --------------------------------------------------------------
    def _omit(self) -> bool:
        return bool(self.ttl_config and self.ttl_config.get("omit_expired"))

    def _live(self, record: _Record, now: datetime, omit: bool) -> bool:
        return not (omit and record.expires is not None and record.expires <= now)

    def _touch(self, record: _Record, refresh: bool, now: datetime) -> None:
        if refresh and record.ttl is not None:
            record.expires = expires_at(now, record.ttl)

    def _candidates(self, op: SearchOp, now: datetime, omit: bool) -> Iterable[_Record]:
        spaces = [ns for ns in self._data if under(ns, op.namespace_prefix)]
        spaces.sort(key=lambda ns: next(iter(self._data[ns].values())).seq)
        for ns in spaces:
            for record in self._data[ns].values():
                if self._live(record, now, omit) and filter_matches(record.item.value, op.filter):
                    yield record

    def _search(self, op: SearchOp, query: list[float] | None, now: datetime, omit: bool) -> list[SearchItem]:
        found = self._candidates(op, now, omit)
        if query is None:
            hits = list(itertools.islice(found, op.offset, op.offset + op.limit))
            page = [search_item(r.item) for r in hits]
        else:
            records = list(found)
            page = rank([(r.item, list(r.vectors.values())) for r in records], query, op)
            by_id = {(r.item.namespace, r.item.key): r for r in records}
            hits = [by_id[(s.namespace, s.key)] for s in page]
        for record in hits:
            self._touch(record, op.refresh_ttl, now)
        return page

    # -- the batch --------------------------------------------------------------
    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await self._run(plan(ops))

    async def _run(self, batch: Batch) -> list[Result]:
        """Run a checked batch (what :class:`~engine.store.ScopedStore` calls with its own checked ops)."""
        queries, put_vectors = await embed(self.embeddings, batch, self._fields)
        results = batch.results()
        with self._lock:
            now, omit = self._now(), self._omit()
            for i, get in batch.gets:
                record = self._data.get(get.namespace, {}).get(get.key)
                if record is not None and self._live(record, now, omit):
                    self._touch(record, get.refresh_ttl, now)
                    results[i] = record.item
            for i, search in batch.searches:
                results[i] = self._search(search, queries.get(search.query) if search.query else None, now, omit)
            for i, listing in batch.lists:
                page = NamespacePage(listing)
                for ns in sorted(self._data):
                    if any(self._live(r, now, omit) for r in self._data[ns].values()) and not page.feed(ns):
                        break
                results[i] = page.out
            for (ns, key), put in batch.puts.items():
                self._apply(ns, key, put.value, put.ttl, put_vectors.get((ns, key), {}), now)
        return results

    def _apply(
        self, ns: tuple[str, ...], key: str, value: Any, ttl: float | None, vectors: dict[str, list[float]], now: datetime
    ) -> None:
        records = self._data.get(ns)
        old = records.get(key) if records else None
        if value is None:
            if old is not None:
                del records[key]  # type: ignore[union-attr]
                if not records:
                    del self._data[ns]
            return
        created = old.item.created_at if old is not None else now
        item = Item(value=dict(value), key=key, namespace=ns, created_at=created, updated_at=now)
        record = _Record(item, old.seq if old is not None else next(self._seq), vectors, ttl, expires_at(now, ttl))
        self._data.setdefault(ns, {})[key] = record

    async def asweep_ttl(self) -> int:
        with self._lock:
            now = self._now()
            gone = [
                (ns, key)
                for ns, records in self._data.items()
                for key, r in records.items()
                if r.expires is not None and r.expires <= now
            ]
            for ns, key in gone:
                self._apply(ns, key, None, None, {}, now)
        return len(gone)
