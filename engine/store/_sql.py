"""What the SQLite and PostgreSQL stores share: one batch, one transaction.

A batch is checked (:func:`engine.store._logic.plan`), its values turned
into JSON and its texts embedded first, so a bad value or a failing
embedding function stores nothing; then one transaction runs every read
(seeing the store as it was before the batch) and every write. The SQL is
each backend's named queries (``_queries.py``), fixed text with bound
parameters; filters, ranking and paging are decided in Python, the same way
as in the in-memory store.

A backend supplies :meth:`SqlStore._transaction` (an async context manager
yielding a :class:`Tx`), its queries, and how it binds and reads times.
"""

from __future__ import annotations

import abc
from collections.abc import AsyncGenerator, Iterable, Sequence
from contextlib import AbstractAsyncContextManager, aclosing
from datetime import datetime
from typing import Any, Protocol

from engine._internal._unsupported import WHERE_IT_DIFFERS
from engine.store._logic import (
    Batch,
    NamespacePage,
    embed,
    expires_at,
    filter_matches,
    index_fields,
    literal_prefix,
    plan,
    rank,
    search_item,
)
from engine.store._rows import decode_ns, dump_value, encode_ns, item_of, pack, prefix_range, unpack
from engine.store.base import BaseStore, IndexConfig, Item, Op, Result, SearchItem, SearchOp, TTLConfig
from engine.store.base._embed import Embeddings, ensure_embeddings
from engine.store.memory import utcnow

__all__ = ["SqlStore", "Tx"]


class Tx(Protocol):
    """A transaction: statements run in it, all committed together or none."""

    def rows(self, sql: str, params: Sequence[Any]) -> AsyncGenerator[Sequence[Any], None]:
        """The rows of a query, read as they are consumed (the caller may stop early)."""
        ...

    async def execute(self, sql: str, params: Sequence[Any]) -> int:
        """Run a statement; how many rows it changed."""
        ...

    async def executemany(self, sql: str, params: Sequence[Sequence[Any]]) -> None: ...


def _exact_only(store: str, index: IndexConfig) -> None:
    """Refuse the vector-extension options of LangGraph's SQL stores' index config: these rank exactly, by cosine."""
    options: dict[str, Any] = dict(index)
    if options.get("distance_type", "cosine") != "cosine":
        raise NotImplementedError(
            f"{store}(index={{'distance_type': {options['distance_type']!r}}}): this store ranks by cosine "
            f"similarity only, as every graphwire store; see {WHERE_IT_DIFFERS}"
        )
    if options.get("ann_index_config"):
        raise NotImplementedError(
            f"{store}(index={{'ann_index_config': ...}}): this store ranks exactly, with no approximate "
            f"(pgvector) index to configure; leave it out, see {WHERE_IT_DIFFERS}"
        )


class SqlStore(BaseStore):
    """The batch logic of a store in SQL tables (``store_items``, ``store_vectors``)."""

    supports_ttl = True
    _q: Any  # the backend's _queries module

    def __init__(self, *, index: IndexConfig | None = None, ttl: TTLConfig | None = None) -> None:
        if index:
            _exact_only(type(self).__name__, index)
        self.index_config: dict[str, Any] | None = dict(index) if index else None
        self.embeddings: Embeddings | None = ensure_embeddings(index.get("embed")) if index else None
        self._fields = index_fields(index.get("fields")) if index else []
        self.ttl_config = ttl
        self._now = utcnow

    @abc.abstractmethod
    def _transaction(self) -> AbstractAsyncContextManager[Tx]:
        """A write transaction."""

    @abc.abstractmethod
    def _ts(self, when: datetime) -> Any:
        """A time as this backend binds it."""

    def _omit_after(self, now: datetime) -> Any:
        """The bound "expired before" time of reads that hide expired items (None: show them)."""
        return self._ts(now) if self.ttl_config and self.ttl_config.get("omit_expired") else None

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await self._run(plan(ops))

    async def _run(self, batch: Batch) -> list[Result]:
        """Run a checked batch (what :class:`~engine.store.ScopedStore` calls with its own checked ops)."""
        values = {
            nk: dump_value(nk[0], nk[1], op.value) for nk, op in batch.puts.items() if op.value is not None
        }
        queries, vectors = await embed(self.embeddings, batch, self._fields)
        results = batch.results()
        async with self._transaction() as tx:
            now = self._now()
            hide = self._omit_after(now)
            refresh: dict[tuple[str, str], float] = {}
            for i, get in batch.gets:
                results[i] = await self._get(tx, get.namespace, get.key, hide, refresh if get.refresh_ttl else None)
            for i, search in batch.searches:
                query = queries.get(search.query) if search.query else None
                results[i] = await self._search(tx, search, query, hide, refresh if search.refresh_ttl else None)
            for i, listing in batch.lists:
                page = NamespacePage(listing)
                sql, params = self._pick("NAMESPACES", literal_prefix(listing.match_conditions))
                async with aclosing(tx.rows(sql, (*params, hide, hide))) as rows:
                    async for (ns_text,) in rows:
                        if not page.feed(decode_ns(ns_text)):
                            break
                results[i] = page.out
            if refresh:
                refreshed = [(self._ts(expires_at(now, ttl)), ns, key) for (ns, key), ttl in refresh.items()]  # type: ignore[arg-type]
                await tx.executemany(self._q.REFRESH, refreshed)
            for (ns, key), put in batch.puts.items():
                await self._put(tx, ns, key, values.get((ns, key)), put.ttl, vectors.get((ns, key), {}), now)
        return results

    # -- reads ------------------------------------------------------------------
    def _item(self, row: Sequence[Any]) -> tuple[Item, float | None]:
        ns_text, key, value, created, updated, ttl = row[:6]
        return item_of(decode_ns(ns_text), key, value, self._dt(created), self._dt(updated)), ttl

    def _dt(self, value: Any) -> datetime:
        return value if isinstance(value, datetime) else datetime.fromisoformat(value)

    async def _get(
        self, tx: Tx, ns: tuple[str, ...], key: str, hide: Any, refresh: dict[Any, float] | None
    ) -> Item | None:
        async with aclosing(tx.rows(self._q.GET, (encode_ns(ns), key, hide, hide))) as rows:
            async for row in rows:
                item, ttl = self._item(row)
                if refresh is not None and ttl is not None:
                    refresh[(row[0], key)] = ttl
                return item
        return None

    def _pick(self, kind: str, prefix: tuple[str, ...]) -> tuple[str, tuple[Any, ...]]:
        """The ``kind`` query over every namespace, or over ``prefix``'s key range, and its range parameters."""
        if not prefix:
            return getattr(self._q, f"{kind}_ALL"), ()
        return getattr(self._q, f"{kind}_UNDER"), prefix_range(prefix)

    async def _search(
        self, tx: Tx, op: SearchOp, query: list[float] | None, hide: Any, refresh: dict[Any, float] | None
    ) -> list[SearchItem]:
        sql, params = self._pick("SEARCH", op.namespace_prefix)
        found: list[tuple[Any, Item, float | None]] = []
        stop = None if query is not None else op.offset + op.limit
        async with aclosing(tx.rows(sql, (*params, hide, hide))) as rows:
            async for row in rows:
                if stop is not None and len(found) >= stop:
                    break
                item, ttl = self._item(row)
                if filter_matches(item.value, op.filter):
                    found.append((row[0], item, ttl))
        if query is None:
            hits = found[op.offset : op.offset + op.limit]
            page = [search_item(item) for _, item, _ in hits]
        else:
            stored: dict[tuple[str, str], list[list[float]]] = {}
            vsql, vparams = self._pick("VECTORS", op.namespace_prefix)
            async for ns_text, key, data in tx.rows(vsql, vparams):
                stored.setdefault((ns_text, key), []).append(unpack(bytes(data)))
            page = rank([(item, stored.get((n, item.key), [])) for n, item, _ in found], query, op)
            by_id = {(item.namespace, item.key): (n, item, ttl) for n, item, ttl in found}
            hits = [by_id[(s.namespace, s.key)] for s in page]
        if refresh is not None:
            for ns_text, item, ttl in hits:
                if ttl is not None:
                    refresh[(ns_text, item.key)] = ttl
        return page

    # -- writes -----------------------------------------------------------------
    async def _put(
        self,
        tx: Tx,
        ns: tuple[str, ...],
        key: str,
        value: str | None,
        ttl: float | None,
        vectors: dict[str, list[float]],
        now: datetime,
    ) -> None:
        ns_text = encode_ns(ns)
        await tx.execute(self._q.DELETE_VECTORS, (ns_text, key))
        if value is None:
            await tx.execute(self._q.DELETE_ITEM, (ns_text, key))
            return
        expiry = expires_at(now, ttl)
        stamp = self._ts(now)
        await tx.execute(
            self._q.UPSERT, (ns_text, key, value, stamp, stamp, ttl, None if expiry is None else self._ts(expiry))
        )
        if vectors:
            await tx.executemany(self._q.INSERT_VECTOR, [(ns_text, key, f, pack(v)) for f, v in vectors.items()])

    async def asweep_ttl(self) -> int:
        async with self._transaction() as tx:
            now = self._ts(self._now())
            await tx.execute(self._q.SWEEP_VECTORS, (now,))
            return await tx.execute(self._q.SWEEP_ITEMS, (now,))
